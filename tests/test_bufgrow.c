/* test_bufgrow.c - unit tests of the sinks (cases/bufgrow/bufgrow.c).
 *
 * Every strategy: the contents equal the input across sizes and append sizes, and the dry run
 * (hb_sink_plan) reports exactly the stats of the real run. The httpcore model: its growths and
 * bytes copied equal hand computations before and after the overflow of its capacity shift, at a
 * 16-bit width for real and at the default 32-bit width by plan. Then limits, bad configurations
 * and the life cycle (release after errors, append after finish, data before finish).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hb_bufgrow.h"
#include "hb_err.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

/* Runs whose dry run predicts more growth copying than this are skipped (additive and 1-byte
 * appends at 3 MiB would copy terabytes); every strategy still runs at every size somewhere. */
#define COPY_BUDGET (UINT64_C(3) << 29)

typedef unsigned long long ull;

/* --- helpers -------------------------------------------------------------------------------- */

/* size deterministic bytes (xorshift64), never all zero so zero_fill mistakes show. */
static uint8_t *make_input(uint64_t size, uint64_t seed)
{
    uint8_t *p = malloc(size ? (size_t)size : 1);
    assert_non_null(p);
    uint64_t x = seed * 0x9E3779B97F4A7C15u + 1;
    for (uint64_t i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (uint8_t)(x >> 32);
    }
    return p;
}

/* Appends in[0..size) to a fresh sink in pieces of piece bytes (the last shorter) and finishes. */
static int fill_sink(hb_sink *s, const hb_sink_strategy *st, const hb_sink_config *cfg,
                     const uint8_t *in, uint64_t size, uint64_t piece)
{
    int rc = hb_sink_init(s, st, cfg);
    for (uint64_t off = 0; rc == HB_OK && off < size; off += piece) {
        uint64_t n = size - off < piece ? size - off : piece;
        rc = hb_sink_append(s, in + off, (size_t)n);
    }
    if (rc == HB_OK)
        rc = hb_sink_finish(s);
    return rc;
}

static const struct {
    const char *name;
    size_t off;
} stat_fields[] = {
    {"bytes_appended", offsetof(hb_sink_stats, bytes_appended)},
    {"bytes_copied", offsetof(hb_sink_stats, bytes_copied)},
    {"growths", offsetof(hb_sink_stats, growths)},
    {"allocations", offsetof(hb_sink_stats, allocations)},
    {"peak_capacity", offsetof(hb_sink_stats, peak_capacity)},
    {"peak_footprint", offsetof(hb_sink_stats, peak_footprint)},
};

static uint64_t stat_field(const hb_sink_stats *s, size_t i)
{
    uint64_t v;
    memcpy(&v, (const char *)s + stat_fields[i].off, sizeof v);
    return v;
}

/* Fails naming what and the first field that differs. */
static void check_stats(const char *what, const hb_sink_stats *got, const hb_sink_stats *want)
{
    for (size_t i = 0; i < sizeof stat_fields / sizeof stat_fields[0]; i++)
        if (stat_field(got, i) != stat_field(want, i))
            fail_msg("%s: %s is %llu, expected %llu", what, stat_fields[i].name,
                     (ull)stat_field(got, i), (ull)stat_field(want, i));
}

static const hb_sink_strategy *find(const char *name)
{
    const hb_sink_strategy *st = hb_sink_find(name);
    if (!st)
        fail_msg("no strategy %s", name);
    return st;
}

/* A configuration every strategy can run under ASan: mmap-reserve reserves 256 MiB. */
static hb_sink_config test_config(uint64_t size, uint64_t piece, int zero_fill)
{
    hb_sink_config c;
    memset(&c, 0, sizeof c);
    c.size_hint = size;
    c.read_size = (uint32_t)piece;
    c.zero_fill = zero_fill;
    c.reserve = 256 * MiB;
    return c;
}

/* --- the registry --------------------------------------------------------------------------- */

static void test_registry(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int complexity;
    } rows[] = {
        {"exact", 1},        {"httpcore", 2},          {"additive", 2}, {"doubling", 1},
        {"growth-1.5", 1},   {"realloc-doubling", 1},  {"sds", 1},      {"block-list", 1},
        {"mmap-reserve", 1}, {"mmap-reserve-huge", 1}, {"httpcore-heap", 2},
    };
    assert_int_equal(hb_sink_strategy_count, sizeof rows / sizeof rows[0]);
    for (size_t i = 0; i < hb_sink_strategy_count; i++) {
        const hb_sink_strategy *st = &hb_sink_strategies[i];
        assert_string_equal(st->name, rows[i].name);
        assert_int_equal(st->complexity, rows[i].complexity);
        assert_true(st->desc && strlen(st->desc) > 20);
        assert_true(st->init && st->append && st->finish && st->release && st->plan);
        assert_ptr_equal(hb_sink_find(rows[i].name), st);
    }
    assert_null(hb_sink_find("quadratic"));
    assert_null(hb_sink_find(""));
    assert_null(hb_sink_find(NULL));
}

/* httpcore-heap: httpcore's counts exactly, and past the threshold the dead array's memory is
 * reused - the array alternates between two blocks instead of taking fresh memory each step. */
static void test_httpcore_heap_reuses(void **state)
{
    (void)state;
    hb_sink_config cfg = {0};
    cfg.capacity_bits = 16; /* additive past 2^14 */
    cfg.read_size = 4096;
    hb_sink a, b;
    static uint8_t chunk[4096];
    assert_int_equal(hb_sink_init(&a, find("httpcore"), &cfg), HB_OK);
    assert_int_equal(hb_sink_init(&b, find("httpcore-heap"), &cfg), HB_OK);
    const uint8_t *seen[64];
    size_t n = 0;
    for (int i = 0; i < 48; i++) {
        memset(chunk, i + 1, sizeof chunk);
        assert_int_equal(hb_sink_append(&a, chunk, sizeof chunk), HB_OK);
        assert_int_equal(hb_sink_append(&b, chunk, sizeof chunk), HB_OK);
        if (i >= 8) /* 36 KiB: past the threshold, a growth at every append */
            seen[n++] = b.buf;
    }
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && seen[j] != seen[i])
            j++;
        distinct += j == i;
    }
    assert_true(distinct <= 4); /* two blocks alternate (a couple more while the heap grows) */
    assert_int_equal(hb_sink_finish(&a), HB_OK);
    assert_int_equal(hb_sink_finish(&b), HB_OK);
    assert_int_equal(a.stats.growths, b.stats.growths);
    assert_int_equal(a.stats.bytes_copied, b.stats.bytes_copied);
    uint64_t la = 0, lb = 0;
    const uint8_t *ra = hb_sink_data(&a, &la), *rb = hb_sink_data(&b, &lb);
    assert_int_equal(la, lb);
    assert_int_equal(la, 48 * 4096);
    assert_memory_equal(ra, rb, (size_t)la);
    hb_sink_release(&a);
    hb_sink_release(&b);
}

/* --- contents and plan == actual, every strategy ---------------------------------------------- */

static const uint64_t sizes[] = {
    0, 1, 4095, 4096, 4097, 8191, 8192, 8193, 16384 + 1, MiB - 1, MiB, MiB + 1, 3 * MiB,
};
/* Append sizes; 4 MiB is larger than every size: the body in one append. */
static const uint64_t pieces[] = {1, 7, 1000, 4096, 10000, 4 * MiB};

/* Runs one strategy on one size in one piece size: contents, length, and the dry run's stats.
 * Returns 0 if skipped (over COPY_BUDGET). */
static int check_one(const hb_sink_strategy *st, const uint8_t *in, uint64_t size, uint64_t piece,
                     int zero_fill)
{
    char what[160];
    snprintf(what, sizeof what, "%s size %llu piece %llu%s", st->name, (ull)size, (ull)piece,
             zero_fill ? " zero_fill" : "");
    hb_sink_config cfg = test_config(size, piece, zero_fill);
    hb_sink_stats plan;
    int rc = hb_sink_plan(st, &cfg, size, &plan);
    if (rc != HB_OK)
        fail_msg("%s: plan: %s", what, hb_err_str(rc));
    if (plan.bytes_copied > COPY_BUDGET)
        return 0;

    hb_sink s;
    rc = fill_sink(&s, st, &cfg, in, size, piece);
    if (rc != HB_OK)
        fail_msg("%s: %s", what, hb_err_str(rc));
    uint64_t len = 12345;
    const uint8_t *d = hb_sink_data(&s, &len);
    if (!d || len != size)
        fail_msg("%s: data %p of %llu bytes", what, (const void *)d, (ull)len);
    if (size && memcmp(d, in, (size_t)size) != 0)
        fail_msg("%s: contents differ", what);
    check_stats(what, &s.stats, &plan);
    hb_sink_release(&s);
    return 1;
}

static void test_contents_and_plan(void **state)
{
    (void)state;
    uint64_t top = sizes[sizeof sizes / sizeof sizes[0] - 1];
    uint8_t *in = make_input(top, 1);
    for (size_t k = 0; k < hb_sink_strategy_count; k++) {
        const hb_sink_strategy *st = &hb_sink_strategies[k];
        int ran_top = 0;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (size_t j = 0; j < sizeof pieces / sizeof pieces[0]; j++) {
                int ran = check_one(st, in, sizes[i], pieces[j], 0);
                if (!ran && pieces[j] >= 4096)
                    fail_msg("%s: size %llu piece %llu over the test's copy budget", st->name,
                             (ull)sizes[i], (ull)pieces[j]);
                ran_top |= ran && sizes[i] == top;
            }
        assert_true(ran_top);
    }
    free(in);
}

/* zero_fill (the JVM's zeroed new byte[]) changes no byte of the result and no stat. */
static void test_zero_fill(void **state)
{
    (void)state;
    static const uint64_t zsizes[] = {0, 4097, 8193, MiB + 1};
    uint8_t *in = make_input(MiB + 1, 2);
    for (size_t k = 0; k < hb_sink_strategy_count; k++)
        for (size_t i = 0; i < sizeof zsizes / sizeof zsizes[0]; i++) {
            check_one(&hb_sink_strategies[k], in, zsizes[i], 4096, 1);
            check_one(&hb_sink_strategies[k], in, zsizes[i], 1000, 1);
        }
    free(in);
}

/* --- httpcore against hand computations ------------------------------------------------------ */

/* A 16-bit width: capacity << 1 overflows once the capacity reaches 2^14 = 16384 (16384 << 1 =
 * 32768 has bit 15 set: -32768). Nine appends of 4096 bytes, capacity before -> after:
 *   1: needed  4096, fits 4096
 *   2: needed  8192 > 4096:  4096 << 1 =  8192 -> 8192,  copies  4096
 *   3: needed 12288 > 8192:  8192 << 1 = 16384 -> 16384, copies  8192   (doubling ends)
 *   4: needed 16384, fits
 *   5: needed 20480: 16384 << 1 = -32768 -> needed 20480, copies 16384   (additive from here:
 *   6: needed 24576: 20480 << 1 = -24576 -> 24576, copies 20480           one growth per append,
 *   7: needed 28672: 24576 << 1 = -16384 -> 28672, copies 24576           each copying all
 *   8: needed 32768: 28672 << 1 =  -8192 -> 32768, copies 28672           the bytes held)
 *   9: needed 36864: 32768 << 1 =      0 -> 36864, copies 32768
 * The width moves only the shift: 36864 is past 2^15 and still no Java array limit (2^31 - 1).
 * Footprint of a growth: old + new capacity. */
static void test_httpcore_16bit_by_hand(void **state)
{
    (void)state;
    static const struct {
        uint64_t growths, copied, capacity, footprint;
    } after[9] = {
        {0, 0, 4096, 4096},       {1, 4096, 8192, 12288},    {2, 12288, 16384, 24576},
        {2, 12288, 16384, 24576}, {3, 28672, 20480, 36864},  {4, 49152, 24576, 45056},
        {5, 73728, 28672, 53248}, {6, 102400, 32768, 61440}, {7, 135168, 36864, 69632},
    };
    hb_sink_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity_bits = 16;
    uint8_t *in = make_input(9 * 4096, 3);
    hb_sink s;
    assert_int_equal(hb_sink_init(&s, find("httpcore"), &cfg), HB_OK);
    for (int i = 0; i < 9; i++) {
        assert_int_equal(hb_sink_append(&s, in + i * 4096, 4096), HB_OK);
        assert_int_equal(s.stats.growths, after[i].growths);
        assert_int_equal(s.stats.bytes_copied, after[i].copied);
        assert_int_equal(s.stats.allocations, 1 + after[i].growths);
        assert_int_equal(s.stats.peak_capacity, after[i].capacity);
        assert_int_equal(s.stats.peak_footprint, after[i].footprint);
    }
    /* toByteArray: new byte[36864] and a copy: 135168 + 36864 copied, one more allocation,
     * footprint 36864 + 36864 = 73728 while both exist. */
    assert_int_equal(hb_sink_finish(&s), HB_OK);
    const hb_sink_stats want = {36864, 172032, 7, 9, 36864, 73728};
    check_stats("httpcore 16-bit real", &s.stats, &want);
    uint64_t len;
    const uint8_t *d = hb_sink_data(&s, &len);
    assert_int_equal(len, 9 * 4096);
    assert_memory_equal(d, in, 9 * 4096);
    hb_sink_release(&s);

    hb_sink_stats plan;
    assert_int_equal(hb_sink_plan(find("httpcore"), &cfg, 9 * 4096, &plan), HB_OK);
    check_stats("httpcore 16-bit plan", &plan, &want);
    free(in);
}

/* The default 32-bit width, by plan (appends of 4096):
 * 2^30 bytes: the capacity doubles 4096 -> 2^30: 18 growths copying 4096 + 8192 + ... + 2^29 =
 *   2^30 - 4096 bytes; toByteArray copies 2^30 more: 2^31 - 4096 = 2147479552. Allocations
 *   1 + 18 + 1 = 20; peak footprint 2^30 + 2^30 (array and its copy) = 2^31.
 * 2^30 + 3 x 4096: at 2^30, 2^30 << 1 = 2^31 wraps to -2^31, so the three more appends each grow
 *   to exactly what is needed, copying 2^30, 2^30 + 4096, 2^30 + 8192: 21 growths, copied
 *   (2^30 - 4096) + (3 x 2^30 + 12288) + final (2^30 + 12288) = 5 x 2^30 + 20480 = 5368729600;
 *   allocations 23; peak capacity 2^30 + 12288 = 1073754112; footprint 2 x that = 2147508224.
 * 1.7e9 bytes (the incident): after the 18 doublings, k = ceil((1.7e9 - 2^30) / 4096) = 152896
 *   additive growths (the last append is 256 bytes), growth i copying 2^30 + 4096 i bytes:
 *   k 2^30 + 4096 k (k - 1) / 2 = 164172018237440 + 47877478809600; with the doublings'
 *   2^30 - 4096 and toByteArray's 1.7e9: 212049769128192 bytes, ~2.1e14 as DESIGN.md says.
 *   growths 18 + 152896 = 152914, allocations 152916, footprint 2 x 1.7e9. */
static void test_httpcore_32bit_plan_by_hand(void **state)
{
    (void)state;
    static const struct {
        uint64_t total;
        hb_sink_stats want;
    } rows[] = {
        {GiB, {GiB, 2147479552, 18, 20, GiB, 2 * GiB}},
        {GiB + 12288, {GiB + 12288, 5368729600, 21, 23, 1073754112, 2147508224}},
        {1700000000,
         {1700000000, UINT64_C(212049769128192), 152914, 152916, 1700000000, 3400000000}},
    };
    const hb_sink_strategy *st = find("httpcore");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        hb_sink_stats plan;
        char what[64];
        snprintf(what, sizeof what, "httpcore plan %llu", (ull)rows[i].total);
        assert_int_equal(hb_sink_plan(st, NULL, rows[i].total, &plan), HB_OK);
        check_stats(what, &plan, &rows[i].want);
    }
    /* A Java array holds at most 2^31 - 1 bytes. */
    hb_sink_stats plan;
    assert_int_equal(hb_sink_plan(st, NULL, INT32_MAX, &plan), HB_OK);
    assert_int_equal(hb_sink_plan(st, NULL, UINT64_C(1) << 31, &plan), HB_ELIMIT);
    assert_int_equal(plan.bytes_copied, 0); /* zeroed on error */
    /* At 64 bits the shift never overflows here: 19 doublings to 2^31, copying 2^31 - 4096, then
     * toByteArray's 1.7e9. */
    hb_sink_config wide;
    memset(&wide, 0, sizeof wide);
    wide.capacity_bits = 64;
    assert_int_equal(hb_sink_plan(st, &wide, 1700000000, &plan), HB_OK);
    const hb_sink_stats want64 = {
        1700000000, UINT64_C(2147479552) + 1700000000, 19, 21, 2 * GiB, 2 * GiB + 1700000000};
    check_stats("httpcore 64-bit plan 1.7e9", &plan, &want64);
}

/* The real 16-bit run and its plan agree at every size around the overflow, with reads of 4096
 * and 1000, also for narrow widths where even 4096 << 1 overflows (8 bits: additive at once). */
static void test_httpcore_widths_plan_equals_real(void **state)
{
    (void)state;
    static const int widths[] = {8, 13, 14, 16, 20};
    static const uint64_t totals[] = {0, 4096, 16383, 16384, 16385, 40000, 70001};
    static const uint64_t reads[] = {4096, 1000};
    uint8_t *in = make_input(70001, 4);
    const hb_sink_strategy *st = find("httpcore");
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
        for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++)
            for (size_t r = 0; r < sizeof reads / sizeof reads[0]; r++) {
                char what[96];
                snprintf(what, sizeof what, "httpcore %d bits total %llu read %llu", widths[w],
                         (ull)totals[t], (ull)reads[r]);
                hb_sink_config cfg;
                memset(&cfg, 0, sizeof cfg);
                cfg.capacity_bits = widths[w];
                cfg.read_size = (uint32_t)reads[r];
                hb_sink_stats plan;
                assert_int_equal(hb_sink_plan(st, &cfg, totals[t], &plan), HB_OK);
                hb_sink s;
                assert_int_equal(fill_sink(&s, st, &cfg, in, totals[t], reads[r]), HB_OK);
                check_stats(what, &s.stats, &plan);
                hb_sink_release(&s);
            }
    free(in);
}

/* additive, reads of 1000 into 6500 bytes: appends 1-4 fill the initial 4096 (len 4000); then
 * 5000 (copies 4000), 6000 (copies 5000), 6500 (copies 6000): 3 growths, 15000 bytes copied,
 * 4 allocations, footprints 4096 + 5000, 5000 + 6000, 6000 + 6500 = 12500. No final copy. */
static void test_additive_by_hand(void **state)
{
    (void)state;
    hb_sink_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.read_size = 1000;
    const hb_sink_stats want = {6500, 15000, 3, 4, 6500, 12500};
    uint8_t *in = make_input(6500, 5);
    hb_sink s;
    assert_int_equal(fill_sink(&s, find("additive"), &cfg, in, 6500, 1000), HB_OK);
    check_stats("additive real", &s.stats, &want);
    hb_sink_release(&s);
    hb_sink_stats plan;
    assert_int_equal(hb_sink_plan(find("additive"), &cfg, 6500, &plan), HB_OK);
    check_stats("additive plan", &plan, &want);
    free(in);
}

/* The closed form of the additive phase does not loop per append and saturates: 2^62 bytes in
 * 1-byte appends would copy ~2^123 bytes. */
static void test_plan_saturates(void **state)
{
    (void)state;
    hb_sink_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.read_size = 1;
    hb_sink_stats plan;
    assert_int_equal(hb_sink_plan(find("additive"), &cfg, UINT64_C(1) << 62, &plan), HB_OK);
    assert_true(plan.bytes_copied == UINT64_MAX);
    assert_true(plan.growths == (UINT64_C(1) << 62) - 4096);
}

/* --- the other policies by hand --------------------------------------------------------------- */

/* sds, reads of 4096 into 20480: sdsempty has no room; append 1 asks 4096 < 1 MiB -> 8192 (the
 * first allocation, not a growth); append 3 asks 12288 -> 24576 (a growth, realloc "copies" the
 * 8192 held: an upper bound); appends 4 and 5 fit. Footprint 8192 + 24576. */
static void test_sds_by_hand(void **state)
{
    (void)state;
    const hb_sink_stats want = {20480, 8192, 1, 2, 24576, 32768};
    uint8_t *in = make_input(2 * MiB, 6);
    hb_sink s;
    assert_int_equal(fill_sink(&s, find("sds"), NULL, in, 20480, 4096), HB_OK);
    check_stats("sds real", &s.stats, &want);
    hb_sink_release(&s);
    /* One append of exactly 1 MiB is not below SDS_MAX_PREALLOC: room for 1 MiB + 1 MiB; one byte
     * less is doubled: 2 MiB - 2. */
    static const struct {
        uint64_t n, capacity;
    } rows[] = {{MiB, 2 * MiB}, {MiB - 1, 2 * MiB - 2}};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(hb_sink_init(&s, find("sds"), NULL), HB_OK);
        assert_int_equal(hb_sink_append(&s, in, (size_t)rows[i].n), HB_OK);
        assert_int_equal(s.stats.peak_capacity, rows[i].capacity);
        hb_sink_release(&s);
    }
    free(in);
}

/* block-list (8 KiB blocks): one full block is the result itself; one partial block is copied
 * (Arrays.copyOf); two blocks are gathered; an empty body still allocates its first block. */
static void test_block_list_by_hand(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        hb_sink_stats want;
    } rows[] = {
        {0, {0, 0, 0, 2, 8192, 8192}},
        {8191, {8191, 8191, 0, 2, 8192, 8192 + 8191}},
        {8192, {8192, 0, 0, 1, 8192, 8192}},
        {8193, {8193, 8193, 1, 3, 16384, 16384 + 8193}},
        {3 * 8192, {3 * 8192, 3 * 8192, 2, 4, 3 * 8192, 6 * 8192}},
    };
    uint8_t *in = make_input(3 * 8192, 7);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "block-list %llu", (ull)rows[i].size);
        hb_sink s;
        assert_int_equal(fill_sink(&s, find("block-list"), NULL, in, rows[i].size, 4096), HB_OK);
        check_stats(what, &s.stats, &rows[i].want);
        hb_sink_release(&s);
    }
    free(in);
}

/* --- limits ----------------------------------------------------------------------------------- */

/* An empty body, nothing appended: every strategy finishes with non-NULL data of length 0. sds and
 * exact (hint 0) never allocate, and finish must not do arithmetic on their NULL block (UBSan:
 * "applying zero offset to null pointer"). */
static void test_empty_body(void **state)
{
    (void)state;
    for (size_t k = 0; k < hb_sink_strategy_count; k++) {
        const hb_sink_strategy *st = &hb_sink_strategies[k];
        hb_sink_config cfg = test_config(0, 4096, 0);
        hb_sink s;
        uint64_t len = 1;
        assert_int_equal(hb_sink_init(&s, st, &cfg), HB_OK);
        assert_int_equal(hb_sink_append(&s, (const uint8_t *)"", 0), HB_OK);
        assert_int_equal(hb_sink_finish(&s), HB_OK);
        assert_int_equal(hb_sink_finish(&s), HB_OK);
        if (!hb_sink_data(&s, &len) || len != 0)
            fail_msg("%s: empty body gave data of %llu bytes", st->name, (ull)len);
        hb_sink_release(&s);
    }
}

/* exact: more than size_hint is HB_ELIMIT and changes nothing; a hint of 0 holds an empty body. */
static void test_exact_limit(void **state)
{
    (void)state;
    const hb_sink_strategy *st = find("exact");
    uint8_t *in = make_input(8192, 8);
    hb_sink_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size_hint = 4096;
    hb_sink s;
    assert_int_equal(hb_sink_init(&s, st, &cfg), HB_OK);
    assert_int_equal(hb_sink_append(&s, in, 4000), HB_OK);
    assert_int_equal(hb_sink_append(&s, in + 4000, 97), HB_ELIMIT);
    assert_int_equal(s.stats.bytes_appended, 4000);
    assert_int_equal(hb_sink_append(&s, in + 4000, 96), HB_OK);
    assert_int_equal(hb_sink_append(&s, in + 4096, 1), HB_ELIMIT);
    assert_int_equal(hb_sink_finish(&s), HB_OK);
    uint64_t len;
    const uint8_t *d = hb_sink_data(&s, &len);
    assert_int_equal(len, 4096);
    assert_memory_equal(d, in, 4096);
    hb_sink_release(&s);

    hb_sink_stats plan;
    assert_int_equal(hb_sink_plan(st, &cfg, 4097, &plan), HB_ELIMIT);
    assert_int_equal(plan.allocations, 0);

    cfg.size_hint = 0;
    assert_int_equal(hb_sink_init(&s, st, &cfg), HB_OK);
    assert_int_equal(hb_sink_append(&s, in, 1), HB_ELIMIT);
    hb_sink_release(&s); /* after an error, unfinished */
    assert_int_equal(hb_sink_init(&s, st, &cfg), HB_OK);
    assert_int_equal(hb_sink_finish(&s), HB_OK);
    d = hb_sink_data(&s, &len);
    assert_non_null(d);
    assert_int_equal(len, 0);
    assert_int_equal(s.stats.allocations, 0);
    hb_sink_release(&s);
    free(in);
}

/* mmap-reserve with a small reservation: fills it, then HB_ENOMEM without damage; the huge
 * variant rounds the reservation up to 2 MiB; the default 64 GiB reservation is accepted. */
static void test_mmap_reserve_limit(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint64_t reserve, usable;
    } rows[] = {
        {"mmap-reserve", MiB, MiB},
        {"mmap-reserve", 100000, 2 * 64 * KiB},
        {"mmap-reserve-huge", MiB, 2 * MiB},
    };
    uint8_t *in = make_input(2 * MiB + 1, 9);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const hb_sink_strategy *st = find(rows[i].name);
        hb_sink_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.reserve = rows[i].reserve;
        uint64_t usable = rows[i].usable;
        hb_sink s;
        assert_int_equal(hb_sink_init(&s, st, &cfg), HB_OK);
        for (uint64_t off = 0; off < usable; off += 4096)
            assert_int_equal(hb_sink_append(&s, in + off, 4096), HB_OK);
        hb_sink_stats before = s.stats;
        assert_int_equal(hb_sink_append(&s, in + usable, 1), HB_ENOMEM);
        check_stats(rows[i].name, &s.stats, &before);
        assert_int_equal(hb_sink_finish(&s), HB_OK);
        uint64_t len;
        const uint8_t *d = hb_sink_data(&s, &len);
        assert_int_equal(len, usable);
        assert_memory_equal(d, in, (size_t)usable);
        hb_sink_stats plan;
        assert_int_equal(hb_sink_plan(st, &cfg, usable, &plan), HB_OK);
        check_stats(rows[i].name, &s.stats, &plan);
        assert_int_equal(hb_sink_plan(st, &cfg, usable + 1, &plan), HB_ENOMEM);
        hb_sink_release(&s);

        /* an error in the middle, then release without finishing */
        assert_int_equal(hb_sink_init(&s, st, &cfg), HB_OK);
        assert_int_equal(hb_sink_append(&s, in, (size_t)usable + 1), HB_ENOMEM);
        hb_sink_release(&s);
    }
    for (size_t i = 0; i < 2; i++) {
        hb_sink s;
        assert_int_equal(hb_sink_init(&s, find(rows[2 * i].name), NULL), HB_OK);
        assert_true(s.cfg.reserve >= GiB); /* 64 GiB, or halved no lower than 1 GiB */
        assert_int_equal(hb_sink_append(&s, in, 4096), HB_OK);
        hb_sink_release(&s);
    }
    free(in);
}

/* --- configuration and life cycle ------------------------------------------------------------- */

static void test_config_defaults_and_errors(void **state)
{
    (void)state;
    hb_sink s;
    hb_sink_stats a, b;
    hb_sink_config cfg;
    static const int bad_bits[] = {-1, 1, 7, 65, 1000};
    for (size_t k = 0; k < hb_sink_strategy_count; k++) {
        const hb_sink_strategy *st = &hb_sink_strategies[k];
        for (size_t i = 0; i < sizeof bad_bits / sizeof bad_bits[0]; i++) {
            memset(&cfg, 0, sizeof cfg);
            cfg.capacity_bits = bad_bits[i];
            assert_int_equal(hb_sink_init(&s, st, &cfg), HB_EINVAL);
            hb_sink_release(&s);
            assert_int_equal(hb_sink_plan(st, &cfg, 4096, &a), HB_EINVAL);
        }
        memset(&cfg, 0, sizeof cfg);
        cfg.reserve = UINT64_C(1) << 60;
        assert_int_equal(hb_sink_init(&s, st, &cfg), HB_EINVAL);
        hb_sink_release(&s);
        /* zero fields are the defaults: read_size 4096, block_size 8192, 32-bit width */
        memset(&cfg, 0, sizeof cfg);
        cfg.size_hint = 3 * MiB + 5;
        assert_int_equal(hb_sink_plan(st, &cfg, 3 * MiB + 5, &a), HB_OK);
        cfg.read_size = 4096;
        cfg.block_size = 8192;
        cfg.capacity_bits = 32;
        cfg.reserve = UINT64_C(64) << 30;
        assert_int_equal(hb_sink_plan(st, &cfg, 3 * MiB + 5, &b), HB_OK);
        check_stats(st->name, &a, &b);
    }
    /* the accepted extremes of the width */
    memset(&cfg, 0, sizeof cfg);
    cfg.capacity_bits = 8;
    assert_int_equal(hb_sink_init(&s, find("httpcore"), &cfg), HB_OK);
    hb_sink_release(&s);
    cfg.capacity_bits = 64;
    assert_int_equal(hb_sink_init(&s, find("httpcore"), &cfg), HB_OK);
    hb_sink_release(&s);
    /* NULL arguments */
    assert_int_equal(hb_sink_init(NULL, find("exact"), NULL), HB_EINVAL);
    assert_int_equal(hb_sink_init(&s, NULL, NULL), HB_EINVAL);
    hb_sink_release(&s);
    assert_int_equal(hb_sink_plan(NULL, NULL, 1, &a), HB_EINVAL);
    assert_int_equal(hb_sink_plan(find("exact"), NULL, 1, NULL), HB_EINVAL);
    hb_sink_release(NULL);
}

static void test_life_cycle(void **state)
{
    (void)state;
    uint8_t *in = make_input(10000, 10);
    for (size_t k = 0; k < hb_sink_strategy_count; k++) {
        const hb_sink_strategy *st = &hb_sink_strategies[k];
        hb_sink_config cfg = test_config(10000, 4096, 0);
        hb_sink s;
        memset(&s, 0, sizeof s);
        hb_sink_release(&s); /* a zeroed sink */
        assert_int_equal(hb_sink_finish(&s), HB_EINVAL);
        assert_int_equal(hb_sink_init(&s, st, &cfg), HB_OK);
        assert_int_equal(hb_sink_append(&s, NULL, 0), HB_OK);
        assert_int_equal(hb_sink_append(&s, in, 10000), HB_OK);
        uint64_t len = 7;
        assert_null(hb_sink_data(&s, &len)); /* not finished */
        assert_int_equal(len, 0);
        assert_int_equal(hb_sink_finish(&s), HB_OK);
        hb_sink_stats done = s.stats;
        assert_int_equal(hb_sink_finish(&s), HB_OK); /* twice: nothing more */
        check_stats(st->name, &s.stats, &done);
        assert_int_equal(hb_sink_append(&s, in, 1), HB_EINVAL);
        assert_int_equal(hb_sink_append(&s, in, 4096), HB_EINVAL);
        const uint8_t *d = hb_sink_data(&s, &len);
        assert_int_equal(len, 10000);
        assert_memory_equal(d, in, 10000);
        hb_sink_release(&s);
        hb_sink_release(&s);                                 /* twice */
        assert_int_equal(hb_sink_init(&s, st, &cfg), HB_OK); /* again after release */
        hb_sink_release(&s);
    }
    free(in);
}

/* Under AddressSanitizer the byte after the result is poisoned for every strategy, even where
 * the sink's capacity is larger than the body: a consumer reading past len is caught. */
static void test_result_is_exactly_len(void **state)
{
    (void)state;
#ifdef TEST_ASAN
    uint8_t *in = make_input(4097, 11);
    for (size_t k = 0; k < hb_sink_strategy_count; k++) {
        const hb_sink_strategy *st = &hb_sink_strategies[k];
        hb_sink_config cfg = test_config(8000, 4096, 0); /* exact: 3903 bytes of slack */
        hb_sink s;
        assert_int_equal(fill_sink(&s, st, &cfg, in, 4097, 4096), HB_OK);
        uint64_t len;
        const uint8_t *d = hb_sink_data(&s, &len);
        assert_int_equal(len, 4097);
        if (__asan_address_is_poisoned(d + len - 1) || !__asan_address_is_poisoned(d + len))
            fail_msg("%s: the result is not exactly %llu readable bytes", st->name, (ull)len);
        hb_sink_release(&s);
    }
    free(in);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_contents_and_plan),
        cmocka_unit_test(test_zero_fill),
        cmocka_unit_test(test_httpcore_16bit_by_hand),
        cmocka_unit_test(test_httpcore_32bit_plan_by_hand),
        cmocka_unit_test(test_httpcore_widths_plan_equals_real),
        cmocka_unit_test(test_httpcore_heap_reuses),
        cmocka_unit_test(test_additive_by_hand),
        cmocka_unit_test(test_plan_saturates),
        cmocka_unit_test(test_sds_by_hand),
        cmocka_unit_test(test_block_list_by_hand),
        cmocka_unit_test(test_empty_body),
        cmocka_unit_test(test_exact_limit),
        cmocka_unit_test(test_mmap_reserve_limit),
        cmocka_unit_test(test_config_defaults_and_errors),
        cmocka_unit_test(test_life_cycle),
        cmocka_unit_test(test_result_is_exactly_len),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* bufgrow.c - the sinks of hb_bufgrow.h: growth strategies for a body of unknown length, their
 * statistics and their dry runs.
 *
 * Every strategy but block-list is a "linear" sink: one contiguous array that grows by a policy.
 * They share the append fast path (the read fits: one memcpy) and differ only in the arithmetic
 * of the policy (initial_capacity, next_capacity: one switch holding every rule side by side) and
 * in how a growth gets memory (malloc + copy + free, realloc, or mprotect of reserved space).
 * The real run and the dry run (hb_sink_plan) count through the same account_* functions, so the
 * two agree field for field by construction; the tests check it.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* MAP_NORESERVE, MADV_HUGEPAGE */
#endif

#include "hb_bufgrow.h"
#include "hb_err.h"
#include "hb_testhook.h" /* TEST-ONLY injections (HB_TEST_HOOKS builds) */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__GNUC__) || defined(__clang__)
#define HB_NOINLINE __attribute__((noinline))
#else
#define HB_NOINLINE
#endif

/* AddressSanitizer: finish poisons the result's slack so over-reads by consumers are caught. */
#if defined(__SANITIZE_ADDRESS__)
#define HB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HB_ASAN 1
#endif
#endif
#ifdef HB_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define MMAP_GRANULE (UINT64_C(64) << 10) /* mmap-reserve: commit step and rounding, 64 KiB */
#define HUGE_GRANULE (UINT64_C(2) << 20)  /* mmap-reserve-huge: one transparent huge page */
#define RESERVE_FLOOR (UINT64_C(1) << 30) /* halve a refused reservation down to this */
#define RESERVE_MAX (UINT64_C(1) << 47)   /* 128 TiB: the x86-64 user address space */
#define BLOCKS_INITIAL 16                 /* block-list: first size of the pointer array */
#define MiB (UINT64_C(1) << 20)
#define HEAP_REGION (UINT64_C(2) << 20) /* httpcore-heap: G1's region size for a 6 GiB heap */

/* The growth arithmetic of each strategy (hb_sink.policy). */
enum policy {
    POL_EXACT,
    POL_HTTPCORE,
    POL_ADDITIVE,
    POL_DOUBLING,
    POL_GROWTH15,
    POL_REALLOC2,
    POL_SDS,
    POL_BLOCKS,
    POL_MMAP,
    POL_MMAP_HUGE,
    POL_HTTPCORE_HEAP, /* httpcore's arithmetic; arrays from a recycling heap (KIND_HEAP) */
};

/* How a growth obtains memory. */
enum kind {
    KIND_MALLOC,  /* allocate new, copy len bytes, free old: the JVM's new byte[] + arraycopy */
    KIND_REALLOC, /* realloc: glibc copies, extends in place, or mremaps */
    KIND_COMMIT,  /* mprotect more of a reservation: never copies */
    KIND_HEAP,    /* as KIND_MALLOC, but the old array's memory is kept for a later new array
                     (a JVM heap: no fresh pages, so no page faults; new arrays zeroed) */
};

/* --- small arithmetic ----------------------------------------------------------------------- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Whether v bytes can be asked of malloc (size_t may be narrower than uint64_t). */
static int fits_size(uint64_t v)
{
    return v == (uint64_t)(size_t)v;
}

/* --- the policies --------------------------------------------------------------------------- */

/* httpcore-heap grows by httpcore's arithmetic: only its memory differs (policy_kind). */
static int base_policy(int pol)
{
    return pol == POL_HTTPCORE_HEAP ? POL_HTTPCORE : pol;
}

static int policy_kind(int pol)
{
    switch (pol) {
    case POL_HTTPCORE_HEAP:
        return KIND_HEAP;
    case POL_REALLOC2:
    case POL_SDS:
        return KIND_REALLOC;
    case POL_MMAP:
    case POL_MMAP_HUGE:
        return KIND_COMMIT;
    default:
        return KIND_MALLOC;
    }
}

/* The Java models, whose new byte[] is zeroed (cfg.zero_fill). */
static int policy_zero_fills(int pol)
{
    pol = base_policy(pol);
    return pol == POL_HTTPCORE || pol == POL_ADDITIVE || pol == POL_DOUBLING ||
           pol == POL_GROWTH15 || pol == POL_BLOCKS;
}

/* httpcore's EntityUtils.toByteArray ends with ByteArrayBuffer.toByteArray(): a copy of len. */
static int policy_final_copy(int pol)
{
    return base_policy(pol) == POL_HTTPCORE;
}

static uint64_t granule(int pol)
{
    return pol == POL_MMAP_HUGE ? HUGE_GRANULE : MMAP_GRANULE;
}

/* Fills in the defaults of *in (NULL: all defaults) into *out and checks the ranges. */
static int normalise(const hb_sink_config *in, hb_sink_config *out)
{
    if (in)
        *out = *in;
    else
        memset(out, 0, sizeof *out);
    if (out->read_size == 0)
        out->read_size = HB_READ_SIZE_DEFAULT;
    if (out->capacity_bits == 0)
        out->capacity_bits = HB_CAPACITY_BITS_DEFAULT;
    if (out->capacity_bits < 8 || out->capacity_bits > 64)
        return HB_EINVAL;
    out->zero_fill = out->zero_fill != 0;
    if (out->block_size == 0)
        out->block_size = HB_BLOCK_SIZE_DEFAULT;
    if (out->reserve == 0)
        out->reserve = HB_RESERVE_DEFAULT;
    if (out->reserve > RESERVE_MAX || !fits_size(out->reserve))
        return HB_EINVAL;
    return HB_OK;
}

/* mmap-reserve: the reservation rounded up to the commit granule (no overflow: <= 2^47). */
static void round_reserve(hb_sink_config *c, int pol)
{
    uint64_t g = granule(pol);
    c->reserve = (c->reserve + g - 1) / g * g;
}

/* Java's length limit of a byte[] (an int), or of the wider int at widths above 32. */
static uint64_t array_limit(int bits)
{
    return bits > 32 ? (UINT64_C(1) << (bits - 1)) - 1 : (uint64_t)INT32_MAX;
}

/* capacity << 1 in a bits-wide two's complement int: the low bits of the shift, sign-extended.
 * Returns 1 if that is negative (the shift overflowed); else 0 and the value in *shifted. At 32
 * bits this is Java's int shift: 2^30 << 1 is -2^31. */
static int shift_overflows(uint64_t cap, int bits, uint64_t *shifted)
{
    uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint64_t v = (cap << 1) & mask;
    if (v >> (bits - 1))
        return 1;
    *shifted = v;
    return 0;
}

/* The capacity init allocates (0: none). */
static uint64_t initial_capacity(int pol, const hb_sink_config *c)
{
    switch (base_policy(pol)) {
    case POL_EXACT:
        return c->size_hint;
    case POL_SDS:
        return 0; /* sdsempty(): no room until the first sdsMakeRoomFor */
    case POL_BLOCKS:
        return c->block_size;
    case POL_MMAP:
    case POL_MMAP_HUGE:
        return granule(pol); /* the reservation is a multiple of it */
    default:
        return HB_HTTPCORE_INITIAL; /* new ByteArrayBuffer(4096); the C policies start alike */
    }
}

/* The capacity the policy grows to when an append needs needed > cap bytes: the rule of every
 * strategy, side by side. Returns HB_OK, or the error of an append that cannot grow. */
static int next_capacity(int pol, const hb_sink_config *c, uint64_t cap, uint64_t needed,
                         uint64_t *out)
{
    uint64_t v = 0;
    switch (base_policy(pol)) {
    case POL_EXACT: /* the Content-Length was a lie */
        return HB_ELIMIT;
    case POL_HTTPCORE:
        /* ByteArrayBuffer.expand: new byte[Math.max(buffer.length << 1, newlen)] */
        if (needed > array_limit(c->capacity_bits))
            return HB_ELIMIT;
        if (shift_overflows(cap, c->capacity_bits, &v) || v < needed)
            v = needed;
        break;
    case POL_ADDITIVE:
        v = needed;
        break;
    case POL_DOUBLING:
    case POL_REALLOC2:
        if (cap > UINT64_MAX / 2)
            return HB_ENOMEM;
        v = max_u64(cap * 2, needed);
#ifdef HB_TEST_HOOKS
        if (pol == POL_DOUBLING && HB_INJECTED("growth")) /* TEST-ONLY: growth factor 1.25 */
            v = max_u64(cap + cap / 4, needed);
#endif
        break;
    case POL_GROWTH15:
        if (cap > UINT64_MAX / 2)
            return HB_ENOMEM;
        v = max_u64(cap + cap / 2, needed);
#ifdef HB_TEST_HOOKS
        if (HB_INJECTED("quadratic")) /* TEST-ONLY: grow to what is needed, O(n^2) copies */
            v = needed;
#endif
        break;
    case POL_SDS:
        /* sdsMakeRoomFor: newlen = len + addlen, doubled below SDS_MAX_PREALLOC, else + it */
        if (needed > UINT64_MAX - HB_SDS_MAX_PREALLOC)
            return HB_ENOMEM;
        v = needed < HB_SDS_MAX_PREALLOC ? needed * 2 : needed + HB_SDS_MAX_PREALLOC;
        break;
    case POL_MMAP:
    case POL_MMAP_HUGE: {
        uint64_t g = granule(pol);
        if (needed > c->reserve)
            return HB_ENOMEM;
        v = (needed + g - 1) / g * g;
        v = min_u64(max_u64(v, cap * 2), c->reserve);
        break;
    }
    default:
        return HB_EINVAL;
    }
    *out = v;
    return HB_OK;
}

/* Whether every growth from capacity cap on is to exactly the bytes needed (then, with the array
 * full, every append copies it all): additive always; httpcore once the shift overflows, i.e.
 * from cap >= 2^(bits-2) (beyond 2^(bits-1) the wrapped shift is below cap, so still additive). */
static int grows_additively(int pol, const hb_sink_config *c, uint64_t cap)
{
    if (pol == POL_ADDITIVE)
        return 1;
    if (base_policy(pol) == POL_HTTPCORE)
        return cap >= UINT64_C(1) << (c->capacity_bits - 2);
    return 0;
}

/* --- accounting: shared by the real runs and the dry runs ----------------------------------- */

static void note_peaks(hb_sink_stats *st, uint64_t capacity, uint64_t footprint)
{
    st->peak_capacity = max_u64(st->peak_capacity, capacity);
    st->peak_footprint = max_u64(st->peak_footprint, footprint);
}

/* init obtained cap bytes (mmap-reserve: one mmap and one mprotect). */
static void account_init(hb_sink_stats *st, int kind, uint64_t cap)
{
    if (kind == KIND_COMMIT)
        st->allocations = sat_add(st->allocations, 2);
    else if (cap > 0)
        st->allocations = sat_add(st->allocations, 1);
    note_peaks(st, cap, cap);
}

/* A growth from old to cap bytes with len bytes held. */
static void account_growth(hb_sink_stats *st, int kind, uint64_t old, uint64_t cap, uint64_t len)
{
    st->allocations = sat_add(st->allocations, 1);
    if (old > 0)
        st->growths = sat_add(st->growths, 1);
    if (kind == KIND_COMMIT) {
        note_peaks(st, cap, cap);
    } else {
        st->bytes_copied = sat_add(st->bytes_copied, len);
        note_peaks(st, cap, sat_add(old, cap));
    }
}

/* The additive phase in closed form: the array is full (cap == len) and every remaining append
 * of r bytes (the last one shorter) to reach total grows it to exactly what is needed. Append i
 * (0 <= i < k) copies the len + i*r bytes held: k*len + r*k*(k-1)/2 bytes in all; the largest
 * footprint is the last growth's: (total - last) + total. */
static void account_additive(hb_sink_stats *st, uint64_t len, uint64_t total, uint64_t r)
{
    uint64_t rem = total - len;
    uint64_t k = rem / r + (rem % r != 0);
    uint64_t last = rem % r ? rem % r : r;
    uint64_t tri = k % 2 == 0 ? sat_mul(k / 2, k - 1) : sat_mul(k, (k - 1) / 2);
    st->bytes_copied = sat_add(st->bytes_copied, sat_add(sat_mul(k, len), sat_mul(tri, r)));
    st->growths = sat_add(st->growths, k);
    st->allocations = sat_add(st->allocations, k);
    note_peaks(st, total, sat_add(total - last, total));
}

/* A final copy of len bytes out of an array of cap (toByteArray, the gather). */
static void account_final(hb_sink_stats *st, uint64_t cap, uint64_t len)
{
    st->allocations = sat_add(st->allocations, 1);
    st->bytes_copied = sat_add(st->bytes_copied, len);
    note_peaks(st, 0, sat_add(cap, len));
}

/* --- memory helpers ------------------------------------------------------------------------- */

static void poison(const uint8_t *p, uint64_t n)
{
#ifdef HB_ASAN
    if (p && n)
        ASAN_POISON_MEMORY_REGION(p, (size_t)n);
#else
    (void)p;
    (void)n;
#endif
}

static void unpoison(const uint8_t *p, uint64_t n)
{
#ifdef HB_ASAN
    if (p && n)
        ASAN_UNPOISON_MEMORY_REGION(p, (size_t)n);
#else
    (void)p;
    (void)n;
#endif
}

/* Maps size bytes of inaccessible, unaccounted address space, starting at a multiple of align
 * (0: any page). Returns NULL if the kernel refuses. */
static uint8_t *reserve_space(uint64_t size, uint64_t align)
{
    size_t len = (size_t)(size + align);
    void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (align == 0)
        return p;
    uintptr_t a = (uintptr_t)p;
    uintptr_t b = (a + (uintptr_t)align - 1) & ~((uintptr_t)align - 1);
    if (b > a)
        munmap(p, b - a);
    uintptr_t tail = a + len - (b + (uintptr_t)size);
    if (tail)
        munmap((void *)(b + (uintptr_t)size), tail);
    return (uint8_t *)b;
}

/* --- linear sinks: one contiguous array ------------------------------------------------------ */

/* mmap-reserve init: reserve (halving on refusal), advise huge pages, commit the first granule. */
static int commit_init(hb_sink *s, int pol)
{
    uint64_t g = granule(pol);
    round_reserve(&s->cfg, pol);
    uint64_t size = s->cfg.reserve;
    uint64_t lowest = min_u64(size, RESERVE_FLOOR);
    uint8_t *base;
    while ((base = reserve_space(size, pol == POL_MMAP_HUGE ? HUGE_GRANULE : 0)) == NULL) {
        uint64_t half = size / 2 / g * g;
        if (half < lowest)
            return HB_ENOMEM;
        size = half;
    }
    s->buf = base;
    s->reserved = size;
    s->cfg.reserve = size;
#ifdef MADV_HUGEPAGE
    if (pol == POL_MMAP_HUGE && madvise(base, (size_t)size, MADV_HUGEPAGE) != 0 &&
        errno != EINVAL) /* EINVAL: a kernel without transparent huge pages */
        return HB_ENOMEM;
#endif
    if (mprotect(base, (size_t)g, PROT_READ | PROT_WRITE) != 0)
        return HB_ENOMEM;
    s->size = s->cap = g;
    account_init(&s->stats, KIND_COMMIT, g);
    return HB_OK;
}

/* httpcore-heap's memory, modelled on a JVM heap: an array occupies whole regions (G1 gives an
 * array over half a region its own run of regions, a "humongous" object), and the regions of a
 * dead array are reused by a later one rather than returned to the kernel. The sink keeps the
 * last dead array's block as the spare: a new array that fits in it reuses its memory, already
 * mapped, so the step costs what Java's does - zero the new array (a new byte[] is zeroed) and
 * copy - with no page faults; a larger one takes fresh memory and the smaller spare is freed.
 * In the additive phase the two blocks alternate, and a fresh block is needed every region /
 * read_size steps. Returns the array (its block's size in *block) or NULL. */
static uint8_t *heap_alloc(hb_sink *s, uint64_t cap, uint64_t *block)
{
    uint8_t *b;
    if (s->spare && s->spare_size >= cap) {
        b = s->spare;
        *block = s->spare_size;
        s->spare = NULL;
        s->spare_size = 0;
    } else {
        uint64_t want = (cap + HEAP_REGION - 1) / HEAP_REGION * HEAP_REGION;
        if (want < cap || !fits_size(want))
            return NULL;
        b = malloc((size_t)want);
        if (!b)
            return NULL;
        *block = want;
    }
    memset(b, 0, (size_t)cap);
    return b;
}

/* The array at b (block bytes) is dead: keep the larger of it and the spare, free the other. */
static void heap_free(hb_sink *s, uint8_t *b, uint64_t block)
{
    if (!b)
        return;
    if (s->spare && s->spare_size >= block) {
        free(b);
        return;
    }
    free(s->spare);
    s->spare = b;
    s->spare_size = block;
}

/* Common init of the linear sinks: the first array as the modelled library allocates it. */
static int lin_init(hb_sink *s)
{
    int pol = s->strategy->policy;
    s->policy = pol;
    if (policy_kind(pol) == KIND_COMMIT)
        return commit_init(s, pol);
    uint64_t cap = initial_capacity(pol, &s->cfg);
    if (cap > 0) {
        if (!fits_size(cap))
            return HB_ENOMEM;
        if (policy_kind(pol) == KIND_HEAP)
            s->buf = heap_alloc(s, cap, &s->block);
        else
            s->buf = malloc((size_t)cap);
        if (!s->buf)
            return HB_ENOMEM;
        if (s->cfg.zero_fill && policy_zero_fills(pol))
            memset(s->buf, 0, (size_t)cap);
    }
    s->size = s->cap = cap;
    account_init(&s->stats, policy_kind(pol), cap);
    return HB_OK;
}

/* Grows the array to cap bytes by the strategy's kind. On failure the sink is unchanged. */
static int lin_grow(hb_sink *s, uint64_t cap)
{
    int kind = policy_kind(s->policy);
    if (!fits_size(cap))
        return HB_ENOMEM;
    if (kind == KIND_COMMIT) {
        if (mprotect(s->buf + s->size, (size_t)(cap - s->size), PROT_READ | PROT_WRITE) != 0)
            return HB_ENOMEM;
    } else if (kind == KIND_REALLOC) {
        uint8_t *b = realloc(s->buf, (size_t)cap);
        if (!b)
            return HB_ENOMEM;
        s->buf = b;
    } else if (kind == KIND_HEAP) {
        uint64_t block;
        uint8_t *b = heap_alloc(s, cap, &block); /* zeroed, as a new byte[] */
        if (!b)
            return HB_ENOMEM;
        if (s->len)
            memcpy(b, s->buf, (size_t)s->len);
        heap_free(s, s->buf, s->block);
        s->buf = b;
        s->block = block;
    } else {
        uint8_t *b = malloc((size_t)cap);
        if (!b)
            return HB_ENOMEM;
        if (s->cfg.zero_fill && policy_zero_fills(s->policy))
            memset(b + s->len, 0, (size_t)(cap - s->len)); /* what the copy does not fill */
        if (s->len)
            memcpy(b, s->buf, (size_t)s->len);
        free(s->buf);
        s->buf = b;
    }
    account_growth(&s->stats, kind, s->size, cap, s->len);
    s->size = s->cap = cap;
    return HB_OK;
}

/* The slow path of lin_append: n bytes do not fit. */
HB_NOINLINE static int lin_grow_append(hb_sink *s, const uint8_t *p, size_t n)
{
    if (s->finished || !p)
        return HB_EINVAL;
    if (n > UINT64_MAX - s->len)
        return HB_ENOMEM;
    uint64_t needed = s->len + n, cap;
    int rc = next_capacity(s->policy, &s->cfg, s->size, needed, &cap);
    if (rc == HB_OK)
        rc = lin_grow(s, cap);
    if (rc != HB_OK)
        return rc;
    memcpy(s->buf + s->len, p, n);
    s->len = needed;
    s->stats.bytes_appended += n;
    return HB_OK;
}

static int lin_append(hb_sink *s, const uint8_t *p, size_t n)
{
    if (n <= s->cap - s->len) {
        if (n) {
            memcpy(s->buf + s->len, p, n);
            s->len += n;
            s->stats.bytes_appended += n;
        }
        return HB_OK;
    }
    return lin_grow_append(s, p, n);
}

static int lin_finish(hb_sink *s)
{
    if (policy_final_copy(s->policy)) {
        uint8_t *r = malloc(s->len ? (size_t)s->len : 1);
        if (!r)
            return HB_ENOMEM;
        if (s->len)
            memcpy(r, s->buf, (size_t)s->len);
        account_final(&s->stats, s->size, s->len);
        free(s->buf); /* the ByteArrayBuffer becomes garbage */
        free(s->spare);
        s->spare = NULL;
        s->buf = NULL;
        s->size = 0;
        s->result = r;
        if (!s->len)
            poison(r, 1);
    } else {
        s->result = s->buf;
        if (s->buf) /* NULL when nothing was allocated (sds, exact: an empty body) */
            poison(s->buf + s->len, s->size - s->len);
    }
    s->cap = s->len;
    return HB_OK;
}

static void lin_release(hb_sink *s)
{
    if (policy_kind(s->policy) == KIND_COMMIT) {
        if (s->buf) {
            unpoison(s->buf, s->size);
            munmap(s->buf, (size_t)s->reserved);
        }
        return;
    }
    if (s->result && s->result != s->buf) {
        unpoison(s->result, s->len ? s->len : 1);
        free(s->result);
    }
    if (s->buf) {
        unpoison(s->buf, s->size);
        free(s->buf);
    }
    free(s->spare);
}

/* The dry run of a linear policy: appends of exactly read_size, jumping from growth to growth,
 * with the additive phase in closed form. */
static int lin_plan(const hb_sink_strategy *row, const hb_sink_config *cfg, uint64_t total,
                    hb_sink_stats *out)
{
    int pol = row->policy;
    hb_sink_config c;
    hb_sink_stats st;
    if (!out)
        return HB_EINVAL;
    memset(out, 0, sizeof *out);
    memset(&st, 0, sizeof st);
    int rc = normalise(cfg, &c);
    if (rc != HB_OK)
        return rc;
    int kind = policy_kind(pol);
    if (kind == KIND_COMMIT) {
        round_reserve(&c, pol);
        if (total > c.reserve)
            return HB_ENOMEM;
    }
    uint64_t r = c.read_size, len = 0, cap = initial_capacity(pol, &c);
    account_init(&st, kind, cap);
    while (len < total) {
        len += min_u64(cap - len, total - len) / r * r; /* the appends that fit */
        if (len == total)
            break;
        uint64_t n = min_u64(total - len, r), ncap;
        if (n <= cap - len) { /* the last, short append fits */
            len += n;
            continue;
        }
        if (cap == len && grows_additively(pol, &c, cap)) {
            rc = next_capacity(pol, &c, cap, total, &ncap); /* the limit of the last append */
            if (rc != HB_OK)
                return rc;
            account_additive(&st, len, total, r);
            cap = len = total;
            break;
        }
        rc = next_capacity(pol, &c, cap, len + n, &ncap);
        if (rc != HB_OK)
            return rc;
        account_growth(&st, kind, cap, ncap, len);
        cap = ncap;
        len += n;
    }
    st.bytes_appended = total;
    if (policy_final_copy(pol))
        account_final(&st, cap, total);
    *out = st;
    return HB_OK;
}

/* --- block-list: JDK 11 InputStream.readAllBytes -------------------------------------------- *
 * readAllBytes fills a new byte[8192] at a time, keeps the full ones in an ArrayList, and ends
 * with one new byte[total] and a gather copy; with a single block it returns that block itself
 * when full and a copy (Arrays.copyOf) otherwise - as here. One difference: the JDK allocates
 * the next block before it knows whether more data comes (an empty last block when the body is a
 * multiple of 8192); here a block is allocated when an append has bytes for it. */

static int blocks_init(hb_sink *s)
{
    uint64_t bs = s->cfg.block_size;
    s->policy = POL_BLOCKS;
    s->blocks = malloc(BLOCKS_INITIAL * sizeof *s->blocks);
    if (!s->blocks)
        return HB_ENOMEM;
    s->blocks_cap = BLOCKS_INITIAL;
    s->buf = malloc((size_t)bs);
    if (!s->buf)
        return HB_ENOMEM;
    if (s->cfg.zero_fill)
        memset(s->buf, 0, (size_t)bs);
    s->blocks[0] = s->buf;
    s->nblocks = 1;
    s->size = s->cap = bs;
    account_init(&s->stats, KIND_MALLOC, bs);
    return HB_OK;
}

/* The slow path of blocks_append: fills the current block and as many new ones as needed. The
 * new blocks are allocated before anything is copied, so a failure leaves the sink unchanged. */
HB_NOINLINE static int blocks_grow_append(hb_sink *s, const uint8_t *p, size_t n)
{
    if (s->finished || !p)
        return HB_EINVAL;
    if (n > UINT64_MAX - s->len)
        return HB_ENOMEM;
    uint64_t bs = s->cfg.block_size, room = s->cap - s->used;
    uint64_t add = (n - room + bs - 1) / bs; /* n > room: at least 1 */
    if (add > UINT64_MAX / 2 - s->nblocks)
        return HB_ENOMEM;
    uint64_t want = s->nblocks + add;
    if (want > s->blocks_cap) { /* the pointer array grows by doubling */
        uint64_t nc = s->blocks_cap;
        while (nc < want)
            nc *= 2;
        if (nc > SIZE_MAX / sizeof *s->blocks)
            return HB_ENOMEM;
        uint8_t **q = realloc(s->blocks, (size_t)nc * sizeof *s->blocks);
        if (!q)
            return HB_ENOMEM;
        s->blocks = q;
        s->blocks_cap = nc;
    }
    for (uint64_t i = 0; i < add; i++) {
        uint8_t *b = malloc((size_t)bs);
        if (!b) {
            while (i-- > 0)
                free(s->blocks[s->nblocks + i]);
            return HB_ENOMEM;
        }
        if (s->cfg.zero_fill)
            memset(b, 0, (size_t)bs);
        s->blocks[s->nblocks + i] = b;
    }
    memcpy(s->buf + s->used, p, (size_t)room);
    uint64_t left = n - room;
    p += room;
    for (uint64_t i = 0; i < add; i++) {
        size_t c = (size_t)min_u64(left, bs);
        s->buf = s->blocks[s->nblocks++];
        memcpy(s->buf, p, c);
        s->used = c;
        p += c;
        left -= c;
        s->stats.allocations = sat_add(s->stats.allocations, 1);
        s->stats.growths = sat_add(s->stats.growths, 1);
        note_peaks(&s->stats, sat_mul(s->nblocks, bs), sat_mul(s->nblocks, bs));
    }
    s->len += n;
    s->stats.bytes_appended += n;
    return HB_OK;
}

static int blocks_append(hb_sink *s, const uint8_t *p, size_t n)
{
    if (n <= s->cap - s->used) {
        if (n) {
            memcpy(s->buf + s->used, p, n);
            s->used += n;
            s->len += n;
            s->stats.bytes_appended += n;
        }
        return HB_OK;
    }
    return blocks_grow_append(s, p, n);
}

static int blocks_finish(hb_sink *s)
{
    uint64_t bs = s->cfg.block_size;
    if (s->nblocks == 1 && s->len == bs) { /* readAllBytes returns the one full block */
        s->result = s->blocks[0];
    } else {
        uint8_t *r = malloc(s->len ? (size_t)s->len : 1);
        if (!r)
            return HB_ENOMEM;
        uint64_t off = 0;
        for (uint64_t i = 0; i < s->nblocks; i++) {
            size_t c = (size_t)min_u64(s->len - off, bs);
            memcpy(r + off, s->blocks[i], c);
            off += c;
            free(s->blocks[i]);
        }
        account_final(&s->stats, sat_mul(s->nblocks, bs), s->len);
        s->result = r;
        if (!s->len)
            poison(r, 1);
    }
    free(s->blocks);
    s->blocks = NULL;
    s->nblocks = s->blocks_cap = 0;
    s->buf = NULL;
    s->cap = s->used = 0;
    return HB_OK;
}

static void blocks_release(hb_sink *s)
{
    for (uint64_t i = 0; i < s->nblocks; i++)
        free(s->blocks[i]);
    free(s->blocks);
    if (s->result) {
        unpoison(s->result, s->len ? s->len : 1);
        free(s->result);
    }
}

/* block-list's dry run in closed form: the blocks fill in order whatever the read size, so the
 * body takes max(1, ceil(total / block_size)) blocks. */
static int blocks_plan(const hb_sink_strategy *row, const hb_sink_config *cfg, uint64_t total,
                       hb_sink_stats *out)
{
    (void)row;
    hb_sink_config c;
    if (!out)
        return HB_EINVAL;
    memset(out, 0, sizeof *out);
    int rc = normalise(cfg, &c);
    if (rc != HB_OK)
        return rc;
    uint64_t bs = c.block_size;
    uint64_t nb = total == 0 ? 1 : total / bs + (total % bs != 0);
    hb_sink_stats st;
    memset(&st, 0, sizeof st);
    account_init(&st, KIND_MALLOC, bs);
    st.allocations = sat_add(st.allocations, nb - 1);
    st.growths = nb - 1;
    note_peaks(&st, sat_mul(nb, bs), sat_mul(nb, bs));
    st.bytes_appended = total;
    if (!(nb == 1 && total == bs))
        account_final(&st, sat_mul(nb, bs), total);
    *out = st;
    return HB_OK;
}

/* --- the registry --------------------------------------------------------------------------- */

/* clang-format off */
const hb_sink_strategy hb_sink_strategies[] = {
    /* name                  description: the policy and the library it models
     init         append         finish         release         plan         policy     O(n^k) realloc */
    {"exact",                "Content-Length known: one malloc of the final size (the lower bound)",
     lin_init,    lin_append,    lin_finish,    lin_release,    lin_plan,    POL_EXACT,     1, 0},
    {"httpcore",             "Apache httpcore 4.4 ByteArrayBuffer: int capacity << 1 wraps at 2^30",
     lin_init,    lin_append,    lin_finish,    lin_release,    lin_plan,    POL_HTTPCORE,  2, 0},
    {"additive",             "alloc-copy-free to exactly what is needed (httpcore past 2^30)",
     lin_init,    lin_append,    lin_finish,    lin_release,    lin_plan,    POL_ADDITIVE,  2, 0},
    {"doubling",             "alloc-copy-free to max(2 cap, needed): JDK ByteArrayOutputStream",
     lin_init,    lin_append,    lin_finish,    lin_release,    lin_plan,    POL_DOUBLING,  1, 0},
    {"growth-1.5",           "alloc-copy-free to max(1.5 cap, needed): java.util.ArrayList",
     lin_init,    lin_append,    lin_finish,    lin_release,    lin_plan,    POL_GROWTH15,  1, 0},
    {"realloc-doubling",     "glibc realloc to max(2 cap, needed): big blocks mremap, no copy",
     lin_init,    lin_append,    lin_finish,    lin_release,    lin_plan,    POL_REALLOC2,  1, 1},
    {"sds",                  "Redis sds via realloc: 2 x needed below 1 MiB, then needed + 1 MiB",
     lin_init,    lin_append,    lin_finish,    lin_release,    lin_plan,    POL_SDS,       1, 1},
    {"block-list",           "JDK 11 InputStream.readAllBytes: 8 KiB blocks, one gather copy",
     blocks_init, blocks_append, blocks_finish, blocks_release, blocks_plan, POL_BLOCKS,    1, 0},
    {"mmap-reserve",         "mmap PROT_NONE reservation, mprotect commits: never copies",
     lin_init,    lin_append,    lin_finish,    lin_release,    lin_plan,    POL_MMAP,      1, 0},
    {"mmap-reserve-huge",    "mmap-reserve + madvise(MADV_HUGEPAGE), 2 MiB-aligned and steps",
     lin_init,    lin_append,    lin_finish,    lin_release,    lin_plan,    POL_MMAP_HUGE, 1, 0},
    {"httpcore-heap",        "httpcore on a JVM-like heap: dead arrays' memory reused, new ones zeroed",
     lin_init,    lin_append,    lin_finish,    lin_release,    lin_plan,    POL_HTTPCORE_HEAP, 2, 0},
};
/* clang-format on */

const size_t hb_sink_strategy_count = sizeof hb_sink_strategies / sizeof hb_sink_strategies[0];

/* --- the public functions ------------------------------------------------------------------- */

const hb_sink_strategy *hb_sink_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < hb_sink_strategy_count; i++)
        if (strcmp(hb_sink_strategies[i].name, name) == 0)
            return &hb_sink_strategies[i];
    return NULL;
}

int hb_sink_init(hb_sink *s, const hb_sink_strategy *st, const hb_sink_config *cfg)
{
    if (!s)
        return HB_EINVAL;
    memset(s, 0, sizeof *s);
    if (!st || !st->init)
        return HB_EINVAL;
    int rc = normalise(cfg, &s->cfg);
    if (rc != HB_OK)
        return rc;
    s->strategy = st;
    return st->init(s);
}

int hb_sink_finish(hb_sink *s)
{
    if (!s || !s->strategy)
        return HB_EINVAL;
    if (s->finished)
        return HB_OK;
    int rc = s->strategy->finish(s);
    if (rc == HB_OK)
        s->finished = 1;
    return rc;
}

const uint8_t *hb_sink_data(const hb_sink *s, uint64_t *len)
{
    static const uint8_t empty[1];
    if (len)
        *len = 0;
    if (!s || !s->finished)
        return NULL;
    if (len)
        *len = s->len;
    return s->result ? s->result : empty;
}

void hb_sink_release(hb_sink *s)
{
    if (!s)
        return;
    if (s->strategy && s->strategy->release)
        s->strategy->release(s);
    memset(s, 0, sizeof *s);
}

int hb_sink_plan(const hb_sink_strategy *st, const hb_sink_config *cfg, uint64_t total,
                 hb_sink_stats *out)
{
    if (!out)
        return HB_EINVAL;
    memset(out, 0, sizeof *out);
    if (!st || !st->plan)
        return HB_EINVAL;
    return st->plan(st, cfg, total, out);
}

/* test_chunked_gen.c - unit tests of data-gen/chunked_gen.c (the chunked payload generator).
 *
 * Every test is a table of {parameters, why} rows. Bodies are checked against an independent
 * path: dechunked by the case's decoder (hb_dechunk_run), inflated by zlib, compared with the
 * payload generator's bytes and with zlib's crc32.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "hb_dechunk.h"
#include "hb_err.h"
#include "hb_gen.h"

/* ---- helpers -----------------------------------------------------------------------------------
 */

static hb_chunked_params params(uint64_t size, uint32_t cmin, uint32_t cmax, int gzip, int trailer,
                                uint64_t seed)
{
    hb_chunked_params p;
    hb_chunked_params_default(&p);
    p.size = size;
    p.chunk_min = cmin;
    p.chunk_max = cmax;
    p.gzip_level = gzip;
    p.trailer = trailer;
    p.seed = seed;
    return p;
}

/* The body for p, in memory (no cache). */
static void body_of(const hb_chunked_params *p, hb_blob *body, hb_chunked_info *info)
{
    int rc = hb_chunked_load(p, NULL, NULL, NULL, body, info);
    if (rc != HB_OK)
        fail_msg("hb_chunked_load: %s", hb_err_str(rc));
}

static void payload_of(uint64_t size, uint64_t seed, hb_blob *payload)
{
    int rc = hb_payload_load(size, seed, payload);
    if (rc != HB_OK)
        fail_msg("hb_payload_load: %s", hb_err_str(rc));
    assert_int_equal(payload->len, size);
}

static uint32_t crc_of(const uint8_t *p, size_t n)
{
    return (uint32_t)crc32(crc32(0L, Z_NULL, 0), p, (uInt)n);
}

/* Dechunks body with the case's decoder, feeding it pieces of `step` bytes (0: all at once).
 * Returns a malloc'd buffer of *out_len bytes. */
static uint8_t *dechunk(const uint8_t *body, size_t len, size_t step, size_t *out_len)
{
    size_t cap = len + 1;
    uint8_t *out = malloc(cap);
    assert_non_null(out);
    hb_dechunk d;
    hb_dechunk_init(&d);
    size_t pos = 0, made_all = 0;
    int rc = 0;
    while (rc == 0) {
        size_t avail = len - pos;
        if (step && avail > step)
            avail = step;
        size_t used, made;
        rc = hb_dechunk_run(&d, body + pos, avail, &used, out + made_all, cap - made_all, &made);
        pos += used;
        made_all += made;
        if (rc == 0 && used == 0 && made == 0 && pos == len)
            break;
    }
    if (rc != HB_DECHUNK_DONE) {
        uint64_t off = 0;
        const char *why = hb_dechunk_error(&d, &off);
        fail_msg("dechunk: rc %d (%s) at byte %llu", rc, why ? why : "incomplete",
                 (unsigned long long)off);
    }
    assert_int_equal(pos, len); /* nothing after the final CRLF */
    *out_len = made_all;
    return out;
}

/* Inflates a gzip stream (zlib, windowBits 16 + 15) that must decode to exactly `expect` bytes. */
static uint8_t *gunzip(const uint8_t *in, size_t len, size_t expect)
{
    uint8_t *out = malloc(expect + 1);
    assert_non_null(out);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    assert_int_equal(inflateInit2(&zs, 16 + 15), Z_OK);
    zs.next_in = (Bytef *)(uintptr_t)in;
    zs.avail_in = (uInt)len;
    zs.next_out = out;
    zs.avail_out = (uInt)(expect + 1);
    int rc = inflate(&zs, Z_FINISH);
    if (rc != Z_STREAM_END)
        fail_msg("inflate: %d (%s)", rc, zs.msg ? zs.msg : "");
    assert_int_equal(zs.total_out, expect);
    assert_int_equal(zs.avail_in, 0);
    inflateEnd(&zs);
    return out;
}

/* The decoded content of a body: dechunked, then inflated when gzip. */
static uint8_t *decode(const hb_chunked_params *p, const hb_blob *body, size_t step,
                       const hb_chunked_info *info)
{
    size_t n;
    uint8_t *data = dechunk(body->data, body->len, step, &n);
    if (p->gzip_level < 0) {
        assert_int_equal(n, p->size);
        return data;
    }
    assert_int_equal(n, info->gzip_size);
    uint8_t *plain = gunzip(data, n, (size_t)p->size);
    free(data);
    return plain;
}

/* ---- the payload -------------------------------------------------------------------------------
 */

/* Every complete row has the documented shape and a 2023 time; paths come from a vocabulary of
 * 50 to 200 entries; user ids repeat. */
static void test_row_shape(void **state)
{
    (void)state;
    hb_blob pl;
    payload_of(2000000, HB_GEN_DEFAULT_SEED, &pl);
    const char *s = (const char *)pl.data, *end = s + pl.len;
    size_t rows = 0, distinct_paths = 0, distinct_ids = 0;
    char paths[256][64];
    static char ids[4000][16];
    uint64_t last_time = 0;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl)
            break; /* the cut last row */
        for (int i = 0; i < 16; i++)
            assert_true((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'));
        assert_int_equal(s[16], '\t');
        uint64_t t = 0;
        for (int i = 17; i < 27; i++) {
            assert_true(s[i] >= '0' && s[i] <= '9');
            t = t * 10 + (uint64_t)(s[i] - '0');
        }
        assert_true(t >= 1672531200u && t < 1704067200u); /* 2023 */
        assert_true(t >= last_time);                      /* sorted by time */
        last_time = t;
        assert_int_equal(s[27], '\t');
        const char *path = s + 28;
        assert_int_equal(path[0], '/');
        const char *tab = memchr(path, '\t', (size_t)(nl - path));
        assert_non_null(tab);
        size_t plen = (size_t)(tab - path);
        assert_true(plen < 64);
        size_t k;
        for (k = 0; k < distinct_paths; k++)
            if (strlen(paths[k]) == plen && memcmp(paths[k], path, plen) == 0)
                break;
        if (k == distinct_paths && distinct_paths < 256) {
            memcpy(paths[distinct_paths], path, plen);
            paths[distinct_paths++][plen] = '\0';
        }
        /* views: 1 or 2 digits, at least 1; conversions: one digit */
        const char *c = tab + 1;
        assert_true(c[0] >= '1' && c[0] <= '9');
        c += (c[1] >= '0' && c[1] <= '9') ? 2 : 1;
        assert_int_equal(c[0], '\t');
        assert_true(c[1] >= '0' && c[1] <= '9');
        assert_ptr_equal(c + 2, nl);
        if (rows < 4000) {
            for (k = 0; k < distinct_ids; k++)
                if (memcmp(ids[k], s, 16) == 0)
                    break;
            if (k == distinct_ids)
                memcpy(ids[distinct_ids++], s, 16);
        }
        rows++;
        s = nl + 1;
    }
    assert_true(rows > 30000);
    assert_true(distinct_paths >= 50 && distinct_paths <= 200);
    assert_true(distinct_ids < 4000 / 2); /* the first 4000 rows: ids repeat */
    hb_blob_free(&pl);
}

/* Payload sizes: the payload of size N is the first N bytes of any larger one, for any seed. */
static void test_payload_prefix(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        uint64_t seed;
        const char *why;
    } rows[] = {
        {0, HB_GEN_DEFAULT_SEED, "empty"},
        {1, HB_GEN_DEFAULT_SEED, "one byte"},
        {17, 1, "inside the first row"},
        {95, 2, "one below HB_ROW_MAX"},
        {96, 3, "HB_ROW_MAX"},
        {4097, 4, "odd, past a page"},
        {100003, 5, "odd, many rows"},
    };
    hb_blob big;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        payload_of(200000, rows[i].seed, &big);
        hb_blob small;
        payload_of(rows[i].size, rows[i].seed, &small);
        if (rows[i].size && memcmp(small.data, big.data, (size_t)rows[i].size) != 0)
            fail_msg("%s: not a prefix", rows[i].why);
        hb_blob_free(&small);
        hb_blob_free(&big);
    }
}

/* Reading with any window size gives the same bytes as reading all at once. */
static void test_payload_windows(void **state)
{
    (void)state;
    static const size_t caps[] = {1, 2, 7, 95, 96, 97, 4096, 65537};
    const size_t size = 300001;
    hb_blob ref;
    payload_of(size, 7, &ref);
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        hb_payload_gen *g;
        assert_int_equal(hb_payload_gen_new(&g, size, 7), HB_OK);
        size_t have = 0, n;
        do {
            size_t cap = caps[i] < size - have ? caps[i] : size - have + 1;
            hb_payload_gen_read(g, buf + have, cap, &n);
            have += n;
        } while (n > 0);
        hb_payload_gen_free(g);
        assert_int_equal(have, size);
        if (memcmp(buf, ref.data, size) != 0)
            fail_msg("window %zu: bytes differ", caps[i]);
    }
    free(buf);
    hb_blob_free(&ref);
}

/* ---- the chunked body --------------------------------------------------------------------------
 */

/* Same parameters, same bytes; another seed, other bytes (body and payload). */
static void test_determinism(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        uint32_t cmin, cmax;
        int gzip, trailer;
        const char *why;
    } rows[] = {
        {100000, 4096, 16384, -1, 0, "identity, default chunks"},
        {100000, 4096, 16384, 1, 0, "gzip 1"},
        {77777, 100, 100, 6, 1, "gzip 6, fixed chunks, trailer"},
        {5000, 1, 3, -1, 1, "tiny chunks, trailer"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        hb_chunked_params p =
            params(rows[i].size, rows[i].cmin, rows[i].cmax, rows[i].gzip, rows[i].trailer, 42);
        hb_blob a, b, c;
        hb_chunked_info ia, ib, ic;
        body_of(&p, &a, &ia);
        body_of(&p, &b, &ib);
        p.seed = 43;
        body_of(&p, &c, &ic);
        if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
            fail_msg("%s: same seed, different body", rows[i].why);
        if (memcmp(&ia, &ib, sizeof ia) != 0)
            fail_msg("%s: same seed, different info", rows[i].why);
        if (a.len == c.len && memcmp(a.data, c.data, a.len) == 0)
            fail_msg("%s: another seed, same body", rows[i].why);
        if (ia.crc32 == ic.crc32)
            fail_msg("%s: another seed, same payload crc32", rows[i].why);
        hb_blob_free(&a);
        hb_blob_free(&b);
        hb_blob_free(&c);
    }
    hb_blob x, y;
    payload_of(50000, 1, &x);
    payload_of(50000, 2, &y);
    assert_memory_not_equal(x.data, y.data, 50000);
    hb_blob_free(&x);
    hb_blob_free(&y);
}

/* The framing: lowercase hex chunk-size without leading zeros, every data chunk but the last of
 * a size in [min, max], the last one in [1, max], CRLF after each, then "0\r\n". */
static void test_chunk_sizes(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        uint32_t cmin, cmax;
        int gzip;
        const char *why;
    } rows[] = {
        {200000, 4096, 16384, -1, "default range"},
        {200000, 4096, 4096, -1, "fixed 4096"},
        {10007, 1, 1, -1, "one-byte chunks"},
        {10007, 1, 2, -1, "chunks of 1 or 2"},
        {200000, 1000, 1500, 1, "gzip stream framed"},
        {3000000, 16777216, 16777216, -1, "one chunk at the 2^24 limit"},
        {0, 4096, 16384, -1, "empty payload: last-chunk only"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        hb_chunked_params p = params(rows[i].size, rows[i].cmin, rows[i].cmax, rows[i].gzip, 0, 9);
        hb_blob body;
        hb_chunked_info info;
        body_of(&p, &body, &info);
        assert_int_equal(body.len, info.body_size);
        const uint8_t *s = body.data, *end = s + body.len;
        uint64_t chunks = 0, data = 0, last = 0;
        for (;;) {
            uint64_t v = 0;
            const uint8_t *d = s;
            while ((*d >= '0' && *d <= '9') || (*d >= 'a' && *d <= 'f')) {
                v = v * 16 + (uint64_t)(*d <= '9' ? *d - '0' : *d - 'a' + 10);
                d++;
            }
            if (d == s || (s[0] == '0' && d - s > 1))
                fail_msg("%s: bad chunk-size line at %zu", rows[i].why, (size_t)(s - body.data));
            assert_memory_equal(d, "\r\n", 2);
            if (v == 0)
                break;
            if (last)
                fail_msg("%s: a short chunk (%llu) before the last", rows[i].why,
                         (unsigned long long)last);
            if (v > rows[i].cmax)
                fail_msg("%s: chunk of %llu over max", rows[i].why, (unsigned long long)v);
            if (v < rows[i].cmin)
                last = v;
            s = d + 2 + v;
            assert_true(s + 2 <= end);
            assert_memory_equal(s, "\r\n", 2);
            s += 2;
            chunks++;
            data += v;
        }
        assert_int_equal(chunks, info.chunks);
        assert_int_equal(data, rows[i].gzip < 0 ? rows[i].size : info.gzip_size);
        hb_blob_free(&body);
    }
}

/* Changing the chunk sizes changes the body but not the payload; same for the gzip level. */
static void test_chunks_do_not_change_payload(void **state)
{
    (void)state;
    hb_chunked_params a = params(123457, 4096, 16384, -1, 0, 5);
    hb_chunked_params b = params(123457, 10, 200, -1, 0, 5);
    hb_chunked_params c = params(123457, 10, 200, 9, 0, 5);
    hb_blob ba, bb, bc;
    hb_chunked_info ia, ib, ic;
    body_of(&a, &ba, &ia);
    body_of(&b, &bb, &ib);
    body_of(&c, &bc, &ic);
    assert_int_equal(ia.crc32, ib.crc32);
    assert_int_equal(ia.crc32, ic.crc32);
    assert_int_equal(ia.rows, ib.rows);
    assert_true(ia.body_size != ib.body_size);
    uint8_t *pa = decode(&a, &ba, 0, &ia), *pb = decode(&b, &bb, 0, &ib),
            *pc = decode(&c, &bc, 0, &ic);
    assert_memory_equal(pa, pb, 123457);
    assert_memory_equal(pa, pc, 123457);
    free(pa);
    free(pb);
    free(pc);
    hb_blob_free(&ba);
    hb_blob_free(&bb);
    hb_blob_free(&bc);
}

/* The body dechunks (and gunzips) to the payload, in any input split; the info's size, crc32
 * and rows describe the payload. */
static void test_round_trip(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        uint32_t cmin, cmax;
        int gzip, trailer;
        size_t step; /* input pieces given to the decoder; 0: all at once */
        const char *why;
    } rows[] = {
        {0, 4096, 16384, -1, 0, 0, "identity, empty"},
        {1, 4096, 16384, -1, 0, 1, "identity, one byte"},
        {3, 1, 1, -1, 1, 1, "identity, three one-byte chunks, trailer"},
        {4095, 4096, 4096, -1, 0, 7, "identity, one short chunk"},
        {4097, 4096, 4096, -1, 0, 0, "identity, a full and a one-byte chunk"},
        {1000003, 4096, 16384, -1, 0, 0, "identity, odd size"},
        {1000003, 4096, 16384, -1, 1, 4093, "identity, trailer, odd pieces"},
        {0, 4096, 16384, 1, 0, 0, "gzip 1, empty payload"},
        {1, 4096, 16384, 1, 1, 1, "gzip 1, one byte, trailer"},
        {999999, 4096, 16384, 1, 0, 0, "gzip 1, odd size"},
        {999999, 100, 300, 0, 0, 333, "gzip 0 (stored blocks), small chunks"},
        {555555, 4096, 16384, 6, 1, 0, "gzip 6, trailer"},
        {555555, 16384, 16384, 9, 0, 0, "gzip 9, fixed chunks"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        hb_chunked_params p = params(rows[i].size, rows[i].cmin, rows[i].cmax, rows[i].gzip,
                                     rows[i].trailer, HB_GEN_DEFAULT_SEED);
        hb_blob body, pl;
        hb_chunked_info info;
        body_of(&p, &body, &info);
        payload_of(rows[i].size, HB_GEN_DEFAULT_SEED, &pl);
        uint8_t *got = decode(&p, &body, rows[i].step, &info);
        if (pl.len && memcmp(got, pl.data, pl.len) != 0)
            fail_msg("%s: decoded body differs from the payload", rows[i].why);
        assert_int_equal(info.size, rows[i].size);
        assert_int_equal(info.crc32, crc_of(pl.data, pl.len));
        size_t nl = 0;
        for (size_t k = 0; k < pl.len; k++)
            nl += pl.data[k] == '\n';
        assert_int_equal(info.rows, nl);
        if (rows[i].gzip < 0)
            assert_int_equal(info.gzip_size, 0);
        else
            assert_true(info.gzip_size >= 20); /* header and trailer of a gzip member */
        free(got);
        hb_blob_free(&body);
        hb_blob_free(&pl);
    }
}

/* The body read through windows of any size equals the body read at once. */
static void test_body_windows(void **state)
{
    (void)state;
    static const size_t caps[] = {1, 2, 3, 5, 4097};
    static const int gzip[] = {-1, 1};
    for (size_t gi = 0; gi < 2; gi++) {
        hb_chunked_params p = params(60001, 100, 5000, gzip[gi], 1, 3);
        hb_blob ref;
        hb_chunked_info rinfo;
        body_of(&p, &ref, &rinfo);
        uint8_t *buf = malloc(ref.len + 8192);
        assert_non_null(buf);
        for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
            hb_chunked_gen *g;
            assert_int_equal(hb_chunked_gen_new(&g, &p), HB_OK);
            size_t have = 0, n;
            do {
                assert_true(have + caps[i] <= ref.len + 8192);
                assert_int_equal(hb_chunked_gen_read(g, buf + have, caps[i], &n), HB_OK);
                have += n;
            } while (n > 0);
            hb_chunked_info info;
            hb_chunked_gen_info(g, &info);
            hb_chunked_gen_free(g);
            assert_int_equal(have, ref.len);
            assert_memory_equal(buf, ref.data, ref.len);
            assert_memory_equal(&info, &rinfo, sizeof info);
        }
        free(buf);
        hb_blob_free(&ref);
    }
}

/* With --trailer the body ends in the trailer section naming the payload's crc32 and rows;
 * without it, in the last-chunk and the final CRLF. */
static void test_trailer(void **state)
{
    (void)state;
    static const struct {
        uint64_t size;
        int gzip, trailer;
        const char *why;
    } rows[] = {
        {0, -1, 1, "empty, trailer"},   {12345, -1, 1, "identity, trailer"},
        {12345, 1, 1, "gzip, trailer"}, {12345, -1, 0, "identity, none"},
        {12345, 1, 0, "gzip, none"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        hb_chunked_params p = params(rows[i].size, 4096, 16384, rows[i].gzip, rows[i].trailer, 1);
        hb_blob body;
        hb_chunked_info info;
        body_of(&p, &body, &info);
        char want[128];
        if (rows[i].trailer)
            snprintf(want, sizeof want, "\r\n0\r\nX-Checksum-Crc32: %08lx\r\nX-Rows: %llu\r\n\r\n",
                     (unsigned long)info.crc32, (unsigned long long)info.rows);
        else
            snprintf(want, sizeof want, "\r\n0\r\n\r\n");
        const char *w = want;
        if (rows[i].size == 0 && rows[i].gzip < 0) { /* no data chunk: no CRLF before the 0 */
            w += 2;
            assert_int_equal(body.len, strlen(w));
        }
        size_t wl = strlen(w);
        assert_true(body.len >= wl);
        const uint8_t *tail = body.data + body.len - wl;
        if (memcmp(tail, w, wl) != 0)
            fail_msg("%s: body ends \"%.*s\"", rows[i].why, (int)wl, (const char *)tail);
        hb_blob_free(&body);
    }
}

/* The gzip stream compresses like real exports: 3 to 6 times at nginx's level 1. */
static void test_gzip_ratio(void **state)
{
    (void)state;
    hb_chunked_params p = params(8000000, 4096, 16384, 1, 0, HB_GEN_DEFAULT_SEED);
    hb_blob body;
    hb_chunked_info info;
    body_of(&p, &body, &info);
    double ratio = (double)info.size / (double)info.gzip_size;
    if (ratio < 3.0 || ratio > 6.0)
        fail_msg("gzip -1 ratio %.2f outside 3..6", ratio);
    hb_blob_free(&body);
}

/* hb_chunked_params_check refuses what the header documents as invalid. */
static void test_params_check(void **state)
{
    (void)state;
    static const struct {
        uint32_t cmin, cmax;
        int gzip;
        int rc;
        const char *why;
    } rows[] = {
        {4096, 16384, -1, HB_OK, "defaults"},
        {1, 1, 9, HB_OK, "smallest chunks, level 9"},
        {16777216, 16777216, 0, HB_OK, "largest chunks, level 0"},
        {0, 16384, -1, HB_EINVAL, "chunk_min 0"},
        {0, 0, -1, HB_EINVAL, "both 0"},
        {5000, 4096, -1, HB_EINVAL, "min above max"},
        {4096, 16777217, -1, HB_EINVAL, "max past 2^24"},
        {4096, 16384, 10, HB_EINVAL, "level 10"},
        {4096, 16384, -2, HB_EINVAL, "level -2"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        hb_chunked_params p = params(1000, rows[i].cmin, rows[i].cmax, rows[i].gzip, 0, 1);
        const char *why = "unset";
        int rc = hb_chunked_params_check(&p, &why);
        if (rc != rows[i].rc)
            fail_msg("%s: rc %d, want %d", rows[i].why, rc, rows[i].rc);
        if ((rc == HB_OK) != (why == NULL))
            fail_msg("%s: reason %s", rows[i].why, why ? why : "NULL");
        if (rc != HB_OK) {
            static char sentinel;
            hb_chunked_gen *g = (hb_chunked_gen *)(void *)&sentinel; /* must be reset to NULL */
            assert_int_equal(hb_chunked_gen_new(&g, &p), HB_EINVAL);
            assert_null(g);
            hb_blob b;
            hb_chunked_info info;
            assert_int_equal(hb_chunked_load(&p, NULL, NULL, NULL, &b, &info), HB_EINVAL);
        }
    }
    assert_int_equal(hb_chunked_params_check(NULL, NULL), HB_EINVAL);
}

/* ---- the cache ---------------------------------------------------------------------------------
 */

typedef struct progress_log {
    unsigned calls;
    uint64_t last_done, total;
} progress_log;

static void progress_note(void *ctx, uint64_t done, uint64_t total)
{
    progress_log *log = ctx;
    log->calls++;
    log->last_done = done;
    log->total = total;
}

/* rm -r of the flat temporary cache directory */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_dir(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static void cache_paths(const hb_chunked_params *p, const char *dir, char *body, char *info)
{
    char name[256];
    assert_int_equal(hb_chunked_cache_name(p, name, sizeof name), HB_OK);
    assert_true(snprintf(body, 4096, "%s/%s.body", dir, name) < 4096);
    assert_true(snprintf(info, 4096, "%s/%s.info", dir, name) < 4096);
}

/* Loads through the cache and checks the bytes against an uncached generation. */
static void load_and_check(const hb_chunked_params *p, const char *dir, const hb_blob *ref,
                           const hb_chunked_info *ref_info, const char *why)
{
    hb_blob b;
    hb_chunked_info info;
    progress_log log = {0, 0, 0};
    int rc = hb_chunked_load(p, dir, progress_note, &log, &b, &info);
    if (rc != HB_OK)
        fail_msg("%s: hb_chunked_load: %s", why, hb_err_str(rc));
    if (b.len != ref->len || memcmp(b.data, ref->data, b.len) != 0)
        fail_msg("%s: cached body differs", why);
    if (memcmp(&info, ref_info, sizeof info) != 0)
        fail_msg("%s: cached info differs", why);
    assert_true(log.calls >= 1);
    assert_int_equal(log.last_done, p->size);
    assert_int_equal(log.total, p->size);
    hb_blob_free(&b);
}

enum corruption { NONE, TRUNCATE, FLIP_FIRST, FLIP_LAST, SIDECAR_GARBAGE, SIDECAR_GONE, BODY_GONE };

/* Does the damage to a cache entry: its body file (size bytes) and its sidecar. */
static void damage(enum corruption what, const char *body_path, const char *info_path, off_t size)
{
    FILE *f;
    switch (what) {
    case NONE:
        break;
    case TRUNCATE:
        assert_int_equal(truncate(body_path, size - 100), 0);
        break;
    case FLIP_FIRST:
    case FLIP_LAST:
        f = fopen(body_path, "r+b");
        assert_non_null(f);
        fseek(f, what == FLIP_FIRST ? 0 : (long)size - 1, SEEK_SET);
        fputc('#', f);
        fclose(f);
        break;
    case SIDECAR_GARBAGE:
        f = fopen(info_path, "w");
        assert_non_null(f);
        fputs("not a sidecar\nsize x\n", f);
        fclose(f);
        break;
    case SIDECAR_GONE:
        assert_int_equal(unlink(info_path), 0);
        break;
    case BODY_GONE:
        assert_int_equal(unlink(body_path), 0);
        break;
    }
}

/* The test's temporary directory, in *state: made by the setup, removed by the teardown. */
static int cache_setup(void **state)
{
    const char *tmp = getenv("TMPDIR");
    char *root = malloc(4096);
    if (!root)
        return -1;
    int k = snprintf(root, 4096, "%s/hb_test_chunked_gen.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (k <= 0 || k >= 4096 || !mkdtemp(root)) {
        free(root);
        return -1;
    }
    *state = root;
    return 0;
}

static int cache_teardown(void **state)
{
    remove_dir(*state);
    free(*state);
    return 0;
}

/* No temporary file (".tmp.") left in the cache folder dir. */
static void assert_no_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp."))
            fail_msg("temporary file left: %s", e->d_name);
    closedir(d);
}

/* The second load hits the cache (the file keeps its inode: not rewritten); a damaged entry is
 * regenerated (a new file renamed into place). */
static void test_cache(void **state)
{
    const char *cache_root = *state;
    static const struct {
        int gzip, trailer;
        enum corruption damage;
        int regenerated;
        const char *why;
    } rows[] = {
        {-1, 0, NONE, 0, "identity: second load hits"},
        {1, 1, NONE, 0, "gzip, trailer: second load hits"},
        {-1, 0, TRUNCATE, 1, "short body file"},
        {-1, 0, FLIP_FIRST, 1, "first byte changed"},
        {1, 0, FLIP_LAST, 1, "last byte changed"},
        {-1, 0, SIDECAR_GARBAGE, 1, "garbage sidecar"},
        {-1, 0, SIDECAR_GONE, 1, "sidecar missing"},
        {-1, 0, BODY_GONE, 1, "body missing"},
    };
    char dir[4096];
    /* a missing nested directory: the loader makes it */
    assert_true(snprintf(dir, sizeof dir, "%s/data/nested", cache_root) < (int)sizeof dir);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        hb_chunked_params p = params(300000 + i, 4096, 16384, rows[i].gzip, rows[i].trailer, 11);
        hb_blob ref;
        hb_chunked_info ref_info;
        body_of(&p, &ref, &ref_info);
        char body_path[4096], info_path[4096];
        cache_paths(&p, dir, body_path, info_path);

        load_and_check(&p, dir, &ref, &ref_info, rows[i].why); /* generates */
        struct stat st1, st2;
        assert_int_equal(stat(body_path, &st1), 0);
        assert_int_equal((uint64_t)st1.st_size, ref_info.body_size);
        assert_int_equal(access(info_path, R_OK), 0);

        damage(rows[i].damage, body_path, info_path, st1.st_size);
        load_and_check(&p, dir, &ref, &ref_info, rows[i].why);
        assert_int_equal(stat(body_path, &st2), 0);
        int same_file = st1.st_ino == st2.st_ino && st1.st_mtim.tv_sec == st2.st_mtim.tv_sec &&
                        st1.st_mtim.tv_nsec == st2.st_mtim.tv_nsec;
        if (rows[i].damage == NONE && !same_file)
            fail_msg("%s: the cache file was rewritten", rows[i].why);
        if (rows[i].regenerated && rows[i].damage != BODY_GONE && same_file)
            fail_msg("%s: the damaged file was kept", rows[i].why);
        hb_blob_free(&ref);
    }
    assert_no_tmp(dir);
}

/* hb_blob_to_memory turns a cached body's mapping into a malloc'd copy of the same bytes; a
 * malloc'd blob is left as it was. */
static void test_blob_to_memory(void **state)
{
    char dir[4096];
    assert_true(snprintf(dir, sizeof dir, "%s/data", (const char *)*state) < (int)sizeof dir);
    hb_chunked_params p = params(200000, 4096, 16384, 1, 0, 5);
    hb_blob ref, b;
    hb_chunked_info ref_info, info;
    body_of(&p, &ref, &ref_info);
    for (int pass = 0; pass < 2; pass++) { /* a miss, then a hit */
        assert_int_equal(hb_chunked_load(&p, dir, NULL, NULL, &b, &info), HB_OK);
        assert_true(b.map_len_ > 0);
        assert_int_equal(hb_blob_to_memory(&b), HB_OK);
        assert_int_equal(b.map_len_, 0);
        assert_true(b.base_ == b.data);
        assert_int_equal(b.len, ref.len);
        assert_memory_equal(b.data, ref.data, ref.len);
        hb_blob_free(&b);
    }
    const uint8_t *before = ref.data;
    assert_int_equal(hb_blob_to_memory(&ref), HB_OK);
    assert_ptr_equal(ref.data, before);
    hb_blob_free(&ref);
}

/* What progress_pid reports to: a pipe (the calls made in a child process reach the test only
 * so), the body's cache path, and the process that dies at its first call before the end (0:
 * none). */
typedef struct pid_log {
    int fd;
    const char *body_path;
    pid_t die_in;
} pid_log;

/* Writes {process id, done == total, the body file exists} to the pipe; asserts nothing (it may
 * run in the child: a failed cmocka assertion there would go on running the tests in it). */
static void progress_pid(void *ctx, uint64_t done, uint64_t total)
{
    const pid_log *log = ctx;
    if (done < total && log->die_in != 0 && getpid() != log->die_in)
        _exit(3); /* the child dies without a word, as the OOM killer would have it */
    long rec[3] = {(long)getpid(), done == total, access(log->body_path, R_OK) == 0};
    ssize_t w = write(log->fd, rec, sizeof rec);
    (void)w; /* a record missing fails the counts below */
}

/* The load of p (65 MiB: the payload passes one 64 MiB progress step) through an empty cache
 * under *state, with progress_pid; its result and errno, the counts of progress calls before the
 * end (all from another process) and at the end (from this one, the body there). */
static int load_logged(void **state, int child_dies, int *before_end, int *ends, int *err)
{
    char dir[4096], body_path[4096], info_path[4096];
    assert_true(snprintf(dir, sizeof dir, "%s/data", (const char *)*state) < (int)sizeof dir);
    hb_chunked_params p = params(65u << 20, 4096, 16384, -1, 0, 9);
    cache_paths(&p, dir, body_path, info_path);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_log log = {fds[1], body_path, child_dies ? getpid() : 0};
    hb_blob b;
    hb_chunked_info info;
    int rc = hb_chunked_load(&p, dir, progress_pid, &log, &b, &info);
    *err = errno;
    close(fds[1]);
    long rec[3];
    *before_end = *ends = 0;
    while (read(fds[0], rec, sizeof rec) == (ssize_t)sizeof rec) {
        if (rec[1]) {
            ++*ends;
            assert_int_equal(rec[0], (long)getpid());
            assert_true(rec[2]); /* the end is said once the body is in place */
        } else {
            ++*before_end;
            assert_int_not_equal(rec[0], (long)getpid());
        }
    }
    close(fds[0]);
    if (rc == HB_OK) {
        assert_int_equal(info.size, p.size);
        assert_int_equal(b.len, info.body_size);
    } else {
        assert_null(b.data);
    }
    hb_blob_free(&b);
    return rc;
}

/* A miss makes the body in a child process: the progress calls before the end come from another
 * process, and the one call at the end (done == total) from the caller, once the body is there. */
static void test_cache_fill_apart(void **state)
{
    int before_end, ends, err;
    assert_int_equal(load_logged(state, 0, &before_end, &ends, &err), HB_OK);
    assert_int_equal(before_end, 1);
    assert_int_equal(ends, 1);
}

/* A child that dies without a word: HB_EIO with errno EIO, no end call, no temporary file. */
static void test_cache_fill_child_dies(void **state)
{
    int before_end, ends, err;
    assert_int_equal(load_logged(state, 1, &before_end, &ends, &err), HB_EIO);
    assert_int_equal(err, EIO);
    assert_int_equal(before_end, 0);
    assert_int_equal(ends, 0);
    char dir[4096];
    assert_true(snprintf(dir, sizeof dir, "%s/data", (const char *)*state) < (int)sizeof dir);
    assert_no_tmp(dir);
}

/* The child's errno reaches the caller: a directory where the body file goes makes the child's
 * rename fail with EISDIR (even as root); nothing is mapped, no temporary file is left. */
static void test_cache_fill_errno(void **state)
{
    char dir[4096], body_path[4096], info_path[4096];
    assert_true(snprintf(dir, sizeof dir, "%s/data", (const char *)*state) < (int)sizeof dir);
    hb_chunked_params p = params(5000, 4096, 16384, -1, 0, 4);
    cache_paths(&p, dir, body_path, info_path);
    assert_int_equal(mkdir(dir, 0777), 0);
    assert_int_equal(mkdir(body_path, 0777), 0);
    hb_blob b;
    hb_chunked_info info;
    errno = 0;
    assert_int_equal(hb_chunked_load(&p, dir, NULL, NULL, &b, &info), HB_EIO);
    assert_int_equal(errno, EISDIR);
    assert_null(b.data);
    assert_no_tmp(dir);
}

/* A cache directory that cannot be made gives HB_EIO with errno kept, and nothing mapped. */
static void test_cache_unwritable(void **state)
{
    (void)state;
    hb_chunked_params p = params(1000, 4096, 16384, -1, 0, 1);
    hb_blob b;
    hb_chunked_info info;
    int rc = hb_chunked_load(&p, "/proc/hb-no-such-dir/x", NULL, NULL, &b, &info);
    assert_int_equal(rc, HB_EIO);
    assert_null(b.data);
    hb_blob_free(&b); /* safe on an empty blob */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_shape),
        cmocka_unit_test(test_payload_prefix),
        cmocka_unit_test(test_payload_windows),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_chunk_sizes),
        cmocka_unit_test(test_chunks_do_not_change_payload),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_body_windows),
        cmocka_unit_test(test_trailer),
        cmocka_unit_test(test_gzip_ratio),
        cmocka_unit_test(test_params_check),
        cmocka_unit_test_setup_teardown(test_cache, cache_setup, cache_teardown),
        cmocka_unit_test(test_cache_unwritable),
        cmocka_unit_test_setup_teardown(test_blob_to_memory, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_fill_apart, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_fill_child_dies, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_cache_fill_errno, cache_setup, cache_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

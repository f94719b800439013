/* test_timestamps_gen.c - unit tests of data-gen/timestamps_gen.c (the timestamp row sets).
 *
 * Tables of {input, expected, why}: parameter checks, formatting of chosen values; then the
 * properties of generated sets: determinism, prefixes, the file writer equal to the in-memory
 * builder, the shape the issue asks for (mostly 'Z', fractions of 0/3/6/9 digits with zero groups
 * trimmed, mostly 1970-2100), and the millis column equal to the RFC 3339 column rounded down.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "hb_err.h"
#include "hb_gen_ts.h"

/* ---- parameters ------------------------------------------------------------------------------ */

typedef struct param_row {
    uint64_t rows;
    uint32_t columns;
    int encoding, fraction, offsets;
    int ok;
    const char *why;
} param_row;

static const param_row param_rows[] = {
    {100000, 1, HB_TS_RFC3339, HB_TS_FRACTION_MIXED, HB_TS_OFFSETS_MIXED, 1, "the defaults"},
    {0, 1, HB_TS_RFC3339, 0, HB_TS_OFFSETS_Z, 1, "no rows"},
    {HB_TS_MAX_ROWS, 64, HB_TS_BOTH, 9, HB_TS_OFFSETS_NUMERIC, 1, "the limits"},
    {HB_TS_MAX_ROWS + 1, 1, HB_TS_RFC3339, 0, 0, 0, "too many rows"},
    {1, 0, HB_TS_RFC3339, 0, 0, 0, "no columns"},
    {1, 65, HB_TS_RFC3339, 0, 0, 0, "too many columns"},
    {1, 1, 0, 0, 0, 0, "no encoding"},
    {1, 1, 4, 0, 0, 0, "unknown encoding"},
    {1, 1, HB_TS_MILLIS, 2, 0, 0, "2 fraction digits"},
    {1, 1, HB_TS_MILLIS, 12, 0, 0, "12 fraction digits"},
    {1, 1, HB_TS_MILLIS, 3, 7, 0, "unknown offsets mode"},
};

static void test_params(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof param_rows / sizeof *param_rows; i++) {
        const param_row *r = &param_rows[i];
        hb_ts_params p;
        hb_ts_params_default(&p);
        p.rows = r->rows;
        p.columns = r->columns;
        p.encoding = r->encoding;
        p.fraction = r->fraction;
        p.offsets = r->offsets;
        const char *why = "unset";
        int rc = hb_ts_params_check(&p, &why);
        if (r->ok && (rc != HB_OK || why != NULL))
            fail_msg("%s: rejected (%s)", r->why, why);
        if (!r->ok && (rc != HB_EINVAL || why == NULL))
            fail_msg("%s: accepted", r->why);
    }
    assert_int_equal(hb_ts_params_check(NULL, NULL), HB_EINVAL);
    hb_ts_params p;
    hb_ts_params_default(&p);
    assert_int_equal(p.rows, 100000);
    assert_int_equal(p.seed, HB_GEN_DEFAULT_SEED);
    p.columns = 0;
    hb_blob b;
    assert_int_equal(hb_ts_build(&p, &b, NULL), HB_EINVAL);
    assert_int_equal(hb_ts_write(&p, -1, NULL), HB_EINVAL);
}

/* ---- formatting ------------------------------------------------------------------------------ */

typedef struct format_row {
    hb_ts_value v;
    const char *rfc3339;
    const char *millis;
    const char *why;
} format_row;

static const format_row format_rows[] = {
    {{0, 0, 0, 1, 0, 0}, "1970-01-01T00:00:00Z", "0", "the epoch"},
    {{-1, 500000000, 0, 1, 0, 3}, "1969-12-31T23:59:59.500Z", "-500", "pre-epoch, 3 digits"},
    {{-1, 999999999, 0, 1, 0, 9}, "1969-12-31T23:59:59.999999999Z", "-1", "rounded down"},
    {{1614834367, 123456789, 330, 0, 0, 9},
     "2021-03-04T10:36:07.123456789+05:30",
     "1614834367123",
     "an offset east"},
    {{1614834367, 123456000, -480, 0, 0, 6},
     "2021-03-03T21:06:07.123456-08:00",
     "1614834367123",
     "an offset west, 6 digits"},
    {{1614834367, 0, 0, 0, 1, 0}, "2021-03-04T05:06:07-00:00", "1614834367000", "-00:00"},
    {{1614834367, 0, 1439, 0, 0, 0}, "2021-03-05T05:05:07+23:59", "1614834367000", "+23:59"},
    {{-62135596800, 0, 0, 1, 0, 0}, "0001-01-01T00:00:00Z", "-62135596800000", "the minimum"},
    {{253402300799, 999999999, 0, 1, 0, 9},
     "9999-12-31T23:59:59.999999999Z",
     "253402300799999",
     "the maximum"},
    {{951782400, 1000000, 0, 1, 0, 3}, "2000-02-29T00:00:00.001Z", "951782400001", "leap day"},
    {{-2208988800, 120000000, 0, 1, 0, 3},
     "1900-01-01T00:00:00.120Z",
     "-2208988799880",
     "1900, a zero kept inside the group"},
};

static void test_format(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof format_rows / sizeof *format_rows; i++) {
        const format_row *r = &format_rows[i];
        char s[HB_TS_TEXT_MAX + 1], m[HB_TS_MILLIS_MAX + 1];
        size_t n = hb_ts_format_rfc3339(&r->v, s);
        s[n] = '\0';
        if (strcmp(s, r->rfc3339) != 0)
            fail_msg("%s: '%s', want '%s'", r->why, s, r->rfc3339);
        n = hb_ts_format_millis(&r->v, m);
        m[n] = '\0';
        if (strcmp(m, r->millis) != 0)
            fail_msg("%s: millis '%s', want '%s'", r->why, m, r->millis);
    }
    int32_t y;
    uint32_t mo, d;
    hb_ts_civil_from_days(0, &y, &mo, &d);
    assert_true(y == 1970 && mo == 1 && d == 1);
    hb_ts_civil_from_days(-719162, &y, &mo, &d);
    assert_true(y == 1 && mo == 1 && d == 1);
    hb_ts_civil_from_days(2932896, &y, &mo, &d);
    assert_true(y == 9999 && mo == 12 && d == 31);
    hb_ts_civil_from_days(-719163, &y, &mo, &d);
    assert_true(y == 0 && mo == 12 && d == 31);
}

/* ---- sets ----------------------------------------------------------------------------------- */

static hb_ts_params params(uint64_t rows, uint32_t columns, int encoding, uint64_t seed)
{
    hb_ts_params p;
    hb_ts_params_default(&p);
    p.rows = rows;
    p.columns = columns;
    p.encoding = encoding;
    p.seed = seed;
    return p;
}

static void build(const hb_ts_params *p, hb_blob *b, hb_ts_info *info)
{
    int rc = hb_ts_build(p, b, info);
    if (rc != HB_OK)
        fail_msg("hb_ts_build: %s", hb_err_str(rc));
}

static void test_deterministic(void **state)
{
    (void)state;
    hb_ts_params p = params(5000, 2, HB_TS_BOTH, 7), q = p;
    hb_blob a, b, c, small;
    hb_ts_info ia, ib, ic;
    build(&p, &a, &ia);
    build(&p, &b, &ib);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.data, b.data, a.len);
    assert_int_equal(ia.crc32, ib.crc32);
    assert_int_equal(ia.crc32, (uint32_t)crc32_z(crc32(0, Z_NULL, 0), a.data, a.len));
    assert_int_equal(ia.rows, 5000);
    assert_int_equal(ia.values, 10000);
    assert_int_equal(ia.bytes, a.len);
    for (size_t i = 0; i < 64; i++) /* the padding */
        assert_int_equal(a.data[a.len + i], 0);
    q.seed = 8;
    build(&q, &c, &ic);
    assert_int_not_equal(ia.crc32, ic.crc32);
    /* the first rows of a larger set are a smaller set */
    q = p;
    q.rows = 100;
    build(&q, &small, NULL);
    assert_true(small.len < a.len);
    assert_memory_equal(small.data, a.data, small.len);
    /* the writer writes what the builder builds */
    char path[] = "/tmp/hb_test_ts_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    hb_ts_info iw;
    assert_int_equal(hb_ts_write(&p, fd, &iw), HB_OK);
    close(fd);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *buf = malloc(a.len + 1);
    assert_int_equal(fread(buf, 1, a.len + 1, f), a.len);
    fclose(f);
    unlink(path);
    assert_memory_equal(buf, a.data, a.len);
    assert_int_equal(iw.crc32, ia.crc32);
    assert_int_equal(iw.bytes, ia.bytes);
    free(buf);
    hb_blob_free(&a);
    hb_blob_free(&b);
    hb_blob_free(&c);
    hb_blob_free(&small);
    /* no rows: an empty set */
    q.rows = 0;
    build(&q, &a, &ia);
    assert_int_equal(a.len, 0);
    assert_int_equal(ia.crc32, 0);
    hb_blob_free(&a);
}

/* Splits row-major fields; returns the count, fields[i] points into text. */
static size_t split(const hb_blob *b, const char **fields, size_t *lens, size_t max, size_t *lines)
{
    size_t n = 0, start = 0;
    *lines = 0;
    for (size_t i = 0; i < b->len; i++) {
        char ch = (char)b->data[i];
        if (ch == '\t' || ch == '\n') {
            assert_true(n < max);
            fields[n] = (const char *)b->data + start;
            lens[n++] = i - start;
            start = i + 1;
            *lines += ch == '\n';
        }
    }
    assert_int_equal(start, b->len); /* ends with a newline */
    return n;
}

/* The default set's shape: 'Z' on about 90%, fractions of 0/3/6/9 digits a quarter each with no
 * trailing zero group, about 85% in 1970-2100, years 0001-9999, and the millis column equal to
 * the RFC 3339 column's instant rounded down. */
static void test_shape(void **state)
{
    (void)state;
    enum { ROWS = 20000 };
    hb_ts_params p = params(ROWS, 1, HB_TS_BOTH, HB_GEN_DEFAULT_SEED);
    hb_blob b;
    build(&p, &b, NULL);
    static const char *fields[2 * ROWS];
    static size_t lens[2 * ROWS];
    size_t lines;
    size_t n = split(&b, fields, lens, 2 * ROWS, &lines);
    assert_int_equal(n, 2 * ROWS);
    assert_int_equal(lines, ROWS);
    size_t zulu = 0, digits[10] = {0}, modern = 0, early = 0;
    for (size_t r = 0; r < ROWS; r++) {
        hb_ts_value v;
        hb_ts_value_at(&p, r, &v);
        char s[HB_TS_TEXT_MAX + 1], m[HB_TS_MILLIS_MAX + 1];
        size_t len = hb_ts_format_rfc3339(&v, s), mlen = hb_ts_format_millis(&v, m);
        m[mlen] = '\0';
        assert_int_equal(lens[2 * r], len);
        assert_memory_equal(fields[2 * r], s, len);
        assert_int_equal(lens[2 * r + 1], mlen);
        assert_memory_equal(fields[2 * r + 1], m, mlen);
        assert_true(len >= 20 && len <= HB_TS_TEXT_MAX);
        assert_true(s[10] == 'T');
        assert_false(s[0] == '0' && s[1] == '0' && s[2] == '0' && s[3] == '0');
        zulu += s[len - 1] == 'Z';
        size_t f = 0;
        if (s[19] == '.') {
            while (s[20 + f] >= '0' && s[20 + f] <= '9')
                f++;
            assert_false(s[20 + f - 3] == '0' && s[20 + f - 2] == '0' && s[20 + f - 1] == '0');
        }
        digits[f]++;
        assert_true(v.seconds >= -62135596800 && v.seconds <= 253402300799);
        assert_true(v.nanos >= 0 && v.nanos <= 999999999);
        modern += v.seconds >= 0 && v.seconds < 4102444800;
        early += v.seconds < 0;
        int64_t ms = strtoll(m, NULL, 10);
        assert_int_equal(ms, v.seconds * 1000 + v.nanos / 1000000);
    }
    assert_true(zulu > ROWS * 85 / 100 && zulu < ROWS * 95 / 100);
    for (int d = 0; d <= 9; d += 3)
        assert_true(digits[d] > ROWS * 20 / 100 && digits[d] < ROWS * 30 / 100);
    assert_int_equal(digits[0] + digits[3] + digits[6] + digits[9], ROWS);
    assert_true(modern > ROWS * 80 / 100);
    assert_true(early > ROWS * 10 / 100);
    hb_blob_free(&b);
}

/* Fixed fractions and offsets, and the encodings' column layout. */
static void test_modes(void **state)
{
    (void)state;
    static const int fractions[] = {0, 1, 3, 6, 9};
    for (size_t fi = 0; fi < sizeof fractions / sizeof fractions[0]; fi++) {
        for (int off = HB_TS_OFFSETS_Z; off <= HB_TS_OFFSETS_NUMERIC; off++) {
            hb_ts_params p = params(3000, 1, HB_TS_RFC3339, 99);
            p.fraction = fractions[fi];
            p.offsets = off;
            size_t numeric = 0;
            for (uint64_t j = 0; j < 3000; j++) {
                hb_ts_value v;
                char s[HB_TS_TEXT_MAX + 1];
                hb_ts_value_at(&p, j, &v);
                size_t len = hb_ts_format_rfc3339(&v, s);
                assert_int_equal(v.frac_digits, fractions[fi]);
                size_t want = 20 + (fractions[fi] ? 1 + (size_t)fractions[fi] : 0);
                assert_int_equal(len, want + (v.zulu ? 0 : 5));
                numeric += !v.zulu;
                if (off == HB_TS_OFFSETS_Z)
                    assert_true(v.zulu);
            }
            if (off == HB_TS_OFFSETS_NUMERIC)
                assert_true(numeric > 2950); /* 'Z' only at the range limits */
        }
    }
    static const int encodings[] = {HB_TS_RFC3339, HB_TS_MILLIS, HB_TS_BOTH};
    for (size_t e = 0; e < 3; e++) {
        hb_ts_params p = params(50, 5, encodings[e], 3);
        hb_blob b;
        build(&p, &b, NULL);
        static const char *fields[1000];
        static size_t lens[1000];
        size_t lines;
        size_t n = split(&b, fields, lens, 1000, &lines);
        assert_int_equal(lines, 50);
        assert_int_equal(n, 50 * 5 * (encodings[e] == HB_TS_BOTH ? 2 : 1));
        /* a millis field has no 'T'; an RFC 3339 field has one at 10 */
        int first_is_rfc = encodings[e] != HB_TS_MILLIS;
        assert_int_equal(lens[0] >= 20 && fields[0][10] == 'T', first_is_rfc);
        hb_blob_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params),        cmocka_unit_test(test_format),
        cmocka_unit_test(test_deterministic), cmocka_unit_test(test_shape),
        cmocka_unit_test(test_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

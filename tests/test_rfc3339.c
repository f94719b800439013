/* test_rfc3339.c - unit tests of cases/rfc3339 (the reference parser, the fast strategies, the
 * integer workaround, the civil-date conversions).
 *
 * Tables of {input, expected, why}; every input is placed flush against a guard page, once at the
 * end of a readable page and once at its start, so a strategy reading one byte outside
 * [s, s + len) faults. The reference is checked against the tables and, on random valid strings,
 * against libc's timegm; every fast strategy is checked against the reference on random valid
 * strings and random mutations of them (a million each in the normal build, fewer under the
 * sanitizers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hb_err.h"
#include "hb_gen_ts.h"
#include "hb_prng.h"
#include "hb_rfc3339.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define RANDOM_VALID 300000
#define RANDOM_MUTANTS 300000
#else
#define RANDOM_VALID 1000000
#define RANDOM_MUTANTS 1000000
#endif

/* ---- guard pages ---------------------------------------------------------------------------- */

/* Three pages: none, read-write, none. */
typedef struct guard {
    uint8_t *base;
    size_t page;
} guard;

static guard g_guard;

static int setup(void **state)
{
    (void)state;
    g_guard.page = (size_t)sysconf(_SC_PAGESIZE);
    void *p =
        mmap(NULL, 3 * g_guard.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    g_guard.base = p;
    if (mprotect(g_guard.base, g_guard.page, PROT_NONE) != 0 ||
        mprotect(g_guard.base + 2 * g_guard.page, g_guard.page, PROT_NONE) != 0)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    munmap(g_guard.base, 3 * g_guard.page);
    return 0;
}

/* s copied so that its last byte is the last readable one (where 0: start of the page). */
static const char *flush(const char *s, size_t len, int at_start)
{
    uint8_t *mid = g_guard.base + g_guard.page;
    uint8_t *p = at_start ? mid : mid + g_guard.page - len;
    memmove(p, s, len);
    return (const char *)p;
}

/* ---- helpers -------------------------------------------------------------------------------- */

/* The text strategies this CPU can run. */
static const hb_rfc3339_strategy *text_strategies[16];
static size_t n_text;

static void find_strategies(void)
{
    if (n_text)
        return;
    for (size_t i = 0; i < hb_rfc3339_strategy_count; i++) {
        const hb_rfc3339_strategy *s = &hb_rfc3339_strategies[i];
        if (s->input == HB_RFC3339_IN_TEXT && (!s->available || s->available()))
            text_strategies[n_text++] = s;
    }
    assert_true(n_text >= 5);
}

static int is_fast(const hb_rfc3339_strategy *s)
{
    return s->validating && strcmp(s->name, "scalar") != 0;
}

static int parse_ref(const char *s, size_t len, hb_rfc3339_time *t, hb_rfc3339_error *e)
{
    return hb_rfc3339_parse(flush(s, len, 0), len, t, e);
}

/* Every validating strategy, placed both ways, gives want_rc == HB_OK ? *want : a rejection. */
static void check_all(const char *s, size_t len, int ok, const hb_rfc3339_time *want,
                      const char *why)
{
    find_strategies();
    for (size_t k = 0; k < n_text; k++) {
        const hb_rfc3339_strategy *st = text_strategies[k];
        if (!st->validating)
            continue;
        for (int at_start = 0; at_start < 2; at_start++) {
            hb_rfc3339_time t = {12345, 678};
            int rc = st->parse(flush(s, len, at_start), len, &t);
            if (ok && (rc != HB_OK || t.seconds != want->seconds || t.nanos != want->nanos))
                fail_msg("%s: %s on '%.*s': rc %d {%lld, %d}, want {%lld, %d}", why, st->name,
                         (int)len, s, rc, (long long)t.seconds, t.nanos, (long long)want->seconds,
                         want->nanos);
            if (!ok && rc == HB_OK)
                fail_msg("%s: %s accepts '%.*s' as {%lld, %d}", why, st->name, (int)len, s,
                         (long long)t.seconds, t.nanos);
            if (!ok && rc >= 0)
                fail_msg("%s: %s returns %d on '%.*s'", why, st->name, rc, (int)len, s);
        }
    }
}

/* ---- valid inputs ---------------------------------------------------------------------------- */

typedef struct valid_row {
    const char *in;
    int64_t seconds;
    int32_t nanos;
    const char *why;
} valid_row;

static const valid_row valid_rows[] = {
    {"1970-01-01T00:00:00Z", 0, 0, "the epoch"},
    {"1970-01-01T00:00:00.000000001Z", 0, 1, "one nanosecond after the epoch"},
    {"1969-12-31T23:59:59Z", -1, 0, "one second before the epoch"},
    {"1969-12-31T23:59:59.5Z", -1, 500000000, "pre-epoch with a fraction: nanos count forward"},
    {"1969-12-31T23:59:59.999999999Z", -1, 999999999, "the last nanosecond before the epoch"},
    {"1900-01-01T00:00:00Z", -2208988800, 0, "1900"},
    {"0001-01-01T00:00:00Z", -62135596800, 0, "the range minimum"},
    {"0001-01-01T00:00:00.000000001Z", -62135596800, 1, "just after the minimum"},
    {"9999-12-31T23:59:59.999999999Z", 253402300799, 999999999, "the range maximum"},
    {"9999-12-31T23:59:59Z", 253402300799, 0, "the maximum second"},
    {"0000-12-31T23:00:00-01:00", -62135596800, 0, "year 0000 brought in range by the offset"},
    {"0000-12-31T00:01:00-23:59", -62135596800, 0, "year 0000, offset -23:59"},
    {"9999-12-31T23:59:59.999999999+00:00", 253402300799, 999999999, "max with +00:00"},
    {"2038-01-19T03:14:07Z", 2147483647, 0, "2^31 - 1 seconds"},
    {"2038-01-19T03:14:08Z", 2147483648, 0, "2^31 seconds"},
    {"2106-02-07T06:28:15Z", 4294967295, 0, "2^32 - 1 seconds"},
    {"2106-02-07T06:28:16Z", 4294967296, 0, "2^32 seconds"},
    {"1901-12-13T20:45:52Z", -2147483648, 0, "-2^31 seconds"},
    {"1901-12-13T20:45:51Z", -2147483649, 0, "-2^31 - 1 seconds"},
    {"2021-03-04T05:06:07.123456789Z", 1614834367, 123456789, "the wire example"},
    {"2021-03-04T05:06:07.1Z", 1614834367, 100000000, "1 fraction digit"},
    {"2021-03-04T05:06:07.12Z", 1614834367, 120000000, "2 fraction digits"},
    {"2021-03-04T05:06:07.123Z", 1614834367, 123000000, "3 fraction digits"},
    {"2021-03-04T05:06:07.1234Z", 1614834367, 123400000, "4 fraction digits"},
    {"2021-03-04T05:06:07.12345Z", 1614834367, 123450000, "5 fraction digits"},
    {"2021-03-04T05:06:07.123456Z", 1614834367, 123456000, "6 fraction digits"},
    {"2021-03-04T05:06:07.1234567Z", 1614834367, 123456700, "7 fraction digits"},
    {"2021-03-04T05:06:07.12345678Z", 1614834367, 123456780, "8 fraction digits"},
    {"2021-03-04T05:06:07.000000000Z", 1614834367, 0, "9 zero digits"},
    {"2021-03-04t05:06:07z", 1614834367, 0, "lower-case t and z (RFC 3339 5.6 note)"},
    {"2021-03-04T05:06:07+05:30", 1614834367 - 19800, 0, "+05:30"},
    {"2021-03-04T05:06:07-08:00", 1614834367 + 28800, 0, "-08:00"},
    {"2021-03-04T05:06:07-00:00", 1614834367, 0, "-00:00 is UTC"},
    {"2021-03-04T05:06:07+00:00", 1614834367, 0, "+00:00"},
    {"2021-03-04T05:06:07+23:59", 1614834367 - 86340, 0, "+23:59"},
    {"2021-03-04T05:06:07-23:59", 1614834367 + 86340, 0, "-23:59"},
    {"2021-03-04T05:06:07.123456789+05:30", 1614834367 - 19800, 123456789, "longest form"},
    {"2021-03-04T05:06:07.5-23:59", 1614834367 + 86340, 500000000, "fraction and offset"},
    {"2000-02-29T00:00:00Z", 951782400, 0, "leap day of 2000 (divisible by 400)"},
    {"2024-02-29T12:00:00Z", 1709208000, 0, "leap day of 2024"},
    {"1600-02-29T00:00:00Z", -11670998400, 0, "leap day of 1600"},
    {"0004-02-29T00:00:00Z", -62035891200, 0, "leap day of year 4"},
    {"2021-12-31T23:59:59Z", 1640995199, 0, "last second of a year"},
    {"1999-12-31T23:59:59.999Z", 946684799, 999000000, "before 2000"},
    {"2021-03-04T00:00:00+01:00", 1614812400, 0, "offset crosses the day back"},
    {"2021-03-04T23:30:00-01:00", 1614904200, 0, "offset crosses the day forward"},
    {"2021-01-01T00:30:00+01:00", 1609457400, 0, "offset crosses the year back"},
};

static void test_valid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof valid_rows / sizeof *valid_rows; i++) {
        const valid_row *r = &valid_rows[i];
        if (!r->why)
            continue;
        size_t len = strlen(r->in);
        hb_rfc3339_time t = {7, 7};
        hb_rfc3339_error e = {99, 99};
        int rc = parse_ref(r->in, len, &t, &e);
        if (rc != HB_OK)
            fail_msg("%s: '%s' rejected: %s at byte %zu", r->why, r->in,
                     hb_rfc3339_rule_str(e.rule), e.pos);
        if (t.seconds != r->seconds || t.nanos != r->nanos)
            fail_msg("%s: '%s' gives {%lld, %d}, want {%lld, %d}", r->why, r->in,
                     (long long)t.seconds, t.nanos, (long long)r->seconds, r->nanos);
        check_all(r->in, len, 1, &t, r->why);
    }
}

/* Every month's last day exists and the next one does not, in common and leap years (including
 * 1900 and 2100, not leap, and 2000, leap). */
static void test_month_lengths(void **state)
{
    (void)state;
    static const int years[] = {1900, 1999, 2000, 2021, 2024, 2100, 2400, 1, 4, 9999};
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    for (size_t yi = 0; yi < sizeof years / sizeof *years; yi++) {
        int y = years[yi];
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for (int m = 1; m <= 12; m++) {
            int last = mdays[m - 1] + (m == 2 && leap);
            assert_int_equal(hb_rfc3339_days_in_month((uint32_t)y, (uint32_t)m), last);
            for (int d = last; d <= last + 1; d++) {
                char s[32];
                snprintf(s, sizeof s, "%04d-%02d-%02dT12:00:00Z", y, m, d);
                hb_rfc3339_time t;
                hb_rfc3339_error e;
                int rc = parse_ref(s, 20, &t, &e);
                if (d == last) {
                    if (rc != HB_OK)
                        fail_msg("'%s' rejected", s);
                    struct tm tm = {
                        .tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = d, .tm_hour = 12};
                    assert_int_equal(t.seconds, (int64_t)timegm(&tm));
                    check_all(s, 20, 1, &t, "last day of a month");
                } else {
                    assert_int_equal(rc, HB_ERANGE);
                    assert_int_equal(e.pos, 8);
                    assert_int_equal(e.rule, HB_RFC3339_R_MDAY_RANGE);
                    check_all(s, 20, 0, NULL, "day after the last");
                }
            }
        }
    }
    assert_int_equal(hb_rfc3339_days_in_month(2021, 0), 0);
    assert_int_equal(hb_rfc3339_days_in_month(2021, 13), 0);
}

/* ---- invalid inputs ----------------------------------------------------------------------------
 */

typedef struct invalid_row {
    const char *in;
    int rc;
    size_t pos;
    int rule;
    const char *why;
} invalid_row;

#define R(x) HB_RFC3339_R_##x
static const invalid_row invalid_rows[] = {
    {"", HB_ETRUNC, 0, R(YEAR), "empty"},
    {"2021-03-04 05:06:07Z", HB_EPARSE, 10, R(T), "space separator"},
    {"2021-03-04_05:06:07Z", HB_EPARSE, 10, R(T), "underscore separator"},
    {"2021-03-04T05:06Z", HB_EPARSE, 16, R(TIME_SEP), "missing seconds"},
    {"2021-03-04T05:06:07", HB_ETRUNC, 19, R(OFFSET), "missing offset"},
    {"2021-03-04T05:06:07.123", HB_ETRUNC, 23, R(OFFSET), "fraction, missing offset"},
    {"2021-03-04T05:06:07+0530", HB_EPARSE, 22, R(OFFSET_SEP), "offset without colon"},
    {"2021-03-04T05:06:07+05", HB_ETRUNC, 22, R(OFFSET_SEP), "offset without minutes"},
    {"2021-03-04T05:06:07+5:30", HB_EPARSE, 21, R(OFFSET_HOUR), "one-digit offset hour"},
    {"2021-03-04T05:06:07+05:3", HB_ETRUNC, 24, R(OFFSET_MINUTE), "one-digit offset minute"},
    {"2021-03-04T05:06:07.1234567891Z", HB_EPARSE, 29, R(SECFRAC_LONG), "10 fraction digits"},
    {"2021-03-04T05:06:07.Z", HB_EPARSE, 20, R(SECFRAC), "empty fraction"},
    {"2021-03-04T05:06:07.", HB_ETRUNC, 20, R(SECFRAC), "empty fraction at the end"},
    {"2021-03-04T05:06:07,123Z", HB_EPARSE, 19, R(OFFSET), "comma"},
    {"+2021-03-04T05:06:07Z", HB_EPARSE, 0, R(YEAR), "signed year"},
    {"-2021-03-04T05:06:07Z", HB_EPARSE, 0, R(YEAR), "negative year"},
    {"12021-03-04T05:06:07Z", HB_EPARSE, 4, R(DATE_SEP), "five-digit year"},
    {"21-03-04T05:06:07Z", HB_EPARSE, 2, R(YEAR), "two-digit year"},
    {"2021-3-04T05:06:07Z", HB_EPARSE, 6, R(MONTH), "one-digit month"},
    {"2021-03-4T05:06:07Z", HB_EPARSE, 9, R(MDAY), "one-digit day"},
    {"2021-03-04T5:06:07Z", HB_EPARSE, 12, R(HOUR), "one-digit hour"},
    {"2021/03/04T05:06:07Z", HB_EPARSE, 4, R(DATE_SEP), "slashes"},
    {"2021-03-04T05-06-07Z", HB_EPARSE, 13, R(TIME_SEP), "dashes in the time"},
    {"\xef\xbc\x92\xef\xbc\x90\xef\xbc\x92\xef\xbc\x91-03-04T05:06:07Z", HB_EPARSE, 0, R(YEAR),
     "fullwidth digits"},
    {"2021-03-04T05:06:0\xd9\xa7Z", HB_EPARSE, 18, R(SECOND), "an Arabic-Indic digit"},
    {"2021-03-04T05:06:07Zx", HB_EPARSE, 20, R(TRAILING), "a byte after Z"},
    {"2021-03-04T05:06:07Z ", HB_EPARSE, 20, R(TRAILING), "a space after Z"},
    {"2021-03-04T05:06:07Z\n", HB_EPARSE, 20, R(TRAILING), "a newline after Z"},
    {"2021-03-04T05:06:07+05:30Z", HB_EPARSE, 25, R(TRAILING), "Z after an offset"},
    {"2021-03-04T05:06:07z+05:30", HB_EPARSE, 20, R(TRAILING), "an offset after z"},
    {"2021-03-04T05:06:07.123456789+05:30x", HB_EPARSE, 35, R(TRAILING), "after the longest"},
    {"2021-03-04T05:06:07\0Z", HB_EPARSE, 19, R(OFFSET), "a NUL byte"},
    {"2021-03-04T05:06:07UTC", HB_EPARSE, 19, R(OFFSET), "a zone name"},
    {" 2021-03-04T05:06:07Z", HB_EPARSE, 0, R(YEAR), "leading space"},
    {"2021-03-04T05:06:60Z", HB_ERANGE, 17, R(SECOND_RANGE), "leap second"},
    {"2016-12-31T23:59:60Z", HB_ERANGE, 17, R(SECOND_RANGE), "a real leap second"},
    {"2021-03-04T05:60:07Z", HB_ERANGE, 14, R(MINUTE_RANGE), "minute 60"},
    {"2021-03-04T24:00:00Z", HB_ERANGE, 11, R(HOUR_RANGE), "hour 24"},
    {"2021-13-04T05:06:07Z", HB_ERANGE, 5, R(MONTH_RANGE), "month 13"},
    {"2021-00-04T05:06:07Z", HB_ERANGE, 5, R(MONTH_RANGE), "month 00"},
    {"2021-03-00T05:06:07Z", HB_ERANGE, 8, R(MDAY_RANGE), "day 00"},
    {"2021-03-32T05:06:07Z", HB_ERANGE, 8, R(MDAY_RANGE), "day 32"},
    {"2021-02-29T05:06:07Z", HB_ERANGE, 8, R(MDAY_RANGE), "Feb 29 of a common year"},
    {"1900-02-29T00:00:00Z", HB_ERANGE, 8, R(MDAY_RANGE), "Feb 29 1900 (divisible by 100)"},
    {"2100-02-29T00:00:00Z", HB_ERANGE, 8, R(MDAY_RANGE), "Feb 29 2100"},
    {"2021-04-31T00:00:00Z", HB_ERANGE, 8, R(MDAY_RANGE), "April 31"},
    {"2021-03-04T05:06:07+24:00", HB_ERANGE, 20, R(OFFSET_HOUR_RANGE), "offset hour 24"},
    {"2021-03-04T05:06:07-00:60", HB_ERANGE, 23, R(OFFSET_MINUTE_RANGE), "offset minute 60"},
    {"0001-01-01T00:00:00+00:01", HB_ERANGE, 19, R(INSTANT_RANGE), "pushed below the minimum"},
    {"0001-01-01T23:58:59+23:59", HB_ERANGE, 19, R(INSTANT_RANGE), "+23:59 below the minimum"},
    {"9999-12-31T23:59:59-00:01", HB_ERANGE, 19, R(INSTANT_RANGE), "pushed above the maximum"},
    {"9999-12-31T00:01:00-23:59", HB_ERANGE, 19, R(INSTANT_RANGE), "-23:59 above the maximum"},
    {"9999-12-31T23:59:59.999999999-00:01", HB_ERANGE, 29, R(INSTANT_RANGE), "max, offset"},
    {"0000-12-31T23:59:59Z", HB_ERANGE, 0, R(INSTANT_RANGE), "year 0000 with Z"},
    {"0000-01-01T00:00:00-01:00", HB_ERANGE, 0, R(INSTANT_RANGE), "year 0000, too early"},
    {"2021-03-04T05:06:07.", HB_ETRUNC, 20, R(SECFRAC), "truncated after the point"},
    {"2021-03-04T05:06:07+", HB_ETRUNC, 20, R(OFFSET_HOUR), "truncated after the sign"},
    {"2021-03-04T05:06:07-05:", HB_ETRUNC, 23, R(OFFSET_MINUTE), "truncated after the colon"},
    {"2021-03-04", HB_ETRUNC, 10, R(T), "a date alone"},
    {"2021-03-04T", HB_ETRUNC, 11, R(HOUR), "date and T"},
    {"2021-03-04T05:06:07.123456789+05:30:00", HB_EPARSE, 35, R(TRAILING), "offset seconds"},
};
#undef R

static void test_invalid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof invalid_rows / sizeof *invalid_rows; i++) {
        const invalid_row *r = &invalid_rows[i];
        size_t len = strlen(r->in);
        if (strcmp(r->why, "a NUL byte") == 0)
            len = 21;
        hb_rfc3339_time t = {7, 7};
        hb_rfc3339_error e = {99, 99};
        int rc = parse_ref(r->in, len, &t, &e);
        if (rc != r->rc || e.pos != r->pos || e.rule != r->rule)
            fail_msg("%s: '%.*s': rc %d at byte %zu rule %d (%s); want rc %d at byte %zu rule %d "
                     "(%s)",
                     r->why, (int)len, r->in, rc, e.pos, e.rule, hb_rfc3339_rule_str(e.rule), r->rc,
                     r->pos, r->rule, hb_rfc3339_rule_str(r->rule));
        assert_int_equal(t.seconds, 7); /* untouched */
        assert_int_equal(t.nanos, 7);
        check_all(r->in, len, 0, NULL, r->why);
    }
}

/* Every proper prefix of a valid string is truncated: HB_ETRUNC at its own length, and every
 * validating strategy rejects it. */
static void test_every_truncation(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof valid_rows / sizeof *valid_rows; i++) {
        const valid_row *r = &valid_rows[i];
        if (!r->why)
            continue;
        size_t full = strlen(r->in);
        for (size_t len = 0; len < full; len++) {
            hb_rfc3339_time t;
            hb_rfc3339_error e = {99, 99};
            int rc = parse_ref(r->in, len, &t, &e);
            if (rc != HB_ETRUNC || e.pos != len)
                fail_msg("'%.*s' (prefix of %s): rc %d at byte %zu, want truncated at %zu",
                         (int)len, r->in, r->why, rc, e.pos, len);
            check_all(r->in, len, 0, NULL, "a truncation");
        }
    }
}

static void test_api(void **state)
{
    (void)state;
    hb_rfc3339_time t;
    assert_int_equal(hb_rfc3339_parse(NULL, 0, &t, NULL), HB_ETRUNC);
    assert_int_equal(hb_rfc3339_parse(NULL, 5, &t, NULL), HB_EINVAL);
    assert_int_equal(hb_rfc3339_parse("x", 1, NULL, NULL), HB_EINVAL);
    for (int r = 0; r < HB_RFC3339_R_COUNT; r++) {
        const char *s = hb_rfc3339_rule_str(r);
        assert_non_null(s);
        assert_string_not_equal(s, "unknown rule");
    }
    assert_string_equal(hb_rfc3339_rule_str(-1), "unknown rule");
    assert_string_equal(hb_rfc3339_rule_str(HB_RFC3339_R_COUNT), "unknown rule");
    assert_null(hb_rfc3339_find(NULL));
    assert_null(hb_rfc3339_find("nope"));
    static const char *const names[] = {"int64-binary", "millis-parse", "millis-strtoll",
                                        "strptime",     "sscanf",       "scalar",
                                        "swar",         "simd"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const hb_rfc3339_strategy *s = hb_rfc3339_find(names[i]);
        assert_non_null(s);
        assert_string_equal(s->name, names[i]);
        assert_non_null(s->parse);
        assert_non_null(s->batch);
        assert_non_null(s->desc);
    }
    const char *level = hb_rfc3339_simd_level();
    assert_true(strcmp(level, "avx2") == 0 || strcmp(level, "sse4.1") == 0 ||
                strcmp(level, "scalar") == 0);
}

/* ---- the integer workaround
 * ----------------------------------------------------------------------- */

typedef struct millis_row {
    const char *in;
    int ok;
    int64_t seconds;
    int32_t nanos;
    const char *why;
} millis_row;

static const millis_row millis_rows[] = {
    {"0", 1, 0, 0, "zero"},
    {"1614834367123", 1, 1614834367, 123000000, "the wire example"},
    {"-1", 1, -1, 999000000, "one ms before the epoch: seconds rounded down"},
    {"-1000", 1, -1, 0, "one second before"},
    {"-1001", 1, -2, 999000000, "1001 ms before"},
    {"-62135596800000", 1, -62135596800, 0, "the minimum"},
    {"253402300799999", 1, 253402300799, 999000000, "the maximum"},
    {"007", 1, 0, 7000000, "leading zeros"},
    {"0000000000000000001", 1, 0, 1000000, "19 characters, leading zeros"},
    {"00000000000000000001", 1, 0, 1000000, "20 characters, the same value"},
    {"-00000000000000000001000", 1, -1, 0, "a sign, then leading zeros"},
    {"000", 1, 0, 0, "zeros alone"},
    {"-62135596800001", 0, 0, 0, "below the minimum"},
    {"253402300800000", 0, 0, 0, "above the maximum"},
    {"", 0, 0, 0, "empty"},
    {"-", 0, 0, 0, "a sign alone"},
    {"12a", 0, 0, 0, "a letter"},
    {"1.5", 0, 0, 0, "a point"},
    {"99999999999999999999", 0, 0, 0, "20 digits"},
    {"9223372036854775808", 0, 0, 0, "2^63"},
    {"--1", 0, 0, 0, "two signs"},
};

static void test_millis(void **state)
{
    (void)state;
    const hb_rfc3339_strategy *mp = hb_rfc3339_find("millis-parse");
    const hb_rfc3339_strategy *ms = hb_rfc3339_find("millis-strtoll");
    const hb_rfc3339_strategy *bin = hb_rfc3339_find("int64-binary");
    assert_non_null(mp);
    assert_non_null(ms);
    assert_non_null(bin);
    for (size_t i = 0; i < sizeof millis_rows / sizeof *millis_rows; i++) {
        const millis_row *r = &millis_rows[i];
        size_t len = strlen(r->in);
        for (int k = 0; k < 2; k++) {
            const hb_rfc3339_strategy *st = k ? ms : mp;
            if (st == ms && !r->ok)
                continue; /* strtoll is not validating */
            hb_rfc3339_time t = {7, 7};
            int rc = st->parse(flush(r->in, len, 0), len, &t);
            if (r->ok && (rc != HB_OK || t.seconds != r->seconds || t.nanos != r->nanos))
                fail_msg("%s: %s '%s': rc %d {%lld, %d}", r->why, st->name, r->in, rc,
                         (long long)t.seconds, t.nanos);
            if (!r->ok && rc == HB_OK)
                fail_msg("%s: %s accepts '%s'", r->why, st->name, r->in);
        }
        if (r->ok) {
            int64_t v = r->seconds * 1000 + r->nanos / 1000000;
            hb_rfc3339_time t;
            assert_int_equal(bin->parse(flush((const char *)&v, 8, 0), 8, &t), HB_OK);
            assert_int_equal(t.seconds, r->seconds);
            assert_int_equal(t.nanos, r->nanos);
            assert_int_equal(hb_rfc3339_to_millis(&t), v);
        }
    }
    int64_t v = 0;
    hb_rfc3339_time t;
    assert_true(bin->parse((const char *)&v, 7, &t) < 0);
}

/* ---- civil dates
 * ------------------------------------------------------------------------------------ */

/* Walks every day from 0000-01-01 to 9999-12-31: hb_days_from_civil advances by one per day,
 * 1970-01-01 is day 0; each hb_days_strategies row agrees (timegm on a sample). */
static void test_days(void **state)
{
    (void)state;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t expect = hb_days_from_civil(0, 1, 1);
    assert_int_equal(hb_days_from_civil(1970, 1, 1), 0);
    assert_int_equal(hb_days_from_civil(1, 1, 1), -719162);
    assert_int_equal(hb_days_from_civil(9999, 12, 31), 2932896);
    uint64_t step = 0;
    for (uint32_t y = 0; y <= 9999; y++) {
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for (uint32_t m = 1; m <= 12; m++) {
            int last = mdays[m - 1] + (m == 2 && leap);
            for (uint32_t d = 1; d <= (uint32_t)last; d++, expect++, step++) {
                int64_t got = hb_days_from_civil(y, m, d);
                if (got != expect)
                    fail_msg("%04u-%02u-%02u: %lld, want %lld", y, m, d, (long long)got,
                             (long long)expect);
                if (y == 0)
                    continue;
                for (size_t k = 0; k < hb_days_strategy_count; k++) {
                    const hb_days_strategy *ds = &hb_days_strategies[k];
                    if (strcmp(ds->name, "timegm") == 0 && step % 97 != 0)
                        continue;
                    if (ds->days(y, m, d) != expect)
                        fail_msg("%s: %04u-%02u-%02u: %lld, want %lld", ds->name, y, m, d,
                                 (long long)ds->days(y, m, d), (long long)expect);
                }
                int32_t gy;
                uint32_t gm, gd;
                hb_ts_civil_from_days(expect, &gy, &gm, &gd);
                if ((uint32_t)gy != y || gm != m || gd != d)
                    fail_msg("civil_from_days(%lld) = %04d-%02u-%02u, want %04u-%02u-%02u",
                             (long long)expect, gy, gm, gd, y, m, d);
            }
        }
    }
    hb_civil_date dates[3] = {{1970, 1, 1}, {2000, 3, 1}, {1, 1, 1}};
    for (size_t k = 0; k < hb_days_strategy_count; k++)
        assert_int_equal((int64_t)hb_days_strategies[k].sum(dates, 3), 0 + 11017 - 719162);
}

/* ---- random strings
 * ------------------------------------------------------------------------------- */

/* A random string of the grammar (any year 0000-9999, any case, any fraction length, any offset)
 * and its instant by libc: timegm of the local time minus the offset. *in_range tells whether
 * the instant is in the TIMESTAMP range. Returns the length. */
static size_t random_valid(uint64_t *rs, char *s, hb_rfc3339_time *want, int *in_range)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    uint64_t r = hb_splitmix64(rs), r2 = hb_splitmix64(rs);
    int y = (int)(r % 10000), m = (int)((r >> 16) % 12) + 1;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    int d = (int)((r >> 24) % (uint64_t)(mdays[m - 1] + (m == 2 && leap))) + 1;
    int hh = (int)((r >> 32) % 24), mi = (int)((r >> 40) % 60), se = (int)((r >> 48) % 60);
    int digits = (int)(r2 % 10);
    int off_kind = (int)((r2 >> 8) % 8); /* 0-3 Z, 4 z, 5-7 numeric */
    int oh = (int)((r2 >> 16) % 24), om = (int)((r2 >> 24) % 60);
    int neg = (int)(r2 >> 32) & 1, lower_t = ((r2 >> 33) & 7) == 0;
    uint32_t frac = (uint32_t)((r2 >> 34) % 1000000000u);
    size_t n = (size_t)sprintf(s, "%04d-%02d-%02d%c%02d:%02d:%02d", y, m, d, lower_t ? 't' : 'T',
                               hh, mi, se);
    int32_t nanos = 0;
    if (digits) {
        char f[16];
        sprintf(f, "%09u", frac);
        s[n++] = '.';
        memcpy(s + n, f, (size_t)digits);
        n += (size_t)digits;
        int32_t scale = 1;
        for (int k = digits; k < 9; k++)
            scale *= 10;
        nanos = (int32_t)(frac / (uint32_t)scale) * scale;
    }
    int32_t offset = 0;
    if (off_kind < 5) {
        s[n++] = off_kind == 4 ? 'z' : 'Z';
    } else {
        n += (size_t)sprintf(s + n, "%c%02d:%02d", neg ? '-' : '+', oh, om);
        offset = (neg ? -1 : 1) * (oh * 3600 + om * 60);
    }
    s[n] = '\0';
    struct tm tm = {.tm_year = y - 1900,
                    .tm_mon = m - 1,
                    .tm_mday = d,
                    .tm_hour = hh,
                    .tm_min = mi,
                    .tm_sec = se};
    want->seconds = (int64_t)timegm(&tm) - offset;
    want->nanos = nanos;
    *in_range = want->seconds >= HB_RFC3339_MIN_SECONDS && want->seconds <= HB_RFC3339_MAX_SECONDS;
    return n;
}

/* Compares every fast validating strategy with the reference on s. */
static void differential(const char *s, size_t len, const char *what)
{
    hb_rfc3339_time ref = {0, 0};
    int ref_rc = hb_rfc3339_parse(flush(s, len, 0), len, &ref, NULL);
    for (size_t k = 0; k < n_text; k++) {
        const hb_rfc3339_strategy *st = text_strategies[k];
        if (!is_fast(st))
            continue;
        for (int at_start = 0; at_start < 2; at_start++) {
            hb_rfc3339_time t = {0, 0};
            int rc = st->parse(flush(s, len, at_start), len, &t);
            if ((rc == HB_OK) != (ref_rc == HB_OK) ||
                (rc == HB_OK && (t.seconds != ref.seconds || t.nanos != ref.nanos)))
                fail_msg("%s '%.*s': %s gives rc %d {%lld, %d}, the reference rc %d {%lld, %d}",
                         what, (int)len, s, st->name, rc, (long long)t.seconds, t.nanos, ref_rc,
                         (long long)ref.seconds, ref.nanos);
        }
    }
}

/* Every year 0000-9999, every month: the first day, the last, the one after it and day 00, at
 * midnight UTC and with the largest offsets either way, give every fast strategy the reference's
 * answer (the simd kernel finds the day in a table of years: this covers every entry, the leap
 * rule, and the instant range at 0001-01-01 and 9999-12-31). */
static void test_every_year(void **state)
{
    (void)state;
    find_strategies();
    static const char *const tails[] = {"Z", "+23:59", "-23:59"};
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    for (int y = 0; y <= 9999; y++) {
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for (int m = 1; m <= 12; m++) {
            int last = mdays[m - 1] + (m == 2 && leap), days[4] = {0, 1, last, last + 1};
            for (int d = 0; d < 4; d++) {
                for (size_t t = 0; t < 3; t++) {
                    if (t && !(y <= 1 || y >= 9999 || (m == 1 && d == 1)))
                        continue; /* offsets where the range or the year boundary is near */
                    char s[40];
                    int n =
                        snprintf(s, sizeof s, "%04d-%02d-%02dT00:00:00%s", y, m, days[d], tails[t]);
                    differential(s, (size_t)n, "every year");
                }
            }
        }
    }
}

static void test_random_valid(void **state)
{
    (void)state;
    find_strategies();
    uint64_t rs = 20210304;
    char s[64];
    for (int i = 0; i < RANDOM_VALID; i++) {
        hb_rfc3339_time want, t;
        int in_range;
        size_t len = random_valid(&rs, s, &want, &in_range);
        hb_rfc3339_error e;
        int rc = hb_rfc3339_parse(flush(s, len, 0), len, &t, &e);
        if (in_range && (rc != HB_OK || t.seconds != want.seconds || t.nanos != want.nanos))
            fail_msg("'%s': rc %d {%lld, %d}, timegm says {%lld, %d}", s, rc, (long long)t.seconds,
                     t.nanos, (long long)want.seconds, want.nanos);
        if (!in_range && (rc != HB_ERANGE || e.rule != HB_RFC3339_R_INSTANT_RANGE))
            fail_msg("'%s' out of range: rc %d rule %d", s, rc, e.rule);
        differential(s, len, "random valid");
    }
}

/* Applies 1 to 3 random edits to s[0, *len) (replace, delete, insert, truncate, swap; at most
 * 60 bytes, s holds 80). */
static void mutate(uint64_t *rs, char *s, size_t *plen)
{
    static const char alphabet[] = "0123456789-:.TtZz+ ,/\x7f\x80\xff\0";
    size_t len = *plen;
    int edits = 1 + (int)(hb_splitmix64(rs) % 3);
    for (int k = 0; k < edits; k++) {
        uint64_t x = hb_splitmix64(rs);
        size_t at = len ? (size_t)(x >> 8) % len : 0;
        char ch =
            (x >> 40) % 4 == 0 ? (char)(x >> 48) : alphabet[(x >> 32) % (sizeof alphabet - 1)];
        switch (x % 5) {
        case 0:
            if (len)
                s[at] = ch;
            break;
        case 1:
            if (len) {
                memmove(s + at, s + at + 1, len - at - 1);
                len--;
            }
            break;
        case 2:
            if (len < 60) {
                memmove(s + at + 1, s + at, len - at);
                s[at] = ch;
                len++;
            }
            break;
        case 3:
            len = at;
            break;
        default: /* swap two bytes */
            if (len > 1) {
                size_t b = (size_t)(x >> 16) % len;
                char tmp = s[at];
                s[at] = s[b];
                s[b] = tmp;
            }
            break;
        }
    }
    *plen = len;
}

static void test_random_mutations(void **state)
{
    (void)state;
    find_strategies();
    uint64_t rs = 42;
    char s[80];
    size_t accepted = 0;
    for (int i = 0; i < RANDOM_MUTANTS; i++) {
        hb_rfc3339_time want;
        int in_range;
        size_t len = random_valid(&rs, s, &want, &in_range);
        mutate(&rs, s, &len);
        hb_rfc3339_time t;
        accepted += hb_rfc3339_parse(s, len, &t, NULL) == HB_OK;
        differential(s, len, "mutation");
    }
    /* the mutations exercise both answers */
    assert_true(accepted > RANDOM_MUTANTS / 50);
    assert_true(accepted < RANDOM_MUTANTS / 2);
}

/* Every byte value at every position of strings near the edges of the grammar and of the range
 * (the sign, the last byte, the separators, years 0000/0001/9999 with offsets): every fast
 * strategy gives the reference's answer. */
static void test_every_byte_everywhere(void **state)
{
    (void)state;
    find_strategies();
    static const char *const bases[] = {
        "2021-03-04T05:06:07Z",        "2021-03-04T05:06:07.123456789+05:30",
        "0001-01-01T00:00:00+00:01",   "9999-12-31T23:59:59.9-00:01",
        "0000-12-31T23:59:59-00:01",   "2024-02-29T23:59:59.123-23:59",
        "1969-12-31T23:59:59.999999Z", "2021-03-04t05:06:07.12z",
    };
    for (size_t b = 0; b < sizeof bases / sizeof *bases; b++) {
        char s[40];
        size_t len = strlen(bases[b]);
        for (size_t at = 0; at < len; at++) {
            for (int v = 0; v < 256; v++) {
                memcpy(s, bases[b], len);
                s[at] = (char)v;
                differential(s, len, "every byte");
            }
        }
    }
}

/* Rows of one batch: random valid strings and mutations of them, packed back to back as a result
 * set's column (the last flush against the guard page, or the first at the start of the page). */
#define BATCH_ROWS 64
#define BATCH_ROUNDS 4000

/* Packs BATCH_ROWS strings into buf (at most one page), their spans into spans. */
static size_t batch_fill(uint64_t *rs, char *buf, size_t cap, hb_rfc3339_span *spans)
{
    size_t used = 0;
    for (size_t i = 0; i < BATCH_ROWS; i++) {
        char s[80];
        hb_rfc3339_time want;
        int in_range;
        size_t len = random_valid(rs, s, &want, &in_range);
        uint64_t pick = hb_splitmix64(rs) % 4;
        if (pick == 0)
            mutate(rs, s, &len);
        assert_true(used + len <= cap);
        memcpy(buf + used, s, len);
        spans[i].off = (uint32_t)used;
        spans[i].len = (uint32_t)len;
        used += len;
    }
    return used;
}

/* Every validating batch entry point (the dispatching simd one included) on mixed columns: per
 * row the reference's value or the rejection markers, and the count of rejections. */
static void test_batch_differential(void **state)
{
    (void)state;
    find_strategies();
    uint64_t rs = 7;
    static char buf[BATCH_ROWS * 64];
    hb_rfc3339_span spans[BATCH_ROWS];
    hb_rfc3339_time want[BATCH_ROWS], out[BATCH_ROWS];
    assert_true(sizeof buf <= g_guard.page);
    for (int round = 0; round < BATCH_ROUNDS; round++) {
        size_t used = batch_fill(&rs, buf, sizeof buf, spans);
        size_t want_bad = 0;
        for (size_t i = 0; i < BATCH_ROWS; i++) {
            if (hb_rfc3339_parse(buf + spans[i].off, spans[i].len, &want[i], NULL) != HB_OK) {
                want[i].seconds = HB_RFC3339_BAD_SECONDS;
                want[i].nanos = HB_RFC3339_BAD_NANOS;
                want_bad++;
            }
        }
        const char *base = flush(buf, used, round & 1);
        for (size_t k = 0; k < n_text; k++) {
            const hb_rfc3339_strategy *st = text_strategies[k];
            if (!st->validating)
                continue;
            memset(out, 0xa5, sizeof out);
            size_t bad = st->batch(base, spans, BATCH_ROWS, out);
            if (bad != want_bad)
                fail_msg("round %d: %s rejects %zu rows, the reference %zu", round, st->name, bad,
                         want_bad);
            for (size_t i = 0; i < BATCH_ROWS; i++)
                if (out[i].seconds != want[i].seconds || out[i].nanos != want[i].nanos)
                    fail_msg("round %d: %s row %zu '%.*s': {%lld, %d}, the reference {%lld, %d}",
                             round, st->name, i, (int)spans[i].len, buf + spans[i].off,
                             (long long)out[i].seconds, out[i].nanos, (long long)want[i].seconds,
                             want[i].nanos);
        }
    }
}

/* ---- batches in groups of 8: the AVX2 batch's vertical kernel ------------------------------
 *
 * The AVX2 batch parses 8 rows at a time (SSE4.1: 4) and sends a whole group to the one-row
 * kernel when it rejects any row in it. These tests build columns where most groups are valid,
 * with mixed layouts (fraction lengths 0-9, 'Z', 'z', offsets, 'T', 't'), and single bad, leap-day
 * or edge-year rows in every lane; every validating batch is compared row by row with the
 * reference, at every start offset mod 8 (so each row meets every lane and the remainder loop). */

/* Every validating text strategy's batch of spans[0, n) over base against want (the reference's
 * values, HB_RFC3339_BAD_* where it rejects) and the number it rejects. */
static void batch_agree(const char *base, const hb_rfc3339_span *spans, size_t n,
                        const hb_rfc3339_time *want, hb_rfc3339_time *out, const char *what)
{
    size_t want_bad = 0;
    for (size_t i = 0; i < n; i++)
        want_bad += want[i].seconds == HB_RFC3339_BAD_SECONDS;
    for (size_t k = 0; k < n_text; k++) {
        const hb_rfc3339_strategy *st = text_strategies[k];
        if (!st->validating)
            continue;
        memset(out, 0xa5, n * sizeof *out);
        size_t bad = st->batch(base, spans, n, out);
        if (bad != want_bad)
            fail_msg("%s: %s rejects %zu of %zu rows, the reference %zu", what, st->name, bad, n,
                     want_bad);
        for (size_t i = 0; i < n; i++)
            if (out[i].seconds != want[i].seconds || out[i].nanos != want[i].nanos)
                fail_msg("%s: %s row %zu of %zu '%.*s': {%lld, %d}, the reference {%lld, %d}", what,
                         st->name, i, n, (int)spans[i].len, base + spans[i].off,
                         (long long)out[i].seconds, out[i].nanos, (long long)want[i].seconds,
                         want[i].nanos);
    }
}

/* The reference's answers for a column (HB_RFC3339_BAD_* where it rejects). */
static void batch_reference(const char *base, const hb_rfc3339_span *spans, size_t n,
                            hb_rfc3339_time *want)
{
    for (size_t i = 0; i < n; i++)
        if (hb_rfc3339_parse(base + spans[i].off, spans[i].len, &want[i], NULL) != HB_OK) {
            want[i].seconds = HB_RFC3339_BAD_SECONDS;
            want[i].nanos = HB_RFC3339_BAD_NANOS;
        }
}

/* A growing column: the text and its spans. */
typedef struct column {
    char *text;
    hb_rfc3339_span *spans;
    size_t used, n, cap_text, cap_rows;
} column;

static void column_add(column *c, const char *s, size_t len)
{
    if (c->used + len > c->cap_text) {
        c->cap_text = 2 * (c->used + len) + 4096;
        c->text = realloc(c->text, c->cap_text);
        assert_non_null(c->text);
    }
    if (c->n == c->cap_rows) {
        c->cap_rows = 2 * c->n + 256;
        c->spans = realloc(c->spans, c->cap_rows * sizeof *c->spans);
        assert_non_null(c->spans);
    }
    memcpy(c->text + c->used, s, len);
    c->spans[c->n].off = (uint32_t)c->used;
    c->spans[c->n].len = (uint32_t)len;
    c->used += len;
    c->n++;
}

/* The whole column, its last byte against a PROT_NONE page, through every validating batch
 * starting at rows 0 to 7 (and ending at n and n - 1..7), against the reference. */
static void column_check(const column *c, const char *what)
{
    size_t page = g_guard.page, size = (c->used + page - 1) / page * page;
    uint8_t *map =
        mmap(NULL, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    assert_int_equal(mprotect(map + size, page, PROT_NONE), 0);
    char *base = (char *)map + size - c->used;
    memcpy(base, c->text, c->used);
    hb_rfc3339_time *want = malloc((c->n + 1) * sizeof *want);
    hb_rfc3339_time *out = malloc((c->n + 1) * sizeof *out);
    assert_true(want && out);
    batch_reference(base, c->spans, c->n, want);
    for (size_t shift = 0; shift < 8 && shift < c->n; shift++) {
        char why[96];
        snprintf(why, sizeof why, "%s, from row %zu", what, shift);
        batch_agree(base, c->spans + shift, c->n - shift, want + shift, out, why);
        snprintf(why, sizeof why, "%s, rows 0 to n - %zu", what, shift + 1);
        batch_agree(base, c->spans, c->n - shift - 1, want, out, why);
    }
    free(want);
    free(out);
    munmap(map, size + page);
    free(c->text);
    free(c->spans);
}

/* Tails of every layout the vertical kernel meets: fractions of 0-9 digits, 'Z', 'z', offsets
 * either way up to 23:59, "-00:00". */
static const char *const batch_tails[] = {
    "Z",
    "z",
    "+23:59",
    ".1Z",
    ".12-00:00",
    ".123+05:30",
    ".1234z",
    ".12345-23:59",
    ".123456Z",
    ".1234567+00:01",
    ".12345678Z",
    ".123456789Z",
    ".987654321-12:45",
    ".000000001+14:00",
    ".5-23:59",
    ".999999999z",
};
#define N_BATCH_TAILS (sizeof batch_tails / sizeof *batch_tails)

/* Every year 0000-9999 and month, through the batches: per month 8 rows of valid days (first,
 * last, between, at varied times and tails), and in one month of three one of them replaced by
 * day 00 or the day after the last, so the kernel's date arithmetic meets every year and month in
 * every lane and its checks catch a bad day in every lane. */
static void test_batch_every_year(void **state)
{
    (void)state;
    find_strategies();
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    column c = {0};
    size_t row = 0;
    for (int y = 0; y <= 9999; y++) {
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for (int m = 1; m <= 12; m++) {
            int last = mdays[m - 1] + (m == 2 && leap);
            int days[8] = {1, 2, 10, 15, 27, 28, last - 1, last};
            int ym = y * 12 + m;
            if (ym % 3 == 0)
                days[ym / 3 % 8] = ym % 2 ? 0 : last + 1;
            for (int k = 0; k < 8; k++, row++) {
                char s[48];
                int n = snprintf(s, sizeof s, "%04d-%02d-%02d%c%02d:%02d:%02d%s", y, m, days[k],
                                 row % 5 ? 'T' : 't', (int)(row % 24), (int)(row * 7 % 60),
                                 (int)(row * 13 % 60), batch_tails[row % N_BATCH_TAILS]);
                column_add(&c, s, (size_t)n);
            }
        }
    }
    column_check(&c, "every year");
}

/* Random valid rows of every layout, and one row in 40 a mutation of one, through the batches. */
static void test_batch_mixed_layouts(void **state)
{
    (void)state;
    find_strategies();
    uint64_t rs = 33;
    column c = {0};
    for (int i = 0; i < 200000; i++) {
        char s[80];
        hb_rfc3339_time want;
        int in_range;
        size_t len = random_valid(&rs, s, &want, &in_range);
        if (hb_splitmix64(&rs) % 40 == 0)
            mutate(&rs, s, &len);
        column_add(&c, s, len);
    }
    column_check(&c, "mixed layouts");
}

/* Valid rows of mixed layouts, none near the edges of the range, as fillers of a group. */
static const char *const batch_fillers[] = {
    "2021-03-04T05:06:07Z",          "1970-01-01T00:00:00.1+00:00",
    "2024-02-28t23:59:59.12z",       "1969-12-31T23:59:59.999-01:00",
    "0002-01-01T00:00:00.1234Z",     "9998-12-31T23:59:59+23:59",
    "2000-02-29T12:00:00.123456Z",   "1600-03-01T00:00:00.1234567-23:59",
    "2100-02-28T08:30:00.12345678Z", "2021-12-31T23:59:59.123456789+05:30",
};
#define N_BATCH_FILLERS (sizeof batch_fillers / sizeof *batch_fillers)

/* One candidate row in lane (idx mod 8) of a group of valid fillers, then a short remainder: the
 * batches give the reference's answer for every row (a bad candidate must not be accepted by the
 * vertical checks, a good one must get its value). */
static void batch_lone(const char *s, size_t len, size_t idx)
{
    char buf[16 * 64];
    hb_rfc3339_span spans[13];
    hb_rfc3339_time want[13], out[13];
    size_t used = 0, lane = idx % 8;
    for (size_t i = 0; i < 13; i++) {
        const char *r = i == lane ? s : batch_fillers[(idx + i) % N_BATCH_FILLERS];
        size_t n = i == lane ? len : strlen(r);
        memcpy(buf + used, r, n);
        spans[i].off = (uint32_t)used;
        spans[i].len = (uint32_t)n;
        used += n;
    }
    const char *base = flush(buf, used, (int)(idx / 8 % 2));
    batch_reference(base, spans, 13, want);
    batch_agree(base, spans, 13, want, out, "lone row");
}

/* Every byte value at every position of strings near the edges (as test_every_byte_everywhere),
 * the leap days, the edge years, and random mutations, each alone among valid rows. */
static void test_batch_lone_rows(void **state)
{
    (void)state;
    find_strategies();
    static const char *const bases[] = {
        "2021-03-04T05:06:07Z",
        "2021-03-04T05:06:07.123456789+05:30",
        "0001-01-01T00:00:00+00:01",
        "9999-12-31T23:59:59.9-00:01",
        "0000-12-31T23:59:59-00:01",
        "2024-02-29T23:59:59.123-23:59",
        "1969-12-31T23:59:59.999999Z",
        "2021-03-04t05:06:07.12z",
        "2023-02-29T00:00:00Z",
        "1900-02-29T00:00:00.1Z",
        "2000-02-29T00:00:00.12345+01:00",
        "0002-01-01T00:00:00+23:59",
        "9998-12-31T23:59:59-23:59",
        "2021-13-01T00:00:00Z",
        "2021-04-31T00:00:00Z",
        "2021-03-04T24:00:00Z",
        "2021-03-04T05:60:00Z",
        "2021-03-04T05:06:60Z",
        "2021-03-04T05:06:07+24:00",
        "2021-03-04T05:06:07-05:60",
        "2021-03-04T05:06:07,05:00",
        "2021-03-04T05:06:07.Z",
        /* one second either side of each end of the range, through an offset */
        "9999-12-31T23:59:00-00:01",
        "9999-12-31T23:58:59-00:01",
        "0001-01-01T00:00:59+00:01",
        "0001-01-01T00:01:00+00:01",
    };
    size_t idx = 0;
    for (size_t b = 0; b < sizeof bases / sizeof *bases; b++) {
        char s[40];
        size_t len = strlen(bases[b]);
        batch_lone(bases[b], len, idx++);
        for (size_t at = 0; at < len; at++) {
            for (int v = 0; v < 256; v++) {
                memcpy(s, bases[b], len);
                s[at] = (char)v;
                batch_lone(s, len, idx++);
            }
        }
    }
    uint64_t rs = 99;
    for (int i = 0; i < RANDOM_MUTANTS / 4; i++) {
        char s[80];
        hb_rfc3339_time want;
        int in_range;
        size_t len = random_valid(&rs, s, &want, &in_range);
        if (i % 4)
            mutate(&rs, s, &len);
        batch_lone(s, len, idx++);
    }
}

/* The generator's strings (what the benchmark parses): every strategy, the slow ones included,
 * gives the generator's own instant. */
static void test_generated(void **state)
{
    (void)state;
    find_strategies();
    static const int fractions[] = {HB_TS_FRACTION_MIXED, 0, 3, 6, 9};
    static const int offsets[] = {HB_TS_OFFSETS_MIXED, HB_TS_OFFSETS_Z, HB_TS_OFFSETS_NUMERIC};
    for (size_t fi = 0; fi < 5; fi++) {
        for (size_t oi = 0; oi < 3; oi++) {
            hb_ts_params p;
            hb_ts_params_default(&p);
            p.fraction = fractions[fi];
            p.offsets = offsets[oi];
            for (uint64_t j = 0; j < 4000; j++) {
                hb_ts_value v;
                char s[HB_TS_TEXT_MAX + 1], m[HB_TS_MILLIS_MAX + 1];
                hb_ts_value_at(&p, j, &v);
                size_t len = hb_ts_format_rfc3339(&v, s);
                size_t mlen = hb_ts_format_millis(&v, m);
                for (size_t k = 0; k < n_text; k++) {
                    hb_rfc3339_time t = {0, 0};
                    int rc = text_strategies[k]->parse(flush(s, len, 0), len, &t);
                    if (rc != HB_OK || t.seconds != v.seconds || t.nanos != v.nanos)
                        fail_msg("%s '%.*s': rc %d {%lld, %d}, generated {%lld, %d}",
                                 text_strategies[k]->name, (int)len, s, rc, (long long)t.seconds,
                                 t.nanos, (long long)v.seconds, v.nanos);
                }
                hb_rfc3339_time t;
                assert_int_equal(hb_rfc3339_find("millis-parse")->parse(m, mlen, &t), HB_OK);
                assert_int_equal(t.seconds, v.seconds);
                assert_int_equal(t.nanos, v.nanos - v.nanos % 1000000);
            }
        }
    }
}

/* The batch entry points give what the single-value ones give, rejections included. */
static void test_batches(void **state)
{
    (void)state;
    find_strategies();
    const char *strs[] = {"2021-03-04T05:06:07.123Z", "bad", "1970-01-01T00:00:00+01:00",
                          "2021-02-29T00:00:00Z", "0001-01-01T00:00:00Z"};
    char buf[256];
    hb_rfc3339_span spans[5];
    size_t used = 0;
    for (size_t i = 0; i < 5; i++) {
        size_t n = strlen(strs[i]);
        memcpy(buf + used, strs[i], n);
        spans[i].off = (uint32_t)used;
        spans[i].len = (uint32_t)n;
        used += n;
    }
    const char *base = flush(buf, used, 0);
    for (size_t k = 0; k < n_text; k++) {
        const hb_rfc3339_strategy *st = text_strategies[k];
        hb_rfc3339_time out[5];
        memset(out, 0xa5, sizeof out);
        size_t bad = st->batch(base, spans, 5, out);
        if (!st->validating)
            continue;
        assert_int_equal(bad, 2);
        for (size_t i = 0; i < 5; i++) {
            hb_rfc3339_time t;
            if (hb_rfc3339_parse(strs[i], strlen(strs[i]), &t, NULL) == HB_OK) {
                assert_int_equal(out[i].seconds, t.seconds);
                assert_int_equal(out[i].nanos, t.nanos);
            } else {
                assert_int_equal(out[i].seconds, HB_RFC3339_BAD_SECONDS);
                assert_int_equal(out[i].nanos, HB_RFC3339_BAD_NANOS);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_month_lengths),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_millis),
        cmocka_unit_test(test_days),
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_batches),
        cmocka_unit_test(test_every_year),
        cmocka_unit_test(test_random_valid),
        cmocka_unit_test(test_random_mutations),
        cmocka_unit_test(test_every_byte_everywhere),
        cmocka_unit_test(test_batch_differential),
        cmocka_unit_test(test_batch_every_year),
        cmocka_unit_test(test_batch_mixed_layouts),
        cmocka_unit_test(test_batch_lone_rows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

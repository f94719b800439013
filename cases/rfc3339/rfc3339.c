/* rfc3339.c - the reference parser, the portable strategies and the registry.
 *
 * Strategies (hb_rfc3339_strategies, in presentation order):
 *   int64-binary    the floor: the milliseconds as 8 little-endian bytes
 *   millis-parse    UNIX_MILLIS as a decimal string, a validating digit loop
 *   millis-strtoll  the same through libc strtoll
 *   strptime        libc strptime + timegm, fraction and offset by hand
 *   sscanf          libc sscanf of the fields, fraction and offset by hand
 *   scalar          the reference: fixed layout, one field after the other, exact diagnostics
 *   swar            eight bytes at a time in 64-bit words: the layout checked and the digits
 *                   converted with a few multiplications per word
 *   simd            SSE4.1 or AVX2 chosen at run time (rfc3339_sse41.c, rfc3339_avx2.c), the
 *                   swar code on other CPUs; simd-sse4.1 and simd-avx2 name a level explicitly.
 *                   The batches parse 8 (AVX2) or 4 (SSE4.1) rows at a time, fields
 *                   transposed across rows (rfc3339_vert.h); single values, and the rows a
 *                   group declines, go through the one-row kernel (rfc3339_simd.h)
 */
#include "rfc3339_impl.h"
#include "hb_testhook.h" /* TEST-ONLY injections (HB_TEST_HOOKS builds) */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the reference ------------------------------------------------------------------------- */

static const char *const hb_rule_text[HB_RFC3339_R_COUNT] = {
    [HB_RFC3339_R_NONE] = "no error",
    [HB_RFC3339_R_YEAR] = "date-fullyear: expected 4 digits",
    [HB_RFC3339_R_DATE_SEP] = "full-date: expected '-'",
    [HB_RFC3339_R_MONTH] = "date-month: expected 2 digits",
    [HB_RFC3339_R_MONTH_RANGE] = "date-month: expected 01 to 12",
    [HB_RFC3339_R_MDAY] = "date-mday: expected 2 digits",
    [HB_RFC3339_R_MDAY_RANGE] = "date-mday: no such day in that month",
    [HB_RFC3339_R_T] = "date-time: expected 'T' between date and time",
    [HB_RFC3339_R_HOUR] = "time-hour: expected 2 digits",
    [HB_RFC3339_R_HOUR_RANGE] = "time-hour: expected 00 to 23",
    [HB_RFC3339_R_TIME_SEP] = "partial-time: expected ':'",
    [HB_RFC3339_R_MINUTE] = "time-minute: expected 2 digits",
    [HB_RFC3339_R_MINUTE_RANGE] = "time-minute: expected 00 to 59",
    [HB_RFC3339_R_SECOND] = "time-second: expected 2 digits",
    [HB_RFC3339_R_SECOND_RANGE] = "time-second: expected 00 to 59 (no leap second)",
    [HB_RFC3339_R_SECFRAC] = "time-secfrac: expected a digit after '.'",
    [HB_RFC3339_R_SECFRAC_LONG] = "time-secfrac: more than 9 digits",
    [HB_RFC3339_R_OFFSET] = "time-offset: expected 'Z', '+' or '-'",
    [HB_RFC3339_R_OFFSET_HOUR] = "time-numoffset: expected 2 digits of hours",
    [HB_RFC3339_R_OFFSET_HOUR_RANGE] = "time-numoffset: hours expected 00 to 23",
    [HB_RFC3339_R_OFFSET_SEP] = "time-numoffset: expected ':'",
    [HB_RFC3339_R_OFFSET_MINUTE] = "time-numoffset: expected 2 digits of minutes",
    [HB_RFC3339_R_OFFSET_MINUTE_RANGE] = "time-numoffset: minutes expected 00 to 59",
    [HB_RFC3339_R_TRAILING] = "unexpected byte after time-offset",
    /* one message in two literals: the parentheses say so (clang's -Wstring-concatenation) */
    [HB_RFC3339_R_INSTANT_RANGE] = ("instant outside 0001-01-01T00:00:00Z to "
                                    "9999-12-31T23:59:59.999999999Z"),
};

const char *hb_rfc3339_rule_str(int rule)
{
    if (rule < 0 || rule >= HB_RFC3339_R_COUNT)
        return "unknown rule";
    return hb_rule_text[rule];
}

int hb_rfc3339_days_in_month(uint32_t year, uint32_t month)
{
    static const uint8_t mdays[13] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12)
        return 0;
    int leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    return mdays[month] + (month == 2 && leap);
}

/* The reference reads left to right; every step is one of these. They return HB_OK or the error
 * after filling *err. */
typedef struct hb_ts_cursor {
    const unsigned char *p;
    size_t len;
    size_t i;
    hb_rfc3339_error *err;
} hb_ts_cursor;

static int hb_ts_fail(hb_ts_cursor *c, int code, size_t pos, int rule)
{
    if (c->err) {
        c->err->pos = pos;
        c->err->rule = rule;
    }
    return code;
}

/* n digits as a number into *v. */
static inline int hb_ts_digits(hb_ts_cursor *c, int n, uint32_t *v, int rule)
{
    uint32_t x = 0;
    for (int k = 0; k < n; k++) {
        if (c->i == c->len)
            return hb_ts_fail(c, HB_ETRUNC, c->len, rule);
        uint32_t d = (uint32_t)c->p[c->i] - '0';
        if (d > 9)
            return hb_ts_fail(c, HB_EPARSE, c->i, rule);
        x = x * 10 + d;
        c->i++;
    }
    *v = x;
    return HB_OK;
}

/* The byte ch, or its lower case too when fold is set. */
static inline int hb_ts_byte(hb_ts_cursor *c, unsigned char ch, int fold, int rule)
{
    if (c->i == c->len)
        return hb_ts_fail(c, HB_ETRUNC, c->len, rule);
    unsigned char b = c->p[c->i];
    if (b != ch && !(fold && b == (ch | 0x20)))
        return hb_ts_fail(c, HB_EPARSE, c->i, rule);
    c->i++;
    return HB_OK;
}

/* A field read at pos must lie in [lo, hi]. */
static inline int hb_ts_range(hb_ts_cursor *c, uint32_t v, uint32_t lo, uint32_t hi, size_t pos,
                              int rule)
{
    if (v < lo || v > hi)
        return hb_ts_fail(c, HB_ERANGE, pos, rule);
    return HB_OK;
}

#define HB_TRY(expr)                                                                               \
    do {                                                                                           \
        int hb_rc_ = (expr);                                                                       \
        if (hb_rc_ != HB_OK)                                                                       \
            return hb_rc_;                                                                         \
    } while (0)

int hb_rfc3339_parse(const char *s, size_t len, hb_rfc3339_time *out, hb_rfc3339_error *err)
{
    if ((!s && len) || !out)
        return HB_EINVAL;
    hb_ts_cursor c = {(const unsigned char *)s, len, 0, err};
    uint32_t year, month, day, hour, minute, second, nanos = 0, oh = 0, om = 0;

    HB_TRY(hb_ts_digits(&c, 4, &year, HB_RFC3339_R_YEAR));
    HB_TRY(hb_ts_byte(&c, '-', 0, HB_RFC3339_R_DATE_SEP));
    HB_TRY(hb_ts_digits(&c, 2, &month, HB_RFC3339_R_MONTH));
    HB_TRY(hb_ts_range(&c, month, 1, 12, 5, HB_RFC3339_R_MONTH_RANGE));
    HB_TRY(hb_ts_byte(&c, '-', 0, HB_RFC3339_R_DATE_SEP));
    HB_TRY(hb_ts_digits(&c, 2, &day, HB_RFC3339_R_MDAY));
    HB_TRY(hb_ts_range(&c, day, 1, (uint32_t)hb_rfc3339_days_in_month(year, month), 8,
                       HB_RFC3339_R_MDAY_RANGE));
    HB_TRY(hb_ts_byte(&c, 'T', 1, HB_RFC3339_R_T));
    HB_TRY(hb_ts_digits(&c, 2, &hour, HB_RFC3339_R_HOUR));
    HB_TRY(hb_ts_range(&c, hour, 0, 23, 11, HB_RFC3339_R_HOUR_RANGE));
    HB_TRY(hb_ts_byte(&c, ':', 0, HB_RFC3339_R_TIME_SEP));
    HB_TRY(hb_ts_digits(&c, 2, &minute, HB_RFC3339_R_MINUTE));
    HB_TRY(hb_ts_range(&c, minute, 0, 59, 14, HB_RFC3339_R_MINUTE_RANGE));
    HB_TRY(hb_ts_byte(&c, ':', 0, HB_RFC3339_R_TIME_SEP));
    HB_TRY(hb_ts_digits(&c, 2, &second, HB_RFC3339_R_SECOND));
    HB_TRY(hb_ts_range(&c, second, 0, 59, 17, HB_RFC3339_R_SECOND_RANGE));

    /* time-secfrac: "." 1*9DIGIT, scaled to nanoseconds */
    if (c.i < len && c.p[c.i] == '.') {
        c.i++;
        uint32_t scale = 1000000000;
        while (c.i < len && (uint32_t)c.p[c.i] - '0' <= 9) {
            if (scale == 1)
                return hb_ts_fail(&c, HB_EPARSE, c.i, HB_RFC3339_R_SECFRAC_LONG);
            scale /= 10;
            nanos += ((uint32_t)c.p[c.i] - '0') * scale;
            c.i++;
        }
        if (scale == 1000000000)
            return hb_ts_fail(&c, c.i == len ? HB_ETRUNC : HB_EPARSE, c.i, HB_RFC3339_R_SECFRAC);
    }

    /* time-offset: "Z" / time-numoffset */
    if (c.i == len)
        return hb_ts_fail(&c, HB_ETRUNC, len, HB_RFC3339_R_OFFSET);
    size_t off_pos = c.i;
    int32_t sign = 0;
    unsigned char b = c.p[c.i];
    if (b == 'Z' || b == 'z') {
        c.i++;
    } else if (b == '+' || b == '-') {
        sign = b == '+' ? 1 : -1;
        c.i++;
        HB_TRY(hb_ts_digits(&c, 2, &oh, HB_RFC3339_R_OFFSET_HOUR));
        HB_TRY(hb_ts_range(&c, oh, 0, 23, off_pos + 1, HB_RFC3339_R_OFFSET_HOUR_RANGE));
        HB_TRY(hb_ts_byte(&c, ':', 0, HB_RFC3339_R_OFFSET_SEP));
        HB_TRY(hb_ts_digits(&c, 2, &om, HB_RFC3339_R_OFFSET_MINUTE));
        HB_TRY(hb_ts_range(&c, om, 0, 59, off_pos + 4, HB_RFC3339_R_OFFSET_MINUTE_RANGE));
    } else {
        return hb_ts_fail(&c, HB_EPARSE, c.i, HB_RFC3339_R_OFFSET);
    }
    if (c.i != len)
        return hb_ts_fail(&c, HB_EPARSE, c.i, HB_RFC3339_R_TRAILING);

    int64_t local = (int64_t)hb_days_from_civil(year, month, day) * 86400 +
                    (int64_t)(hour * 3600 + minute * 60 + second);
    int64_t secs = local - sign * (int32_t)(oh * 3600 + om * 60);
    if (secs < HB_RFC3339_MIN_SECONDS || secs > HB_RFC3339_MAX_SECONDS) {
        int local_ok = local >= HB_RFC3339_MIN_SECONDS && local <= HB_RFC3339_MAX_SECONDS;
        return hb_ts_fail(&c, HB_ERANGE, sign && local_ok ? off_pos : 0,
                          HB_RFC3339_R_INSTANT_RANGE);
    }
    out->seconds = secs;
    out->nanos = (int32_t)nanos;
    return HB_OK;
}

static int parse_scalar(const char *s, size_t len, hb_rfc3339_time *out)
{
    return hb_rfc3339_parse(s, len, out, NULL);
}

/* ---- swar ---------------------------------------------------------------------------------- */

#define HB_ONES UINT64_C(0x0101010101010101)

/* Nonzero unless every byte selected by dmask is an ASCII digit and every byte selected by smask
 * equals the same byte of seps (after or-ing orm, which folds 'T' to 't'). A byte 0x30-0x39 has
 * high nibble 3 both before and after adding 6. Carries out of a byte only happen from bytes
 * that fail a check anyway. */
static inline uint64_t hb_swar_bad(uint64_t w, uint64_t dmask, uint64_t smask, uint64_t seps,
                                   uint64_t orm)
{
    uint64_t hi = 0xF0 * HB_ONES, three = 0x30 * HB_ONES;
    return (((w & hi) ^ three) & dmask) | ((((w + 0x06 * HB_ONES) & hi) ^ three) & dmask) |
           (((w | orm) ^ seps) & smask);
}

/* Pairs of digit values: byte k becomes 10 * byte k + byte k+1 (no carries: bytes <= 15). */
static inline uint64_t hb_swar_pairs(uint64_t w)
{
    uint64_t x = w & (0x0F * HB_ONES);
    return x * 10 + (x >> 8);
}

/* Eight ASCII digits (first digit in the low byte) as a number. */
static inline uint32_t hb_swar_eight(uint64_t w)
{
    uint64_t x = hb_swar_pairs(w) & UINT64_C(0x00FF00FF00FF00FF); /* 4 x 2 digits, 16-bit */
    x = (x * 100 + (x >> 16)) & UINT64_C(0x0000FFFF0000FFFF);     /* 2 x 4 digits, 32-bit */
    return (uint32_t)((x & 0xFFFFFFFFu) * 10000 + (x >> 32));
}

/* Byte k of w. */
#define HB_BYTE(w, k) ((uint32_t)((w) >> (8 * (k))) & 0xFF)

__attribute__((always_inline)) static inline int swar_parse(const char *s, size_t len,
                                                            hb_rfc3339_time *out)
{
    if (len < HB_RFC3339_MIN_LEN || len > HB_RFC3339_MAX_LEN)
        return HB_EPARSE;
    /* "YYYY-MM-" "DDThh:mm" and, overlapping, "hh:mm:ss" (bytes 11-18) */
    uint64_t w0 = hb_ts_load64(s), w1 = hb_ts_load64(s + 8), w2 = hb_ts_load64(s + 11);
    uint64_t bad = hb_swar_bad(w0, UINT64_C(0x00FFFF00FFFFFFFF), UINT64_C(0xFF0000FF00000000),
                               UINT64_C(0x2D00002D00000000), 0) |
                   hb_swar_bad(w1, UINT64_C(0xFFFF00FFFF00FFFF), UINT64_C(0x0000FF0000FF0000),
                               UINT64_C(0x00003A0000740000), UINT64_C(0x0000000000200000)) |
                   hb_swar_bad(w2, UINT64_C(0xFFFF00FFFF00FFFF), UINT64_C(0x0000FF0000FF0000),
                               UINT64_C(0x00003A00003A0000), 0);
    uint64_t p0 = hb_swar_pairs(w0), p1 = hb_swar_pairs(w1), p2 = hb_swar_pairs(w2);
    uint32_t year = HB_BYTE(p0, 0) * 100 + HB_BYTE(p0, 2), month = HB_BYTE(p0, 5);
    uint32_t day = HB_BYTE(p1, 0);
    uint32_t hour = HB_BYTE(p2, 0), minute = HB_BYTE(p2, 3), second = HB_BYTE(p2, 6);

    /* The last byte says which time-offset a valid string has: 'Z' (1 byte) or +hh:mm (6), and
     * then len says how long the fraction is: f bytes with its '.', so k = f - 1 digits. */
    const unsigned char *u = (const unsigned char *)s;
    int zulu = (u[len - 1] | 0x20) == 'z';
    int64_t f = (int64_t)len - 19 - (zulu ? 1 : 6);
    bad |= (uint64_t)((f < 0) | (f == 1) | (f > 10));
    bad |= (uint64_t)((f > 0) & (u[19] != '.'));
    size_t k = f < 2 ? 0 : f > 10 ? 9 : (size_t)f - 1; /* clamped: every load stays inside */
    /* The (up to) 8 last digits: the 8 bytes ending after the last one, the bytes before the
     * digits replaced by '0' (a table of masks by k); then the value is scaled by 10^(9 - k).
     * With 9 digits the first one comes from the load that starts at it. No branch on k. */
    static const uint64_t keep[10] = {
        0,
        UINT64_C(0xFF00000000000000),
        UINT64_C(0xFFFF000000000000),
        UINT64_C(0xFFFFFF0000000000),
        UINT64_C(0xFFFFFFFF00000000),
        UINT64_C(0xFFFFFFFFFF000000),
        UINT64_C(0xFFFFFFFFFFFF0000),
        UINT64_C(0xFFFFFFFFFFFFFF00),
        ~UINT64_C(0),
        ~UINT64_C(0),
    };
    static const uint32_t scale[10] = {1,     100000000, 10000000, 1000000, 100000,
                                       10000, 1000,      100,      10,      1};
    uint64_t w = hb_ts_load64(s + 12 + k);
    w = (w & keep[k]) | ((0x30 * HB_ONES) & ~keep[k]);
    bad |= hb_swar_bad(w, ~UINT64_C(0), 0, 0, 0);
    uint32_t first = (uint32_t)(hb_ts_load64(s + 11 + k) & 0xFF) - '0';
    uint32_t nine = k == 9;
    bad |= nine & (first > 9);
    uint32_t nanos = hb_swar_eight(w) * scale[k] + nine * first * 100000000u;

    /* the offset, computed whether or not there is one (the bytes exist: len >= 20) */
    const unsigned char *o = u + len - 6;
    uint64_t numeric = (uint64_t)!zulu;
    uint32_t h0 = (uint32_t)o[1] - '0', h1 = (uint32_t)o[2] - '0';
    uint32_t m0 = (uint32_t)o[4] - '0', m1 = (uint32_t)o[5] - '0';
    uint32_t oh = h0 * 10 + h1, om = m0 * 10 + m1;
    bad |= numeric & ((o[0] != '+' && o[0] != '-') | (o[3] != ':') | (h0 > 9) | (h1 > 9) |
                      (m0 > 9) | (m1 > 9) | (oh > 23) | (om > 59));
    int32_t offset = (int32_t)(numeric * (oh * 3600 + om * 60));
    offset = o[0] == '-' ? -offset : offset;
    if (bad)
        return HB_EPARSE;
    return hb_ts_finish(year, month, day, hour, minute, second, nanos, offset, out);
}

int hb_rfc3339_parse_swar(const char *s, size_t len, hb_rfc3339_time *out)
{
    return swar_parse(s, len, out);
}

#define parse_swar hb_rfc3339_parse_swar

/* ---- libc strategies ----------------------------------------------------------------------- */

/* The part after the seconds, by hand: [.digits] then Z or +hh:mm, nothing after. */
static int hb_ts_tail_by_hand(const char *p, const char *end, int32_t *nanos, int32_t *offset)
{
    int32_t ns = 0, scale = 1000000000;
    if (p < end && *p == '.') {
        p++;
        while (p < end && *p >= '0' && *p <= '9' && scale > 1) {
            scale /= 10;
            ns += (*p++ - '0') * scale;
        }
        if (scale == 1000000000)
            return HB_EPARSE;
    }
    if (p < end && (*p == 'Z' || *p == 'z')) {
        *offset = 0;
        p++;
    } else if (end - p == 6 && (*p == '+' || *p == '-') && p[3] == ':') {
        int oh = atoi((char[]){p[1], p[2], 0}), om = atoi((char[]){p[4], p[5], 0});
        *offset = (*p == '-' ? -1 : 1) * (oh * 3600 + om * 60);
        p += 6;
    } else {
        return HB_EPARSE;
    }
    *nanos = ns;
    return p == end ? HB_OK : HB_EPARSE;
}

static int parse_strptime(const char *s, size_t len, hb_rfc3339_time *out)
{
    char buf[64];
    if (len >= sizeof buf)
        return HB_EPARSE;
    memcpy(buf, s, len);
    buf[len] = '\0';
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *p = strptime(buf, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!p)
        return HB_EPARSE;
    int32_t nanos, offset;
    if (hb_ts_tail_by_hand(p, buf + len, &nanos, &offset) != HB_OK)
        return HB_EPARSE;
    out->seconds = (int64_t)timegm(&tm) - offset;
    out->nanos = nanos;
    return HB_OK;
}

static int parse_sscanf(const char *s, size_t len, hb_rfc3339_time *out)
{
    char buf[64];
    if (len >= sizeof buf)
        return HB_EPARSE;
    memcpy(buf, s, len);
    buf[len] = '\0';
    unsigned y, mo, d, h, mi, se;
    char t;
    int n = 0;
    if (sscanf(buf, "%4u-%2u-%2u%c%2u:%2u:%2u%n", &y, &mo, &d, &t, &h, &mi, &se, &n) != 7 ||
        n == 0 || (t != 'T' && t != 't') || y > 9999 || mo < 1 || mo > 12)
        return HB_EPARSE;
    int32_t nanos, offset;
    if (hb_ts_tail_by_hand(buf + n, buf + len, &nanos, &offset) != HB_OK)
        return HB_EPARSE;
    out->seconds = (int64_t)hb_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset;
    out->nanos = nanos;
    return HB_OK;
}

/* ---- the integer workaround ---------------------------------------------------------------- */

#define HB_MILLIS_MIN (HB_RFC3339_MIN_SECONDS * 1000)
#define HB_MILLIS_MAX (HB_RFC3339_MAX_SECONDS * 1000 + 999)

/* Milliseconds (in the TIMESTAMP range) to seconds and nanoseconds, rounding the seconds down. */
static inline int hb_ts_from_millis(int64_t ms, hb_rfc3339_time *out)
{
    if (ms < HB_MILLIS_MIN || ms > HB_MILLIS_MAX)
        return HB_ERANGE;
    int64_t q = ms / 1000, r = ms % 1000;
    if (r < 0) {
        q -= 1;
        r += 1000;
    }
    out->seconds = q;
    out->nanos = (int32_t)r * 1000000;
    return HB_OK;
}

/* "-"? 1*DIGIT, nothing else; then the range. Leading zeros are skipped, so acceptance depends on
 * the value, not on the length; at most 19 significant digits can follow. */
static int parse_millis(const char *s, size_t len, hb_rfc3339_time *out)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    int neg = p < end && *p == '-';
    p += neg;
    if (p == end)
        return HB_EPARSE;
    while (end - p > 1 && *p == '0')
        p++;
    if (end - p > 19)
        return HB_EPARSE;
    uint64_t v = 0;
    for (; p < end; p++) {
        uint32_t d = (uint32_t)*p - '0';
        if (d > 9)
            return HB_EPARSE;
        v = v * 10 + d; /* 19 digits < 2^64: no overflow */
    }
    if (v > (uint64_t)INT64_MAX)
        return HB_ERANGE;
    return hb_ts_from_millis(neg ? -(int64_t)v : (int64_t)v, out);
}

static int parse_strtoll(const char *s, size_t len, hb_rfc3339_time *out)
{
    char buf[32], *end;
    if (len == 0 || len >= sizeof buf)
        return HB_EPARSE;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno != 0 || end != buf + len)
        return HB_EPARSE;
    return hb_ts_from_millis(v, out);
}

static int parse_binary(const char *s, size_t len, hb_rfc3339_time *out)
{
    int64_t v;
    if (len != 8)
        return HB_EPARSE;
    memcpy(&v, s, 8);
    return hb_ts_from_millis(v, out);
}

/* ---- batches: the loops the benchmark times -------------------------------------------------- */

#define HB_BATCH(fn, parse)                                                                        \
    static size_t fn(const char *base, const hb_rfc3339_span *spans, size_t n,                     \
                     hb_rfc3339_time *out)                                                         \
    {                                                                                              \
        size_t bad = 0;                                                                            \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (parse(base + spans[i].off, spans[i].len, &out[i]) != HB_OK) {                      \
                hb_ts_bad(&out[i]);                                                                \
                bad++;                                                                             \
            }                                                                                      \
        }                                                                                          \
        return bad;                                                                                \
    }

HB_BATCH(batch_binary, parse_binary)
HB_BATCH(batch_millis, parse_millis)
HB_BATCH(batch_strtoll, parse_strtoll)
HB_BATCH(batch_strptime, parse_strptime)
HB_BATCH(batch_sscanf, parse_sscanf)
HB_BATCH(batch_scalar, parse_scalar)
#ifndef HB_TEST_HOOKS
HB_BATCH(batch_swar, swar_parse)
#else
/* TEST-ONLY (harness/hb_testhook.h): HB_INJECT=parser parses every fifth timestamp twice. */
HB_BATCH(batch_swar_once, swar_parse)
static size_t batch_swar(const char *base, const hb_rfc3339_span *spans, size_t n,
                         hb_rfc3339_time *out)
{
    size_t bad = batch_swar_once(base, spans, n, out);
    if (HB_INJECTED("parser"))
        for (size_t i = 0; i < n; i += 5)
            if (swar_parse(base + spans[i].off, spans[i].len, &out[i]) != HB_OK)
                hb_ts_bad(&out[i]);
    return bad;
}
#endif

/* ---- simd: run-time dispatch ------------------------------------------------------------------
 */

enum { HB_LEVEL_SCALAR, HB_LEVEL_SSE41, HB_LEVEL_AVX2 };

static int hb_simd_cpu_level(void)
{
#if HB_RFC3339_X86
    if (__builtin_cpu_supports("avx2"))
        return HB_LEVEL_AVX2;
    if (__builtin_cpu_supports("sse4.1"))
        return HB_LEVEL_SSE41;
#endif
    return HB_LEVEL_SCALAR;
}

const char *hb_rfc3339_simd_level(void)
{
    static const char *const names[] = {"scalar", "sse4.1", "avx2"};
    return names[hb_simd_cpu_level()];
}

static int parse_simd(const char *s, size_t len, hb_rfc3339_time *out)
{
    switch (hb_simd_cpu_level()) {
#if HB_RFC3339_X86
    case HB_LEVEL_AVX2:
        return hb_rfc3339_parse_avx2(s, len, out);
    case HB_LEVEL_SSE41:
        return hb_rfc3339_parse_sse41(s, len, out);
#endif
    default:
        return hb_rfc3339_parse_swar(s, len, out);
    }
}

static size_t batch_simd(const char *base, const hb_rfc3339_span *spans, size_t n,
                         hb_rfc3339_time *out)
{
    switch (hb_simd_cpu_level()) {
#if HB_RFC3339_X86
    case HB_LEVEL_AVX2:
        return hb_rfc3339_batch_avx2(base, spans, n, out);
    case HB_LEVEL_SSE41:
        return hb_rfc3339_batch_sse41(base, spans, n, out);
#endif
    default:
        return batch_swar(base, spans, n, out);
    }
}

#if HB_RFC3339_X86
static int have_sse41(void)
{
    return hb_simd_cpu_level() >= HB_LEVEL_SSE41;
}

static int have_avx2(void)
{
    return hb_simd_cpu_level() >= HB_LEVEL_AVX2;
}
#endif

/* ---- the registry ------------------------------------------------------------------------------
 */

#define TEXT HB_RFC3339_IN_TEXT
#define MILLIS HB_RFC3339_IN_MILLIS
#define BINARY HB_RFC3339_IN_BINARY
#if HB_RFC3339_X86
#define parse_sse41 hb_rfc3339_parse_sse41
#define batch_sse41 hb_rfc3339_batch_sse41
#define parse_avx2 hb_rfc3339_parse_avx2
#define batch_avx2 hb_rfc3339_batch_avx2
#endif

/* clang-format off */
/*   name              description                                         parse           batch           cpu         input   validating */
const hb_rfc3339_strategy hb_rfc3339_strategies[] = {
    {"int64-binary",   "the floor: UNIX_MILLIS as 8 little-endian bytes",  parse_binary,   batch_binary,   NULL,       BINARY, 0},
    {"millis-parse",   "UNIX_MILLIS string: a validating digit loop",      parse_millis,   batch_millis,   NULL,       MILLIS, 1},
    {"millis-strtoll", "UNIX_MILLIS string: libc strtoll",                 parse_strtoll,  batch_strtoll,  NULL,       MILLIS, 0},
    {"strptime",       "libc strptime + timegm; fraction, offset by hand", parse_strptime, batch_strptime, NULL,       TEXT,   0},
    {"sscanf",         "libc sscanf; fraction and offset by hand",         parse_sscanf,   batch_sscanf,   NULL,       TEXT,   0},
    {"scalar",         "the reference: field by field, diagnostics",       parse_scalar,   batch_scalar,   NULL,       TEXT,   1},
    {"swar",           "8 bytes at a time in 64-bit words",                parse_swar,     batch_swar,     NULL,       TEXT,   1},
    {"simd",           "SSE4.1 or AVX2 chosen at run time, else swar",     parse_simd,     batch_simd,     NULL,       TEXT,   1},
#if HB_RFC3339_X86
    {"simd-sse4.1",    "simd's SSE4.1 build; batches 4 rows at a time",    parse_sse41,    batch_sse41,    have_sse41, TEXT,   1},
    {"simd-avx2",      "simd's AVX2 build; batches 8 rows at a time",      parse_avx2,     batch_avx2,     have_avx2,  TEXT,   1},
#endif
};
/* clang-format on */

#undef TEXT
#undef MILLIS
#undef BINARY

const size_t hb_rfc3339_strategy_count =
    sizeof hb_rfc3339_strategies / sizeof *hb_rfc3339_strategies;

const hb_rfc3339_strategy *hb_rfc3339_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < hb_rfc3339_strategy_count; i++)
        if (strcmp(hb_rfc3339_strategies[i].name, name) == 0)
            return &hb_rfc3339_strategies[i];
    return NULL;
}

/* ---- civil-date conversions ------------------------------------------------------------------ */

static int64_t days_hinnant(uint32_t year, uint32_t month, uint32_t day)
{
    return hb_days_from_civil(year, month, day);
}

/* Whole years counted with the leap rule, then a table of days before each month. */
static int64_t days_table(uint32_t year, uint32_t month, uint32_t day)
{
    static const uint16_t before[13] = {0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    int64_t y = (int64_t)year - 1; /* complete years since 0001-01-01 */
    int64_t days = 365 * y + y / 4 - y / 100 + y / 400 - 719162; /* 719162: 0001-01-01 to 1970 */
    return days + before[month] + (month > 2 && hb_ts_leap(year)) + day - 1;
}

/* libc: timegm of the date at midnight. */
static int64_t days_timegm(uint32_t year, uint32_t month, uint32_t day)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = (int)year - 1900;
    tm.tm_mon = (int)month - 1;
    tm.tm_mday = (int)day;
    int64_t t = (int64_t)timegm(&tm);
    return t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
}

#define HB_DAYS_SUM(fn, days)                                                                      \
    static uint64_t fn(const hb_civil_date *d, size_t n)                                           \
    {                                                                                              \
        uint64_t sum = 0;                                                                          \
        for (size_t i = 0; i < n; i++)                                                             \
            sum += (uint64_t)days(d[i].year, d[i].month, d[i].day);                                \
        return sum;                                                                                \
    }

HB_DAYS_SUM(sum_hinnant, days_hinnant)
HB_DAYS_SUM(sum_table, days_table)
HB_DAYS_SUM(sum_timegm, days_timegm)

/* clang-format off */
/* name       description                                                    days          sum */
const hb_days_strategy hb_days_strategies[] = {
    {"hinnant", "days_from_civil: March-based year, (153m+2)/5, no branches", days_hinnant, sum_hinnant},
    {"table",   "years by the leap rule, months from a table",                days_table,   sum_table},
    {"timegm",  "libc timegm of midnight, divided by 86400",                  days_timegm,  sum_timegm},
};
/* clang-format on */

const size_t hb_days_strategy_count = sizeof hb_days_strategies / sizeof *hb_days_strategies;

/* hb_rfc3339.h - RFC 3339 timestamps as a database client receives them, parsed strictly and fast.
 *
 * Incident 2 of DESIGN.md: the Java Spanner client spent 711 of 804 ms of a 100,000-row select
 * parsing TIMESTAMP strings ("2021-03-04T05:06:07.123456789Z") with the JDK's generic formatter;
 * the workaround selected UNIX_MILLIS(ts), an INT64 sent as a decimal string. This module is the
 * strict reference parser of the timestamp strings, the faster strategies that must agree with it
 * byte for byte, the integer workaround's parsers, and the civil-date conversion they share.
 *
 * The grammar: RFC 3339 section 5.6 date-time, restricted to what a Spanner TIMESTAMP holds:
 *
 *     YYYY-MM-DD ("T" / "t") hh:mm:ss [ "." 1*9DIGIT ] ( "Z" / "z" / ("+" / "-") hh:mm )
 *
 * exactly, with nothing before or after (no space separator, no comma, no sign on the year, no
 * offset without colon or minutes, no leap second; ASCII digits only). The day must exist in its
 * month (proleptic Gregorian leap rule; year 0000 is a leap year), hour 00-23, minute and second
 * 00-59, offset hour 00-23 and minute 00-59 ("-00:00" is UTC). The instant, after subtracting the
 * offset, must lie in [0001-01-01T00:00:00Z, 9999-12-31T23:59:59.999999999Z]; a local date of year
 * 0000 or a late 9999 is therefore accepted when its offset brings the instant into that range.
 *
 * Every function takes a pointer and a length (no NUL terminator is needed or read) and never
 * reads outside [s, s + len): HB_RFC3339_PADDING is 0. The SIMD strategy achieves that with loads
 * anchored at both ends of the string (a 16-byte load at s, one at s + 3 and one ending at
 * s + len), all inside the string for any length from 20 up; shorter strings are rejected at
 * once (no valid date-time is shorter than 20 bytes). The unit tests place every input flush
 * against a guard page.
 */
#ifndef HB_RFC3339_H
#define HB_RFC3339_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes past s + len a strategy may read. 0: none does, so any buffer will do. */
#define HB_RFC3339_PADDING 0

#define HB_RFC3339_MIN_LEN 20 /* "2021-03-04T05:06:07Z" */
#define HB_RFC3339_MAX_LEN 35 /* "2021-03-04T05:06:07.123456789+05:30" */

/* The range of a Spanner TIMESTAMP, in seconds since 1970-01-01T00:00:00Z. */
#define HB_RFC3339_MIN_SECONDS INT64_C(-62135596800) /* 0001-01-01T00:00:00Z */
#define HB_RFC3339_MAX_SECONDS INT64_C(253402300799) /* 9999-12-31T23:59:59Z (+ .999999999) */

/* An instant: seconds since the Unix epoch (negative before 1970) and nanoseconds in
 * [0, 999999999] counted forward from those seconds (as protobuf's Timestamp):
 * 1969-12-31T23:59:59.5Z is {-1, 500000000}. */
typedef struct hb_rfc3339_time {
    int64_t seconds;
    int32_t nanos;
} hb_rfc3339_time;

/* The rule an input breaks: what the reference parser expected at the offending byte. */
enum hb_rfc3339_rule {
    HB_RFC3339_R_NONE = 0,
    HB_RFC3339_R_YEAR,                /* date-fullyear: 4 digits */
    HB_RFC3339_R_DATE_SEP,            /* '-' between date fields */
    HB_RFC3339_R_MONTH,               /* date-month: 2 digits */
    HB_RFC3339_R_MONTH_RANGE,         /* date-month: 01-12 */
    HB_RFC3339_R_MDAY,                /* date-mday: 2 digits */
    HB_RFC3339_R_MDAY_RANGE,          /* date-mday: a day of that month and year */
    HB_RFC3339_R_T,                   /* 'T' or 't' between full-date and full-time */
    HB_RFC3339_R_HOUR,                /* time-hour: 2 digits */
    HB_RFC3339_R_HOUR_RANGE,          /* time-hour: 00-23 */
    HB_RFC3339_R_TIME_SEP,            /* ':' between time fields */
    HB_RFC3339_R_MINUTE,              /* time-minute: 2 digits */
    HB_RFC3339_R_MINUTE_RANGE,        /* time-minute: 00-59 */
    HB_RFC3339_R_SECOND,              /* time-second: 2 digits */
    HB_RFC3339_R_SECOND_RANGE,        /* time-second: 00-59 (a leap second does not fit the type) */
    HB_RFC3339_R_SECFRAC,             /* time-secfrac: at least one digit after '.' */
    HB_RFC3339_R_SECFRAC_LONG,        /* time-secfrac: at most 9 digits */
    HB_RFC3339_R_OFFSET,              /* time-offset: 'Z', 'z', '+' or '-' */
    HB_RFC3339_R_OFFSET_HOUR,         /* time-numoffset hour: 2 digits */
    HB_RFC3339_R_OFFSET_HOUR_RANGE,   /* 00-23 */
    HB_RFC3339_R_OFFSET_SEP,          /* ':' between offset hour and minute */
    HB_RFC3339_R_OFFSET_MINUTE,       /* time-numoffset minute: 2 digits */
    HB_RFC3339_R_OFFSET_MINUTE_RANGE, /* 00-59 */
    HB_RFC3339_R_TRAILING,            /* nothing may follow time-offset */
    HB_RFC3339_R_INSTANT_RANGE,       /* the instant lies outside 0001-01-01 .. 9999-12-31 UTC */
    HB_RFC3339_R_COUNT
};

/* Where and why an input was rejected. */
typedef struct hb_rfc3339_error {
    size_t pos; /* 0-based byte offset of the first offending byte; len when the input ended
                 * early; for R_INSTANT_RANGE, the start of the time-offset (or 0 when the
                 * date alone is out of range: year 0000 with 'Z') */
    int rule;   /* enum hb_rfc3339_rule */
} hb_rfc3339_error;

/* A static, human-readable text of a rule ("date-month: expected 01 to 12"). Never NULL. */
const char *hb_rfc3339_rule_str(int rule);

/* The reference parser (strategy "scalar"): parses the len bytes at s per the grammar above into
 * *out. Returns HB_OK, or without touching *out: HB_ETRUNC (the input ended where the grammar
 * wants more), HB_EPARSE (a byte breaks the grammar), HB_ERANGE (a field or the instant is out of
 * range); err (may be NULL) then gets the position and rule. HB_EINVAL for NULL s (with len > 0)
 * or NULL out. */
int hb_rfc3339_parse(const char *s, size_t len, hb_rfc3339_time *out, hb_rfc3339_error *err);

/* Days from 1970-01-01 to the proleptic Gregorian date year-month-day, for year 0 to 9999
 * (a civil date that exists; not checked), negative before 1970. Branch-free, after Howard
 * Hinnant's days_from_civil ("chrono-Compatible Low-Level Date Algorithms"): the year is counted
 * from March so that the leap day ends it, and shifted by 400 years so it is never negative;
 * 365 y + y/4 is 1461 y / 4, y/400 is (y/100)/4 (one division instead of three), and the days
 * before month m of the March-based year, (153 m + 2) / 5, equal (979 m + 16) / 32 for m in 0-11
 * (the Euclidean affine form of Neri and Schneider; checked for every month by the tests). */
static inline int32_t hb_days_from_civil(uint32_t year, uint32_t month, uint32_t day)
{
    uint32_t before_march = month <= 2;
    uint32_t y = year + 400 - before_march;     /* March-based year, 399 .. 10399 */
    uint32_t m = month + 12 * before_march - 3; /* 0 = March .. 11 = February */
    uint32_t c = y / 100;
    uint32_t days = 1461 * y / 4 - c + c / 4 + (979 * m + 16) / 32 + day - 1;
    return (int32_t)days - (719468 + 146097); /* 1970-03-01 counted from 0000-03-01, + 400 y */
}

/* Days in month (1-12) of year (0-9999), proleptic Gregorian. 0 for a month outside 1-12. */
int hb_rfc3339_days_in_month(uint32_t year, uint32_t month);

/* --- strategies ------------------------------------------------------------------------------ */

/* What a strategy reads. */
enum hb_rfc3339_input {
    HB_RFC3339_IN_TEXT = 0, /* the RFC 3339 string */
    HB_RFC3339_IN_MILLIS,   /* decimal Unix milliseconds: UNIX_MILLIS(ts) sent as a string */
    HB_RFC3339_IN_BINARY,   /* 8 bytes: the same milliseconds as a little-endian int64 */
};

/* One field of a row set: the field is base[off, off + len). */
typedef struct hb_rfc3339_span {
    uint32_t off;
    uint32_t len;
} hb_rfc3339_span;

/* The value a batch stores for a field it rejects. */
#define HB_RFC3339_BAD_SECONDS INT64_MIN
#define HB_RFC3339_BAD_NANOS (-1)

/* One row of the strategy registry. */
typedef struct hb_rfc3339_strategy {
    const char *name; /* the benchmark and --strategy name */
    const char *desc; /* one line */
    /* Parses one field: HB_OK and *out, or a negative hb_err code (*out unspecified). Only the
     * reference reports a position; the others say accept or reject. */
    int (*parse)(const char *s, size_t len, hb_rfc3339_time *out);
    /* Parses n fields of base: out[i] for spans[i] (HB_RFC3339_BAD_* where rejected). Returns the
     * number rejected. The loop the benchmark times: one call per batch, dispatch included. */
    size_t (*batch)(const char *base, const hb_rfc3339_span *spans, size_t n, hb_rfc3339_time *out);
    /* Nonzero when this machine can run it (the SIMD levels); NULL: always. */
    int (*available)(void);
    int input;      /* enum hb_rfc3339_input */
    int validating; /* 1: rejects everything the reference rejects (text strategies: same answer
                       on every input; millis: a decimal integer in range, nothing else) */
} hb_rfc3339_strategy;

/* The registry, in presentation order (the binary floor first). */
extern const hb_rfc3339_strategy hb_rfc3339_strategies[];
extern const size_t hb_rfc3339_strategy_count;

/* The row named name, or NULL (also for NULL). */
const hb_rfc3339_strategy *hb_rfc3339_find(const char *name);

/* The SIMD level "simd" dispatches to on this machine: "avx2", "sse4.1" or "scalar" (the swar
 * code). Static text. */
const char *hb_rfc3339_simd_level(void);

/* The integer workaround's value of *t: milliseconds since the epoch, rounded down (what
 * UNIX_MILLIS() returns; the millis strategies give back {seconds, nanos} with nanos a multiple
 * of 10^6). */
static inline int64_t hb_rfc3339_to_millis(const hb_rfc3339_time *t)
{
    return t->seconds * 1000 + t->nanos / 1000000;
}

/* --- civil-date conversions, benchmarked on their own --------------------------------------- */

/* A civil date: year 1-9999, month 1-12, day 1-31. */
typedef struct hb_civil_date {
    uint16_t year;
    uint8_t month;
    uint8_t day;
} hb_civil_date;

/* One way of computing days since 1970-01-01 from a valid date (year 1-9999). */
typedef struct hb_days_strategy {
    const char *name;
    const char *desc;
    int64_t (*days)(uint32_t year, uint32_t month, uint32_t day);
    /* The sum of days() over n dates, wrapping: the loop the benchmark times. */
    uint64_t (*sum)(const hb_civil_date *dates, size_t n);
} hb_days_strategy;

extern const hb_days_strategy hb_days_strategies[];
extern const size_t hb_days_strategy_count;

#ifdef __cplusplus
}
#endif

#endif /* HB_RFC3339_H */

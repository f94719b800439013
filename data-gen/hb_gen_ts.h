/* hb_gen_ts.h - the deterministic timestamp row sets of the RFC 3339 case (incident 2).
 *
 * Rows of instants as a database wire protocol carries them (the Spanner API sends a TIMESTAMP
 * as an RFC 3339 string, UNIX_MILLIS(ts) as an INT64 in a decimal string): one row a line,
 * columns separated by tabs. With encoding rfc3339 a row holds `columns` RFC 3339 strings, with
 * millis the same instants as decimal Unix milliseconds, with both the RFC 3339 columns followed
 * by the millis columns of the same instants:
 *
 *     2021-03-04T05:06:07.123456789Z<TAB>1614834367123<LF>
 *
 * The strings are what Spanner emits: upper-case 'T' and 'Z', 'Z' on most rows and a numeric
 * offset ("+05:30", "-00:00", up to "+23:59") on some (or on all, or none: params.offsets), a
 * fraction of 0, 3, 6 or 9 digits (trailing zero groups of three trimmed, so ".120" but never
 * ".120000"; params.fraction 1 gives one non-zero digit, as writers that trim every zero do), local dates always of years 0001-9999. Milliseconds are rounded down, as
 * UNIX_MILLIS() does. Instants: 85% uniform in 1970-2100, 14% uniform in 0001-1969, 1% at the
 * edges (the range limits, the epoch, 2^31 and 2^32 seconds and their neighbours).
 *
 * Value j of a set (row j / columns, column j % columns) is a function of (seed, j, fraction,
 * offsets) alone, from the generator's own PRNG (splitmix64 keyed by the index): same parameters,
 * same bytes on every machine; the first rows of a larger set equal a smaller set's.
 */
#ifndef HB_GEN_TS_H
#define HB_GEN_TS_H

#include <stddef.h>
#include <stdint.h>

#include "hb_gen.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HB_TS_DEFAULT_ROWS 100000u
#define HB_TS_MAX_ROWS 100000000u /* 10^8 rows */
#define HB_TS_MAX_COLUMNS 64u
#define HB_TS_TEXT_MAX 35   /* longest RFC 3339 string: "2021-03-04T05:06:07.123456789+05:30" */
#define HB_TS_MILLIS_MAX 20 /* longest millis string: "-62135596800000" is 15; room to spare */
#define HB_TS_PADDING 64    /* zero bytes after a set built in memory (hb_ts_build) */

enum hb_ts_encoding {
    HB_TS_RFC3339 = 1, /* RFC 3339 columns */
    HB_TS_MILLIS = 2,  /* decimal Unix milliseconds columns */
    HB_TS_BOTH = 3,    /* the RFC 3339 columns, then the millis columns of the same instants */
};

enum hb_ts_offsets {
    HB_TS_OFFSETS_MIXED = 0, /* 'Z' on 90% of the values, a numeric offset on 10% */
    HB_TS_OFFSETS_Z,         /* 'Z' everywhere */
    HB_TS_OFFSETS_NUMERIC,   /* a numeric offset everywhere (one that keeps the local year in
                                0001-9999; 'Z' for the few instants at the range limits) */
};

#define HB_TS_FRACTION_MIXED (-1) /* 0, 3, 6 or 9 digits, a quarter each */

typedef struct hb_ts_params {
    uint64_t rows;    /* rows, 0 to HB_TS_MAX_ROWS */
    uint32_t columns; /* instants per row, 1 to HB_TS_MAX_COLUMNS */
    int encoding;     /* enum hb_ts_encoding */
    int fraction;     /* digits of every fraction: 0, 1, 3, 6, 9; or HB_TS_FRACTION_MIXED */
    int offsets;      /* enum hb_ts_offsets */
    uint64_t seed;
} hb_ts_params;

/* One generated instant and how it is written. */
typedef struct hb_ts_value {
    int64_t seconds;     /* since the epoch, in [0001-01-01, 9999-12-31] UTC */
    int32_t nanos;       /* 0 .. 999999999 */
    int32_t offset_min;  /* the numeric offset in minutes, east positive (0 for 'Z') */
    uint8_t zulu;        /* written with 'Z' */
    uint8_t neg_zero;    /* written "-00:00" */
    uint8_t frac_digits; /* 0, 1, 3, 6 or 9 */
} hb_ts_value;

/* What a set is. */
typedef struct hb_ts_info {
    uint64_t rows;
    uint64_t values; /* rows x columns instants */
    uint64_t bytes;  /* of the text */
    uint32_t crc32;  /* zlib crc32 of the text */
} hb_ts_info;

/* The defaults: 100,000 rows, 1 column, rfc3339, mixed fractions and offsets, the default seed
 * (HB_GEN_DEFAULT_SEED). */
void hb_ts_params_default(hb_ts_params *p);

/* Checks *p. Returns HB_OK (*why = NULL) or HB_EINVAL with a static reason; why may be NULL. */
int hb_ts_params_check(const hb_ts_params *p, const char **why);

/* Value j of the set (row-major). p must be valid. */
void hb_ts_value_at(const hb_ts_params *p, uint64_t j, hb_ts_value *v);

/* Writes v as RFC 3339 to out (at least HB_TS_TEXT_MAX bytes; no NUL). Returns the length. */
size_t hb_ts_format_rfc3339(const hb_ts_value *v, char *out);

/* Writes v's Unix milliseconds, rounded down, in decimal to out (at least HB_TS_MILLIS_MAX
 * bytes; no NUL). Returns the length. */
size_t hb_ts_format_millis(const hb_ts_value *v, char *out);

/* Upper bound of one row's bytes for *p, newline included. */
size_t hb_ts_row_max(const hb_ts_params *p);

/* Writes row r of the set to out (hb_ts_row_max bytes), newline included. Returns the length. */
size_t hb_ts_format_row(const hb_ts_params *p, uint64_t r, char *out);

/* Writes the whole set to the file descriptor fd; fills *info (may be NULL). Returns HB_OK,
 * HB_EINVAL, HB_ENOMEM or HB_EIO (errno kept; the file then holds a prefix). This is what
 * `hotbench-gen timestamps` runs. */
int hb_ts_write(const hb_ts_params *p, int fd, hb_ts_info *info);

/* The whole set in malloc'd memory, followed by HB_TS_PADDING zero bytes (not counted in
 * out->len). Returns HB_OK, HB_EINVAL or HB_ENOMEM. Release with hb_blob_free. */
int hb_ts_build(const hb_ts_params *p, hb_blob *out, hb_ts_info *info);

/* Days since 1970-01-01 to the civil date (year 0-9999 and back): the generator's own
 * conversion, independent of the parsers'. */
void hb_ts_civil_from_days(int64_t days, int32_t *year, uint32_t *month, uint32_t *day);

#ifdef __cplusplus
}
#endif

#endif /* HB_GEN_TS_H */

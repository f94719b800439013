/* rfc3339_impl.h - private to cases/rfc3339: what the strategy files share.
 *
 * The range checks and the final arithmetic every fast strategy ends with, and the entry points
 * of the SIMD files (each compiled for its instruction set and only called after the CPU was
 * found to support it).
 */
#ifndef HB_RFC3339_IMPL_H
#define HB_RFC3339_IMPL_H

#include "hb_err.h"
#include "hb_rfc3339.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the SWAR and SIMD strategies assume a little-endian machine"
#endif

#if defined(__x86_64__) || defined(__i386__)
#define HB_RFC3339_X86 1
#else
#define HB_RFC3339_X86 0
#endif

/* Nonzero in a leap year of the proleptic Gregorian calendar (0 to 9999): divisible by 4, and
 * by 16 if divisible by 100 (400 = 16 x 25, so that is "by 400"). */
static inline uint32_t hb_ts_leap(uint32_t y)
{
    return (y & (y % 100 == 0 ? 15 : 3)) == 0;
}

/* Days in each month minus 28, two bits per month at bit 2m; February counted as 29. */
#define HB_TS_MDAYS_BITS                                                                           \
    ((3u << 2) | (1u << 4) | (3u << 6) | (2u << 8) | (3u << 10) | (2u << 12) | (3u << 14) |        \
     (3u << 16) | (2u << 18) | (3u << 20) | (2u << 22) | (3u << 24))

/* Nonzero unless day (>= 1) exists in month (1-12) of year. The leap rule is only consulted for
 * February 29 (a rare, well-predicted branch). */
static inline uint32_t hb_ts_bad_mday(uint32_t year, uint32_t month, uint32_t day)
{
    uint32_t bad = day > 28 + ((HB_TS_MDAYS_BITS >> (2 * month)) & 3);
    if (__builtin_expect(day == 29 && month == 2, 0))
        bad |= !hb_ts_leap(year);
    return bad;
}

/* Stores the instant secs (seconds since 1970-01-01T00:00:00Z) and nanos into *out after the
 * range check of HB_RFC3339_MIN/MAX_SECONDS. Returns HB_OK or HB_ERANGE (*out untouched). */
static inline int hb_ts_store_secs(int64_t secs, uint32_t nanos, hb_rfc3339_time *out)
{
    if ((uint64_t)(secs - HB_RFC3339_MIN_SECONDS) >
        (uint64_t)(HB_RFC3339_MAX_SECONDS - HB_RFC3339_MIN_SECONDS))
        return HB_ERANGE;
    out->seconds = secs;
    out->nanos = (int32_t)nanos;
    return HB_OK;
}

/* The common end of the fast strategies, once every field is known to be in range and the day
 * to exist: the instant, its range check, the store. sod is the second of the (local) day,
 * offset_s the time-offset in seconds (east positive). Returns HB_OK or HB_ERANGE. */
static inline int hb_ts_store(uint32_t year, uint32_t month, uint32_t day, int32_t sod,
                              int32_t offset_s, uint32_t nanos, hb_rfc3339_time *out)
{
    return hb_ts_store_secs(
        (int64_t)hb_days_from_civil(year, month, day) * 86400 + (sod - offset_s), nanos, out);
}

/* The same with the range checks of every field first (the swar strategy's). */
static inline int hb_ts_finish(uint32_t year, uint32_t month, uint32_t day, uint32_t hour,
                               uint32_t minute, uint32_t second, uint32_t nanos, int32_t offset_s,
                               hb_rfc3339_time *out)
{
    uint32_t bad = (month - 1 > 11) | (day - 1 > 30) | (hour > 23) | (minute > 59) | (second > 59);
    if (bad || hb_ts_bad_mday(year, month, day))
        return HB_ERANGE;
    return hb_ts_store(year, month, day, (int32_t)(hour * 3600 + minute * 60 + second), offset_s,
                       nanos, out);
}

/* An unaligned little-endian 8-byte load. */
static inline uint64_t hb_ts_load64(const char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The SWAR strategy (rfc3339.c), also the "simd" fallback on CPUs without SSE4.1. */
int hb_rfc3339_parse_swar(const char *s, size_t len, hb_rfc3339_time *out);

#if HB_RFC3339_X86
/* rfc3339_sse41.c (compiled with -msse4.1) and rfc3339_avx2.c (-mavx2). */
int hb_rfc3339_parse_sse41(const char *s, size_t len, hb_rfc3339_time *out);
size_t hb_rfc3339_batch_sse41(const char *base, const hb_rfc3339_span *spans, size_t n,
                              hb_rfc3339_time *out);
int hb_rfc3339_parse_avx2(const char *s, size_t len, hb_rfc3339_time *out);
size_t hb_rfc3339_batch_avx2(const char *base, const hb_rfc3339_span *spans, size_t n,
                             hb_rfc3339_time *out);
#endif

/* Marks out[i] as rejected. */
static inline void hb_ts_bad(hb_rfc3339_time *out)
{
    out->seconds = HB_RFC3339_BAD_SECONDS;
    out->nanos = HB_RFC3339_BAD_NANOS;
}

#endif /* HB_RFC3339_IMPL_H */

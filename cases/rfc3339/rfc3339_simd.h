/* rfc3339_simd.h - private: the SIMD parser's kernel, included by rfc3339_sse41.c (compiled with
 * -msse4.1) and rfc3339_avx2.c (-mavx2; HB_SIMD_AVX2 defined), which only run after run-time
 * dispatch found the instruction set.
 *
 * The approach is Lemire's for fixed-layout numbers, extended to the RFC 3339 layout with its
 * variable tail. Loads (all inside [s, s + len) for 20 <= len <= 35, the only lengths a valid
 * timestamp has; other lengths are rejected before any load):
 *   A = s[0, 16)       "YYYY-MM-DDThh:mm"
 *   B = s[3, 19)       "Y-MM-DDThh:mm:ss"
 *   T = s[len-16, len) the tail: [".9DIGIT"] then "Z" or "+hh:mm", right-aligned
 * Validation is one subtract, one unsigned minimum and one compare per register against a
 * template of lower bounds and ranges (a digit: '0' and 9; a separator: itself and 0; 'T'/'Z'
 * folded to lower case by an or first; the offset's sign '+' to '-', the ',' between them
 * rejected after the shuffle). The template of the tail depends on two things only: whether the
 * last byte is 'Z'/'z' (else the offset is the 6 bytes "+hh:mm") and how many bytes the fraction
 * takes, both known from len and the last byte; a valid string must have exactly that shape, so
 * checking every byte against it accepts exactly the valid strings. The fraction's digits are
 * gathered by one shuffle (from a table indexed by the same two things) into the last nine
 * lanes, zero-padded on the right, and converted with the multiply-add cascade
 * (10,1) -> (100,1) -> pack -> (10000,1); the same shuffle brings the offset's hh, mm and sign.
 * The fields are clamped to their maxima in the vector (so every table index is in bounds, even
 * for junk) and the day is found by table (hb_simd_kernel): days before the year with its leap
 * bit and a flag for the three years whose instants can leave the range, then days before the
 * month and the month's length. A row costs no branch but the length check and the rejection.
 *
 * This kernel parses single values (parse) and the groups of rows a batch declines (one row in
 * them rejected); the batches themselves run rfc3339_vert.h, which parses 8 rows (AVX2) or 4
 * (SSE4.1) at a time with the fields transposed across rows and the date arithmetic, leap rule
 * and range check done G wide instead of by these tables.
 *
 * Instructions per timestamp, callgrind, rows:100000, the same for 0, 1, 3, 6, 9 fraction digits
 * and for 'Z' or numeric offsets (int64-binary's loop: 23): this kernel in a batch loop 98 (AVX2;
 * 113 before its present layout) and 113 (SSE4.1; 127 before); the vertical batches 39.2 (AVX2)
 * and 72.6 (SSE4.1: two-operand encodings add ~20 register copies a row, 16 registers spill).
 *
 * What limits it now. Measured 2026-12-02 on the 2-vCPU EPYC VM while other jobs ran (CV 15-40%
 * per benchmark), five interleaved rounds of the old (one-row) and new builds, 3 repetitions
 * each, medians, so read the paired ratios: rfc3339/simd/rows:100000 10.25 -> 3.46 ns (paired
 * ratio 0.43), simd-sse4.1 9.30 -> 6.31 ns (0.71); 0, 1, 3, 6, 9 fraction digits 2.8-3.5 ns
 * (ratios 0.34-0.40), 'Z' or numeric offsets 4.1-4.2 ns (0.41). A lone run of the new build,
 * `hotbench --benchmark_filter='rfc3339/(simd|...)/rows:100000' --hb_repetitions=5`: simd
 * 2.84 ns (CV 0.5%) beside int64-binary 2.40 ns (CV 30%). Of the ~39 instructions a row (AVX2,
 * read from the loop's code): ~12 the tail (its template found by a scalar lookup of the last
 * byte and the length, then load, subtract, saturating add, flag, shuffle), ~8 the head (two
 * loads and inserts, two templates, two shuffles, a multiply-add; two rows a register), ~5 the
 * span loads and addresses, ~8 the G-wide checks, transposes and arithmetic, ~1.5 the stores,
 * ~1.5 the length check and loop. The templates are per row by nature (each row's bytes must be
 * checked) and the tail's depends on the row; the next lever would be the tail's shape without
 * the scalar lookup (about 5 a row). At 1,000,000 rows (51 MB of text, spans and results, out of
 * cache) simd takes 4.0 ns beside int64-binary's 3.1 ns (same rounds, ratio 1.35 against 1.53
 * at 100k rows): there the memory stream is most of the cost.
 */
#ifndef HB_RFC3339_SIMD_H
#define HB_RFC3339_SIMD_H

#include "rfc3339_impl.h"

#include <immintrin.h>

/* ---- the head templates --------------------------------------------------------------------- */

#define D_ '0' /* a digit: lower bound '0', range 9 */
/* A = s[0, 16) "YYYY-MM-DDThh:mm" and B = s[3, 19) "Y-MM-DDThh:mm:ss": lower bounds, ranges and
 * or-masks ('T' folded to 't'), then where the digits go: Y0 Y1 Y2 Y3 M0 M1 D0 D1 h0 h1 m0 m1
 * from A, s0 s1 from B (0x80: zero). */
#define HB_LO_A D_, D_, D_, D_, '-', D_, D_, '-', D_, D_, 't', D_, D_, ':', D_, D_
#define HB_LO_B D_, '-', D_, D_, '-', D_, D_, 't', D_, D_, ':', D_, D_, ':', D_, D_
#define HB_RNG_A 9, 9, 9, 9, 0, 9, 9, 0, 9, 9, 0, 9, 9, 0, 9, 9
#define HB_RNG_B 9, 0, 9, 9, 0, 9, 9, 0, 9, 9, 0, 9, 9, 0, 9, 9
#define HB_OR_A 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0
#define HB_OR_B 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0
#define HB_SHUF_A 0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 0x80, 0x80, 0x80, 0x80
#define HB_SHUF_B                                                                                  \
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 14, 15, 0x80, 0x80

#ifdef HB_SIMD_AVX2
/* both halves in one register: A in the low lane, B in the high one */
_Alignas(32) static const uint8_t hb_simd_lo[32] = {HB_LO_A, HB_LO_B};
_Alignas(32) static const uint8_t hb_simd_rng[32] = {HB_RNG_A, HB_RNG_B};
_Alignas(32) static const uint8_t hb_simd_or[32] = {HB_OR_A, HB_OR_B};
_Alignas(32) static const uint8_t hb_simd_shuf[32] = {HB_SHUF_A, HB_SHUF_B};
#else
_Alignas(16) static const uint8_t hb_simd_lo_a[16] = {HB_LO_A};
_Alignas(16) static const uint8_t hb_simd_lo_b[16] = {HB_LO_B};
_Alignas(16) static const uint8_t hb_simd_rng_a[16] = {HB_RNG_A};
_Alignas(16) static const uint8_t hb_simd_rng_b[16] = {HB_RNG_B};
_Alignas(16) static const uint8_t hb_simd_or_a[16] = {HB_OR_A};
_Alignas(16) static const uint8_t hb_simd_or_b[16] = {HB_OR_B};
_Alignas(16) static const uint8_t hb_simd_shuf_a[16] = {HB_SHUF_A};
_Alignas(16) static const uint8_t hb_simd_shuf_b[16] = {HB_SHUF_B};
#endif
/* after (10,1): Y01 Y23 MM DD hh mm ss 0, as 16-bit lanes; each at most this (month 00 and day
 * 00 are rejected by the day's check, hb_simd_kernel) */
_Alignas(16) static const int16_t hb_simd_max[8] = {99, 99, 12, 31, 23, 59, 59, 0};

#undef D_

/* ---- the tail templates, computed by the preprocessor ---------------------------------------- */

/* Entry [z][f]: z = 1 when the offset is 'Z' (1 byte) else 0 ("+hh:mm", 6 bytes); f = bytes of
 * the fraction with its '.', 0 or 2 to 10 (1 is never used). Lane i of T holds byte
 * p = len - 16 + i = i + 3 + f + offset bytes. Classes: 0 any (the head's bytes), 1 digit,
 * 2 '.', 3 'z' (after or 0x20), 4 ':', 5 the sign: '+' to '-' (',' passes here and is rejected
 * after the shuffle, hb_simd_kernel). */
#define HB_T_OFF(z) ((z) ? 1 : 6)
#define HB_T_LEN(z, f) (19 + (f) + HB_T_OFF(z))
#define HB_T_POS(z, f, i) ((i) + 3 + (f) + HB_T_OFF(z))
#define HB_T_CLASS(z, f, i)                                                                        \
    (HB_T_POS(z, f, i) < 19                    ? 0                                                 \
     : HB_T_POS(z, f, i) == 19 && (f) > 0      ? 2                                                 \
     : HB_T_POS(z, f, i) < 19 + (f)            ? 1                                                 \
     : (z)                                     ? 3                                                 \
     : HB_T_POS(z, f, i) == HB_T_LEN(z, f) - 6 ? 5                                                 \
     : HB_T_POS(z, f, i) == HB_T_LEN(z, f) - 3 ? 4                                                 \
                                               : 1)
#define HB_T_LO(z, f, i)                                                                           \
    (HB_T_CLASS(z, f, i) == 1   ? '0'                                                              \
     : HB_T_CLASS(z, f, i) == 2 ? '.'                                                              \
     : HB_T_CLASS(z, f, i) == 3 ? 'z'                                                              \
     : HB_T_CLASS(z, f, i) == 4 ? ':'                                                              \
     : HB_T_CLASS(z, f, i) == 5 ? '+'                                                              \
                                : 0)
#define HB_T_RNG(z, f, i)                                                                          \
    (HB_T_CLASS(z, f, i) == 1   ? 9                                                                \
     : HB_T_CLASS(z, f, i) == 0 ? 0xFF                                                             \
     : HB_T_CLASS(z, f, i) == 5 ? 2                                                                \
                                : 0)
#define HB_T_OR(z, f, i) (HB_T_CLASS(z, f, i) == 3 ? 0x20 : 0)
/* One shuffle gathers the numbers of the tail: fraction digit d (0 .. f-2) sits at p = 20 + d,
 * lane 17 + d - f - offset bytes, and goes to lane 7 + d, so that lanes 7..15 hold the nine
 * digits of the nanoseconds; the offset's digits hh and mm (lanes 11, 12, 14, 15 of T) go to
 * lanes 0..3 and its sign (lane 10, minus '+': 0 or 2) to lane 5. Everything else is zeroed
 * (0x80). */
#define HB_T_SHUF(z, f, j)                                                                         \
    ((f) >= 2 && (j) >= 7 && (j)-7 < (f)-1 ? 17 + ((j)-7) - (f)-HB_T_OFF(z)                        \
     : !(z) && (j) < 4                     ? ((j) < 2 ? 11 + (j) : 12 + (j))                       \
     : !(z) && (j) == 5                    ? 10                                                    \
                                           : 0x80)

/* The table is indexed by z and L = len - 20 (0 to 15), from which f = L + 1 - offset bytes;
 * a shape no valid string has (f < 0, f = 1, f > 10) gets a template no input passes: lane 0
 * or-ed with 0xFF must equal 0. */
#define HB_T_F(z, L) ((L) + 1 - HB_T_OFF(z))
#define HB_T_OK(z, L) (HB_T_F(z, L) == 0 || (HB_T_F(z, L) >= 2 && HB_T_F(z, L) <= 10))
#define HB_T_LO_L(z, L, i) (HB_T_OK(z, L) ? HB_T_LO(z, HB_T_F(z, L), i) : 0)
#define HB_T_RNG_L(z, L, i) (HB_T_OK(z, L) ? HB_T_RNG(z, HB_T_F(z, L), i) : 0)
#define HB_T_OR_L(z, L, i) (HB_T_OK(z, L) ? HB_T_OR(z, HB_T_F(z, L), i) : (i) == 0 ? 0xFF : 0)
#define HB_T_SHUF_L(z, L, i) (HB_T_OK(z, L) ? HB_T_SHUF(z, HB_T_F(z, L), i) : 0x80)

#define HB_T_LANES(M, z, L)                                                                        \
    {                                                                                              \
        M(z, L, 0), M(z, L, 1), M(z, L, 2), M(z, L, 3), M(z, L, 4), M(z, L, 5), M(z, L, 6),        \
            M(z, L, 7), M(z, L, 8), M(z, L, 9), M(z, L, 10), M(z, L, 11), M(z, L, 12),             \
            M(z, L, 13), M(z, L, 14), M(z, L, 15)                                                  \
    }
#define HB_T_ENTRY(z, L)                                                                           \
    {                                                                                              \
        HB_T_LANES(HB_T_LO_L, z, L), HB_T_LANES(HB_T_RNG_L, z, L), HB_T_LANES(HB_T_OR_L, z, L),    \
            HB_T_LANES(HB_T_SHUF_L, z, L)                                                          \
    }
#define HB_T_ROW(z)                                                                                \
    {                                                                                              \
        HB_T_ENTRY(z, 0), HB_T_ENTRY(z, 1), HB_T_ENTRY(z, 2), HB_T_ENTRY(z, 3), HB_T_ENTRY(z, 4),  \
            HB_T_ENTRY(z, 5), HB_T_ENTRY(z, 6), HB_T_ENTRY(z, 7), HB_T_ENTRY(z, 8),                \
            HB_T_ENTRY(z, 9), HB_T_ENTRY(z, 10), HB_T_ENTRY(z, 11), HB_T_ENTRY(z, 12),             \
            HB_T_ENTRY(z, 13), HB_T_ENTRY(z, 14), HB_T_ENTRY(z, 15)                                \
    }

typedef struct hb_simd_tail {
    _Alignas(16) uint8_t lo[16];
    _Alignas(16) uint8_t rng[16];
    _Alignas(16) uint8_t orm[16];
    _Alignas(16) uint8_t shuf[16];
} hb_simd_tail;

static const hb_simd_tail hb_simd_tails[2][16] = {HB_T_ROW(0), HB_T_ROW(1)};

/* The row of hb_simd_tails for a last byte, as an index into the flattened table: 16 (z = 1)
 * for 'Z' and 'z', 0 for any other byte. */
static const uint8_t hb_simd_tail_row[256] = {['Z'] = 16, ['z'] = 16};

/* ---- the date by table lookup ---------------------------------------------------------------- */

/* hb_simd_year_days[y] for y = 0 .. 9999 (proleptic Gregorian, year 0 = 1 BC, a leap year):
 * 32 * (days from 0000-01-01 to y-01-01) + 16 if y is a leap year (so that the entry masked
 * with 16 is the leap half of hb_simd_month's index) + 8 if a time in year y may lie outside
 * HB_RFC3339_MIN/MAX_SECONDS (years 0, 1 and 9999 with an offset of up to 23:59; in years
 * 2-9998 every time is in range, so their instants need no range check). Days from 1970-01-01
 * are the entry / 32 minus HB_SIMD_DAYS_1970. Defined in rfc3339_sse41.c, built by the
 * preprocessor from HB_SIMD_YEAR_ENTRY; the tests check every year against the reference. */
#define HB_SIMD_DAYS_1970 719528 /* 1970-01-01 counted from 0000-01-01 */
#define HB_SIMD_LEAP(y) ((y) % 4 == 0 && ((y) % 100 != 0 || (y) % 400 == 0))
#define HB_SIMD_DAYS_BEFORE(y)                                                                     \
    ((y) == 0 ? 0 : 366 + 365 * ((y)-1) + ((y)-1) / 4 - ((y)-1) / 100 + ((y)-1) / 400)
#define HB_SIMD_YEAR_ENTRY(y)                                                                      \
    (32u * (uint32_t)HB_SIMD_DAYS_BEFORE(y) + 16u * (uint32_t)HB_SIMD_LEAP(y) +                    \
     8u * (uint32_t)((y) <= 1 || (y) == 9999))
extern const uint32_t hb_simd_year_days[10000];

/* Indexed by 16 * leap + month (month 1-12; other months are rejected before these count):
 * the days of the year before the month in the low 16 bits, the days in the month above. */
#define HB_SIMD_M(before, days) ((before) | (days) << 16)
/* clang-format off */
static const uint32_t hb_simd_month[32] = {
    0,                    HB_SIMD_M(0, 31),     HB_SIMD_M(31, 28),    HB_SIMD_M(59, 31),
    HB_SIMD_M(90, 30),    HB_SIMD_M(120, 31),   HB_SIMD_M(151, 30),   HB_SIMD_M(181, 31),
    HB_SIMD_M(212, 31),   HB_SIMD_M(243, 30),   HB_SIMD_M(273, 31),   HB_SIMD_M(304, 30),
    HB_SIMD_M(334, 31),   0,                    0,                    0,
    0,                    HB_SIMD_M(0, 31),     HB_SIMD_M(31, 29),    HB_SIMD_M(60, 31),
    HB_SIMD_M(91, 30),    HB_SIMD_M(121, 31),   HB_SIMD_M(152, 30),   HB_SIMD_M(182, 31),
    HB_SIMD_M(213, 31),   HB_SIMD_M(244, 30),   HB_SIMD_M(274, 31),   HB_SIMD_M(305, 30),
    HB_SIMD_M(335, 31),   0,                    0,                    0};
/* clang-format on */
#undef HB_SIMD_M

/* ---- the kernel ----------------------------------------------------------------------------- */

#define HB_LD(p) _mm_load_si128((const __m128i *)(const void *)(p))
#define HB_LDU(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define HB_LD256(p) _mm256_load_si256((const __m256i *)(const void *)(p))

/* Each lane of x (bytes minus their lower bound) within its range: all-ones where valid. */
static inline __m128i hb_simd_in_range(__m128i x, __m128i rng)
{
    return _mm_cmpeq_epi8(_mm_min_epu8(x, rng), x);
}

/* What the kernel found: the instant, and why not. */
typedef struct hb_simd_result {
    int64_t secs;   /* seconds since 1970-01-01T00:00:00Z (meaningless when rejected) */
    uint32_t nanos; /* 0 .. 999999999 */
    uint32_t bad;   /* nonzero: the bytes break the grammar or a field is out of range */
    uint32_t edge;  /* nonzero: year 0, 1 or 9999, so secs needs hb_simd_out_of_range */
} hb_simd_result;

/* Nonzero when secs is outside HB_RFC3339_MIN/MAX_SECONDS. */
static inline int hb_simd_out_of_range(int64_t secs)
{
    return (uint64_t)(secs - HB_RFC3339_MIN_SECONDS) >
           (uint64_t)(HB_RFC3339_MAX_SECONDS - HB_RFC3339_MIN_SECONDS);
}

/* The date of the kernel's fields (16-bit lanes 2 and 3: month and day) in the given year, as
 * days since 1970-01-01: looked up, checked against its month (*day_ok 0 when not); day 00 wraps
 * to a large day - 1 and month 00 has 0 days, so both fail (year and month are junk, but in
 * bounds, when the bytes were bad). *e: the year's hb_simd_year_days entry (its 8: an edge year, 0,
 * 1 or 9999). Inlined: the kernel's own last step, apart for length only; the object code is
 * unchanged. */
__attribute__((always_inline)) static inline int32_t hb_simd_days(__m128i fields, uint32_t year,
                                                                  uint32_t *day_ok, uint32_t *e)
{
    uint64_t lo64 = (uint64_t)_mm_cvtsi128_si64(fields);
    uint32_t month = (uint32_t)(lo64 >> 32 & 0xFFFF), day = (uint32_t)(lo64 >> 48);
    *e = hb_simd_year_days[year];
    uint32_t mt = hb_simd_month[(*e & 16) | month];
    *day_ok = day - 1 < mt >> 16;
    return (int32_t)(*e >> 5) - HB_SIMD_DAYS_1970 + (int32_t)(mt & 0xFFFF) + (int32_t)day - 1;
}

/* Parses the len bytes at s, 20 <= len <= 35 (the caller checks: the loads rely on it), without
 * a branch: every check is computed and or-ed into r.bad (r.edge asks for the range check), so a
 * batch of mixed shapes costs the same per row as one of a single shape. Reads only [s, s + len).
 */
__attribute__((always_inline)) static inline hb_simd_result hb_simd_kernel(const char *s,
                                                                           size_t len)
{
    const unsigned char *u = (const unsigned char *)s;

    /* the head: validate 19 bytes, gather the 14 digits, pairs to numbers */
#ifdef HB_SIMD_AVX2
    __m256i ab = _mm256_inserti128_si256(_mm256_castsi128_si256(HB_LDU(s)), HB_LDU(s + 3), 1);
    __m256i x = _mm256_sub_epi8(_mm256_or_si256(ab, HB_LD256(hb_simd_or)), HB_LD256(hb_simd_lo));
    __m256i ok2 = _mm256_cmpeq_epi8(_mm256_min_epu8(x, HB_LD256(hb_simd_rng)), x);
    __m128i ok = _mm_and_si128(_mm256_castsi256_si128(ok2), _mm256_extracti128_si256(ok2, 1));
    __m256i g = _mm256_shuffle_epi8(x, HB_LD256(hb_simd_shuf));
    __m128i digits = _mm_or_si128(_mm256_castsi256_si128(g), _mm256_extracti128_si256(g, 1));
#else
    __m128i xa = _mm_sub_epi8(_mm_or_si128(HB_LDU(s), HB_LD(hb_simd_or_a)), HB_LD(hb_simd_lo_a));
    __m128i xb =
        _mm_sub_epi8(_mm_or_si128(HB_LDU(s + 3), HB_LD(hb_simd_or_b)), HB_LD(hb_simd_lo_b));
    __m128i ok = _mm_and_si128(hb_simd_in_range(xa, HB_LD(hb_simd_rng_a)),
                               hb_simd_in_range(xb, HB_LD(hb_simd_rng_b)));
    __m128i digits = _mm_or_si128(_mm_shuffle_epi8(xa, HB_LD(hb_simd_shuf_a)),
                                  _mm_shuffle_epi8(xb, HB_LD(hb_simd_shuf_b)));
#endif
    __m128i tens = _mm_set1_epi16(0x010A); /* bytes 10, 1: first digit times ten */
    /* each field at most its maximum (and clamped to it, so that the tables below are indexed
     * within bounds whatever the bytes were) */
    __m128i raw = _mm_maddubs_epi16(digits, tens); /* 0 .. 2805 */
    __m128i fields = _mm_min_epu16(raw, HB_LD(hb_simd_max));
    ok = _mm_and_si128(ok, _mm_cmpeq_epi16(fields, raw));

    /* the tail: its shape from len and the last byte, then one template */
    const hb_simd_tail *t =
        &hb_simd_tails[0][0] + hb_simd_tail_row[u[len - 1]] + (len - HB_RFC3339_MIN_LEN);
    __m128i xt = _mm_sub_epi8(_mm_or_si128(HB_LDU(s + len - 16), HB_LD(t->orm)), HB_LD(t->lo));
    ok = _mm_and_si128(ok, hb_simd_in_range(xt, HB_LD(t->rng)));

    /* lanes 0-1 the offset's hh, mm, lane 5 its sign (zero for 'Z'); lanes 7-15 the nine
     * digits of the nanos */
    __m128i fd = _mm_shuffle_epi8(xt, HB_LD(t->shuf));
    __m128i p2 = _mm_maddubs_epi16(fd, tens); /* hh mm sign d0 d1d2 d3d4 d5d6 d7d8 */
    /* hh <= 23, mm <= 59, and the sign not ',' (1: between '+' and '-') */
    __m128i out_of_range = _mm_or_si128(
        _mm_cmpgt_epi16(p2, _mm_setr_epi16(23, 59, 2, 0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x7fff)),
        _mm_cmpeq_epi16(p2, _mm_setr_epi16(-1, -1, 1, -1, -1, -1, -1, -1)));
    ok = _mm_andnot_si128(out_of_range, ok);
    uint32_t bad = (uint32_t)_mm_movemask_epi8(ok) ^ 0xFFFF;
    __m128i p4 = _mm_madd_epi16(p2, _mm_setr_epi16(0, 0, 0, 1, 100, 1, 100, 1)); /* 4 digits */
    __m128i p4w = _mm_packus_epi32(p4, p4);                                      /* 16-bit */
    __m128i p8 = _mm_madd_epi16(p4w, _mm_set1_epi32(0x00012710)); /* 8 digits: 10000, 1 */
    uint64_t n8 = (uint64_t)_mm_cvtsi128_si64(p8);
    uint32_t nanos = (uint32_t)n8 * 100000000u + (uint32_t)(n8 >> 32);
    /* [hh * 3600 + mm * 60, sign]: the offset in seconds and its factor plus one ('+' 0: the
     * offset is subtracted, '-' 2: added; for 'Z' both are 0) */
    uint64_t os =
        (uint64_t)_mm_cvtsi128_si64(_mm_madd_epi16(p2, _mm_setr_epi16(3600, 60, 1, 0, 0, 0, 0, 0)));
    int32_t offset = (int32_t)(uint32_t)os, sign = (int32_t)(os >> 32) - 1;

    /* [Y01 * 100 + Y23, 0, hh * 3600 + mm * 60, ss] by one multiply-add; lane 2 plus lane 3 is
     * the second of the day */
    __m128i ys = _mm_madd_epi16(fields, _mm_setr_epi16(100, 1, 0, 0, 3600, 60, 1, 0));
    uint32_t year = (uint32_t)_mm_cvtsi128_si32(ys);
    int32_t sod = _mm_extract_epi32(_mm_add_epi32(ys, _mm_srli_si128(ys, 4)), 2);
    uint32_t day_ok, e;
    int32_t days = hb_simd_days(fields, year, &day_ok, &e);
    hb_simd_result r;
    /* the second of the day minus the offset, in unsigned arithmetic: when bad, sign and offset
     * may be junk (up to 255 and 10^7) and the product may wrap; when valid it is exact */
    int32_t local = (int32_t)((uint32_t)sod + (uint32_t)sign * (uint32_t)offset);
    r.secs = (int64_t)days * 86400 + local;
    r.nanos = nanos;
    r.bad = bad | !day_ok;
    r.edge = e & 8;
    return r;
}

/* One field: HB_OK and *out, HB_EPARSE (grammar, field range, no such day) or HB_ERANGE (the
 * instant outside 0001-9999 after the offset); *out untouched when rejected. */
__attribute__((always_inline)) static inline int hb_simd_parse(const char *s, size_t len,
                                                               hb_rfc3339_time *out)
{
    if (len - HB_RFC3339_MIN_LEN > HB_RFC3339_MAX_LEN - HB_RFC3339_MIN_LEN) /* also len < 20 */
        return HB_EPARSE;
    hb_simd_result r = hb_simd_kernel(s, len);
    if (r.bad)
        return HB_EPARSE;
    if (r.edge && hb_simd_out_of_range(r.secs))
        return HB_ERANGE;
    out->seconds = r.secs;
    out->nanos = (int32_t)r.nanos;
    return HB_OK;
}

/* The batch loop of both builds (hb_rfc3339_batch_sse41/avx2, same contract): out[i] for
 * spans[i], HB_RFC3339_BAD_* where rejected; returns the number rejected. A rejection takes a
 * branch (rare in a result set, so predicted). */
__attribute__((always_inline)) static inline size_t
hb_simd_batch(const char *base, const hb_rfc3339_span *spans, size_t n, hb_rfc3339_time *out)
{
    size_t rejected = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = spans[i].len;
        if (__builtin_expect(len - HB_RFC3339_MIN_LEN > HB_RFC3339_MAX_LEN - HB_RFC3339_MIN_LEN,
                             0)) {
            hb_ts_bad(&out[i]);
            rejected++;
            continue;
        }
        hb_simd_result r = hb_simd_kernel(base + spans[i].off, len);
        if (__builtin_expect((r.bad | r.edge) != 0, 0) && (r.bad || hb_simd_out_of_range(r.secs))) {
            hb_ts_bad(&out[i]);
            rejected++;
            continue;
        }
        out[i].seconds = r.secs;
        out[i].nanos = (int32_t)r.nanos;
    }
    return rejected;
}

#endif /* HB_RFC3339_SIMD_H */

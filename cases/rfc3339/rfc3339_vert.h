/* rfc3339_vert.h - private: the AVX2 batch's 8-row vertical kernel, included by rfc3339_avx2.c
 * only (after rfc3339_simd.h with HB_SIMD_AVX2 defined; -mavx2, run after run-time dispatch).
 *
 * The one-row kernel (rfc3339_simd.h) spends about 60 of its 98 instructions a row in scalar
 * code: table lookups of the date, moves from vector to scalar registers, the arithmetic of the
 * instant. Here a group of 8 rows shares that work:
 *   1. the spans: all 8 lengths checked in one compare (20 <= len <= 35, before any load);
 *   2. the head, two rows per 256-bit register (row k low, row k + 4 high): the templates of
 *      rfc3339_simd.h applied to s[0, 16) and s[3, 19), the 14 digits gathered and paired by
 *      (10,1) into [Y01 Y23 MM DD hh mm ss 0] as 16-bit lanes;
 *   3. the tail, one row per 128-bit register: its template from hb_vert_tails (indexed as
 *      hb_simd_tails) gives [oh om sign d0 d1d2 d3d4 d5d6 d7d8], the same shape;
 *   4. a 4 x 4 transpose of 32-bit lanes (unpack 32, unpack 64) turns each pair of fields into
 *      one register with row k in lane k;
 *   5. every check and the arithmetic run 8 rows wide: field ranges, the month's length by a
 *      variable shift of the packed table of month lengths, days from civil (Hinnant's, as
 *      hb_days_from_civil, with y / 100 by a 16-bit high multiply), seconds of the day, the
 *      signed offset (vpsignd), nanoseconds, then days * 86400 in two 32x32->64 multiplies;
 *   6. four unpacks give 8 rows of {seconds, nanos, 0}, stored as 16-byte rows.
 * Validation uses "bytes minus lower bound, plus (127 - range) saturating": the top bit of each
 * byte is set exactly when the byte is out of its range; every check is or-ed into one register
 * and tested once per group.
 *
 * A group is stored only when every row in it is valid, its year is 2-9998 (so the instant
 * needs no range check) and no row is February 29 (the leap rule is left to the one-row
 * kernel). Otherwise - a rejection, a length outside 20-35, an edge year, a leap day - the whole
 * group goes through hb_simd_batch, the one-row kernel, so the answer never depends on the
 * column being uniform: the vertical path may only send too many rows to the exact one (a
 * template that also flags a byte the head rejects anyway), never accept one it should not.
 */
#ifndef HB_RFC3339_VERT_H
#define HB_RFC3339_VERT_H

#ifndef HB_SIMD_AVX2
#error "rfc3339_vert.h is the AVX2 build's batch: include it after rfc3339_simd.h with HB_SIMD_AVX2"
#endif

#include "rfc3339_simd.h"

/* ---- templates ------------------------------------------------------------------------------ */

/* The bias turning a range into the top bit: x + (127 - range), saturating, is >= 128 exactly
 * when x > range. A lane that may hold anything (range 0xFF, only the head's bytes, which the
 * head checks) gets bias 0: it only flags bytes >= 0x80, which the head rejects too. */
#define HB_V_BIAS(r) ((r) == 0xFF ? 0 : 0x7F - (r))

#define D_ '0'
/* the head, as rfc3339_simd.h's A and B, for two rows (row k low, row k + 4 high); B's 'T'
 * (byte 10, also A's lane 10) is left to A so that B needs no or */
#define HB_V_LO_A D_, D_, D_, D_, '-', D_, D_, '-', D_, D_, 't', D_, D_, ':', D_, D_
#define HB_V_LO_B D_, '-', D_, D_, '-', D_, D_, 0, D_, D_, ':', D_, D_, ':', D_, D_
#define HB_V_BI_A 118, 118, 118, 118, 127, 118, 118, 127, 118, 118, 127, 118, 118, 127, 118, 118
#define HB_V_BI_B 118, 127, 118, 118, 127, 118, 118, 0, 118, 118, 127, 118, 118, 127, 118, 118
#define HB_V_OR_A 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0
_Alignas(32) static const uint8_t hb_vert_lo_a[32] = {HB_V_LO_A, HB_V_LO_A};
_Alignas(32) static const uint8_t hb_vert_lo_b[32] = {HB_V_LO_B, HB_V_LO_B};
_Alignas(32) static const uint8_t hb_vert_bias_a[32] = {HB_V_BI_A, HB_V_BI_A};
_Alignas(32) static const uint8_t hb_vert_bias_b[32] = {HB_V_BI_B, HB_V_BI_B};
_Alignas(32) static const uint8_t hb_vert_or_a[32] = {HB_V_OR_A, HB_V_OR_A};
_Alignas(32) static const uint8_t hb_vert_shuf_a[32] = {HB_SHUF_A, HB_SHUF_A};
_Alignas(32) static const uint8_t hb_vert_shuf_b[32] = {HB_SHUF_B, HB_SHUF_B};
#undef D_

/* The tail templates: hb_simd_tails' entries with the range turned into a bias, and no or-mask:
 * the row of the table is chosen by the last byte (hb_simd_tail_row), so in a 'Z' row that byte
 * is 'Z' or 'z' already and its lane may hold anything; a shape no valid string has gets a bias
 * of 0x80, which flags every lane whatever the bytes. */
typedef struct hb_vert_tail {
    _Alignas(16) uint8_t lo[16];
    _Alignas(16) uint8_t bias[16];
    _Alignas(16) uint8_t shuf[16];
    _Alignas(16) uint8_t pad[16]; /* 64 bytes: the index scales by a shift */
} hb_vert_tail;

#define HB_V_ANY(z, L, i) (HB_T_CLASS(z, HB_T_F(z, L), i) == 3) /* only when HB_T_OK */
#define HB_V_LO_L(z, L, i) (HB_T_OK(z, L) && !HB_V_ANY(z, L, i) ? HB_T_LO_L(z, L, i) : 0)
#define HB_V_BIAS_L(z, L, i)                                                                       \
    (!HB_T_OK(z, L) ? 0x80 : HB_V_ANY(z, L, i) ? 0 : HB_V_BIAS(HB_T_RNG_L(z, L, i)))
#define HB_V_ENTRY(z, L)                                                                           \
    {                                                                                              \
        HB_T_LANES(HB_V_LO_L, z, L), HB_T_LANES(HB_V_BIAS_L, z, L),                                \
            HB_T_LANES(HB_T_SHUF_L, z, L), {0}                                                     \
    }
#define HB_V_ROW(z)                                                                                \
    HB_V_ENTRY(z, 0), HB_V_ENTRY(z, 1), HB_V_ENTRY(z, 2), HB_V_ENTRY(z, 3), HB_V_ENTRY(z, 4),      \
        HB_V_ENTRY(z, 5), HB_V_ENTRY(z, 6), HB_V_ENTRY(z, 7), HB_V_ENTRY(z, 8), HB_V_ENTRY(z, 9),  \
        HB_V_ENTRY(z, 10), HB_V_ENTRY(z, 11), HB_V_ENTRY(z, 12), HB_V_ENTRY(z, 13),                \
        HB_V_ENTRY(z, 14), HB_V_ENTRY(z, 15)
/* indexed by hb_simd_tail_row[last byte] + len - 20, as hb_simd_tails flattened */
static const hb_vert_tail hb_vert_tails[32] = {HB_V_ROW(0), HB_V_ROW(1)};

/* The constants of the 8-wide steps, as memory operands: the compiler otherwise rebuilds
 * set1 constants in the loop (mov, vmovd, vpbroadcastd) once the registers run out. */
typedef struct hb_v8 {
    _Alignas(32) int32_t v[8];
} hb_v8;
#define HB_V8(c)                                                                                   \
    {                                                                                              \
        {                                                                                          \
            (int32_t)(c), (int32_t)(c), (int32_t)(c), (int32_t)(c), (int32_t)(c), (int32_t)(c),   \
                (int32_t)(c), (int32_t)(c)                                                         \
        }                                                                                          \
    }
enum {
    HB_K_LOW16,     /* 0xFFFF: the low field of a pair */
    HB_K_3,         /* months before March are < 3 */
    HB_K_12,        /* their months counted from March */
    HB_K_400,       /* the 400 years' shift */
    HB_K_5243,      /* y / 100 = (y * 5243) >> 19 */
    HB_K_979,       /* days before the month */
    HB_K_2921,      /* 979 * 3 - 16 */
    HB_K_1461,      /* days in 4 years */
    HB_K_EPOCH,     /* 1970-03-01 from 0000-03-01 + 400 y, + 2 (hb_vert_days) */
    HB_K_MDAYS,     /* HB_TS_MDAYS_BITS */
    HB_K_28,        /* the shortest month */
    HB_K_MD_MAX,    /* [12, 31]: month, day */
    HB_K_FEB29,     /* [2, 29] */
    HB_K_HM_MAX,    /* [23, 59]: hour, minute */
    HB_K_59,        /* [59, 0]: second */
    HB_K_9998,      /* the last year with no range check */
    HB_K_2,         /* the first */
    HB_K_HM,        /* [3600, 60]: hour, minute to seconds */
    HB_K_1,         /* the sign's offset */
    HB_K_COMMA,     /* [1, -1]: ',' in the sign's lane */
    HB_K_DAY,       /* 86400 */
    HB_K_100_1,     /* [100, 1]: two pairs of digits to four */
    HB_K_0_10000,   /* [0, 10000]: the fraction's first digit */
    HB_K_10000,
    HB_K_LOW32,     /* 0xFFFFFFFF in each 64-bit lane */
    HB_K_TENS,      /* bytes [10, 1]: two digits to a 16-bit number */
    HB_K_TOP,       /* 0x80 in every byte: the flags of a bad byte */
    HB_K_COUNT
};
static const hb_v8 hb_vert_k[HB_K_COUNT] = {
    [HB_K_LOW16] = HB_V8(0xFFFF),
    [HB_K_3] = HB_V8(3),
    [HB_K_12] = HB_V8(12),
    [HB_K_400] = HB_V8(400),
    [HB_K_5243] = HB_V8(5243),
    [HB_K_979] = HB_V8(979),
    [HB_K_2921] = HB_V8(2921),
    [HB_K_1461] = HB_V8(1461),
    [HB_K_EPOCH] = HB_V8(719468 + 146097 + 1 + 1),
    [HB_K_MDAYS] = HB_V8(HB_TS_MDAYS_BITS),
    [HB_K_28] = HB_V8(28),
    [HB_K_MD_MAX] = HB_V8(12 | 31 << 16),
    [HB_K_FEB29] = HB_V8(2 | 29 << 16),
    [HB_K_HM_MAX] = HB_V8(23 | 59 << 16),
    [HB_K_59] = HB_V8(59),
    [HB_K_9998] = HB_V8(9998),
    [HB_K_2] = HB_V8(2),
    [HB_K_HM] = HB_V8(3600 | 60 << 16),
    [HB_K_1] = HB_V8(1),
    [HB_K_COMMA] = HB_V8(1 | 0xFFFFu << 16),
    [HB_K_DAY] = HB_V8(86400),
    [HB_K_100_1] = HB_V8(100 | 1 << 16),
    [HB_K_0_10000] = HB_V8(10000 << 16),
    [HB_K_10000] = HB_V8(10000),
    [HB_K_LOW32] = {{-1, 0, -1, 0, -1, 0, -1, 0}},
    [HB_K_TENS] = HB_V8(0x010A010A),
    [HB_K_TOP] = HB_V8(0x80808080u),
};
#define HB_V_LD256(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define HB_K(name) HB_V_LD256(hb_vert_consts()[HB_K_##name].v)

/* hb_vert_k through a pointer the compiler cannot see through: without it GCC folds the loads
 * back into constants and rebuilds them in the loop (the point of the table is the memory
 * operand). */
__attribute__((always_inline)) static inline const hb_v8 *hb_vert_consts(void)
{
    const hb_v8 *k = hb_vert_k;
    __asm__("" : "+r"(k));
    return k;
}

/* *acc |= flags, kept in program order: an empty asm pins the accumulator, so the compiler
 * cannot re-associate the chain into a tree that keeps every term live (and spilled). */
#define HB_V_FLAG(acc, flags)                                                                      \
    do {                                                                                           \
        *(acc) = _mm256_or_si256(*(acc), flags);                                                   \
        __asm__("" : "+x"(*(acc)));                                                                \
    } while (0)
#define HB_V_FLAG128(acc, flags)                                                                   \
    do {                                                                                           \
        *(acc) = _mm_or_si128(*(acc), flags);                                                      \
        __asm__("" : "+x"(*(acc)));                                                                \
    } while (0)

/* ---- the steps of a group ------------------------------------------------------------------- */

#define HB_V_PAIR(lo, hi) _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1)

/* The head of rows s0 (low lane) and s4 (high lane): 16-bit [Y01 Y23 MM DD hh mm ss 0] each;
 * out-of-range bytes set top bits in *bad. */
__attribute__((always_inline)) static inline __m256i hb_vert_head(const char *s0, const char *s4,
                                                                  __m256i *bad)
{
    __m256i a = HB_V_PAIR(HB_LDU(s0), HB_LDU(s4));
    __m256i b = HB_V_PAIR(HB_LDU(s0 + 3), HB_LDU(s4 + 3));
    __m256i xa = _mm256_sub_epi8(_mm256_or_si256(a, HB_V_LD256(hb_vert_or_a)),
                                 HB_V_LD256(hb_vert_lo_a));
    __m256i xb = _mm256_sub_epi8(b, HB_V_LD256(hb_vert_lo_b));
    HB_V_FLAG(bad, _mm256_adds_epu8(xa, HB_V_LD256(hb_vert_bias_a)));
    HB_V_FLAG(bad, _mm256_adds_epu8(xb, HB_V_LD256(hb_vert_bias_b)));
    __m256i digits = _mm256_or_si256(_mm256_shuffle_epi8(xa, HB_V_LD256(hb_vert_shuf_a)),
                                     _mm256_shuffle_epi8(xb, HB_V_LD256(hb_vert_shuf_b)));
    return _mm256_maddubs_epi16(digits, HB_K(TENS));
}

/* The tail of the row s[0, len), 20 <= len <= 35: lanes 0-3 the offset's digits, 5 its sign
 * minus '+', 7-15 the fraction's nine digits (zero-padded); top bits into *bad. */
__attribute__((always_inline)) static inline __m128i hb_vert_tail_row(const char *s, size_t len,
                                                                      __m128i *bad)
{
    const hb_vert_tail *t =
        hb_vert_tails + hb_simd_tail_row[(unsigned char)s[len - 1]] + (len - HB_RFC3339_MIN_LEN);
    __m128i x = _mm_sub_epi8(HB_LDU(s + len - 16), HB_LD(t->lo));
    HB_V_FLAG128(bad, _mm_adds_epu8(x, HB_LD(t->bias)));
    return _mm_shuffle_epi8(x, HB_LD(t->shuf));
}

/* Transposes 32-bit lanes: v[k] holds rows k (low lane) and k + 4 (high) as 4 dwords each; after,
 * v[j] holds dword j of row r in lane r. */
__attribute__((always_inline)) static inline void hb_vert_transpose(__m256i v[4])
{
    __m256i t0 = _mm256_unpacklo_epi32(v[0], v[1]), t1 = _mm256_unpackhi_epi32(v[0], v[1]);
    __m256i t2 = _mm256_unpacklo_epi32(v[2], v[3]), t3 = _mm256_unpackhi_epi32(v[2], v[3]);
    v[0] = _mm256_unpacklo_epi64(t0, t2);
    v[1] = _mm256_unpackhi_epi64(t0, t2);
    v[2] = _mm256_unpacklo_epi64(t1, t3);
    v[3] = _mm256_unpackhi_epi64(t1, t3);
}

/* Nonzero (in some top bit) where a length is outside 20..35: the 8 spans at sp. */
__attribute__((always_inline)) static inline int hb_vert_lengths_ok(const hb_rfc3339_span *sp)
{
    /* dwords off, len, off, len ...: len - 20 must be 0..15; the offsets are masked out */
    const __m256i min = _mm256_setr_epi32(0, 20, 0, 20, 0, 20, 0, 20);
    const __m256i high = _mm256_setr_epi32(0, -16, 0, -16, 0, -16, 0, -16);
    __m256i a = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(const void *)sp), min);
    __m256i b = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(sp + 4)), min);
    return _mm256_testz_si256(_mm256_or_si256(a, b), high);
}

/* Days from 1970-01-01, minus one, of 8 dates: y the year (2-9998), m the month (1-12), d the
 * day (1-31), 32-bit lanes. hb_days_from_civil, 8 wide: the year counted from March and shifted
 * by 400, y / 100 as (y * 5243) >> 19 (exact for y < 43699), the days before the month as
 * (979 (m' - 3) + 16) / 32 with m' the month counted from March plus 3. */
__attribute__((always_inline)) static inline __m256i hb_vert_days(__m256i year, __m256i month,
                                                                  __m256i day)
{
    __m256i jan_feb = _mm256_cmpgt_epi32(HB_K(3), month); /* all-ones: -1 */
    __m256i y = _mm256_add_epi32(_mm256_add_epi32(year, jan_feb), HB_K(400));
    __m256i m = _mm256_add_epi32(month, _mm256_and_si256(jan_feb, HB_K(12)));
    __m256i c = _mm256_srli_epi16(_mm256_mulhi_epu16(y, HB_K(5243)), 3);
    __m256i before = _mm256_srli_epi32(
        _mm256_sub_epi32(_mm256_mullo_epi16(m, HB_K(979)), HB_K(2921)),
        5);
    __m256i days = _mm256_srli_epi32(_mm256_mullo_epi32(y, HB_K(1461)), 2);
    days = _mm256_add_epi32(_mm256_sub_epi32(days, c), _mm256_srli_epi32(c, 2));
    days = _mm256_add_epi32(_mm256_add_epi32(days, before), day);
    /* 1970-03-01 from 0000-03-01 plus 400 years, the day's - 1, and the one day lent to the
     * second of the day (hb_vert_group) */
    return _mm256_sub_epi32(days, HB_K(EPOCH));
}

/* Top bits where a date field is out of range: month 1-12, day 1 to the month's length
 * (February 29 is always flagged: its year's leap rule is left to the one-row kernel), hour
 * 00-23, minute and second 00-59, year 2-9998 (h = the head's fields, transposed). */
__attribute__((always_inline)) static inline __m256i hb_vert_check_head(const __m256i h[4],
                                                                        __m256i year)
{
    __m256i month = _mm256_and_si256(h[1], HB_K(LOW16));
    __m256i day = _mm256_srli_epi32(h[1], 16);
    /* days in the month minus 28: two bits at 2 * month (0 for months 0 and 13-15) */
    __m256i mdays = _mm256_and_si256(
        _mm256_srlv_epi32(HB_K(MDAYS), _mm256_add_epi32(month, month)),
        HB_K(3));
    __m256i bad = _mm256_cmpgt_epi32(day, _mm256_add_epi32(mdays, HB_K(28)));
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi16(h[1], HB_K(MD_MAX)));
    bad = _mm256_or_si256(bad, _mm256_cmpeq_epi16(h[1], _mm256_setzero_si256()));
    bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(h[1], HB_K(FEB29)));
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi16(h[2], HB_K(HM_MAX)));
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi16(h[3], HB_K(59)));
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(year, HB_K(9998)));
    return _mm256_or_si256(bad, _mm256_cmpgt_epi32(HB_K(2), year));
}

/* Stores 8 rows: secs_e/secs_o the seconds of lanes 0, 2 | 4, 6 and 1, 3 | 5, 7 (64-bit),
 * nanos the nanoseconds of lanes 0-7; out[k] gets lane k as {seconds, nanos} (padding 0). */
__attribute__((always_inline)) static inline void hb_vert_store(__m256i secs_e, __m256i secs_o,
                                                                __m256i nanos, hb_rfc3339_time *out)
{
    __m256i n_e = _mm256_and_si256(nanos, HB_K(LOW32));
    __m256i n_o = _mm256_srli_epi64(nanos, 32);
    __m256i r04 = _mm256_unpacklo_epi64(secs_e, n_e), r26 = _mm256_unpackhi_epi64(secs_e, n_e);
    __m256i r15 = _mm256_unpacklo_epi64(secs_o, n_o), r37 = _mm256_unpackhi_epi64(secs_o, n_o);
    __m128i *o = (__m128i *)(void *)out;
    _mm_storeu_si128(o + 0, _mm256_castsi256_si128(r04));
    _mm_storeu_si128(o + 1, _mm256_castsi256_si128(r15));
    _mm_storeu_si128(o + 2, _mm256_castsi256_si128(r26));
    _mm_storeu_si128(o + 3, _mm256_castsi256_si128(r37));
    _mm_storeu_si128(o + 4, _mm256_extracti128_si256(r04, 1));
    _mm_storeu_si128(o + 5, _mm256_extracti128_si256(r15, 1));
    _mm_storeu_si128(o + 6, _mm256_extracti128_si256(r26, 1));
    _mm_storeu_si128(o + 7, _mm256_extracti128_si256(r37, 1));
}

/* Rows base + sp[k] for k = 0..7 into out[0..8) when every one is valid, of a year 2-9998 and
 * not February 29: returns 1. Otherwise returns 0 and out is untouched (the caller runs the
 * one-row kernel). The 8 lengths must be 20-35 (hb_vert_lengths_ok). */
__attribute__((always_inline)) static inline int hb_vert_group(const char *base,
                                                               const hb_rfc3339_span *sp,
                                                               hb_rfc3339_time *out)
{
    __m256i bad = _mm256_setzero_si256(), h[4], t[4];
    /* the heads: days (minus one) and the second of the day, 8 wide */
    for (int k = 0; k < 4; k++)
        h[k] = hb_vert_head(base + sp[k].off, base + sp[k + 4].off, &bad);
    hb_vert_transpose(h); /* [Y01 Y23] [MM DD] [hh mm] [ss 0] */
    __m256i year = _mm256_madd_epi16(h[0], HB_K(100_1));
    bad = _mm256_or_si256(bad, hb_vert_check_head(h, year));
    __m256i days = hb_vert_days(year, _mm256_and_si256(h[1], HB_K(LOW16)),
                                _mm256_srli_epi32(h[1], 16));
    __m256i sod = _mm256_add_epi32(_mm256_madd_epi16(h[2], HB_K(HM)), h[3]);

    /* the tails: the offset and the nanoseconds */
    __m128i bad_t = _mm_setzero_si128();
    for (int k = 0; k < 4; k++) {
        __m128i t0 = hb_vert_tail_row(base + sp[k].off, sp[k].len, &bad_t);
        __m128i t4 = hb_vert_tail_row(base + sp[k + 4].off, sp[k + 4].len, &bad_t);
        t[k] = _mm256_maddubs_epi16(HB_V_PAIR(t0, t4), HB_K(TENS));
    }
    hb_vert_transpose(t); /* [oh om] [sign d0] [d1d2 d3d4] [d5d6 d7d8] */
    bad = _mm256_or_si256(bad, _mm256_zextsi128_si256(bad_t));
    /* the offset: hh <= 23, mm <= 59, the sign '+' (0) or '-' (2), not ',' (1) */
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi16(t[0], HB_K(HM_MAX)));
    bad = _mm256_or_si256(bad, _mm256_cmpeq_epi16(t[1], HB_K(COMMA)));
    if (!_mm256_testz_si256(bad, HB_K(TOP)))
        return 0;

    /* the offset east of UTC in seconds, negated for '+' (sign - 1 = -1) and for 'Z' (0 anyway) */
    __m256i sign = _mm256_sub_epi32(_mm256_and_si256(t[1], HB_K(LOW16)), HB_K(1));
    __m256i offset = _mm256_sign_epi32(_mm256_madd_epi16(t[0], HB_K(HM)), sign);
    /* the second of the day minus the offset, plus the day lent by hb_vert_days: 60 .. 259139 */
    __m256i local = _mm256_add_epi32(_mm256_add_epi32(sod, offset), HB_K(DAY));
    __m256i secs_e = _mm256_add_epi64(_mm256_mul_epi32(days, HB_K(DAY)),
                                      _mm256_and_si256(local, HB_K(LOW32)));
    __m256i secs_o = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(days, 32), HB_K(DAY)),
                                      _mm256_srli_epi64(local, 32));
    /* nanos = (d0 * 10^4 + d1d2d3d4) * 10^4 + d5d6d7d8 */
    __m256i hi = _mm256_add_epi32(_mm256_madd_epi16(t[1], HB_K(0_10000)),
                                  _mm256_madd_epi16(t[2], HB_K(100_1)));
    __m256i nanos = _mm256_add_epi32(_mm256_mullo_epi32(hi, HB_K(10000)),
                                     _mm256_madd_epi16(t[3], HB_K(100_1)));
    hb_vert_store(secs_e, secs_o, nanos, out);
    return 1;
}

/* hb_rfc3339_batch_avx2: groups of 8 rows through hb_vert_group, the rest (and every group it
 * declines) through the one-row kernel. Same contract as hb_simd_batch. */
__attribute__((always_inline)) static inline size_t
hb_vert_batch(const char *base, const hb_rfc3339_span *spans, size_t n, hb_rfc3339_time *out)
{
    size_t rejected = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        if (__builtin_expect(hb_vert_lengths_ok(spans + i) && hb_vert_group(base, spans + i,
                                                                            out + i),
                             1))
            continue;
        rejected += hb_simd_batch(base, spans + i, 8, out + i);
    }
    return rejected + hb_simd_batch(base, spans + i, n - i, out + i);
}

#endif /* HB_RFC3339_VERT_H */

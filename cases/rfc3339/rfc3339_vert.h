/* rfc3339_vert.h - private: the SIMD batch's vertical kernel, several rows at a time, included
 * after rfc3339_simd.h by rfc3339_avx2.c (HB_SIMD_AVX2: 8 rows a group, 256-bit registers) and
 * rfc3339_sse41.c (4 rows a group, 128-bit), which only run after run-time dispatch.
 *
 * The one-row kernel (rfc3339_simd.h) spends about 60 of its 98 instructions a row (AVX2) in
 * scalar code: table lookups of the date, moves from vector to scalar registers, the arithmetic
 * of the instant. Here a group of G rows (G = HB_V_ROWS) shares that work:
 *   1. the spans: all G lengths checked in one compare (20 <= len <= 35, before any load);
 *   2. the head: the templates of rfc3339_simd.h applied to s[0, 16) and s[3, 19), the 14 digits
 *      gathered and paired by (10,1) into [Y01 Y23 MM DD hh mm ss 0] as 16-bit lanes; with AVX2
 *      two rows per register (row k low, row k + 4 high);
 *   3. the tail, one row per 128-bit register: its template from hb_vert_tails (indexed as
 *      hb_simd_tails) gives [oh om sign d0 d1d2 d3d4 d5d6 d7d8], the same shape;
 *   4. a 4 x 4 transpose of 32-bit lanes (unpack 32, unpack 64) turns each pair of fields into
 *      one register with row r in lane r;
 *   5. every check and the arithmetic run G rows wide: field ranges, the month's length by a
 *      byte shuffle, days from civil (Hinnant's, as hb_days_from_civil, with y / 100 by a 16-bit
 *      high multiply), seconds of the day, the signed offset (psignd), nanoseconds, then
 *      days * 86400 in two 32x32->64 multiplies;
 *   6. unpacks give G rows of {seconds, nanos, 0}, stored as 16-byte rows.
 * Validation uses "bytes minus lower bound, plus (127 - range) saturating": the top bit of each
 * byte is set exactly when the byte is out of its range; every check is or-ed into one register
 * and tested once per group.
 *
 * A group is stored only when every row in it is valid: the leap rule is checked G wide on
 * February 29 (y / 100 by the same high multiply), and the instant's range on the rare groups
 * holding a year 0000, 0001 or 9999 (the only ones whose instants can leave it). Otherwise - a
 * rejection, a length outside 20-35 - the whole group goes through hb_simd_batch, the one-row
 * kernel, so the answer never depends on the column being uniform: the vertical path may only send
 * too many rows to the exact one (a template that also flags a byte the head rejects anyway), never
 * accept one it should not. The price of a declined group is the vertical attempt on top of the
 * one-row kernel: a column with a rejection in every group would cost about 130 instructions a row
 * (AVX2, callgrind: 131 when, before the leap rule was done here, every 8th row was a leap day)
 * against 98 for the one-row kernel alone and ~37 for a column of valid rows.
 */
#ifndef HB_RFC3339_VERT_H
#define HB_RFC3339_VERT_H

#include "rfc3339_simd.h"

/* ---- the width: one set of names for both builds ------------------------------------------ */

#ifdef HB_SIMD_AVX2
#define HB_V_ROWS 8 /* rows a group */
typedef __m256i hb_vec;
#define HB_VI(op) _mm256_##op /* the integer operations, same name in both widths */
#define HB_V_OR _mm256_or_si256
#define HB_V_AND _mm256_and_si256
#define HB_V_ANDNOT _mm256_andnot_si256
#define HB_V_TESTZ _mm256_testz_si256
#define HB_V_ZERO _mm256_setzero_si256
#define HB_V_LOAD(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define HB_V_LOADU(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define HB_V_FROM128 _mm256_zextsi128_si256
/* rows p (low lane) and q (high lane) of a register */
#define HB_V_ROWPAIR(p, q) _mm256_inserti128_si256(_mm256_castsi128_si256(p), q, 1)
#else
#define HB_V_ROWS 4
typedef __m128i hb_vec;
#define HB_VI(op) _mm_##op
#define HB_V_OR _mm_or_si128
#define HB_V_AND _mm_and_si128
#define HB_V_ANDNOT _mm_andnot_si128
#define HB_V_TESTZ _mm_testz_si128
#define HB_V_ZERO _mm_setzero_si128
#define HB_V_LOAD(p) _mm_load_si128((const __m128i *)(const void *)(p))
#define HB_V_LOADU(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define HB_V_FROM128(x) (x)
#define HB_V_ROWPAIR(p, q) (p) /* one row a register: q is not used */
#endif

/* ---- templates ------------------------------------------------------------------------------ */

/* The bias turning a range into the top bit: x + (127 - range), saturating, is >= 128 exactly
 * when x > range. A lane that may hold anything (range 0xFF, only the head's bytes, which the
 * head checks) gets bias 0: it only flags bytes >= 0x80, which the head rejects too. */
#define HB_V_BIAS(r) ((r) == 0xFF ? 0 : 0x7F - (r))

#define D_ '0'
/* the head, as rfc3339_simd.h's A and B, twice (AVX2: two rows a register; SSE4.1 reads the
 * first 16 bytes); B's 'T' (byte 10, also A's lane 10) is left to A so that B needs no or */
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
        HB_T_LANES(HB_V_LO_L, z, L), HB_T_LANES(HB_V_BIAS_L, z, L), HB_T_LANES(HB_T_SHUF_L, z, L), \
        {                                                                                          \
            0                                                                                      \
        }                                                                                          \
    }
#define HB_V_ROW(z)                                                                                \
    HB_V_ENTRY(z, 0), HB_V_ENTRY(z, 1), HB_V_ENTRY(z, 2), HB_V_ENTRY(z, 3), HB_V_ENTRY(z, 4),      \
        HB_V_ENTRY(z, 5), HB_V_ENTRY(z, 6), HB_V_ENTRY(z, 7), HB_V_ENTRY(z, 8), HB_V_ENTRY(z, 9),  \
        HB_V_ENTRY(z, 10), HB_V_ENTRY(z, 11), HB_V_ENTRY(z, 12), HB_V_ENTRY(z, 13),                \
        HB_V_ENTRY(z, 14), HB_V_ENTRY(z, 15)
/* indexed by hb_simd_tail_row[last byte] + len - 20, as hb_simd_tails flattened */
static const hb_vert_tail hb_vert_tails[32] = {HB_V_ROW(0), HB_V_ROW(1)};

/* The constants of the G-wide steps, as memory operands: the compiler otherwise rebuilds
 * set1 constants in the loop (mov, vmovd, vpbroadcastd) once the registers run out. 32 bytes
 * each; the SSE4.1 build reads the first 16. */
typedef struct hb_v8 {
    _Alignas(32) int32_t v[8];
} hb_v8;
#define HB_V8(c)                                                                                   \
    {                                                                                              \
        {                                                                                          \
            (int32_t)(c), (int32_t)(c), (int32_t)(c), (int32_t)(c), (int32_t)(c), (int32_t)(c),    \
                (int32_t)(c), (int32_t)(c)                                                         \
        }                                                                                          \
    }
#define HB_V4(a, b, c, d)                                                                          \
    {                                                                                              \
        {                                                                                          \
            (int32_t)(a), (int32_t)(b), (int32_t)(c), (int32_t)(d), (int32_t)(a), (int32_t)(b),    \
                (int32_t)(c), (int32_t)(d)                                                         \
        }                                                                                          \
    }
enum {
    HB_K_LOW16,  /* 0xFFFF: the low field of a pair */
    HB_K_LOW8,   /* 0xFF */
    HB_K_3,      /* months before March are < 3 */
    HB_K_12,     /* their months counted from March */
    HB_K_400,    /* the 400 years' shift */
    HB_K_5243,   /* y / 100 = (y * 5243) >> 19 */
    HB_K_979,    /* days before the month */
    HB_K_2921,   /* 979 * 3 - 16 */
    HB_K_1461,   /* days in 4 years */
    HB_K_EPOCH,  /* 1970-03-01 from 0000-03-01 + 400 y, + 2 (hb_vert_days) */
    HB_K_MLEN,   /* bytes: the length of month 0-15 (0 for months 0 and 13-15; February 29) */
    HB_K_MD_MAX, /* [12, 31]: month, day */
    HB_K_FEB29,  /* [2, 29] */
    HB_K_HM_MAX, /* [23, 59]: hour, minute */
    HB_K_59,     /* [59, 0]: second */
    HB_K_9998,   /* the last year whose instants are all in range */
    HB_K_2,      /* the first */
    HB_K_100,
    HB_K_DAYS_MIN, /* -(days from 1970-01-01 to 0001-01-01) */
    HB_K_DAYS_MAX, /* days from 1970-01-01 to 9999-12-31 */
    HB_K_LAST_S,   /* 86399: the last second of a day */
    HB_K_HM,       /* [3600, 60]: hour, minute to seconds */
    HB_K_1,        /* the sign's offset */
    HB_K_COMMA,    /* [1, -1]: ',' in the sign's lane */
    HB_K_DAY,      /* 86400 */
    HB_K_100_1,    /* [100, 1]: two pairs of digits to four */
    HB_K_0_10000,  /* [0, 10000]: the fraction's first digit */
    HB_K_10000,
    HB_K_LOW32,   /* 0xFFFFFFFF in each 64-bit lane */
    HB_K_TENS,    /* bytes [10, 1]: two digits to a 16-bit number */
    HB_K_TOP,     /* 0x80 in every byte: the flags of a bad byte */
    HB_K_LEN_MIN, /* spans as dwords [off, len]: [0, 20] */
    HB_K_LEN_BIG, /* [0, ~15]: bits a length minus 20 may not have */
    HB_K_COUNT
};
static const hb_v8 hb_vert_k[HB_K_COUNT] = {
    [HB_K_LOW16] = HB_V8(0xFFFF),
    [HB_K_LOW8] = HB_V8(0xFF),
    [HB_K_3] = HB_V8(3),
    [HB_K_12] = HB_V8(12),
    [HB_K_400] = HB_V8(400),
    [HB_K_5243] = HB_V8(5243),
    [HB_K_979] = HB_V8(979),
    [HB_K_2921] = HB_V8(2921),
    [HB_K_1461] = HB_V8(1461),
    [HB_K_EPOCH] = HB_V8(719468 + 146097 + 1 + 1),
    /* months 0-15: 0 31 29 31 | 30 31 30 31 | 31 30 31 30 | 31 0 0 0, little-endian */
    [HB_K_MLEN] = HB_V4(0x1F1D1F00, 0x1F1E1F1E, 0x1E1F1E1F, 0x0000001F),
    [HB_K_MD_MAX] = HB_V8(12 | 31 << 16),
    [HB_K_FEB29] = HB_V8(2 | 29 << 16),
    [HB_K_HM_MAX] = HB_V8(23 | 59 << 16),
    [HB_K_59] = HB_V8(59),
    [HB_K_9998] = HB_V8(9998),
    [HB_K_2] = HB_V8(2),
    [HB_K_100] = HB_V8(100),
    [HB_K_DAYS_MIN] = HB_V8(719162),
    [HB_K_DAYS_MAX] = HB_V8(2932896),
    [HB_K_LAST_S] = HB_V8(86399),
    [HB_K_HM] = HB_V8(3600 | 60 << 16),
    [HB_K_1] = HB_V8(1),
    [HB_K_COMMA] = HB_V8(1 | 0xFFFFu << 16),
    [HB_K_DAY] = HB_V8(86400),
    [HB_K_100_1] = HB_V8(100 | 1 << 16),
    [HB_K_0_10000] = HB_V8(10000 << 16),
    [HB_K_10000] = HB_V8(10000),
    [HB_K_LOW32] = HB_V4(-1, 0, -1, 0),
    [HB_K_TENS] = HB_V8(0x010A010A),
    [HB_K_TOP] = HB_V8(0x80808080u),
    [HB_K_LEN_MIN] = HB_V4(0, 20, 0, 20),
    [HB_K_LEN_BIG] = HB_V4(0, -16, 0, -16),
};
#define HB_K(name) HB_V_LOAD(hb_vert_consts()[HB_K_##name].v)

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
        *(acc) = HB_V_OR(*(acc), flags);                                                           \
        __asm__("" : "+x"(*(acc)));                                                                \
    } while (0)
#define HB_V_FLAG128(acc, flags)                                                                   \
    do {                                                                                           \
        *(acc) = _mm_or_si128(*(acc), flags);                                                      \
        __asm__("" : "+x"(*(acc)));                                                                \
    } while (0)

/* ---- the steps of a group ------------------------------------------------------------------- */

/* The head of row s0 (with AVX2 also s4, in the high lane): 16-bit [Y01 Y23 MM DD hh mm ss 0]
 * each; out-of-range bytes set top bits in *bad. */
__attribute__((always_inline)) static inline hb_vec hb_vert_head(const char *s0, const char *s4,
                                                                 hb_vec *bad)
{
    (void)s4;
    hb_vec a = HB_V_ROWPAIR(HB_LDU(s0), HB_LDU(s4));
    hb_vec b = HB_V_ROWPAIR(HB_LDU(s0 + 3), HB_LDU(s4 + 3));
    hb_vec xa = HB_VI(sub_epi8)(HB_V_OR(a, HB_V_LOAD(hb_vert_or_a)), HB_V_LOAD(hb_vert_lo_a));
    hb_vec xb = HB_VI(sub_epi8)(b, HB_V_LOAD(hb_vert_lo_b));
    HB_V_FLAG(bad, HB_VI(adds_epu8)(xa, HB_V_LOAD(hb_vert_bias_a)));
    HB_V_FLAG(bad, HB_VI(adds_epu8)(xb, HB_V_LOAD(hb_vert_bias_b)));
    hb_vec digits = HB_V_OR(HB_VI(shuffle_epi8)(xa, HB_V_LOAD(hb_vert_shuf_a)),
                            HB_VI(shuffle_epi8)(xb, HB_V_LOAD(hb_vert_shuf_b)));
    return HB_VI(maddubs_epi16)(digits, HB_K(TENS));
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

/* Transposes 32-bit lanes: v[k] holds row k (with AVX2 rows k and k + 4, one a 128-bit lane)
 * as 4 dwords; after, v[j] holds dword j of row r in lane r. */
__attribute__((always_inline)) static inline void hb_vert_transpose(hb_vec v[4])
{
    hb_vec t0 = HB_VI(unpacklo_epi32)(v[0], v[1]), t1 = HB_VI(unpackhi_epi32)(v[0], v[1]);
    hb_vec t2 = HB_VI(unpacklo_epi32)(v[2], v[3]), t3 = HB_VI(unpackhi_epi32)(v[2], v[3]);
    v[0] = HB_VI(unpacklo_epi64)(t0, t2);
    v[1] = HB_VI(unpackhi_epi64)(t0, t2);
    v[2] = HB_VI(unpacklo_epi64)(t1, t3);
    v[3] = HB_VI(unpackhi_epi64)(t1, t3);
}

/* Nonzero when all G lengths of the spans at sp are 20..35 (dwords off, len, off, len ...:
 * len - 20 must be 0..15; the offsets are masked out). */
__attribute__((always_inline)) static inline int hb_vert_lengths_ok(const hb_rfc3339_span *sp)
{
    hb_vec a = HB_VI(sub_epi32)(HB_V_LOADU(sp), HB_K(LEN_MIN));
    hb_vec b = HB_VI(sub_epi32)(HB_V_LOADU(sp + HB_V_ROWS / 2), HB_K(LEN_MIN));
    return HB_V_TESTZ(HB_V_OR(a, b), HB_K(LEN_BIG));
}

/* Days from 1970-01-01, minus one, of G dates: y the year (0-9999), m the month (1-12), d the
 * day (1-31), 32-bit lanes. hb_days_from_civil, G wide: the year counted from March and shifted
 * by 400, y / 100 as (y * 5243) >> 19 (exact for y < 43699), the days before the month as
 * (979 (m' - 3) + 16) / 32 with m' the month counted from March plus 3. */
__attribute__((always_inline)) static inline hb_vec hb_vert_days(hb_vec year, hb_vec month,
                                                                 hb_vec day)
{
    hb_vec jan_feb = HB_VI(cmpgt_epi32)(HB_K(3), month); /* all-ones: -1 */
    hb_vec y = HB_VI(add_epi32)(HB_VI(add_epi32)(year, jan_feb), HB_K(400));
    hb_vec m = HB_VI(add_epi32)(month, HB_V_AND(jan_feb, HB_K(12)));
    hb_vec c = HB_VI(srli_epi16)(HB_VI(mulhi_epu16)(y, HB_K(5243)), 3);
    hb_vec before =
        HB_VI(srli_epi32)(HB_VI(sub_epi32)(HB_VI(mullo_epi16)(m, HB_K(979)), HB_K(2921)), 5);
    hb_vec days = HB_VI(srli_epi32)(HB_VI(mullo_epi32)(y, HB_K(1461)), 2);
    days = HB_VI(add_epi32)(HB_VI(sub_epi32)(days, c), HB_VI(srli_epi32)(c, 2));
    days = HB_VI(add_epi32)(HB_VI(add_epi32)(days, before), day);
    /* 1970-03-01 from 0000-03-01 plus 400 years, the day's - 1, and the one day lent to the
     * second of the day (hb_vert_group) */
    return HB_VI(sub_epi32)(days, HB_K(EPOCH));
}

/* Top bits where a date field is out of range: month 1-12, day 1 to the month's length
 * (February 29 only in a leap year), hour 00-23, minute and second 00-59 (h = the head's
 * fields, transposed; year = Y01 * 100 + Y23). */
__attribute__((always_inline)) static inline hb_vec hb_vert_check_head(const hb_vec h[4],
                                                                       hb_vec year)
{
    /* the month's length: byte 0 of each lane looked up by the month (bytes 1-3, the month's
     * high byte and the day, look up junk and are masked off); February has 29 */
    hb_vec mlen = HB_V_AND(HB_VI(shuffle_epi8)(HB_K(MLEN), h[1]), HB_K(LOW8));
    hb_vec bad = HB_VI(cmpgt_epi32)(HB_VI(srli_epi32)(h[1], 16), mlen);
    bad = HB_V_OR(bad, HB_VI(cmpgt_epi16)(h[1], HB_K(MD_MAX)));
    bad = HB_V_OR(bad, HB_VI(cmpeq_epi16)(h[1], HB_V_ZERO()));
    /* a leap year: y % 4 == 0, or (y / 100) % 4 == 0 when y % 100 == 0 */
    hb_vec c = HB_VI(srli_epi16)(HB_VI(mulhi_epu16)(year, HB_K(5243)), 3); /* y / 100 */
    hb_vec whole = HB_VI(cmpeq_epi32)(HB_VI(mullo_epi16)(c, HB_K(100)), year);
    hb_vec quad = HB_V_AND(HB_VI(blendv_epi8)(year, c, whole), HB_K(3));
    hb_vec leap = HB_VI(cmpeq_epi32)(quad, HB_V_ZERO());
    bad = HB_V_OR(bad, HB_V_ANDNOT(leap, HB_VI(cmpeq_epi32)(h[1], HB_K(FEB29))));
    bad = HB_V_OR(bad, HB_VI(cmpgt_epi16)(h[2], HB_K(HM_MAX)));
    return HB_V_OR(bad, HB_VI(cmpgt_epi16)(h[3], HB_K(59)));
}

/* Top bits where an instant of year 0000, 0001 or 9999 is outside HB_RFC3339_MIN/MAX_SECONDS:
 * days and local as hb_vert_group has them (days since 1970-01-01 minus one; the second of the
 * day minus the offset plus 86400). The instant is days * 86400 + local; near either end the
 * distance to the bound fits 32 bits (other lanes wrap and are masked off). */
__attribute__((always_inline)) static inline hb_vec hb_vert_check_range(hb_vec year, hb_vec days,
                                                                        hb_vec local)
{
    /* before 0001-01-01T00:00:00Z: (days + 719162) * 86400 + local < 0 */
    hb_vec lo = HB_VI(add_epi32)(
        HB_VI(mullo_epi32)(HB_VI(add_epi32)(days, HB_K(DAYS_MIN)), HB_K(DAY)), local);
    /* after 9999-12-31T23:59:59Z: (days - 2932896) * 86400 + local > 86399 */
    hb_vec hi = HB_VI(add_epi32)(
        HB_VI(mullo_epi32)(HB_VI(sub_epi32)(days, HB_K(DAYS_MAX)), HB_K(DAY)), local);
    hb_vec bad = HB_V_AND(HB_VI(cmpgt_epi32)(HB_K(2), year), HB_VI(cmpgt_epi32)(HB_V_ZERO(), lo));
    return HB_V_OR(
        bad, HB_V_AND(HB_VI(cmpgt_epi32)(year, HB_K(9998)), HB_VI(cmpgt_epi32)(hi, HB_K(LAST_S))));
}

/* Stores G rows: secs_e/secs_o the seconds of the even and odd lanes (64-bit), nanos the
 * nanoseconds of lanes 0 .. G-1; out[r] gets lane r as {seconds, nanos} (padding 0). */
__attribute__((always_inline)) static inline void hb_vert_store(hb_vec secs_e, hb_vec secs_o,
                                                                hb_vec nanos, hb_rfc3339_time *out)
{
    hb_vec n_e = HB_V_AND(nanos, HB_K(LOW32));
    hb_vec n_o = HB_VI(srli_epi64)(nanos, 32);
    /* [row 0 | row 4], [2 | 6], [1 | 5], [3 | 7] (SSE4.1: rows 0, 2, 1, 3) */
    hb_vec r0 = HB_VI(unpacklo_epi64)(secs_e, n_e), r2 = HB_VI(unpackhi_epi64)(secs_e, n_e);
    hb_vec r1 = HB_VI(unpacklo_epi64)(secs_o, n_o), r3 = HB_VI(unpackhi_epi64)(secs_o, n_o);
    __m128i *o = (__m128i *)(void *)out;
#ifdef HB_SIMD_AVX2
    _mm_storeu_si128(o + 0, _mm256_castsi256_si128(r0));
    _mm_storeu_si128(o + 1, _mm256_castsi256_si128(r1));
    _mm_storeu_si128(o + 2, _mm256_castsi256_si128(r2));
    _mm_storeu_si128(o + 3, _mm256_castsi256_si128(r3));
    _mm_storeu_si128(o + 4, _mm256_extracti128_si256(r0, 1));
    _mm_storeu_si128(o + 5, _mm256_extracti128_si256(r1, 1));
    _mm_storeu_si128(o + 6, _mm256_extracti128_si256(r2, 1));
    _mm_storeu_si128(o + 7, _mm256_extracti128_si256(r3, 1));
#else
    _mm_storeu_si128(o + 0, r0);
    _mm_storeu_si128(o + 1, r1);
    _mm_storeu_si128(o + 2, r2);
    _mm_storeu_si128(o + 3, r3);
#endif
}

/* The G rows of base at sp[0 .. G) (their lengths 20-35: hb_vert_lengths_ok) into out[0 .. G)
 * when every one is valid: returns 1. Otherwise returns 0 and out is untouched (the caller
 * runs the one-row kernel). */
__attribute__((always_inline)) static inline int
hb_vert_group(const char *base, const hb_rfc3339_span *sp, hb_rfc3339_time *out)
{
    enum { HI = HB_V_ROWS / 2 }; /* AVX2: row k + 4 shares row k's register */
    hb_vec bad = HB_V_ZERO(), h[4], t[4];
    /* the heads: days (minus one) and the second of the day, G wide */
    for (int k = 0; k < 4; k++)
        h[k] = hb_vert_head(base + sp[k].off, base + sp[(k + HI) % HB_V_ROWS].off, &bad);
    hb_vert_transpose(h); /* [Y01 Y23] [MM DD] [hh mm] [ss 0] */
    hb_vec year = HB_VI(madd_epi16)(h[0], HB_K(100_1));
    bad = HB_V_OR(bad, hb_vert_check_head(h, year));
    hb_vec days = hb_vert_days(year, HB_V_AND(h[1], HB_K(LOW16)), HB_VI(srli_epi32)(h[1], 16));
    hb_vec sod = HB_VI(add_epi32)(HB_VI(madd_epi16)(h[2], HB_K(HM)), h[3]);

    /* the tails: the offset and the nanoseconds */
    __m128i bad_t = _mm_setzero_si128();
    for (int k = 0; k < 4; k++) {
        __m128i t0 = hb_vert_tail_row(base + sp[k].off, sp[k].len, &bad_t);
#ifdef HB_SIMD_AVX2
        __m128i t4 = hb_vert_tail_row(base + sp[k + 4].off, sp[k + 4].len, &bad_t);
        t[k] = HB_VI(maddubs_epi16)(HB_V_ROWPAIR(t0, t4), HB_K(TENS));
#else
        t[k] = HB_VI(maddubs_epi16)(t0, HB_K(TENS));
#endif
    }
    hb_vert_transpose(t); /* [oh om] [sign d0] [d1d2 d3d4] [d5d6 d7d8] */
    bad = HB_V_OR(bad, HB_V_FROM128(bad_t));
    /* the offset: hh <= 23, mm <= 59, the sign '+' (0) or '-' (2), not ',' (1) */
    bad = HB_V_OR(bad, HB_VI(cmpgt_epi16)(t[0], HB_K(HM_MAX)));
    bad = HB_V_OR(bad, HB_VI(cmpeq_epi16)(t[1], HB_K(COMMA)));

    /* the offset east of UTC in seconds, negated for '+' (sign - 1 = -1) and for 'Z' (0 anyway) */
    hb_vec sign = HB_VI(sub_epi32)(HB_V_AND(t[1], HB_K(LOW16)), HB_K(1));
    hb_vec offset = HB_VI(sign_epi32)(HB_VI(madd_epi16)(t[0], HB_K(HM)), sign);
    /* the second of the day minus the offset, plus the day lent by hb_vert_days: 60 .. 259139 */
    hb_vec local = HB_VI(add_epi32)(HB_VI(add_epi32)(sod, offset), HB_K(DAY));
    /* years 0000, 0001, 9999 (rare): the instant's range */
    hb_vec edge = HB_V_OR(HB_VI(cmpgt_epi32)(HB_K(2), year), HB_VI(cmpgt_epi32)(year, HB_K(9998)));
    if (__builtin_expect(!HB_V_TESTZ(edge, edge), 0))
        bad = HB_V_OR(bad, hb_vert_check_range(year, days, local));
    if (!HB_V_TESTZ(bad, HB_K(TOP)))
        return 0;
    hb_vec secs_e =
        HB_VI(add_epi64)(HB_VI(mul_epi32)(days, HB_K(DAY)), HB_V_AND(local, HB_K(LOW32)));
    hb_vec secs_o = HB_VI(add_epi64)(HB_VI(mul_epi32)(HB_VI(srli_epi64)(days, 32), HB_K(DAY)),
                                     HB_VI(srli_epi64)(local, 32));
    /* nanos = (d0 * 10^4 + d1d2d3d4) * 10^4 + d5d6d7d8 */
    hb_vec hi = HB_VI(add_epi32)(HB_VI(madd_epi16)(t[1], HB_K(0_10000)),
                                 HB_VI(madd_epi16)(t[2], HB_K(100_1)));
    hb_vec nanos =
        HB_VI(add_epi32)(HB_VI(mullo_epi32)(hi, HB_K(10000)), HB_VI(madd_epi16)(t[3], HB_K(100_1)));
    hb_vert_store(secs_e, secs_o, nanos, out);
    return 1;
}

/* The batch of rfc3339_avx2.c and rfc3339_sse41.c: groups of G rows through hb_vert_group, the
 * rest (and every group it declines) through the one-row kernel. Same contract as
 * hb_simd_batch: out[i] for spans[i], HB_RFC3339_BAD_* where rejected; returns the number
 * rejected. */
__attribute__((always_inline)) static inline size_t
hb_vert_batch(const char *base, const hb_rfc3339_span *spans, size_t n, hb_rfc3339_time *out)
{
    size_t rejected = 0, i = 0;
    for (; i + HB_V_ROWS <= n; i += HB_V_ROWS) {
        if (__builtin_expect(
                hb_vert_lengths_ok(spans + i) && hb_vert_group(base, spans + i, out + i), 1))
            continue;
        rejected += hb_simd_batch(base, spans + i, HB_V_ROWS, out + i);
    }
    return rejected + hb_simd_batch(base, spans + i, n - i, out + i);
}

#endif /* HB_RFC3339_VERT_H */

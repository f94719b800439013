/* rfc3339_sse41.c - the simd strategy's SSE4.1 (-msse4.1) build: the one-row kernel of
 * rfc3339_simd.h and the batch of rfc3339_vert.h (4 rows at a time). Everything here may use the
 * instruction set: only call it after run-time dispatch (rfc3339.c) has found the CPU supports it.
 */
#include "rfc3339_simd.h"
#include "rfc3339_vert.h"

/* The year table of rfc3339_simd.h (one copy, read by both builds of the kernel). */
#define HB_Y10(y)                                                                                  \
    HB_SIMD_YEAR_ENTRY(y), HB_SIMD_YEAR_ENTRY(y + 1), HB_SIMD_YEAR_ENTRY(y + 2),                   \
        HB_SIMD_YEAR_ENTRY(y + 3), HB_SIMD_YEAR_ENTRY(y + 4), HB_SIMD_YEAR_ENTRY(y + 5),           \
        HB_SIMD_YEAR_ENTRY(y + 6), HB_SIMD_YEAR_ENTRY(y + 7), HB_SIMD_YEAR_ENTRY(y + 8),           \
        HB_SIMD_YEAR_ENTRY(y + 9)
#define HB_Y100(y)                                                                                 \
    HB_Y10(y), HB_Y10(y + 10), HB_Y10(y + 20), HB_Y10(y + 30), HB_Y10(y + 40), HB_Y10(y + 50),     \
        HB_Y10(y + 60), HB_Y10(y + 70), HB_Y10(y + 80), HB_Y10(y + 90)
#define HB_Y1000(y)                                                                                \
    HB_Y100(y), HB_Y100(y + 100), HB_Y100(y + 200), HB_Y100(y + 300), HB_Y100(y + 400),            \
        HB_Y100(y + 500), HB_Y100(y + 600), HB_Y100(y + 700), HB_Y100(y + 800), HB_Y100(y + 900)
const uint32_t hb_simd_year_days[10000] = {
    HB_Y1000(0),    HB_Y1000(1000), HB_Y1000(2000), HB_Y1000(3000), HB_Y1000(4000),
    HB_Y1000(5000), HB_Y1000(6000), HB_Y1000(7000), HB_Y1000(8000), HB_Y1000(9000)};

int hb_rfc3339_parse_sse41(const char *s, size_t len, hb_rfc3339_time *out)
{
    return hb_simd_parse(s, len, out);
}

size_t hb_rfc3339_batch_sse41(const char *base, const hb_rfc3339_span *spans, size_t n,
                              hb_rfc3339_time *out)
{
    return hb_vert_batch(base, spans, n, out);
}

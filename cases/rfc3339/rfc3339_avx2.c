/* rfc3339_avx2.c - the simd strategy's AVX2 (-mavx2) build: the one-row kernel of
 * rfc3339_simd.h and the batch of rfc3339_vert.h (8 rows at a time). Everything here may use the
 * instruction set: only call it after run-time dispatch (rfc3339.c) has found the CPU supports it.
 */
#define HB_SIMD_AVX2 1
#include "rfc3339_simd.h"
#include "rfc3339_vert.h"

int hb_rfc3339_parse_avx2(const char *s, size_t len, hb_rfc3339_time *out)
{
    return hb_simd_parse(s, len, out);
}

size_t hb_rfc3339_batch_avx2(const char *base, const hb_rfc3339_span *spans, size_t n,
                             hb_rfc3339_time *out)
{
    return hb_vert_batch(base, spans, n, out);
}

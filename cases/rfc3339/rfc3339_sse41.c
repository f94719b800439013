/* rfc3339_sse41.c - the simd strategy's SSE4.1 (-msse4.1) build of the kernel in rfc3339_simd.h.
 * Everything here may use the instruction set: only call it after run-time dispatch
 * (rfc3339.c) has found the CPU supports it. */
#include "rfc3339_simd.h"

int hb_rfc3339_parse_sse41(const char *s, size_t len, hb_rfc3339_time *out)
{
    return hb_simd_parse(s, len, out);
}

size_t hb_rfc3339_batch_sse41(const char *base, const hb_rfc3339_span *spans, size_t n,
                              hb_rfc3339_time *out)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (hb_simd_parse(base + spans[i].off, spans[i].len, &out[i]) != HB_OK) {
            hb_ts_bad(&out[i]);
            bad++;
        }
    }
    return bad;
}

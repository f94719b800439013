/* vol_memchr.c - strategy memchr-scan, the memory-speed ceiling of the volumes case: it counts
 * the '<' bytes of the document with memchr and decodes nothing (output HB_VOL_OUT_LT), so a reader
 * sees how far the decoders are from a plain scan of the same bytes (see volumes_impl.h).
 */
#include "hb_volumes.h"
#include "volumes_impl.h"

#include <string.h>

/* ---- memchr-scan: the ceiling ---------------------------------------------------------------- */

int hb_vol_memchr_scan(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                       hb_vol_error *err)
{
    (void)piece;
    (void)err;
    uint64_t n = 0;
    const uint8_t *p = doc, *end = doc + len;
    while (p < end && (p = memchr(p, '<', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    out->count = n;
    return HB_OK;
}

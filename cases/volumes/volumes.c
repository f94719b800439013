/* volumes.c - the registry of the DescribeVolumes strategies (hb_vol_strategies: one row each,
 * name, description, decode function, output, streaming), hb_vol_find and hb_volumes_decode, the
 * entry point that checks the arguments and runs a strategy, with the two error helpers every
 * strategy shares (hb_vol_fail, hb_vol_position) and the version rule (hb_vol_version_ok). The
 * strategies, the memory, the builder, the canonical form, the compare and the UTF-16 check live
 * in vol_*.c (see hb_volumes.h and volumes_impl.h).
 */
#include "hb_volumes.h"
#include "volumes_impl.h"

#include <string.h>

/* ---- the registry ---------------------------------------------------------------------------- */

/* clang-format off */
/* name                 description                                                                decode                     output               streaming */
const hb_vol_strategy hb_vol_strategies[] = {
    {"memchr-scan",       "counts '<' with memchr: the memory-speed ceiling, not a decoder",            hb_vol_memchr_scan,       HB_VOL_OUT_LT,       0},
    {"expat-count",       "expat with empty handlers: the parser's floor",                              hb_vol_expat_count,       HB_VOL_OUT_ELEMENTS, 1},
    {"expat-tree",        "expat builds a generic element tree, a second pass maps it to structs",      hb_vol_expat_tree,        HB_VOL_OUT_VOLUMES,  1},
    {"expat-typed",       "expat callbacks into structs, one allocation per string (the SDK's shape)",  hb_vol_expat_typed,       HB_VOL_OUT_VOLUMES,  1},
    {"expat-typed-arena", "the same into an arena, names classified once: no allocation per element",   hb_vol_expat_typed_arena, HB_VOL_OUT_VOLUMES,  1},
    {"libxml2-dom",       "libxml2 parses a DOM, then a walk maps it to structs (a common peer)",       hb_vol_libxml2_dom,       HB_VOL_OUT_VOLUMES,  0},
    {"fast",              "hand-written decoder of this shape: SSE2/AVX2 scans, zero-copy values",       hb_vol_fast,              HB_VOL_OUT_VOLUMES,  0},
};
/* clang-format on */
const size_t hb_vol_strategy_count = sizeof hb_vol_strategies / sizeof hb_vol_strategies[0];

const hb_vol_strategy *hb_vol_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < hb_vol_strategy_count; i++)
        if (strcmp(hb_vol_strategies[i].name, name) == 0)
            return &hb_vol_strategies[i];
    return NULL;
}

int hb_volumes_decode(const hb_vol_strategy *s, const uint8_t *doc, size_t len, size_t piece,
                      hb_volumes *out, hb_vol_error *err)
{
    if (!out || !err)
        return HB_EINVAL;
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    out->owns_strings_ = 1;
    if (!s || (!doc && len) || (piece && !s->streaming))
        return hb_vol_fail(err, HB_EINVAL, "bad arguments");
    return s->decode(doc ? doc : (const uint8_t *)"", len, piece, out, err);
}

int hb_vol_fail(hb_vol_error *err, int code, const char *reason)
{
    if (!err->reason)
        err->reason = reason;
    return code;
}

void hb_vol_position(const uint8_t *doc, size_t off, uint64_t *line, uint64_t *column)
{
    uint64_t l = 1, col = 1;
    for (size_t i = 0; i < off; i++) {
        if (doc[i] == '\n' || (doc[i] == '\r' && (i + 1 >= off || doc[i + 1] != '\n'))) {
            l++;
            col = 1;
        } else if ((doc[i] & 0xc0) != 0x80) {
            col++; /* a character's first byte: continuation bytes do not count */
        }
    }
    *line = l;
    *column = col;
}

int hb_vol_version_ok(const char *v, size_t n)
{
    if (n < 3 || v[0] != '1' || v[1] != '.')
        return 0;
    for (size_t i = 2; i < n; i++)
        if (v[i] < '0' || v[i] > '9')
            return 0;
    return 1;
}

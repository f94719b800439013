/* fuzz_volumes.c - differential fuzz target of the DescribeVolumes decoders (cases/volumes,
 * hb_volumes.h: the decode contract).
 *
 * The input is an XML document. The reference, expat-typed (HB_VOL_REFERENCE), decodes it fed
 * whole. Then, each from an exact-size heap copy:
 *   expat-typed, expat-tree, expat-typed-arena  fed in pieces of 1 byte, of 7 bytes, of a size
 *                                               drawn from the input's hash (1 to 64), and whole;
 *   fast, libxml2-dom                           fed whole (they do not stream:
 *                                               hb_vol_strategy.streaming is 0);
 * must each reject what the reference rejects, and accept what it accepts with the same volumes
 * (hb_volumes_compare: every member, order, parsed instants, requestId, nextToken), except where
 * hb_volumes.h documents an exclusion ("Exclusions" there): see excluded() below, each test next
 * to the header line it relies on. The UTF-16 rules (hb_volumes.h: a byte order mark, no unpaired
 * surrogate, whole code units; fuzz/regressions/volumes/utf16*) and versions 1.x hold for every
 * strategy alike: no exclusion. A rejection must carry a reason that is one line of text.
 * memchr-scan's count of '<' bytes is checked against a plain loop; expat-count runs for memory
 * safety only (it checks well-formedness, not the typed contract, so it may accept what the
 * reference rejects).
 * Error positions (line, column) are not compared: hb_vol_error gives them "as near to the
 * offending token as the strategy can tell".
 */
#include "hb_err.h"
#include "hb_fuzz.h"
#include "hb_volumes.h"

#include <stdlib.h>
#include <string.h>

/* A rejection by s of a document the reference accepts that the contract allows: each is one of
 * the "Exclusions" of hb_volumes.h, quoted next to its test. */
static int excluded(const hb_vol_strategy *s, int rc, const hb_vol_error *err)
{
    const char *why = err->reason ? err->reason : "";
    /* hb_volumes.h, Exclusions: "fast refuses what lies outside its subset with a reason starting
     * 'unsupported: '" (a UTF-16 byte order mark, an encoding other than UTF-8, a non-ASCII name,
     * more than 64 attributes; tests/test_volumes.c's mutation test allows the same). */
    if (strcmp(s->name, "fast") == 0 && strncmp(why, "unsupported: ", 13) == 0)
        return 1;
    /* hb_volumes.h, Exclusions: "libxml2-dom refuses elements nested deeper than 256 ('Excessive
     * depth')". */
    if (strcmp(s->name, "libxml2-dom") == 0 && strstr(why, "Excessive depth") != NULL)
        return 1;
    /* hb_volumes.h, Exclusions: "expat-tree refuses elements nested deeper than 4096 with
     * HB_ELIMIT" (needs a document of more than 12 KB). */
    if (strcmp(s->name, "expat-tree") == 0 && rc == HB_ELIMIT)
        return 1;
    /* hb_volumes.h, Exclusions: "libxml2-dom refuses one over INT_MAX bytes with HB_ELIMIT" (not
     * reached at the sizes fuzzed, named for completeness). */
    if (strcmp(s->name, "libxml2-dom") == 0 && rc == HB_ELIMIT)
        return 1;
    return 0;
}

/* One line of text: no CR or LF, not empty. */
static int one_line(const char *s)
{
    return s && *s && !strpbrk(s, "\r\n");
}

/* Strategy s fed in pieces of piece bytes (0: whole) against the reference's outcome. */
static void check_strategy(const hb_vol_strategy *s, const uint8_t *data, size_t size,
                           size_t piece, int ra, const hb_volumes *a, const hb_vol_error *ea)
{
    uint8_t *doc = hb_fuzz_copy(data, size);
    hb_volumes b;
    hb_vol_error eb;
    char msg[256];
    int rb = hb_volumes_decode(s, doc, size, piece, &b, &eb);
    if (ra != HB_OK && rb == HB_OK)
        hb_fuzz_fail("%s (pieces of %zu) accepts what the reference rejects: %s at line %llu, "
                     "column %llu",
                     s->name, piece, ea->reason, (unsigned long long)ea->line,
                     (unsigned long long)ea->column);
    if (ra == HB_OK && rb != HB_OK && !excluded(s, rb, &eb))
        hb_fuzz_fail("%s (pieces of %zu) rejects what the reference accepts: %s (code %d) at "
                     "line %llu, column %llu",
                     s->name, piece, eb.reason ? eb.reason : "(null)", rb,
                     (unsigned long long)eb.line, (unsigned long long)eb.column);
    if (ra == HB_OK && rb == HB_OK && hb_volumes_compare(a, &b, msg, sizeof msg) != 0)
        hb_fuzz_fail("%s (pieces of %zu) decodes differently from the reference: %s", s->name,
                     piece, msg);
    if (rb != HB_OK && !one_line(eb.reason))
        hb_fuzz_fail("%s (pieces of %zu): the reason is not one line: '%s'", s->name, piece,
                     eb.reason ? eb.reason : "(null)");
    hb_volumes_free(&b);
    free(doc);
}

/* The two baselines: memchr-scan against a plain count, expat-count for memory safety. */
static void check_baselines(const uint8_t *data, size_t size)
{
    uint8_t *doc = hb_fuzz_copy(data, size);
    hb_volumes v;
    hb_vol_error err;
    uint64_t lt = 0;
    for (size_t i = 0; i < size; i++)
        lt += data[i] == '<';
    if (hb_volumes_decode(hb_vol_find("memchr-scan"), doc, size, 0, &v, &err) != HB_OK ||
        v.count != lt)
        hb_fuzz_fail("memchr-scan counts %llu '<', there are %llu", (unsigned long long)v.count,
                     (unsigned long long)lt);
    hb_volumes_free(&v);
    hb_volumes_decode(hb_vol_find("expat-count"), doc, size, 7, &v, &err);
    hb_volumes_free(&v);
    free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const streaming[] = {"expat-typed", "expat-tree", "expat-typed-arena"};
    static const char *const whole_only[] = {"fast", "libxml2-dom"};
    hb_fuzz_rng rng;
    hb_volumes a;
    hb_vol_error ea;

    hb_fuzz_set_input(data, size);
    hb_fuzz_rng_seed(&rng, data, size);
    uint8_t *doc = hb_fuzz_copy(data, size);
    int ra = hb_volumes_decode(hb_vol_find(HB_VOL_REFERENCE), doc, size, 0, &a, &ea);
    if (ra != HB_OK && !one_line(ea.reason))
        hb_fuzz_fail("the reference's reason is not one line: '%s'",
                     ea.reason ? ea.reason : "(null)");
    size_t pieces[] = {1, 7, (size_t)hb_fuzz_range(&rng, 1, 64), 0};
    for (size_t i = 0; i < sizeof streaming / sizeof *streaming; i++)
        for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++)
            if (!(pieces[k] == 0 && i == 0)) /* the reference whole is a */
                check_strategy(hb_vol_find(streaming[i]), data, size, pieces[k], ra, &a, &ea);
    for (size_t i = 0; i < sizeof whole_only / sizeof *whole_only; i++)
        check_strategy(hb_vol_find(whole_only[i]), data, size, 0, ra, &a, &ea);
    check_baselines(data, size);
    hb_volumes_free(&a);
    free(doc);
    return 0;
}

/* fuzz_dechunk.c - differential fuzz target of the chunked decoder (cases/bufgrow/dechunk.c,
 * hb_dechunk.h: RFC 9112 section 7.1).
 *
 * The input is a message body. It is decoded five ways:
 *   whole         one piece, an output window as large as the input (chunk-data never exceeds
 *                 the body);
 *   byte by byte  one-byte pieces, a one-byte output window per call;
 *   three random  split points and output windows drawn from the input's hash (hb_fuzz_rng):
 *                 pieces of 1 to 64 bytes with windows of 1 to 64; pieces of any length with
 *                 windows of 1 to 4096, and with windows of 1 to 16.
 * Every piece is an exact-size heap copy and every output window an exact-size heap block, so
 * ASan sees a read past in[in_len - 1] or a write past out[out_cap - 1]. The contract of
 * hb_dechunk_run is checked on every call (counts within bounds, progress, "with output space
 * left all input was used", sticky DONE and errors). All five must give the same outcome: return
 * code, hb_dechunk_finish's code, error reason and offset, chunk-data, bytes consumed.
 *
 * Then the outcome must agree with hb_chunked_oracle (chunked_oracle.h), a matcher written from
 * the RFC's grammar: a complete body where the decoder says DONE (same length, same chunk-data);
 * a byte no body can continue with where it reports HB_EPARSE, HB_ERANGE or HB_ELIMIT; a proper
 * prefix of a body where hb_dechunk_finish reports HB_ETRUNC.
 */
#include "chunked_oracle.h"
#include "hb_dechunk.h"
#include "hb_err.h"
#include "hb_fuzz.h"

#include <stdlib.h>
#include <string.h>

/* How one decoding is fed: piece lengths and output windows, fixed or drawn in [lo, hi]. */
typedef struct feed_plan {
    const char *name;
    size_t piece_lo, piece_hi;
    size_t window_lo, window_hi;
} feed_plan;

/* What one decoding concluded. */
typedef struct outcome {
    int rc;             /* the last hb_dechunk_run code: 0, DONE or an error */
    int finish;         /* hb_dechunk_finish */
    const char *reason; /* hb_dechunk_error */
    uint64_t err_off;
    size_t consumed; /* input bytes consumed */
    uint8_t *out;    /* chunk-data (heap, the input's length) */
    size_t out_len;
} outcome;

/* One call of hb_dechunk_run on an exact copy of in[0, n) with a window of w bytes, its contract
 * checked; the chunk-data goes to o->out. Returns the code; *used gets the input consumed. */
static int run_once(hb_dechunk *d, const uint8_t *in, size_t n, size_t w, outcome *o,
                    size_t *used, const char *plan)
{
    uint8_t *piece = hb_fuzz_copy(in, n);
    uint8_t *window = hb_fuzz_alloc(w);
    size_t made = (size_t)-1;
    *used = (size_t)-1;
    int rc = hb_dechunk_run(d, n ? piece : NULL, n, used, w ? window : NULL, w, &made);
    if (*used > n || made > w)
        hb_fuzz_fail("%s: in_used %zu of %zu, out_made %zu of %zu", plan, *used, n, made, w);
    if (rc != 0 && rc != HB_DECHUNK_DONE && rc != HB_EPARSE && rc != HB_ERANGE &&
        rc != HB_ELIMIT)
        hb_fuzz_fail("%s: hb_dechunk_run returned %d", plan, rc);
    if (rc == 0 && made < w && *used != n)
        hb_fuzz_fail("%s: returned 0 with output space left but used %zu of %zu input bytes",
                     plan, *used, n);
    if (rc == 0 && n > 0 && w > 0 && *used == 0 && made == 0)
        hb_fuzz_fail("%s: no progress with %zu input bytes and %zu of output space", plan, n, w);
    if (o->out_len + made > o->consumed + *used)
        hb_fuzz_fail("%s: more chunk-data than body bytes", plan);
    memcpy(o->out + o->out_len, window, made);
    o->out_len += made;
    free(window);
    free(piece);
    return rc;
}

/* After DONE or an error: another call consumes nothing and returns the same code. */
static void check_sticky(hb_dechunk *d, int rc, const char *plan)
{
    static const uint8_t more[2] = {'0', '\r'};
    uint8_t window[4];
    size_t used = 1, made = 1;
    int again = hb_dechunk_run(d, more, sizeof more, &used, window, sizeof window, &made);
    if (again != rc || used != 0 || made != 0)
        hb_fuzz_fail("%s: after code %d a call returned %d, used %zu, made %zu", plan, rc, again,
                     used, made);
}

/* Decodes data[0, size) fed as plan says; fills *o (o->out allocated, the caller frees it). */
static void decode(const uint8_t *data, size_t size, const feed_plan *plan, hb_fuzz_rng *rng,
                   outcome *o)
{
    hb_dechunk d;
    hb_dechunk_init(&d);
    memset(o, 0, sizeof *o);
    o->out = hb_fuzz_alloc(size);
    size_t pos = 0;
    int rc = 0;
    while (rc == 0 && pos < size) {
        size_t n = (size_t)hb_fuzz_range(rng, plan->piece_lo, plan->piece_hi);
        n = n > size - pos ? size - pos : n;
        size_t done = 0;
        while (rc == 0 && done < n) {
            size_t w = (size_t)hb_fuzz_range(rng, plan->window_lo, plan->window_hi), used;
            rc = run_once(&d, data + pos + done, n - done, w, o, &used, plan->name);
            done += used;
            o->consumed += used;
        }
        pos += n;
    }
    if (rc != 0)
        check_sticky(&d, rc, plan->name);
    o->rc = rc;
    o->finish = hb_dechunk_finish(&d);
    o->reason = hb_dechunk_error(&d, &o->err_off);
    if ((o->finish == HB_OK) != (rc == HB_DECHUNK_DONE) || (rc < 0 && o->finish != rc))
        hb_fuzz_fail("%s: run returned %d, finish %d", plan->name, rc, o->finish);
    if ((o->reason != NULL) != (o->finish != HB_OK) || o->err_off > size)
        hb_fuzz_fail("%s: finish %d, reason %s at %llu", plan->name, o->finish,
                     o->reason ? o->reason : "(none)", (unsigned long long)o->err_off);
}

static void same_outcome(const outcome *a, const outcome *b, const char *na, const char *nb)
{
    if (a->rc != b->rc || a->finish != b->finish || a->consumed != b->consumed ||
        a->err_off != b->err_off || (a->reason != b->reason &&
                                     (!a->reason || !b->reason || strcmp(a->reason, b->reason))))
        hb_fuzz_fail("%s gives code %d/%d, %zu consumed, '%s' at %llu; %s gives %d/%d, %zu "
                     "consumed, '%s' at %llu",
                     na, a->rc, a->finish, a->consumed, a->reason ? a->reason : "",
                     (unsigned long long)a->err_off, nb, b->rc, b->finish, b->consumed,
                     b->reason ? b->reason : "", (unsigned long long)b->err_off);
    if (a->out_len != b->out_len || memcmp(a->out, b->out, a->out_len) != 0)
        hb_fuzz_fail("%s and %s give different chunk-data (%zu and %zu bytes)", na, nb,
                     a->out_len, b->out_len);
}

/* The decoder's outcome against the RFC 9112 grammar's. */
static void agree_with_oracle(const uint8_t *data, size_t size, const outcome *o)
{
    uint8_t *want = hb_fuzz_alloc(size);
    size_t end = 0, want_len = 0;
    int v = hb_chunked_oracle(data, size, &end, want, &want_len);
    static const char *const names[] = {"a complete body", "a byte no body continues with",
                                        "a proper prefix of a body"};
    int got = o->rc == HB_DECHUNK_DONE ? HB_ORACLE_BODY
              : o->rc < 0              ? HB_ORACLE_BAD
                                       : HB_ORACLE_SHORT;
    if (got != v)
        hb_fuzz_fail("the decoder finds %s (code %d, '%s' at %llu); RFC 9112 7.1 finds %s at %zu",
                     names[got], o->rc, o->reason ? o->reason : "",
                     (unsigned long long)o->err_off, names[v], end);
    if (v == HB_ORACLE_BODY && (end != o->consumed || want_len != o->out_len ||
                                memcmp(want, o->out, want_len) != 0))
        hb_fuzz_fail("the body ends at %zu with %zu bytes of chunk-data; the decoder: %zu, %zu",
                     end, want_len, o->consumed, o->out_len);
    free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t whole = size ? size : 1;
    const feed_plan plans[] = {
        {"whole", whole, whole, whole, whole},
        {"byte by byte", 1, 1, 1, 1},
        {"random pieces of 1-64, windows of 1-64", 1, 64, 1, 64},
        {"random pieces, windows of 1-4096", 1, whole, 1, 4096},
        {"random pieces, windows of 1-16", 1, whole, 1, 16},
    };
    enum { NPLANS = sizeof plans / sizeof plans[0] };
    outcome o[NPLANS];
    hb_fuzz_rng rng;

    hb_fuzz_set_input(data, size);
    hb_fuzz_rng_seed(&rng, data, size);
    for (size_t i = 0; i < NPLANS; i++) {
        decode(data, size, &plans[i], &rng, &o[i]);
        if (i > 0)
            same_outcome(&o[0], &o[i], plans[0].name, plans[i].name);
    }
    agree_with_oracle(data, size, &o[0]);
    for (size_t i = 0; i < NPLANS; i++)
        free(o[i].out);
    return 0;
}

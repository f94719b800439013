/* bench.c - registration of the tag-heavy XML case (incident 3 of DESIGN.md).
 *
 * One family per strategy:
 *     volumes/<strategy>/volumes:V/tags:T/compact:C/piece:P
 * the DescribeVolumes response of V volumes with T tags each, indented (C = 0) or compact (C = 1),
 * fed whole (P = 0) or in P-byte pieces as from a socket (the streaming expat strategies only).
 * Scaling: tags in {0, 1, 5, 10, 20, 50, 100} at 300 volumes and volumes in {10, 30, 100, 300,
 * 1000, 3000} at 20 tags, indented and compact; 300 x 20 also in 4096-byte pieces. Profiles:
 * full as above; quick (CI) tags {0, 20, 100} and volumes {30, 300, 3000}, indented only, plus
 * 300 x 20 compact and in pieces; smoke a 3 x 2 response (pieces of 64 bytes) and an empty one.
 *
 * One timed iteration decodes the whole response and releases the result (a response's whole
 * life in the SDK). Before anything is timed, the reference's answer is itself checked: its
 * volume, tag, attachment and element counts against what the generator wrote, and its volumes
 * against those of two independent decoders (fast and libxml2-dom). Then each benchmark runs its
 * strategy once with glibc's malloc perturbation on and checks the answer against the reference
 * (expat-typed, whole): decoders by digest, element count and a member-by-member compare;
 * expat-count by the element count the generator wrote; memchr-scan by a byte loop's count of '<'.
 * A mismatch fails the benchmark without timing it.
 *
 * The families are data (the argument tuples per profile, vol_families), registered by the
 * harness from the case description's strategies (hb_case_run.h), which keeps each verified
 * tuple with its allocation counts.
 *
 * Counters: MB_per_s (decimal), ns_per_element, elements, allocations and peak_bytes per
 * response (from the verification run: the counting allocator sees every block, the parser's
 * included); complexity N is the element count.
 */
#include "hb.h"
#include "hb_case_run.h"
#include "hb_gen_xml.h"
#include "hb_volumes.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VB_MAX_INPUTS 32
#define VB_PIECE 4096 /* bytes per read from the socket */

/* One generated response and its reference answer, kept for the life of the process. */
typedef struct vin {
    hb_volumes_params params;
    uint8_t *doc;
    size_t len;
    hb_volumes_info info;
    hb_volumes ref; /* the reference's decode */
    uint64_t ref_digest;
    uint64_t lt; /* '<' bytes, counted by a byte loop */
} vin;

typedef struct vctx {
    hb_options opt;
    hb_case_set set;
    uint64_t seed;
    vin inputs[VB_MAX_INPUTS];
    size_t ninputs;
} vctx;

/* Tags and attachments of all decoded volumes. */
static void count_items(const hb_volumes *v, uint64_t *tags, uint64_t *attachments)
{
    *tags = *attachments = 0;
    for (size_t i = 0; i < v->nvolumes; i++) {
        *tags += v->volumes[i]->ntags;
        *attachments += v->volumes[i]->nattachments;
    }
}

/* The reference's answer checked before anything is timed: the volume, tag, attachment and
 * element counts the generator wrote, and the same volumes (digest and member by member) from
 * the independent decoders fast (hand-written) and libxml2-dom (another parser). Returns 1, or 0
 * with why filled. */
static int check_reference(const vin *in, char *why, size_t whysz)
{
    uint64_t tags, atts;
    count_items(&in->ref, &tags, &atts);
    if (in->ref.nvolumes != in->info.volumes || tags != in->info.tags ||
        atts != in->info.attachments || in->ref.elements != in->info.elements) {
        snprintf(why, whysz,
                 "the reference decodes %zu volumes, %llu tags, %llu attachments and %llu "
                 "elements, the generator wrote %llu, %llu, %llu and %llu",
                 in->ref.nvolumes, (unsigned long long)tags, (unsigned long long)atts,
                 (unsigned long long)in->ref.elements, (unsigned long long)in->info.volumes,
                 (unsigned long long)in->info.tags, (unsigned long long)in->info.attachments,
                 (unsigned long long)in->info.elements);
        return 0;
    }
    static const char *const witnesses[] = {"fast", "libxml2-dom"};
    for (size_t i = 0; i < sizeof witnesses / sizeof witnesses[0]; i++) {
        hb_volumes w;
        hb_vol_error err;
        char msg[256];
        int rc = hb_volumes_decode(hb_vol_find(witnesses[i]), in->doc, in->len, 0, &w, &err);
        int ok = rc == HB_OK && hb_volumes_digest(&w) == in->ref_digest &&
                 hb_volumes_compare(&w, &in->ref, msg, sizeof msg) == 0;
        if (!ok && rc != HB_OK)
            snprintf(why, whysz, "%s rejects the input: %.160s", witnesses[i],
                     err.reason ? err.reason : hb_err_str(rc));
        else if (!ok)
            snprintf(why, whysz, "%s and %s disagree: %.160s", HB_VOL_REFERENCE, witnesses[i], msg);
        hb_volumes_free(&w);
        if (!ok)
            return 0;
    }
    return 1;
}

/* The input for (volumes, tags, compact), generated and decoded by the reference on first use;
 * NULL (nothing kept) when it cannot be built or the reference's answer fails check_reference. */
static vin *get_input(vctx *c, uint32_t volumes, uint32_t tags, int compact, char *why,
                      size_t whysz)
{
    for (size_t i = 0; i < c->ninputs; i++) {
        vin *in = &c->inputs[i];
        if (in->params.volumes == volumes && in->params.tags == tags &&
            in->params.compact == compact)
            return in;
    }
    if (c->ninputs == VB_MAX_INPUTS) {
        snprintf(why, whysz, "too many distinct inputs");
        return NULL;
    }
    vin *in = &c->inputs[c->ninputs];
    memset(in, 0, sizeof *in);
    hb_volumes_params_default(&in->params);
    in->params.volumes = volumes;
    in->params.tags = tags;
    in->params.compact = compact;
    in->params.seed = c->seed;
    int rc = hb_volumes_generate(&in->params, &in->doc, &in->len, &in->info);
    if (rc != HB_OK) {
        snprintf(why, whysz, "generator: %s", hb_err_str(rc));
        return NULL;
    }
    for (size_t i = 0; i < in->len; i++)
        in->lt += in->doc[i] == '<';
    hb_vol_error err;
    rc = hb_volumes_decode(hb_vol_find(HB_VOL_REFERENCE), in->doc, in->len, 0, &in->ref, &err);
    if (rc != HB_OK) {
        snprintf(why, whysz, "the reference rejects the input: %s at line %llu",
                 err.reason ? err.reason : hb_err_str(rc), (unsigned long long)err.line);
    } else {
        in->ref_digest = hb_volumes_digest(&in->ref);
        if (check_reference(in, why, whysz)) {
            c->ninputs++;
            return in;
        }
    }
    hb_volumes_free(&in->ref);
    free(in->doc);
    memset(in, 0, sizeof *in);
    return NULL;
}

/* Runs the strategy once with every allocation poisoned and checks its answer. */
static int verify_decode(const hb_vol_strategy *s, const vin *in, size_t piece, hb_state *st,
                         hb_vol_mem_stats *mem)
{
    hb_volumes out;
    hb_vol_error err;
    char msg[256];
    int ok = 1;
    mallopt(M_PERTURB, 0x5a);
    hb_volumes_set_poisoned_heap(1);
    int rc = hb_volumes_decode(s, in->doc, in->len, piece, &out, &err);
    if (rc != HB_OK) {
        hb_state_fail(st, "%s at line %llu, column %llu", err.reason ? err.reason : hb_err_str(rc),
                      (unsigned long long)err.line, (unsigned long long)err.column);
        ok = 0;
    } else if (s->output == HB_VOL_OUT_LT) {
        if (out.count != in->lt) {
            hb_state_fail(st, "counted %llu '<', expected %llu", (unsigned long long)out.count,
                          (unsigned long long)in->lt);
            ok = 0;
        }
    } else if (s->output == HB_VOL_OUT_ELEMENTS) {
        if (out.count != in->info.elements) {
            hb_state_fail(st, "counted %llu elements, expected %llu", (unsigned long long)out.count,
                          (unsigned long long)in->info.elements);
            ok = 0;
        }
    } else {
        uint64_t d = hb_volumes_digest(&out);
        if (d != in->ref_digest || out.elements != in->info.elements ||
            hb_volumes_compare(&out, &in->ref, msg, sizeof msg) != 0) {
            if (hb_volumes_compare(&out, &in->ref, msg, sizeof msg) == 0)
                snprintf(msg, sizeof msg, "%llu elements vs %llu", (unsigned long long)out.elements,
                         (unsigned long long)in->info.elements);
            hb_state_fail(st, "differs from %s: digest %016llx, expected %016llx; %s",
                          HB_VOL_REFERENCE, (unsigned long long)d,
                          (unsigned long long)in->ref_digest, msg);
            ok = 0;
        }
    }
    *mem = out.mem;
    hb_volumes_free(&out);
    hb_volumes_set_poisoned_heap(0);
    mallopt(M_PERTURB, 0);
    return ok;
}

/* The response of the tuple {volumes, tags, compact, piece}, built on first use. */
static int prepare(hb_run *r)
{
    char why[256];
    r->input = get_input(r->ctx, (uint32_t)r->args[0], (uint32_t)r->args[1], (int)r->args[2], why,
                         sizeof why);
    if (!r->input) {
        hb_state_fail(r->st, "cannot build the input: %s", why);
        return HB_EINVAL;
    }
    return HB_OK;
}

/* The strategy's answer checked; its allocation counts kept as the tuple's memo. */
static int verify(hb_run *r)
{
    return verify_decode(r->bench->impl, r->input, (size_t)r->args[3], r->st, r->memo);
}

/* The timed loop: one whole response decoded and released per iteration; then the counters. */
static void time_decode(hb_run *r)
{
    const hb_vol_strategy *s = r->bench->impl;
    const vin *in = r->input;
    hb_state *st = r->st;
    size_t piece = (size_t)r->args[3];
    hb_vol_mem_stats mem = *(const hb_vol_mem_stats *)r->memo;

    double t0 = hb_now_s();
    while (hb_state_keep_running(st)) {
        hb_volumes out;
        hb_vol_error err;
        int rc = hb_volumes_decode(s, in->doc, in->len, piece, &out, &err);
        hb_do_not_optimize_u64(out.count + out.nvolumes);
        hb_do_not_optimize_ptr(out.volumes);
        hb_volumes_free(&out);
        if (rc != HB_OK) {
            hb_state_fail(st, "%s", err.reason ? err.reason : hb_err_str(rc));
            return;
        }
    }
    double secs = hb_now_s() - t0;
    int64_t iters = hb_state_iterations(st);
    double per = iters > 0 ? secs / (double)iters : 0;
    double elements = (double)in->info.elements;
    hb_state_set_bytes_processed(st, iters * (int64_t)in->len);
    hb_state_set_items_processed(st, iters * (int64_t)in->info.elements);
    hb_state_set_complexity_n(st, (int64_t)in->info.elements);
    hb_state_counter(st, "MB_per_s", per > 0 ? (double)in->len / per / 1e6 : 0, 0);
    hb_state_counter(st, "ns_per_element", elements > 0 ? per * 1e9 / elements : 0, 0);
    hb_state_counter(st, "elements", elements, 0);
    hb_state_counter(st, "bytes", (double)in->len, 0);
    hb_state_counter(st, "allocations", (double)mem.allocations, 0);
    hb_state_counter(st, "peak_bytes", (double)mem.peak_bytes, 0);
}

/* --- registration: the family as data ------------------------------------------------------- */

/* The implementation of a described strategy: its row of hb_vol_strategies. */
static int bind(void *ctx, const hb_family *f, const hb_strategy_desc *d, const void **impl)
{
    (void)ctx;
    (void)f;
    *impl = hb_vol_find(d->name);
    if (*impl)
        return HB_OK;
    fprintf(stderr, "hotbench: volumes strategy %s is described but not in volumes.c\n", d->name);
    return HB_EINVAL;
}

/* Pieces (piece > 0) are for the streaming strategies only. */
static int takes(const hb_case_bench *b, const int64_t *args)
{
    const hb_vol_strategy *s = b->impl;
    return args[3] == 0 || s->streaming;
}

/* {volumes, tags, compact, piece}: full - tags scaled at 300 volumes and volumes scaled at 20
 * tags, indented and compact, and 300 x 20 in VB_PIECE-byte pieces; quick (CI) - the scaling
 * indented only, 300 x 20 in every form; smoke - a 3 x 2 response (pieces of 64 bytes) and an
 * empty one. */
/* clang-format off */
#define SCALED(c) \
    300, 20, c, 0,   300, 0, c, 0,    300, 1, c, 0,    300, 5, c, 0,    300, 10, c, 0, \
    300, 50, c, 0,   300, 100, c, 0,  10, 20, c, 0,    30, 20, c, 0,    100, 20, c, 0, \
    1000, 20, c, 0,  3000, 20, c, 0
#define PIECES 300, 20, 0, VB_PIECE,  300, 20, 1, VB_PIECE
static const int64_t args_full[] = {SCALED(0), SCALED(1), PIECES};
static const int64_t args_quick[] = {
    300, 20, 0, 0,   300, 0, 0, 0,    300, 100, 0, 0,  30, 20, 0, 0,    3000, 20, 0, 0,
    300, 20, 1, 0,   PIECES};
static const int64_t args_smoke[] = {
    3, 2, 0, 0,      3, 2, 1, 0,      0, 0, 0, 0,      3, 2, 0, 64,     3, 2, 1, 64};
/* clang-format on */
static const char *const arg_names[] = {"volumes", "tags", "compact", "piece", NULL};

/* Minimum time per repetition: an iteration decodes one response (0.6 ms at 300 x 20, 6 ms at
 * 3000 x 20), so 0.1 s is still 150+ iterations; at google-benchmark's default 0.5 s each
 * strategy took ~55 s of the full run for CVs no lower (measured back to back on the 2-vCPU VM:
 * README, `make bench`). */
#define VB_MIN_TIME_S 0.1

/* one family: every strategy of the group; repetitions: hb_main passes --hb_repetitions on */
/* clang-format off */
/* group     only  kind  arguments  tuples per profile (full, quick, smoke)
 *           unit   Big-O      state  memo (the verification's allocation counts)
 *           functions, minimum time per repetition (s) */
static const hb_family vol_families[] = {
    {"volumes", NULL, 0,   arg_names,
     {HB_TUPLES(args_full, 4), HB_TUPLES(args_quick, 4), HB_TUPLES(args_smoke, 4)},
     HB_US, HB_O_NONE, 0, sizeof(hb_vol_mem_stats), bind, takes, prepare, verify, time_decode,
     VB_MIN_TIME_S},
};
/* clang-format on */

extern const hb_case_desc hb_volumes_case; /* case.c */

int hb_volumes_register(const hb_options *opt)
{
    static vctx ctx; /* google-benchmark calls into it until the process exits */
    vctx *c = &ctx;
    c->opt = *opt;
    c->seed = HB_VOLUMES_DEFAULT_SEED;

    char buf[64];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)c->seed);
    hb_add_context("volumes_seed", buf);
    hb_add_context("volumes_reference", HB_VOL_REFERENCE);
    hb_add_context("libxml2_version", hb_vol_libxml2_version());
    int rc = hb_case_check_registry(&hb_volumes_case, "volumes", hb_vol_strategies,
                                    hb_vol_strategy_count, sizeof hb_vol_strategies[0]);
    return rc == HB_OK ? hb_case_register(&hb_volumes_case, vol_families, 1, c, opt, &c->set) : rc;
}

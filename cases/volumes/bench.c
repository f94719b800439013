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
 * Counters: MB_per_s (decimal), ns_per_element, elements, allocations and peak_bytes per
 * response (from the verification run: the counting allocator sees every block, the parser's
 * included); complexity N is the element count.
 */
#include "hb.h"
#include "hb_gen_xml.h"
#include "hb_volumes.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VB_MAX_INPUTS 32
#define VB_MAX_BENCHES 16
#define VB_MAX_VERIFIED 64
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

typedef struct vctx vctx;

typedef struct vbench {
    vctx *ctx;
    const hb_vol_strategy *s;
    uint64_t verified[VB_MAX_VERIFIED];
    hb_vol_mem_stats mem[VB_MAX_VERIFIED]; /* per verified argument tuple */
    size_t nverified;
} vbench;

struct vctx {
    hb_options opt;
    uint64_t seed;
    vin inputs[VB_MAX_INPUTS];
    size_t ninputs;
    vbench benches[VB_MAX_BENCHES];
    size_t nbenches;
};

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
static int verify(vbench *b, const vin *in, size_t piece, hb_state *st, hb_vol_mem_stats *mem)
{
    hb_volumes out;
    hb_vol_error err;
    char msg[256];
    int ok = 1;
    mallopt(M_PERTURB, 0x5a);
    hb_volumes_set_poisoned_heap(1);
    int rc = hb_volumes_decode(b->s, in->doc, in->len, piece, &out, &err);
    if (rc != HB_OK) {
        hb_state_fail(st, "%s at line %llu, column %llu", err.reason ? err.reason : hb_err_str(rc),
                      (unsigned long long)err.line, (unsigned long long)err.column);
        ok = 0;
    } else if (b->s->output == HB_VOL_OUT_LT) {
        if (out.count != in->lt) {
            hb_state_fail(st, "counted %llu '<', expected %llu", (unsigned long long)out.count,
                          (unsigned long long)in->lt);
            ok = 0;
        }
    } else if (b->s->output == HB_VOL_OUT_ELEMENTS) {
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

static void run(hb_state *st, void *arg)
{
    vbench *b = arg;
    vctx *c = b->ctx;
    uint32_t volumes = (uint32_t)hb_state_arg(st, 0), tags = (uint32_t)hb_state_arg(st, 1);
    int compact = (int)hb_state_arg(st, 2);
    size_t piece = (size_t)hb_state_arg(st, 3);
    char why[256];
    vin *in = get_input(c, volumes, tags, compact, why, sizeof why);
    if (!in) {
        hb_state_fail(st, "cannot build the input: %s", why);
        return;
    }
    uint64_t key =
        (uint64_t)volumes | (uint64_t)tags << 24 | (uint64_t)compact << 40 | (uint64_t)piece << 41;
    size_t slot = 0;
    while (slot < b->nverified && b->verified[slot] != key)
        slot++;
    hb_vol_mem_stats mem;
    if (slot == b->nverified) {
        if (!verify(b, in, piece, st, &mem))
            return;
        if (b->nverified < VB_MAX_VERIFIED) {
            b->verified[b->nverified] = key;
            b->mem[b->nverified++] = mem;
        }
    } else {
        mem = b->mem[slot];
    }

    double t0 = hb_now_s();
    while (hb_state_keep_running(st)) {
        hb_volumes out;
        hb_vol_error err;
        int rc = hb_volumes_decode(b->s, in->doc, in->len, piece, &out, &err);
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

/* --- registration --------------------------------------------------------------------------- */

typedef struct vargs {
    int64_t a[4]; /* volumes, tags, compact, piece */
} vargs;

static void add_args(vargs *list, size_t *n, size_t cap, int64_t v, int64_t t, int64_t c, int64_t p)
{
    for (size_t i = 0; i < *n; i++)
        if (list[i].a[0] == v && list[i].a[1] == t && list[i].a[2] == c && list[i].a[3] == p)
            return;
    if (*n < cap) {
        vargs x = {{v, t, c, p}};
        list[(*n)++] = x;
    }
}

int hb_volumes_register(const hb_options *opt)
{
    static vctx ctx; /* google-benchmark calls into it until the process exits */
    vctx *c = &ctx;
    c->opt = *opt;
    c->seed = HB_VOLUMES_DEFAULT_SEED;
    int smoke = strcmp(opt->profile, "smoke") == 0, quick = strcmp(opt->profile, "quick") == 0;

    static const int64_t tags_full[] = {0, 1, 5, 10, 20, 50, 100};
    static const int64_t vols_full[] = {10, 30, 100, 300, 1000, 3000};
    static const int64_t tags_quick[] = {0, 20, 100};
    static const int64_t vols_quick[] = {30, 300, 3000};
    vargs whole[64], pieces[8];
    size_t nwhole = 0, npieces = 0;
    if (smoke) {
        for (int64_t cpt = 0; cpt <= 1; cpt++) {
            add_args(whole, &nwhole, 64, 3, 2, cpt, 0);
            add_args(pieces, &npieces, 8, 3, 2, cpt, 64);
        }
        add_args(whole, &nwhole, 64, 0, 0, 0, 0);
    } else {
        const int64_t *tl = quick ? tags_quick : tags_full, *vl = quick ? vols_quick : vols_full;
        size_t nt = quick ? 3 : 7, nv = quick ? 3 : 6;
        /* quick (CI): the scaling indented only; 300 x 20 in every form */
        for (int64_t cpt = 0; cpt <= 1; cpt++) {
            add_args(whole, &nwhole, 64, 300, 20, cpt, 0);
            add_args(pieces, &npieces, 8, 300, 20, cpt, VB_PIECE);
            if (quick && cpt)
                break;
            for (size_t i = 0; i < nt; i++)
                add_args(whole, &nwhole, 64, 300, tl[i], cpt, 0);
            for (size_t i = 0; i < nv; i++)
                add_args(whole, &nwhole, 64, vl[i], 20, cpt, 0);
        }
    }

    char buf[64];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)c->seed);
    hb_add_context("volumes_seed", buf);
    hb_add_context("volumes_reference", HB_VOL_REFERENCE);

    static const char *const names[] = {"volumes", "tags", "compact", "piece"};
    static char fam[VB_MAX_BENCHES][64];
    for (size_t k = 0; k < hb_vol_strategy_count && c->nbenches < VB_MAX_BENCHES; k++) {
        vbench *b = &c->benches[c->nbenches];
        memset(b, 0, sizeof *b);
        b->ctx = c;
        b->s = &hb_vol_strategies[k];
        snprintf(fam[c->nbenches], sizeof fam[0], "volumes/%s", b->s->name);
        hb_bench *hb = hb_register(fam[c->nbenches], run, b);
        c->nbenches++;
        hb_bench_arg_names(hb, names, 4);
        for (size_t i = 0; i < nwhole; i++)
            hb_bench_args(hb, whole[i].a, 4);
        if (b->s->streaming)
            for (size_t i = 0; i < npieces; i++)
                hb_bench_args(hb, pieces[i].a, 4);
        hb_bench_unit(hb, HB_US); /* repetitions: hb_main passes --hb_repetitions on */
    }
    return HB_OK;
}

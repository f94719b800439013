/* bench.c - registration of the buffer-growth case (incident 1 of DESIGN.md).
 *
 * Families, one per strategy and body:
 *     bufgrow/<strategy>/size:N/read:R        identity chunked body, N decoded bytes
 *     bufgrow-gzip/<strategy>/size:N/read:R   the same payload gzip'd (Content-Encoding: gzip)
 *     bufgrow-cliff/httpcore/width:W/size:N   httpcore with a W-bit capacity: the overflow cliff
 *                                             (24 bits: past 4 MiB; the full profile adds the real
 *                                             32 bits just below and past 2^30, a few steps each,
 *                                             here and for bufgrow-cliff/httpcore-heap)
 * plus a baseline row in each group (memcpy of N bytes; one-shot zlib inflate of the gzip stream),
 * and the decoder alone into a warm buffer, dechunk/<strategy>/size:N/chunk:C/ext:E
 * (bench_dechunk.c).
 *
 * One timed iteration reads the whole body: chunked decoding (and inflate) into reads of R bytes
 * appended to the sink, then hb_sink_finish; the sink's release is outside the timed region.
 * The families are data (bg_families: sizes per profile), registered by the harness from the case
 * description's strategies (hb_case_run.h), which also keeps the checked-input cache: before
 * timing a size the first time, each benchmark runs its strategy once with glibc's malloc
 * perturbation on (every allocation poisoned), compares the result's size and crc32 with the
 * generator's (and every byte when the payload is small), and fails without timing on a mismatch.
 *
 * Budget: --hb_budget applies only to the strategies the case description (case.c) declares
 * quadratic (complexity 2: httpcore, additive, httpcore-heap). Such a size is run only if its
 * predicted time fits the budget. The prediction is the work the strategy will do at that size -
 * bytes appended plus bytes copied, from hb_sink_plan's dry run - times the seconds per byte of
 * work measured at the family's previous size, its copies priced by a measured growth step. So the
 * httpcore overflow is seen coming although no smaller size shows it. Linear strategies and the
 * baselines run every size of the profile, the 1.7 GB production size included: they are
 * measured, never predicted - unless a linear strategy's dry run copies more than 8 bytes per
 * byte appended (BG_LINEAR_COPIES_MAX: a regression made it quadratic), which the budget then
 * binds like a declared quadratic one. The 32-bit cliff families (full profile) have a time
 * allowance of their own: they always run their sizes (just below 2^30, and fixed numbers of
 * additive steps just past it), whatever the budget; before they start, hotbench prints on stderr
 * how long they are expected to take, priced by a growth step and a warm copy measured then, and
 * records it in the run context as bufgrow_cliff_expected_s, and each of their rows carries its own
 * expected seconds as hb_predicted_s (docs/manifest.md). Every size, of every family, is still
 * skipped when its peak memory exceeds --hb_max_memory (default 90% of MemAvailable).
 */
#include "hb.h"
#include "hb_bufgrow.h"
#include "hb_calibrate.h"
#include "hb_case_run.h"
#include "hb_gen.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define BG_MAX_INPUTS 64
#define BG_FULL_COMPARE_MAX (64u << 20) /* payloads up to this size are compared byte by byte */
#define BG_CACHE_MIN (64u << 20)        /* bodies from this size on are cached under data/ */
#define BG_SHARE_MIN (1u << 20)         /* and from this one on too, then copied into memory */
#define BG_GZIP_LEVEL 1                 /* nginx's default gzip_comp_level */
#define BG_CLIFF_BITS 24                /* the narrowed width: the shift overflows at 4 MiB */
#define BG_DEFAULT_S_PER_BYTE 1e-9      /* budget before a measurement: 1 GB/s of first touch */
#define BG_DEFAULT_S_PER_INFLATED 4e-9  /* and 0.25 GB/s of inflate */
#define BG_PROBE_MAX (256u << 20)       /* largest growth step copy_rate measures */
#define BG_LINEAR_COPIES_MAX 8.0        /* bytes copied per byte appended a linear strategy stays
                                         * under (growth-1.5 copies ~2.3, doubling ~1; realloc's
                                         * counts are upper bounds and not judged) */

/* One generated input, kept for the life of the process (inputs are shared by all strategies). */
typedef struct bg_input {
    uint64_t size;
    int gzip;
    hb_blob body;
    hb_chunked_info info;
    hb_blob payload;       /* the decoded payload when size <= BG_FULL_COMPARE_MAX, else empty */
    uint8_t *gzip_stream;  /* gzip: the dechunked stream, for the inflate baseline */
    size_t gzip_len;
    uint32_t body_crc_n;   /* identity: crc32 of body[0 .. size), the memcpy baseline's answer */
} bg_input;

typedef struct bg_ctx bg_ctx;

/* What a family carries from one run to the next (hb_case_bench.state), and the run's plan from
 * prepare to verify and time. */
typedef struct bg_fam {
    double sec_per_work; /* measured at the family's last timed size: what the budget predicts
                          * from */
    hb_sink_config cfg;  /* this run's */
    hb_sink_stats plan;  /* this run's dry run */
    double work;         /* bytes appended + bytes copied (exact copies only) */
} bg_fam;

/* The measured cost of one allocate-copy-free growth step of a given size (see copy_rate). */
typedef struct bg_probe {
    uint64_t bytes;
    double sec_per_byte;
} bg_probe;

struct bg_ctx {
    hb_options opt;
    hb_case_set set;
    bg_probe probes[8];
    size_t nprobes;
    hb_chunked_params gen; /* seed, chunk sizes; size and gzip set per input */
    bg_input inputs[BG_MAX_INPUTS];
    size_t ninputs;
    char cliff_note[512]; /* the 32-bit cliff's expected duration, printed when it starts */
    int cliff_noted;      /* cliff_note was printed by the first of them to start */
    int uncached_noted;   /* load_body said once that the data folder cannot cache bodies */
    double cliff_fresh_s; /* the cliff's prices measured by cliff_announce (0: not measured): */
    double cliff_warm_gbps; /* s per byte of a fresh growth step; GB/s of warm copy */
};

/* The kinds of families (hb_family.kind). */
enum bg_kind {
    BG_BODY,       /* bufgrow: identity chunked bodies */
    BG_GZIP,       /* bufgrow-gzip */
    BG_CLIFF,      /* bufgrow-cliff with fresh-memory steps past 2^30 */
    BG_CLIFF_HEAP, /* bufgrow-cliff whose additive steps reuse warm memory (a JVM-like heap) */
};

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

/* Progress of a long generation on stderr: one updating line on a terminal, else the end only. */
static void progress(void *ctx, uint64_t done, uint64_t total)
{
    const bg_input *in = ctx;
    int tty = isatty(STDERR_FILENO);
    if (!tty && done < total)
        return;
    fprintf(stderr, "%shotbench: %s chunked body of %.3g GB: %3.0f%%%s", tty ? "\r" : "",
            in->gzip ? "gzip" : "identity", (double)in->size / 1e9,
            total ? 100.0 * (double)done / (double)total : 100.0, done >= total ? "\n" : "");
    fflush(stderr);
}

/* Dechunks a whole body into a malloc'd buffer of exactly expect bytes (the gzip stream). The
 * decoder stops when its output is full, so it is called until it reports the end of the body. */
static int dechunk_all(const hb_blob *body, size_t expect, uint8_t **out, const char **why)
{
    hb_dechunk d;
    size_t in_off = 0, out_off = 0, used, made;
    int rc = 0;
    uint8_t *buf = malloc(expect ? expect : 1);
    if (!buf)
        return HB_ENOMEM;
    hb_dechunk_init(&d);
    while (rc == 0) {
        rc = hb_dechunk_run(&d, body->data + in_off, body->len - in_off, &used, buf + out_off,
                            expect - out_off, &made);
        in_off += used;
        out_off += made;
        if (rc == 0 && used == 0 && made == 0)
            break; /* out of input, or chunk-data beyond expect bytes */
    }
    if (rc == HB_DECHUNK_DONE && in_off == body->len && out_off == expect) {
        *out = buf;
        return HB_OK;
    }
    *why = rc < 0 ? hb_dechunk_error(&d, NULL) : "the body does not dechunk to its gzip size";
    free(buf);
    return rc < 0 ? rc : HB_EPARSE;
}

/* The chunked body for p into in->body and in->info. From BG_CACHE_MIN on: mapped from the cache
 * in the data folder (made on first use, with progress). From BG_SHARE_MIN on: cached too, then
 * copied into malloc'd memory, where a generated body lives: the compare runs each bufgrow
 * strategy in a process of its own (gate.isolate), and making the same bodies (deflate) in each
 * was most of that price. When the data folder cannot hold them (HB_EIO; said once on stderr),
 * and below BG_SHARE_MIN: generated here. Returns HB_OK or an hb_err. */
static int load_body(bg_ctx *c, const hb_chunked_params *p, bg_input *in)
{
    if (p->size >= BG_CACHE_MIN)
        return hb_chunked_load(p, c->opt.data_dir, progress, in, &in->body, &in->info);
    if (p->size >= BG_SHARE_MIN) {
        int rc = hb_chunked_load(p, c->opt.data_dir, NULL, NULL, &in->body, &in->info);
        if (rc == HB_OK) {
            rc = hb_blob_to_memory(&in->body);
            if (rc != HB_OK)
                hb_blob_free(&in->body);
            return rc;
        }
        if (rc != HB_EIO)
            return rc;
        if (!c->uncached_noted)
            fprintf(stderr, "hotbench: bodies from %u KiB on are not cached (data folder %s: %s); "
                            "each process makes its own\n", BG_SHARE_MIN >> 10, c->opt.data_dir,
                    strerror(errno));
        c->uncached_noted = 1;
    }
    return hb_chunked_load(p, NULL, NULL, NULL, &in->body, &in->info);
}

/* The input for (size, gzip), generated (or loaded from the cache) on first use. */
static bg_input *get_input(bg_ctx *c, uint64_t size, int gzip, const char **why)
{
    for (size_t i = 0; i < c->ninputs; i++)
        if (c->inputs[i].size == size && c->inputs[i].gzip == gzip)
            return &c->inputs[i];
    if (c->ninputs == BG_MAX_INPUTS) {
        *why = "too many distinct inputs";
        return NULL;
    }
    bg_input *in = &c->inputs[c->ninputs];
    memset(in, 0, sizeof *in);
    in->size = size;
    in->gzip = gzip;
    hb_chunked_params p = c->gen;
    p.size = size;
    p.gzip_level = gzip ? BG_GZIP_LEVEL : -1;
    int rc = load_body(c, &p, in);
    if (rc != HB_OK) {
        *why = hb_err_str(rc);
        return NULL;
    }
    if (size <= BG_FULL_COMPARE_MAX && hb_payload_load(size, p.seed, &in->payload) != HB_OK) {
        *why = "out of memory for the reference payload";
        goto fail;
    }
    if (gzip) {
        in->gzip_len = in->info.gzip_size;
        rc = dechunk_all(&in->body, in->gzip_len, &in->gzip_stream, why);
        if (rc != HB_OK)
            goto fail;
    } else {
        in->body_crc_n = (uint32_t)crc32_z(0, in->body.data, (size_t)size);
    }
    c->ninputs++;
    return in;
fail:
    hb_blob_free(&in->payload);
    hb_blob_free(&in->body);
    return NULL;
}

/* --- the timed work ------------------------------------------------------------------------ */

/* One read of the whole body into the sink. Returns HB_OK or an error with *why set. */
static int read_body(const bg_input *in, hb_sink *sink, uint32_t read_size, const char **why,
                     uint64_t *where)
{
    hb_body_reader r;
    int rc = hb_body_reader_init(&r, sink, in->gzip, read_size);
    if (rc == HB_OK)
        rc = hb_body_reader_feed(&r, in->body.data, in->body.len);
    if (rc == HB_OK)
        rc = hb_body_reader_finish(&r);
    if (rc != HB_OK) {
        const char *reason = hb_body_reader_error(&r, where);
        *why = reason ? reason : hb_err_str(rc);
    } else {
        rc = hb_sink_finish(sink);
        if (rc != HB_OK)
            *why = hb_err_str(rc);
    }
    hb_body_reader_release(&r);
    return rc;
}

/* The baseline: memcpy of N bytes, or one-shot inflate of the gzip stream, into malloc(N). */
static int baseline(const bg_input *in, uint8_t **out, const char **why)
{
    uint8_t *dst = malloc(in->size ? in->size : 1);
    if (!dst) {
        *why = "out of memory";
        return HB_ENOMEM;
    }
    if (!in->gzip) {
        memcpy(dst, in->body.data, in->size);
        *out = dst;
        return HB_OK;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        free(dst);
        *why = "inflateInit2 failed";
        return HB_EZLIB;
    }
    z.next_in = in->gzip_stream;
    z.avail_in = (uInt)in->gzip_len; /* the generator's gzip streams are well under 4 GB */
    z.next_out = dst;
    uint64_t left = in->size;
    int zr = Z_OK;
    while (zr == Z_OK) {
        uInt chunk = left > (1u << 30) ? (1u << 30) : (uInt)left;
        z.avail_out = chunk;
        zr = inflate(&z, Z_NO_FLUSH);
        left -= chunk - z.avail_out;
        if (zr == Z_BUF_ERROR && left == 0)
            break;
    }
    inflateEnd(&z);
    if (zr != Z_STREAM_END || left != 0) {
        free(dst);
        *why = "inflate did not end exactly at the payload size";
        return HB_EZLIB;
    }
    *out = dst;
    return HB_OK;
}

/* --- verification --------------------------------------------------------------------------- */

/* Checks data[0 .. len) against the input's answer; fills msg on a mismatch. */
static int check_result(const bg_input *in, int is_baseline, const uint8_t *data, uint64_t len,
                        char *msg, size_t msgsz)
{
    uint32_t want = is_baseline && !in->gzip ? in->body_crc_n : in->info.crc32;
    if (len != in->size) {
        snprintf(msg, msgsz, "size %llu, expected %llu", (unsigned long long)len,
                 (unsigned long long)in->size);
        return 0;
    }
    uint32_t got = (uint32_t)crc32_z(0, data, (size_t)len);
    if (got != want) {
        snprintf(msg, msgsz, "crc32 %08x, expected %08x", got, want);
        return 0;
    }
    if (!is_baseline && in->payload.data && memcmp(data, in->payload.data, len) != 0) {
        uint64_t i = 0;
        while (data[i] == in->payload.data[i])
            i++;
        snprintf(msg, msgsz, "byte %llu is 0x%02x, expected 0x%02x", (unsigned long long)i,
                 data[i], in->payload.data[i]);
        return 0;
    }
    return 1;
}

/* Runs the strategy once with every allocation poisoned and checks its answer. */
static int verify(hb_run *r)
{
    const hb_sink_strategy *s = r->bench->impl;
    const bg_input *in = r->input;
    const hb_sink_config *cfg = &((bg_fam *)r->bench->state)->cfg;
    hb_state *st = r->st;
    const char *why = NULL;
    uint64_t where = 0;
    char msg[256];
    int ok;
    mallopt(M_PERTURB, 0x5a); /* allocations are filled with 0xa5, freed memory with 0x5a */
    if (!s) {
        uint8_t *out = NULL;
        ok = baseline(in, &out, &why) == HB_OK && check_result(in, 1, out, in->size, msg,
                                                                sizeof msg);
        free(out);
    } else {
        hb_sink sink;
        int rc = hb_sink_init(&sink, s, cfg);
        if (rc == HB_OK)
            rc = read_body(in, &sink, cfg->read_size, &why, &where);
        else
            why = hb_err_str(rc);
        if (rc == HB_OK) {
            uint64_t len;
            const uint8_t *data = hb_sink_data(&sink, &len);
            /* Test hook (tests/test_cli_hotbench.sh): HB_TEST_CORRUPT=<strategy> flips the middle
             * byte of that strategy's result, to prove a wrong answer fails and is not timed. */
            const char *corrupt = getenv("HB_TEST_CORRUPT");
            if (corrupt && len && strcmp(corrupt, s->name) == 0)
                ((uint8_t *)data)[len / 2] ^= 0x20;
            ok = check_result(in, 0, data, len, msg, sizeof msg);
        } else {
            ok = 0;
        }
        hb_sink_release(&sink);
    }
    mallopt(M_PERTURB, 0);
    if (!ok) {
        if (why)
            hb_state_fail(st, "%s at byte %llu", why, (unsigned long long)where);
        else
            hb_state_fail(st, "result differs from the reference: %s", msg);
    }
    return ok;
}

/* Seconds per byte copied by one allocate-copy-free growth step whose copies are `bytes` long,
 * measured: three steps of malloc(bytes + 4096), memcpy(bytes), free(old), as the quadratic
 * strategies do past their threshold (fresh memory, page faults included). Probes are capped at
 * 256 MiB - the per-byte cost no longer changes past the caches and glibc's mmap threshold - and
 * cached per size. Returns 0 if the memory is not there. */
static double copy_rate(bg_ctx *c, uint64_t bytes)
{
    enum { STEPS = 3 };
    if (bytes > BG_PROBE_MAX)
        bytes = BG_PROBE_MAX;
    if (bytes < 4096)
        bytes = 4096;
    for (size_t i = 0; i < c->nprobes; i++)
        if (c->probes[i].bytes == bytes)
            return c->probes[i].sec_per_byte;
    uint8_t *a = malloc(bytes);
    if (!a)
        return 0;
    memset(a, 0x5a, bytes);
    double t0 = hb_now_s();
    for (int k = 1; k <= STEPS; k++) {
        uint8_t *n = malloc(bytes + 4096u * (unsigned)k);
        if (!n) {
            free(a);
            return 0;
        }
        memcpy(n, a, bytes);
        hb_do_not_optimize_ptr(n);
        free(a);
        a = n;
    }
    double rate = (hb_now_s() - t0) / (STEPS * (double)bytes);
    free(a);
    if (c->nprobes < sizeof c->probes / sizeof c->probes[0])
        c->probes[c->nprobes++] = (bg_probe){bytes, rate};
    return rate;
}

/* --- the benchmark functions ---------------------------------------------------------------- */

/* Whether run r is of the 32-bit cliff: the real width, with its own time allowance. */
static int own_allowance(const hb_run *r)
{
    int kind = r->bench->family->kind;
    return (kind == BG_CLIFF || kind == BG_CLIFF_HEAP) && r->args[0] == 32;
}

static double budget_predict(hb_run *r);

/* The budget: nonzero (after the refusal, with its figures) when the strategy is declared
 * quadratic by the case description (or its dry run copies quadratically), not the 32-bit cliff,
 * and its predicted time at this size exceeds --hb_budget. The plan and the work are the size's
 * dry run and bytes of work (appended + copied) as prepare priced them. */
static int budget_refuses(hb_run *r)
{
    bg_ctx *c = r->ctx;
    bg_fam *f = r->bench->state;
    const hb_sink_strategy *s = r->bench->impl;
    const hb_sink_stats *plan = &f->plan;
    int declared = r->bench->strategy->complexity == 2;
    /* a declared-linear strategy whose dry run copies far more than a growth factor allows is
     * behaving quadratically: a regression (the gate's self-test injects one), priced as one */
    int behaves = s && !s->uses_realloc && (double)plan->bytes_copied >
                                               BG_LINEAR_COPIES_MAX * (double)plan->bytes_appended;
    if (own_allowance(r) || !(declared || behaves))
        return 0;
    /* Decided once per size: later repetitions of a size that ran also run (prepare asks only
     * for an unverified tuple), those of a refused size are refused by the harness with the same
     * message and figures, without asking prepare (hb_case_run.h).
     * Linear work (the bytes appended) is priced at the seconds per byte of work measured at the
     * family's previous size; before any size of the family ran in this process (a filter can
     * select one size alone), at a pessimistic default: fresh memory at 1 GB/s for every byte
     * appended or copied, plus inflate at 0.25 GB/s for a gzip body. A quadratic strategy's
     * copies are priced at every size by a measured growth step as long as its average copy
     * (copy_rate), not only when the linear estimate already exceeds the budget: its smaller
     * sizes copy from cache, so their seconds per byte predict the big copies far too cheap
     * (bufgrow-gzip/additive at 4 MiB: 0.085 s predicted from 1 MiB, 10 s run on a VM). The
     * copies leave the last-level cache at sizes no machine reports reliably (a VM shows no
     * caches under /sys, or a host's through cpuid), and past glibc's mmap threshold every
     * growth step is fresh memory whatever the cache: the measured step is the price at every
     * size (one probe per size, cached; capped at BG_PROBE_MAX). */
    double predicted = budget_predict(r);
    char detail[160];
    snprintf(detail, sizeof detail, "%.4g bytes appended, %.4g bytes copied in %llu growths",
             (double)plan->bytes_appended, (double)plan->bytes_copied,
             (unsigned long long)plan->growths);
    const hb_skip_figure work[] = {{"hb_bytes_appended", (double)plan->bytes_appended},
                                   {"hb_bytes_copied", (double)plan->bytes_copied},
                                   {"hb_growths", (double)plan->growths},
                                   {NULL, 0}};
    return hb_refuse_budget(r->st, &c->opt, predicted, detail, work);
}

/* The budget's prediction of one run of r's strategy at r's size (budget_refuses), seconds. */
static double budget_predict(hb_run *r)
{
    bg_ctx *c = r->ctx;
    const bg_fam *f = r->bench->state;
    const hb_sink_stats *plan = &f->plan;
    double linear = f->sec_per_work > 0
                        ? f->sec_per_work
                        : BG_DEFAULT_S_PER_BYTE +
                              (r->bench->family->kind == BG_GZIP ? BG_DEFAULT_S_PER_INFLATED : 0);
    double predicted = f->work * linear;
    if (plan->growths > 0) {
        double rate = copy_rate(c, plan->bytes_copied / plan->growths);
        if (rate > 0)
            predicted = (double)plan->bytes_appended * linear +
                        (double)plan->bytes_copied * rate;
    }
    return predicted;
}

/* Predicts the work, the memory and the time before building anything; refuses (memory,
 * budget) or builds the input. */
static int prepare(hb_run *r)
{
    bg_ctx *c = r->ctx;
    bg_fam *f = r->bench->state;
    const hb_sink_strategy *s = r->bench->impl;
    int kind = r->bench->family->kind, cliff = kind == BG_CLIFF || kind == BG_CLIFF_HEAP;
    uint64_t size = (uint64_t)r->args[cliff ? 1 : 0];
    memset(&f->cfg, 0, sizeof f->cfg);
    f->cfg.size_hint = size;
    f->cfg.read_size = cliff ? c->opt.read_size : (uint32_t)r->args[1];
    f->cfg.capacity_bits = cliff ? (int)r->args[0] : 0;

    hb_sink_stats *plan = &f->plan;
    memset(plan, 0, sizeof *plan);
    plan->bytes_appended = size; /* the baseline's: one allocation of the size */
    plan->allocations = 1;
    plan->peak_capacity = size;
    plan->peak_footprint = size;
    if (s) {
        int rc = hb_sink_plan(s, &f->cfg, size, plan);
        if (rc != HB_OK) {
            hb_state_fail(r->st, "the strategy cannot hold %llu bytes: %s",
                          (unsigned long long)size, hb_err_str(rc));
            return rc;
        }
    }
    /* realloc's copies are an upper bound (mremap moves big blocks): predict from the bytes */
    int exact_copies = !s || !s->uses_realloc;
    f->work = (double)plan->bytes_appended + (exact_copies ? (double)plan->bytes_copied : 0);
    if (hb_refuse_memory(r->st, &c->opt, (double)plan->peak_footprint))
        return HB_ELIMIT;
    if (own_allowance(r) && !c->cliff_noted && c->cliff_note[0]) {
        fputs(c->cliff_note, stderr);
        c->cliff_noted = 1;
    }
    if (!r->verified && budget_refuses(r))
        return HB_ELIMIT;

    const char *why = NULL;
    r->input = get_input(c, size, kind == BG_GZIP, &why);
    if (!r->input) {
        if (size >= BG_CACHE_MIN)
            hb_state_fail(r->st, "cannot build the input (cache in %s): %s", c->opt.data_dir, why);
        else
            hb_state_fail(r->st, "cannot build the input: %s", why);
        return HB_EINVAL;
    }
    return HB_OK;
}

static double cliff_seconds(const bg_ctx *c, const hb_sink_strategy *s, uint64_t size,
                            double fresh_s, double step_s, uint64_t *steps);

/* The timed loop: one whole body per iteration; then the counters. */
static void time_body(hb_run *r)
{
    bg_ctx *c = r->ctx;
    bg_fam *f = r->bench->state;
    const hb_sink_strategy *s = r->bench->impl;
    hb_state *st = r->st;
    const bg_input *in = r->input;
    hb_sink_config cfg = f->cfg;
    uint64_t size = cfg.size_hint;
    double work = f->work;
    const char *why = NULL;

    hb_sink_stats stats = f->plan;
    double t0 = hb_now_s();
    while (hb_state_keep_running(st)) {
        if (!s) {
            uint8_t *out = NULL;
            if (baseline(in, &out, &why) != HB_OK) {
                hb_state_fail(st, "%s", why);
                return;
            }
            hb_do_not_optimize_ptr(out);
            hb_state_pause_timing(st);
            free(out);
            hb_state_resume_timing(st);
            continue;
        }
        hb_sink sink;
        uint64_t where = 0, len = 0;
        int rc = hb_sink_init(&sink, s, &cfg);
        if (rc == HB_OK)
            rc = read_body(in, &sink, cfg.read_size, &why, &where);
        else
            why = hb_err_str(rc);
        if (rc != HB_OK) {
            hb_sink_release(&sink);
            hb_state_fail(st, "%s at byte %llu", why, (unsigned long long)where);
            return;
        }
        hb_do_not_optimize_ptr(hb_sink_data(&sink, &len));
        hb_state_pause_timing(st);
        stats = sink.stats;
        hb_sink_release(&sink);
        hb_state_resume_timing(st);
    }
    int64_t iters = hb_state_iterations(st);
    if (iters > 0 && work > 0)
        f->sec_per_work = (hb_now_s() - t0) / (double)iters / work;

    hb_state_set_bytes_processed(st, iters * (int64_t)size);
    hb_state_set_complexity_n(st, (int64_t)size);
    double n = size ? (double)size : 1.0;
    hb_state_counter(st, "bytes_copied_per_byte", (double)stats.bytes_copied / n, 0);
    hb_state_counter(st, "growths", (double)stats.growths, 0);
    hb_state_counter(st, "allocations", (double)stats.allocations, 0);
    hb_state_counter(st, "peak_capacity_ratio", (double)stats.peak_capacity / n, 0);
    /* 1 where bytes_copied counts realloc's moves, which glibc may make with mremap (no copy) */
    hb_state_counter(st, "bytes_copied_is_upper_bound", s && s->uses_realloc ? 1.0 : 0.0, 0);
    if (own_allowance(r) && c->cliff_fresh_s > 0 && c->cliff_warm_gbps > 0) {
        /* what this run was expected to take (the announcement's price of one run) */
        uint64_t steps = 0;
        int warm = r->bench->family->kind == BG_CLIFF_HEAP;
        double step_s = warm ? 1e-9 / c->cliff_warm_gbps : c->cliff_fresh_s;
        hb_state_counter(st, "hb_predicted_s",
                         cliff_seconds(c, s, size, c->cliff_fresh_s, step_s, &steps), 0);
    }
}

/* --- the 32-bit cliff ----------------------------------------------------------------------- */

#define BG_CLIFF32_MAX 8 /* sizes of one 32-bit cliff family, at most */

/* One 32-bit cliff family: its strategy, its sizes (just below 2^30, then past it), and whether
 * its additive steps reuse memory already touched (a JVM-like heap: priced as warm copies) or
 * take fresh memory (priced as fresh growth steps). */
typedef struct bg_cliff32 {
    const char *strategy;
    uint64_t sizes[BG_CLIFF32_MAX];
    size_t nsizes;
    int warm_steps;
} bg_cliff32;

/* Whether --benchmark_filter selects size i of the cliff family fam. */
static int cliff_selected(const bg_cliff32 *fam, size_t i)
{
    char name[128];
    snprintf(name, sizeof name, "bufgrow-cliff/%s/width:32/size:%llu/real_time", fam->strategy,
             (unsigned long long)fam->sizes[i]);
    return hb_filter_selects(name);
}

/* The 32-bit sizes the cliff families registered for this run (profile), two families at most
 * (httpcore, then httpcore-heap as bg_families lists them). Returns how many were filled. */
static size_t cliff32_of(const bg_ctx *c, const hb_family *fams, size_t nfams, bg_cliff32 out[2])
{
    size_t n = 0;
    for (size_t k = 0; k < nfams && n < 2; k++) {
        const hb_family *f = &fams[k];
        const hb_tuples *t = &f->tuples[c->opt.profile_id];
        if (f->kind != BG_CLIFF && f->kind != BG_CLIFF_HEAP)
            continue;
        bg_cliff32 *o = &out[n];
        memset(o, 0, sizeof *o);
        o->strategy = f->only[0];
        o->warm_steps = f->kind == BG_CLIFF_HEAP;
        for (size_t i = 0; i < t->n && o->nsizes < BG_CLIFF32_MAX; i++)
            if (t->v[2 * i] == 32)
                o->sizes[o->nsizes++] = (uint64_t)t->v[2 * i + 1];
        n += o->nsizes > 0;
    }
    return n;
}

/* Seconds one run of strategy s at size (32-bit width) is expected to take: bytes appended and
 * the doubling's copies up to 2^30 at fresh_s (s per byte of a fresh growth step), the additive
 * copies past 2^30 at step_s; *steps gets the additive growths. 0 if the plan fails. */
static double cliff_seconds(const bg_ctx *c, const hb_sink_strategy *s, uint64_t size,
                            double fresh_s, double step_s, uint64_t *steps)
{
    hb_sink_config cfg = {.size_hint = size, .read_size = c->opt.read_size, .capacity_bits = 32};
    hb_sink_stats at, below;
    uint64_t base = size < GiB ? size : GiB;
    if (hb_sink_plan(s, &cfg, size, &at) != HB_OK || hb_sink_plan(s, &cfg, base, &below) != HB_OK)
        return 0;
    *steps = at.growths - below.growths;
    return (double)(at.bytes_appended + below.bytes_copied) * fresh_s +
           (double)(at.bytes_copied - below.bytes_copied) * step_s;
}

/* When this run will run sizes of the 32-bit cliff families: measures a fresh growth step
 * (copy_rate) and a warm copy (httpcore-heap's steps reuse dead arrays' memory), prices the
 * selected sizes with cliff_seconds (repetitions + 1 verification run each), keeps the line for
 * prepare() to print before the first of them starts, prints it now, and records
 * bufgrow_cliff_expected_s (each run's own price is its row's hb_predicted_s). When a size needs
 * more memory than allowed, says they will be skipped instead (prepare() skips them with the
 * memory message). */
static void cliff_announce(bg_ctx *c, const bg_cliff32 *fam, size_t nfam)
{
    char steps[2][64] = {"", ""}, buf[32];
    double limit = hb_memory_limit(&c->opt);
    double fresh_s = 0, warm_gbps = 0, total = 0, peak = 0;
    int any = 0;
    for (size_t f = 0; f < nfam; f++)
        for (size_t i = 0; i < fam[f].nsizes; i++) {
            if (!cliff_selected(&fam[f], i))
                continue;
            hb_sink_config cfg = {.read_size = c->opt.read_size, .capacity_bits = 32};
            hb_sink_stats plan;
            if (hb_sink_plan(hb_sink_find(fam[f].strategy), &cfg, fam[f].sizes[i], &plan) == 0 &&
                (double)plan.peak_footprint > peak)
                peak = (double)plan.peak_footprint;
            any = 1;
        }
    if (!any || nfam < 2)
        return;
    if (limit > 0 && peak > limit) {
        snprintf(c->cliff_note, sizeof c->cliff_note,
                 "hotbench: bufgrow-cliff width:32: needs %.3g GB at its peak, more than the "
                 "%.3g GB allowed: its sizes will be skipped\n",
                 peak / 1e9, limit / 1e9);
        fputs(c->cliff_note, stderr);
        return;
    }
    fresh_s = copy_rate(c, BG_PROBE_MAX);
    if (fresh_s <= 0 || hb_calibrate_warm_copy(64 * MiB, 3, &warm_gbps) != HB_OK)
        return; /* no memory for the probes: the sizes will say so themselves */
    c->cliff_fresh_s = fresh_s;
    c->cliff_warm_gbps = warm_gbps;
    for (size_t f = 0; f < nfam && f < 2; f++)
        for (size_t i = 0; i < fam[f].nsizes; i++) {
            const hb_sink_strategy *s = hb_sink_find(fam[f].strategy);
            double step_s = fam[f].warm_steps ? 1e-9 / warm_gbps : fresh_s;
            uint64_t n = 0;
            if (!s || !cliff_selected(&fam[f], i))
                continue;
            total += (c->opt.repetitions + 1) *
                     cliff_seconds(c, s, fam[f].sizes[i], fresh_s, step_s, &n);
            if (n > 0)
                snprintf(steps[f] + strlen(steps[f]), sizeof steps[f] - strlen(steps[f]), "%s%llu",
                         steps[f][0] ? "+" : "", (unsigned long long)n);
        }
    snprintf(c->cliff_note, sizeof c->cliff_note,
             "hotbench: bufgrow-cliff width:32: %s additive steps for %s, %s for %s, %d "
             "repetitions (+1 verification run): expected ~%.0f s (priced at %.2f GB/s per fresh "
             "1 GiB growth step and %.2f GB/s of warm copy for %s, measured now)\n",
             steps[0][0] ? steps[0] : "0", fam[0].strategy, steps[1][0] ? steps[1] : "0",
             fam[1].strategy, c->opt.repetitions, total, 1e-9 / fresh_s, warm_gbps,
             fam[1].warm_steps ? fam[1].strategy : fam[0].strategy);
    fputs(c->cliff_note, stderr);
    snprintf(buf, sizeof buf, "%.0f", total);
    hb_add_context("bufgrow_cliff_expected_s", buf);
}

/* --- registration: the families as data ---------------------------------------------------- */

/* The implementation of a described strategy: its row of hb_sink_strategies, or NULL for the
 * group's ceiling (memcpy, inflate: computed here). The description's complexity class is the
 * budget's; the registry keeps its own column for hotbench-decode: they must agree. */
static int bind(void *ctx, const hb_family *f, const hb_strategy_desc *d, const void **impl)
{
    (void)ctx;
    (void)f;
    const hb_sink_strategy *s = hb_sink_find(d->name);
    if (!s && d->role == HB_ROLE_CEILING)
        return HB_OK;
    if (!s || s->complexity != d->complexity) {
        fprintf(stderr, "hotbench: bufgrow strategy %s: %s\n", d->name,
                s ? "case.c and bufgrow.c declare different complexity classes"
                  : "not in bufgrow.c's registry");
        return HB_EINVAL;
    }
    *impl = s;
    return HB_OK;
}

/* The payload sizes per profile (the read size, --hb_read, is added at registration). */
/* clang-format off */
static const int64_t sizes_full[] = {64 * KiB,  256 * KiB, 1 * MiB,    4 * MiB,
                                     16 * MiB,  64 * MiB,  256 * MiB,  1024 * MiB,
                                     HB_GEN_DEFAULT_SIZE};
/* the gzip family with 512 MiB where the identity family has 1 GiB: its fits start at 64 MiB
 * (twice the last-level cache, or the fallback's) and need 4 sizes there for the leave-largest-out
 * validation. Without a size between 256 MiB and 1.7 GB the reference run at fc5597e had 3 and no
 * validation; 1 GiB cost ~5.5 min of a full run (12 strategies x 4 runs at 6-25 s on a
 * 0.3 GB/s-first-touch VM), 512 MiB about half that. */
static const int64_t gzip_sizes_full[] = {64 * KiB,  256 * KiB, 1 * MiB,    4 * MiB,
                                          16 * MiB,  64 * MiB,  256 * MiB,  512 * MiB,
                                          HB_GEN_DEFAULT_SIZE};
static const int64_t sizes_quick[] = {64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB};
static const int64_t sizes_smoke[] = {64 * KiB, 256 * KiB};
static const hb_tuples bg_sizes[HB_PROFILES] = {
    HB_TUPLES(sizes_full, 1), HB_TUPLES(sizes_quick, 1), HB_TUPLES(sizes_smoke, 1)};
static const hb_tuples bg_gzip_sizes[HB_PROFILES] = {
    HB_TUPLES(gzip_sizes_full, 1), HB_TUPLES(sizes_quick, 1), HB_TUPLES(sizes_smoke, 1)};

/* The cliff, {width, size}: at smoke size a 16-bit width (overflow past 16 KiB), else 24 bits
 * (4 MiB). The full profile adds the real width just below and just past 2^30, what the
 * per-step cost at 1.7 GB is predicted from: httpcore 2 and 8 additive steps, each a fresh
 * 1 GiB array and a copy of 1 GiB; httpcore-heap, whose first steps take fresh memory and the
 * rest reuse it (~0.1 s a step), 8 and 32. Two sizes past the threshold per strategy are what
 * the piecewise fit's jump term needs (scripts/hotbench/fit.py); a third in between (4 and 16
 * steps until issue 16) cost ~2 min of a full run each and only tightened the validation refit,
 * which now predicts the larger from the smaller. */
#define W24(size) BG_CLIFF_BITS, (size)
static const int64_t cliff_full[] = {
    W24(1 * MiB), W24(2 * MiB), W24(3 * MiB), W24(4 * MiB), W24(4 * MiB + 256 * KiB),
    W24(5 * MiB), W24(6 * MiB), W24(8 * MiB),
    32, 1024 * MiB - 1 * MiB, 32, 1024 * MiB + 8 * KiB, 32, 1024 * MiB + 32 * KiB};
static const int64_t cliff_quick[] = {W24(1 * MiB), W24(2 * MiB), W24(3 * MiB), W24(4 * MiB),
                                      W24(4 * MiB + 256 * KiB), W24(5 * MiB), W24(6 * MiB),
                                      W24(8 * MiB)};
static const int64_t cliff_smoke[] = {16, 8 * KiB, 16, 16 * KiB, 16, 20 * KiB, 16, 32 * KiB};
static const int64_t cliff_heap_full[] = {32, 1024 * MiB - 1 * MiB, 32, 1024 * MiB + 32 * KiB,
                                          32, 1024 * MiB + 128 * KiB};

/* clang-format on */

static const char *const body_args[] = {"size", "read", NULL};
static const char *const cliff_args[] = {"width", "size", NULL};
static const char *const only_httpcore[] = {"httpcore", NULL};
static const char *const only_heap[] = {"httpcore-heap", NULL};

/* Minimum time per repetition (s), google-benchmark's default being 0.5 s. Measured back to back
 * on the 2-vCPU VM (22 rows from 64 KiB to 64 MiB, 2 runs of each binary): 0.25 s took 41% less
 * time with a median CV of 5.1% against 5.4%; 0.1 s raised it to 7.4% against 5.1% (first touch
 * varies more between short repetitions). The sizes from 256 MiB take one iteration a
 * repetition, which no minimum time shortens. */
#define BG_MIN_TIME_S 0.25

/* clang-format off */
/* group            only           kind           arguments   tuples per profile (full, quick,
 *                                                            smoke; the bodies' at registration)
 *                  unit    Big-O      state           memo
 *                  functions, minimum time per repetition (s) */
static const hb_family bg_families[] = {
    {"bufgrow",       NULL,          BG_BODY,       body_args,  {{NULL, 0}},
     HB_MS, HB_O_AUTO, sizeof(bg_fam), 0, bind, NULL, prepare, verify, time_body, BG_MIN_TIME_S},
    {"bufgrow-gzip",  NULL,          BG_GZIP,       body_args,  {{NULL, 0}},
     HB_MS, HB_O_AUTO, sizeof(bg_fam), 0, bind, NULL, prepare, verify, time_body, BG_MIN_TIME_S},
    {"bufgrow-cliff", only_httpcore, BG_CLIFF,      cliff_args,
     {HB_TUPLES(cliff_full, 2), HB_TUPLES(cliff_quick, 2), HB_TUPLES(cliff_smoke, 2)},
     HB_MS, HB_O_NONE, sizeof(bg_fam), 0, bind, NULL, prepare, verify, time_body, BG_MIN_TIME_S},
    {"bufgrow-cliff", only_heap,     BG_CLIFF_HEAP, cliff_args,
     {HB_TUPLES(cliff_heap_full, 2), {NULL, 0}, {NULL, 0}},
     HB_MS, HB_O_NONE, sizeof(bg_fam), 0, bind, NULL, prepare, verify, time_body, BG_MIN_TIME_S},
};
/* clang-format on */
#define BG_NFAMILIES (sizeof bg_families / sizeof bg_families[0])

extern const hb_case_desc hb_bufgrow_case; /* case.c */
int hb_bufgrow_register_dechunk(const hb_options *opt, uint64_t seed); /* bench_dechunk.c */

int hb_bufgrow_register(const hb_options *opt)
{
    /* The case context lives until the process exits: google-benchmark calls into it. */
    static bg_ctx ctx;
    static hb_family fams[BG_NFAMILIES];
    static int64_t body[2][2 * 16];
    bg_ctx *c = &ctx;
    c->opt = *opt;
    hb_chunked_params_default(&c->gen);

    /* the bodies' tuples: each size of the profile with the run's read size */
    memcpy(fams, bg_families, sizeof fams);
    const hb_tuples *sizes[2] = {&bg_sizes[opt->profile_id], &bg_gzip_sizes[opt->profile_id]};
    for (size_t k = 0; k < 2; k++) {
        size_t n = sizes[k]->n < 16 ? sizes[k]->n : 16;
        for (size_t i = 0; i < n; i++) {
            body[k][2 * i] = sizes[k]->v[i];
            body[k][2 * i + 1] = (int64_t)opt->read_size;
        }
        fams[k].tuples[opt->profile_id] = (hb_tuples){body[k], n};
    }

    char buf[64];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)c->gen.seed);
    hb_add_context("bufgrow_seed", buf);
    snprintf(buf, sizeof buf, "%u-%u", c->gen.chunk_min, c->gen.chunk_max);
    hb_add_context("bufgrow_chunk_size", buf);
    snprintf(buf, sizeof buf, "%d", BG_GZIP_LEVEL);
    hb_add_context("bufgrow_gzip_level", buf);

    int rc = HB_OK;
    for (size_t k = 0; k < BG_NFAMILIES && rc == HB_OK; k++)
        if (bg_families[k].kind == BG_BODY || bg_families[k].kind == BG_GZIP)
            rc = hb_case_check_registry(&hb_bufgrow_case, bg_families[k].group, hb_sink_strategies,
                                        hb_sink_strategy_count, sizeof hb_sink_strategies[0]);
    if (rc == HB_OK)
        rc = hb_case_register(&hb_bufgrow_case, fams, BG_NFAMILIES, c, opt, &c->set);
    if (rc == HB_OK)
        rc = hb_bufgrow_register_dechunk(opt, c->gen.seed);
    bg_cliff32 cliff32[2];
    size_t n32 = cliff32_of(c, fams, BG_NFAMILIES, cliff32);
    if (rc == HB_OK && n32 > 0)
        cliff_announce(c, cliff32, n32);
    return rc;
}

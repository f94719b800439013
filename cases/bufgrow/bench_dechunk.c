/* bench_dechunk.c - the chunked decoder alone: group "dechunk" of the buffer-growth case.
 *
 *     dechunk/<strategy>/size:N/chunk:C/ext:E
 *
 * One iteration decodes a whole chunked body of N payload bytes in chunks of exactly C bytes of
 * chunk-data into a warm output buffer of N bytes (allocated and written once, before any timing,
 * so no iteration takes a page fault): the decoder's own speed, which every bufgrow row hides
 * behind first touch of a fresh buffer. E = 1 puts on every chunk line the chunk-ext of Amazon
 * S3's aws-chunked uploads, ";chunk-signature=" and 64 hex digits (RFC 9112 7.1.1 chunk-ext).
 * Strategies:
 *     memcpy          the ceiling: one memcpy of N bytes of the body into the same warm buffer
 *     decoder         hb_dechunk_run over the whole body in one call (streaming-capable)
 *     decoder-reads   the same decoder fed the body in reads of R bytes (--hb_read, 4096): a
 *                     socket read loop; exactness on every split is the decoder's contract
 * Inputs are framed here from the generator's payload (hb_payload_load, the bufgrow seed), are
 * built outside the timed region, and are kept for the process's life (strategies share them).
 * Before a tuple is timed, its strategy's output is compared byte for byte with the payload.
 */
#include "hb.h"
#include "hb_case_run.h"
#include "hb_dechunk.h"
#include "hb_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DC_MAX_INPUTS 32
#define DC_SIG_NAME ";chunk-signature="
#define DC_SIG_DIGITS 64

/* One framed body and its warm output buffer. */
typedef struct dc_input {
    int64_t size, chunk, ext;
    uint8_t *body;
    size_t body_len;
    uint8_t *out; /* size bytes, written once before timing (warm) */
} dc_input;

typedef struct dc_ctx {
    hb_options opt;
    hb_case_set set;
    hb_blob payload; /* the largest payload asked for so far; smaller sizes are its prefix */
    uint64_t seed;
    dc_input inputs[DC_MAX_INPUTS];
    size_t ninputs;
} dc_ctx;

/* The strategies' tags (hb_case_bench.impl points at one). */
enum dc_kind { DC_MEMCPY, DC_DECODER, DC_DECODER_READS };
static const int dc_kinds[] = {DC_MEMCPY, DC_DECODER, DC_DECODER_READS};
static const char *const dc_names[] = {"memcpy", "decoder", "decoder-reads"};

static int bind(void *ctx, const hb_family *f, const hb_strategy_desc *s, const void **impl)
{
    (void)ctx;
    for (size_t i = 0; i < sizeof dc_names / sizeof dc_names[0]; i++)
        if (strcmp(s->name, dc_names[i]) == 0) {
            *impl = &dc_kinds[i];
            return HB_OK;
        }
    fprintf(stderr, "hotbench: %s strategy %s is described but not in bench_dechunk.c\n",
            f->group, s->name);
    return HB_EINVAL;
}

/* The bytes of the chunk line for a chunk of n bytes: hex chunk-size, the extension, CRLF. */
static size_t line_len(uint64_t n, int ext)
{
    size_t hex = 1;
    while (n >> (4 * hex))
        hex++;
    return hex + (ext ? sizeof DC_SIG_NAME - 1 + DC_SIG_DIGITS : 0) + 2;
}

/* Writes the chunk line for n bytes at p (line_len bytes); the signature's digits are a
 * deterministic function of k, the chunk's index. Returns the end. */
static uint8_t *put_line(uint8_t *p, uint64_t n, int ext, uint64_t k)
{
    static const char hex[] = "0123456789abcdef";
    size_t digits = line_len(n, 0) - 2;
    for (size_t i = digits; i-- > 0; n >>= 4)
        p[i] = (uint8_t)hex[n & 15];
    p += digits;
    if (ext) {
        memcpy(p, DC_SIG_NAME, sizeof DC_SIG_NAME - 1);
        p += sizeof DC_SIG_NAME - 1;
        uint64_t x = k * 0x9e3779b97f4a7c15u + 1;
        for (int i = 0; i < DC_SIG_DIGITS; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            *p++ = (uint8_t)hex[x & 15];
        }
    }
    *p++ = '\r';
    *p++ = '\n';
    return p;
}

/* Frames payload[0 .. size) into chunks of exactly chunk bytes (the last may be shorter), then
 * the last-chunk "0" CRLF and the final CRLF. HB_OK or HB_ENOMEM. */
static int frame(dc_input *in, const uint8_t *payload)
{
    uint64_t size = (uint64_t)in->size, c = (uint64_t)in->chunk, n = (size + c - 1) / c;
    size_t len = 5;
    for (uint64_t k = 0; k < n; k++)
        len += line_len(k + 1 < n ? c : size - k * c, (int)in->ext) + 2;
    len += size;
    if (!(in->body = malloc(len)) || !(in->out = malloc(size ? size : 1)))
        return HB_ENOMEM;
    uint8_t *p = in->body;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t m = k + 1 < n ? c : size - k * c;
        p = put_line(p, m, (int)in->ext, k);
        memcpy(p, payload + k * c, m);
        p += m;
        *p++ = '\r';
        *p++ = '\n';
    }
    memcpy(p, "0\r\n\r\n", 5);
    in->body_len = len;
    memset(in->out, 0x5a, size); /* warm: every page of the output is resident before timing */
    return HB_OK;
}

/* The input for r's tuple, framed on first use. NULL after hb_state_fail. */
static dc_input *get_input(hb_run *r)
{
    dc_ctx *c = r->ctx;
    for (size_t i = 0; i < c->ninputs; i++)
        if (c->inputs[i].size == r->args[0] && c->inputs[i].chunk == r->args[1] &&
            c->inputs[i].ext == r->args[2])
            return &c->inputs[i];
    if (c->ninputs == DC_MAX_INPUTS) {
        hb_state_fail(r->st, "more than %d distinct dechunk inputs", DC_MAX_INPUTS);
        return NULL;
    }
    if (c->payload.len < (uint64_t)r->args[0]) {
        hb_blob_free(&c->payload);
        if (hb_payload_load((uint64_t)r->args[0], c->seed, &c->payload) != HB_OK) {
            hb_state_fail(r->st, "out of memory for the payload");
            return NULL;
        }
    }
    dc_input *in = &c->inputs[c->ninputs];
    *in = (dc_input){.size = r->args[0], .chunk = r->args[1], .ext = r->args[2]};
    if (frame(in, c->payload.data) != HB_OK) {
        free(in->body);
        free(in->out);
        hb_state_fail(r->st, "out of memory for the chunked body");
        return NULL;
    }
    c->ninputs++;
    return in;
}

static int prepare(hb_run *r)
{
    if (r->args[1] < 1 || r->args[0] < 0) {
        hb_state_fail(r->st, "chunk must be at least 1 and size not negative");
        return HB_EINVAL;
    }
    if (hb_refuse_memory(r->st, &((dc_ctx *)r->ctx)->opt, 3.2 * (double)r->args[0]))
        return HB_ENOMEM;
    r->input = get_input(r);
    return r->input ? HB_OK : HB_ENOMEM;
}

/* One decode of the whole body into in->out, fed in pieces of piece bytes (0: all at once).
 * Returns the payload bytes made, or -1 with *why set when the body is not a complete chunked
 * body or does not fit the buffer. */
static int64_t decode(const dc_input *in, size_t piece, const char **why)
{
    hb_dechunk d;
    size_t at = 0, made = 0;
    int rc = 0;
    hb_dechunk_init(&d);
    while (rc == 0 && at < in->body_len) {
        size_t n = piece && piece < in->body_len - at ? piece : in->body_len - at, used, got;
        rc = hb_dechunk_run(&d, in->body + at, n, &used, in->out + made, (size_t)in->size - made,
                            &got);
        at += used;
        made += got;
        if (rc == 0 && used == 0 && got == 0) { /* the output is full, chunk-data follows */
            *why = "chunk-data beyond the output buffer";
            return -1;
        }
    }
    if (rc != HB_DECHUNK_DONE || at != in->body_len) {
        *why = rc < 0 ? hb_dechunk_error(&d, NULL) : "the body ended before its last-chunk";
        return -1;
    }
    return (int64_t)made;
}

/* One iteration of strategy kind: payload bytes made, or -1 with *why set. */
static int64_t run_once(const dc_input *in, int kind, uint32_t read_size, const char **why)
{
    if (kind == DC_MEMCPY) {
        memcpy(in->out, in->body, (size_t)in->size);
        return in->size;
    }
    return decode(in, kind == DC_DECODER_READS ? read_size : 0, why);
}

static int verify(hb_run *r)
{
    const dc_input *in = r->input;
    const dc_ctx *c = r->ctx;
    int kind = *(const int *)r->bench->impl;
    const char *why = NULL;
    memset(in->out, 0xa5, (size_t)in->size);
    int64_t made = run_once(in, kind, c->opt.read_size, &why);
    const uint8_t *want = kind == DC_MEMCPY ? in->body : c->payload.data;
    if (made < 0) {
        hb_state_fail(r->st, "%s", why);
        return 0;
    }
    if (made != in->size || memcmp(in->out, want, (size_t)made) != 0) {
        int64_t i = 0;
        while (i < made && i < in->size && in->out[i] == want[i])
            i++;
        hb_state_fail(r->st, "%lld bytes made, expected %lld; first difference at byte %lld",
                      (long long)made, (long long)in->size, (long long)i);
        return 0;
    }
    return 1;
}

static void time_it(hb_run *r)
{
    const dc_input *in = r->input;
    int kind = *(const int *)r->bench->impl;
    uint32_t read_size = ((const dc_ctx *)r->ctx)->opt.read_size;
    const char *why = NULL;
    while (hb_state_keep_running(r->st)) {
        int64_t made = run_once(in, kind, read_size, &why);
        hb_do_not_optimize_u64((uint64_t)made);
        hb_clobber_memory();
    }
    hb_state_set_bytes_processed(r->st, hb_state_iterations(r->st) * in->size);
    double chunks = (double)((in->size + in->chunk - 1) / in->chunk);
    hb_state_counter(r->st, "body_bytes_per_byte",
                     in->size ? (double)in->body_len / (double)in->size : 0, HB_COUNTER_DEFAULT);
    hb_state_counter(r->st, "chunks", chunks, HB_COUNTER_DEFAULT);
}

#define KiB INT64_C(1024)
#define MiB (KiB * KiB)
#define DC_VIEW_SIZE (64 * MiB) /* the size the case's views chart (case.c) */
/* {size, chunk, ext}: full - 64 MiB (past any last-level cache: memory speed) in chunks of 64 B
 * to 64 KiB, the incident's 4 to 16 KiB included, without and with chunk-ext, and 1 MiB (cache
 * resident: what the CI gate times and counts) at 64 B and 8 KiB; quick (CI) - the 1 MiB rows and
 * 64 KiB chunks; smoke - 64 KiB at 64 B and 8 KiB. */
/* clang-format off */
#define DC_CHUNKS(s, e) \
    s, 64, e,  s, 256, e,  s, 1 * KiB, e,  s, 4 * KiB, e,  s, 8 * KiB, e,  s, 16 * KiB, e, \
    s, 64 * KiB, e
static const int64_t dc_full[] = {DC_CHUNKS(DC_VIEW_SIZE, 0), DC_CHUNKS(DC_VIEW_SIZE, 1),
                                  1 * MiB, 64, 0,  1 * MiB, 8 * KiB, 0};
static const int64_t dc_quick[] = {1 * MiB, 64, 0,  1 * MiB, 8 * KiB, 0,  1 * MiB, 64 * KiB, 0,
                                   1 * MiB, 8 * KiB, 1};
static const int64_t dc_smoke[] = {64 * KiB, 64, 0,  64 * KiB, 8 * KiB, 1};
/* 0.2 s per repetition: an iteration at 64 MiB takes 7 to 15 ms here (13 or more iterations a
 * repetition), at 1 MiB well under one; the 48 benchmarks take ~30 s at 3 repetitions instead of
 * ~75 s at google-benchmark's 0.5 s. */
#define DC_MIN_TIME_S 0.2
static const char *const dc_args[] = {"size", "chunk", "ext", NULL};
static const hb_family dc_families[] = {
    {"dechunk", NULL, 0, dc_args,
     {HB_TUPLES(dc_full, 3), HB_TUPLES(dc_quick, 3), HB_TUPLES(dc_smoke, 3)},
     HB_US, HB_O_NONE, 0, 0, bind, NULL, prepare, verify, time_it, DC_MIN_TIME_S},
};
/* clang-format on */

extern const hb_case_desc hb_bufgrow_case; /* case.c */

/* Registers the dechunk group for *opt. seed: the payload's (the bufgrow bodies' seed). The
 * context lives in static storage until the process exits. Returns hb_case_register's code. */
int hb_bufgrow_register_dechunk(const hb_options *opt, uint64_t seed)
{
    static dc_ctx ctx;
    ctx.opt = *opt;
    ctx.seed = seed;
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)DC_VIEW_SIZE);
    hb_add_context("dechunk_payload_bytes", buf); /* the views' items per iteration */
    return hb_case_register(&hb_bufgrow_case, dc_families,
                            sizeof dc_families / sizeof dc_families[0], &ctx, opt, &ctx.set);
}

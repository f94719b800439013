/* fuzz_body_reader.c - differential fuzz target of the body reader (cases/bufgrow/body_reader.c,
 * hb_bufgrow.h: chunked body -> (gzip) -> reads of read_size bytes -> a growth strategy's sink).
 *
 * The input is a chunked message body. It is read as identity content and as gzip content, each
 * in seven configurations: a baseline (sink "doubling", reads of 4096 bytes, the body in one
 * feed) and six drawn from the input's hash (hb_fuzz_rng), which between them use every sink of
 * the registry (exact with the baseline's length as Content-Length, mmap-reserve with a 64 MiB
 * reservation), reads of 1, 2, 7, 4096 or 1 to 10000 bytes, and the body fed whole, byte by
 * byte, or in random pieces, each an exact-size heap copy. hb_bufgrow.h promises that "the first
 * error and its offset do not depend on how the input was split, and whether a gzip stream is
 * corrupt or truncated does not depend on read_size": every configuration must give the
 * baseline's code, reason and offset and, when the body is read, the same bytes. After a
 * successful read the sink's counters must equal hb_sink_plan's dry run for the same total
 * ("equal field for field to a real run's", as the reader appends exactly read_size bytes at a
 * time).
 *
 * gzip: when the identity read succeeds, its bytes are the gzip stream. zlib_gunzip below inflates
 * it with all its input per call, independently of the reader's batching: the gzip reading must
 * succeed exactly when it does (one or more complete members, nothing after the last, RFC 1952
 * section 2.2) and give its bytes. A stream that inflates to more than GUNZIP_CAP bytes (a
 * deflate bomb) is not read in gzip mode without a limit. When the identity read fails, the gzip
 * read must fail.
 *
 * The limit (hb_body_reader_set_max, issue 15 section 3): a body read in full with n decoded bytes
 * is read again with the limit at n (the same bytes) and at n - 1 (HB_ELIMIT, "decoded body
 * exceeds the limit", at an offset inside the body), in a drawn configuration; a deflate bomb is
 * read with the limit at GUNZIP_CAP and must stop with HB_ELIMIT.
 */
#include "hb_bufgrow.h"
#include "hb_err.h"
#include "hb_fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define GUNZIP_CAP (8u << 20) /* bytes of gzip output the target reads at most */
#define NCONFIGS 7

/* One way of reading the body. */
typedef struct config {
    const hb_sink_strategy *sink;
    uint32_t read_size;
    int feed;     /* 0 whole, 1 byte by byte, 2 pieces of 1-64, 3 pieces of any length */
    uint64_t max; /* hb_body_reader_set_max; UINT64_MAX: none */
} config;

/* What one reading concluded. */
typedef struct outcome {
    int rc; /* the first error, or HB_OK */
    const char *reason;
    uint64_t err_off;
    uint8_t *data; /* the body read (heap), when rc is HB_OK */
    size_t len;
} outcome;

/* Feeds the body as c says; returns the first error or HB_OK. */
static int feed_body(hb_body_reader *r, const uint8_t *body, size_t size, const config *c,
                     hb_fuzz_rng *rng)
{
    size_t pos = 0;
    do {
        size_t n = c->feed == 0 ? size : c->feed == 1 ? 1 : (size_t)hb_fuzz_range(rng, 1, 64);
        if (c->feed == 3)
            n = (size_t)hb_fuzz_range(rng, 1, size ? size : 1);
        n = n > size - pos ? size - pos : n;
        uint8_t *piece = hb_fuzz_copy(body + pos, n);
        int rc = hb_body_reader_feed(r, n ? piece : NULL, n);
        free(piece);
        if (rc != HB_OK)
            return rc;
        pos += n;
    } while (pos < size);
    return hb_body_reader_finish(r);
}

/* The sink's counters against hb_sink_plan's dry run for the same total. */
static void check_plan(const hb_sink *s, const hb_sink_config *cfg, uint64_t total)
{
    hb_sink_stats want;
    if (hb_sink_plan(s->strategy, cfg, total, &want) != HB_OK)
        hb_fuzz_fail("%s: hb_sink_plan refuses %llu bytes the sink took", s->strategy->name,
                     (unsigned long long)total);
    const hb_sink_stats *got = &s->stats;
    if (memcmp(&want, got, sizeof want) != 0)
        hb_fuzz_fail("%s (reads of %u): plan {appended %llu, copied %llu, growths %llu, "
                     "allocations %llu, peak capacity %llu, footprint %llu}, run {%llu, %llu, "
                     "%llu, %llu, %llu, %llu}",
                     s->strategy->name, cfg->read_size, (unsigned long long)want.bytes_appended,
                     (unsigned long long)want.bytes_copied, (unsigned long long)want.growths,
                     (unsigned long long)want.allocations, (unsigned long long)want.peak_capacity,
                     (unsigned long long)want.peak_footprint,
                     (unsigned long long)got->bytes_appended, (unsigned long long)got->bytes_copied,
                     (unsigned long long)got->growths, (unsigned long long)got->allocations,
                     (unsigned long long)got->peak_capacity,
                     (unsigned long long)got->peak_footprint);
}

/* Reads the body (gzip or identity) as c says into *o. size_hint: the exact sink's length. */
static void read_body(const uint8_t *body, size_t size, int gzip, const config *c,
                      uint64_t size_hint, hb_fuzz_rng *rng, outcome *o)
{
    hb_sink_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.size_hint = size_hint;
    cfg.read_size = c->read_size;
    cfg.reserve = UINT64_C(64) << 20;
    hb_sink s;
    hb_body_reader r;
    memset(o, 0, sizeof *o);
    if (hb_sink_init(&s, c->sink, &cfg) != HB_OK ||
        hb_body_reader_init(&r, &s, gzip, c->read_size) != HB_OK ||
        (c->max != UINT64_MAX && hb_body_reader_set_max(&r, c->max) != HB_OK))
        hb_fuzz_fail("%s: init failed", c->sink->name);
    o->rc = feed_body(&r, body, size, c, rng);
    o->reason = hb_body_reader_error(&r, &o->err_off);
    if ((o->rc == HB_OK) != (o->reason == NULL))
        hb_fuzz_fail("%s: code %d with reason %s", c->sink->name, o->rc,
                     o->reason ? o->reason : "(none)");
    if (o->rc == HB_OK) {
        uint64_t len;
        if (hb_sink_finish(&s) != HB_OK)
            hb_fuzz_fail("%s: hb_sink_finish failed", c->sink->name);
        const uint8_t *p = hb_sink_data(&s, &len);
        o->data = hb_fuzz_copy(p, (size_t)len); /* reads every byte: ASan checks the length */
        o->len = (size_t)len;
        check_plan(&s, &cfg, len);
    }
    hb_body_reader_release(&r);
    hb_sink_release(&s);
}

static void same_outcome(const outcome *a, const outcome *b, int gzip, const config *c)
{
    const char *mode = gzip ? "gzip" : "identity";
    static const char *const feeds[] = {"whole", "byte by byte", "pieces of 1-64", "pieces"};
    if (a->rc != b->rc || a->err_off != b->err_off ||
        (a->reason != b->reason && (!a->reason || !b->reason || strcmp(a->reason, b->reason))))
        hb_fuzz_fail("%s, sink %s, reads of %u, fed %s: code %d '%s' at %llu; the baseline: "
                     "%d '%s' at %llu",
                     mode, c->sink->name, c->read_size, feeds[c->feed], b->rc,
                     b->reason ? b->reason : "", (unsigned long long)b->err_off, a->rc,
                     a->reason ? a->reason : "", (unsigned long long)a->err_off);
    if (a->rc == HB_OK && (a->len != b->len || memcmp(a->data, b->data, a->len) != 0))
        hb_fuzz_fail("%s, sink %s, reads of %u, fed %s: %zu bytes read, the baseline %zu or "
                     "different bytes",
                     mode, c->sink->name, c->read_size, feeds[c->feed], b->len, a->len);
}

/* Inflates the gzip stream z[0, n) member after member with all its input in each call, the
 * output buffer doubling from 64 KiB up to GUNZIP_CAP (independently of the reader's 64 KiB
 * batches and read buffer). Returns 1 with the bytes in *out (heap) when the stream is one or
 * more complete members and nothing else, 0 when it is not, -1 past GUNZIP_CAP. */
static int zlib_gunzip(const uint8_t *z, size_t n, uint8_t **out, size_t *out_len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    size_t cap = 64u << 10;
    *out = malloc(cap);
    *out_len = 0;
    if (!*out || inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
        abort();
    int ok = 0;
    zs.next_in = (Bytef *)(uintptr_t)z;
    zs.avail_in = (uInt)n;
    for (;;) {
        zs.next_out = *out + *out_len;
        zs.avail_out = (uInt)(cap - *out_len);
        int zr = inflate(&zs, Z_NO_FLUSH);
        *out_len = cap - zs.avail_out;
        if (zr == Z_STREAM_END && zs.avail_in == 0) {
            ok = 1;
            break;
        }
        if (zr == Z_STREAM_END && inflateReset(&zs) == Z_OK)
            continue; /* the next member */
        if ((zr == Z_OK || zr == Z_BUF_ERROR) && zs.avail_out == 0) {
            if (cap == GUNZIP_CAP) {
                ok = -1;
                break;
            }
            cap *= 2;
            *out = realloc(*out, cap);
            if (!*out)
                abort();
            continue;
        }
        break; /* a data error, or the input ended inside a member */
    }
    inflateEnd(&zs);
    return ok;
}

/* Draws NCONFIGS readings of a body of size bytes that decodes to out_len bytes (an upper bound):
 * cs[0] the baseline (doubling, reads of 4096, fed whole), the six others sinks in turn from a
 * random start, so every sink is used by one of the two modes or the other.
 * Past BIG_OUTPUT decoded bytes a reading keeps to linear sinks and reads of 4096 bytes or more:
 * a quadratic sink (complexity 2: additive growth) or 1-byte reads over megabytes take seconds to
 * minutes per input, which libFuzzer reports as a timeout, not a bug. */
#define BIG_OUTPUT (256u << 10)
static void draw_configs(config *cs, hb_fuzz_rng *rng, size_t size, size_t out_len)
{
    static const uint32_t read_sizes[] = {1, 2, 7, 4096};
    size_t first = (size_t)hb_fuzz_range(rng, 0, hb_sink_strategy_count - 1);
    cs[0] = (config){hb_sink_find("doubling"), 4096, 0, UINT64_MAX};
    for (size_t k = 1; k < NCONFIGS; k++) {
        size_t at = first + k;
        while (out_len > BIG_OUTPUT && hb_sink_strategies[at % hb_sink_strategy_count].complexity > 1)
            at++;
        cs[k].sink = &hb_sink_strategies[at % hb_sink_strategy_count];
        size_t pick = (size_t)hb_fuzz_range(rng, 0, 4);
        cs[k].read_size = pick < 4 ? read_sizes[pick] : (uint32_t)hb_fuzz_range(rng, 1, 10000);
        if (out_len > BIG_OUTPUT && cs[k].read_size < 4096)
            cs[k].read_size = 4096 + (uint32_t)hb_fuzz_range(rng, 0, 60000);
        cs[k].feed = (int)hb_fuzz_range(rng, 0, 3);
        cs[k].max = UINT64_MAX;
        if (cs[k].feed == 1 && size > 4096)
            cs[k].feed = 2; /* byte by byte only on small bodies */
    }
}

/* Reads the body in mode gzip in every configuration; returns the baseline's outcome in *base
 * (the caller frees base->data). */
static void read_all(const uint8_t *data, size_t size, int gzip, size_t out_len, hb_fuzz_rng *rng,
                     outcome *base)
{
    config cs[NCONFIGS];
    draw_configs(cs, rng, size, out_len);
    read_body(data, size, gzip, &cs[0], 0, rng, base);
    for (size_t k = 1; k < NCONFIGS; k++) {
        if (strcmp(cs[k].sink->name, "exact") == 0 && base->rc != HB_OK)
            cs[k].sink = hb_sink_find("block-list"); /* no Content-Length to give it */
        outcome o;
        read_body(data, size, gzip, &cs[k], base->len, rng, &o);
        same_outcome(base, &o, gzip, &cs[k]);
        free(o.data);
    }
}

/* Reads the body in mode gzip with the limit at max in the drawn configuration c (a sink other
 * than exact); want[0, want_len): the bytes the whole body decodes to, unknown for a bomb (rc must
 * then be HB_ELIMIT). At max >= want_len the read gives those bytes; below, HB_ELIMIT with the
 * limit's reason and an offset inside the body. */
static void check_limit(const uint8_t *data, size_t size, int gzip, config c, uint64_t max,
                        int bomb, const uint8_t *want, size_t want_len, hb_fuzz_rng *rng)
{
    outcome o;
    c.max = max;
    if (strcmp(c.sink->name, "exact") == 0)
        c.sink = hb_sink_find("block-list");
    read_body(data, size, gzip, &c, 0, rng, &o);
    if (!bomb && max >= want_len) {
        if (o.rc != HB_OK || o.len != want_len || memcmp(o.data, want, want_len) != 0)
            hb_fuzz_fail("%s, limit %llu: code %d '%s', %zu bytes; without the limit %zu",
                         gzip ? "gzip" : "identity", (unsigned long long)max, o.rc,
                         o.reason ? o.reason : "", o.len, want_len);
    } else if (o.rc != HB_ELIMIT || strcmp(o.reason, HB_BODY_READER_LIMIT_REASON) != 0 ||
               o.err_off > size) {
        hb_fuzz_fail("%s, limit %llu of %zu decoded bytes: code %d '%s' at %llu, not the limit",
                     gzip ? "gzip" : "identity", (unsigned long long)max, want_len, o.rc,
                     o.reason ? o.reason : "", (unsigned long long)o.err_off);
    }
    free(o.data);
}

/* The limit at a read body's length and one byte under it; a bomb's at GUNZIP_CAP, read the
 * baseline's way (doubling, reads of 4096, fed whole): a drawn sink and read size (additive growth,
 * reads of 1 byte) take minutes over 8 MiB, which libFuzzer reports as a timeout. */
static void check_limits(const uint8_t *data, size_t size, int gzip, int bomb, const uint8_t *want,
                         size_t want_len, hb_fuzz_rng *rng)
{
    config cs[NCONFIGS];
    draw_configs(cs, rng, size, bomb ? GUNZIP_CAP : want_len);
    if (bomb) {
        check_limit(data, size, gzip, cs[0], GUNZIP_CAP, 1, NULL, 0, rng);
        return;
    }
    check_limit(data, size, gzip, cs[1], want_len, 0, want, want_len, rng);
    if (want_len > 0)
        check_limit(data, size, gzip, cs[2], want_len - 1, 0, want, want_len, rng);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hb_fuzz_rng rng;
    outcome id, gz;
    uint8_t *want = NULL;
    size_t want_len = 0;

    hb_fuzz_set_input(data, size);
    hb_fuzz_rng_seed(&rng, data, size);
    read_all(data, size, 0, size, &rng, &id);
    int want_ok = id.rc == HB_OK ? zlib_gunzip(id.data, id.len, &want, &want_len) : 0;
    if (id.rc == HB_OK)
        check_limits(data, size, 0, 0, id.data, id.len, &rng);
    if (want_ok != 0)
        check_limits(data, size, 1, want_ok < 0, want, want_len, &rng);
    if (want_ok >= 0) {
        /* decoded length: zlib's when the chunked coding holds, else unknown (up to deflate's
         * 1032:1 of the input: GUNZIP_CAP bounds what draw_configs needs to know) */
        read_all(data, size, 1, id.rc == HB_OK ? want_len : GUNZIP_CAP, &rng, &gz);
        if (id.rc != HB_OK && gz.rc == HB_OK)
            hb_fuzz_fail("gzip: reads a body whose chunked coding fails ('%s' at %llu)",
                         id.reason, (unsigned long long)id.err_off);
        if (id.rc == HB_OK && (gz.rc == HB_OK) != want_ok)
            hb_fuzz_fail("gzip: the reader %s ('%s' at %llu), zlib's one-call gunzip %s",
                         gz.rc == HB_OK ? "accepts" : "rejects", gz.reason ? gz.reason : "",
                         (unsigned long long)gz.err_off, want_ok ? "accepts" : "rejects");
        if (gz.rc == HB_OK && (gz.len != want_len || memcmp(gz.data, want, want_len) != 0))
            hb_fuzz_fail("gzip: the reader gives %zu bytes, zlib %zu (or other bytes)", gz.len,
                         want_len);
        free(gz.data);
    }
    free(want);
    free(id.data);
    return 0;
}

/* body_reader.c - the pipeline of incident 1: chunked body -> (gzip) -> reads of R bytes -> sink.
 *
 * It models httpcore's ChunkedInputStream (and GZIPInputStream for Content-Encoding: gzip) read
 * by EntityUtils.toByteArray into a byte[R] that is appended to the growing buffer after every
 * read. Each read is filled as full as the body allows, across calls of hb_body_reader_feed, so
 * the sink sees appends of exactly read_size bytes and a shorter last one, however the body was
 * split: the pattern hb_sink_plan assumes. The last, short read is appended by
 * hb_body_reader_finish once the body is known to be complete.
 *
 * Identity: the decoder copies chunk-data straight into the read buffer; a full buffer is one
 * append. That is all the per-byte work there is: the decoder's memcpy and the sink's.
 * Gzip: the decoder copies chunk-data into zbuf; inflate (gzip wrapper, one or more members)
 * writes into the read buffer, a batch of zbuf at a time (below).
 *
 * Gzip batches: chunk-data is collected in zbuf and inflated when zbuf is full (64 KiB of gzip
 * stream), when the chunked coding ends, and before a chunked-coding error (or, in finish, the
 * premature end) is reported. So every inflate call, and with it every verdict and offset, is the
 * same however the body was split across feeds. After its input, inflate is called again while
 * it filled the read buffer: output it held back may hide an error (the verdict must not depend
 * on the read size either).
 *
 * Order: a read is appended to the sink as soon as it is full, before anything after it is
 * decoded, so a sink error comes before any error in the bytes after the read's last byte.
 *
 * Offsets of errors (hb_body_reader_error):
 *   chunked coding, "data after the last chunk": bytes of the body consumed before the offending
 *     byte;
 *   sink errors: the body offset at which the refused read was complete. Identity: just past
 *     the chunk-data byte that filled it (the decoder stops there). Gzip: the end of the batch it
 *     was inflated from (a multiple of 64 KiB of chunk-data, or where the chunked coding ended or
 *     failed). The last, short read is complete at the end of the body;
 *   gzip errors - every reason that mentions "gzip stream" - count bytes of the gzip stream, i.e.
 *     of the concatenated chunk-data. A header that is not gzip's is reported at the first byte of
 *     its member, a truncated stream at the stream's length, and any other inflate error at the
 *     last byte inflate consumed before it detected the error (zlib reports no finer position).
 *
 * The limit (hb_body_reader_set_max): every output window handed to the decoder (identity) or to
 * inflate (gzip) is cut to one byte past the limit, so the byte over it is the last one decoded:
 * found at once, never appended, and nothing after it is decoded. No buffer grows with the body.
 *
 * The struct's field z points to the private state below for both bodies (the read buffer's fill
 * level lives there), not only the z_stream.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hb_bufgrow.h"
#include "hb_err.h"

#define ZBUF_SIZE (64u * 1024u) /* bytes of gzip stream dechunked per inflate round */
#define ZOUT_SIZE (64u * 1024u) /* gzip: inflate's output window, cut into reads of read_size */

typedef struct reader_priv {
    size_t fill;           /* bytes waiting in rbuf */
    size_t rcap;           /* bytes of rbuf: read_size, or for gzip a multiple of it near
                            * ZOUT_SIZE, so that inflate writes long runs (its fast path needs
                            * room) while the sink still gets reads of read_size bytes */
    uint64_t body_pos;     /* bytes of the body consumed */
    uint64_t gz_pos;       /* bytes of the gzip stream consumed by inflate */
    uint64_t member_start; /* gzip: offset of the current member in the gzip stream */
    uint64_t decoded;      /* bytes written to rbuf so far: the decoded body (<= max_bytes + 1) */
    int done;              /* the decoder has seen the final CRLF */
    int z_ready;           /* gzip: inflateInit2 succeeded */
    z_stream zs;
} reader_priv;

/* Records the first error; returns its code. */
static int fail(hb_body_reader *r, int code, const char *reason, uint64_t offset)
{
    r->err = code;
    r->reason = reason;
    r->err_offset = offset;
    return code;
}

static int fail_dechunk(hb_body_reader *r, int code)
{
    uint64_t off = 0;
    const char *reason = hb_dechunk_error(&r->dechunk, &off);
    return fail(r, code, reason ? reason : "chunked coding error", off);
}

/* Records a sink's refusal of a read: the offset is the body offset reached so far. */
static int flush_read_error(hb_body_reader *r, reader_priv *p, int rc)
{
    const char *why = rc == HB_ENOMEM   ? "sink out of memory"
                      : rc == HB_ELIMIT ? "sink limit exceeded (the body is larger than the "
                                          "strategy allows)"
                                        : "sink refused the read";
    return fail(r, rc, why, p->body_pos);
}

/* Appends the read buffer's bytes to the sink: one read of at most read_size bytes. */
static int flush_read(hb_body_reader *r, reader_priv *p)
{
    int rc = hb_sink_append(r->sink, r->rbuf, p->fill);
    if (rc != HB_OK)
        return flush_read_error(r, p, rc);
    p->fill = 0;
    return HB_OK;
}

/* gzip: appends every complete read waiting in rbuf, in order, and moves the rest (less than a
 * read) to its start. */
static int flush_full_reads(hb_body_reader *r, reader_priv *p)
{
    size_t off = 0, left = p->fill;
    while (left >= r->read_size) {
        int rc = hb_sink_append(r->sink, r->rbuf + off, r->read_size);
        if (rc != HB_OK)
            return flush_read_error(r, p, rc);
        off += r->read_size;
        left -= r->read_size;
    }
    if (off > 0 && left > 0)
        memmove(r->rbuf, r->rbuf + off, left);
    p->fill = left;
    return HB_OK;
}

/* The output window for the next decoding step: room bytes of rbuf, cut to one byte past the
 * limit, so that the first byte over it is decoded (and so found) but nothing after it. */
static size_t limit_window(const hb_body_reader *r, const reader_priv *p, size_t room)
{
    uint64_t left = r->max_bytes - p->decoded; /* decoded <= max_bytes until the limit error */
    return left < room ? (size_t)left + 1 : room;
}

/* Counts made decoded bytes; past the limit, drops the byte over it (the last one written),
 * appends the full reads before it (gzip; an identity read is never full here) and fails. */
static int limit_count(hb_body_reader *r, reader_priv *p, size_t made, uint64_t offset)
{
    p->decoded += made;
    if (p->decoded <= r->max_bytes)
        return HB_OK;
    p->fill--;
    if (r->gzip && flush_full_reads(r, p) != HB_OK)
        return r->err;
    return fail(r, HB_ELIMIT, HB_BODY_READER_LIMIT_REASON, offset);
}

int hb_body_reader_set_max(hb_body_reader *r, uint64_t max_bytes)
{
    const reader_priv *p = r ? r->z : NULL;
    if (!p || p->body_pos > 0 || r->err)
        return HB_EINVAL;
    r->max_bytes = max_bytes;
    return HB_OK;
}

int hb_body_reader_init(hb_body_reader *r, hb_sink *sink, int gzip, uint32_t read_size)
{
    reader_priv *p;

    if (!r)
        return HB_EINVAL;
    memset(r, 0, sizeof(*r));
    if (!sink)
        return HB_EINVAL;
    hb_dechunk_init(&r->dechunk);
    r->sink = sink;
    r->gzip = gzip != 0;
    r->read_size = read_size ? read_size : HB_READ_SIZE_DEFAULT;
    r->max_bytes = UINT64_MAX;
    p = calloc(1, sizeof(*p));
    r->z = p;
    if (p) {
        p->rcap = r->read_size;
        if (r->gzip && r->read_size < ZOUT_SIZE)
            p->rcap = ZOUT_SIZE / r->read_size * r->read_size;
        r->rbuf = malloc(p->rcap);
    }
    if (!r->rbuf || !p) {
        hb_body_reader_release(r);
        return HB_ENOMEM;
    }
    if (r->gzip) {
        r->zbuf_cap = ZBUF_SIZE;
        r->zbuf = malloc(r->zbuf_cap);
        /* 16 + MAX_WBITS: the gzip wrapper only (RFC 1952), checking CRC-32 and ISIZE. */
        int zr = r->zbuf ? inflateInit2(&p->zs, 16 + MAX_WBITS) : Z_MEM_ERROR;
        if (zr != Z_OK) {
            hb_body_reader_release(r);
            /* Other than memory, only a zlib built differently from its header fails here. */
            return zr == Z_MEM_ERROR ? HB_ENOMEM : HB_EINVAL;
        }
        p->z_ready = 1;
    }
    return HB_OK;
}

/* zlib's messages for corrupt data (inflate.c, inftrees.c), as reasons that name the stream. */
static const struct {
    const char *zlib_msg;
    const char *reason;
} zlib_reasons[] = {
    {"unknown compression method", "unknown compression method in the gzip stream"},
    {"unknown header flags set", "unknown header flags set in the gzip stream"},
    {"header crc mismatch", "header crc mismatch in the gzip stream"},
    {"invalid block type", "invalid block type in the gzip stream"},
    {"invalid stored block lengths", "invalid stored block lengths in the gzip stream"},
    {"too many length or distance symbols",
     "too many length or distance symbols in the gzip stream"},
    {"invalid code lengths set", "invalid code lengths set in the gzip stream"},
    {"invalid bit length repeat", "invalid bit length repeat in the gzip stream"},
    {"invalid code -- missing end-of-block",
     "invalid code -- missing end-of-block in the gzip stream"},
    {"invalid literal/lengths set", "invalid literal/lengths set in the gzip stream"},
    {"invalid distances set", "invalid distances set in the gzip stream"},
    {"invalid literal/length code", "invalid literal/length code in the gzip stream"},
    {"invalid distance code", "invalid distance code in the gzip stream"},
    {"invalid distance too far back", "invalid distance too far back in the gzip stream"},
    {"incorrect data check", "incorrect data check (CRC-32) in the gzip stream"},
    {"incorrect length check", "incorrect length check (ISIZE) in the gzip stream"},
};

static int fail_zlib(hb_body_reader *r, reader_priv *p, int zr)
{
    const char *msg = p->zs.msg;

    if (zr == Z_MEM_ERROR)
        return fail(r, HB_ENOMEM, "out of memory inflating the gzip stream", p->gz_pos);
    if (zr == Z_BUF_ERROR) /* no progress with input and room: not expected */
        return fail(r, HB_EZLIB, "inflate made no progress in the gzip stream", p->gz_pos);
    if (zr == Z_DATA_ERROR && msg && strcmp(msg, "incorrect header check") == 0)
        return fail(r, HB_EZLIB,
                    p->member_start ? "trailing data in the gzip stream is not a gzip member"
                                    : "not a gzip stream (incorrect header check)",
                    p->member_start);
    uint64_t at = p->gz_pos > p->member_start ? p->gz_pos - 1 : p->member_start;
    if (zr == Z_DATA_ERROR && msg) {
        for (size_t i = 0; i < sizeof(zlib_reasons) / sizeof(zlib_reasons[0]); i++)
            if (strcmp(msg, zlib_reasons[i].zlib_msg) == 0)
                return fail(r, HB_EZLIB, zlib_reasons[i].reason, at);
    }
    return fail(r, HB_EZLIB, "corrupt data in the gzip stream", at);
}

/* Inflates n bytes of the gzip stream into the read buffer, appending every full read as soon as
 * it fills. It keeps calling inflate after the input is used up for as long as the last call
 * filled the read buffer: zlib may hold output (and the error that follows it) that it had no room
 * to write, so the verdict cannot depend on the read size. n = 0 only drains that output. A full
 * read is appended before an error inflate found after it. */
static int inflate_into_reads(hb_body_reader *r, reader_priv *p, const uint8_t *in, size_t n)
{
    z_stream *z = &p->zs;
    int pending = 1; /* inflate may hold output: the last call filled the read buffer */

    while (n > 0 || pending) {
        if (r->z_end) {
            if (n == 0)
                break;
            /* A member ended and more bytes follow: the next member (RFC 1952 section 2.2). */
            if (inflateReset(z) != Z_OK)
                return fail(r, HB_EZLIB, "inflateReset failed on the gzip stream", p->gz_pos);
            r->z_end = 0;
            p->member_start = p->gz_pos;
        }
        size_t room = limit_window(r, p, p->rcap - p->fill); /* > 0: full reads go at once */
        z->next_in = (Bytef *)(uintptr_t)in;  /* zlib does not write through next_in */
        z->avail_in = (uInt)n;
        z->next_out = r->rbuf + p->fill;
        z->avail_out = (uInt)room;
        int zr = inflate(z, Z_NO_FLUSH);
        size_t used = n - z->avail_in;
        size_t made = room - z->avail_out;
        in += used;
        n -= used;
        p->gz_pos += used;
        p->fill += made;
        pending = made == room;
        if (limit_count(r, p, made, p->body_pos) != HB_OK)
            return r->err;
        if (zr == Z_STREAM_END) {
            r->z_end = 1;
        } else if (zr == Z_BUF_ERROR && n == 0 && used == 0 && made == 0) {
            pending = 0; /* nothing was held back: inflate needs more input */
        } else if (zr != Z_OK) {
            if (flush_full_reads(r, p) != HB_OK)
                return r->err;
            return fail_zlib(r, p, zr);
        } else if (used == 0 && made == 0) {
            return fail(r, HB_EZLIB, "inflate made no progress in the gzip stream", p->gz_pos);
        }
        if (p->fill >= r->read_size && flush_full_reads(r, p) != HB_OK)
            return r->err;
    }
    return HB_OK;
}

/* gzip: inflates the chunk-data batched in zbuf and empties it. */
static int inflate_batch(hb_body_reader *r, reader_priv *p)
{
    size_t n = r->zbuf_len;
    r->zbuf_len = 0;
    return n ? inflate_into_reads(r, p, r->zbuf, n) : HB_OK;
}

static int feed_identity(hb_body_reader *r, reader_priv *p, const uint8_t *in, size_t len)
{
    while (len > 0) {
        size_t used, made;
        /* The decoder stops right after the byte that fills the read buffer, which is appended
         * before anything after it is decoded. */
        int rc = hb_dechunk_run(&r->dechunk, in, len, &used, r->rbuf + p->fill,
                                limit_window(r, p, r->read_size - p->fill), &made);
        in += used;
        len -= used;
        p->body_pos += used;
        p->fill += made;
        /* past the limit, the decoder stopped just after the byte over it */
        if (limit_count(r, p, made, p->body_pos - 1) != HB_OK)
            return r->err;
        if (p->fill == r->read_size && flush_read(r, p) != HB_OK)
            return r->err;
        if (rc < 0)
            return fail_dechunk(r, rc);
        if (rc == HB_DECHUNK_DONE) {
            p->done = 1;
            break;
        }
        if (used == 0 && made == 0) /* cannot happen: the read buffer had room */
            return fail(r, HB_EINVAL, "chunked decoder made no progress", p->body_pos);
    }
    if (len > 0)
        return fail(r, HB_EPARSE, "data after the last chunk", p->body_pos);
    return HB_OK;
}

/* gzip: chunk-data is batched in zbuf and inflated when zbuf is full, when the chunked coding ends
 * and before a chunked-coding error is reported (hb_body_reader_finish: before the premature end).
 * The batches, and so every inflate call, do not depend on how the body was split across feeds. */
static int feed_gzip(hb_body_reader *r, reader_priv *p, const uint8_t *in, size_t len)
{
    while (len > 0) {
        size_t used, made;
        int rc = hb_dechunk_run(&r->dechunk, in, len, &used, r->zbuf + r->zbuf_len,
                                r->zbuf_cap - r->zbuf_len, &made);
        in += used;
        len -= used;
        p->body_pos += used;
        r->zbuf_len += made;
        if (rc != 0 || r->zbuf_len == r->zbuf_cap) {
            int zrc = inflate_batch(r, p);
            if (zrc != HB_OK)
                return zrc;
        }
        if (rc < 0)
            return fail_dechunk(r, rc);
        if (rc == HB_DECHUNK_DONE) {
            p->done = 1;
            break;
        }
        if (used == 0 && made == 0) /* cannot happen: zbuf had room */
            return fail(r, HB_EINVAL, "chunked decoder made no progress", p->body_pos);
    }
    if (len > 0)
        return fail(r, HB_EPARSE, "data after the last chunk", p->body_pos);
    return HB_OK;
}

int hb_body_reader_feed(hb_body_reader *r, const uint8_t *in, size_t len)
{
    reader_priv *p = r->z;

    if (r->err)
        return r->err;
    if (!p || (!in && len))
        return fail(r, HB_EINVAL, "body reader not initialised or NULL input", 0);
    if (p->done) {
        if (len > 0)
            return fail(r, HB_EPARSE, "data after the last chunk", p->body_pos);
        return HB_OK;
    }
    return r->gzip ? feed_gzip(r, p, in, len) : feed_identity(r, p, in, len);
}

int hb_body_reader_finish(hb_body_reader *r)
{
    reader_priv *p = r->z;
    int rc;

    if (r->err)
        return r->err;
    if (!p)
        return fail(r, HB_EINVAL, "body reader not initialised", 0);
    if (r->gzip && inflate_batch(r, p) != HB_OK) /* chunk-data before a premature end */
        return r->err;
    rc = hb_dechunk_finish(&r->dechunk);
    if (rc != HB_OK)
        return fail_dechunk(r, rc);
    /* Output inflate may still hold, and an error after it, come before the truncation. */
    if (r->gzip && !r->z_end && inflate_into_reads(r, p, r->zbuf, 0) != HB_OK)
        return r->err;
    if (r->gzip && !r->z_end)
        return fail(r, HB_ETRUNC, "truncated gzip stream", p->gz_pos);
    if (p->fill > 0)
        return flush_read(r, p);
    return HB_OK;
}

const char *hb_body_reader_error(const hb_body_reader *r, uint64_t *offset)
{
    if (offset)
        *offset = r->reason ? r->err_offset : 0;
    return r->reason;
}

void hb_body_reader_release(hb_body_reader *r)
{
    reader_priv *p;

    if (!r)
        return;
    p = r->z;
    if (p && p->z_ready)
        inflateEnd(&p->zs);
    free(p);
    free(r->zbuf);
    free(r->rbuf);
    memset(r, 0, sizeof(*r));
}

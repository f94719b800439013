/* chunked_frame.c - layer 2 of the chunked generator (hb_gen.h): the chunked body (RFC 9112
 * section 7.1) as a stream, hb_chunked_gen_new/read/info/free and the parameters' defaults and
 * check: chunk-size lines in lowercase hex, chunk-data, CRLF, the last-chunk, an optional trailer
 * section, the final CRLF; the chunk-data is the payload of chunked_rows.c itself (identity) or a
 * gzip stream of it made by zlib (RFC 1952). Chunk sizes come from their own PRNG stream
 * (hb_prng_stream(seed, 2)). Whole bodies are chunked_cache.c's (see chunked_impl.h).
 */
#include "hb_gen.h"
#include "hb_err.h"
#include "hb_prng.h"
#include "chunked_impl.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- layer 2: the chunked body --------------------------------------------------------------- */

void hb_chunked_params_default(hb_chunked_params *p)
{
    p->size = HB_GEN_DEFAULT_SIZE;
    p->chunk_min = HB_GEN_DEFAULT_CHUNK_MIN;
    p->chunk_max = HB_GEN_DEFAULT_CHUNK_MAX;
    p->gzip_level = -1;
    p->trailer = 0;
    p->seed = HB_GEN_DEFAULT_SEED;
}

int hb_chunked_params_check(const hb_chunked_params *p, const char **why)
{
    const char *reason = NULL;
    if (!p)
        reason = "no parameters";
    else if (p->chunk_min < 1)
        reason = "chunk size must be at least 1";
    else if (p->chunk_max > HB_GEN_CHUNK_LIMIT)
        reason = "chunk size must be at most 16777216 (2^24)";
    else if (p->chunk_min > p->chunk_max)
        reason = "chunk size minimum exceeds its maximum";
    else if (p->gzip_level < -1 || p->gzip_level > 9)
        reason = "gzip level must be 0 to 9 (or -1 for identity)";
    if (why)
        *why = reason;
    return reason ? HB_EINVAL : HB_OK;
}

#define HB_ZIN_SIZE (256u << 10) /* payload bytes handed to deflate at a time */
#define HB_ZSLACK (256u << 10)   /* gzip buffer room beyond one chunk */

/* The crc32 of len bytes folded into crc, fed to zlib in pieces its uInt can count. */
uint32_t hb_crc_update(uint32_t crc, const uint8_t *p, size_t len)
{
    uLong c = crc;
    while (len > 0) {
        uInt k = len > (1u << 30) ? (1u << 30) : (uInt)len;
        c = crc32(c, p, k);
        p += k;
        len -= k;
    }
    return (uint32_t)c;
}

/* Payload bytes into out, with the running crc32 kept in the info. */
static size_t hb_chunked_pull(hb_chunked_gen *g, uint8_t *out, size_t cap)
{
    size_t n;
    hb_payload_gen_read(g->pg, out, cap, &n);
    g->info.crc32 = hb_crc_update(g->info.crc32, out, n);
    g->info.size += n;
    g->info.rows = hb_payload_gen_rows(g->pg);
    return n;
}

/* Appends the lowercase hex of v to buf at *len. */
static void hb_put_hex(uint8_t *buf, uint32_t *len, uint64_t v)
{
    char tmp[16];
    int k = 0;
    do {
        tmp[k++] = hb_hex_digits[v & 15];
        v >>= 4;
    } while (v);
    while (k > 0)
        buf[(*len)++] = (uint8_t)tmp[--k];
}

static void hb_put_dec(uint8_t *buf, uint32_t *len, uint64_t v)
{
    char tmp[20];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k > 0)
        buf[(*len)++] = (uint8_t)tmp[--k];
}

static void hb_put_str(uint8_t *buf, uint32_t *len, const char *s)
{
    size_t k = strlen(s);
    memcpy(buf + *len, s, k);
    *len += (uint32_t)k;
}

/* Stages the end of the body: last-chunk, the trailer section if asked for, the final CRLF. */
static void hb_stage_end(hb_chunked_gen *g)
{
    uint32_t n = 0;
    hb_put_str(g->small, &n, "0\r\n");
    if (g->p.trailer) {
        hb_put_str(g->small, &n, "X-Checksum-Crc32: ");
        uint8_t hex[8];
        uint32_t c = g->info.crc32;
        for (int i = 7; i >= 0; i--) {
            hex[i] = (uint8_t)hb_hex_digits[c & 15];
            c >>= 4;
        }
        memcpy(g->small + n, hex, 8);
        n += 8;
        hb_put_str(g->small, &n, "\r\nX-Rows: ");
        hb_put_dec(g->small, &n, g->info.rows);
        hb_put_str(g->small, &n, "\r\n");
    }
    hb_put_str(g->small, &n, "\r\n");
    g->small_pos = 0;
    g->small_len = n;
    g->phase = HB_PH_END;
}

/* Runs deflate until zbuf holds at least want bytes or the gzip stream is complete. */
static int hb_gzip_fill(hb_chunked_gen *g, size_t want)
{
    while (g->ztail - g->zhead < want && !g->z_done) {
        if (g->zhead > 0) {
            memmove(g->zbuf, g->zbuf + g->zhead, g->ztail - g->zhead);
            g->ztail -= g->zhead;
            g->zhead = 0;
        }
        int flush = Z_NO_FLUSH;
        if (g->zs.avail_in == 0) {
            size_t n = hb_chunked_pull(g, g->zin, HB_ZIN_SIZE);
            g->zs.next_in = g->zin;
            g->zs.avail_in = (uInt)n;
        }
        if (hb_payload_gen_left(g->pg) == 0)
            flush = Z_FINISH;
        g->zs.next_out = g->zbuf + g->ztail;
        g->zs.avail_out = (uInt)(g->zcap - g->ztail);
        int rc = deflate(&g->zs, flush);
        g->ztail = g->zcap - g->zs.avail_out;
        if (rc == Z_STREAM_END)
            g->z_done = 1;
        else if (rc != Z_OK)
            return HB_EZLIB;
    }
    return HB_OK;
}

/* Decides the next chunk: stages its chunk-size line, or the end of the body. */
static int hb_next_chunk(hb_chunked_gen *g)
{
    uint64_t span = (uint64_t)g->p.chunk_max - g->p.chunk_min + 1;
    uint64_t want;
    uint64_t avail;
    if (g->p.gzip_level < 0) {
        avail = g->unassigned;
        if (avail == 0) {
            hb_stage_end(g);
            return HB_OK;
        }
        want = g->p.chunk_min + hb_splitmix64(&g->chunk_rng) % span;
    } else {
        want = g->p.chunk_min + hb_splitmix64(&g->chunk_rng) % span;
        int rc = hb_gzip_fill(g, (size_t)want);
        if (rc != HB_OK)
            return rc;
        avail = g->ztail - g->zhead;
        if (avail == 0) {
            hb_stage_end(g);
            return HB_OK;
        }
    }
    uint64_t len = want < avail ? want : avail;
    if (g->p.gzip_level < 0)
        g->unassigned -= len;
    uint32_t n = 0;
    hb_put_hex(g->small, &n, len);
    hb_put_str(g->small, &n, "\r\n");
    g->small_pos = 0;
    g->small_len = n;
    g->data_left = len;
    g->info.chunks++;
    g->phase = HB_PH_DATA;
    return HB_OK;
}

void hb_chunked_gen_free(hb_chunked_gen *g)
{
    if (!g)
        return;
    if (g->z_live)
        deflateEnd(&g->zs);
    free(g->zin);
    free(g->zbuf);
    hb_payload_gen_free(g->pg);
    free(g);
}

int hb_chunked_gen_new(hb_chunked_gen **out, const hb_chunked_params *p)
{
    *out = NULL;
    if (hb_chunked_params_check(p, NULL) != HB_OK)
        return HB_EINVAL;
    hb_chunked_gen *g = calloc(1, sizeof *g);
    if (!g)
        return HB_ENOMEM;
    g->p = *p;
    g->p.trailer = p->trailer != 0;
    g->chunk_rng = hb_prng_stream(p->seed, 2);
    g->unassigned = p->size;
    g->phase = HB_PH_LINE;
    g->info.crc32 = (uint32_t)crc32(0L, Z_NULL, 0);
    int rc = hb_payload_gen_new(&g->pg, p->size, p->seed);
    if (rc != HB_OK)
        goto fail;
    if (p->gzip_level >= 0) {
        g->zcap = (size_t)p->chunk_max + HB_ZSLACK;
        g->zin = malloc(HB_ZIN_SIZE);
        g->zbuf = malloc(g->zcap);
        rc = HB_ENOMEM;
        if (!g->zin || !g->zbuf)
            goto fail;
        /* windowBits 16 + 15: a gzip wrapper, 32 KiB window; memLevel 8: nginx's defaults */
        int zrc = deflateInit2(&g->zs, p->gzip_level, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY);
        if (zrc != Z_OK) {
            rc = zrc == Z_MEM_ERROR ? HB_ENOMEM : HB_EZLIB;
            goto fail;
        }
        g->z_live = 1;
        /* A fixed gzip header (mtime 0, OS 3 = Unix, as nginx sends) so that the bytes do not
         * depend on the machine zlib was built for. */
        g->zh.os = 3;
        if (deflateSetHeader(&g->zs, &g->zh) != Z_OK) {
            rc = HB_EZLIB;
            goto fail;
        }
    }
    *out = g;
    return HB_OK;
fail:
    hb_chunked_gen_free(g);
    return rc;
}

int hb_chunked_gen_read(hb_chunked_gen *g, uint8_t *out, size_t cap, size_t *n)
{
    uint8_t *p = out;
    uint8_t *end = out + cap;
    int rc = HB_OK;
    while (p < end && g->phase != HB_PH_DONE) {
        if (g->small_pos < g->small_len) {
            size_t k = g->small_len - g->small_pos;
            if (k > (size_t)(end - p))
                k = (size_t)(end - p);
            memcpy(p, g->small + g->small_pos, k);
            p += k;
            g->small_pos += (uint32_t)k;
            if (g->small_pos == g->small_len && g->phase == HB_PH_END)
                g->phase = HB_PH_DONE;
            continue;
        }
        if (g->phase == HB_PH_LINE) {
            rc = hb_next_chunk(g);
            if (rc != HB_OK)
                break;
            continue;
        }
        /* HB_PH_DATA */
        size_t k = (size_t)(end - p);
        if (k > g->data_left)
            k = (size_t)g->data_left;
        if (g->p.gzip_level < 0) {
            k = hb_chunked_pull(g, p, k);
        } else {
            memcpy(p, g->zbuf + g->zhead, k);
            g->zhead += k;
            g->info.gzip_size += k;
        }
        p += k;
        g->data_left -= k;
        if (g->data_left == 0) {
            g->small[0] = '\r';
            g->small[1] = '\n';
            g->small_pos = 0;
            g->small_len = 2;
            g->phase = HB_PH_LINE;
        }
    }
    *n = (size_t)(p - out);
    g->info.body_size += *n;
    return rc;
}

void hb_chunked_gen_info(const hb_chunked_gen *g, hb_chunked_info *info)
{
    *info = g->info;
}

/* chunked_gen.c - the chunked payload: synthetic website-visit rows, chunk framing, gzip, cache.
 *
 * Three layers, each a stream with zlib's read-into-your-window shape:
 *   1. the payload: an infinite stream of TSV rows, of which the payload of size N is the first
 *      N bytes (the last row cut where N ends);
 *   2. the chunked body (RFC 9112 section 7.1): chunk-size lines in lowercase hex, chunk-data,
 *      CRLF, the last-chunk, an optional trailer section, the final CRLF; the chunk-data is the
 *      payload itself (identity) or a gzip stream of it made by zlib (RFC 1952);
 *   3. whole bodies: written to a file descriptor, built in memory, or cached on disk and mapped.
 *
 * The row model (tuned so that gzip -1 compresses it 3-6x, as it does real exports):
 *   - the rows are sorted by visit time: a clock starting at a seed-chosen second of early 2023
 *     advances by one second every four rows on average;
 *   - HB_SESSIONS visit sessions are open at any moment; each row belongs to one of them, drawn
 *     uniformly; a session lasts a few rows, then is replaced by a new one whose user comes from
 *     a skewed population (a few thousand regulars, a larger occasional crowd, a long tail), so
 *     user ids repeat within and across sessions as they do in real traffic;
 *   - the URL path comes from a fixed vocabulary of HB_N_PATHS paths with Zipf weights 1/(rank+1);
 *   - the two counts (page views, conversions) are small numbers with decaying weights.
 * All weights are integers so the tables, and hence the bytes, are the same on every machine.
 */
#include "hb_gen.h"
#include "hb_err.h"
#include "hb_io.h"
#include "hb_prng.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* The PRNG (hb_prng.h): independent streams hb_prng_stream(seed, k), k = 1 the content, 2 the
 * chunk sizes, 3 the user-id hash key, 4 the clock's start, so changing the chunk sizes never
 * changes the payload. */

/* ---- the row vocabulary ---------------------------------------------------------------------- */

/* URL paths, most visited first: rank k has weight 1/(k+1). */
static const char *const hb_paths[] = {
    "/",
    "/products",
    "/products/shoes",
    "/cart",
    "/search?q=bag",
    "/checkout",
    "/campaign/winter",
    "/products/bags",
    "/sale",
    "/account",
    "/products/shirts",
    "/products/jackets",
    "/login",
    "/new-arrivals",
    "/products/dresses",
    "/checkout/shipping",
    "/checkout/payment",
    "/products/sneakers",
    "/search?q=shoes",
    "/best-sellers",
    "/products/jeans",
    "/account/orders",
    "/checkout/confirm",
    "/products/boots",
    "/blog",
    "/checkout/thank-you",
    "/search?q=jacket",
    "/campaign/summer",
    "/products/shoes/running",
    "/account/wishlist",
    "/products/hats",
    "/help",
    "/help/shipping",
    "/help/returns",
    "/sale/shoes",
    "/signup",
    "/products/accessories",
    "/products/watches",
    "/search?q=dress",
    "/campaign/black-friday",
    "/products/bags/backpacks",
    "/products/socks",
    "/products/sunglasses",
    "/sale/bags",
    "/search?q=sale",
    "/gift-cards",
    "/blog/2023/11/sale",
    "/products/shoes/trail",
    "/campaign/spring",
    "/help/sizing",
    "/stores",
    "/products/bags/totes",
    "/search?q=boots",
    "/account/settings",
    "/products/shoes/kids",
    "/campaign/cyber-monday",
    "/wishlist",
    "/products/shoes/p/10423",
    "/products/shoes/p/10871",
    "/products/bags/p/20115",
    "/products/jackets/p/30027",
    "/products/dresses/p/40311",
    "/search?q=gift",
    "/help/contact",
    "/about",
    "/blog/2023/10/gift-guide",
    "/campaign/back-to-school",
    "/products/shirts/p/50142",
    "/products/sneakers/p/60008",
    "/compare",
    "/reviews",
    "/stores/berlin",
    "/stores/london",
    "/stores/paris",
    "/stores/new-york",
    "/blog/2023/01/new-year",
    "/blog/2023/03/spring-trends",
    "/blog/2023/05/care-guide",
    "/blog/2023/07/summer-picks",
    "/blog/2023/09/fall-lookbook",
    "/search?q=socks",
    "/search?q=watch",
    "/search?q=running+shoes",
    "/search?q=leather+bag",
    "/products/boots/p/70219",
    "/products/hats/p/80034",
    "/products/watches/p/90117",
    "/products/jeans/p/11502",
    "/sale/jackets",
    "/sale/dresses",
    "/newsletter",
    "/logout",
    "/careers",
    "/careers/engineering",
    "/privacy",
    "/terms",
    "/cookies",
    "/accessibility",
    "/sitemap",
    "/press",
    "/affiliates",
    "/gift-cards/balance",
    "/account/addresses",
    "/account/payment-methods",
    "/account/returns",
    "/products/shoes/p/10999",
    "/products/bags/p/20476",
    "/products/shirts/p/50388",
    "/products/dresses/p/40777",
    "/products/sunglasses/p/91203",
    "/campaign/valentines",
    "/campaign/mothers-day",
    "/campaign/singles-day",
    "/blog/2023/02/how-to-fit-boots",
    "/blog/2023/04/packing-list",
    "/blog/2023/06/festival-style",
    "/blog/2023/08/denim-care",
    "/blog/2023/12/year-in-review",
    "/search?q=kids",
    "/search?q=raincoat",
};

#define HB_N_PATHS (sizeof hb_paths / sizeof hb_paths[0])
#define HB_PATH_SLOT 48 /* each path is stored padded with its tab: copied as one 48-byte block */
#define HB_PATH_LUT_BITS 16
#define HB_COUNT_LUT_BITS 8
#define HB_SESSIONS 16 /* concurrently open visit sessions (a power of two) */
#define HB_ROW_MAX 96  /* longest row: 16 + 1 + 10 + 1 + (HB_PATH_SLOT - 1) + 2 + 1 + 2 + 1 = 81 */
#define HB_CLOCK_START 1672531200u     /* 2023-01-01T00:00:00Z */
#define HB_CLOCK_SPREAD (90u * 86400u) /* the seed picks the first second within 90 days */

/* "00" "01" ... "99": two decimal digits per entry. */
static const char hb_digit_pairs[201] = "00010203040506070809"
                                        "10111213141516171819"
                                        "20212223242526272829"
                                        "30313233343536373839"
                                        "40414243444546474849"
                                        "50515253545556575859"
                                        "60616263646566676869"
                                        "70717273747576777879"
                                        "80818283848586878889"
                                        "90919293949596979899";

static const char hb_hex_digits[17] = "0123456789abcdef";

/* Fills lut[0 .. 2^bits) so that value v appears in proportion to weight[v] (integers, sum below
 * 2^40): entry i holds the v whose cumulative weight range contains i * total / 2^bits. */
static void hb_lut_fill(uint8_t *lut, unsigned bits, const uint32_t *weight, size_t n)
{
    uint64_t total = 0;
    for (size_t v = 0; v < n; v++)
        total += weight[v];
    size_t v = 0;
    uint64_t upper = weight[0]; /* cumulative weight through v */
    for (uint64_t i = 0; i < ((uint64_t)1 << bits); i++) {
        uint64_t target = (i * total) >> bits;
        while (upper <= target && v + 1 < n)
            upper += weight[++v];
        lut[i] = (uint8_t)v;
    }
}

/* ---- layer 1: the payload -------------------------------------------------------------------- */

typedef struct hb_session {
    char id[16];   /* the user's hashed id, 16 lowercase hex digits */
    uint32_t left; /* rows left in this session */
} hb_session;

struct hb_payload_gen {
    uint64_t size;     /* payload bytes in all */
    uint64_t produced; /* payload bytes handed out */
    uint64_t rows;     /* newline-terminated rows handed out */
    uint64_t rng;      /* the content stream */
    uint64_t id_key;   /* keys the user-id hash */
    char clock[10];    /* the current visit time: unix seconds in ASCII */
    uint8_t row_pos;   /* staged row: bytes already handed out */
    uint8_t row_len;   /* staged row: its length (0 when none) */
    uint8_t row[HB_ROW_MAX];
    hb_session sessions[HB_SESSIONS];
    uint8_t path_len[HB_N_PATHS]; /* bytes of path plus its tab */
    uint8_t views_lut[1u << HB_COUNT_LUT_BITS];
    uint8_t conv_lut[1u << HB_COUNT_LUT_BITS];
    uint8_t path_lut[1u << HB_PATH_LUT_BITS];
    char path_text[HB_N_PATHS][HB_PATH_SLOT];
};

/* Opens a new session in *s: draws its user from the skewed population and its length. */
static void hb_session_open(hb_payload_gen *g, hb_session *s)
{
    uint64_t r = hb_splitmix64(&g->rng);
    uint64_t user;
    unsigned cls = (unsigned)(r & 15);
    if (cls < 6)
        user = (r >> 8) & ((1u << 12) - 1); /* 6/16: regulars, 4096 users */
    else if (cls < 11)
        user = (r >> 8) & ((1u << 18) - 1); /* 5/16: occasional, 262144 users */
    else
        user = (r >> 8) & ((1u << 28) - 1); /* 5/16: the long tail */
    /* length: 1 to 16 rows, short sessions more likely */
    unsigned a = (unsigned)(r >> 40) & 15, b = (unsigned)(r >> 44) & 15;
    s->left = 1 + (a < b ? a : b);
    uint64_t h = user ^ g->id_key;
    h = hb_splitmix64(&h);
    for (int i = 15; i >= 0; i--) {
        s->id[i] = hb_hex_digits[h & 15];
        h >>= 4;
    }
}

/* Advances the ASCII clock by one second (saturating at 9999999999). */
static void hb_clock_tick(char *clock)
{
    int i = 9;
    while (i >= 0 && clock[i] == '9')
        i--;
    if (i < 0)
        return;
    clock[i]++;
    for (int j = i + 1; j < 10; j++)
        clock[j] = '0';
}

/* Writes one whole row at p, which has room for HB_ROW_MAX bytes; returns its length. */
static inline size_t hb_row_write(hb_payload_gen *g, uint8_t *p)
{
    uint64_t r = hb_splitmix64(&g->rng);
    hb_session *s = &g->sessions[r & (HB_SESSIONS - 1)];
    if (s->left == 0)
        hb_session_open(g, s);
    s->left--;
    if (((r >> 4) & 3) == 0)
        hb_clock_tick(g->clock);
    uint8_t *q = p;
    memcpy(q, s->id, 16);
    q[16] = '\t';
    memcpy(q + 17, g->clock, 10);
    q[27] = '\t';
    q += 28;
    unsigned path = g->path_lut[(r >> 8) & ((1u << HB_PATH_LUT_BITS) - 1)];
    memcpy(q, g->path_text[path], HB_PATH_SLOT);
    q += g->path_len[path];
    unsigned views = g->views_lut[(r >> 24) & 255];
    unsigned conv = g->conv_lut[(r >> 32) & 255];
    if (views >= 10) {
        memcpy(q, &hb_digit_pairs[2 * views], 2);
        q += 2;
    } else {
        *q++ = (uint8_t)('0' + views);
    }
    *q++ = '\t';
    *q++ = (uint8_t)('0' + conv); /* conv_lut values are below 10 */
    *q++ = '\n';
    return (size_t)(q - p);
}

void hb_payload_gen_free(hb_payload_gen *g)
{
    free(g);
}

int hb_payload_gen_new(hb_payload_gen **out, uint64_t size, uint64_t seed)
{
    *out = NULL;
    hb_payload_gen *g = calloc(1, sizeof *g);
    if (!g)
        return HB_ENOMEM;
    g->size = size;
    g->rng = hb_prng_stream(seed, 1);
    g->id_key = hb_prng_stream(seed, 3);

    uint64_t t = HB_CLOCK_START + hb_prng_stream(seed, 4) % HB_CLOCK_SPREAD;
    for (int i = 9; i >= 0; i--) {
        g->clock[i] = (char)('0' + t % 10);
        t /= 10;
    }

    uint32_t w[HB_N_PATHS];
    for (size_t k = 0; k < HB_N_PATHS; k++) {
        size_t len = strlen(hb_paths[k]);
        /* the vocabulary is ours: HB_PATH_SLOT - 1 leaves room for the tab */
        if (len + 1 > HB_PATH_SLOT - 1)
            len = HB_PATH_SLOT - 2;
        memcpy(g->path_text[k], hb_paths[k], len);
        g->path_text[k][len] = '\t';
        g->path_len[k] = (uint8_t)(len + 1);
        w[k] = (uint32_t)(((uint32_t)1 << 20) / (k + 1));
    }
    hb_lut_fill(g->path_lut, HB_PATH_LUT_BITS, w, HB_N_PATHS);

    /* page views 1..40 with weight ~ 1/v; value 0 gets no weight */
    uint32_t wv[41];
    wv[0] = 0;
    for (uint32_t v = 1; v <= 40; v++)
        wv[v] = 1000 / v;
    hb_lut_fill(g->views_lut, HB_COUNT_LUT_BITS, wv, 41);

    /* conversions 0..5, mostly 0 */
    static const uint32_t wc[6] = {60, 20, 10, 5, 3, 2};
    hb_lut_fill(g->conv_lut, HB_COUNT_LUT_BITS, wc, 6);

    *out = g;
    return HB_OK;
}

void hb_payload_gen_read(hb_payload_gen *g, uint8_t *out, size_t cap, size_t *n)
{
    uint64_t left = g->size - g->produced;
    if (cap > left)
        cap = (size_t)left;
    uint8_t *p = out;
    uint8_t *end = out + cap;

    /* the rest of a row cut by the previous window */
    if (g->row_pos < g->row_len && p < end) {
        size_t k = (size_t)(g->row_len - g->row_pos);
        if (k > (size_t)(end - p))
            k = (size_t)(end - p);
        memcpy(p, g->row + g->row_pos, k);
        p += k;
        g->row_pos = (uint8_t)(g->row_pos + k);
        if (g->row_pos == g->row_len)
            g->rows++;
    }
    /* whole rows straight into the window */
    while ((size_t)(end - p) >= HB_ROW_MAX) {
        p += hb_row_write(g, p);
        g->rows++;
    }
    /* the tail: rows staged, then copied as far as the window goes */
    while (p < end) {
        g->row_len = (uint8_t)hb_row_write(g, g->row);
        size_t k = g->row_len;
        if (k > (size_t)(end - p))
            k = (size_t)(end - p);
        memcpy(p, g->row, k);
        p += k;
        g->row_pos = (uint8_t)k;
        if (g->row_pos == g->row_len)
            g->rows++;
    }
    g->produced += (uint64_t)(p - out);
    *n = (size_t)(p - out);
}

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
#define HB_SMALL_MAX 128         /* framing bytes pending: chunk line, CRLF, trailer, end */

enum hb_phase {
    HB_PH_LINE, /* next: decide the next chunk (or the last-chunk) */
    HB_PH_DATA, /* chunk-data of the current chunk */
    HB_PH_END,  /* the end (last-chunk, trailer, CRLF) is pending */
    HB_PH_DONE,
};

struct hb_chunked_gen {
    hb_chunked_params p;
    hb_payload_gen *pg;
    uint64_t chunk_rng;   /* the chunk-size stream */
    int phase;            /* enum hb_phase */
    uint64_t data_left;   /* chunk-data bytes left in the current chunk */
    uint64_t unassigned;  /* identity: payload bytes not yet given to a chunk */
    hb_chunked_info info; /* so far */
    uint32_t small_pos, small_len;
    uint8_t small[HB_SMALL_MAX];
    /* gzip only */
    int z_live; /* deflateInit2 succeeded: deflateEnd owed */
    int z_done; /* the gzip stream is complete in zbuf */
    z_stream zs;
    gz_header zh;
    uint8_t *zin;  /* payload bytes for deflate */
    uint8_t *zbuf; /* gzip bytes not yet framed: zbuf[zhead .. ztail) */
    size_t zcap, zhead, ztail;
};

/* The crc32 of len bytes folded into crc, fed to zlib in pieces its uInt can count. */
static uint32_t hb_crc_update(uint32_t crc, const uint8_t *p, size_t len)
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
    g->info.rows = g->pg->rows;
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
        if (g->pg->produced == g->pg->size)
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

/* ---- layer 3: whole bodies ------------------------------------------------------------------- */

#define HB_WRITE_BUF (256u << 10)
#define HB_PROGRESS_STEP ((uint64_t)64 << 20)

/* Calls progress when the payload has passed the next 64 MiB mark. */
static void hb_progress_maybe(hb_chunked_gen *g, hb_progress_fn progress, void *ctx, uint64_t *next)
{
    if (progress && g->info.size >= *next) {
        progress(ctx, g->info.size, g->p.size);
        *next = g->info.size + HB_PROGRESS_STEP;
    }
}

int hb_chunked_write(const hb_chunked_params *p, int fd, hb_progress_fn progress,
                     void *progress_ctx, hb_chunked_info *info)
{
    hb_chunked_gen *g;
    int rc = hb_chunked_gen_new(&g, p);
    if (rc != HB_OK)
        return rc;
    uint8_t *buf = malloc(HB_WRITE_BUF);
    if (!buf) {
        hb_chunked_gen_free(g);
        return HB_ENOMEM;
    }
    uint64_t next = HB_PROGRESS_STEP;
    for (;;) {
        size_t n;
        rc = hb_chunked_gen_read(g, buf, HB_WRITE_BUF, &n);
        if (rc != HB_OK || n == 0)
            break;
        if (hb_write_all(fd, buf, n) != 0) {
            rc = HB_EIO; /* errno kept */
            break;
        }
        hb_progress_maybe(g, progress, progress_ctx, &next);
    }
    if (rc == HB_OK && progress)
        progress(progress_ctx, g->info.size, g->p.size);
    if (info)
        hb_chunked_gen_info(g, info);
    int saved = errno;
    free(buf);
    hb_chunked_gen_free(g);
    errno = saved;
    return rc;
}

void hb_blob_free(hb_blob *b)
{
    if (!b)
        return;
    if (b->map_len_ > 0)
        munmap(b->base_, b->map_len_);
    else
        free(b->base_);
    memset(b, 0, sizeof *b);
}

int hb_payload_load(uint64_t size, uint64_t seed, hb_blob *payload)
{
    memset(payload, 0, sizeof *payload);
    if (size >= SIZE_MAX)
        return HB_ENOMEM;
    uint8_t *buf = malloc(size > 0 ? (size_t)size : 1);
    if (!buf)
        return HB_ENOMEM;
    hb_payload_gen *g;
    int rc = hb_payload_gen_new(&g, size, seed);
    if (rc != HB_OK) {
        free(buf);
        return rc;
    }
    size_t n;
    hb_payload_gen_read(g, buf, (size_t)size, &n);
    hb_payload_gen_free(g);
    payload->data = buf;
    payload->len = n;
    payload->base_ = buf;
    return HB_OK;
}

/* Generates the whole body into malloc'd memory (no cache). */
static int hb_chunked_build(const hb_chunked_params *p, hb_progress_fn progress, void *ctx,
                            hb_blob *body, hb_chunked_info *info)
{
    hb_chunked_gen *g;
    int rc = hb_chunked_gen_new(&g, p);
    if (rc != HB_OK)
        return rc;
    /* A first guess at the body size: the data plus at most 11 framing bytes per chunk (7 hex
     * digits for 2^24, two CRLFs) plus the end; gzip stays below the payload plus 1/32. Grown
     * by half if ever exceeded. */
    uint64_t data = p->size + (p->gzip_level >= 0 ? (p->size >> 5) + 1024 : 0);
    uint64_t guess = data + (data / p->chunk_min + 1) * 11 + HB_SMALL_MAX;
    if (guess >= SIZE_MAX / 2) {
        hb_chunked_gen_free(g);
        return HB_ENOMEM;
    }
    size_t cap = (size_t)guess;
    size_t len = 0;
    uint8_t *buf = malloc(cap);
    uint64_t next = HB_PROGRESS_STEP;
    rc = buf ? HB_OK : HB_ENOMEM;
    while (rc == HB_OK) {
        if (len == cap) {
            size_t ncap = cap + cap / 2 + 4096;
            uint8_t *nbuf = realloc(buf, ncap);
            if (!nbuf) {
                rc = HB_ENOMEM;
                break;
            }
            buf = nbuf;
            cap = ncap;
        }
        size_t n;
        rc = hb_chunked_gen_read(g, buf + len, cap - len, &n);
        if (rc != HB_OK || n == 0)
            break;
        len += n;
        hb_progress_maybe(g, progress, ctx, &next);
    }
    if (rc == HB_OK) {
        if (progress)
            progress(ctx, g->info.size, g->p.size);
        hb_chunked_gen_info(g, info);
        body->data = buf;
        body->len = len;
        body->base_ = buf;
    } else {
        free(buf);
    }
    hb_chunked_gen_free(g);
    return rc;
}

int hb_chunked_cache_name(const hb_chunked_params *p, char *buf, size_t cap)
{
    if (hb_chunked_params_check(p, NULL) != HB_OK)
        return HB_EINVAL;
    char coding[16];
    if (p->gzip_level < 0)
        snprintf(coding, sizeof coding, "identity");
    else
        snprintf(coding, sizeof coding, "gzip%d", p->gzip_level);
    int k =
        snprintf(buf, cap, "chunked-v%d-size%llu-chunk%lu-%lu-%s-trailer%d-seed%llu",
                 HB_GEN_FORMAT_VERSION, (unsigned long long)p->size, (unsigned long)p->chunk_min,
                 (unsigned long)p->chunk_max, coding, p->trailer != 0, (unsigned long long)p->seed);
    if (k < 0 || (size_t)k >= cap)
        return HB_EINVAL;
    return HB_OK;
}

/* The sidecar: the hb_chunked_info fields and checks of the body's ends, one "key value" line
 * each. */
#define HB_SIDECAR_MAGIC "hotbench chunked cache"
#define HB_EDGE ((size_t)64 << 10) /* bytes at each end of the body covered by a crc32 */

typedef struct hb_sidecar {
    hb_chunked_info info;
    uint32_t head_crc32; /* crc32 of the body's first min(HB_EDGE, body_size) bytes */
    uint32_t tail_crc32; /* crc32 of the body's last min(HB_EDGE, body_size) bytes */
} hb_sidecar;

static void hb_edges(const uint8_t *body, size_t len, uint32_t *head, uint32_t *tail)
{
    size_t k = len < HB_EDGE ? len : HB_EDGE;
    uint32_t zero = (uint32_t)crc32(0L, Z_NULL, 0);
    *head = hb_crc_update(zero, body, k);
    *tail = hb_crc_update(zero, body + len - k, k);
}

/* Reads a sidecar; returns 0 when it parses and has every field. */
static int hb_sidecar_read(const char *path, hb_sidecar *sc)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    unsigned seen = 0;
    int version = -1;
    if (fgets(line, sizeof line, f) && sscanf(line, HB_SIDECAR_MAGIC " v%d", &version) != 1)
        version = -1;
    while (version == HB_GEN_FORMAT_VERSION && fgets(line, sizeof line, f)) {
        char key[32], val[64];
        if (sscanf(line, "%31s %63s", key, val) != 2)
            continue;
        int hex = strstr(key, "crc32") != NULL; /* crc32, head_crc32, tail_crc32 are hex */
        char *endp;
        errno = 0;
        unsigned long long v = strtoull(val, &endp, hex ? 16 : 10);
        if (errno != 0 || *endp != '\0' || endp == val)
            continue;
        if (strcmp(key, "size") == 0) {
            sc->info.size = v;
            seen |= 1u << 0;
        } else if (strcmp(key, "crc32") == 0 && v <= 0xffffffffu) {
            sc->info.crc32 = (uint32_t)v;
            seen |= 1u << 1;
        } else if (strcmp(key, "body_size") == 0) {
            sc->info.body_size = v;
            seen |= 1u << 2;
        } else if (strcmp(key, "chunks") == 0) {
            sc->info.chunks = v;
            seen |= 1u << 3;
        } else if (strcmp(key, "gzip_size") == 0) {
            sc->info.gzip_size = v;
            seen |= 1u << 4;
        } else if (strcmp(key, "rows") == 0) {
            sc->info.rows = v;
            seen |= 1u << 5;
        } else if (strcmp(key, "head_crc32") == 0 && v <= 0xffffffffu) {
            sc->head_crc32 = (uint32_t)v;
            seen |= 1u << 6;
        } else if (strcmp(key, "tail_crc32") == 0 && v <= 0xffffffffu) {
            sc->tail_crc32 = (uint32_t)v;
            seen |= 1u << 7;
        }
    }
    fclose(f);
    return seen == 0xffu ? 0 : -1;
}

/* Writes a sidecar to path. Returns HB_OK or HB_EIO (errno). */
static int hb_sidecar_write(const char *path, const hb_sidecar *sc)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return HB_EIO;
    fprintf(f, "%s v%d\n", HB_SIDECAR_MAGIC, HB_GEN_FORMAT_VERSION);
    fprintf(f, "size %llu\n", (unsigned long long)sc->info.size);
    fprintf(f, "crc32 %08lx\n", (unsigned long)sc->info.crc32);
    fprintf(f, "body_size %llu\n", (unsigned long long)sc->info.body_size);
    fprintf(f, "chunks %llu\n", (unsigned long long)sc->info.chunks);
    fprintf(f, "gzip_size %llu\n", (unsigned long long)sc->info.gzip_size);
    fprintf(f, "rows %llu\n", (unsigned long long)sc->info.rows);
    fprintf(f, "head_crc32 %08lx\n", (unsigned long)sc->head_crc32);
    fprintf(f, "tail_crc32 %08lx\n", (unsigned long)sc->tail_crc32);
    fprintf(f, "zlib %s\n", zlibVersion());
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        if (bad)
            errno = EIO;
        return HB_EIO;
    }
    return HB_OK;
}

/* Maps the cached body at path if the sidecar at info_path vouches for it: the sidecar parses,
 * its payload size is the one asked for, the file's size is its body_size and both ends of the
 * body match their crc32. Returns HB_OK, or HB_EIO when there is no usable cache entry. */
static int hb_cache_open(const char *path, const char *info_path, uint64_t size, hb_blob *body,
                         hb_chunked_info *info)
{
    hb_sidecar sc;
    memset(&sc, 0, sizeof sc);
    if (hb_sidecar_read(info_path, &sc) != 0 || sc.info.size != size)
        return HB_EIO;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return HB_EIO;
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != sc.info.body_size || st.st_size == 0 ||
        (uint64_t)st.st_size >= SIZE_MAX) {
        close(fd);
        return HB_EIO;
    }
    size_t len = (size_t)st.st_size;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return HB_EIO;
    uint32_t head, tail;
    hb_edges(m, len, &head, &tail);
    if (head != sc.head_crc32 || tail != sc.tail_crc32) {
        munmap(m, len);
        return HB_EIO;
    }
    body->data = m;
    body->len = len;
    body->base_ = m;
    body->map_len_ = len;
    *info = sc.info;
    return HB_OK;
}

/* mkdir -p: creates dir and its missing parents. Returns HB_OK or HB_EIO (errno). */
static int hb_mkdirs(const char *dir)
{
    size_t len = strlen(dir);
    char *tmp = malloc(len + 1);
    if (!tmp)
        return HB_ENOMEM;
    memcpy(tmp, dir, len + 1);
    int rc = HB_OK;
    for (size_t i = 1; i <= len && rc == HB_OK; i++) {
        if (tmp[i] != '/' && tmp[i] != '\0')
            continue;
        char c = tmp[i];
        tmp[i] = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            rc = HB_EIO;
        tmp[i] = c;
    }
    free(tmp);
    if (rc == HB_OK) {
        struct stat st;
        if (stat(dir, &st) != 0)
            return HB_EIO;
        if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return HB_EIO;
        }
    }
    return rc;
}

/* Generates the body into a temporary file beside path, then renames it and its sidecar into
 * place. Returns HB_OK or an hb_err (HB_EIO with errno). */
static int hb_cache_fill(const hb_chunked_params *p, const char *path, const char *info_path,
                         hb_progress_fn progress, void *ctx)
{
    size_t plen = strlen(path) + 32;
    char *tmp = malloc(plen);
    char *tmp_info = malloc(plen);
    int rc = HB_ENOMEM;
    int fd = -1;
    hb_sidecar sc;
    void *m;
    memset(&sc, 0, sizeof sc);
    if (!tmp || !tmp_info)
        goto out;
    snprintf(tmp, plen, "%s.tmp.%ld", path, (long)getpid());
    snprintf(tmp_info, plen, "%s.tmp.%ld", info_path, (long)getpid());
    fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644); /* RDWR: mapped below */
    rc = HB_EIO;
    if (fd < 0)
        goto out;
    rc = hb_chunked_write(p, fd, progress, ctx, &sc.info);
    if (rc != HB_OK)
        goto out;
    /* the ends of what was written, read back through a mapping */
    m = mmap(NULL, (size_t)sc.info.body_size, PROT_READ, MAP_SHARED, fd, 0);
    rc = HB_EIO;
    if (m == MAP_FAILED)
        goto out;
    hb_edges(m, (size_t)sc.info.body_size, &sc.head_crc32, &sc.tail_crc32);
    munmap(m, (size_t)sc.info.body_size);
    int c = close(fd);
    fd = -1;
    if (c != 0)
        goto out;
    rc = hb_sidecar_write(tmp_info, &sc);
    if (rc != HB_OK)
        goto out;
    /* body first: a body without its sidecar is never trusted */
    if (rename(tmp, path) != 0 || rename(tmp_info, info_path) != 0) {
        rc = HB_EIO;
        goto out;
    }
    rc = HB_OK;
out:;
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (rc != HB_OK && tmp) {
        unlink(tmp);
        if (tmp_info)
            unlink(tmp_info);
    }
    free(tmp);
    free(tmp_info);
    errno = saved;
    return rc;
}

int hb_chunked_load(const hb_chunked_params *p, const char *cache_dir, hb_progress_fn progress,
                    void *progress_ctx, hb_blob *body, hb_chunked_info *info)
{
    memset(body, 0, sizeof *body);
    memset(info, 0, sizeof *info);
    if (hb_chunked_params_check(p, NULL) != HB_OK)
        return HB_EINVAL;
    if (!cache_dir)
        return hb_chunked_build(p, progress, progress_ctx, body, info);

    char name[160];
    int rc = hb_chunked_cache_name(p, name, sizeof name);
    if (rc != HB_OK)
        return rc;
    size_t plen = strlen(cache_dir) + strlen(name) + 8;
    char *path = malloc(plen);
    char *info_path = malloc(plen);
    rc = HB_ENOMEM;
    if (!path || !info_path)
        goto out;
    snprintf(path, plen, "%s/%s.body", cache_dir, name);
    snprintf(info_path, plen, "%s/%s.info", cache_dir, name);

    rc = hb_cache_open(path, info_path, p->size, body, info);
    if (rc == HB_OK) {
        if (progress)
            progress(progress_ctx, p->size, p->size);
        goto out;
    }
    rc = hb_mkdirs(cache_dir);
    if (rc != HB_OK)
        goto out;
    rc = hb_cache_fill(p, path, info_path, progress, progress_ctx);
    if (rc != HB_OK)
        goto out;
    rc = hb_cache_open(path, info_path, p->size, body, info);
out:;
    int saved = errno;
    free(path);
    free(info_path);
    errno = saved;
    return rc;
}

/* chunked_rows.c - layer 1 of the chunked generator (hb_gen.h): the payload, an infinite stream of
 * synthetic website-visit TSV rows, of which the payload of size N is the first N bytes (the last
 * row cut where N ends); hb_payload_gen_new/read/free. The chunk framing is chunked_frame.c's,
 * whole bodies chunked_cache.c's (see chunked_impl.h).
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
#include "hb_prng.h"
#include "chunked_impl.h"

#include <stdlib.h>
#include <string.h>

/* The PRNG (hb_prng.h): independent streams hb_prng_stream(seed, k), k = 1 the content, 2 the
 * chunk sizes (chunked_frame.c), 3 the user-id hash key, 4 the clock's start, so changing the
 * chunk sizes never changes the payload. */

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

const char hb_hex_digits[17] = "0123456789abcdef";

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

uint64_t hb_payload_gen_rows(const hb_payload_gen *g)
{
    return g->rows;
}

uint64_t hb_payload_gen_left(const hb_payload_gen *g)
{
    return g->size - g->produced;
}

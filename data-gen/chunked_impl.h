/* chunked_impl.h - private to data-gen's chunked generator (hb_gen.h): what its three files share.
 *
 * The generator is three layers, each a stream with zlib's read-into-your-window shape, one file
 * each:
 *   1. chunked_rows.c: the payload, an infinite stream of TSV rows, of which the payload of size N
 *      is the first N bytes (the last row cut where N ends);
 *   2. chunked_frame.c: the chunked body (RFC 9112 section 7.1): chunk-size lines in lowercase
 *      hex, chunk-data, CRLF, the last-chunk, an optional trailer section, the final CRLF; the
 *      chunk-data is the payload itself (identity) or a gzip stream of it made by zlib (RFC 1952);
 *   3. chunked_cache.c: whole bodies: written to a file descriptor, built in memory, or cached on
 *      disk and mapped.
 * Layer 3 reads the chunked generator's state (its info so far) directly, hence its struct here;
 * layer 2 sees the payload generator only through the two accessors below.
 * Not a public header: only those three files include it.
 */
#ifndef HB_CHUNKED_IMPL_H
#define HB_CHUNKED_IMPL_H

#include "hb_gen.h"

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/* "0123456789abcdef" (chunked_rows.c): the user ids, the chunk-size lines, the trailer's crc32. */
extern const char hb_hex_digits[17];

/* ---- layer 1: the payload (chunked_rows.c) --------------------------------------------------- */

/* Newline-terminated rows g has handed out so far (a row cut by the last window not counted). */
uint64_t hb_payload_gen_rows(const hb_payload_gen *g);

/* Payload bytes g has still to hand out: 0 once the whole payload is out. */
uint64_t hb_payload_gen_left(const hb_payload_gen *g);

/* ---- layer 2: the chunked body (chunked_frame.c) --------------------------------------------- */

/* The crc32 of len bytes at p folded into crc (zlib's crc32, fed in pieces its uInt can count).
 * Start from crc32(0L, Z_NULL, 0). */
uint32_t hb_crc_update(uint32_t crc, const uint8_t *p, size_t len);

#define HB_SMALL_MAX 128 /* framing bytes pending: chunk line, CRLF, trailer, end */

/* Where a chunked body's stream stands. */
enum hb_phase {
    HB_PH_LINE, /* next: decide the next chunk (or the last-chunk) */
    HB_PH_DATA, /* chunk-data of the current chunk */
    HB_PH_END,  /* the end (last-chunk, trailer, CRLF) is pending */
    HB_PH_DONE,
};

/* A chunked body in the making (hb_chunked_gen_new .. _free): layer 2's state; layer 3 reads p and
 * info (the description so far) to report progress. */
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

#endif /* HB_CHUNKED_IMPL_H */

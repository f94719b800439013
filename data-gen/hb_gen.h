/* hb_gen.h - deterministic generators of hotbench's inputs.
 *
 * The chunked generator writes the raw message body of an HTTP/1.1 response sent with
 * Transfer-Encoding: chunked (RFC 9112 section 7.1): lowercase hex chunk-size lines, CRLF, the
 * chunk-data, CRLF, the last-chunk "0", an optional trailer section, the final CRLF. The content
 * (the decoded payload) is synthetic tab-separated rows shaped like an ad platform's website-visit
 * export - "<16 hex user id>\t<unix seconds>\t<url path>\t<count>\t<count>\n" - so that gzip
 * compresses it as it does real data. With gzip the chunks carry a gzip stream made by zlib
 * (Content-Encoding: gzip) of that payload.
 *
 * Everything follows from the parameters: same parameters, same bytes, on every machine. The
 * PRNG is the generator's own (splitmix64); no rand(), no time.
 */
#ifndef HB_GEN_H
#define HB_GEN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HB_GEN_DEFAULT_SEED 20210304u
#define HB_GEN_DEFAULT_SIZE 1700000000u /* decoded bytes: the incident's 1.7 GB */
#define HB_GEN_DEFAULT_CHUNK_MIN 4096u
#define HB_GEN_DEFAULT_CHUNK_MAX 16384u

typedef struct hb_chunked_params {
    uint64_t size;      /* decoded payload bytes (after dechunking and gunzip) */
    uint32_t chunk_min; /* chunk-data bytes per chunk, drawn uniformly in [chunk_min, chunk_max] */
    uint32_t chunk_max; /* (equal for a fixed size); 1 <= chunk_min <= chunk_max <= 2^24 */
    int gzip_level;     /* -1: identity; 0 to 9: the body carries a gzip stream of that level */
    int trailer;        /* nonzero: end with a trailer section of two fields */
    uint64_t seed;
} hb_chunked_params;

/* What a generated body is: filled in as generation proceeds, final once it has ended. */
typedef struct hb_chunked_info {
    uint64_t size;      /* decoded payload bytes */
    uint32_t crc32;     /* zlib crc32 of the decoded payload */
    uint64_t body_size; /* bytes of the chunked body */
    uint64_t chunks;    /* chunks before the last-chunk */
    uint64_t gzip_size; /* bytes of the gzip stream (0 for identity) */
} hb_chunked_info;

/* Sets *p to the defaults: 1.7 GB, chunks of 4096 to 16384 bytes, identity, no trailer, the
 * default seed. */
void hb_chunked_params_default(hb_chunked_params *p);

/* Checks *p. Returns HB_OK or HB_EINVAL with a static reason in *why. */
int hb_chunked_params_check(const hb_chunked_params *p, const char **why);

/* --- the payload: the decoded content alone ---------------------------------------------- */

typedef struct hb_payload_gen hb_payload_gen;

/* Starts the payload stream for (size, seed). Returns HB_OK or HB_ENOMEM. Free with
 * hb_payload_gen_free. */
int hb_payload_gen_new(hb_payload_gen **g, uint64_t size, uint64_t seed);

/* Writes the next min(cap, bytes left) payload bytes to out; *n receives the count, 0 at the end.
 * Throughput goal: 500 MB/s or more. */
void hb_payload_gen_read(hb_payload_gen *g, uint8_t *out, size_t cap, size_t *n);
void hb_payload_gen_free(hb_payload_gen *g);

/* --- the chunked body ---------------------------------------------------------------------- */

typedef struct hb_chunked_gen hb_chunked_gen;

/* Starts a chunked body for *p. Returns HB_OK, HB_EINVAL (bad parameters), HB_ENOMEM or
 * HB_EZLIB. Free with hb_chunked_gen_free. */
int hb_chunked_gen_new(hb_chunked_gen **g, const hb_chunked_params *p);

/* Writes the next min(cap, bytes left) body bytes to out; *n receives the count, 0 at the end.
 * Returns HB_OK or HB_EZLIB. */
int hb_chunked_gen_read(hb_chunked_gen *g, uint8_t *out, size_t cap, size_t *n);

/* The body's description so far; complete once hb_chunked_gen_read has returned *n == 0. */
void hb_chunked_gen_info(const hb_chunked_gen *g, hb_chunked_info *info);
void hb_chunked_gen_free(hb_chunked_gen *g);

/* --- whole bodies in memory, cached on disk ------------------------------------------------ */

/* A read-only byte range owned by whoever holds the hb_blob: malloc'd or a file mapping. */
typedef struct hb_blob {
    const uint8_t *data;
    size_t len;
    void *base_; /* private: what to free or unmap */
    size_t map_len_;
} hb_blob;

/* Called now and then during long generation: done and total in decoded payload bytes. */
typedef void (*hb_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Gives the chunked body for *p in *body and its description in *info.
 * cache_dir NULL: generated into malloc'd memory. Otherwise the body is looked up in cache_dir
 * under a file name made of every parameter (and a format version); when absent it is generated
 * into a temporary file there, renamed into place when complete, and then mapped read-only with
 * its pages populated. The cache_dir is created if missing. progress may be NULL.
 * Returns HB_OK, HB_EINVAL, HB_ENOMEM, HB_EIO (errno kept) or HB_EZLIB. Release with
 * hb_blob_free. */
int hb_chunked_load(const hb_chunked_params *p, const char *cache_dir, hb_progress_fn progress,
                    void *progress_ctx, hb_blob *body, hb_chunked_info *info);

/* Gives the decoded payload for (size, seed) in malloc'd memory. Returns HB_OK or HB_ENOMEM. */
int hb_payload_load(uint64_t size, uint64_t seed, hb_blob *payload);

/* Releases what a loader gave; leaves *b empty. Safe on an empty blob. */
void hb_blob_free(hb_blob *b);

#ifdef __cplusplus
}
#endif

#endif /* HB_GEN_H */

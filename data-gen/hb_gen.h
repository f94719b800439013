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
 * Everything follows from the parameters: same parameters, same bytes, on every machine (the
 * gzip variant: with the same zlib; the decoded payload and its crc32 never depend on zlib). The
 * PRNG is the generator's own (splitmix64); no rand(), no time. The content, the chunk sizes and
 * the user-id hash are separate streams of it, so changing the chunk sizes or the gzip level never
 * changes the payload, and the payload of size N is the first N bytes of the payload of any
 * larger size (the rows are an infinite stream; the last row is cut where N ends).
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
#define HB_GEN_CHUNK_LIMIT (1u << 24) /* largest chunk_max accepted */
#define HB_GEN_FORMAT_VERSION 1       /* bumped whenever the bytes for given parameters change */

typedef struct hb_chunked_params {
    uint64_t size;      /* decoded payload bytes (after dechunking and gunzip) */
    uint32_t chunk_min; /* chunk-data bytes per chunk, drawn uniformly in [chunk_min, chunk_max] */
    uint32_t chunk_max; /* (equal for a fixed size); 1 <= chunk_min <= chunk_max <= 2^24 */
    int gzip_level;     /* -1: identity; 0 to 9: the body carries a gzip stream of that level */
    int trailer;        /* nonzero: end with a trailer section of two fields:
                         * "X-Checksum-Crc32: <8 lowercase hex>" (the info's crc32) and
                         * "X-Rows: <decimal>" (the info's rows) */
    uint64_t seed;
} hb_chunked_params;

/* What a generated body is: filled in as generation proceeds, final once it has ended. */
typedef struct hb_chunked_info {
    uint64_t size;      /* decoded payload bytes */
    uint32_t crc32;     /* zlib crc32 of the decoded payload */
    uint64_t body_size; /* bytes of the chunked body */
    uint64_t chunks;    /* chunks before the last-chunk */
    uint64_t gzip_size; /* bytes of the gzip stream (0 for identity) */
    uint64_t rows;      /* newline-terminated rows in the payload (a cut last row not counted) */
} hb_chunked_info;

/* Sets *p to the defaults: 1.7 GB, chunks of 4096 to 16384 bytes, identity, no trailer, the
 * default seed. */
void hb_chunked_params_default(hb_chunked_params *p);

/* Checks *p (NULL is refused): 1 <= chunk_min <= chunk_max <= HB_GEN_CHUNK_LIMIT, gzip_level in
 * -1 .. 9; any size and seed. Returns HB_OK (and *why = NULL) or HB_EINVAL with a static reason
 * in *why. why may be NULL. */
int hb_chunked_params_check(const hb_chunked_params *p, const char **why);

/* --- the payload: the decoded content alone ---------------------------------------------- */

typedef struct hb_payload_gen hb_payload_gen;

/* Starts the payload stream for (size, seed): rows
 * "<16 hex user id>\t<unix seconds, 2023>\t<url path>\t<page views>\t<conversions>\n", sorted by
 * time, user ids skewed, paths Zipf-distributed over a fixed vocabulary. Returns HB_OK or
 * HB_ENOMEM (*g is then NULL). Free with hb_payload_gen_free. */
int hb_payload_gen_new(hb_payload_gen **g, uint64_t size, uint64_t seed);

/* Writes the next min(cap, bytes left) payload bytes to out; *n receives the count, 0 at the end.
 * Any cap from 1 byte up gives the same stream (cap 0 gives *n == 0, which is not the end).
 * Throughput goal: 500 MB/s or more (about 3.5 GB/s measured on the project's VM). */
void hb_payload_gen_read(hb_payload_gen *g, uint8_t *out, size_t cap, size_t *n);

/* Frees g and everything it holds. Safe on NULL. */
void hb_payload_gen_free(hb_payload_gen *g);

/* --- the chunked body ---------------------------------------------------------------------- */

typedef struct hb_chunked_gen hb_chunked_gen;

/* Starts a chunked body for *p (copied). Chunk sizes are drawn uniformly in [chunk_min,
 * chunk_max] and cover the payload (identity) or the gzip stream; the last data chunk may be
 * shorter. The gzip stream is zlib's deflate with a gzip wrapper (windowBits 16 + 15, memLevel 8,
 * header mtime 0 and OS 3 as nginx sends it). Returns HB_OK, HB_EINVAL (bad parameters),
 * HB_ENOMEM or HB_EZLIB (*g is then NULL). Free with hb_chunked_gen_free. */
int hb_chunked_gen_new(hb_chunked_gen **g, const hb_chunked_params *p);

/* Writes the next min(cap, bytes left) body bytes to out; *n receives the count, 0 at the end.
 * Any cap from 1 byte up gives the same body (cap 0 gives *n == 0, which is not the end).
 * Returns HB_OK or HB_EZLIB. */
int hb_chunked_gen_read(hb_chunked_gen *g, uint8_t *out, size_t cap, size_t *n);

/* The body's description so far; complete once hb_chunked_gen_read has returned *n == 0. */
void hb_chunked_gen_info(const hb_chunked_gen *g, hb_chunked_info *info);

/* Frees g and everything it holds. Safe on NULL. */
void hb_chunked_gen_free(hb_chunked_gen *g);

/* --- whole bodies in memory, cached on disk ------------------------------------------------ */

/* A read-only byte range owned by whoever holds the hb_blob: malloc'd or a file mapping. */
typedef struct hb_blob {
    const uint8_t *data;
    size_t len;
    void *base_; /* private: what to free or unmap */
    size_t map_len_;
} hb_blob;

/* Called every 64 MiB of decoded payload during generation and once at the end with
 * done == total (also when a cached body is found): done and total in decoded payload bytes. */
typedef void (*hb_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Writes the whole chunked body for *p to the file descriptor fd (from its current position),
 * fills *info (if not NULL) with its description. progress may be NULL. Returns HB_OK, HB_EINVAL,
 * HB_ENOMEM, HB_EZLIB or HB_EIO (a write failed; errno kept). On error the file holds a prefix.
 * This is what `hotbench-gen chunked` runs. */
int hb_chunked_write(const hb_chunked_params *p, int fd, hb_progress_fn progress,
                     void *progress_ctx, hb_chunked_info *info);

/* Writes to buf (cap bytes) the cache file name for *p without directory or extension, e.g.
 * "chunked-v1-size1700000000-chunk4096-16384-identity-trailer0-seed20210304" ("gzip1" in place of
 * "identity" for level 1). The body is <name>.body, its sidecar <name>.info. Returns HB_OK, or
 * HB_EINVAL for bad parameters or a buffer too small (128 bytes always suffice). */
int hb_chunked_cache_name(const hb_chunked_params *p, char *buf, size_t cap);

/* Gives the chunked body for *p in *body and its description in *info.
 * cache_dir NULL: generated into malloc'd memory. Otherwise the body is looked up in cache_dir
 * under a file name made of every parameter (and a format version; see hb_chunked_cache_name);
 * when absent it is generated into a temporary file there by a forked child process, renamed
 * into place when complete, and then mapped read-only with its pages populated. The child keeps
 * the making's allocations out of the caller's heap, so that a hit and a miss leave the same
 * malloc layout (one difference stays: after the fork, each page the caller had written faults
 * once more when next written, copy-on-write); when pipe or fork fails the body is made in
 * this process. The progress calls before the end then run in the child: what they write to
 * memory is lost to the caller (write to a file descriptor instead), and the last call,
 * done == total, is the caller's, once the body is there. The cache_dir is created if missing
 * (with its parents). A cached body is trusted when its sidecar (<name>.info, a text file of the
 * info fields) parses, its body_size equals the file's size and the crc32 of the body's first
 * and last 64 KiB match the sidecar's; otherwise it is regenerated. progress may be NULL.
 * Returns HB_OK, HB_EINVAL, HB_ENOMEM, HB_EIO (errno kept; EIO when the child died without a
 * word) or HB_EZLIB. Release with hb_blob_free. */
int hb_chunked_load(const hb_chunked_params *p, const char *cache_dir, hb_progress_fn progress,
                    void *progress_ctx, hb_blob *body, hb_chunked_info *info);

/* Gives the decoded payload for (size, seed) in malloc'd memory: the bytes that the chunked body
 * of any chunk sizes and coding with that size and seed decodes to. Returns HB_OK or HB_ENOMEM.
 * Release with hb_blob_free. */
int hb_payload_load(uint64_t size, uint64_t seed, hb_blob *payload);

/* Turns a file mapping (a cached body of hb_chunked_load) into a malloc'd copy of its bytes and
 * unmaps the file, so that the bytes live in anonymous memory as a generated body's do; a
 * malloc'd or empty blob is left as it is. Returns HB_OK, or HB_ENOMEM with *b unchanged. */
int hb_blob_to_memory(hb_blob *b);

/* Releases what a loader gave; leaves *b empty. Safe on an empty blob. */
void hb_blob_free(hb_blob *b);

#ifdef __cplusplus
}
#endif

#endif /* HB_GEN_H */

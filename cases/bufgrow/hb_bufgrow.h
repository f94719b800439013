/* hb_bufgrow.h - growth strategies for reading a body of unknown length into one byte array.
 *
 * Incident 1 of DESIGN.md: Apache httpcore 4.4 EntityUtils.toByteArray reads a chunked body of
 * unknown length in reads of at most 4096 bytes into a ByteArrayBuffer whose capacity is a
 * 32-bit signed int; the doubling overflows at 2^30 and the growth becomes additive: O(n^2)
 * copying. A sink is one growth strategy: it receives the reads (hb_sink_append) and ends with
 * the whole body contiguous in memory (hb_sink_finish). Every sink counts the work its policy
 * does (hb_sink_stats), and every policy can compute those counts for a given size without
 * copying (hb_sink_plan): the dry run the benchmark budget predicts from.
 *
 * Memory: allocate-copy-free strategies use malloc/free, as the JVM's new byte[] does (never
 * realloc, which glibc serves by mremap above the mmap threshold without copying). The realloc
 * strategies use realloc on purpose, to show what glibc does.
 *
 * In builds with AddressSanitizer, hb_sink_finish poisons the bytes of the result's block past
 * its length, so a consumer reading past hb_sink_data's length is caught even where the sink's
 * capacity is larger than the body.
 */
#ifndef HB_BUFGROW_H
#define HB_BUFGROW_H

#include <stddef.h>
#include <stdint.h>

#include "hb_dechunk.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HB_READ_SIZE_DEFAULT 4096u   /* bytes per read: InputStream.read(byte[4096]) */
#define HB_HTTPCORE_INITIAL 4096u    /* ByteArrayBuffer's initial capacity without length */
#define HB_BLOCK_SIZE_DEFAULT 8192u  /* JDK 11 InputStream.readAllBytes block size */
#define HB_SDS_MAX_PREALLOC 1048576u /* Redis sds: double below 1 MiB, then add 1 MiB */
#define HB_CAPACITY_BITS_DEFAULT 32  /* httpcore: a Java int */
#define HB_RESERVE_DEFAULT (UINT64_C(64) << 30) /* mmap-reserve: 64 GiB of address space */

/* The work a sink did (or, from hb_sink_plan, would do). Units are bytes or counts. Only the
 * body's bytes are counted: the block-list's array of block pointers is bookkeeping, not counted.
 *   bytes_copied   bytes moved from one block to another: len bytes per allocate-copy-free
 *                  growth, httpcore's final toByteArray copy, block-list's gather. For the
 *                  realloc strategies it counts len bytes per growth, what realloc would copy if
 *                  it moved the block by copying: an upper bound, since glibc grows blocks above
 *                  the mmap threshold by mremap (no copy); the benchmark's time shows which.
 *   growths        capacity increases after the first allocation: reallocations, new blocks of
 *                  block-list, mprotect commits of mmap-reserve after the first.
 *   allocations    malloc, realloc, mmap and mprotect calls that obtain memory for the body (the
 *                  first block, every growth, the final copy; mmap-reserve: the reservation and
 *                  every commit).
 *   peak_capacity  largest capacity of the growing array (block-list: blocks x block size;
 *                  mmap-reserve: bytes committed).
 *   peak_footprint largest number of bytes held at once: old + new block during a growth (also
 *                  for realloc: an upper bound, as bytes_copied), growing array + final array
 *                  during httpcore's toByteArray and block-list's gather. */
typedef struct hb_sink_stats {
    uint64_t bytes_appended; /* bytes handed to hb_sink_append */
    uint64_t bytes_copied;   /* bytes moved between blocks: growth copies and the final gather */
    uint64_t growths;        /* times the capacity was increased (not the first allocation) */
    uint64_t allocations;    /* calls to malloc, realloc or mmap/mprotect commits */
    uint64_t peak_capacity;  /* largest capacity of the growing array, in bytes */
    uint64_t peak_footprint; /* largest bytes held at once (old + new during a copy) */
} hb_sink_stats;

/* Parameters every strategy reads the ones it needs from. Zero fields take the defaults. */
typedef struct hb_sink_config {
    /* exact: the Content-Length. 0 means a known length of 0: any byte appended is HB_ELIMIT. */
    uint64_t size_hint;
    /* The size of the reads (the R of the pipeline), in bytes; default 4096. Appends may be of
     * any size; hb_sink_plan assumes appends of exactly read_size (the last one shorter). */
    uint32_t read_size;
    /* httpcore: width of the signed int in which capacity << 1 is computed, 8 to 64; default 32.
     * The width moves only the overflow of the shift (to 2^(bits-2)), so the cliff can be shown
     * at small sizes (24 bits: at 4 MiB); the Java array limit on the length stays 2^31 - 1
     * (2^(bits-1) - 1 for widths above 32). Other values are HB_EINVAL. */
    int capacity_bits;
    /* httpcore, additive, doubling, growth-1.5, block-list: zero new arrays as the JVM's new
     * byte[] does, except the part the growth's own copy fills at once (HotSpot's C2 elides that
     * zeroing). Off by default: a C program does not pay it. */
    int zero_fill;
    /* block-list: bytes per block; default 8192. */
    uint32_t block_size;
    /* mmap-reserve: address space reserved up front, in bytes; default 64 GiB. Rounded up to the
     * commit granularity (64 KiB; 2 MiB for mmap-reserve-huge). If the kernel refuses it, init
     * halves it down to 1 GiB (or the requested size if smaller); appends past what was reserved
     * are HB_ENOMEM. */
    uint64_t reserve;
} hb_sink_config;

struct hb_sink_strategy;

/* A sink: one strategy's state. The fields are private to bufgrow.c, except stats, which the
 * caller may read at any time. */
typedef struct hb_sink {
    const struct hb_sink_strategy *strategy;
    hb_sink_config cfg;  /* normalised: defaults filled in, reserve as actually reserved */
    int policy;          /* the growth arithmetic (private enum in bufgrow.c) */
    int finished;        /* hb_sink_finish has succeeded: appends are HB_EINVAL */
    uint8_t *buf;        /* the growing array, block-list's current block, the mapping */
    uint64_t len;        /* bytes held */
    uint64_t cap;        /* bytes the append fast path may fill up to (block-list: in buf);
                            set to len by hb_sink_finish */
    uint64_t size;       /* bytes allocated at buf (mmap-reserve: committed) */
    uint64_t used;       /* block-list: bytes in the current block */
    uint8_t **blocks;    /* block-list: every block, the current one last */
    uint64_t nblocks;    /* block-list: how many */
    uint64_t blocks_cap; /* block-list: room in blocks[] (grows by doubling) */
    uint64_t reserved;   /* mmap-reserve: bytes of address space mapped at buf */
    uint8_t *result;     /* the contiguous result once finished (may be buf) */
    uint64_t block;      /* httpcore-heap: bytes of the heap block at buf (>= size) */
    uint8_t *spare;      /* httpcore-heap: a dead array's block kept for reuse, or NULL */
    uint64_t spare_size; /* its bytes */
    hb_sink_stats stats;
} hb_sink;

/* One row of the strategy registry. The function pointers are called through the hb_sink_*
 * functions below, which check their arguments. */
typedef struct hb_sink_strategy {
    const char *name;        /* e.g. "httpcore"; the benchmark and --strategy name */
    const char *desc;        /* one line: the policy and the library it models */
    int (*init)(hb_sink *s); /* s zeroed, strategy and normalised cfg set: first allocation */
    int (*append)(hb_sink *s, const uint8_t *p, size_t n);
    int (*finish)(hb_sink *s);
    void (*release)(hb_sink *s);
    int (*plan)(const struct hb_sink_strategy *st, const hb_sink_config *cfg, uint64_t total,
                hb_sink_stats *out);
    int policy;     /* the growth rule: a private enum of bufgrow.c that init and plan read */
    int complexity; /* expected growth of time with size: 1 linear, 2 quadratic (past a point) */
    int uses_realloc; /* 1: growth is realloc, so bytes_copied is an upper bound (glibc moves
                       * blocks above the mmap threshold with mremap, copying nothing) */
} hb_sink_strategy;

/* The registry, in presentation order (exact first: the lower bound). */
extern const hb_sink_strategy hb_sink_strategies[];
extern const size_t hb_sink_strategy_count;

/* The row named name, or NULL (also for a NULL name). */
const hb_sink_strategy *hb_sink_find(const char *name);

/* Prepares *s for strategy st with *cfg (NULL: defaults); allocates the first block as the
 * modelled library does. Returns HB_OK, HB_EINVAL (NULL s or st, bad config) or HB_ENOMEM.
 * Release with hb_sink_release even after an error. */
int hb_sink_init(hb_sink *s, const hb_sink_strategy *st, const hb_sink_config *cfg);

/* Appends the n bytes at p (n <= read_size is what the pipeline does; larger n is allowed; n = 0
 * does nothing). Returns HB_OK, HB_ENOMEM (also: past mmap-reserve's reservation), HB_ELIMIT
 * (exact: more than size_hint; httpcore: past the 2^31 - 1 limit of a Java array), or HB_EINVAL
 * (after hb_sink_finish). On an error nothing was appended and the stats are unchanged. The
 * fits-in-capacity case is a memcpy and two additions; growth is out of line. */
static inline int hb_sink_append(hb_sink *s, const uint8_t *p, size_t n);

/* Ends the body: afterwards hb_sink_data gives all appended bytes contiguous. Strategies that
 * keep a final copy (httpcore's toByteArray, block-list's gather) make it here. Returns HB_OK,
 * HB_ENOMEM or HB_EINVAL (never initialised). A second call does nothing and returns HB_OK. */
int hb_sink_finish(hb_sink *s);

/* After hb_sink_finish: the contiguous bytes, *len of them (never NULL then, also for 0 bytes).
 * Owned by the sink: valid until hb_sink_release. Before hb_sink_finish: NULL and *len = 0. */
const uint8_t *hb_sink_data(const hb_sink *s, uint64_t *len);

/* Frees everything the sink holds and zeroes *s; *s may be initialised again. Safe after any
 * error, twice, and on a zeroed struct. */
void hb_sink_release(hb_sink *s);

/* Dry run: the stats strategy st would report for total bytes arriving in appends of exactly
 * read_size bytes (the last one shorter), including hb_sink_finish, without allocating or copying:
 * equal field for field to a real run's. Returns HB_OK, HB_EINVAL (NULL st or out, bad config) or
 * the error the real run would meet (HB_ELIMIT; HB_ENOMEM past mmap-reserve's reserve); on an
 * error *out is zeroed. Exact plans with cfg->size_hint: pass the total. Cost: O(growths), with
 * the additive phase of httpcore and additive in closed form (counts saturate at UINT64_MAX). */
int hb_sink_plan(const hb_sink_strategy *st, const hb_sink_config *cfg, uint64_t total,
                 hb_sink_stats *out);

static inline int hb_sink_append(hb_sink *s, const uint8_t *p, size_t n)
{
    return s->strategy->append(s, p, n);
}

/* --- the body reader: chunked (and gzip) body -> reads of at most R bytes -> sink ------------ */

/* The pipeline the incident ran: ChunkedInputStream (and GZIPInputStream for a gzip body) read
 * into a byte[read_size] that is appended to the sink after every read. Input may arrive split
 * anywhere. Each read is filled as full as the body allows, across feeds, so the sink gets appends
 * of exactly read_size bytes and one shorter last one (appended by hb_body_reader_finish), however
 * the input was split: what hb_sink_plan assumes. The reader owns its read buffer and zlib
 * stream; the sink stays the caller's.
 * The first error and its offset do not depend on how the input was split, and whether a gzip
 * stream is corrupt or truncated does not depend on read_size: a full read is appended as soon as
 * it fills, before anything after it is decoded (so a sink error precedes any error found later
 * in the body), and the gzip stream is inflated in batches of 64 KiB of chunk-data (the last
 * batch ends where the chunked coding ends or fails), draining output inflate held back.
 * Error offsets: chunked-coding errors, "data after the last chunk" and sink errors count bytes
 * of the body; every reason that mentions "gzip stream" counts bytes of the gzip stream (the
 * concatenated chunk-data): a non-gzip header at its member's first byte, "truncated gzip
 * stream" at the stream's length, other inflate errors at the last byte inflate read. A sink
 * error is at the body offset where the refused read was complete: identity, just past the
 * chunk-data byte that filled it; gzip, the end of the batch it was inflated from; the last,
 * short read (appended by hb_body_reader_finish), the end of the body.
 * A limit on the decoded bytes (hb_body_reader_set_max) is enforced where they are decoded, before
 * they reach the sink: the byte past the limit is never appended, and neither the reader nor the
 * sink holds more than the limit (plus the reader's fixed buffers: a read, and for gzip 64 KiB of
 * chunk-data and zlib's window), however large the body or its gzip expansion. */
typedef struct hb_body_reader {
    hb_dechunk dechunk;
    hb_sink *sink;
    int gzip;            /* the content is a gzip stream (one or more members) */
    uint8_t *rbuf;       /* the read buffer: read_size bytes */
    uint32_t read_size;
    uint8_t *zbuf;       /* gzip: dechunked bytes waiting for inflate */
    size_t zbuf_len;
    size_t zbuf_cap;
    void *z;             /* private state: read-buffer fill, offsets, the z_stream (gzip) */
    int z_end;           /* gzip: the last member has ended */
    const char *reason;  /* static text of the first error */
    uint64_t err_offset; /* its byte offset: in the body, or in the gzip stream for zlib errors */
    int err;
    uint64_t max_bytes; /* decoded bytes allowed (hb_body_reader_set_max); UINT64_MAX: no limit */
} hb_body_reader;

/* The reason hb_body_reader_error gives when the decoded body exceeds hb_body_reader_set_max's
 * limit (static text; callers may compare it to name their own option). */
#define HB_BODY_READER_LIMIT_REASON "decoded body exceeds the limit"

/* Prepares *r to read a body into sink, in reads of at most read_size bytes (0: 4096), inflating
 * a gzip stream when gzip is nonzero. Returns HB_OK, HB_EINVAL or HB_ENOMEM; on an error nothing
 * is left allocated. */
int hb_body_reader_init(hb_body_reader *r, hb_sink *sink, int gzip, uint32_t read_size);

/* Limits the decoded body (after inflate, for gzip) to max_bytes bytes; the default after
 * hb_body_reader_init is no limit (UINT64_MAX). A body of exactly max_bytes is read; the first
 * decoded byte past it stops the reader with HB_ELIMIT and reason HB_BODY_READER_LIMIT_REASON
 * (sticky, like every error), and is not appended to the sink. Its offset, in bytes of the body
 * (hb_body_reader_error): identity, the offset of the chunk-data byte past the limit; gzip, the
 * end of the 64 KiB batch of chunk-data whose inflation went past it (where a sink error would
 * be: the end of the body for the last batch), independent of how the body was split. Full reads
 * before that byte are appended first, so a sink error in them comes first. Memory: neither
 * reader nor sink is handed more than max_bytes, so a gzip bomb (RFC 1952 streams inflate up to
 * ~1032x) or an endless chunked body (RFC 9112 section 7.1 sets no bound) costs at most the limit.
 * Call it after hb_body_reader_init and before the first feed. Returns HB_OK, or HB_EINVAL for
 * a NULL or uninitialised reader or after a feed. */
int hb_body_reader_set_max(hb_body_reader *r, uint64_t max_bytes);

/* Feeds the next len bytes of the body. Returns HB_OK, or the first error (sticky): HB_EPARSE,
 * HB_ERANGE, HB_ELIMIT from the chunked decoding, HB_EZLIB from inflate, HB_ELIMIT when the
 * decoded body passes hb_body_reader_set_max's limit, or a sink error; bytes after the body's
 * final CRLF are HB_EPARSE "data after the last chunk". */
int hb_body_reader_feed(hb_body_reader *r, const uint8_t *in, size_t len);

/* Declares the end of the body: HB_OK if both the chunked coding and the gzip stream are complete,
 * else HB_ETRUNC ("premature end of chunk-coded message body" or "truncated gzip stream").
 * Does not finish the sink. */
int hb_body_reader_finish(hb_body_reader *r);

/* The first error's static reason and its byte offset (see err_offset). NULL if none. */
const char *hb_body_reader_error(const hb_body_reader *r, uint64_t *offset);

/* Frees the read buffer and zlib state and zeroes *r; safe after any error and twice. */
void hb_body_reader_release(hb_body_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* HB_BUFGROW_H */

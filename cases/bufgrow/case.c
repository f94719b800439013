/* case.c - the buffer-growth case describes itself (harness/hb_case.h): its groups, strategies,
 * views, the CI gate's selection, the whole-process runs and the peers. Data only. */
#include "hb_case.h"

/* clang-format off */
#define S(name, k) {name, HB_ROLE_STRATEGY, k, HB_MODEL_POWER, NULL}
#define CEILING(name) {name, HB_ROLE_CEILING, 1, HB_MODEL_POWER, NULL}
#define PIECEWISE(name) {name, HB_ROLE_STRATEGY, 2, HB_MODEL_PIECEWISE_32, NULL}
/* httpcore takes every new array from malloc and frees the dead one; httpcore-heap is the same
 * arithmetic reusing dead arrays itself, as the JVM's heap does: its custom-allocator twin */
#define HTTPCORE {"httpcore", HB_ROLE_STRATEGY, 2, HB_MODEL_PIECEWISE_32, "httpcore-heap"}
#define END {NULL, 0, 0, 0, NULL}
/* The growth strategies of bufgrow.c's registry, in its order; k of O(n^k) is the bytes copied
 * per body (httpcore, additive: quadratic past 2^30 or from the start). */
#define SINKS \
    S("exact", 1), HTTPCORE, S("additive", 2), S("doubling", 1), \
    S("growth-1.5", 1), S("realloc-doubling", 1), S("sds", 1), S("block-list", 1), \
    S("mmap-reserve", 1), S("mmap-reserve-huge", 1), PIECEWISE("httpcore-heap")

static const hb_strategy_desc body[] = {CEILING("memcpy"), SINKS, END};
static const hb_strategy_desc gzip_body[] = {CEILING("inflate"), SINKS, END};
static const hb_strategy_desc cliff[] = {HTTPCORE, PIECEWISE("httpcore-heap"), END};

static const hb_strategy_desc dechunk[] = {
    {"memcpy", HB_ROLE_CEILING, 0, HB_MODEL_POWER, NULL},
    {"decoder", HB_ROLE_STRATEGY, 0, HB_MODEL_POWER, NULL},
    {"decoder-reads", HB_ROLE_STRATEGY, 0, HB_MODEL_POWER, NULL}, END};

static const hb_arg read4k[] = {{"read", 4096}, {NULL, 0}};
static const hb_arg width32[] = {{"width", 32}, {NULL, 0}};
static const char *const body_charts[] = {"table", "scaling", "extrapolation", "copied", NULL};
static const char *const gzip_charts[] = {"table", "scaling", "extrapolation", NULL};
static const char *const cliff_charts[] = {"cliff", NULL};
/* grow by realloc: their bytes-copied counts are upper bounds (glibc moves with mremap) */
static const char *const by_realloc[] = {"realloc-doubling", "sds", NULL};

static const hb_view_desc body_views[] = {
    {"bufgrow", "Identity chunked body into one array", "size", "payload size N (bytes)", "B",
     read4k, 1.7e9, "1.7 GB", 1, "time per byte (ns/B)", 1e9, "2x-llc", body_charts,
     "bufgrow-cliff", "read", NULL, 0, by_realloc, NULL},
    {0},
};
static const hb_view_desc gzip_views[] = {
    {"bufgrow-gzip", "gzip chunked body into one array", "size", "decoded payload size N (bytes)",
     "B", read4k, 1.7e9, "1.7 GB", 1, "time per decoded byte (ns/B)", 1e9, "2x-llc", gzip_charts,
     "bufgrow", "read", NULL, 0, NULL, NULL},
    {0},
};
static const hb_view_desc cliff_views[] = {
    {"bufgrow-cliff", "The 32-bit capacity past 2^30", "size", "payload size N (bytes)", "B",
     width32, 1.7e9, "1.7 GB", 1, "time per byte (ns/B)", 1e9, "", cliff_charts,
     "bufgrow", "read", "width", 0, NULL, NULL},
    {0},
};

static const hb_arg no_ext[] = {{"size", 67108864}, {"ext", 0}, {NULL, 0}};
static const hb_arg with_ext[] = {{"size", 67108864}, {"ext", 1}, {NULL, 0}};
static const char *const dechunk_charts[] = {"lines", NULL};
static const hb_view_desc dechunk_views[] = {
    {"dechunk", "Chunked decoding alone into a warm buffer, chunk size scaled", "chunk",
     "chunk-size (bytes of chunk-data per chunk)", "B", no_ext, 8192, "8 KiB chunks", 0,
     "time per payload byte (ns/B)", 1e9, "", dechunk_charts, NULL, NULL, NULL, 1, NULL,
     "dechunk_payload_bytes"},
    {"dechunk-ext", "The same with an 81-byte chunk-ext (aws-chunked chunk-signature)", "chunk",
     "chunk-size (bytes of chunk-data per chunk)", "B", with_ext, 8192, "8 KiB chunks", 0,
     "time per payload byte (ns/B)", 1e9, "", dechunk_charts, NULL, NULL, NULL, 1, NULL,
     "dechunk_payload_bytes"},
    {0},
};

/* The allocator matrix (docs/allocators.md). The strategies whose body lives in malloc'd or
 * realloc'd memory, from 64 MiB (past glibc's largest mmap threshold, 32 MiB: every array is its
 * own mapping): 64 and 256 MiB in the default matrix, 1 GiB and 1.7 GB with --long (5-20 s a run
 * each at the 0.25-0.35 GB/s of first touch of a 2-vCPU VM). sds only at 64 MiB (256 MiB with
 * --long): it grows by 1 MiB past 1 MiB, which costs nothing where realloc moves blocks with
 * mremap (glibc) and copies the whole array at every step where it does not (mimalloc: ~17 s a
 * run at 64 MiB there, ~100 s at 256 MiB, hours at 1.7 GB; its declared class is glibc's, so the
 * budget does not stop it). Not mmap-reserve(-huge), which map their memory themselves (no
 * allocator call to compare), nor additive (quadratic: skipped past 16 MiB by the budget), nor
 * httpcore-heap, which reuses its dead arrays itself (it is in the cliff's selection, as
 * httpcore's twin). The twins just past 2^30 (--long: over 2 minutes a run there): 1 GiB +
 * 32 KiB, the one size both run (eight additive steps, each a 1 GiB array). */
#define ALLOC_STRATEGIES "(exact|httpcore|doubling|growth-1\\.5|realloc-doubling|block-list)"
#define ALLOC_BODY ALLOC_STRATEGIES "/size:(67108864|268435456)/|sds/size:67108864/"
#define ALLOC_BODY_LONG ALLOC_STRATEGIES "/size:(1073741824|1700000000)/|sds/size:268435456/"
#define ALLOC_CLIFF_LONG "(httpcore|httpcore-heap)/width:32/size:1073774592/"

/* What limits `decoder` now: the report's paragraph, make limits' probe (harness/hb_case.h) */
static const hb_limits_desc dechunk_limits = {
    "decoder", "memcpy", "size:67108864/chunk:8192/ext:0", "size:1048576/chunk:8192/ext:0", NULL,
    "`decoder` copies each chunk's chunk-data with one memcpy, the copy `memcpy` makes; on top it "
    "parses one chunk line and one CRLF per chunk (the fast path) and does the bounds arithmetic "
    "around each copy. So at large chunks both rows are bound by how fast this machine copies "
    "warm memory, and what `decoder` adds is per chunk: the instructions per byte beyond the "
    "ceiling's, which shrink as chunks grow."};

static const hb_group_desc groups[] = {
    {"bufgrow", "Identity chunked body into one array",
     "One iteration reads a whole chunked body in reads of 4096 bytes into one array.",
     "exact", "memcpy", body, body_views,
     "[^/]+/size:(65536|262144|1048576|4194304|16777216)/", "[^/]+/size:65536/",
     ALLOC_BODY, ALLOC_BODY_LONG, NULL /* limits */, 1 /* gate_isolate: fresh or recycled
     * arrays depend on the heap the strategies before left (isolation.py) */},
    {"bufgrow-gzip", "gzip chunked body into one array",
     "The same with a gzip body: inflate, then the same growth.",
     "inflate", "inflate", gzip_body, gzip_views,
     "[^/]+/size:(65536|262144|1048576|4194304|16777216)/", "[^/]+/size:65536/",
     NULL, NULL /* inflate's cost on top of the same growth: nothing more on the allocator */,
     NULL /* limits */, 1 /* gate_isolate, as bufgrow */},
    {"bufgrow-cliff", "httpcore's 32-bit capacity past 2^30",
     "`httpcore` models ByteArrayBuffer's `int` capacity: doubling until `capacity << 1` "
     "overflows, then growth to exactly what is needed, one read at a time, each step copying "
     "the whole array. `bufgrow-cliff/httpcore/width:24` narrows the capacity to 24 bits so the "
     "overflow (past 4 MiB) shows at sizes small enough to run; `width:32` is the real width "
     "just below and just past 2^30. Each new array is fresh memory from malloc (page faults on "
     "every page). `httpcore-heap` is the same arithmetic on a JVM-like heap: a dead array's "
     "memory is reused for a later one and zeroed, as a `new byte[]` is, so its steady steps pay "
     "zeroing and copying but no page faults. The real JVM should lie between the two.",
     NULL, "bufgrow/memcpy/size:4194304/read:4096/real_time", cliff, cliff_views,
     "httpcore/width:24/size:(1048576|4194304|4456448)/", "httpcore/width:24/size:1048576/",
     NULL, ALLOC_CLIFF_LONG, NULL /* limits */, 1 /* gate_isolate, as bufgrow */},
    {"dechunk", "the chunked decoder alone",
     "One iteration decodes a whole chunked body (chunk-size lines, chunk-data, CRLFs, "
     "last-chunk) into a warm buffer of the payload's size, written before timing: no page "
     "fault, no growth, the decoder's own speed. `decoder` hands it the whole body at once, "
     "`decoder-reads` in reads of 4096 bytes; `memcpy` copies the same number of bytes and is "
     "its ceiling. `ext:1` adds S3's aws-chunked `;chunk-signature=<64 hex>` chunk-ext to "
     "every chunk line.",
     "memcpy", "memcpy", dechunk, dechunk_views,
     "[^/]+/size:1048576/", "[^/]+/size:1048576/", NULL, NULL /* allocates nothing timed */,
     .limits = &dechunk_limits},
    {0},
};

static const char *const gen_chunked[] = {"chunked", NULL};
static const char *const gen_chunked_gz[] = {"chunked", "--gzip", NULL};
/* --max-size 2G: the 1.7 GB body on any machine (the default, a quarter of physical memory,
 * would refuse it under 6.8 GB of RAM) */
static const char *const dec_identity[] = {"dechunk", "--max-size", "2G", NULL};
static const char *const dec_gzip[] = {"dechunk", "--gunzip", "--max-size", "2G", NULL};
static const char *const exact_args[] = {"exact: --size-hint {items}", NULL};
/* A whole process adds start-up, reading the body from the page cache and exit to the in-process
 * work: the same for every strategy. Four answer that (the fix, the incident's doubling, growth
 * by mremap, huge pages); these four would repeat it at 1.7 GB, 4 runs each, ~4 min a group on
 * a 0.3 GB/s-first-touch VM (issue 16). */
#define SAME_AS(other) ": the whole-process overhead is " other "'s (in-process rows have it)"
static const char *const e2e_skip[] = {
    "growth-1.5" SAME_AS("doubling"), "sds" SAME_AS("realloc-doubling"),
    "block-list" SAME_AS("exact"), "mmap-reserve" SAME_AS("exact"), NULL};
static const hb_e2e_desc e2e[] = {
    {"dechunk", "bufgrow", gen_chunked, dec_identity, "exact",
     "bufgrow/%s/size:1700000000/read:4096/real_time", 1.7e9, "bytes", 1,
     .check = "crc32-sidecar", .size_option = "--size", .strategy_args = exact_args,
     .skip = e2e_skip},
    {"dechunk-gzip", "bufgrow-gzip", gen_chunked_gz, dec_gzip, "exact",
     "bufgrow-gzip/%s/size:1700000000/read:4096/real_time", 1.7e9, "bytes", 1,
     .check = "crc32-sidecar", .size_option = "--size", .strategy_args = exact_args,
     .skip = e2e_skip},
    {0},
};

static const char *const httpcore_pkgs[] = {"default-jdk-headless", "libhttpcore-java", NULL};
static const char *const jdk_pkgs[] = {"default-jdk-headless", NULL};
static const hb_peer_desc peers[] = {
    {"httpcore", "java", httpcore_pkgs},
    {"jdk", "java", jdk_pkgs},
    {0},
};
/* clang-format on */

const hb_case_desc hb_bufgrow_case = {
    "bufgrow", "Byte-buffer growth",
    "A 1.7 GB chunked HTTP body read into one array by a doubling buffer whose 32-bit capacity "
    "overflows at 2^30 and degrades to additive growth (hours).",
    groups, e2e, peers, "cases/bufgrow/peers/driver.py",
};

/* hotbench-decode - the reference decoders as filters: input from FILE or stdin, result on stdout.
 *
 *     hotbench-decode dechunk [--gunzip] [--strategy NAME] [--read-size N] [--size-hint N]
 *                             [--max-size N] [FILE]
 *     hotbench-decode rfc3339 [--strategy NAME] [FILE]
 *     hotbench-decode volumes [--strategy NAME] [--piece N] [--max-size N] [FILE]
 *
 * Memory is bounded on hostile input (issue 15): dechunk and volumes refuse a body or document
 * over --max-size as soon as its bytes pass it, and rfc3339 keeps at most LINE_KEEP bytes of a
 * line.
 *
 * dechunk runs the pipeline the benchmark times: the chunked body in 64 KiB pieces into
 * hb_body_reader (dechunk, gunzip with --gunzip, reads of --read-size bytes) into the named sink
 * strategy, then hb_sink_finish, and writes hb_sink_data to stdout.
 *
 * Exit status: 0 success; 1 malformed input (one line "hotbench-decode: dechunk: <reason> at
 * byte <offset>" on stderr), an I/O error or out of memory; 2 a usage error. A write to a closed
 * pipe (EPIPE) ends the program quietly with status 1.
 *
 * A subcommand is one row of the subcommands table.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hb_cli.h"
#include "hb_bufgrow.h"
#include "hb_err.h"
#include "hb_io.h"
#include "hb_size.h"
#if __has_include("hb_rfc3339.h") /* the case is registered in cases/cases.def */
#include "hb_rfc3339.h"
#define HB_HAVE_RFC3339 1
#endif
#if __has_include("hb_volumes.h") /* the case is registered in cases/cases.def */
#include "hb_volumes.h"
#define HB_HAVE_VOLUMES 1
#endif

#define PROG "hotbench-decode"
#define PIECE (64u * 1024u) /* bytes read from the input per feed */
/* The price of a quadratic strategy's work for the warning: every additive growth copies into a
 * fresh block, whose first touch (page faults) dominates: 1 GB/s, the top of DESIGN.md's 0.4-1
 * GB/s, so the prediction stays a lower bound. (The 5 GB/s of 4096-byte copies is warm memory:
 * additive on a 10 MB body measured 0.13 GB/s of copies.) */
#define WARN_BYTES_PER_S 1e9
#define WARN_SECONDS 3.0 /* warn when the predicted time is at least this */
/* payload bytes between two predictions on a body of unknown size (a pipe) */
#define WATCH_STEP (16u << 10)

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

/* dechunk's default --max-size: this fraction of physical memory. A quarter, because the result
 * may be held twice at the end (block-list's gather, httpcore's toByteArray) and a doubling
 * array's growth holds old and new blocks at once: the peak stays within about 2-3 times the
 * limit, under the whole memory. Without a known memory size: DECHUNK_MAX_FALLBACK. */
#define DECHUNK_MAX_DIVISOR 4
#define DECHUNK_MAX_FALLBACK (UINT64_C(1) << 30)
/* volumes' default --max-size, in bytes: a DescribeVolumes page of 500 volumes with 50 tags each is
 * about 5 MB; 20 times that is generous, and the DOM strategies (libxml2-dom, expat-tree) hold
 * several times the document besides the document itself. */
#define VOLUMES_MAX_DEFAULT UINT64_C(100000000)

static uint64_t dechunk_max_default(void)
{
    uint64_t phys = hb_cli_phys_memory();
    return phys ? phys / DECHUNK_MAX_DIVISOR : DECHUNK_MAX_FALLBACK;
}

/* ---- dechunk ---------------------------------------------------------------------------- */

static void dechunk_usage(FILE *f)
{
    fprintf(
        f,
        "usage: " PROG " dechunk [--gunzip] [--strategy NAME] [--read-size N]\n"
        "                               [--size-hint N] [--max-size N] [FILE]\n"
        "\n"
        "Decodes a raw HTTP/1.1 message body sent with Transfer-Encoding: chunked (RFC 9112\n"
        "section 7.1) from FILE, or standard input when FILE is absent or -, and writes the\n"
        "decoded bytes to standard output. The body is read in 64 KiB pieces into the same\n"
        "pipeline the benchmark times: chunked decoder -> (inflate) -> reads of N bytes ->\n"
        "the growth strategy's buffer -> stdout.\n"
        "\n"
        "options:\n"
        "  --gunzip          the content is a gzip stream (Content-Encoding: gzip): inflate it\n"
        "  --strategy NAME   the growth strategy that collects the reads (default block-list)\n"
        "  --read-size N     bytes per read, 1 to 1G (default %u)\n"
        "  --size-hint N     the decoded size in bytes (Content-Length); needed by exact\n"
        "                    (sizes: 4096, 64K, 10M, 1.7G; K, M, G = 10^3, 10^6, 10^9)\n"
        "  --max-size N      the largest decoded body (after --gunzip) in bytes, 0 up;\n"
        "                    default a quarter of physical memory, here %" PRIu64 ", as the\n"
        "                    result may be held twice at the end (block-list's gather): a\n"
        "                    larger body, an endless stream or a gzip bomb stops with\n"
        "                    status 1 as soon as its decoded bytes pass the limit\n"
        "  -h, --help        this text\n"
        "\n"
        "strategies:\n",
        HB_READ_SIZE_DEFAULT, dechunk_max_default());
    for (size_t i = 0; i < hb_sink_strategy_count; i++)
        fprintf(f, "  %-20s %s%s\n", hb_sink_strategies[i].name,
                hb_sink_strategies[i].complexity == 2 ? "QUADRATIC: " : "",
                hb_sink_strategies[i].desc);
    fprintf(f,
            "\n"
            "QUADRATIC: past a point, time grows with the square of the size (the registry's\n"
            "complexity); a warning on standard error when one is chosen for a body predicted\n"
            "to take %.0f s or more (for a pipe without --size-hint, once the payload decoded\n"
            "so far predicts it).\n"
            "\n"
            "exit status: 0 decoded; 1 malformed input, a body over --max-size, an I/O error\n"
            "or out of memory; 2 a usage error. Malformed input gives one line on standard\n"
            "error:\n"
            "  " PROG ": dechunk: <reason> at byte <offset>\n"
            "The offset counts bytes of the chunked body, except for reasons that mention the\n"
            "gzip stream, whose offset counts bytes of the gzip stream (the chunk-data). A body\n"
            "over --max-size is at the chunk-data byte past the limit (with --gunzip: at the\n"
            "end of the 64 KiB of chunk-data whose inflation passed it).\n",
            WARN_SECONDS);
}

static int dechunk_bad_strategy(const char *name)
{
    fprintf(stderr, PROG ": dechunk: unknown strategy '%s'; valid strategies:", name);
    for (size_t i = 0; i < hb_sink_strategy_count; i++)
        fprintf(stderr, "%s %s", i ? "," : "", hb_sink_strategies[i].name);
    fprintf(stderr, "\n");
    return EXIT_USAGE;
}

/* Parses the byte count s of option opt (hb_size_parse: 4096, 64K, 10M, 1.7G) into *out,
 * which must lie in [min, max]. Returns 0, or EXIT_USAGE after a message naming sub, opt, the
 * value and the allowed range. */
static int parse_bytes(const char *sub, const char *opt, const char *s, uint64_t min,
                       uint64_t max, uint64_t *out)
{
    const char *why = NULL;
    if (hb_size_parse_range(s, min, max, out, &why) == 0)
        return 0;
    fprintf(stderr,
            PROG ": %s: %s wants a byte count from %" PRIu64 " to %" PRIu64
                 " (K, M, G: 10^3, 10^6, 10^9), not '%s': %s\n",
            sub, opt, min, max, s, why);
    return EXIT_USAGE;
}

typedef struct dechunk_opts {
    int gunzip;
    const hb_sink_strategy *strategy;
    uint32_t read_size;
    uint64_t size_hint;
    int have_size_hint;
    uint64_t max_size; /* decoded bytes allowed */
    const char *file;  /* NULL: stdin */
} dechunk_opts;

/* The checks of dechunk's options once all are read: the strategy named (its row into
 * o->strategy), a --size-hint within --max-size, exact given its --size-hint. Returns -1 to go
 * on, or EXIT_USAGE after a message. */
static int dechunk_check(dechunk_opts *o, const char *strategy)
{
    o->strategy = hb_sink_find(strategy);
    if (!o->strategy)
        return dechunk_bad_strategy(strategy);
    if (o->have_size_hint && o->size_hint > o->max_size) {
        fprintf(stderr,
                PROG ": dechunk: --size-hint %" PRIu64 " is over --max-size %" PRIu64
                     "; raise --max-size\n",
                o->size_hint, o->max_size);
        return EXIT_USAGE;
    }
    if (strcmp(o->strategy->name, "exact") == 0 && !o->have_size_hint) {
        fprintf(stderr, PROG ": dechunk: strategy exact needs the decoded size: pass "
                             "--size-hint N\n");
        return EXIT_USAGE;
    }
    return -1;
}

/* Parses argv (argv[0] is the subcommand). Returns -1 to go on, else the exit status. */
static int dechunk_args(int argc, char **argv, dechunk_opts *o)
{
    enum { OPT_GUNZIP = 256, OPT_STRATEGY, OPT_READ_SIZE, OPT_SIZE_HINT, OPT_MAX_SIZE };
    static const struct option longopts[] = {
        {"gunzip", no_argument, NULL, OPT_GUNZIP},
        {"strategy", required_argument, NULL, OPT_STRATEGY},
        {"read-size", required_argument, NULL, OPT_READ_SIZE},
        {"size-hint", required_argument, NULL, OPT_SIZE_HINT},
        {"max-size", required_argument, NULL, OPT_MAX_SIZE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *strategy = "block-list";
    char optbuf[3];
    uint64_t v;
    int c;

    memset(o, 0, sizeof(*o));
    o->read_size = HB_READ_SIZE_DEFAULT;
    o->max_size = dechunk_max_default();
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_GUNZIP:
            o->gunzip = 1;
            break;
        case OPT_STRATEGY:
            strategy = optarg;
            break;
        case OPT_READ_SIZE:
            if (parse_bytes("dechunk", "--read-size", optarg, 1, UINT64_C(1) << 30, &v) != 0)
                return EXIT_USAGE;
            o->read_size = (uint32_t)v;
            break;
        case OPT_SIZE_HINT:
            if (parse_bytes("dechunk", "--size-hint", optarg, 0, UINT64_MAX, &v) != 0)
                return EXIT_USAGE;
            o->size_hint = v;
            o->have_size_hint = 1;
            break;
        case OPT_MAX_SIZE:
            if (parse_bytes("dechunk", "--max-size", optarg, 0, UINT64_MAX, &o->max_size) != 0)
                return EXIT_USAGE;
            break;
        case 'h':
            dechunk_usage(stdout);
            return fflush(stdout) == 0 ? 0 : EXIT_INPUT;
        case ':':
            fprintf(stderr, PROG ": dechunk: option '%s' needs a value (see --help)\n",
                    hb_cli_bad_option(argv, longopts, optbuf));
            return EXIT_USAGE;
        default:
            fprintf(stderr, PROG ": dechunk: unknown option '%s' (see --help)\n",
                    hb_cli_bad_option(argv, longopts, optbuf));
            return EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        fprintf(stderr, PROG ": dechunk: one FILE at most (see --help)\n");
        return EXIT_USAGE;
    }
    if (optind < argc && strcmp(argv[optind], "-") != 0)
        o->file = argv[optind];
    return dechunk_check(o, strategy);
}

/* Keeps the last 4 bytes of a stream in tail, given its next n bytes at p. */
static void keep_tail(uint8_t tail[4], const uint8_t *p, size_t n)
{
    if (n >= 4) {
        memcpy(tail, p + n - 4, 4);
    } else {
        memmove(tail, tail + n, 4 - n);
        memcpy(tail + 4 - n, p, n);
    }
}

/* The ISIZE of the gzip stream carried by the chunked body in the regular file fd: its last
 * member's uncompressed size mod 2^32, a lower bound of the payload (RFC 1952 section 2.3.1).
 * Dechunks the file once with pread (the file offset is unchanged). Returns 0 and *out, or -1 if
 * the body is malformed, shorter than a gzip trailer, does not start with gzip's magic bytes
 * 1f 8b (its last 4 bytes are then no size), or memory is short (the decode that follows
 * reports the first three). */
static int gzip_isize(int fd, uint64_t *out)
{
    uint8_t *in = malloc(2 * PIECE), tail[4] = {0}, head[2] = {0};
    uint64_t total = 0;
    off_t off = 0;
    int rc = 0;
    hb_dechunk d;
    if (!in)
        return -1;
    hb_dechunk_init(&d);
    while (rc == 0) {
        ssize_t n = pread(fd, in, PIECE, off);
        if (n <= 0)
            break;
        off += n;
        for (size_t pos = 0, used = 1, made = 1; rc == 0 && pos < (size_t)n && (used || made);
             pos += used) {
            rc = hb_dechunk_run(&d, in + pos, (size_t)n - pos, &used, in + PIECE, PIECE, &made);
            for (size_t i = 0; total + i < 2 && i < made; i++)
                head[total + i] = in[PIECE + i];
            keep_tail(tail, in + PIECE, made);
            total += made;
        }
    }
    free(in);
    if (rc != HB_DECHUNK_DONE || total < 18 || head[0] != 0x1f || head[1] != 0x8b)
        return -1; /* 18: the smallest gzip member, a 10-byte header and an 8-byte trailer */
    *out = (uint64_t)tail[0] | (uint64_t)tail[1] << 8 | (uint64_t)tail[2] << 16 |
           (uint64_t)tail[3] << 24;
    return 0;
}

/* Warns on stderr when the dry run (hb_sink_plan) of o's strategy on a payload of n bytes
 * predicts WARN_SECONDS or more at WARN_BYTES_PER_S; how says where n comes from, and so
 * whether it is the body's size or a lower bound of it. Returns 1 if it warned, else 0. */
static int warn_slow(const dechunk_opts *o, uint64_t n, const char *how)
{
    hb_sink_stats plan;
    hb_sink_config cfg = {.size_hint = n, .read_size = o->read_size};
    if (hb_sink_plan(o->strategy, &cfg, n, &plan) != HB_OK)
        return 0;
    double work = (double)plan.bytes_appended + (double)plan.bytes_copied;
    if (work / WARN_BYTES_PER_S < WARN_SECONDS)
        return 0;
    fprintf(stderr,
            PROG ": dechunk: warning: %s is quadratic: predicted >= %.0f s for this body "
                 "(>= %.3g bytes copied at %.0f GB/s, for a payload of %" PRIu64
                 " bytes: %s); use --strategy doubling or block-list\n",
            o->strategy->name, work / WARN_BYTES_PER_S, (double)plan.bytes_copied,
            WARN_BYTES_PER_S / 1e9, n, how);
    return 1;
}

/* Before a quadratic strategy decodes: warn_slow on a lower bound of the payload - the
 * --size-hint; else the gzip trailer's ISIZE; else the size of an identity body (its chunk
 * framing is a fraction of a percent). Returns 1 when the input's size is unknown (a pipe
 * without --size-hint): dechunk_read then watches the bytes as they come; else 0. */
static int dechunk_warn(int fd, const dechunk_opts *o)
{
    struct stat sb;
    uint64_t n = o->size_hint;
    const char *how = "the --size-hint";
    if (o->strategy->complexity != 2)
        return 0;
    if (!o->have_size_hint) {
        if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
            return 1;
        n = (uint64_t)sb.st_size;
        how = "about the body's size";
        if (o->gunzip && gzip_isize(fd, &n) != 0)
            return 0;
        if (o->gunzip)
            how = "the gzip trailer's ISIZE, a lower bound";
    }
    warn_slow(o, n, how);
    return 0;
}

/* Reads the input into the reader r, which appends to sink. With watch (a quadratic strategy on
 * a body of unknown size), warns once, as soon as the payload bytes decoded so far (sink->len, a
 * lower bound of the payload) predict WARN_SECONDS (warn_slow, checked every WATCH_STEP bytes):
 * late, but not silent. Returns 0, or the exit status after printing the message; a body larger
 * than exact's --size-hint says that the hint is too small. */
static int dechunk_read(int fd, const dechunk_opts *o, int watch, hb_body_reader *r,
                        const hb_sink *sink, uint8_t *piece)
{
    const char *name = o->file ? o->file : "standard input";
    uint64_t off, next = watch ? WATCH_STEP : UINT64_MAX;
    int rc = HB_OK;

    for (;;) {
        ssize_t n = read(fd, piece, PIECE);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fprintf(stderr, PROG ": dechunk: reading %s: %s\n", name, strerror(errno));
            return EXIT_INPUT;
        }
        if (n == 0)
            break;
        rc = hb_body_reader_feed(r, piece, (size_t)n);
        if (sink->len >= next)
            next = warn_slow(o, sink->len, "decoded so far, the body's size unknown")
                       ? UINT64_MAX
                       : sink->len + WATCH_STEP;
        if (rc != HB_OK)
            break;
    }
    if (rc == HB_OK)
        rc = hb_body_reader_finish(r);
    if (rc != HB_OK) {
        const char *reason = hb_body_reader_error(r, &off);
        if (rc == HB_ELIMIT && reason && strcmp(reason, HB_BODY_READER_LIMIT_REASON) == 0) {
            fprintf(stderr,
                    PROG ": dechunk: decoded body exceeds --max-size %" PRIu64
                         " bytes at byte %" PRIu64 "; raise --max-size\n",
                    o->max_size, off);
            return EXIT_INPUT;
        }
        int hint = rc == HB_ELIMIT && o->have_size_hint && reason &&
                   strncmp(reason, "sink ", 5) == 0 && strcmp(o->strategy->name, "exact") == 0;
        fprintf(stderr, PROG ": dechunk: %s at byte %" PRIu64, reason ? reason : hb_err_str(rc),
                off);
        if (hint)
            fprintf(stderr, " (--size-hint %" PRIu64 " is too small)", o->size_hint);
        fprintf(stderr, "\n");
        return EXIT_INPUT;
    }
    return 0;
}

static int cmd_dechunk(int argc, char **argv)
{
    dechunk_opts o;
    hb_sink sink;
    hb_body_reader reader;
    uint8_t *piece = NULL;
    int fd = STDIN_FILENO, status, rc;

    status = dechunk_args(argc, argv, &o);
    if (status >= 0)
        return status;
    if (o.file) {
        fd = open(o.file, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, PROG ": dechunk: cannot open %s: %s\n", o.file, strerror(errno));
            return EXIT_INPUT;
        }
    }

    int watch = dechunk_warn(fd, &o);
    hb_sink_config cfg = {.size_hint = o.size_hint, .read_size = o.read_size};
    memset(&sink, 0, sizeof(sink));
    memset(&reader, 0, sizeof(reader));
    status = EXIT_INPUT;
    rc = hb_sink_init(&sink, o.strategy, &cfg);
    if (rc != HB_OK) {
        fprintf(stderr, PROG ": dechunk: cannot start strategy %s: %s\n", o.strategy->name,
                hb_err_str(rc));
        goto out;
    }
    rc = hb_body_reader_init(&reader, &sink, o.gunzip, o.read_size);
    if (rc == HB_OK)
        rc = hb_body_reader_set_max(&reader, o.max_size);
    piece = malloc(PIECE);
    if (rc != HB_OK || !piece) {
        fprintf(stderr, PROG ": dechunk: %s\n", hb_err_str(rc != HB_OK ? rc : HB_ENOMEM));
        goto out;
    }
    status = dechunk_read(fd, &o, watch, &reader, &sink, piece);
    if (status != 0)
        goto out;
    status = EXIT_INPUT;
    rc = hb_sink_finish(&sink);
    if (rc != HB_OK) {
        fprintf(stderr, PROG ": dechunk: strategy %s: %s\n", o.strategy->name, hb_err_str(rc));
        goto out;
    }
    uint64_t len = 0;
    const uint8_t *data = hb_sink_data(&sink, &len);
    if (o.have_size_hint && len != o.size_hint) {
        /* a Content-Length the body does not fill is as wrong as one it exceeds */
        fprintf(stderr, PROG ": dechunk: the body decodes to %llu bytes, --size-hint said %llu\n",
                (unsigned long long)len, (unsigned long long)o.size_hint);
        goto out;
    }
    if (hb_write_all(STDOUT_FILENO, data, (size_t)len) != 0) {
        if (errno != EPIPE) /* a reader that went away is not worth a message */
            fprintf(stderr, PROG ": dechunk: writing standard output: %s\n", strerror(errno));
        goto out;
    }
    status = 0;
out:
    free(piece);
    hb_body_reader_release(&reader);
    hb_sink_release(&sink);
    if (o.file)
        close(fd);
    return status;
}

/* ---- rfc3339 ----------------------------------------------------------------------------- */

#ifdef HB_HAVE_RFC3339
/* Bytes of a line kept by rfc3339 (hb_cli_lines): every valid line fits (35 bytes of timestamp,
 * 20 of millisecond count), with room for a longer invalid one to be diagnosed whole. */
#define LINE_KEEP 64

static void rfc3339_usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " rfc3339 [--strategy NAME] [FILE]\n"
            "\n"
            "Parses one timestamp per line of FILE (standard input when FILE is absent or -)\n"
            "and prints, per line and in order, '<seconds> <nanoseconds>' (seconds since\n"
            "1970-01-01T00:00:00Z, negative before; nanoseconds 0 to 999999999) or\n"
            "'error: <reason> at byte <n>' (n counts from 0 within the line). The grammar is\n"
            "RFC 3339 section 5.6 date-time restricted to a Spanner TIMESTAMP:\n"
            "YYYY-MM-DDThh:mm:ss[.1-9 digits](Z|+hh:mm|-hh:mm), 'T' and 'Z' in either case,\n"
            "no leap second, instants from 0001-01-01 to 9999-12-31 UTC. The newline ends a\n"
            "line, a CR just before it too (CRLF files); any other byte belongs to it.\n"
            "\n"
            "The input is read in 64 KiB blocks and at most %d bytes of a line are kept: a\n"
            "longer line is rejected as soon as its bytes pass that, its error printed at once,\n"
            "and the rest of it skipped unread into memory (then the next line). No valid\n"
            "timestamp is longer than %d bytes, so a text strategy gives the reference's\n"
            "diagnosis of the first impossible byte, the same as for the whole line; a millis\n"
            "strategy says the line is too long (a count in range has at most 15 digits and a\n"
            "sign; millis-parse's leading zeros past %d bytes are not read).\n"
            "\n"
            "options:\n"
            "  --strategy NAME   the parser (default scalar, the reference); the millis\n"
            "                    strategies read decimal Unix milliseconds instead\n"
            "  -h, --help        this text\n"
            "\n"
            "strategies:\n",
            LINE_KEEP, HB_RFC3339_MAX_LEN, LINE_KEEP);
    for (size_t i = 0; i < hb_rfc3339_strategy_count; i++)
        if (hb_rfc3339_strategies[i].input != HB_RFC3339_IN_BINARY)
            fprintf(f, "  %-16s %s\n", hb_rfc3339_strategies[i].name,
                    hb_rfc3339_strategies[i].desc);
    fprintf(f, "\n"
               "exit status: 0 every line parsed; 1 a line failed, or an I/O error; 2 a usage\n"
               "error. A strategy other than the reference gives the reference's diagnosis\n"
               "of a line it rejects.\n");
}

/* Prints the error for a line longer than LINE_KEEP bytes, of which s holds the first LINE_KEEP,
 * and flushes it out at once (the rest of the line may be endless). Returns 1. */
static int rfc3339_long_line(const hb_rfc3339_strategy *st, const char *s)
{
    hb_rfc3339_time t;
    hb_rfc3339_error e;
    /* LINE_KEEP > HB_RFC3339_MAX_LEN: the reference rejects the kept bytes */
    if (st->input == HB_RFC3339_IN_TEXT && hb_rfc3339_parse(s, LINE_KEEP, &t, &e) != HB_OK)
        printf("error: %s at byte %zu\n", hb_rfc3339_rule_str(e.rule), e.pos);
    else
        printf("error: line longer than %d bytes, more than a millisecond count in range has, "
               "at byte %d\n",
               LINE_KEEP, LINE_KEEP);
    fflush(stdout);
    return 1;
}

/* Prints the result for one line; returns 0 if it parsed. */
static int rfc3339_line(const hb_rfc3339_strategy *st, const char *s, size_t len)
{
    hb_rfc3339_time t;
    hb_rfc3339_error e;
    int rc;
    if (st->input == HB_RFC3339_IN_TEXT && strcmp(st->name, "scalar") == 0)
        rc = hb_rfc3339_parse(s, len, &t, &e);
    else
        rc = st->parse(s, len, &t);
    if (rc == HB_OK) {
        printf("%" PRId64 " %" PRId32 "\n", t.seconds, t.nanos);
        return 0;
    }
    if (st->input != HB_RFC3339_IN_TEXT)
        printf("error: not a decimal millisecond count in 0001-01-01 to 9999-12-31 at byte 0\n");
    else if (strcmp(st->name, "scalar") == 0 || hb_rfc3339_parse(s, len, &t, &e) != HB_OK)
        printf("error: %s at byte %zu\n", hb_rfc3339_rule_str(e.rule), e.pos);
    else
        printf("error: strategy %s rejects what the reference accepts at byte 0\n", st->name);
    return 1;
}

/* Parses the lines of file (NULL: standard input) with st; returns the exit status. */
static int rfc3339_run(const hb_rfc3339_strategy *st, const char *file)
{
    int fd = file ? open(file, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
    if (fd < 0) {
        fprintf(stderr, PROG ": rfc3339: cannot open %s: %s\n", file, strerror(errno));
        return EXIT_INPUT;
    }
    hb_cli_lines lines;
    const char *line;
    size_t len;
    int failed = 0, rc = hb_cli_lines_init(&lines, fd, LINE_KEEP);
    while (rc == 0 && (rc = hb_cli_line_next(&lines, &line, &len)) > 0) {
        failed |= rc == 2 ? rfc3339_long_line(st, line) : rfc3339_line(st, line, len);
        rc = 0;
    }
    int read_errno = errno;
    hb_cli_lines_free(&lines);
    if (file)
        close(fd);
    if (rc < 0) {
        fprintf(stderr, PROG ": rfc3339: reading %s: %s\n", file ? file : "standard input",
                strerror(read_errno));
        return EXIT_INPUT;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (errno != EPIPE)
            fprintf(stderr, PROG ": rfc3339: writing standard output: %s\n", strerror(errno));
        return EXIT_INPUT;
    }
    return failed ? EXIT_INPUT : 0;
}

static int cmd_rfc3339(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"strategy", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char optbuf[3];
    const char *name = "scalar";
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            name = optarg;
            break;
        case 'h':
            rfc3339_usage(stdout);
            return fflush(stdout) == 0 ? 0 : EXIT_INPUT;
        case ':':
            fprintf(stderr, PROG ": rfc3339: option '%s' needs a value (see --help)\n",
                    hb_cli_bad_option(argv, longopts, optbuf));
            return EXIT_USAGE;
        default:
            fprintf(stderr, PROG ": rfc3339: unknown option '%s' (see --help)\n",
                    hb_cli_bad_option(argv, longopts, optbuf));
            return EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        fprintf(stderr, PROG ": rfc3339: one FILE at most (see --help)\n");
        return EXIT_USAGE;
    }
    const hb_rfc3339_strategy *st = hb_rfc3339_find(name);
    if (!st || st->input == HB_RFC3339_IN_BINARY) {
        fprintf(stderr, PROG ": rfc3339: unknown strategy '%s'; valid strategies:", name);
        for (size_t i = 0, k = 0; i < hb_rfc3339_strategy_count; i++)
            if (hb_rfc3339_strategies[i].input != HB_RFC3339_IN_BINARY)
                fprintf(stderr, "%s %s", k++ ? "," : "", hb_rfc3339_strategies[i].name);
        fprintf(stderr, "\n");
        return EXIT_USAGE;
    }
    if (st->available && !st->available()) {
        fprintf(stderr, PROG ": rfc3339: strategy %s: this CPU lacks its instruction set\n",
                st->name);
        return EXIT_USAGE;
    }
    const char *file = optind < argc && strcmp(argv[optind], "-") != 0 ? argv[optind] : NULL;
    return rfc3339_run(st, file);
}

#else
#define cmd_rfc3339 NULL
#endif

/* ---- volumes ----------------------------------------------------------------------------- */

#ifdef HB_HAVE_VOLUMES
static void volumes_usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " volumes [--strategy NAME] [--piece N] [--max-size N] [FILE]\n"
            "\n"
            "Decodes an EC2 DescribeVolumes XML response from FILE (standard input when FILE\n"
            "is absent or -) and prints the volumes as a JSON array, one volume per line:\n"
            "volumeId, size, snapshotId, availabilityZone, status, createTime, volumeType,\n"
            "iops, throughput, encrypted, multiAttachEnabled (absent members left out),\n"
            "attachments and tags ([{\"key\": ..., \"value\": ...}], order and duplicates kept).\n"
            "Elements are matched by local name; unknown elements and attributes are skipped;\n"
            "a DOCTYPE is rejected.\n"
            "\n"
            "options:\n"
            "  --strategy NAME   the decoder (default " HB_VOL_REFERENCE ", the reference)\n"
            "  --piece N         feed the document in pieces of N bytes, as from a socket\n"
            "                    (streaming strategies only; default: whole)\n"
            "  --max-size N      the largest document in bytes, 0 up (K, M, G = 10^3, 10^6,\n"
            "                    10^9; default 100M: a page of 500 volumes with 50 tags each\n"
            "                    is about 5 MB, and the DOM strategies hold several times\n"
            "                    the document); a larger document or an endless stream\n"
            "                    stops with status 1 as soon as its bytes pass the limit\n"
            "  -h, --help        this text\n"
            "\n"
            "strategies:\n");
    for (size_t i = 0; i < hb_vol_strategy_count; i++)
        fprintf(f, "  %-18s %s%s\n", hb_vol_strategies[i].name, hb_vol_strategies[i].desc,
                hb_vol_strategies[i].output == HB_VOL_OUT_VOLUMES ? "" : " (not usable here)");
    fprintf(f, "\n"
               "exit status: 0 decoded; 1 malformed input, a document over --max-size or an I/O\n"
               "error; 2 a usage error.\n"
               "Malformed input gives one line on standard error:\n"
               "  " PROG ": volumes: <reason> at line L, column C\n");
}

static int volumes_write(void *ctx, const char *p, size_t n)
{
    (void)ctx;
    return hb_write_all(STDOUT_FILENO, p, n);
}

/* Reads the document of file (NULL: standard input), at most max_size bytes, decodes it with st
 * (in pieces of piece bytes; 0: whole) and prints the volumes. Returns the exit status. */
static int volumes_run(const hb_vol_strategy *st, const char *file, size_t piece, uint64_t max_size)
{
    int fd = STDIN_FILENO;
    if (file) {
        fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, PROG ": volumes: cannot open %s: %s\n", file, strerror(errno));
            return EXIT_INPUT;
        }
    }
    uint8_t *doc;
    size_t len;
    int rd = hb_cli_read_all(fd, max_size, &doc, &len);
    int rd_errno = errno;
    if (file)
        close(fd);
    if (rd == 1) {
        fprintf(stderr,
                PROG ": volumes: document exceeds --max-size %" PRIu64 " bytes at byte %" PRIu64
                     "; raise --max-size\n",
                max_size, max_size);
        return EXIT_INPUT;
    }
    if (rd != 0) {
        fprintf(stderr, PROG ": volumes: reading %s: %s\n", file ? file : "standard input",
                strerror(rd_errno));
        return EXIT_INPUT;
    }
    hb_volumes v;
    hb_vol_error err;
    int status = 0;
    int rc = hb_volumes_decode(st, doc, len, piece, &v, &err);
    if (rc != HB_OK) {
        fprintf(stderr, PROG ": volumes: %s at line %" PRIu64 ", column %" PRIu64 "\n",
                err.reason ? err.reason : hb_err_str(rc), err.line, err.column);
        status = EXIT_INPUT;
    } else if (hb_volumes_json(&v, volumes_write, NULL) != 0) {
        if (errno != EPIPE) /* a reader that went away is not worth a message */
            fprintf(stderr, PROG ": volumes: writing standard output: %s\n", strerror(errno));
        status = EXIT_INPUT;
    }
    hb_volumes_free(&v);
    free(doc);
    return status;
}

static int cmd_volumes(int argc, char **argv)
{
    enum { OPT_STRATEGY = 256, OPT_PIECE, OPT_MAX_SIZE };
    static const struct option longopts[] = {
        {"strategy", required_argument, NULL, OPT_STRATEGY},
        {"piece", required_argument, NULL, OPT_PIECE},
        {"max-size", required_argument, NULL, OPT_MAX_SIZE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char optbuf[3];
    const char *strategy = HB_VOL_REFERENCE;
    uint64_t piece = 0, max_size = VOLUMES_MAX_DEFAULT;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_STRATEGY:
            strategy = optarg;
            break;
        case OPT_PIECE:
            if (parse_bytes("volumes", "--piece", optarg, 1, UINT64_C(1) << 30, &piece) != 0)
                return EXIT_USAGE;
            break;
        case OPT_MAX_SIZE:
            if (parse_bytes("volumes", "--max-size", optarg, 0, UINT64_MAX, &max_size) != 0)
                return EXIT_USAGE;
            break;
        case 'h':
            volumes_usage(stdout);
            return fflush(stdout) == 0 ? 0 : EXIT_INPUT;
        case ':':
            fprintf(stderr, PROG ": volumes: option '%s' needs a value (see --help)\n",
                    hb_cli_bad_option(argv, longopts, optbuf));
            return EXIT_USAGE;
        default:
            fprintf(stderr, PROG ": volumes: unknown option '%s' (see --help)\n",
                    hb_cli_bad_option(argv, longopts, optbuf));
            return EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        fprintf(stderr, PROG ": volumes: one FILE at most (see --help)\n");
        return EXIT_USAGE;
    }
    const hb_vol_strategy *st = hb_vol_find(strategy);
    if (!st || st->output != HB_VOL_OUT_VOLUMES) {
        fprintf(stderr, PROG ": volumes: %s strategy '%s'; decoders:",
                st ? "not a decoder:" : "unknown", strategy);
        for (size_t i = 0; i < hb_vol_strategy_count; i++)
            if (hb_vol_strategies[i].output == HB_VOL_OUT_VOLUMES)
                fprintf(stderr, " %s", hb_vol_strategies[i].name);
        fprintf(stderr, "\n");
        return EXIT_USAGE;
    }
    if (piece && !st->streaming) {
        fprintf(stderr, PROG ": volumes: strategy %s does not take --piece (not streaming)\n",
                st->name);
        return EXIT_USAGE;
    }
    const char *file = optind < argc && strcmp(argv[optind], "-") != 0 ? argv[optind] : NULL;
    return volumes_run(st, file, (size_t)piece, max_size);
}
#else
#define cmd_volumes NULL
#endif

/* ---- the subcommands -------------------------------------------------------------------- */

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand; NULL: not built yet */
    const char *summary;
    const char *issue; /* where the one not built yet is planned */
} subcommand;

/* clang-format off */
/* name       run          summary                                                   issue */
static const subcommand subcommands[] = {
    {"dechunk", cmd_dechunk, "chunked HTTP body (optionally gzip) -> decoded bytes",     NULL},
    {"rfc3339", cmd_rfc3339, "RFC 3339 timestamps, one a line -> seconds, nanoseconds", "issue 3"},
    {"volumes", cmd_volumes, "EC2 DescribeVolumes XML -> the volumes as JSON",          "issue 4"},
};
/* clang-format on */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " SUBCOMMAND [options] [FILE]\n"
            "\n"
            "The reference decoders of hotbench as filters: FILE (or standard input) in,\n"
            "the decoded result on standard output. '" PROG " SUBCOMMAND --help' for its options.\n"
            "\n"
            "subcommands:\n");
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
        fprintf(f, "  %-10s %s%s%s%s\n", subcommands[i].name, subcommands[i].summary,
                subcommands[i].run ? "" : " (not built yet, see ",
                subcommands[i].run ? "" : subcommands[i].issue, subcommands[i].run ? "" : ")");
}

int main(int argc, char **argv)
{
    /* Writes to a closed pipe fail with EPIPE instead of killing the process. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return fflush(stdout) == 0 ? 0 : EXIT_INPUT;
    }
    for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
        const subcommand *sc = &subcommands[i];
        if (strcmp(argv[1], sc->name) != 0)
            continue;
        if (!sc->run) {
            fprintf(stderr, PROG ": %s: not built yet (see %s)\n", sc->name, sc->issue);
            return EXIT_USAGE;
        }
        return sc->run(argc - 1, argv + 1);
    }
    fprintf(stderr, PROG ": unknown subcommand '%s' (see --help)\n", argv[1]);
    return EXIT_USAGE;
}

/* hotbench-gen - the generators of hotbench's inputs, as a command.
 *
 *     hotbench-gen chunked [--size N] [--chunk-size N|MIN-MAX] [--gzip[=LEVEL]] [--trailer]
 *                          [--seed S] -o FILE
 *     hotbench-gen timestamps [--rows N] [--columns N] [--encoding rfc3339|millis|both]
 *                             [--fraction 0|1|3|6|9|mixed] [--offsets mixed|z|numeric] [--seed S]
 *                             -o FILE
 *     hotbench-gen volumes [--volumes N] [--tags N] [--compact] [--next-token] [--seed S] -o FILE
 *
 * A thin main: it parses arguments and calls the same library functions (data-gen/hb_gen.h) that
 * the benchmarks use. Exit status: 0 success, 1 I/O or generation error, 2 usage error.
 */
#include "hb_cli.h"
#include "hb_err.h"
#include "hb_gen.h"
#include "hb_gen_ts.h"
#include "hb_gen_xml.h"
#include "hb_io.h"
#include "hb_size.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HB_EXIT_IO 1
#define HB_EXIT_USAGE 2
#define HB_PROGRESS_MIN_SIZE 256000000u /* show progress from this size on even without a tty */

static const char hb_prog[] = "hotbench-gen";

/* ---- argument parsing ------------------------------------------------------------------------ */

/* Parses a seed: a decimal or 0x-prefixed hex unsigned 64-bit integer ("010" is ten: no octal). */
static int hb_parse_u64(const char *s, uint64_t *out)
{
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    /* digits only: strtoull would take a sign, spaces and (base 16) a second 0x */
    if (*s == '\0' || s[strspn(s, base == 16 ? "0123456789abcdefABCDEF" : "0123456789")] != '\0')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, base);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

/* Prints "hotbench-gen: SUB: <message>" and a pointer to --help on stderr; returns exit status 2.
 */
static int hb_usage_error(const char *sub, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int hb_usage_error(const char *sub, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: %s: ", hb_prog, sub);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(try '%s %s --help')\n", hb_prog, sub);
    return HB_EXIT_USAGE;
}

#define HB_GO_ON (-1) /* a parse's result: the arguments are good, run the command */

/* One option of a command, other than -o and -h: c is getopt_long's value (256 up), arg its value
 * (NULL when it has none), params the command's parameter struct, sub the command's name for
 * messages. Returns HB_GO_ON, or HB_EXIT_USAGE after hb_usage_error. */
typedef int (*hb_option_fn)(const char *sub, int c, char *arg, void *params);

/* Parses the arguments of command sub (argv[0] is its name) with getopt_long and longopts:
 * -o/--output FILE into *out, -h/--help prints help on stdout, every other option goes to option
 * with params. Returns HB_GO_ON with *out set; 0 after the help; HB_EXIT_USAGE after a message
 * naming an unknown option, a missing value, an extra argument or the missing -o. */
static int hb_parse_args(const char *sub, int argc, char **argv, const struct option *longopts,
                         hb_option_fn option, void *params, void (*help)(FILE *), const char **out)
{
    char optbuf[3];
    int c, rc;
    *out = NULL;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            *out = optarg;
            break;
        case 'h':
            help(stdout);
            return 0;
        case ':':
            return hb_usage_error(sub, "option '%s' needs a value",
                                  hb_cli_bad_option(argv, longopts, optbuf));
        default:
            if (c < 256) /* '?': an unknown option, or a value for one that takes none */
                return hb_usage_error(sub, "unknown option '%s'",
                                      hb_cli_bad_option(argv, longopts, optbuf));
            rc = option(sub, c, optarg, params);
            if (rc != HB_GO_ON)
                return rc;
        }
    }
    if (optind < argc)
        return hb_usage_error(sub, "unexpected argument '%s'", argv[optind]);
    if (!*out)
        return hb_usage_error(sub, "no output: give -o FILE (- for standard output)");
    return HB_GO_ON;
}

/* --seed S of every command into *seed: HB_GO_ON, or HB_EXIT_USAGE after a message. */
static int hb_seed_option(const char *sub, const char *arg, uint64_t *seed)
{
    if (hb_parse_u64(arg, seed) != 0)
        return hb_usage_error(sub, "--seed '%s': expected an unsigned 64-bit integer", arg);
    return HB_GO_ON;
}

/* ---- progress -------------------------------------------------------------------------------- */

static double hb_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct hb_progress_line {
    double start; /* hb_now() when generation began */
    int shown;    /* a progress line is on the terminal: end it before the summary */
} hb_progress_line;

/* The hb_progress_fn: rewrites one line "<percent> <MB/s>" on stderr. */
static void hb_progress_show(void *ctx, uint64_t done, uint64_t total)
{
    hb_progress_line *pl = ctx;
    double secs = hb_now() - pl->start;
    double pct = total ? 100.0 * (double)done / (double)total : 100.0;
    double mbs = secs > 0 ? (double)done / secs / 1e6 : 0.0;
    fprintf(stderr, "\r%s: chunked: %5.1f%%  %8.1f MB/s  ", hb_prog, pct, mbs);
    fflush(stderr);
    pl->shown = 1;
}

/* ---- chunked -----------------------------------------------------------------------------------
 */

/* Opens the -o target for writing: "-" is standard output. Sets *name to what messages call it.
 * Returns the descriptor, or -1 after printing why. */
static int hb_open_output(const char *out, const char **name)
{
    int to_stdout = strcmp(out, "-") == 0;
    *name = to_stdout ? "(standard output)" : out;
    int fd = to_stdout ? STDOUT_FILENO : open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        fprintf(stderr, "%s: %s: %s\n", hb_prog, *name, strerror(errno));
    return fd;
}

/* Closes what hb_open_output opened (not standard output) and reports the outcome of writing it:
 * rc is the writer's hb_err code and err the errno of an HB_EIO. Prints one message - none for
 * EPIPE, a reader that went away - and returns 0 or HB_EXIT_IO. */
static int hb_close_output(const char *sub, const char *name, int fd, int rc, int err)
{
    if (fd != STDOUT_FILENO && close(fd) != 0 && rc == HB_OK) {
        rc = HB_EIO;
        err = errno;
    }
    if (rc == HB_OK)
        return 0;
    if (rc != HB_EIO)
        fprintf(stderr, "%s: %s: %s: %s\n", hb_prog, sub, name, hb_err_str(rc));
    else if (err != EPIPE)
        fprintf(stderr, "%s: %s: %s\n", hb_prog, name, strerror(err));
    return HB_EXIT_IO;
}

static void hb_chunked_help(FILE *f)
{
    fprintf(f,
            "Usage: %s chunked [OPTIONS] -o FILE\n"
            "\n"
            "Writes the raw message body of an HTTP/1.1 response sent with\n"
            "Transfer-Encoding: chunked (RFC 9112 section 7.1): lowercase hex chunk-size lines,\n"
            "the chunk-data, the last-chunk 0, an optional trailer section, the final CRLF.\n"
            "The decoded content is deterministic synthetic TSV rows shaped like an ad\n"
            "platform's website-visit export:\n"
            "  <16 hex user id> TAB <unix seconds> TAB <url path> TAB <views> TAB <conversions>\n"
            "\n"
            "Options:\n"
            "      --size N            decoded payload bytes (default 1.7G = 1700000000)\n"
            "      --chunk-size N|MIN-MAX\n"
            "                          chunk-data bytes per chunk, fixed or drawn uniformly\n"
            "                          in MIN..MAX (default 4096-16384, at most 16777216)\n"
            "      --gzip[=LEVEL]      the chunks carry a gzip stream of the payload made by\n"
            "                          zlib at LEVEL 0-9 (Content-Encoding: gzip); LEVEL\n"
            "                          defaults to 1, nginx's default gzip_comp_level\n"
            "      --trailer           end with a trailer section of two fields:\n"
            "                          X-Checksum-Crc32 (of the payload) and X-Rows\n"
            "      --seed S            PRNG seed (default %llu); the same options and seed\n"
            "                          give the same bytes\n"
            "  -o, --output FILE       where to write the body; - for standard output\n"
            "  -h, --help              show this help and exit\n"
            "\n"
            "Sizes are decimal byte counts with an optional suffix K, M or G (10^3, 10^6,\n"
            "10^9) and may have a fraction: 64K = 64000, 1.7G = 1700000000.\n"
            "\n"
            "When done it prints on stderr the decoded size, body size, chunk count, crc32 of\n"
            "the decoded payload, seed and throughput. Progress (percent, MB/s) is shown on\n"
            "stderr when it is a terminal or the size is 256M or more.\n"
            "Exit status: 0 success, 1 I/O or generation error, 2 usage error.\n",
            hb_prog, (unsigned long long)HB_GEN_DEFAULT_SEED);
}

/* Parses --chunk-size N or MIN-MAX into *p. Returns 0, or -1 with a static reason. */
static int hb_parse_chunk_size(char *arg, hb_chunked_params *p, const char **why)
{
    uint64_t lo, hi;
    char *dash = strchr(arg, '-');
    if (dash) {
        *dash = '\0';
        int bad = hb_size_parse(arg, &lo, why) != 0 || hb_size_parse(dash + 1, &hi, why) != 0;
        *dash = '-';
        if (bad)
            return -1;
    } else {
        if (hb_size_parse(arg, &lo, why) != 0)
            return -1;
        hi = lo;
    }
    if (lo == 0) {
        *why = "chunk size must be at least 1";
        return -1;
    }
    if (lo > HB_GEN_CHUNK_LIMIT || hi > HB_GEN_CHUNK_LIMIT) {
        *why = "chunk size must be at most 16777216 (2^24)";
        return -1;
    }
    if (lo > hi) {
        *why = "MIN exceeds MAX";
        return -1;
    }
    p->chunk_min = (uint32_t)lo;
    p->chunk_max = (uint32_t)hi;
    return 0;
}

/* chunked's options; getopt_long's values, from 256 (a long option's val appears in messages). */
enum { CH_SIZE = 256, CH_CHUNK, CH_GZIP, CH_TRAILER, CH_SEED };

/* An option of chunked into the hb_chunked_params at params (an hb_option_fn). */
static int hb_chunked_option(const char *sub, int c, char *arg, void *params)
{
    hb_chunked_params *p = params;
    const char *why;
    switch (c) {
    case CH_SIZE:
        if (hb_size_parse(arg, &p->size, &why) != 0)
            return hb_usage_error(sub, "--size '%s': %s", arg, why);
        break;
    case CH_CHUNK:
        if (hb_parse_chunk_size(arg, p, &why) != 0)
            return hb_usage_error(sub, "--chunk-size '%s': %s", arg, why);
        break;
    case CH_GZIP:
        if (!arg)
            p->gzip_level = 1;
        else if (arg[0] >= '0' && arg[0] <= '9' && arg[1] == '\0')
            p->gzip_level = arg[0] - '0';
        else
            return hb_usage_error(sub, "--gzip='%s': the level is 0 to 9", arg);
        break;
    case CH_TRAILER:
        p->trailer = 1;
        break;
    default: /* CH_SEED */
        return hb_seed_option(sub, arg, &p->seed);
    }
    return HB_GO_ON;
}

/* Parses chunked's argv into *p (from the defaults) and *out. Returns HB_GO_ON, or the exit
 * status: 0 after --help, HB_EXIT_USAGE after a message. */
static int hb_chunked_args(int argc, char **argv, hb_chunked_params *p, const char **out)
{
    static const struct option longopts[] = {
        {"size", required_argument, NULL, CH_SIZE},
        {"chunk-size", required_argument, NULL, CH_CHUNK},
        {"gzip", optional_argument, NULL, CH_GZIP},
        {"trailer", no_argument, NULL, CH_TRAILER},
        {"seed", required_argument, NULL, CH_SEED},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *why;
    hb_chunked_params_default(p);
    int rc =
        hb_parse_args("chunked", argc, argv, longopts, hb_chunked_option, p, hb_chunked_help, out);
    if (rc == HB_GO_ON && hb_chunked_params_check(p, &why) != HB_OK)
        return hb_usage_error("chunked", "%s", why);
    return rc;
}

/* chunked's summary on stderr: what was written to name in secs seconds. */
static void hb_chunked_summary(const hb_chunked_params *p, const hb_chunked_info *info,
                               const char *name, double secs)
{
    fprintf(stderr, "%s: chunked: wrote %s\n", hb_prog, name);
    fprintf(stderr, "  decoded size  %llu bytes\n", (unsigned long long)info->size);
    fprintf(stderr, "  body size     %llu bytes", (unsigned long long)info->body_size);
    if (p->gzip_level >= 0)
        fprintf(stderr, " (gzip level %d: %llu bytes, ratio %.2f)", p->gzip_level,
                (unsigned long long)info->gzip_size,
                info->gzip_size ? (double)info->size / (double)info->gzip_size : 0.0);
    fprintf(stderr, "\n");
    fprintf(stderr, "  chunks        %llu of %lu-%lu bytes\n", (unsigned long long)info->chunks,
            (unsigned long)p->chunk_min, (unsigned long)p->chunk_max);
    fprintf(stderr, "  rows          %llu\n", (unsigned long long)info->rows);
    fprintf(stderr, "  crc32         %08lx (of the decoded payload)\n", (unsigned long)info->crc32);
    fprintf(stderr, "  seed          %llu\n", (unsigned long long)p->seed);
    fprintf(stderr, "  throughput    %.1f MB/s of decoded payload (%.3f s)\n",
            secs > 0 ? (double)info->size / secs / 1e6 : 0.0, secs);
}

/* Writes the body *p describes to out ("-": stdout), with progress on stderr for a terminal or a
 * large body, then the summary. Returns 0 or HB_EXIT_IO (after a message). */
static int hb_chunked_run(const hb_chunked_params *p, const char *out)
{
    const char *name;
    int fd = hb_open_output(out, &name);
    if (fd < 0)
        return HB_EXIT_IO;
    hb_progress_line pl = {hb_now(), 0};
    int show = isatty(STDERR_FILENO) || p->size >= HB_PROGRESS_MIN_SIZE;
    hb_chunked_info info;
    int rc = hb_chunked_write(p, fd, show ? hb_progress_show : NULL, &pl, &info);
    int err = errno;
    double secs = hb_now() - pl.start;
    if (pl.shown)
        fputc('\n', stderr);
    if (hb_close_output("chunked", name, fd, rc, err) != 0)
        return HB_EXIT_IO;
    hb_chunked_summary(p, &info, name, secs);
    return 0;
}

static int hb_cmd_chunked(int argc, char **argv)
{
    hb_chunked_params p;
    const char *out;
    int rc = hb_chunked_args(argc, argv, &p, &out);
    return rc == HB_GO_ON ? hb_chunked_run(&p, out) : rc;
}

/* ---- timestamps --------------------------------------------------------------------------------
 */

static void hb_timestamps_help(FILE *f)
{
    fprintf(f,
            "Usage: %s timestamps [OPTIONS] -o FILE\n"
            "\n"
            "Writes rows of instants as a database wire protocol carries them (incident 2: a\n"
            "Spanner TIMESTAMP column): one row a line, columns separated by tabs. RFC 3339\n"
            "strings with 'Z' on most rows and a numeric offset on some, fractions of 0, 3, 6\n"
            "or 9 digits (trailing zero groups trimmed, as Spanner does); for millis the same\n"
            "instants as decimal Unix milliseconds, rounded down (UNIX_MILLIS). Instants:\n"
            "mostly 1970-2100, some before 1970, a few at the limits of 0001-9999.\n"
            "\n"
            "Options:\n"
            "      --rows N            rows (default %u; suffixes K, M = 10^3, 10^6)\n"
            "      --columns N         instants per row, 1 to %u (default 1)\n"
            "      --encoding E        rfc3339 (default), millis, or both: the RFC 3339\n"
            "                          columns, then the millis columns of the same instants\n"
            "      --fraction D        fraction digits of every value: 0, 1, 3, 6, 9, or mixed\n"
            "                          (default: a quarter each)\n"
            "      --offsets O         mixed (default: 'Z' on 90%%), z, or numeric\n"
            "      --seed S            PRNG seed (default %llu); the same options and seed\n"
            "                          give the same bytes\n"
            "  -o, --output FILE       where to write the rows; - for standard output\n"
            "  -h, --help              show this help and exit\n"
            "\n"
            "When done it prints on stderr the rows, values, bytes, crc32 and seed.\n"
            "Exit status: 0 success, 1 I/O error, 2 usage error.\n",
            hb_prog, HB_TS_DEFAULT_ROWS, HB_TS_MAX_COLUMNS,
            (unsigned long long)HB_GEN_DEFAULT_SEED);
}

/* timestamps' options; getopt_long's values, from 256. */
enum { TS_ROWS = 256, TS_COLUMNS, TS_ENCODING, TS_FRACTION, TS_OFFSETS, TS_SEED };

/* An option of timestamps into the hb_ts_params at params (an hb_option_fn). */
static int hb_timestamps_option(const char *sub, int c, char *arg, void *params)
{
    hb_ts_params *p = params;
    const char *why;
    uint64_t v;
    switch (c) {
    case TS_ROWS:
        if (hb_size_parse(arg, &p->rows, &why) != 0)
            return hb_usage_error(sub, "--rows '%s': %s", arg, why);
        if (p->rows > HB_TS_MAX_ROWS)
            return hb_usage_error(sub, "--rows '%s': at most %u", arg, HB_TS_MAX_ROWS);
        break;
    case TS_COLUMNS:
        if (hb_size_parse(arg, &v, &why) != 0 || v < 1 || v > HB_TS_MAX_COLUMNS)
            return hb_usage_error(sub, "--columns '%s': expected 1 to %u", arg, HB_TS_MAX_COLUMNS);
        p->columns = (uint32_t)v;
        break;
    case TS_ENCODING:
        if (strcmp(arg, "rfc3339") == 0)
            p->encoding = HB_TS_RFC3339;
        else if (strcmp(arg, "millis") == 0)
            p->encoding = HB_TS_MILLIS;
        else if (strcmp(arg, "both") == 0)
            p->encoding = HB_TS_BOTH;
        else
            return hb_usage_error(sub, "--encoding '%s': expected rfc3339, millis or both", arg);
        break;
    case TS_FRACTION:
        if (strcmp(arg, "mixed") == 0)
            p->fraction = HB_TS_FRACTION_MIXED;
        else if (arg[0] && strchr("01369", arg[0]) && arg[1] == '\0')
            p->fraction = arg[0] - '0';
        else
            return hb_usage_error(sub, "--fraction '%s': expected 0, 1, 3, 6, 9 or mixed", arg);
        break;
    case TS_OFFSETS:
        if (strcmp(arg, "mixed") == 0)
            p->offsets = HB_TS_OFFSETS_MIXED;
        else if (strcmp(arg, "z") == 0 || strcmp(arg, "Z") == 0)
            p->offsets = HB_TS_OFFSETS_Z;
        else if (strcmp(arg, "numeric") == 0)
            p->offsets = HB_TS_OFFSETS_NUMERIC;
        else
            return hb_usage_error(sub, "--offsets '%s': expected mixed, z or numeric", arg);
        break;
    default: /* TS_SEED */
        return hb_seed_option(sub, arg, &p->seed);
    }
    return HB_GO_ON;
}

/* Parses timestamps' argv into *p (from the defaults) and *out. Returns HB_GO_ON, or the exit
 * status: 0 after --help, HB_EXIT_USAGE after a message. */
static int hb_timestamps_args(int argc, char **argv, hb_ts_params *p, const char **out)
{
    static const struct option longopts[] = {
        {"rows", required_argument, NULL, TS_ROWS},
        {"columns", required_argument, NULL, TS_COLUMNS},
        {"encoding", required_argument, NULL, TS_ENCODING},
        {"fraction", required_argument, NULL, TS_FRACTION},
        {"offsets", required_argument, NULL, TS_OFFSETS},
        {"seed", required_argument, NULL, TS_SEED},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *why;
    hb_ts_params_default(p);
    int rc = hb_parse_args("timestamps", argc, argv, longopts, hb_timestamps_option, p,
                           hb_timestamps_help, out);
    if (rc == HB_GO_ON && hb_ts_params_check(p, &why) != HB_OK)
        return hb_usage_error("timestamps", "%s", why);
    return rc;
}

/* Writes the rows *p describes to out ("-": stdout), then the summary on stderr. Returns 0 or
 * HB_EXIT_IO (after a message). */
static int hb_timestamps_run(const hb_ts_params *p, const char *out)
{
    static const char sub[] = "timestamps";
    const char *name;
    int fd = hb_open_output(out, &name);
    if (fd < 0)
        return HB_EXIT_IO;
    double start = hb_now();
    hb_ts_info info;
    int rc = hb_ts_write(p, fd, &info);
    int err = errno;
    double secs = hb_now() - start;
    if (hb_close_output(sub, name, fd, rc, err) != 0)
        return HB_EXIT_IO;
    static const char *const encodings[] = {"", "rfc3339", "millis", "both"};
    fprintf(stderr, "%s: %s: wrote %s\n", hb_prog, sub, name);
    fprintf(stderr, "  rows          %llu of %u column%s (%s)\n", (unsigned long long)info.rows,
            p->columns, p->columns == 1 ? "" : "s", encodings[p->encoding]);
    fprintf(stderr, "  values        %llu\n", (unsigned long long)info.values);
    fprintf(stderr, "  bytes         %llu\n", (unsigned long long)info.bytes);
    fprintf(stderr, "  crc32         %08lx\n", (unsigned long)info.crc32);
    fprintf(stderr, "  seed          %llu\n", (unsigned long long)p->seed);
    fprintf(stderr, "  throughput    %.1f MB/s (%.3f s)\n",
            secs > 0 ? (double)info.bytes / secs / 1e6 : 0.0, secs);
    return 0;
}

static int hb_cmd_timestamps(int argc, char **argv)
{
    hb_ts_params p;
    const char *out;
    int rc = hb_timestamps_args(argc, argv, &p, &out);
    return rc == HB_GO_ON ? hb_timestamps_run(&p, out) : rc;
}

/* ---- volumes -----------------------------------------------------------------------------------
 */

static void hb_volumes_help(FILE *f)
{
    fprintf(f,
            "Usage: %s volumes [OPTIONS] -o FILE\n"
            "\n"
            "Writes an EC2 DescribeVolumes response as the service sends it (API 2016-11-15):\n"
            "an XML declaration, DescribeVolumesResponse with requestId, a volumeSet of one\n"
            "item per volume (volumeId, size, snapshotId, availabilityZone, status, createTime,\n"
            "attachmentSet, volumeType, iops, throughput, encrypted, multiAttachEnabled, and a\n"
            "tagSet of key/value items), an optional nextToken. Some tag values hold escaped\n"
            "characters (&amp; &lt; &gt; &quot;) and some non-ASCII UTF-8.\n"
            "\n"
            "Options:\n"
            "      --volumes N         volumes (default %u, at most %u)\n"
            "      --tags N            tags per volume (default %u, at most %u; 0: no tagSet)\n"
            "      --compact           no whitespace between elements (default: indented by\n"
            "                          four spaces, LF line ends)\n"
            "      --next-token        end with a nextToken (a paginated response)\n"
            "      --seed S            PRNG seed (default %llu); the same options and seed\n"
            "                          give the same bytes\n"
            "  -o, --output FILE       where to write the response; - for standard output\n"
            "  -h, --help              show this help and exit\n"
            "\n"
            "N and S are decimal or 0x-prefixed hexadecimal integers (\"010\" is ten).\n"
            "\n"
            "When done it prints on stderr the byte, element, volume and tag counts and the\n"
            "seed. Exit status: 0 success, 1 I/O error, 2 usage error.\n",
            hb_prog, HB_VOLUMES_DEFAULT_VOLUMES, HB_VOLUMES_MAX_VOLUMES, HB_VOLUMES_DEFAULT_TAGS,
            HB_VOLUMES_MAX_TAGS, (unsigned long long)HB_VOLUMES_DEFAULT_SEED);
}

/* volumes' options; getopt_long's values, from 256. */
enum { VO_VOLUMES = 256, VO_TAGS, VO_COMPACT, VO_NEXT_TOKEN, VO_SEED };

/* An option of volumes into the hb_volumes_params at params (an hb_option_fn). */
static int hb_volumes_option(const char *sub, int c, char *arg, void *params)
{
    hb_volumes_params *p = params;
    uint64_t v;
    switch (c) {
    case VO_VOLUMES:
        if (hb_parse_u64(arg, &v) != 0 || v > HB_VOLUMES_MAX_VOLUMES)
            return hb_usage_error(sub, "--volumes '%s': expected 0 to %u", arg,
                                  HB_VOLUMES_MAX_VOLUMES);
        p->volumes = (uint32_t)v;
        break;
    case VO_TAGS:
        if (hb_parse_u64(arg, &v) != 0 || v > HB_VOLUMES_MAX_TAGS)
            return hb_usage_error(sub, "--tags '%s': expected 0 to %u", arg, HB_VOLUMES_MAX_TAGS);
        p->tags = (uint32_t)v;
        break;
    case VO_COMPACT:
        p->compact = 1;
        break;
    case VO_NEXT_TOKEN:
        p->next_token = 1;
        break;
    default: /* VO_SEED */
        return hb_seed_option(sub, arg, &p->seed);
    }
    return HB_GO_ON;
}

/* Parses volumes' argv into *p (from the defaults) and *out. Returns HB_GO_ON, or the exit
 * status: 0 after --help, HB_EXIT_USAGE after a message. */
static int hb_volumes_args(int argc, char **argv, hb_volumes_params *p, const char **out)
{
    static const struct option longopts[] = {
        {"volumes", required_argument, NULL, VO_VOLUMES},
        {"tags", required_argument, NULL, VO_TAGS},
        {"compact", no_argument, NULL, VO_COMPACT},
        {"next-token", no_argument, NULL, VO_NEXT_TOKEN},
        {"seed", required_argument, NULL, VO_SEED},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *why;
    hb_volumes_params_default(p);
    int rc =
        hb_parse_args("volumes", argc, argv, longopts, hb_volumes_option, p, hb_volumes_help, out);
    if (rc == HB_GO_ON && hb_volumes_params_check(p, &why) != HB_OK)
        return hb_usage_error("volumes", "%s", why);
    return rc;
}

/* volumes' summary on stderr: what was written to name in secs seconds. */
static void hb_volumes_summary(const hb_volumes_params *p, const hb_volumes_info *info,
                               const char *name, double secs)
{
    fprintf(stderr, "%s: volumes: wrote %s\n", hb_prog, name);
    fprintf(stderr, "  bytes         %llu (%s)\n", (unsigned long long)info->bytes,
            p->compact ? "compact" : "indented");
    fprintf(stderr, "  volumes       %llu (%llu attached)\n", (unsigned long long)info->volumes,
            (unsigned long long)info->attachments);
    fprintf(stderr, "  tags          %llu (%u per volume; %llu values escaped, %llu non-ASCII)\n",
            (unsigned long long)info->tags, p->tags, (unsigned long long)info->escaped,
            (unsigned long long)info->non_ascii);
    fprintf(stderr, "  elements      %llu\n", (unsigned long long)info->elements);
    fprintf(stderr, "  seed          %llu\n", (unsigned long long)p->seed);
    fprintf(stderr, "  throughput    %.1f MB/s (%.3f s)\n",
            secs > 0 ? (double)info->bytes / secs / 1e6 : 0.0, secs);
}

/* Generates the response *p describes in memory, writes it to out ("-": stdout), then the
 * summary on stderr. Returns 0 or HB_EXIT_IO (after a message). */
static int hb_volumes_run(const hb_volumes_params *p, const char *out)
{
    static const char sub[] = "volumes";
    uint8_t *doc;
    size_t len;
    hb_volumes_info info;
    double start = hb_now();
    int rc = hb_volumes_generate(p, &doc, &len, &info);
    if (rc != HB_OK) {
        fprintf(stderr, "%s: %s: %s\n", hb_prog, sub, hb_err_str(rc));
        return HB_EXIT_IO;
    }
    const char *name;
    int fd = hb_open_output(out, &name);
    if (fd < 0) {
        free(doc);
        return HB_EXIT_IO;
    }
    rc = hb_write_all(fd, doc, len) == 0 ? HB_OK : HB_EIO;
    int err = errno;
    free(doc);
    if (hb_close_output(sub, name, fd, rc, err) != 0)
        return HB_EXIT_IO;
    hb_volumes_summary(p, &info, name, hb_now() - start);
    return 0;
}

static int hb_cmd_volumes(int argc, char **argv)
{
    hb_volumes_params p;
    const char *out;
    int rc = hb_volumes_args(argc, argv, &p, &out);
    return rc == HB_GO_ON ? hb_volumes_run(&p, out) : rc;
}

/* ---- main --------------------------------------------------------------------------------------
 */

typedef struct hb_gen_cmd {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
    const char *summary;
} hb_gen_cmd;

/* clang-format off */
/* name          run                 one-line summary */
static const hb_gen_cmd hb_gen_cmds[] = {
    {"chunked",    hb_cmd_chunked,    "a chunked HTTP/1.1 body of synthetic TSV rows (identity or gzip)"},
    {"timestamps", hb_cmd_timestamps, "rows of RFC 3339 timestamps and/or Unix millis"},
    {"volumes",    hb_cmd_volumes,    "an EC2 DescribeVolumes XML response (tag-heavy)"},
};
/* clang-format on */

#define HB_N_CMDS (sizeof hb_gen_cmds / sizeof hb_gen_cmds[0])

static void hb_help(FILE *f)
{
    fprintf(f, "Usage: %s COMMAND [OPTIONS] -o FILE\n\n", hb_prog);
    fprintf(f,
            "Deterministic generators of hotbench's inputs (same options and seed, same bytes).\n");
    fprintf(f, "\nCommands:\n");
    for (size_t i = 0; i < HB_N_CMDS; i++)
        fprintf(f, "  %-12s %s\n", hb_gen_cmds[i].name, hb_gen_cmds[i].summary);
    fprintf(f, "\n'%s COMMAND --help' describes a command's options.\n", hb_prog);
}

int main(int argc, char **argv)
{
    /* Writes to a closed pipe fail with EPIPE (exit status 1) instead of killing the process. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        hb_help(stderr);
        return HB_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        hb_help(stdout);
        return 0;
    }
    for (size_t i = 0; i < HB_N_CMDS; i++)
        if (strcmp(argv[1], hb_gen_cmds[i].name) == 0)
            return hb_gen_cmds[i].run(argc - 1, argv + 1);
    fprintf(stderr, "%s: unknown command '%s' (try '%s --help')\n", hb_prog, argv[1], hb_prog);
    return HB_EXIT_USAGE;
}

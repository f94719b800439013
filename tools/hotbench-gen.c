/* hotbench-gen - the generators of hotbench's inputs, as a command.
 *
 *     hotbench-gen chunked [--size N] [--chunk-size N|MIN-MAX] [--gzip[=LEVEL]] [--trailer]
 *                          [--seed S] -o FILE
 *     hotbench-gen timestamps ...   (issue 3)
 *     hotbench-gen volumes ...      (issue 4)
 *
 * A thin main: it parses arguments and calls the same library functions (data-gen/hb_gen.h) that
 * the benchmarks use. Exit status: 0 success, 1 I/O or generation error, 2 usage error.
 */
#include "hb_err.h"
#include "hb_gen.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

/* Parses a decimal byte count with an optional fraction and suffix K, M or G (powers of 1000;
 * either case): "4096", "64K", "1.7G". Returns 0 and *out, or -1 with a static reason. */
static int hb_parse_size(const char *s, uint64_t *out, const char **why)
{
    const char *p = s;
    uint64_t ip = 0;
    if (*p < '0' || *p > '9') {
        *why = "expected a number such as 4096, 64K or 1.7G";
        return -1;
    }
    while (*p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p++ - '0');
        if (ip > (UINT64_MAX - d) / 10) {
            *why = "number too large";
            return -1;
        }
        ip = ip * 10 + d;
    }
    uint64_t frac = 0, scale = 1; /* the fraction is frac / scale */
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9') {
            *why = "expected digits after the decimal point";
            return -1;
        }
        while (*p >= '0' && *p <= '9') {
            if (scale >= 1000000000u) {
                *why = "too many digits after the decimal point";
                return -1;
            }
            frac = frac * 10 + (uint64_t)(*p++ - '0');
            scale *= 10;
        }
    }
    uint64_t mult = 1;
    switch (*p) {
    case 'k':
    case 'K':
        mult = 1000u;
        p++;
        break;
    case 'm':
    case 'M':
        mult = 1000000u;
        p++;
        break;
    case 'g':
    case 'G':
        mult = 1000000000u;
        p++;
        break;
    default:
        break;
    }
    if (*p != '\0') {
        *why = "unexpected characters (suffixes: K, M, G = 10^3, 10^6, 10^9)";
        return -1;
    }
    /* frac < scale <= 10^9 and mult <= 10^9: the product fits */
    if (frac * mult % scale != 0) {
        *why = "not a whole number of bytes";
        return -1;
    }
    uint64_t fpart = frac * mult / scale;
    if (ip > (UINT64_MAX - fpart) / mult) {
        *why = "number too large";
        return -1;
    }
    *out = ip * mult + fpart;
    return 0;
}

/* Parses a seed: a decimal or 0x-prefixed hex unsigned 64-bit integer. */
static int hb_parse_u64(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
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
        int bad = hb_parse_size(arg, &lo, why) != 0 || hb_parse_size(dash + 1, &hi, why) != 0;
        *dash = '-';
        if (bad)
            return -1;
    } else {
        if (hb_parse_size(arg, &lo, why) != 0)
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

static int hb_cmd_chunked(int argc, char **argv)
{
    static const char sub[] = "chunked";
    enum { OPT_SIZE = 256, OPT_CHUNK, OPT_GZIP, OPT_TRAILER, OPT_SEED };
    static const struct option longopts[] = {
        {"size", required_argument, NULL, OPT_SIZE},
        {"chunk-size", required_argument, NULL, OPT_CHUNK},
        {"gzip", optional_argument, NULL, OPT_GZIP},
        {"trailer", no_argument, NULL, OPT_TRAILER},
        {"seed", required_argument, NULL, OPT_SEED},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    hb_chunked_params p;
    hb_chunked_params_default(&p);
    const char *out = NULL;
    const char *why;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_SIZE:
            if (hb_parse_size(optarg, &p.size, &why) != 0)
                return hb_usage_error(sub, "--size '%s': %s", optarg, why);
            break;
        case OPT_CHUNK:
            if (hb_parse_chunk_size(optarg, &p, &why) != 0)
                return hb_usage_error(sub, "--chunk-size '%s': %s", optarg, why);
            break;
        case OPT_GZIP:
            if (!optarg)
                p.gzip_level = 1;
            else if (optarg[0] >= '0' && optarg[0] <= '9' && optarg[1] == '\0')
                p.gzip_level = optarg[0] - '0';
            else
                return hb_usage_error(sub, "--gzip='%s': the level is 0 to 9", optarg);
            break;
        case OPT_TRAILER:
            p.trailer = 1;
            break;
        case OPT_SEED:
            if (hb_parse_u64(optarg, &p.seed) != 0)
                return hb_usage_error(sub, "--seed '%s': expected an unsigned 64-bit integer",
                                      optarg);
            break;
        case 'o':
            out = optarg;
            break;
        case 'h':
            hb_chunked_help(stdout);
            return 0;
        case ':':
            return hb_usage_error(sub, "option '%s' needs a value", argv[optind - 1]);
        default:
            return hb_usage_error(sub, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return hb_usage_error(sub, "unexpected argument '%s'", argv[optind]);
    if (!out)
        return hb_usage_error(sub, "no output: give -o FILE (- for standard output)");
    if (hb_chunked_params_check(&p, &why) != HB_OK)
        return hb_usage_error(sub, "%s", why);

    int to_stdout = strcmp(out, "-") == 0;
    const char *name = to_stdout ? "(standard output)" : out;
    int fd = to_stdout ? STDOUT_FILENO : open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "%s: %s: %s\n", hb_prog, name, strerror(errno));
        return HB_EXIT_IO;
    }

    hb_progress_line pl = {hb_now(), 0};
    int show = isatty(STDERR_FILENO) || p.size >= HB_PROGRESS_MIN_SIZE;
    hb_chunked_info info;
    int rc = hb_chunked_write(&p, fd, show ? hb_progress_show : NULL, &pl, &info);
    int err = errno;
    double secs = hb_now() - pl.start;
    if (rc == HB_OK && !to_stdout && close(fd) != 0) {
        rc = HB_EIO;
        err = errno;
    }
    if (pl.shown)
        fputc('\n', stderr);
    if (rc != HB_OK) {
        if (rc == HB_EIO)
            fprintf(stderr, "%s: %s: %s\n", hb_prog, name, strerror(err));
        else
            fprintf(stderr, "%s: %s: %s: %s\n", hb_prog, sub, name, hb_err_str(rc));
        if (!to_stdout)
            close(fd);
        return HB_EXIT_IO;
    }

    fprintf(stderr, "%s: %s: wrote %s\n", hb_prog, sub, name);
    fprintf(stderr, "  decoded size  %llu bytes\n", (unsigned long long)info.size);
    fprintf(stderr, "  body size     %llu bytes", (unsigned long long)info.body_size);
    if (p.gzip_level >= 0)
        fprintf(stderr, " (gzip level %d: %llu bytes, ratio %.2f)", p.gzip_level,
                (unsigned long long)info.gzip_size,
                info.gzip_size ? (double)info.size / (double)info.gzip_size : 0.0);
    fprintf(stderr, "\n");
    fprintf(stderr, "  chunks        %llu of %lu-%lu bytes\n", (unsigned long long)info.chunks,
            (unsigned long)p.chunk_min, (unsigned long)p.chunk_max);
    fprintf(stderr, "  rows          %llu\n", (unsigned long long)info.rows);
    fprintf(stderr, "  crc32         %08lx (of the decoded payload)\n", (unsigned long)info.crc32);
    fprintf(stderr, "  seed          %llu\n", (unsigned long long)p.seed);
    fprintf(stderr, "  throughput    %.1f MB/s of decoded payload (%.3f s)\n",
            secs > 0 ? (double)info.size / secs / 1e6 : 0.0, secs);
    return 0;
}

/* ---- the subcommands of later issues -----------------------------------------------------------
 */

static int hb_cmd_timestamps(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "%s: timestamps: not built yet (see issue 3)\n", hb_prog);
    return HB_EXIT_USAGE;
}

static int hb_cmd_volumes(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "%s: volumes: not built yet (see issue 4)\n", hb_prog);
    return HB_EXIT_USAGE;
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
    {"timestamps", hb_cmd_timestamps, "rows of RFC 3339 timestamps (issue 3)"},
    {"volumes",    hb_cmd_volumes,    "an EC2 DescribeVolumes XML response (issue 4)"},
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

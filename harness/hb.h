/* hb.h - hotbench's C API over google-benchmark 1.7 to 1.9 (hb_shim.cc, by feature test).
 *
 * Cases are C; one C++ file (hb_shim.cc) implements this over benchmark::State and
 * benchmark::internal::Benchmark. A case registers C functions with argument lists or ranges,
 * ArgNames, complexity and real time; the function reads its arguments, builds its input outside
 * the timed region, verifies its strategy against the reference, then loops:
 *
 *     static void run(hb_state *st, void *arg)
 *     {
 *         ... build input, verify (hb_state_fail on a mismatch, then return) ...
 *         while (hb_state_keep_running(st))
 *             hb_do_not_optimize_u64(strategy(input));
 *         hb_state_set_bytes_processed(st, hb_state_iterations(st) * bytes);
 *     }
 *
 * Cases do not write this themselves: harness/hb_case_run.h registers the families a case
 * declares as data, from its description (hb_case.h), and runs prepare, verify (once per
 * argument tuple) and time for each benchmark.
 *
 * Pointers handed to the harness (names, arg) must outlive the run: register static tables or
 * memory the case keeps until exit. A benchmark that calls hb_state_fail is reported with its
 * message, is not timed, and makes hb_main return non-zero; hb_state_skip (a budget or memory
 * refusal) is reported and recorded in the JSON but is not a failure.
 */
#ifndef HB_H
#define HB_H

#include <stddef.h>
#include <stdint.h>

#include "hb_case.h"
#include "hb_err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hb_state hb_state; /* a running benchmark: wraps benchmark::State */
typedef struct hb_bench hb_bench; /* a registered family: wraps internal::Benchmark */
typedef void (*hb_bench_fn)(hb_state *st, void *arg);

/* The profile of a run (--hb_profile): which sizes and arguments the cases register. */
enum hb_profile {
    HB_PROFILE_FULL = 0, /* "full": everything, the 1.7 GB production sizes included (default) */
    HB_PROFILE_QUICK,    /* "quick": CI, small and medium sizes */
    HB_PROFILE_SMOKE,    /* "smoke": tests, tiny inputs, every strategy verified once */
    HB_PROFILES          /* the number of profiles (the size of per-profile tables) */
};

/* Options of a run, parsed by hb_main from --hb_* flags and handed to every case's register. */
typedef struct hb_options {
    double budget_s;      /* --hb_budget: skip a size of a quadratic strategy predicted to take
                           * longer (s); default 10, at most 1e6 */
    const char *profile;  /* --hb_profile as given: "full" (default), "quick" or "smoke"; cases
                           * read profile_id */
    enum hb_profile profile_id; /* the same, parsed once by hb_main */
    const char *data_dir; /* --hb_data: cache of generated inputs; default "data" */
    uint32_t read_size;   /* --hb_read: bytes per read for reading cases; default 4096 */
    double max_memory;    /* --hb_max_memory: bytes a benchmark may hold at its peak, 1 to 2^50;
                           * 0 (the default) means 90% of MemAvailable at the time it runs */
    int repetitions;      /* --hb_repetitions (or --benchmark_repetitions): of every benchmark;
                           * default 3, 1 for the smoke profile */
} hb_options;

/* A case's registration entry point: registers its families for *opt. Returns HB_OK or an
 * hb_err code (the run stops with a message). */
typedef int (*hb_case_register_fn)(const hb_options *opt);

typedef struct hb_case {
    const char *name;
    hb_case_register_fn register_fn;
    const hb_case_desc *desc; /* the case's description (hb_case.h): the manifest */
} hb_case;

enum hb_big_o { HB_O_NONE, HB_O_1, HB_O_N, HB_O_N2, HB_O_N3, HB_O_LOGN, HB_O_NLOGN, HB_O_AUTO };
enum hb_unit { HB_NS, HB_US, HB_MS, HB_S };

/* Counter flags, as google-benchmark's Counter::Flags (combine with |). */
enum hb_counter_flags {
    HB_COUNTER_DEFAULT = 0,   /* the value as given */
    HB_COUNTER_RATE = 1,      /* divided by the elapsed time: per second */
    HB_COUNTER_AVG_ITERS = 2, /* divided by the iterations: per iteration */
    HB_COUNTER_1024 = 4,      /* display with binary prefixes (default decimal) */
};

/* --- the run ------------------------------------------------------------------------------ */

/* Parses and removes the --hb_* flags (see hb_print_help), initialises google-benchmark with
 * the rest (so every --benchmark_* flag works), records the run context (git revision from
 * HB_GIT_REV in the environment, compiler, flags, library versions), calls every case's
 * register_fn, runs the benchmarks with the console reporter (and --benchmark_out's file
 * reporter), and returns the process exit status: 0; 1 if any benchmark failed verification or
 * errored; 2 for a bad command line (an unknown flag; a value out of its documented range,
 * including inf, nan and overflow) or when no benchmark matched the filter. With --hb_calibrate
 * (and no --help) it only measures the machine (hb_calibrate.h), prints the JSON line on stdout
 * and returns 0, or 1 when memory is short. */
int hb_main(int argc, char **argv, const hb_case *cases, size_t ncases);

/* Nonzero if this run will run the benchmark named name (the full name as
 * --benchmark_list_tests prints it, e.g. "bufgrow/doubling/size:65536/read:4096/real_time"):
 * --benchmark_filter selects it (google-benchmark's rules: "" and "all" select all, a leading '-'
 * negates, else an extended regular expression found in the name) and the run is not
 * --benchmark_list_tests. For a case's register_fn, to do costly preparations (a machine probe)
 * only when they will be used. */
int hb_filter_selects(const char *name);

/* Adds key=value to the run's JSON "context" (benchmark::AddCustomContext). Copies both. Must be
 * called before the benchmarks run (in main or a case's register_fn): the context is written
 * first. */
void hb_add_context(const char *key, const char *value);

/* --- registration --------------------------------------------------------------------------- */

/* Registers family name (e.g. "bufgrow/httpcore"); fn is called with arg for every argument
 * tuple. Real time is used (UseRealTime). Returns the family, never NULL (aborts on OOM as
 * google-benchmark does). */
hb_bench *hb_register(const char *name, hb_bench_fn fn, void *arg);

/* One argument tuple (benchmark::Args); n values. */
void hb_bench_args(hb_bench *b, const int64_t *args, size_t n);
/* Arguments lo, lo*mult, ..., hi for a single-argument family (RangeMultiplier + Range). */
void hb_bench_range(hb_bench *b, int64_t lo, int64_t hi, int mult);
/* Names of the arguments, in order: the benchmark is named name/<n0>:<v0>/<n1>:<v1>. */
void hb_bench_arg_names(hb_bench *b, const char *const *names, size_t n);
/* The Big-O to fit across the family's successful runs (N from hb_state_set_complexity_n),
 * reported as <family>_BigO and _RMS rows. The shim fits it (least squares of t = c g(N), the
 * smallest RMS for HB_O_AUTO), not google-benchmark, whose 1.7.1 crashes when every run of a
 * family with a complexity fails. */
void hb_bench_complexity(hb_bench *b, enum hb_big_o o);
void hb_bench_unit(hb_bench *b, enum hb_unit u);
void hb_bench_repetitions(hb_bench *b, int n);
/* google-benchmark's minimum time per repetition of the family, in seconds (> 0; its default is
 * 0.5 s). Ignored when --benchmark_min_time was given (the command line sets every family's) and
 * with --benchmark_list_tests. The reporters leave google-benchmark's "min_time:<s>" part out of
 * the names they write; a --benchmark_filter still sees it, before "/real_time". */
void hb_bench_min_time(hb_bench *b, double seconds);
void hb_bench_iterations(hb_bench *b, int64_t n);

/* --- inside a benchmark --------------------------------------------------------------------- */

/* The i-th argument of this run. */
int64_t hb_state_arg(const hb_state *st, size_t i);
/* Nonzero while another timed iteration is wanted (the State's for-range loop). */
int hb_state_keep_running(hb_state *st);
/* Iterations run so far (after the loop: the total). */
int64_t hb_state_iterations(const hb_state *st);
void hb_state_pause_timing(hb_state *st);
void hb_state_resume_timing(hb_state *st);

/* Bytes processed in all iterations; shown as a decimal rate (GB/s) as bytes_per_second. */
void hb_state_set_bytes_processed(hb_state *st, int64_t bytes);
/* Items processed in all iterations; shown as items_per_second. */
void hb_state_set_items_processed(hb_state *st, int64_t items);
void hb_state_set_complexity_n(hb_state *st, int64_t n);
/* A named counter (copied), flags from hb_counter_flags. */
void hb_state_counter(hb_state *st, const char *name, double value, int flags);
/* A label shown after the result (copied). */
void hb_state_set_label(hb_state *st, const char *label);

/* Verification failed or the strategy errored: the run is reported with "error: <message>",
 * not timed, and hb_main returns 1. Call before the loop, then return. printf-style. */
void hb_state_fail(hb_state *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A refusal that is not a failure (predicted time over the budget, not enough memory): reported
 * with "skipped: <message>" in the console and the JSON. Call before the loop, then return.
 * A refusal with figures goes through hb_state_skip_with instead, so that scripts read numbers,
 * not prose. */
void hb_state_skip(hb_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The figures of a refusal; 0 = not applicable. In the run's JSON row they are the numeric
 * fields hb_predicted_s and hb_budget_s (refused by the time budget: the predicted seconds of one
 * run of the benchmark, and --hb_budget), hb_peak_bytes and hb_memory_limit_bytes (refused for
 * memory: the predicted peak, and the bytes allowed); docs/manifest.md, "Fields of a run's
 * rows". */
/* A figure of the refused run's own (what its dry run predicted): name a static string, e.g.
 * "hb_bytes_copied"; the list ends at the first NULL name. */
typedef struct hb_skip_figure {
    const char *name;
    double value;
} hb_skip_figure;
#define HB_SKIP_EXTRA_MAX 4

typedef struct hb_skip {
    double predicted_s;        /* seconds */
    double budget_s;           /* seconds */
    double peak_bytes;         /* bytes */
    double memory_limit_bytes; /* bytes */
    hb_skip_figure extra[HB_SKIP_EXTRA_MAX]; /* more figures, e.g. the dry run's work */
} hb_skip;

/* hb_state_skip with the figures of why (copied; NULL = none): the console shows the message, the
 * JSON row of this run (this repetition) carries the message and the figures that are not 0.
 * google-benchmark 1.7.1 drops the counters of a run that skipped, so the shim keeps the figures
 * (keyed by the run's name and repetition) and its reporter adds them to the row. Call before the
 * loop, then return. */
void hb_state_skip_with(hb_state *st, const hb_skip *why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether hb_state_skip or hb_state_skip_with was called during the current call of the
 * benchmark on st: 1 with its figures in *why (all 0 for hb_state_skip) and its message (without
 * the "skipped: " prefix, truncated to msgsz - 1 bytes, NUL-terminated) in msg; else 0. For the
 * harness, which refuses a tuple's later repetitions alike (google-benchmark 1.7.1 aborts when
 * the repetitions of one benchmark ran different numbers of iterations). */
int hb_state_refusal(const hb_state *st, hb_skip *why, char *msg, size_t msgsz);

/* The do-not-optimise barrier usable from C: the compiler must assume the value or the memory
 * at p is read, so the computation producing it is kept (benchmark::DoNotOptimize). */
static inline void hb_do_not_optimize_u64(uint64_t v)
{
    __asm__ volatile("" : : "r,m"(v) : "memory");
}
static inline void hb_do_not_optimize_ptr(const void *p)
{
    __asm__ volatile("" : : "g"(p) : "memory");
}
/* All pending writes to memory are assumed to be observed (benchmark::ClobberMemory). */
static inline void hb_clobber_memory(void)
{
    __asm__ volatile("" : : : "memory");
}

/* Seconds on the monotonic clock (CLOCK_MONOTONIC), for a case's own timings outside
 * google-benchmark's (calibrations, predictions). */
double hb_now_s(void);

/* Prints the --hb_* flags to f (a FILE *), for a tool's --help. */
void hb_print_help(void *f);

#ifdef __cplusplus
}
#endif

#endif /* HB_H */

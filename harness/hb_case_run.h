/* hb_case_run.h - what every case's bench.c needs, once: families declared as data, registered
 * from the case description, each benchmark verified once per argument tuple, then timed.
 *
 * A case's bench.c declares its families in a static const table of hb_family rows: the group
 * (of its hb_case_desc, cases/<name>/case.c), the argument names and, per profile, the argument
 * tuples; and four functions: bind (a described strategy to the case's implementation), prepare
 * (find or build the input; refuse or fail), verify (run the strategy once and compare with the
 * reference) and time (the timed loop and its counters). hb_case_register registers, for the
 * run's profile, one google-benchmark family "<group>/<strategy>" per strategy the description
 * lists for the group (in its order), with the profile's tuples. When such a benchmark runs:
 *
 *     prepare(r)                      HB_OK to go on, else stop (it called hb_state_fail, or
 *                                     hb_state_skip / hb_state_skip_with)
 *     if the tuple is not yet checked:
 *         verify(r)                   1: same answer as the reference; 0 after hb_state_fail
 *         the tuple is checked        (with r->memo: what verify kept, e.g. allocation counts)
 *     time(r)                         the loop over hb_state_keep_running, then the counters
 *
 * so a strategy whose answer differs is never timed, and later repetitions of a checked tuple
 * are timed without verifying again. A tuple prepare refused (a budget or memory skip) is
 * refused again, with the same message and figures, in its later repetitions without calling
 * prepare: every repetition of a benchmark then runs alike (google-benchmark 1.7.1 aborts
 * otherwise), whatever the machine's memory or the case's measurements did in between. Repetitions are the run's (--hb_repetitions), set by
 * hb_main for every family.
 *
 * Memory: the benches are allocated at registration and kept until the process exits (the
 * harness calls into them); hb_case_set holds them, so a case keeps its set in static storage.
 */
#ifndef HB_CASE_RUN_H
#define HB_CASE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "hb.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HB_MAX_ARGS 8   /* arguments of a benchmark, at most */
#define HB_MEMO_MAX 128 /* bytes of a family's memo, at most */

/* The argument tuples of a family for one profile: n tuples of the family's nargs values each,
 * row after row in v (static data). n = 0: the family is not registered in that profile. */
typedef struct hb_tuples {
    const int64_t *v;
    size_t n;
} hb_tuples;

/* hb_tuples of a static array of rows of nargs values. */
/* clang-format off */
#define HB_TUPLES(array, nargs) {(array), sizeof(array) / sizeof((array)[0]) / (nargs)}
/* clang-format on */

typedef struct hb_family hb_family;
typedef struct hb_case_bench hb_case_bench;

/* One run (one call of a benchmark, one repetition) as the family's functions see it. */
typedef struct hb_run {
    hb_state *st;
    hb_case_bench *bench;
    void *ctx;                 /* the case's context given to hb_case_register */
    int64_t args[HB_MAX_ARGS]; /* this run's arguments, in the family's order */
    size_t nargs;
    int verified; /* nonzero: the tuple was checked earlier in this process */
    void *memo;   /* the family's memo_size bytes kept with the tuple: zeroed
                   * before verify, what verify left there in later runs; NULL
                   * when memo_size is 0 */
    void *input;  /* set by prepare for verify and time (owned by the case) */
} hb_run;

/* One registered benchmark family: a strategy of a group. */
struct hb_case_bench {
    const hb_family *family;
    const hb_strategy_desc *strategy; /* the strategy as the case describes it: name, role,
                                       * declared complexity */
    const void *impl;                 /* the case's implementation, from bind (NULL allowed) */
    void *ctx;                        /* the case's context given to hb_case_register */
    void *state;                      /* family->state_size zeroed bytes for the case: what it
                                       * carries from one run of the family to the next */
    char name[96];                    /* "<group>/<strategy>" */
    /* the checked-input cache: the tuples verified so far, with their memos */
    int64_t *checked;     /* nchecked tuples of nargs values */
    unsigned char *memos; /* nchecked memos of memo_size bytes */
    size_t nchecked, capchecked, nargs;
    /* the tuples prepare refused (hb_state_skip*): their later repetitions are refused alike */
    struct hb_refused *refused; /* nrefused, owned */
    size_t nrefused;
    hb_case_bench *next; /* the set's list */
};

/* One family of a case: static const data plus the case's functions. */
struct hb_family {
    const char *group;             /* a group of the case description, e.g. "rfc3339-digits" */
    const char *const *only;       /* the strategies of the group to register, NULL-terminated;
                                    * NULL = every strategy the description lists */
    int kind;                      /* the case's tag for the family (read by its functions) */
    const char *const *arg_names;  /* NULL-terminated, at most HB_MAX_ARGS */
    hb_tuples tuples[HB_PROFILES]; /* per profile (enum hb_profile order) */
    enum hb_unit unit;             /* the time unit shown */
    enum hb_big_o complexity;      /* the Big-O fitted over the family (HB_O_NONE: none) */
    size_t state_size;             /* bytes of hb_case_bench.state (0: none) */
    size_t memo_size;              /* bytes kept per checked tuple: the sizeof of what verify
                                    * writes at r->memo, at most HB_MEMO_MAX (0: none) */
    /* The implementation of strategy s (of this family's group) in *impl; NULL is allowed (a
     * ceiling the case computes itself). Returns HB_OK, or an hb_err code: the registration
     * stops (the run exits 1 with the message). NULL: impl stays NULL. */
    int (*bind)(void *ctx, const hb_family *f, const hb_strategy_desc *s, const void **impl);
    /* Nonzero if the bench takes this tuple (e.g. only streaming strategies take a piece size);
     * NULL: every tuple. Called at registration. */
    int (*takes)(const hb_case_bench *b, const int64_t *args);
    /* Finds or builds the input (r->input), decides refusals. Returns HB_OK to go on; any other
     * value stops the run, after the function called hb_state_fail or hb_state_skip(_with). */
    int (*prepare)(hb_run *r);
    /* Runs the strategy once outside the timed region and compares its answer with the
     * reference. Returns 1 if it agrees; 0 after hb_state_fail. Only for unchecked tuples.
     * Required: hb_case_register refuses a family without it. */
    int (*verify)(hb_run *r);
    /* The timed loop (hb_state_keep_running) and the counters. */
    void (*time)(hb_run *r);
    /* google-benchmark's minimum time per repetition of this family's benchmarks, in seconds
     * (hb_bench_min_time; a --benchmark_min_time on the command line wins). 0: its default,
     * 0.5 s. A family whose iteration takes well under a millisecond and whose CV does not
     * improve with longer repetitions sets less; the measurements behind each value are in
     * its bench.c. */
    double min_time_s;
};

/* The benches a case registered: kept (static storage) until the process exits. */
typedef struct hb_case_set {
    hb_case_bench *head;
} hb_case_set;

/* Registers families[0 .. n) of case desc for opt->profile_id: for each family, each strategy of
 * its group in the description's order (restricted to family->only), one google-benchmark family
 * "<group>/<strategy>" with the profile's tuples (those family->takes accepts; a strategy taking
 * none is not registered), its argument names, unit and Big-O. ctx is handed to every function
 * (it must outlive the run). The benches are added to *set. Returns HB_OK; HB_EINVAL when a
 * family's group is not described, has too many arguments, or a strategy named in only is not
 * in the group, or opt->profile_id is not a profile (a message on stderr); HB_ENOMEM; or what bind returned. */
int hb_case_register(const hb_case_desc *desc, const hb_family *families, size_t n, void *ctx,
                     const hb_options *opt, hb_case_set *set);

/* The group named name of desc, or NULL. */
const hb_group_desc *hb_case_group(const hb_case_desc *desc, const char *name);

/* Checks that group of desc describes every row of a strategy registry, since hb_case_register
 * registers what the description lists and a row it leaves out would never be benchmarked. rows
 * is count rows of stride bytes each whose first member is the strategy's name (a const char *),
 * as in every registry of the suite. Returns HB_OK, or HB_EINVAL after a message on stderr naming
 * the row and the group. */
int hb_case_check_registry(const hb_case_desc *desc, const char *group, const void *rows,
                           size_t count, size_t stride);

/* The run's memory allowance in bytes: opt->max_memory when set, else 90% of MemAvailable now
 * (/proc/meminfo); 0 when unknown (no limit). */
double hb_memory_limit(const hb_options *opt);

/* The memory refusal: when peak_bytes exceeds hb_memory_limit(opt), skips the run with the
 * message "needs G GB at its peak, more than the L GB allowed (--hb_max_memory, ...)" and the
 * figures hb_peak_bytes and hb_memory_limit_bytes, and returns 1; else returns 0. */
int hb_refuse_memory(hb_state *st, const hb_options *opt, double peak_bytes);

/* The budget refusal: when predicted_s exceeds opt->budget_s, skips the run with the message
 * "predicted P s > budget B s (detail)" (detail NULL or "": no parenthesis) and the figures
 * hb_predicted_s and hb_budget_s, plus extra (NULL, or up to HB_SKIP_EXTRA_MAX figures ending at
 * a NULL name: the dry run's work the prediction came from), and returns 1; else returns 0. */
int hb_refuse_budget(hb_state *st, const hb_options *opt, double predicted_s, const char *detail,
                     const hb_skip_figure *extra);

#ifdef __cplusplus
}
#endif

#endif /* HB_CASE_RUN_H */

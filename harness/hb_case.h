/* hb_case.h - a case describes itself once: the data every script reads.
 *
 * One hb_case_desc per case (cases/<name>/case.c), listed in cases/cases.def. hotbench prints all
 * of them as JSON with --hb_manifest (schema "hotbench-manifest/1", documented in
 * docs/manifest.md) and every run's JSON context carries the same JSON under "hb_manifest", so a
 * report or a gate reads the run file alone. The tables are static data, in the registry style of
 * the strategies' tables: pointers to string literals and to other static tables, NULL-terminated
 * lists, no functions.
 *
 * The words:
 *   case      one incident (a folder under cases/);
 *   group     a benchmark family prefix: benchmark names are <group>/<strategy>/<arg>:<v>/...;
 *   strategy  one registered implementation of the group (or a ceiling: a bound, not a strategy);
 *   view      one series of a group: the argument scaled (x), the others fixed, the production
 *             value of x, and the charts the report draws from it;
 *   reference the row a group's ratios divide by in the report (the goal's yardstick);
 *   yardstick the row the CI gate divides a time by so the machine's speed cancels: library code
 *             the project does not change, linear in the size (a strategy of the group, or a
 *             whole benchmark name of another group);
 *   allocator matrix  the rows `make bench-alloc` runs under each general-purpose allocator
 *             (glibc, jemalloc, mimalloc, tcmalloc): a group's alloc_select (docs/allocators.md);
 *   limits    what bounds a group's fast strategy now, beside the ceiling that bounds it: the
 *             report's "What limits it now" paragraph, with instruction counts and simulated
 *             branch misses from `make limits` (scripts/limits.py) and the run's medians;
 *   custom-allocator twin  a strategy running the same algorithm as another on memory it
 *             manages itself (dead arrays reused, a region): the matrix asks whether a
 *             general-purpose allocator closes the gap between the two (Berger, Zorn and
 *             McKinley, "Reconsidering Custom Memory Allocation", OOPSLA 2002).
 */
#ifndef HB_CASE_H
#define HB_CASE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a row of a group is. */
enum hb_role {
    HB_ROLE_STRATEGY = 0, /* an implementation under test */
    HB_ROLE_CEILING,      /* a bound (memcpy, inflate, a scan): not a strategy, left out of
                           * fastest and slowest */
};

/* How the report fits a strategy's times against x. */
enum hb_model {
    HB_MODEL_POWER = 0,    /* t = a + b*x^k */
    HB_MODEL_PIECEWISE_32, /* t = a + b*x + d*[x > 2^30] + c*X(x): a 32-bit capacity whose growth
                            * turns additive past 2^30 (scripts/hotbench/fit.py) */
};

/* One strategy (a row of the group). */
typedef struct hb_strategy_desc {
    const char *name;   /* as in the benchmark name: [a-z0-9.-]+ */
    enum hb_role role;
    int complexity;     /* declared k of O(x^k) along the group's views: 1 or 2; 0 = no class */
    enum hb_model model;
    const char *custom_allocator_twin; /* the strategy of the same group doing the same work on
                                        * memory it manages itself (reuses dead arrays like the
                                        * JVM's heap, carves structs from a region), whose time
                                        * the allocator matrix divides this one's by; NULL = none */
} hb_strategy_desc;

/* An argument held fixed in a view: name:value as in the benchmark name. */
typedef struct hb_arg {
    const char *name;
    long long value;
} hb_arg;

/* One series of a group. */
typedef struct hb_view_desc {
    const char *key;        /* unique in the manifest: chart file names; e.g. "volumes-tags" */
    const char *title;      /* e.g. "DescribeVolumes, 300 volumes, tags scaled" */
    const char *x;          /* the argument scaled, e.g. "size" */
    const char *x_label;    /* axis label, e.g. "payload size N (bytes)" */
    const char *unit;       /* what x counts, short: "B", "ts", "tag", "volume" */
    const hb_arg *fixed;    /* the other arguments, {NULL, 0}-terminated (may be empty) */
    double production;      /* the incident's value of x, e.g. 1.7e9 */
    const char *production_label; /* e.g. "1.7 GB", "100k rows" */
    double items_per_x;     /* items per unit of x for the per-item axis (1 when x counts items) */
    const char *per_label;  /* per-item axis label, e.g. "time per byte (ns/B)" */
    double per_scale;       /* seconds -> that axis' unit, e.g. 1e9 for ns */
    const char *fit_from;   /* where fits are meaningful: "2x-llc" (sizes from twice the
                             * last-level cache), or a number of x ("1"), or "" = every size */
    const char *const *charts; /* the catalogue's charts for this view, NULL-terminated:
                                * "table", "k-table", "scaling", "extrapolation", "bars",
                                * "per-element", "lines", "copied", "cliff" (docs/manifest.md) */
    /* The fields below are used by some charts only: NULL or 0 where they do not apply. */
    const char *companion;  /* the key of the view measured with this one for its piecewise-32
                             * strategies: a "cliff" view (its sizes join this view's piecewise
                             * fits), else the view whose piecewise fit prices the copies past
                             * 2^30; a "cliff" view names the view whose sizes join its
                             * full-width panels. NULL = none */
    const char *step_arg;   /* piecewise-32: the argument whose value is the bytes appended per
                             * additive step (e.g. "read"), from this view's fixed arguments or
                             * its companion's; NULL = none */
    const char *width_arg;  /* "cliff": the argument narrowing the capacity to that many bits
                             * (e.g. "width"): one panel per strategy and value; NULL = none */
    int plain_x;            /* nonzero: x's ticks as plain numbers, not powers of ten */
    const char *const *upper_bound; /* "copied": strategies whose bytes-copied counts are upper
                                     * bounds (growth by realloc), assumed for a run without the
                                     * bytes_copied_is_upper_bound counter; NULL-terminated */
    const char *items_key;  /* x not a count (items_per_x 0): the run-context key holding the
                             * items one iteration processes, e.g. "rfc3339_variant_rows" */
} hb_view_desc;

/* What limits a group's fast strategy now (docs/manifest.md, "limits"; scripts/limits.py counts,
 * the report writes the paragraph). Figures are never written here: they are measured. */
typedef struct hb_limits_desc {
    const char *strategy;  /* the fast strategy explained: a strategy (role strategy) of the
                            * group */
    const char *ceiling;   /* the row beside it: a ceiling (role ceiling) of the group */
    const char *row;       /* the arguments of the row whose medians the report quotes, as in
                            * the benchmark name after "<group>/<strategy>/", e.g.
                            * "size:67108864/chunk:8192/ext:0" (the same for both rows) */
    const char *probe;     /* the same for the small row counted under callgrind (one
                            * iteration of each of the two rows; seconds under valgrind in the
                            * quick profile), e.g. "size:1048576/chunk:8192/ext:0" */
    const char *item;      /* what the rows' items_per_second counts, singular ("timestamp",
                            * "element"), or NULL: figures per byte only */
    const char *mechanism; /* what bounds the strategy and how it differs from the ceiling's
                            * work, in the case author's words, no figures: one to three
                            * sentences of Markdown */
} hb_limits_desc;

/* One group (benchmark family prefix). */
typedef struct hb_group_desc {
    const char *name;       /* e.g. "bufgrow-gzip" */
    const char *title;      /* e.g. "gzip chunked body into one array" */
    const char *about;      /* what one iteration does, one or two sentences for the report */
    const char *reference;  /* the report's ratio row (a strategy name), or NULL */
    const char *yardstick;  /* the gate's divisor: a strategy name, or a whole benchmark name
                             * (contains '/'); NULL = the group is not speed-gated */
    const hb_strategy_desc *strategies; /* {0}-terminated, in registration order */
    const hb_view_desc *views;          /* {0}-terminated; may be empty */
    const char *gate_select; /* extended regex over "<strategy>/<args>/" (the name after
                              * "<group>/") selecting what the CI gate times, e.g.
                              * "[^/]+/size:(65536|1048576)/"; "" = all; NULL = not timed */
    const char *gate_ir_select; /* the same for the callgrind instruction counts; NULL = none */
    const char *alloc_select; /* extended regex over "<strategy>/<args>/", matched from the
                               * strategy's first character (anchored, unlike gate_select),
                               * selecting what the allocator matrix (make bench-alloc) runs
                               * under every allocator, e.g.
                               * "(exact|sds)/size:(67108864|268435456)/"; NULL = the group is
                               * not in the matrix ("" = all of it). What it selects should take
                               * well under a minute per allocator on a 2-vCPU VM */
    const char *alloc_select_long; /* the same for the rows added by bench_alloc.py --long: those
                                    * that take minutes per allocator there (1 GiB and more of
                                    * fresh memory per run); NULL = none */
    const hb_limits_desc *limits; /* what limits its fast strategy now, or NULL: no paragraph */
    int gate_isolate; /* nonzero: the compare runs each strategy of the group in a process of
                       * its own (scripts/hotbench/compare/isolation.py), for a group whose
                       * times depend on the heap earlier benchmarks left (whether an array
                       * comes from a free chunk or from fresh pages); 0: all in one process */
} hb_group_desc;

/* A whole-process run: a generator and a decoder command on its output
 * (scripts/hotbench/e2e.py). */
typedef struct hb_e2e_desc {
    const char *key;        /* e.g. "rfc3339" */
    const char *group;      /* the group whose in-process rows it corresponds to */
    const char *const *gen_args;    /* hotbench-gen arguments, NULL-terminated */
    const char *const *decode_args; /* hotbench-decode arguments before --strategy */
    const char *reference;  /* the strategy whose output the others must match */
    const char *in_process; /* the in-process benchmark, "%s" = the strategy */
    double items;           /* items in the input */
    const char *item_unit;  /* e.g. "timestamps" */
    int large;              /* nonzero: the 1.7 GB kind (fewer runs) */
    /* How each strategy's output is checked before it is timed (docs/manifest.md):
     * "output": byte for byte against the reference strategy's output on the same input;
     * "crc32-sidecar": the input is hotbench's own cache (filled by the in-process reference
     * benchmark, a <name>.body beside a <name>.info holding the payload's size and crc32): the
     * output's size and crc32 must match the sidecar's (for outputs too large to keep). */
    const char *check;
    const char *items_counter; /* items 0: the counter of the in-process row that counts them */
    const char *size_option;   /* the hotbench-gen option e2e's --size sets (the large kind), or
                                * NULL; the in-process argument whose value is items follows */
    const char *const *strategy_args; /* "strategy: arg ...": decoder arguments for one
                                       * strategy; {items} is the input's items. NULL-terminated */
    const char *const *skip;  /* "strategy: why": strategies not run as a process, NULL-term. */
    const char *const *alt_gen_args; /* a second input for the strategies alt_select matches */
    const char *alt_select;   /* extended regex over strategy names, or NULL */
    const char *alt_check;    /* their check: "output-ms": the reference's output on the main
                               * input, "<s> <ns>" lines with ns rounded down to milliseconds */
    int startup;              /* nonzero: also time the reference on an empty input (start-up) */
} hb_e2e_desc;

/* A peer: the real library of the incident, run by the case's own driver. */
typedef struct hb_peer_desc {
    const char *name;       /* e.g. "httpcore" */
    const char *runtime;    /* "java", "ruby", "python3" */
    const char *const *packages; /* Debian packages it needs, NULL-terminated */
} hb_peer_desc;

typedef struct hb_case_desc {
    const char *name;       /* the folder under cases/ */
    const char *title;      /* e.g. "Byte-buffer growth" */
    const char *incident;   /* the incident, one line */
    const hb_group_desc *groups; /* {0}-terminated */
    const hb_e2e_desc *e2e;      /* {0}-terminated; may be empty */
    const hb_peer_desc *peers;   /* {0}-terminated; may be empty */
    const char *peers_driver;    /* the case's peers driver (a path from the top), or NULL */
} hb_case_desc;

#ifdef __cplusplus
}
#endif

#endif /* HB_CASE_H */

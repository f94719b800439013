/* hb_case_run.c - families declared as data, registered from the case description, verified
 * once per argument tuple, then timed (hb_case_run.h). */
#include "hb_case_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const hb_group_desc *hb_case_group(const hb_case_desc *desc, const char *name)
{
    for (const hb_group_desc *g = desc->groups; g && g->name; g++)
        if (strcmp(g->name, name) == 0)
            return g;
    return NULL;
}

int hb_case_check_registry(const hb_case_desc *desc, const char *group, const void *rows,
                           size_t count, size_t stride)
{
    const hb_group_desc *g = hb_case_group(desc, group);
    for (size_t i = 0; i < count; i++) {
        const char *name;
        memcpy(&name, (const unsigned char *)rows + i * stride, sizeof name);
        const hb_strategy_desc *s = g ? g->strategies : NULL;
        while (s && s->name && strcmp(s->name, name) != 0)
            s++;
        if (!s || !s->name) {
            fprintf(stderr,
                    "hotbench: strategy %s of the registry is not in group %s of "
                    "cases/%s/case.c: describe it there\n",
                    name, group, desc->name);
            return HB_EINVAL;
        }
    }
    return HB_OK;
}

/* The memo of checked tuple args of b, or NULL when it was not checked. *found is set. */
static unsigned char *checked_find(const hb_case_bench *b, const int64_t *args, int *found)
{
    size_t memo = b->family->memo_size;
    for (size_t i = 0; i < b->nchecked; i++) {
        if (memcmp(b->checked + i * b->nargs, args, b->nargs * sizeof *args) == 0) {
            *found = 1;
            return memo ? b->memos + i * memo : NULL;
        }
    }
    *found = 0;
    return NULL;
}

/* Adds tuple args with its memo to b's checked tuples. HB_OK or HB_ENOMEM (then the tuple is
 * simply verified again next time). */
static int checked_add(hb_case_bench *b, const int64_t *args, const void *memo)
{
    size_t msz = b->family->memo_size;
    if (b->nchecked == b->capchecked) {
        size_t cap = b->capchecked ? 2 * b->capchecked : 16;
        int64_t *t = realloc(b->checked, cap * (b->nargs ? b->nargs : 1) * sizeof *t);
        if (!t)
            return HB_ENOMEM;
        b->checked = t;
        if (msz) {
            unsigned char *m = realloc(b->memos, cap * msz);
            if (!m)
                return HB_ENOMEM;
            b->memos = m;
        }
        b->capchecked = cap;
    }
    memcpy(b->checked + b->nchecked * b->nargs, args, b->nargs * sizeof *args);
    if (msz)
        memcpy(b->memos + b->nchecked * msz, memo, msz);
    b->nchecked++;
    return HB_OK;
}

/* A tuple prepare refused, with the refusal's figures and message. */
struct hb_refused {
    int64_t args[HB_MAX_ARGS];
    hb_skip why;
    char msg[1024]; /* longer than any refusal the harness or a case writes (~200 bytes) */
};

static const struct hb_refused *refused_find(const hb_case_bench *b, const int64_t *args)
{
    for (size_t i = 0; i < b->nrefused; i++)
        if (memcmp(b->refused[i].args, args, b->nargs * sizeof *args) == 0)
            return &b->refused[i];
    return NULL;
}

/* Remembers st's refusal of tuple args, if prepare refused (not failed). On ENOMEM nothing is
 * remembered: the next repetition asks prepare again, as before this memo existed. */
static void refused_add(hb_case_bench *b, const hb_state *st, const int64_t *args)
{
    struct hb_refused one;
    memset(&one, 0, sizeof one);
    if (!hb_state_refusal(st, &one.why, one.msg, sizeof one.msg))
        return;
    struct hb_refused *t = realloc(b->refused, (b->nrefused + 1) * sizeof *t);
    if (!t)
        return;
    memcpy(one.args, args, b->nargs * sizeof *args);
    b->refused = t;
    b->refused[b->nrefused++] = one;
}

/* The function google-benchmark calls: prepare, verify once per tuple, time. */
static void run_bench(hb_state *st, void *arg)
{
    hb_case_bench *b = arg;
    const hb_family *f = b->family;
    /* the memo of a tuple being verified (max_align_t: any memo type fits) */
    max_align_t fresh[HB_MEMO_MAX / sizeof(max_align_t)];
    hb_run r;
    memset(&r, 0, sizeof r);
    r.st = st;
    r.bench = b;
    r.ctx = b->ctx;
    r.nargs = b->nargs;
    for (size_t i = 0; i < b->nargs; i++)
        r.args[i] = hb_state_arg(st, i);
    const struct hb_refused *again = refused_find(b, r.args);
    if (again) {
        hb_state_skip_with(st, &again->why, "%s", again->msg);
        return;
    }
    r.memo = checked_find(b, r.args, &r.verified);
    if (f->prepare && f->prepare(&r) != HB_OK) {
        refused_add(b, st, r.args);
        return;
    }
    if (!r.verified) {
        memset(fresh, 0, sizeof fresh); /* memo_size <= HB_MEMO_MAX: family_check */
        r.memo = f->memo_size ? (void *)fresh : NULL;
        if (!f->verify(&r)) /* family_check: never NULL */
            return;
        checked_add(b, r.args, fresh);
    }
    f->time(&r);
}

/* Whether strategy name is one of f->only (NULL: every strategy is). */
static int family_lists(const hb_family *f, const char *name)
{
    if (!f->only)
        return 1;
    for (const char *const *o = f->only; *o; o++)
        if (strcmp(*o, name) == 0)
            return 1;
    return 0;
}

/* Checks f against its group g: the strategies of f->only exist in g. HB_OK or HB_EINVAL after a
 * message. */
static int family_check(const hb_case_desc *desc, const hb_family *f, const hb_group_desc *g,
                        size_t nargs)
{
    if (!g) {
        fprintf(stderr,
                "hotbench: case %s has a family of group %s, which its description "
                "does not list\n",
                desc->name, f->group);
        return HB_EINVAL;
    }
    if (nargs > HB_MAX_ARGS || f->memo_size > HB_MEMO_MAX || !f->time || !f->verify) {
        fprintf(stderr, "hotbench: group %s: %s\n", f->group,
                !f->time              ? "no time function"
                : !f->verify          ? "no verify function: nothing is timed unverified"
                : nargs > HB_MAX_ARGS ? "more than HB_MAX_ARGS arguments"
                                      : "a memo over HB_MEMO_MAX bytes");
        return HB_EINVAL;
    }
    for (const char *const *o = f->only; o && *o; o++) {
        const hb_strategy_desc *s = g->strategies;
        while (s && s->name && strcmp(s->name, *o) != 0)
            s++;
        if (!s || !s->name) {
            fprintf(stderr, "hotbench: group %s has no strategy %s\n", f->group, *o);
            return HB_EINVAL;
        }
    }
    return HB_OK;
}

/* Registers one bench: strategy s of family f with the profile's tuples it takes. A strategy that
 * takes no tuple is not registered (*out NULL). */
static int register_one(const hb_family *f, const hb_strategy_desc *s, const hb_tuples *t,
                        size_t nargs, void *ctx, hb_case_bench **out)
{
    *out = NULL;
    hb_case_bench *b = calloc(1, sizeof *b);
    if (!b || (f->state_size && !(b->state = calloc(1, f->state_size)))) {
        free(b);
        return HB_ENOMEM;
    }
    b->family = f;
    b->strategy = s;
    b->ctx = ctx;
    b->nargs = nargs;
    snprintf(b->name, sizeof b->name, "%s/%s", f->group, s->name);
    int rc = f->bind ? f->bind(ctx, f, s, &b->impl) : HB_OK;
    size_t taken = 0;
    for (size_t i = 0; rc == HB_OK && i < t->n; i++)
        taken += !f->takes || f->takes(b, t->v + i * nargs);
    if (rc != HB_OK || taken == 0) {
        free(b->state);
        free(b);
        return rc;
    }
    hb_bench *hb = hb_register(b->name, run_bench, b);
    hb_bench_arg_names(hb, f->arg_names, nargs);
    for (size_t i = 0; i < t->n; i++)
        if (!f->takes || f->takes(b, t->v + i * nargs))
            hb_bench_args(hb, t->v + i * nargs, nargs);
    if (f->complexity != HB_O_NONE)
        hb_bench_complexity(hb, f->complexity);
    hb_bench_unit(hb, f->unit);
    if (f->min_time_s > 0)
        hb_bench_min_time(hb, f->min_time_s);
    *out = b;
    return HB_OK;
}

int hb_case_register(const hb_case_desc *desc, const hb_family *families, size_t n, void *ctx,
                     const hb_options *opt, hb_case_set *set)
{
    if ((unsigned)opt->profile_id >= HB_PROFILES) {
        fprintf(stderr, "hotbench: case %s: profile %d is not one of the %d\n", desc->name,
                (int)opt->profile_id, HB_PROFILES);
        return HB_EINVAL;
    }
    hb_case_bench **tail = &set->head;
    while (*tail)
        tail = &(*tail)->next;
    for (size_t k = 0; k < n; k++) {
        const hb_family *f = &families[k];
        const hb_group_desc *g = hb_case_group(desc, f->group);
        size_t nargs = 0;
        while (f->arg_names && f->arg_names[nargs])
            nargs++;
        int rc = family_check(desc, f, g, nargs);
        if (rc != HB_OK)
            return rc;
        const hb_tuples *t = &f->tuples[opt->profile_id];
        for (const hb_strategy_desc *s = g->strategies; t->n && s && s->name; s++) {
            if (!family_lists(f, s->name))
                continue;
            hb_case_bench *b;
            rc = register_one(f, s, t, nargs, ctx, &b);
            if (rc != HB_OK) {
                fprintf(stderr, "hotbench: %s/%s: %s\n", f->group, s->name, hb_err_str(rc));
                return rc;
            }
            if (b) {
                *tail = b;
                tail = &b->next;
            }
        }
    }
    return HB_OK;
}

double hb_memory_limit(const hb_options *opt)
{
    if (opt->max_memory > 0)
        return opt->max_memory;
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return 0.9 * (double)kb * 1024.0;
}

int hb_refuse_memory(hb_state *st, const hb_options *opt, double peak_bytes)
{
    double limit = hb_memory_limit(opt);
    if (!(limit > 0 && peak_bytes > limit))
        return 0;
    hb_skip fig = {.peak_bytes = peak_bytes, .memory_limit_bytes = limit};
    hb_state_skip_with(st, &fig,
                       "needs %.3g GB at its peak, more than the %.3g GB allowed "
                       "(--hb_max_memory, default 90%% of MemAvailable)",
                       peak_bytes / 1e9, limit / 1e9);
    return 1;
}

int hb_refuse_budget(hb_state *st, const hb_options *opt, double predicted_s, const char *detail,
                     const hb_skip_figure *extra)
{
    if (!(predicted_s > opt->budget_s))
        return 0;
    hb_skip fig = {.predicted_s = predicted_s, .budget_s = opt->budget_s};
    for (size_t i = 0; extra && i < HB_SKIP_EXTRA_MAX && extra[i].name; i++)
        fig.extra[i] = extra[i];
    int more = detail && *detail;
    hb_state_skip_with(st, &fig, "predicted %.4g s > budget %g s%s%s%s", predicted_s, opt->budget_s,
                       more ? " (" : "", more ? detail : "", more ? ")" : "");
    return 1;
}

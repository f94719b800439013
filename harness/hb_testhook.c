/* hb_testhook.c - TEST-ONLY: HB_INJECT parsing for the regression injections of hb_testhook.h.
 * Compiled only with -DHB_TEST_HOOKS=ON. */
#include "hb_testhook.h"

#include "hb_err.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The build-time defaults of a throwaway tree (hb_testhook.h): a header no project tree has. */
#if defined(__has_include)
#if __has_include("hb_testhook_builtin.h")
#include "hb_testhook_builtin.h"
#endif
#endif
#ifndef HB_INJECT_BUILTIN
#define HB_INJECT_BUILTIN NULL
#endif
#ifndef HB_INJECT_SELECT_BUILTIN
#define HB_INJECT_SELECT_BUILTIN NULL
#endif

#define HB_INJECT_MAX 256
#define HB_SLOWDOWN_MAX 10.0 /* the largest fraction: ten times slower */

/* What $HB_INJECT and $HB_INJECT_SELECT say, parsed once. */
typedef struct {
    int loaded;
    char words[HB_INJECT_MAX];
    double slowdown; /* the fraction of a valid "slowdown:<fraction>" word, else 0 */
    int has_select;  /* select holds the compiled $HB_INJECT_SELECT */
    regex_t select;
    char error[HB_INJECT_MAX + 128]; /* "" or why the slowdown cannot be applied */
} hb_inject_env;

/* $name, else the build-time default (NULL when neither is set). */
static const char *env_or(const char *name, const char *builtin)
{
    const char *v = getenv(name);
    return v ? v : builtin;
}

/* Parses the slowdown word w (len bytes, "slowdown" or "slowdown:<text>") into e. */
static void parse_slowdown(hb_inject_env *e, const char *w, size_t len)
{
    char num[HB_INJECT_MAX];
    const char *colon = memchr(w, ':', len);
    size_t n = colon ? len - (size_t)(colon + 1 - w) : 0;
    memcpy(num, colon ? colon + 1 : "", n);
    num[n] = '\0';
    char *end = NULL;
    double f = n ? strtod(num, &end) : 0;
    if (!n || *end || !isfinite(f) || f <= 0 || f > HB_SLOWDOWN_MAX) {
        snprintf(e->error, sizeof e->error,
                 "HB_INJECT: \"%.*s\": want slowdown:<fraction>, a number in (0, %g] "
                 "(0.05 = 5%% slower)",
                 (int)len, w, HB_SLOWDOWN_MAX);
        return;
    }
    e->slowdown = f;
}

/* Fills e from the environment (or the build-time defaults) on the first call. */
static hb_inject_env *inject_env(void)
{
    /* A test-only cache of the environment, filled once: the hooks sit in hot loops. */
    static hb_inject_env e;
    if (e.loaded)
        return &e;
    e.loaded = 1;
    const char *env = env_or("HB_INJECT", HB_INJECT_BUILTIN);
    if (env && strlen(env) < sizeof e.words)
        strcpy(e.words, env);
    else if (env)
        snprintf(e.error, sizeof e.error, "HB_INJECT: longer than %d bytes", HB_INJECT_MAX - 1);
    for (const char *p = e.words; *p && !e.error[0];) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len >= 8 && strncmp(p, "slowdown", 8) == 0 && (len == 8 || p[8] == ':'))
            parse_slowdown(&e, p, len);
        p += len + (end ? 1 : 0);
    }
    if (e.slowdown > 0) {
        const char *sel = env_or("HB_INJECT_SELECT", HB_INJECT_SELECT_BUILTIN);
        int rc = sel && *sel ? regcomp(&e.select, sel, REG_EXTENDED | REG_NOSUB) : 0;
        if (!sel || !*sel) {
            snprintf(e.error, sizeof e.error,
                     "HB_INJECT_SELECT: unset or empty; HB_INJECT=slowdown:<fraction> needs it: a "
                     "POSIX extended regex of the benchmark families to slow down");
        } else if (rc != 0) {
            char why[128];
            regerror(rc, &e.select, why, sizeof why);
            snprintf(e.error, sizeof e.error,
                     "HB_INJECT_SELECT: \"%.*s\" is not a POSIX extended regex: %s", 128, sel, why);
        } else {
            e.has_select = 1;
        }
    }
    if (e.error[0])
        e.slowdown = 0;
    return &e;
}

int hb_test_injected(const char *name)
{
    const hb_inject_env *e = inject_env();
    size_t n = strlen(name);
    for (const char *p = e->words; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        size_t wlen = colon ? (size_t)(colon - p) : len;
        if (wlen == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (end ? 1 : 0);
    }
    return 0;
}

int hb_test_slowdown(const char *family, double *fraction, char *msg, size_t cap)
{
    const hb_inject_env *e = inject_env();
    *fraction = 0;
    if (e->error[0]) {
        if (cap)
            snprintf(msg, cap, "%s", e->error);
        return HB_EINVAL;
    }
    if (e->slowdown > 0 && e->has_select && regexec(&e->select, family, 0, NULL, 0) == 0)
        *fraction = e->slowdown;
    return HB_OK;
}

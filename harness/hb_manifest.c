/* hb_manifest.c - the cases' descriptions as JSON (hb_manifest.h, docs/manifest.md). */
#include "hb_manifest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong form, no surrogate,
 * at most U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned char lo = 0x80, hi = 0xbf;
    size_t n;
    if (*p >= 0xc2 && *p <= 0xdf)
        n = 2;
    else if (*p >= 0xe0 && *p <= 0xef)
        n = 3, lo = *p == 0xe0 ? 0xa0 : 0x80, hi = *p == 0xed ? 0x9f : 0xbf;
    else if (*p >= 0xf0 && *p <= 0xf4)
        n = 4, lo = *p == 0xf0 ? 0x90 : 0x80, hi = *p == 0xf4 ? 0x8f : 0xbf;
    else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return n;
}

/* A JSON string (RFC 8259 section 7), or null for NULL. A byte that does not begin well-formed
 * UTF-8 is written U+FFFD: JSON text is UTF-8, and one stray byte made the whole run JSON
 * unreadable. */
static void put_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            fprintf(f, "\\%c", *p);
        } else if (*p < 0x20) {
            fprintf(f, "\\u%04x", *p);
        } else if (*p < 0x80) {
            fputc(*p, f);
        } else {
            size_t n = utf8_len(p);
            if (n) {
                fwrite(p, 1, n, f);
                p += n - 1;
            } else {
                fputs("\\ufffd", f);
            }
        }
    }
    fputc('"', f);
}

/* A number: integral values without an exponent (1.7e9 -> 1700000000), others round-trip; null
 * for an infinity or a NaN, which JSON has no number for (a reader then names the field). */
static void put_num(FILE *f, double v)
{
    if (!isfinite(v))
        fputs("null", f);
    else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.17g", v);
}

static void put_key(FILE *f, const char *k, int first)
{
    if (!first)
        fputc(',', f);
    put_str(f, k);
    fputc(':', f);
}

/* A NULL-terminated list of strings as an array ([] for NULL). */
static void put_list(FILE *f, const char *const *v)
{
    fputc('[', f);
    for (size_t i = 0; v && v[i]; i++) {
        if (i)
            fputc(',', f);
        put_str(f, v[i]);
    }
    fputc(']', f);
}

static const char *role_name(enum hb_role r)
{
    return r == HB_ROLE_CEILING ? "ceiling" : "strategy";
}

static const char *model_name(enum hb_model m)
{
    return m == HB_MODEL_PIECEWISE_32 ? "piecewise-32" : "power";
}

static void put_strategies(FILE *f, const hb_strategy_desc *s)
{
    fputc('[', f);
    for (size_t i = 0; s && s[i].name; i++) {
        fputs(i ? ",{" : "{", f);
        put_key(f, "name", 1), put_str(f, s[i].name);
        put_key(f, "role", 0), put_str(f, role_name(s[i].role));
        put_key(f, "complexity", 0), fprintf(f, "%d", s[i].complexity);
        put_key(f, "model", 0), put_str(f, model_name(s[i].model));
        put_key(f, "custom_allocator_twin", 0), put_str(f, s[i].custom_allocator_twin);
        fputc('}', f);
    }
    fputc(']', f);
}

static void put_fixed(FILE *f, const hb_arg *a)
{
    fputc('{', f);
    for (size_t i = 0; a && a[i].name; i++) {
        put_key(f, a[i].name, i == 0);
        fprintf(f, "%lld", a[i].value);
    }
    fputc('}', f);
}

static void put_views(FILE *f, const hb_view_desc *v)
{
    fputc('[', f);
    for (size_t i = 0; v && v[i].key; i++) {
        fputs(i ? ",{" : "{", f);
        put_key(f, "key", 1), put_str(f, v[i].key);
        put_key(f, "title", 0), put_str(f, v[i].title);
        put_key(f, "x", 0), put_str(f, v[i].x);
        put_key(f, "x_label", 0), put_str(f, v[i].x_label);
        put_key(f, "unit", 0), put_str(f, v[i].unit);
        put_key(f, "fixed", 0), put_fixed(f, v[i].fixed);
        put_key(f, "production", 0), put_num(f, v[i].production);
        put_key(f, "production_label", 0), put_str(f, v[i].production_label);
        put_key(f, "items_per_x", 0), put_num(f, v[i].items_per_x);
        put_key(f, "per_label", 0), put_str(f, v[i].per_label);
        put_key(f, "per_scale", 0), put_num(f, v[i].per_scale);
        put_key(f, "fit_from", 0), put_str(f, v[i].fit_from ? v[i].fit_from : "");
        put_key(f, "charts", 0), put_list(f, v[i].charts);
        put_key(f, "companion", 0), put_str(f, v[i].companion);
        put_key(f, "step_arg", 0), put_str(f, v[i].step_arg);
        put_key(f, "width_arg", 0), put_str(f, v[i].width_arg);
        put_key(f, "plain_x", 0), fputs(v[i].plain_x ? "true" : "false", f);
        put_key(f, "upper_bound", 0), put_list(f, v[i].upper_bound);
        put_key(f, "items_key", 0), put_str(f, v[i].items_key);
        fputc('}', f);
    }
    fputc(']', f);
}

/* A group's limits as an object, or null. */
static void put_limits(FILE *f, const hb_limits_desc *l)
{
    if (!l) {
        fputs("null", f);
        return;
    }
    fputc('{', f);
    put_key(f, "strategy", 1), put_str(f, l->strategy);
    put_key(f, "ceiling", 0), put_str(f, l->ceiling);
    put_key(f, "row", 0), put_str(f, l->row);
    put_key(f, "probe", 0), put_str(f, l->probe);
    put_key(f, "item", 0), put_str(f, l->item);
    put_key(f, "mechanism", 0), put_str(f, l->mechanism);
    fputc('}', f);
}

static void put_groups(FILE *f, const hb_group_desc *g)
{
    fputc('[', f);
    for (size_t i = 0; g && g[i].name; i++) {
        fputs(i ? ",{" : "{", f);
        put_key(f, "name", 1), put_str(f, g[i].name);
        put_key(f, "title", 0), put_str(f, g[i].title);
        put_key(f, "about", 0), put_str(f, g[i].about);
        put_key(f, "reference", 0), put_str(f, g[i].reference);
        put_key(f, "yardstick", 0), put_str(f, g[i].yardstick);
        put_key(f, "strategies", 0), put_strategies(f, g[i].strategies);
        put_key(f, "views", 0), put_views(f, g[i].views);
        put_key(f, "gate", 0), fputc('{', f);
        put_key(f, "select", 1), put_str(f, g[i].gate_select);
        put_key(f, "ir_select", 0), put_str(f, g[i].gate_ir_select);
        put_key(f, "isolate", 0), fputs(g[i].gate_isolate ? "true" : "false", f);
        fputc('}', f);
        put_key(f, "alloc_select", 0), put_str(f, g[i].alloc_select);
        put_key(f, "alloc_select_long", 0), put_str(f, g[i].alloc_select_long);
        put_key(f, "limits", 0), put_limits(f, g[i].limits);
        fputc('}', f);
    }
    fputc(']', f);
}

static void put_e2e(FILE *f, const hb_e2e_desc *e)
{
    fputc('[', f);
    for (size_t i = 0; e && e[i].key; i++) {
        fputs(i ? ",{" : "{", f);
        put_key(f, "key", 1), put_str(f, e[i].key);
        put_key(f, "group", 0), put_str(f, e[i].group);
        put_key(f, "gen_args", 0), put_list(f, e[i].gen_args);
        put_key(f, "decode_args", 0), put_list(f, e[i].decode_args);
        put_key(f, "reference", 0), put_str(f, e[i].reference);
        put_key(f, "in_process", 0), put_str(f, e[i].in_process);
        put_key(f, "items", 0), put_num(f, e[i].items);
        put_key(f, "item_unit", 0), put_str(f, e[i].item_unit);
        put_key(f, "large", 0), fputs(e[i].large ? "true" : "false", f);
        put_key(f, "check", 0), put_str(f, e[i].check ? e[i].check : "output");
        put_key(f, "items_counter", 0), put_str(f, e[i].items_counter);
        put_key(f, "size_option", 0), put_str(f, e[i].size_option);
        put_key(f, "strategy_args", 0), put_list(f, e[i].strategy_args);
        put_key(f, "skip", 0), put_list(f, e[i].skip);
        put_key(f, "alt_gen_args", 0), put_list(f, e[i].alt_gen_args);
        put_key(f, "alt_select", 0), put_str(f, e[i].alt_select);
        put_key(f, "alt_check", 0), put_str(f, e[i].alt_check);
        put_key(f, "startup", 0), fputs(e[i].startup ? "true" : "false", f);
        fputc('}', f);
    }
    fputc(']', f);
}

static void put_peers(FILE *f, const hb_peer_desc *p)
{
    fputc('[', f);
    for (size_t i = 0; p && p[i].name; i++) {
        fputs(i ? ",{" : "{", f);
        put_key(f, "name", 1), put_str(f, p[i].name);
        put_key(f, "runtime", 0), put_str(f, p[i].runtime);
        put_key(f, "packages", 0), put_list(f, p[i].packages);
        fputc('}', f);
    }
    fputc(']', f);
}

int hb_manifest_write(FILE *f, const hb_case *cases, size_t n)
{
    fputs("{\"schema\":\"" HB_MANIFEST_SCHEMA "\",\"cases\":[", f);
    for (size_t i = 0; i < n; i++) {
        const hb_case_desc *d = cases[i].desc;
        fputs(i ? ",{" : "{", f);
        put_key(f, "name", 1), put_str(f, d->name);
        put_key(f, "title", 0), put_str(f, d->title);
        put_key(f, "incident", 0), put_str(f, d->incident);
        put_key(f, "groups", 0), put_groups(f, d->groups);
        put_key(f, "e2e", 0), put_e2e(f, d->e2e);
        put_key(f, "peers", 0), put_peers(f, d->peers);
        put_key(f, "peers_driver", 0), put_str(f, d->peers_driver);
        fputc('}', f);
    }
    fputs("]}", f);
    return ferror(f) ? -1 : 0;
}

char *hb_manifest_json(const hb_case *cases, size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = hb_manifest_write(f, cases, n);
    if (fclose(f) != 0 || rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int hb_manifest_describes(const hb_case *cases, size_t n, const char *family, char *why,
                          size_t cap)
{
    const char *slash = strchr(family, '/');
    size_t glen = slash ? (size_t)(slash - family) : strlen(family);
    const char *strategy = slash ? slash + 1 : "";
    for (size_t i = 0; i < n; i++) {
        const hb_group_desc *g = cases[i].desc->groups;
        for (; g && g->name; g++) {
            if (strlen(g->name) != glen || strncmp(g->name, family, glen) != 0)
                continue;
            for (const hb_strategy_desc *s = g->strategies; s && s->name; s++)
                if (strcmp(s->name, strategy) == 0)
                    return 1;
            snprintf(why, cap, "strategy '%s' of group '%.*s' is registered but not described: "
                     "add it to the group's strategies in cases/%s/case.c", strategy, (int)glen,
                     family, cases[i].name);
            return 0;
        }
    }
    snprintf(why, cap, "group '%.*s' is registered but no case describes it: add it to the "
             "groups of its case's case.c", (int)glen, family);
    return 0;
}

/* Whether strategy s of group g names as its custom-allocator twin another strategy of g (or
 * none); else 0 and a sentence naming it in why. */
static int twin_ok(const hb_group_desc *g, const hb_strategy_desc *s, const char *case_name,
                   char *why, size_t cap)
{
    if (!s->custom_allocator_twin)
        return 1;
    for (const hb_strategy_desc *t = g->strategies; t->name; t++)
        if (t != s && strcmp(t->name, s->custom_allocator_twin) == 0)
            return 1;
    snprintf(why, cap, "strategy '%s' of group '%s' (cases/%s/case.c) names '%s' as its "
             "custom_allocator_twin: not another strategy of the group", s->name, g->name,
             case_name, s->custom_allocator_twin);
    return 0;
}

/* Whether group g's limits (if any) name a strategy and a ceiling of g and give every text but
 * item; else 0 and a sentence naming it in why. */
static int limits_ok(const hb_group_desc *g, const char *case_name, char *why, size_t cap)
{
    const hb_limits_desc *l = g->limits;
    if (!l)
        return 1;
    if (!l->strategy || !l->ceiling || !l->row || !l->probe || !l->mechanism) {
        snprintf(why, cap, "group '%s' of cases/%s/case.c: limits lacks strategy, ceiling, row, "
                 "probe or mechanism (harness/hb_case.h)", g->name, case_name);
        return 0;
    }
    int found = 0;
    for (const hb_strategy_desc *s = g->strategies; s && s->name; s++) {
        if (strcmp(s->name, l->strategy) == 0 && s->role == HB_ROLE_STRATEGY)
            found |= 1;
        if (strcmp(s->name, l->ceiling) == 0 && s->role == HB_ROLE_CEILING)
            found |= 2;
    }
    if (found != 3) {
        snprintf(why, cap, "group '%s' of cases/%s/case.c: limits names %s '%s', not a %s of the "
                 "group", g->name, case_name, found & 1 ? "ceiling" : "strategy",
                 found & 1 ? l->ceiling : l->strategy, found & 1 ? "ceiling" : "strategy");
        return 0;
    }
    return 1;
}

int hb_manifest_unique(const hb_case *cases, size_t n, char *why, size_t cap)
{
    for (size_t i = 0; i < n; i++) {
        for (const hb_group_desc *g = cases[i].desc->groups; g && g->name; g++) {
            if (!limits_ok(g, cases[i].name, why, cap))
                return 0;
            for (const hb_strategy_desc *s = g->strategies; s && s->name; s++) {
                if (!twin_ok(g, s, cases[i].name, why, cap))
                    return 0;
                for (const hb_strategy_desc *t = g->strategies; t != s; t++)
                    if (strcmp(s->name, t->name) == 0) {
                        snprintf(why, cap, "group '%s' of cases/%s/case.c lists strategy '%s' "
                                 "twice", g->name, cases[i].name, s->name);
                        return 0;
                    }
            }
            /* the groups of this case before g, and of the cases before it */
            for (size_t j = 0; j <= i; j++) {
                for (const hb_group_desc *h = cases[j].desc->groups; h && h->name; h++) {
                    if (j == i && h == g)
                        break;
                    if (strcmp(h->name, g->name) == 0) {
                        snprintf(why, cap, "group '%s' is described twice (cases/%s/case.c and "
                                 "cases/%s/case.c)", g->name, cases[j].name, cases[i].name);
                        return 0;
                    }
                }
            }
        }
    }
    /* the views in the manifest's order, each against those before it (by position: a case may
     * share one view table between groups) */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (const hb_group_desc *g = cases[i].desc->groups; g && g->name; g++)
            for (const hb_view_desc *v = g->views; v && v->key; v++, k++) {
                size_t m = 0;
                for (size_t j = 0; j < n && m < k; j++)
                    for (const hb_group_desc *h = cases[j].desc->groups; h && h->name && m < k; h++)
                        for (const hb_view_desc *w = h->views; w && w->key && m < k; w++, m++)
                            if (strcmp(w->key, v->key) == 0) {
                                snprintf(why, cap, "view key '%s' is used twice (cases/%s/case.c "
                                         "and cases/%s/case.c)", v->key, cases[j].name,
                                         cases[i].name);
                                return 0;
                            }
            }
    return 1;
}

/* bench.c - registration of the RFC 3339 timestamp case (incident 2 of DESIGN.md).
 *
 * Families, one per strategy (hb_rfc3339_strategies, the int64-binary floor first):
 *     rfc3339/<strategy>/rows:N             N rows of one column, mixed fractions and offsets;
 *                                           rows:100000 is the incident's select
 *     rfc3339-digits/<strategy>/digits:D    every fraction of D digits (0, 3, 6, 9), all 'Z'
 *     rfc3339-offset/<strategy>/numeric:K   K = 0: all 'Z'; K = 1: all numeric offsets
 *     rfc3339-columns/<strategy>/columns:C  C timestamp columns per row (1, 5)
 *     rfc3339-days/<conversion>/dates:N     the civil-date-to-days conversion alone
 * Text strategies read the RFC 3339 column(s), millis strategies the UNIX_MILLIS column(s) of the
 * same instants, int64-binary the same milliseconds as 8-byte integers. One timed iteration
 * parses the whole set (all rows and columns) into an array of {seconds, nanos}; the fields are
 * handed over as (offset, length) spans, as a client library gets the strings of a result set.
 * items/s counts timestamps; the counter ns_per_ts is the same figure inverted.
 *
 * Before timing, each strategy runs once on the set with its output poisoned and every row is
 * compared with the reference (millis strategies at millisecond precision); validating strategies
 * also run the rejection set - hand-written malformed timestamps and random mutations of valid
 * ones - and must give the reference's answer on each (reject, or the same instant). A mismatch
 * fails the benchmark, untimed, naming the row and both values.
 *
 * The families are data (rf_families: arguments per profile), registered by the harness from the
 * case description's strategies (hb_case_run.h), which verifies each argument tuple once before
 * timing it.
 *
 * Profiles: full - rows 1k to 1M, variants on 100k rows; quick (CI) - rows 1k and 100k, variants
 * on 10k rows; smoke (make test) - 100 rows everywhere (1000 dates for the date conversion).
 */
#include "hb.h"
#include "hb_case_run.h"
#include "hb_gen_ts.h"
#include "hb_prng.h"
#include "hb_rfc3339.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RF_MAX_SETS 32
#define RF_MUTANTS 4000 /* mutations of valid strings in the rejection set */

/* The families (hb_family.kind): which argument the tuple varies. */
enum rf_family { RF_ROWS, RF_DIGITS, RF_OFFSET, RF_COLUMNS, RF_DAYS };

/* One generated set, with everything the strategies read and the reference's answers. */
typedef struct rf_set {
    hb_ts_params p;
    hb_blob text;            /* the rows, encoding both */
    size_t n;                /* values: rows x columns */
    hb_rfc3339_span *tspans; /* the RFC 3339 fields in text */
    hb_rfc3339_span *mspans; /* the millis fields in text */
    hb_rfc3339_span *bspans; /* into binary: 8 bytes each */
    int64_t *binary;         /* the milliseconds, little-endian int64 */
    hb_rfc3339_time *ref;    /* the reference's answer on each RFC 3339 field */
    hb_rfc3339_time *ref_ms; /* the same at millisecond precision */
    hb_rfc3339_time *out;    /* what a strategy writes */
    uint64_t tbytes, mbytes; /* bytes of the RFC 3339 and millis fields */
} rf_set;

/* The civil dates of the days family, and the days the generator knows they are. */
typedef struct rf_dates {
    size_t n;
    hb_civil_date *d;
    int64_t *days;
    uint64_t sum;
} rf_dates;

/* Strings every strategy of one input kind is checked on, with the reference's answers. */
typedef struct rf_rejects {
    char *buf;
    hb_rfc3339_span *spans;
    hb_rfc3339_time *ref; /* HB_RFC3339_BAD_* where the reference rejects */
    size_t n, nbad;
} rf_rejects;

typedef struct rf_ctx {
    hb_options opt;
    hb_case_set set;
    uint64_t seed;
    int64_t variant_rows;
    rf_set sets[RF_MAX_SETS];
    size_t nsets;
    rf_dates dates[4];
    size_t ndates;
    rf_rejects text_rejects, millis_rejects;
    int rejects_built;
} rf_ctx;

/* ---- inputs ------------------------------------------------------------------------------------
 */

static void set_free(rf_set *s)
{
    hb_blob_free(&s->text);
    free(s->tspans);
    free(s->mspans);
    free(s->bspans);
    free(s->binary);
    free(s->ref);
    free(s->ref_ms);
    free(s->out);
    memset(s, 0, sizeof *s);
}

/* Generates the set for p and splits it into fields; the reference parses the text fields. */
static int set_build(rf_set *s, const hb_ts_params *p, const char **why)
{
    memset(s, 0, sizeof *s);
    s->p = *p;
    s->p.encoding = HB_TS_BOTH;
    if (hb_ts_build(&s->p, &s->text, NULL) != HB_OK) {
        *why = "cannot generate the set";
        return HB_ENOMEM;
    }
    size_t n = (size_t)(p->rows * p->columns);
    s->n = n;
    size_t k = n ? n : 1;
    s->tspans = malloc(k * sizeof *s->tspans);
    s->mspans = malloc(k * sizeof *s->mspans);
    s->bspans = malloc(k * sizeof *s->bspans);
    s->binary = malloc(k * sizeof *s->binary);
    s->ref = malloc(k * sizeof *s->ref);
    s->ref_ms = malloc(k * sizeof *s->ref_ms);
    s->out = malloc(k * sizeof *s->out);
    if (!s->tspans || !s->mspans || !s->bspans || !s->binary || !s->ref || !s->ref_ms || !s->out) {
        set_free(s);
        *why = "out of memory";
        return HB_ENOMEM;
    }
    /* a row: columns RFC 3339 fields, then columns millis fields, tab-separated */
    const char *t = (const char *)s->text.data;
    size_t pos = 0, c = p->columns;
    for (size_t r = 0; r < (size_t)p->rows; r++) {
        for (size_t f = 0; f < 2 * c; f++) {
            size_t start = pos;
            while (t[pos] != '\t' && t[pos] != '\n')
                pos++;
            hb_rfc3339_span sp = {(uint32_t)start, (uint32_t)(pos - start)};
            size_t j = r * c + f % c;
            if (f < c) {
                s->tspans[j] = sp;
                s->tbytes += sp.len;
            } else {
                s->mspans[j] = sp;
                s->mbytes += sp.len;
            }
            pos++;
        }
    }
    for (size_t j = 0; j < n; j++) {
        hb_rfc3339_error e;
        int rc = hb_rfc3339_parse(t + s->tspans[j].off, s->tspans[j].len, &s->ref[j], &e);
        if (rc != HB_OK) {
            *why = "the reference rejects a generated timestamp";
            set_free(s);
            return HB_EPARSE;
        }
        s->ref_ms[j].seconds = s->ref[j].seconds;
        s->ref_ms[j].nanos = s->ref[j].nanos - s->ref[j].nanos % 1000000;
        s->binary[j] = hb_rfc3339_to_millis(&s->ref[j]);
        s->bspans[j].off = (uint32_t)(8 * j);
        s->bspans[j].len = 8;
    }
    return HB_OK;
}

static rf_set *get_set(rf_ctx *c, const hb_ts_params *p, const char **why)
{
    for (size_t i = 0; i < c->nsets; i++) {
        const hb_ts_params *q = &c->sets[i].p;
        if (q->rows == p->rows && q->columns == p->columns && q->fraction == p->fraction &&
            q->offsets == p->offsets && q->seed == p->seed)
            return &c->sets[i];
    }
    if (c->nsets == RF_MAX_SETS) {
        *why = "too many distinct sets";
        return NULL;
    }
    if (set_build(&c->sets[c->nsets], p, why) != HB_OK)
        return NULL;
    return &c->sets[c->nsets++];
}

static rf_dates *get_dates(rf_ctx *c, size_t n, const char **why)
{
    for (size_t i = 0; i < c->ndates; i++)
        if (c->dates[i].n == n)
            return &c->dates[i];
    if (c->ndates == sizeof c->dates / sizeof c->dates[0]) {
        *why = "too many date sets";
        return NULL;
    }
    rf_dates *d = &c->dates[c->ndates];
    d->d = malloc((n ? n : 1) * sizeof *d->d);
    d->days = malloc((n ? n : 1) * sizeof *d->days);
    if (!d->d || !d->days) {
        free(d->d);
        free(d->days);
        *why = "out of memory";
        return NULL;
    }
    hb_ts_params p;
    hb_ts_params_default(&p);
    p.seed = c->seed;
    d->n = n;
    d->sum = 0;
    for (size_t i = 0; i < n; i++) {
        hb_ts_value v;
        hb_ts_value_at(&p, i, &v);
        int64_t days = v.seconds >= 0 ? v.seconds / 86400 : -((-v.seconds + 86399) / 86400);
        int32_t y;
        uint32_t m, dd;
        hb_ts_civil_from_days(days, &y, &m, &dd);
        d->d[i].year = (uint16_t)y;
        d->d[i].month = (uint8_t)m;
        d->d[i].day = (uint8_t)dd;
        d->days[i] = days;
        d->sum += (uint64_t)days;
    }
    c->ndates++;
    return d;
}

/* ---- the rejection sets -----------------------------------------------------------------------
 */

static const char *const rf_bad_text[] = {
    "",
    "2021-03-04 05:06:07Z",            /* space separator */
    "2021-03-04T05:06Z",               /* no seconds */
    "2021-03-04T05:06:07",             /* no offset */
    "2021-03-04T05:06:07+0530",        /* offset without colon */
    "2021-03-04T05:06:07+05",          /* offset without minutes */
    "2021-03-04T05:06:07.1234567891Z", /* 10 fraction digits */
    "2021-03-04T05:06:07.Z",           /* empty fraction */
    "2021-03-04T05:06:07,123Z",        /* comma */
    "+2021-03-04T05:06:07Z",           /* signed year */
    "-2021-03-04T05:06:07Z",
    "2021-03-04T05:06:07Zx", /* trailing byte */
    "2021-03-04T05:06:07Z ",
    "2021-03-04T05:06:60Z", /* leap second */
    "2021-02-29T05:06:07Z", /* not a leap year */
    "1900-02-29T00:00:00Z",
    "2100-02-29T00:00:00Z",
    "2021-04-31T00:00:00Z",
    "2021-13-01T00:00:00Z",
    "2021-00-01T00:00:00Z",
    "2021-01-00T00:00:00Z",
    "2021-01-01T24:00:00Z",
    "2021-01-01T00:60:00Z",
    "2021-01-01T00:00:00+24:00",
    "2021-01-01T00:00:00+00:60",
    "0001-01-01T00:00:00+00:01", /* pushed below the minimum */
    "9999-12-31T23:59:59-00:01", /* pushed above the maximum */
    "0000-06-15T00:00:00Z",
    "2021-03-04T05:06:07\xef\xbc\x95Z", /* a fullwidth digit */
    "２０２１-03-04T05:06:07Z",
    "2021-03-04x05:06:07Z",
    "2021-03-04T05:06:07z+05:30",
    "2021-03-04T05:06:07.123456789+05:30x",
};

static const char *const rf_bad_millis[] = {
    "",
    "-",
    "+1",
    " 1",
    "1 ",
    "12a",
    "1.5",
    "0x10",
    "99999999999999999999",
    "-62135596800001",
    "253402300800000",
    "--1",
    "1-",
};

static int rejects_add(rf_rejects *r, size_t *cap_s, size_t *cap_b, size_t *used, const char *s,
                       size_t len)
{
    if (r->n == *cap_s) {
        size_t nc = *cap_s ? 2 * *cap_s : 256;
        hb_rfc3339_span *ns = realloc(r->spans, nc * sizeof *ns);
        if (!ns)
            return HB_ENOMEM;
        r->spans = ns;
        *cap_s = nc;
    }
    if (!r->buf || *used + len > *cap_b) {
        size_t nc = *cap_b ? 2 * *cap_b + len : 8192 + len;
        char *nb = realloc(r->buf, nc);
        if (!nb)
            return HB_ENOMEM;
        r->buf = nb;
        *cap_b = nc;
    }
    memcpy(r->buf + *used, s, len);
    r->spans[r->n].off = (uint32_t)*used;
    r->spans[r->n].len = (uint32_t)len;
    r->n++;
    *used += len;
    return HB_OK;
}

/* The reference's answers on a rejection set: parse (text or millis-parse). */
static int rejects_answer(rf_rejects *r, int (*parse)(const char *, size_t, hb_rfc3339_time *))
{
    r->ref = malloc((r->n ? r->n : 1) * sizeof *r->ref);
    if (!r->ref)
        return HB_ENOMEM;
    r->nbad = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (parse(r->buf + r->spans[i].off, r->spans[i].len, &r->ref[i]) != HB_OK) {
            r->ref[i].seconds = HB_RFC3339_BAD_SECONDS;
            r->ref[i].nanos = HB_RFC3339_BAD_NANOS;
            r->nbad++;
        }
    }
    return HB_OK;
}

static int parse_reference(const char *s, size_t len, hb_rfc3339_time *out)
{
    return hb_rfc3339_parse(s, len, out, NULL);
}

/* The answer for a set known to hold only invalid strings (rf_bad_millis): not the answer of a
 * strategy under test, which would then be checked against itself. */
static int parse_nothing(const char *s, size_t len, hb_rfc3339_time *out)
{
    (void)s;
    (void)len;
    (void)out;
    return HB_EPARSE;
}

/* Hand-written cases plus RF_MUTANTS random mutations (replace, delete, insert, truncate) of
 * generated valid strings: most are rejected, some stay valid, and every validating strategy
 * must give the reference's answer on each. */
static int rejects_build(rf_ctx *c)
{
    static const char alphabet[] = "0123456789-:.TtZz+ ,\x7f\x80\xff";
    size_t cs = 0, cb = 0, used = 0;
    rf_rejects *r = &c->text_rejects;
    int rc = HB_OK;
    for (size_t i = 0; i < sizeof rf_bad_text / sizeof *rf_bad_text && rc == HB_OK; i++)
        rc = rejects_add(r, &cs, &cb, &used, rf_bad_text[i], strlen(rf_bad_text[i]));
    hb_ts_params p;
    hb_ts_params_default(&p);
    p.seed = c->seed ^ 0x5eed;
    uint64_t st = c->seed;
    for (size_t i = 0; i < RF_MUTANTS && rc == HB_OK; i++) {
        hb_ts_value v;
        char s[HB_TS_TEXT_MAX + 2];
        hb_ts_value_at(&p, i, &v);
        size_t len = hb_ts_format_rfc3339(&v, s);
        uint64_t x = hb_splitmix64(&st);
        size_t at = (size_t)(x >> 8) % len;
        char ch = alphabet[(x >> 32) % (sizeof alphabet - 1)];
        switch (x % 4) {
        case 0: /* replace */
            s[at] = ch;
            break;
        case 1: /* delete */
            memmove(s + at, s + at + 1, len - at - 1);
            len--;
            break;
        case 2: /* insert */
            memmove(s + at + 1, s + at, len - at);
            s[at] = ch;
            len++;
            break;
        default: /* truncate */
            len = at;
            break;
        }
        rc = rejects_add(r, &cs, &cb, &used, s, len);
    }
    if (rc == HB_OK)
        rc = rejects_answer(r, parse_reference);

    rf_rejects *m = &c->millis_rejects;
    cs = cb = used = 0;
    for (size_t i = 0; i < sizeof rf_bad_millis / sizeof *rf_bad_millis && rc == HB_OK; i++)
        rc = rejects_add(m, &cs, &cb, &used, rf_bad_millis[i], strlen(rf_bad_millis[i]));
    if (rc == HB_OK) /* every string there is invalid by construction: the answer is known */
        rc = rejects_answer(m, parse_nothing);
    if (rc == HB_OK)
        c->rejects_built = 1;
    return rc;
}

/* ---- verification ------------------------------------------------------------------------------
 */

static int same(const hb_rfc3339_time *a, const hb_rfc3339_time *b)
{
    return a->seconds == b->seconds && a->nanos == b->nanos;
}

/* Runs the strategy once on the set (poisoned output) and compares every value. */
static int verify_set(const hb_rfc3339_strategy *sg, rf_set *s, hb_state *st)
{
    const char *base =
        sg->input == HB_RFC3339_IN_BINARY ? (const char *)s->binary : (const char *)s->text.data;
    const hb_rfc3339_span *spans = sg->input == HB_RFC3339_IN_TEXT     ? s->tspans
                                   : sg->input == HB_RFC3339_IN_MILLIS ? s->mspans
                                                                       : s->bspans;
    const hb_rfc3339_time *want = sg->input == HB_RFC3339_IN_TEXT ? s->ref : s->ref_ms;
    memset(s->out, 0xa5, s->n * sizeof *s->out);
    size_t bad = sg->batch(base, spans, s->n, s->out);
    for (size_t j = 0; j < s->n; j++) {
        if (!same(&s->out[j], &want[j])) {
            hb_state_fail(st,
                          "value %zu '%.*s': got {%lld, %d}, the reference gives {%lld, %d} "
                          "(%zu rejected)",
                          j, (int)s->tspans[j].len, (const char *)s->text.data + s->tspans[j].off,
                          (long long)s->out[j].seconds, s->out[j].nanos, (long long)want[j].seconds,
                          want[j].nanos, bad);
            return 0;
        }
    }
    if (bad != 0) {
        hb_state_fail(st, "the batch counts %zu rejected values, none was", bad);
        return 0;
    }
    return 1;
}

/* A validating strategy gives the reference's answer on every string of its rejection set. */
static int verify_rejects(const rf_ctx *c, const hb_rfc3339_strategy *sg, hb_state *st)
{
    if (!sg->validating || sg->input == HB_RFC3339_IN_BINARY)
        return 1;
    const rf_rejects *r = sg->input == HB_RFC3339_IN_TEXT ? &c->text_rejects : &c->millis_rejects;
    hb_rfc3339_time *out = malloc((r->n ? r->n : 1) * sizeof *out);
    if (!out) {
        hb_state_fail(st, "out of memory for the rejection set");
        return 0;
    }
    memset(out, 0xa5, r->n * sizeof *out);
    size_t bad = sg->batch(r->buf, r->spans, r->n, out);
    int ok = 1;
    for (size_t i = 0; i < r->n && ok; i++) {
        if (!same(&out[i], &r->ref[i])) {
            const char *what = r->ref[i].nanos < 0 ? "rejects" : "accepts";
            hb_state_fail(st,
                          "rejection set string %zu '%.*s': got {%lld, %d}, the reference %s "
                          "it {%lld, %d}",
                          i, (int)r->spans[i].len, r->buf + r->spans[i].off,
                          (long long)out[i].seconds, out[i].nanos, what,
                          (long long)r->ref[i].seconds, r->ref[i].nanos);
            ok = 0;
        }
    }
    if (ok && bad != r->nbad) {
        hb_state_fail(st, "rejection set: the batch counts %zu rejected, the reference %zu", bad,
                      r->nbad);
        ok = 0;
    }
    free(out);
    return ok;
}

/* ---- the benchmark functions --------------------------------------------------------------------
 */

static void report(hb_state *st, double secs, size_t n, uint64_t bytes)
{
    int64_t iters = hb_state_iterations(st);
    hb_state_set_items_processed(st, iters * (int64_t)n);
    hb_state_set_bytes_processed(st, iters * (int64_t)bytes);
    if (iters > 0 && n > 0)
        hb_state_counter(st, "ns_per_ts", secs * 1e9 / ((double)iters * (double)n), 0);
}

/* The civil dates of the tuple. */
static int prepare_days(hb_run *r)
{
    const char *why = NULL;
    r->input = get_dates(r->ctx, (size_t)r->args[0], &why);
    if (!r->input) {
        hb_state_fail(r->st, "cannot build the dates: %s", why);
        return HB_ENOMEM;
    }
    return HB_OK;
}

/* Every date against the generator's days, then the batch sum. */
static int verify_days(hb_run *r)
{
    const hb_days_strategy *s = r->bench->impl;
    const rf_dates *d = r->input;
    hb_state *st = r->st;
    for (size_t i = 0; i < d->n; i++) {
        int64_t got = s->days(d->d[i].year, d->d[i].month, d->d[i].day);
        if (got != d->days[i]) {
            hb_state_fail(st, "%04u-%02u-%02u: got %lld days, the generator says %lld",
                          d->d[i].year, d->d[i].month, d->d[i].day, (long long)got,
                          (long long)d->days[i]);
            return 0;
        }
    }
    uint64_t sum = s->sum(d->d, d->n);
    if (sum != d->sum) {
        hb_state_fail(st, "sum %llu, expected %llu", (unsigned long long)sum,
                      (unsigned long long)d->sum);
        return 0;
    }
    return 1;
}

static void time_days(hb_run *r)
{
    const hb_days_strategy *s = r->bench->impl;
    const rf_dates *d = r->input;
    hb_state *st = r->st;
    double t0 = hb_now_s();
    while (hb_state_keep_running(st))
        hb_do_not_optimize_u64(s->sum(d->d, d->n));
    report(st, hb_now_s() - t0, d->n, d->n * sizeof *d->d);
    hb_state_set_complexity_n(st, (int64_t)d->n);
}

/* The set of the tuple (generated on first use) and the rejection sets; a strategy this CPU
 * cannot run is skipped. */
static int prepare(hb_run *r)
{
    rf_ctx *c = r->ctx;
    const hb_rfc3339_strategy *sg = r->bench->impl;
    hb_state *st = r->st;
    if (sg->available && !sg->available()) {
        hb_state_skip(st, "this CPU lacks the instruction set of %s", sg->name);
        return HB_EINVAL;
    }
    hb_ts_params p;
    hb_ts_params_default(&p);
    p.seed = c->seed;
    p.rows = (uint64_t)c->variant_rows;
    int64_t a = r->args[0];
    switch (r->bench->family->kind) {
    case RF_ROWS:
        p.rows = (uint64_t)a;
        break;
    case RF_DIGITS:
        p.fraction = (int)a;
        p.offsets = HB_TS_OFFSETS_Z;
        break;
    case RF_OFFSET:
        p.offsets = a ? HB_TS_OFFSETS_NUMERIC : HB_TS_OFFSETS_Z;
        break;
    default:
        p.columns = (uint32_t)a;
        break;
    }
    const char *why = NULL;
    if (!c->rejects_built && rejects_build(c) != HB_OK) {
        hb_state_fail(st, "cannot build the rejection set: out of memory");
        return HB_ENOMEM;
    }
    r->input = get_set(c, &p, &why);
    if (!r->input) {
        hb_state_fail(st, "cannot build the input: %s", why);
        return HB_ENOMEM;
    }
    return HB_OK;
}

/* The set's values, then (a validating strategy) the rejection set. */
static int verify(hb_run *r)
{
    const hb_rfc3339_strategy *sg = r->bench->impl;
    return verify_set(sg, r->input, r->st) && verify_rejects(r->ctx, sg, r->st);
}

/* The timed loop: the whole set per iteration. */
static void time_set(hb_run *r)
{
    const hb_rfc3339_strategy *sg = r->bench->impl;
    rf_set *s = r->input;
    hb_state *st = r->st;
    const char *base =
        sg->input == HB_RFC3339_IN_BINARY ? (const char *)s->binary : (const char *)s->text.data;
    const hb_rfc3339_span *spans = sg->input == HB_RFC3339_IN_TEXT     ? s->tspans
                                   : sg->input == HB_RFC3339_IN_MILLIS ? s->mspans
                                                                       : s->bspans;
    uint64_t bytes = sg->input == HB_RFC3339_IN_TEXT     ? s->tbytes
                     : sg->input == HB_RFC3339_IN_MILLIS ? s->mbytes
                                                         : 8 * (uint64_t)s->n;
    size_t (*batch)(const char *, const hb_rfc3339_span *, size_t, hb_rfc3339_time *) = sg->batch;
    hb_rfc3339_time *out = s->out;
    size_t n = s->n;
    double t0 = hb_now_s();
    while (hb_state_keep_running(st)) {
        hb_do_not_optimize_u64(batch(base, spans, n, out));
        hb_do_not_optimize_ptr(out);
    }
    report(st, hb_now_s() - t0, n, bytes);
    hb_state_set_complexity_n(st, (int64_t)n);
    if (strcmp(sg->name, "simd") == 0)
        hb_state_set_label(st, hb_rfc3339_simd_level());
}

/* ---- registration: the families as data ---------------------------------------------------------
 */

/* The implementation of a described strategy: its row of hb_rfc3339_strategies, or of
 * hb_days_strategies for the days family. */
static int bind(void *ctx, const hb_family *f, const hb_strategy_desc *d, const void **impl)
{
    (void)ctx;
    if (f->kind != RF_DAYS)
        *impl = hb_rfc3339_find(d->name);
    for (size_t k = 0; f->kind == RF_DAYS && k < hb_days_strategy_count; k++)
        if (strcmp(hb_days_strategies[k].name, d->name) == 0)
            *impl = &hb_days_strategies[k];
    if (*impl)
        return HB_OK;
    fprintf(stderr, "hotbench: rfc3339 strategy %s is described but not in rfc3339.c\n", d->name);
    return HB_EINVAL;
}

static const int64_t rows_full[] = {1000, 10000, 100000, 1000000};
static const int64_t rows_quick[] = {1000, 100000};
static const int64_t rows_smoke[] = {100};
static const int64_t digits[] = {0, 1, 3, 6, 9};
static const int64_t offsets[] = {0, 1};
static const int64_t columns[] = {1, 5};
static const int64_t dates_full[] = {100000};
static const int64_t dates_smoke[] = {1000};
/* the rows of the digits, offset and columns families, per profile */
static const int64_t variant_rows[HB_PROFILES] = {100000, 10000, 100};

static const char *const rows_arg[] = {"rows", NULL};
static const char *const digits_arg[] = {"digits", NULL};
static const char *const numeric_arg[] = {"numeric", NULL};
static const char *const columns_arg[] = {"columns", NULL};
static const char *const dates_arg[] = {"dates", NULL};

/* Minimum time per repetition: an iteration parses a whole column (1,000 to 1,000,000 rows,
 * 2 us to 300 ms), so 0.1 s is hundreds of iterations for all but the slowest rows; at
 * google-benchmark's default 0.5 s the 30 parser families took ~8 s each of the full run for
 * CVs no lower (measured back to back on the 2-vCPU VM: README, `make bench`). */
#define RF_MIN_TIME_S 0.1

/* No Big-O fit: google-benchmark 1.7.1 crashes computing one for a family whose runs all failed
 * verification; the scaling is read from the rows family's JSON. */
/* clang-format off */
#define ALL(a) {HB_TUPLES(a, 1), HB_TUPLES(a, 1), HB_TUPLES(a, 1)}
#define PARSERS HB_US, HB_O_NONE, 0, 0, bind, NULL, prepare, verify, time_set, RF_MIN_TIME_S
/* group              only  kind        arguments    tuples per profile (full, quick, smoke) */
static const hb_family rf_families[] = {
    {"rfc3339",         NULL, RF_ROWS,    rows_arg,
     {HB_TUPLES(rows_full, 1), HB_TUPLES(rows_quick, 1), HB_TUPLES(rows_smoke, 1)}, PARSERS},
    {"rfc3339-digits",  NULL, RF_DIGITS,  digits_arg,  ALL(digits),  PARSERS},
    {"rfc3339-offset",  NULL, RF_OFFSET,  numeric_arg, ALL(offsets), PARSERS},
    {"rfc3339-columns", NULL, RF_COLUMNS, columns_arg, ALL(columns), PARSERS},
    {"rfc3339-days",    NULL, RF_DAYS,    dates_arg,
     {HB_TUPLES(dates_full, 1), HB_TUPLES(dates_full, 1), HB_TUPLES(dates_smoke, 1)},
     HB_US, HB_O_NONE, 0, 0, bind, NULL, prepare_days, verify_days, time_days, RF_MIN_TIME_S},
};
/* clang-format on */

extern const hb_case_desc hb_rfc3339_case; /* case.c */

int hb_rfc3339_register(const hb_options *opt)
{
    /* The case context lives until the process exits: google-benchmark calls into it. */
    static rf_ctx ctx;
    rf_ctx *c = &ctx;
    c->opt = *opt;
    c->seed = HB_GEN_DEFAULT_SEED;
    c->variant_rows = variant_rows[opt->profile_id];

    char buf[64];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)c->seed);
    hb_add_context("rfc3339_seed", buf);
    snprintf(buf, sizeof buf, "%lld", (long long)c->variant_rows);
    hb_add_context("rfc3339_variant_rows", buf);
    hb_add_context("rfc3339_simd_level", hb_rfc3339_simd_level());
    size_t n = sizeof rf_families / sizeof rf_families[0];
    int rc = HB_OK;
    for (size_t k = 0; k < n && rc == HB_OK; k++) { /* every registry row is described */
        const char *group = rf_families[k].group;
        if (rf_families[k].kind == RF_DAYS)
            rc = hb_case_check_registry(&hb_rfc3339_case, group, hb_days_strategies,
                                        hb_days_strategy_count, sizeof hb_days_strategies[0]);
        else
            rc = hb_case_check_registry(&hb_rfc3339_case, group, hb_rfc3339_strategies,
                                        hb_rfc3339_strategy_count, sizeof hb_rfc3339_strategies[0]);
    }
    return rc == HB_OK ? hb_case_register(&hb_rfc3339_case, rf_families, n, c, opt, &c->set) : rc;
}

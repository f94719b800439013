/* fuzz_rfc3339.c - differential fuzz target of the RFC 3339 timestamp parsers (cases/rfc3339).
 *
 * The input is one value (the whole input) and, when it holds LF bytes, also each line as a
 * value. Every value is parsed from an exact-size heap copy (hb_rfc3339.h: HB_RFC3339_PADDING is
 * 0, no strategy reads past s + len) by:
 *  - the strict reference, hb_rfc3339_parse (RFC 3339 section 5.6 date-time as a Spanner
 *    TIMESTAMP holds it): its answer is checked for shape (an accepted instant in range, nanos in
 *    [0, 10^9); a rejection with a known rule and a position within [0, len]);
 *  - every validating text strategy of the registry (scalar, swar, simd and its SSE4.1 and AVX2
 *    builds where the CPU has them), through the one-value entry point (parse) and the batch
 *    entry point (batch, one span alone in its own exact-size block): same accept or reject as
 *    the reference and, when accepted, the same {seconds, nanos}. Error codes may differ: only
 *    the reference reports why (hb_rfc3339_strategy.parse, "the others say accept or reject");
 *  - millis-parse (UNIX_MILLIS as a decimal string: "-"? 1*DIGIT in the TIMESTAMP range) against
 *    millis_oracle below, written from the contract with string comparisons, not arithmetic;
 *  - strptime, sscanf, millis-strtoll and int64-binary (not validating: their answers on bad
 *    input are not specified) for memory safety only.
 * All lines together are then parsed by each validating strategy's batch in one block with one
 * span per line; every out[i] and the count of rejected spans must match the one-value answers.
 * Then each of the first LONE_LINES lines (the whole input when it has none) is placed alone among valid fillers of mixed
 * layouts, in a lane of a group of 8 (then 0-2 more fillers), both drawn from the input-seeded
 * PRNG: the AVX2 batch parses 8 rows at a time (cases/rfc3339/rfc3339_vert.h) and must send a
 * group with one bad row to its one-row kernel, whatever the lane; every row must agree with the
 * reference.
 */
#include "hb_err.h"
#include "hb_fuzz.h"
#include "hb_rfc3339.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LINES 512 /* lines checked in one input (a longer input's rest is not split) */

/* The decimal bounds of millis-parse's range, HB_RFC3339_MIN_SECONDS * 1000 and
 * HB_RFC3339_MAX_SECONDS * 1000 + 999, as digit strings (without the sign of the minimum). */
static const char millis_min_digits[] = "62135596800000";
static const char millis_max_digits[] = "253402300799999";

/* The independent decimal oracle of millis-parse: s must be an optional '-' and one or more ASCII
 * digits, nothing else; leading zeros do not count; the magnitude is compared with the bound as a
 * digit string (same length: lexicographic order is numeric order). Accepted values are converted
 * to {seconds, nanos} rounding the seconds down (UNIX_MILLIS' inverse). Returns 1 and *t when
 * accepted, else 0. */
static int millis_oracle(const uint8_t *s, size_t len, hb_rfc3339_time *t)
{
    size_t i = 0;
    int neg = len > 0 && s[0] == '-';
    i += (size_t)neg;
    if (i == len)
        return 0;
    for (size_t k = i; k < len; k++)
        if (s[k] < '0' || s[k] > '9')
            return 0;
    while (len - i > 1 && s[i] == '0')
        i++;
    const char *bound = neg ? millis_min_digits : millis_max_digits;
    size_t n = len - i, bn = strlen(bound);
    if (n > bn || (n == bn && memcmp(s + i, bound, bn) > 0))
        return 0;
    int64_t ms = 0;
    for (size_t k = i; k < len; k++)
        ms = ms * 10 + (s[k] - '0');
    ms = neg ? -ms : ms;
    int64_t sub = ((ms % 1000) + 1000) % 1000; /* milliseconds into the second, 0-999 */
    t->seconds = (ms - sub) / 1000;
    t->nanos = (int32_t)sub * 1000000;
    return 1;
}

/* The reference's answer for one value, and its shape checked. Returns 1 when accepted. */
static int reference(const char *s, size_t len, hb_rfc3339_time *t)
{
    hb_rfc3339_error err = {0, 0};
    int rc = hb_rfc3339_parse(s, len, t, &err);
    if (rc == HB_OK) {
        if (t->seconds < HB_RFC3339_MIN_SECONDS || t->seconds > HB_RFC3339_MAX_SECONDS ||
            t->nanos < 0 || t->nanos > 999999999)
            hb_fuzz_fail("reference: accepted instant out of range: {%lld, %d}",
                         (long long)t->seconds, (int)t->nanos);
        return 1;
    }
    if (rc != HB_ETRUNC && rc != HB_EPARSE && rc != HB_ERANGE)
        hb_fuzz_fail("reference: unexpected code %d", rc);
    if (err.pos > len || err.rule <= HB_RFC3339_R_NONE || err.rule >= HB_RFC3339_R_COUNT)
        hb_fuzz_fail("reference: error at %zu (length %zu), rule %d", err.pos, len, err.rule);
    return 0;
}

/* One strategy's answer (ok, *t) against the reference's (want_ok, *want). */
static void agree(const char *who, const char *entry, int ok, const hb_rfc3339_time *t,
                  int want_ok, const hb_rfc3339_time *want)
{
    if (ok != want_ok)
        hb_fuzz_fail("%s (%s) %s what the reference %s", who, entry, ok ? "accepts" : "rejects",
                     want_ok ? "accepts" : "rejects");
    if (ok && (t->seconds != want->seconds || t->nanos != want->nanos))
        hb_fuzz_fail("%s (%s) gives {%lld, %d}, the reference {%lld, %d}", who, entry,
                     (long long)t->seconds, (int)t->nanos, (long long)want->seconds,
                     (int)want->nanos);
}

/* Strategy st's answer through its batch entry point, the value alone in its own block. */
static int batch_one(const hb_rfc3339_strategy *st, const char *s, size_t len,
                     hb_rfc3339_time *t)
{
    hb_rfc3339_span span = {0, (uint32_t)len};
    size_t bad = st->batch(s, &span, 1, t);
    int rejected = t->seconds == HB_RFC3339_BAD_SECONDS && t->nanos == HB_RFC3339_BAD_NANOS;
    if (bad != (size_t)rejected)
        hb_fuzz_fail("%s (batch) returns %zu rejected for one span marked %s", st->name, bad,
                     rejected ? "bad" : "good");
    return !rejected;
}

/* Every strategy on one value (an exact-size copy). *ref_ok and *ref get the reference's and
 * *mil_ok and *mil millis_oracle's answer, for the batch check over all lines. */
static void check_value(const uint8_t *data, size_t len, int *ref_ok, hb_rfc3339_time *ref,
                        int *mil_ok, hb_rfc3339_time *mil)
{
    char *s = (char *)hb_fuzz_copy(data, len);
    *ref_ok = reference(s, len, ref);
    *mil_ok = millis_oracle(data, len, mil);
    for (size_t i = 0; i < hb_rfc3339_strategy_count; i++) {
        const hb_rfc3339_strategy *st = &hb_rfc3339_strategies[i];
        if (st->available && !st->available())
            continue;
        hb_rfc3339_time t = {0, 0};
        int ok = st->parse(s, len, &t) == HB_OK;
        if (!st->validating)
            continue; /* strptime, sscanf, millis-strtoll, int64-binary: memory safety only */
        int want_ok = st->input == HB_RFC3339_IN_TEXT ? *ref_ok : *mil_ok;
        const hb_rfc3339_time *want = st->input == HB_RFC3339_IN_TEXT ? ref : mil;
        agree(st->name, "parse", ok, &t, want_ok, want);
        ok = batch_one(st, s, len, &t);
        agree(st->name, "batch", ok, &t, want_ok, want);
    }
    free(s);
}

/* Every validating strategy's batch over all n lines (spans into one exact-size block) against
 * the one-value answers. */
static void check_batch(const uint8_t *data, size_t size, const hb_rfc3339_span *spans, size_t n,
                        const int *ref_ok, const hb_rfc3339_time *ref, const int *mil_ok,
                        const hb_rfc3339_time *mil)
{
    char *base = (char *)hb_fuzz_copy(data, size);
    hb_rfc3339_time *out = malloc(n * sizeof *out);
    if (!out)
        abort();
    for (size_t i = 0; i < hb_rfc3339_strategy_count; i++) {
        const hb_rfc3339_strategy *st = &hb_rfc3339_strategies[i];
        if (!st->validating || (st->available && !st->available()))
            continue;
        int text = st->input == HB_RFC3339_IN_TEXT;
        size_t bad = st->batch(base, spans, n, out), want_bad = 0;
        for (size_t k = 0; k < n; k++) {
            int ok = !(out[k].seconds == HB_RFC3339_BAD_SECONDS &&
                       out[k].nanos == HB_RFC3339_BAD_NANOS);
            agree(st->name, "batch of all lines", ok, &out[k], text ? ref_ok[k] : mil_ok[k],
                  text ? &ref[k] : &mil[k]);
            want_bad += !ok;
        }
        if (bad != want_bad)
            hb_fuzz_fail("%s (batch of all lines) returns %zu rejected, %zu marked", st->name,
                         bad, want_bad);
    }
    free(out);
    free(base);
}

/* Valid rows of mixed layouts (fraction lengths, 'Z'/'z', offsets, 't'), none near the edges of
 * the range: the company a line keeps in check_lone. */
static const char *const fillers[] = {
    "2021-03-04T05:06:07Z",          "1970-01-01T00:00:00.1+00:00", "2024-02-28t23:59:59.12z",
    "1969-12-31T23:59:59.999-01:00", "0002-01-01T00:00:00.1234Z",   "9998-12-31T23:59:59+23:59",
    "2000-02-28T12:00:00.123456Z",   "1600-03-01T00:00:00.1234567-23:59",
    "2100-02-28T08:30:00.12345678Z", "2021-12-31T23:59:59.123456789+05:30",
};
#define N_FILLERS (sizeof fillers / sizeof *fillers)
#define LONE_ROWS 10 /* a group of 8, up to 2 more (the one-row loop after the groups) */
#define LONE_LINES 16 /* lines of one input checked alone (each costs a batch per strategy) */

/* The value data[0, len) as the only non-filler row of a column (its lane and the fillers drawn
 * from r), through every validating text strategy's batch in one exact-size block, against the
 * reference row by row. */
static void check_lone(const uint8_t *data, size_t len, hb_fuzz_rng *r)
{
    size_t lane = (size_t)hb_fuzz_range(r, 0, 7);
    size_t n = 8 + (size_t)hb_fuzz_range(r, 0, 2), at = lane, used = 0;
    hb_rfc3339_span spans[LONE_ROWS];
    hb_rfc3339_time want[LONE_ROWS], out[LONE_ROWS];
    int ok[LONE_ROWS];
    size_t size = len;
    for (size_t i = 0; i < n; i++)
        size += i == at ? 0 : strlen(fillers[(lane + i) % N_FILLERS]);
    char *text = malloc(size ? size : 1);
    if (!text)
        abort();
    for (size_t i = 0; i < n; i++) {
        const char *f = i == at ? (const char *)data : fillers[(lane + i) % N_FILLERS];
        size_t k = i == at ? len : strlen(f);
        memcpy(text + used, f, k);
        spans[i].off = (uint32_t)used;
        spans[i].len = (uint32_t)k;
        used += k;
    }
    char *base = (char *)hb_fuzz_copy(text, size);
    free(text);
    for (size_t i = 0; i < n; i++)
        ok[i] = reference(base + spans[i].off, spans[i].len, &want[i]);
    for (size_t s = 0; s < hb_rfc3339_strategy_count; s++) {
        const hb_rfc3339_strategy *st = &hb_rfc3339_strategies[s];
        if (!st->validating || st->input != HB_RFC3339_IN_TEXT || (st->available && !st->available()))
            continue;
        size_t bad = st->batch(base, spans, n, out), want_bad = 0;
        for (size_t i = 0; i < n; i++) {
            int got = !(out[i].seconds == HB_RFC3339_BAD_SECONDS &&
                        out[i].nanos == HB_RFC3339_BAD_NANOS);
            agree(st->name, i == at ? "batch, the line among fillers" : "batch, a filler", got,
                  &out[i], ok[i], &want[i]);
            want_bad += !ok[i];
        }
        if (bad != want_bad)
            hb_fuzz_fail("%s (batch among fillers) returns %zu rejected, the reference %zu",
                         st->name, bad, want_bad);
    }
    free(base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static hb_rfc3339_span spans[MAX_LINES];
    static int ref_ok[MAX_LINES], mil_ok[MAX_LINES];
    static hb_rfc3339_time ref[MAX_LINES], mil[MAX_LINES];
    int whole_ok, whole_mil_ok;
    hb_rfc3339_time whole, whole_mil;

    hb_fuzz_rng r;
    hb_fuzz_set_input(data, size);
    hb_fuzz_rng_seed(&r, data, size);
    check_value(data, size, &whole_ok, &whole, &whole_mil_ok, &whole_mil);
    if (!memchr(data, '\n', size)) {
        check_lone(data, size, &r);
        return 0;
    }
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= size && n < MAX_LINES; i++) {
        if (i == size || data[i] == '\n') {
            spans[n].off = (uint32_t)start;
            spans[n].len = (uint32_t)(i - start);
            check_value(data + start, i - start, &ref_ok[n], &ref[n], &mil_ok[n], &mil[n]);
            if (n < LONE_LINES)
                check_lone(data + start, i - start, &r);
            n++;
            start = i + 1;
        }
    }
    check_batch(data, size, spans, n, ref_ok, ref, mil_ok, mil);
    return 0;
}

/* test_dechunk.c - the chunked decoder (cases/bufgrow/dechunk.c) against RFC 9112 section 7.1.
 *
 * Table-driven: each row is {body, expected chunk-data or error code + reason + offset, why}. Every
 * row is decoded whole, with one byte of output space, byte by byte, cut in two at every point,
 * and (for short bodies) cut in three at every pair of points; all must agree. Every piece of
 * input is placed flush against a PROT_NONE page and every output window ends at one, so a read or
 * write out of bounds crashes the test. Every valid body is also cut short at every position and
 * must then fail in hb_dechunk_finish with HB_ETRUNC at that offset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "hb_dechunk.h"
#include "hb_err.h"

#define TRUNC_REASON "premature end of chunk-coded message body"
#define GUARD_CAP (160u * 1024u) /* bytes usable before each guard page */
#define SPLIT3_MAX 96            /* bodies up to this length are cut in three at every pair */

/* ---- memory ending at a PROT_NONE page -------------------------------------------------- */

typedef struct guard {
    uint8_t *base; /* the mapping */
    uint8_t *end;  /* the first byte of the PROT_NONE page */
    size_t map_len;
} guard;

static void guard_init(guard *g, size_t cap)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t usable = (cap + page - 1) / page * page;
    g->map_len = usable + page;
    g->base = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(g->base != MAP_FAILED);
    assert_int_equal(mprotect(g->base + usable, page, PROT_NONE), 0);
    g->end = g->base + usable;
}

static void guard_free(guard *g)
{
    munmap(g->base, g->map_len);
}

/* Copies n bytes so that the last one is the byte before the guard page. */
static const uint8_t *guard_place(guard *g, const uint8_t *p, size_t n)
{
    uint8_t *dst = g->end - n;
    if (n)
        memcpy(dst, p, n);
    return dst;
}

typedef struct ctx {
    guard in;     /* input pieces end here */
    guard out;    /* output windows end here */
    uint8_t *got; /* all chunk-data of one decoding */
    size_t *cuts; /* scratch for byte-by-byte feeding */
} ctx;

static int setup(void **state)
{
    ctx *c = calloc(1, sizeof(*c));
    assert_non_null(c);
    guard_init(&c->in, GUARD_CAP);
    guard_init(&c->out, GUARD_CAP);
    c->got = malloc(GUARD_CAP);
    c->cuts = malloc(GUARD_CAP * sizeof(size_t));
    assert_non_null(c->got);
    assert_non_null(c->cuts);
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    ctx *c = *state;
    guard_free(&c->in);
    guard_free(&c->out);
    free(c->got);
    free(c->cuts);
    free(c);
    return 0;
}

/* ---- the driver ------------------------------------------------------------------------- */

typedef struct outcome {
    int rc;             /* what hb_dechunk_finish returned */
    const char *reason; /* hb_dechunk_error */
    uint64_t off;
    size_t out_len;  /* chunk-data bytes received, in c->got */
    size_t consumed; /* input bytes consumed */
} outcome;

/* Decodes in[0 .. len) fed as the pieces [0, cuts[0]), [cuts[0], cuts[1]), ... [cuts[n-1], len)
 * with out_cap bytes of output space per call, then calls hb_dechunk_finish. Checks the contract
 * on the way: counts within bounds, progress, sticky errors and DONE. */
static void decode(ctx *c, const uint8_t *in, size_t len, const size_t *cuts, size_t ncuts,
                   size_t out_cap, outcome *res)
{
    hb_dechunk d;
    size_t start = 0;
    int rc = 0;

    hb_dechunk_init(&d);
    assert_null(hb_dechunk_error(&d, NULL));
    res->out_len = 0;
    res->consumed = 0;
    for (size_t k = 0; k <= ncuts && rc == 0; k++) {
        size_t end = k < ncuts ? cuts[k] : len;
        size_t n = end - start;
        const uint8_t *p = guard_place(&c->in, in + start, n);
        for (;;) {
            uint8_t *w = c->out.end - out_cap;
            size_t used = (size_t)-1, made = (size_t)-1;
            rc = hb_dechunk_run(&d, p, n, &used, w, out_cap, &made);
            assert_true(used <= n);
            assert_true(made <= out_cap);
            memcpy(c->got + res->out_len, w, made);
            res->out_len += made;
            res->consumed += used;
            p += used;
            n -= used;
            if (rc != 0 || n == 0)
                break;
            if (used == 0 && made == 0)
                fail_msg("no progress with %zu bytes of input and %zu of output", n, out_cap);
        }
        start = end;
    }
    if (rc != 0) {
        /* Sticky: the same code again, nothing consumed, nothing made. */
        size_t used = 7, made = 7;
        uint8_t *w = c->out.end - 1;
        const uint8_t *p = guard_place(&c->in, (const uint8_t *)"0", 1);
        assert_int_equal(hb_dechunk_run(&d, p, 1, &used, w, 1, &made), rc);
        assert_int_equal(used, 0);
        assert_int_equal(made, 0);
    }
    res->rc = hb_dechunk_finish(&d);
    res->reason = hb_dechunk_error(&d, &res->off);
    assert_int_equal(hb_dechunk_finish(&d), res->rc);
    if (rc == HB_DECHUNK_DONE)
        assert_int_equal(res->rc, HB_OK);
    if (rc < 0)
        assert_int_equal(res->rc, rc);
}

/* ---- the table -------------------------------------------------------------------------- */

typedef struct row {
    const char *in; /* the body (may hold NULs) */
    size_t in_len;
    const char *out; /* the chunk-data, when rc is HB_OK */
    size_t out_len;
    size_t tail;        /* bytes after the final CRLF, left unconsumed (rc HB_OK) */
    int rc;             /* what hb_dechunk_finish returns in the end */
    const char *reason; /* a substring of the reason (errors) */
    uint64_t off;       /* the error's offset */
    const char *why;
} row;

#define OK(in, out, why)                                                                           \
    {                                                                                              \
        in, sizeof(in) - 1, out, sizeof(out) - 1, 0, HB_OK, NULL, 0, why                           \
    }
#define OK_TAIL(in, out, tail, why)                                                                \
    {                                                                                              \
        in, sizeof(in) - 1, out, sizeof(out) - 1, tail, HB_OK, NULL, 0, why                        \
    }
#define BAD(in, rc, reason, off, why)                                                              \
    {                                                                                              \
        in, sizeof(in) - 1, "", 0, 0, rc, reason, off, why                                         \
    }

#define D10 "abcdefghij"
#define D50 D10 D10 D10 D10 D10
#define D170 D50 D50 D50 D10 D10

static const row rows[] = {
    /* valid bodies */
    OK("0\r\n\r\n", "", "empty body: last-chunk and final CRLF only"),
    OK("1\r\na\r\n0\r\n\r\n", "a", "one chunk of one byte"),
    OK("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world", "two chunks"),
    OK("1\r\na\r\n1\r\nb\r\n1\r\nc\r\n1\r\nd\r\n0\r\n\r\n", "abcd", "four one-byte chunks"),
    OK("a\r\n0123456789\r\n0\r\n\r\n", "0123456789", "lower-case hex"),
    OK("A\r\n0123456789\r\nB\r\n0123456789X\r\n0\r\n\r\n", "01234567890123456789X",
       "upper-case hex"),
    OK("Aa\r\n" D170 "\r\n0\r\n\r\n", D170, "mixed-case hex within one chunk-size"),
    OK("aA\r\n" D170 "\r\n0\r\n\r\n", D170, "mixed-case hex, the other way"),
    OK("0005\r\nhello\r\n000\r\n\r\n", "hello", "leading zeros on chunk-size and last-chunk"),
    OK("00000000000000000000000000000001\r\nz\r\n0\r\n\r\n", "z",
       "32 digits, all but one leading zeros: no overflow"),
    OK("5;name=value\r\nhello\r\n0\r\n\r\n", "hello", "chunk-ext with a token value"),
    /* the edges of the decoder's fast path for whole lines (dechunk.c) */
    OK("000000000000005\r\nhello\r\n0\r\n\r\n", "hello", "15 hex digits: the fast path's most"),
    OK("0000000000000005\r\nhello\r\n0\r\n\r\n", "hello", "16 hex digits: past the fast path"),
    OK("5;!#$%&'*+-.^_`|~=!#$%&'*+-.^_`|~09azAZ\r\nhello\r\n0\r\n\r\n", "hello",
       "every tchar in a chunk-ext-name and a token value"),
    OK("5;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n"
       "hello\r\n0;chunk-signature=0\r\n\r\n", "hello", "S3 aws-chunked chunk-ext"),
    OK("5;flag\r\nhello\r\n0;a;b=c\r\n\r\n", "hello", "chunk-ext without a value; on last-chunk"),
    OK("5 ; n = v ;x\r\nhello\r\n0\t;\tz\r\n\r\n", "hello", "BWS around ';' and '='"),
    OK("5;q=\"a b;c=d\"\r\nhello\r\n0\r\n\r\n", "hello", "quoted-string value with ';' and '='"),
    OK("5;q=\"say \\\"hi\\\"\";r=\"\\\\\"\r\nhello\r\n0\r\n\r\n", "hello",
       "quoted-string with escaped quotes and an escaped backslash"),
    OK("5;q=\"\xff\x80\t\"\r\nhello\r\n0\r\n\r\n", "hello", "obs-text and HTAB in quoted-string"),
    OK("5;a=1;b=\"2\" ;c\r\nhello\r\n0\r\n\r\n", "hello", "several extensions"),
    OK("5;!#$%&'*+-.^_`|~=!#$%&'*+-.^_`|~\r\nhello\r\n0\r\n\r\n", "hello",
       "every tchar punctuation in name and value"),
    OK("5\r\nhello\r\n0\r\nExpires: never\r\nX-Sum:  abc\t def \r\n\r\n", "hello",
       "trailer section of two fields, OWS in values"),
    OK("0\r\nX:\r\n\r\n", "", "trailer field with an empty value"),
    OK("0\r\nX:\xff\x80 v\r\n\r\n", "", "obs-text in a trailer field-value"),
    OK("7\r\n0\r\n\r\nab\r\n0\r\n\r\n", "0\r\n\r\nab", "chunk-data holding CRLF and 0 CRLF CRLF"),
    OK("2\r\n\r\n\r\n0\r\n\r\n", "\r\n", "chunk-data that is a CRLF"),
    OK("3\r\n\0\n\r\r\n0\r\n\r\n", "\0\n\r", "NUL, bare LF and bare CR inside chunk-data are data"),
    OK_TAIL("0\r\n\r\nextra", "", 5, "bytes after the final CRLF are left unconsumed"),
    OK_TAIL("1\r\nx\r\n0\r\n\r\n0\r\n\r\n", "x", 5, "a second body is not consumed"),

    /* chunk-size */
    BAD("", HB_ETRUNC, TRUNC_REASON, 0, "no input at all"),
    BAD("g\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "non-hex digit in chunk-size", 0, "non-hex digit"),
    BAD("5g\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "non-hex digit in chunk-size", 1,
        "non-hex digit after a hex digit"),
    BAD("0x5\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "non-hex digit in chunk-size", 1, "0x prefix"),
    BAD("+5\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "non-hex digit in chunk-size", 0, "+ prefix"),
    BAD("-5\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "non-hex digit in chunk-size", 0, "- prefix"),
    BAD("\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "missing chunk-size", 0, "empty chunk-size"),
    BAD(" 5\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "missing chunk-size", 0, "leading whitespace"),
    BAD(";a\r\n\r\n", HB_EPARSE, "missing chunk-size", 0, "chunk-ext without a chunk-size"),
    BAD("5\r\nhello\r\nz\r\n", HB_EPARSE, "non-hex digit in chunk-size", 10,
        "non-hex digit in the second chunk-size"),
    BAD("11111111111111111\r\n", HB_ERANGE, "2^63 - 1", 16, "17 non-zero hex digits"),
    BAD("8000000000000000\r\n", HB_ERANGE, "2^63 - 1", 15, "2^63 exactly"),
    BAD("ffffffffffffffff\r\n", HB_ERANGE, "2^63 - 1", 15, "2^64 - 1"),
    BAD("00000000fffffffffffffffff\r\n", HB_ERANGE, "2^63 - 1", 23, "overflow after leading zeros"),
    BAD("7fffffffffffffff\r\nabc", HB_ETRUNC, TRUNC_REASON, 21,
        "2^63 - 1 is accepted; the data then ends short"),
    BAD("7FFFFFFFFFFFFFFF;x=y\r\n", HB_ETRUNC, TRUNC_REASON, 22, "2^63 - 1, upper case, ext"),

    /* CRLF */
    BAD("5\nhello\r\n0\r\n\r\n", HB_EPARSE, "bare LF", 1, "bare LF ending the chunk line"),
    BAD("5\rhello\r\n0\r\n\r\n", HB_EPARSE, "bare CR", 1, "bare CR ending the chunk line"),
    BAD("5;a=b\nhello\r\n0\r\n\r\n", HB_EPARSE, "bare LF", 5, "bare LF after chunk-ext"),
    BAD("5;a=b\rhello\r\n0\r\n\r\n", HB_EPARSE, "bare CR", 5, "bare CR after chunk-ext"),
    BAD("5\r\nhello\n0\r\n\r\n", HB_EPARSE, "bare LF", 8, "bare LF after chunk-data"),
    BAD("5\r\nhello\r0\r\n\r\n", HB_EPARSE, "bare CR", 8, "bare CR after chunk-data"),
    BAD("5\r\nhello0\r\n\r\n", HB_EPARSE, "missing CRLF after chunk-data", 8,
        "no CRLF after chunk-data"),
    BAD("5\r\nhelloX\r\n0\r\n\r\n", HB_EPARSE, "missing CRLF after chunk-data", 8,
        "data longer than its chunk-size"),
    BAD("5\r\nhell\r\n0\r\n\r\n", HB_EPARSE, "bare LF", 8,
        "data shorter than its chunk-size: CR taken as data, then LF"),
    BAD("0\r\n\n", HB_EPARSE, "bare LF", 3, "bare LF as the final CRLF"),
    BAD("0\r\n\rX", HB_EPARSE, "bare CR", 3, "bare CR as the final CRLF"),
    BAD("0\n\r\n", HB_EPARSE, "bare LF", 1, "bare LF after last-chunk"),
    BAD("0\r\nX: a\nb\r\n\r\n", HB_EPARSE, "bare LF", 7, "bare LF in a trailer field-value"),
    BAD("0\r\nX: a\rb\r\n\r\n", HB_EPARSE, "bare CR", 7, "bare CR in a trailer field-value"),
    BAD("0\r\nX\n\r\n", HB_EPARSE, "bare LF", 4, "bare LF in a trailer field-name"),

    /* chunk-ext */
    BAD("5 \r\nhello\r\n0\r\n\r\n", HB_EPARSE, "whitespace at the end of a chunk line", 2,
        "BWS without ';'"),
    BAD("5;a \r\nhello\r\n0\r\n\r\n", HB_EPARSE, "whitespace at the end of a chunk line", 4,
        "trailing whitespace after chunk-ext-name"),
    BAD("5;\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "missing chunk-ext-name", 2, "';' alone"),
    BAD("5;;a\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "invalid character in chunk-ext-name", 2, "';;'"),
    BAD("5;=x\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "invalid character in chunk-ext-name", 2,
        "empty chunk-ext-name before '='"),
    BAD("5;a\x80=b\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "invalid character in chunk-ext-name", 3,
        "obs-text in chunk-ext-name"),
    BAD("5;a=\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "missing chunk-ext-val", 4, "'=' alone"),
    BAD("5;a=;b\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "missing chunk-ext-val", 4, "'=' then ';'"),
    BAD("5;a=b c\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "expected ';'", 6, "two tokens as value"),
    BAD("5;a b\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "expected '=' or ';'", 4, "two tokens as name"),
    BAD("5;a=b@\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "invalid character in chunk-ext-val", 5,
        "non-tchar in a token value"),
    BAD("5;a=@\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "invalid character in chunk-ext-val", 4,
        "value starting with a non-tchar"),
    BAD("5;a=\"x\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "unterminated quoted-string", 6,
        "CR inside a quoted-string"),
    BAD("5;a=\"x\ny\"\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "bare LF", 6, "LF inside a quoted-string"),
    BAD("5;a=\"x\"y\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "after quoted-string", 7,
        "token glued to a quoted-string"),
    BAD("5;a=\"\x01\"\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "invalid character in quoted-string", 5,
        "control character in a quoted-string"),
    BAD("5;a=\"\x7f\"\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "invalid character in quoted-string", 5,
        "DEL in a quoted-string"),
    BAD("5;a=\"\\\x01\"\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "invalid quoted-pair", 6,
        "quoted-pair of a control character"),
    BAD("5;a=\"\\\r\nhello\r\n0\r\n\r\n", HB_EPARSE, "unterminated quoted-string", 6,
        "quoted-pair cut by CR"),

    /* trailer section */
    BAD("0\r\nX : a\r\n\r\n", HB_EPARSE, "whitespace before ':'", 4,
        "whitespace between field-name and ':'"),
    BAD("0\r\n a: b\r\n\r\n", HB_EPARSE, "invalid character in trailer field-name", 3,
        "line starting with whitespace (obs-fold)"),
    BAD("0\r\nA: b\r\n c\r\n\r\n", HB_EPARSE, "invalid character in trailer field-name", 9,
        "obs-fold continuation line"),
    BAD("0\r\n: b\r\n\r\n", HB_EPARSE, "empty trailer field-name", 3, "empty field-name"),
    BAD("0\r\nX\r\n\r\n", HB_EPARSE, "missing ':'", 4, "field line without ':'"),
    BAD("0\r\nX(: b\r\n\r\n", HB_EPARSE, "invalid character in trailer field-name", 4,
        "non-tchar in field-name"),
    BAD("0\r\nX: a\x01\r\n\r\n", HB_EPARSE, "invalid character in trailer field-value", 7,
        "control character in field-value"),
    BAD("0\r\nX: a\x7f\r\n\r\n", HB_EPARSE, "invalid character in trailer field-value", 7,
        "DEL in field-value"),

    /* truncation (more at every position of every valid body, below) */
    BAD("5\r\nhello\r\n", HB_ETRUNC, TRUNC_REASON, 10, "no last-chunk"),
    BAD("5\r\nhello\r\n0\r\n", HB_ETRUNC, TRUNC_REASON, 13, "no final CRLF"),
    BAD("5\r\nhello\r\n0\r\nX: y\r\n", HB_ETRUNC, TRUNC_REASON, 19, "no final CRLF after trailer"),
    BAD("5\r\nhel", HB_ETRUNC, TRUNC_REASON, 6, "ends inside chunk-data"),
};

static const size_t nrows = sizeof(rows) / sizeof(rows[0]);

/* Compares one decoding with what the row expects. */
static void expect(const row *r, const outcome *o, const char *mode)
{
    if (o->rc != r->rc)
        fail_msg("%s [%s]: code %d, expected %d (reason %s)", r->why, mode, o->rc, r->rc,
                 o->reason ? o->reason : "none");
    if (r->rc == HB_OK) {
        if (o->reason)
            fail_msg("%s [%s]: unexpected reason %s", r->why, mode, o->reason);
        if (o->out_len != r->out_len)
            fail_msg("%s [%s]: %zu bytes of data, expected %zu", r->why, mode, o->out_len,
                     r->out_len);
        if (o->consumed != r->in_len - r->tail)
            fail_msg("%s [%s]: consumed %zu bytes, expected %zu", r->why, mode, o->consumed,
                     r->in_len - r->tail);
        return;
    }
    if (!o->reason || !strstr(o->reason, r->reason))
        fail_msg("%s [%s]: reason \"%s\", expected it to contain \"%s\"", r->why, mode,
                 o->reason ? o->reason : "(null)", r->reason);
    if (r->rc == HB_ETRUNC && strcmp(o->reason, TRUNC_REASON) != 0)
        fail_msg("%s [%s]: truncation reason \"%s\"", r->why, mode, o->reason);
    if (o->off != r->off)
        fail_msg("%s [%s]: error at byte %llu, expected %llu (%s)", r->why, mode,
                 (unsigned long long)o->off, (unsigned long long)r->off, o->reason);
}

static void expect_data(ctx *c, const row *r, const outcome *o, const char *mode)
{
    expect(r, o, mode);
    if (r->rc == HB_OK && memcmp(c->got, r->out, r->out_len) != 0)
        fail_msg("%s [%s]: wrong chunk-data", r->why, mode);
}

/* Every way of feeding one row. */
static void check_row(ctx *c, const row *r)
{
    const uint8_t *in = (const uint8_t *)r->in;
    size_t len = r->in_len;
    size_t cuts[2];
    outcome o;
    char mode[64];

    decode(c, in, len, NULL, 0, len + 1, &o);
    expect_data(c, r, &o, "whole");
    decode(c, in, len, NULL, 0, 1, &o);
    expect_data(c, r, &o, "whole, out_cap 1");
    for (size_t i = 1; i < len; i++)
        c->cuts[i - 1] = i;
    decode(c, in, len, c->cuts, len ? len - 1 : 0, 1, &o);
    expect_data(c, r, &o, "byte by byte, out_cap 1");
    decode(c, in, len, c->cuts, len ? len - 1 : 0, 3, &o);
    expect_data(c, r, &o, "byte by byte, out_cap 3");
    for (size_t a = 1; a < len; a++) {
        cuts[0] = a;
        decode(c, in, len, cuts, 1, len + 1, &o);
        snprintf(mode, sizeof(mode), "cut at %zu", a);
        expect_data(c, r, &o, mode);
        decode(c, in, len, cuts, 1, 2, &o);
        snprintf(mode, sizeof(mode), "cut at %zu, out_cap 2", a);
        expect_data(c, r, &o, mode);
    }
    if (len > SPLIT3_MAX)
        return;
    for (size_t a = 1; a < len; a++) {
        for (size_t b = a + 1; b < len; b++) {
            cuts[0] = a;
            cuts[1] = b;
            decode(c, in, len, cuts, 2, len + 1, &o);
            snprintf(mode, sizeof(mode), "cut at %zu and %zu", a, b);
            expect_data(c, r, &o, mode);
        }
    }
}

static void test_table(void **state)
{
    for (size_t i = 0; i < nrows; i++)
        check_row(*state, &rows[i]);
}

/* Every valid body cut short at every position: HB_ETRUNC at that offset from finish. */
static void test_truncation_everywhere(void **state)
{
    ctx *c = *state;
    outcome o;
    char mode[64];

    for (size_t i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (r->rc != HB_OK)
            continue;
        size_t body = r->in_len - r->tail;
        for (size_t k = 0; k < body; k++) {
            row t = {r->in, k, "", 0, 0, HB_ETRUNC, TRUNC_REASON, k, r->why};
            decode(c, (const uint8_t *)r->in, k, NULL, 0, k + 1, &o);
            snprintf(mode, sizeof(mode), "truncated to %zu bytes", k);
            expect(&t, &o, mode);
            for (size_t j = 1; j < k; j++)
                c->cuts[j - 1] = j;
            decode(c, (const uint8_t *)r->in, k, c->cuts, k ? k - 1 : 0, 1, &o);
            snprintf(mode, sizeof(mode), "truncated to %zu bytes, byte by byte", k);
            expect(&t, &o, mode);
        }
    }
}

/* ---- bounds: chunk-ext and trailer section ---------------------------------------------- */

/* Decodes a generated body whole, byte by byte and cut at a stride of points. */
static void check_generated(ctx *c, const row *r)
{
    const uint8_t *in = (const uint8_t *)r->in;
    size_t len = r->in_len;
    outcome o;
    char mode[64];

    decode(c, in, len, NULL, 0, len + 1, &o);
    expect_data(c, r, &o, "whole");
    for (size_t i = 1; i < len; i++)
        c->cuts[i - 1] = i;
    decode(c, in, len, c->cuts, len - 1, 1, &o);
    expect_data(c, r, &o, "byte by byte, out_cap 1");
    for (size_t a = 1; a < len; a += 997) {
        size_t cut = a;
        decode(c, in, len, &cut, 1, len + 1, &o);
        snprintf(mode, sizeof(mode), "cut at %zu", a);
        expect_data(c, r, &o, mode);
    }
}

/* "1;" + a chunk-ext-name of name_len bytes + CRLF + "x" CRLF + "0;" + same + CRLF CRLF. The
 * chunk-ext of each line is 1 + name_len bytes. */
static size_t make_ext_body(char *buf, size_t name_len)
{
    size_t n = 0;
    for (int line = 0; line < 2; line++) {
        n += (size_t)sprintf(buf + n, "%s;", line ? "0" : "1");
        memset(buf + n, 'e', name_len);
        n += name_len;
        n += (size_t)sprintf(buf + n, line ? "\r\n\r\n" : "\r\nx\r\n");
    }
    return n;
}

static void test_ext_bound(void **state)
{
    ctx *c = *state;
    char *buf = malloc(2 * HB_DECHUNK_MAX_EXT + 64);
    assert_non_null(buf);

    /* Exactly HB_DECHUNK_MAX_EXT bytes on each of two lines: the bound is per line. */
    size_t n = make_ext_body(buf, HB_DECHUNK_MAX_EXT - 1);
    row ok = {buf, n, "x", 1, 0, HB_OK, NULL, 0, "chunk-ext at the bound on two lines"};
    check_generated(c, &ok);

    /* One byte more: refused at the first byte past the bound (offset 2 + MAX_EXT - 1 + 1). */
    n = make_ext_body(buf, HB_DECHUNK_MAX_EXT);
    row over = {buf,
                n,
                "",
                0,
                0,
                HB_ELIMIT,
                "chunk-ext longer than",
                1 + HB_DECHUNK_MAX_EXT,
                "chunk-ext one byte over the bound"};
    check_generated(c, &over);

    /* Over the bound inside a quoted-string value. */
    n = (size_t)sprintf(buf, "1;q=\"");
    memset(buf + n, 'q', HB_DECHUNK_MAX_EXT);
    n += HB_DECHUNK_MAX_EXT;
    n += (size_t)sprintf(buf + n, "\"\r\nx\r\n0\r\n\r\n");
    row qs = {buf,
              n,
              "",
              0,
              0,
              HB_ELIMIT,
              "chunk-ext longer than",
              1 + HB_DECHUNK_MAX_EXT,
              "chunk-ext over the bound in a quoted-string"};
    check_generated(c, &qs);
    free(buf);
}

/* "0" CRLF, then trailer field lines "T: vvv..." CRLF totalling exactly `total` bytes, then the
 * final CRLF. */
static size_t make_trailer_body(char *buf, size_t total)
{
    size_t n = (size_t)sprintf(buf, "0\r\n");
    while (total > 0) {
        size_t line = total > 1000 ? 1000 : total;
        if (total - line < 5 && total > 1000)
            line = total - 5; /* keep the last line at least "T:" CRLF plus a byte */
        buf[n++] = 'T';
        buf[n++] = ':';
        memset(buf + n, 'v', line - 4);
        n += line - 4;
        buf[n++] = '\r';
        buf[n++] = '\n';
        total -= line;
    }
    buf[n++] = '\r';
    buf[n++] = '\n';
    return n;
}

static void test_trailer_bound(void **state)
{
    ctx *c = *state;
    char *buf = malloc(HB_DECHUNK_MAX_TRAILER + 64);
    assert_non_null(buf);

    size_t n = make_trailer_body(buf, HB_DECHUNK_MAX_TRAILER);
    row ok = {buf, n, "", 0, 0, HB_OK, NULL, 0, "trailer section at the bound"};
    check_generated(c, &ok);

    n = make_trailer_body(buf, HB_DECHUNK_MAX_TRAILER + 1);
    /* The byte past the bound is the last LF of the field lines. */
    row over = {buf,
                n,
                "",
                0,
                0,
                HB_ELIMIT,
                "trailer section longer than",
                3 + HB_DECHUNK_MAX_TRAILER,
                "trailer section one byte over the bound"};
    check_generated(c, &over);
    free(buf);
}

/* ---- the contract's edges --------------------------------------------------------------- */

static void test_no_output_space(void **state)
{
    (void)state;
    hb_dechunk d;
    size_t used, made;
    const uint8_t body[] = "3\r\nabc\r\n0\r\n\r\n";
    uint8_t out[4];

    hb_dechunk_init(&d);
    /* No output space: the chunk line is consumed, the data waits. */
    assert_int_equal(hb_dechunk_run(&d, body, sizeof(body) - 1, &used, out, 0, &made), 0);
    assert_int_equal(used, 3);
    assert_int_equal(made, 0);
    assert_int_equal(hb_dechunk_run(&d, body + 3, sizeof(body) - 4, &used, NULL, 0, &made), 0);
    assert_int_equal(used, 0);
    /* An empty piece of input is fine. */
    assert_int_equal(hb_dechunk_run(&d, body + 3, 0, &used, out, sizeof(out), &made), 0);
    assert_int_equal(used, 0);
    assert_int_equal(made, 0);
    assert_int_equal(hb_dechunk_run(&d, body + 3, sizeof(body) - 4, &used, out, sizeof(out), &made),
                     HB_DECHUNK_DONE);
    assert_int_equal(used, sizeof(body) - 4);
    assert_int_equal(made, 3);
    assert_memory_equal(out, "abc", 3);
    /* DONE is sticky and consumes nothing. */
    assert_int_equal(hb_dechunk_run(&d, body, 1, &used, out, sizeof(out), &made), HB_DECHUNK_DONE);
    assert_int_equal(used, 0);
    assert_int_equal(made, 0);
    assert_int_equal(hb_dechunk_finish(&d), HB_OK);
    assert_null(hb_dechunk_error(&d, NULL));
}

/* Output filled: the call stops right after the chunk-data byte that filled it, also at a chunk's
 * end, so where it stops does not depend on the input that follows (the body reader's sink-error
 * offsets rely on it). {body, out_cap, used, made, why} rows. */
static void test_stops_when_output_full(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        size_t out_cap, used, made;
        const char *why;
    } stops[] = {
        {"4\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n", 4, 7, 4, "filled at the chunk's end"},
        {"4\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n", 2, 5, 2, "filled inside a chunk"},
        {"2\r\nab\r\n2\r\ncd\r\n0\r\n\r\n", 4, 12, 4, "filled across two chunks"},
        {"4\r\nabcd\r\nZ\r\n", 4, 7, 4, "filled before a bad chunk line"},
        /* issue 15 section 3: the body reader's limit hands the decoder a window one byte past
         * it and reports that byte's offset, used - 1; nothing is held for the rest of a chunk */
        {"7fffffffffffffff\r\nabcdefgh", 5, 23, 5,
         "a chunk announcing 2^63 - 1 bytes: stops at the window, not at the chunk's end"},
        {"2\r\nab\r\n2\r\ncd\r\n2\r\nef\r\n", 5, 18, 5,
         "an endless run of chunks: stops at the window's byte, in the third chunk"},
        {"1\r\na\r\n1\r\nb\r\n", 1, 4, 1, "window of 1 (a limit of 0): the first data byte"},
    };
    for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
        hb_dechunk d;
        size_t used, made;
        uint8_t out[8];
        hb_dechunk_init(&d);
        int rc = hb_dechunk_run(&d, (const uint8_t *)stops[i].body, strlen(stops[i].body), &used,
                                out, stops[i].out_cap, &made);
        if (rc != 0 || used != stops[i].used || made != stops[i].made)
            fail_msg("%s: rc %d, used %zu, made %zu; expected 0, %zu, %zu", stops[i].why, rc, used,
                     made, stops[i].used, stops[i].made);
    }
}

static void test_error_not_consumed(void **state)
{
    (void)state;
    hb_dechunk d;
    size_t used, made;
    const uint8_t body[] = "2\r\nab\r\nq";
    uint8_t out[8];
    uint64_t off = 0;

    hb_dechunk_init(&d);
    assert_int_equal(hb_dechunk_run(&d, body, sizeof(body) - 1, &used, out, sizeof(out), &made),
                     HB_EPARSE);
    assert_int_equal(used, 7); /* up to, not including, the offending byte */
    assert_int_equal(made, 2);
    assert_string_equal(hb_dechunk_error(&d, &off), "non-hex digit in chunk-size");
    assert_int_equal(off, 7);
    assert_int_equal(hb_dechunk_finish(&d), HB_EPARSE);
    assert_string_equal(hb_dechunk_error(&d, NULL), "non-hex digit in chunk-size");
}

/* ---- a body nginx sent -------------------------------------------------------------------- */

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    uint8_t *p = malloc((size_t)n + 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* Inflates a gzip stream (one or more members) into a malloc'd buffer. */
static uint8_t *gunzip(const uint8_t *in, size_t len, size_t *out_len)
{
    size_t cap = 1u << 20, n = 0;
    uint8_t *out = malloc(cap);
    z_stream z;
    assert_non_null(out);
    memset(&z, 0, sizeof(z));
    assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)len;
    for (;;) {
        if (n == cap) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
        z.next_out = out + n;
        z.avail_out = (uInt)(cap - n);
        int zr = inflate(&z, Z_NO_FLUSH);
        n = cap - z.avail_out;
        if (zr == Z_STREAM_END && z.avail_in == 0)
            break;
        if (zr == Z_STREAM_END)
            assert_int_equal(inflateReset(&z), Z_OK);
        else
            assert_int_equal(zr, Z_OK);
    }
    inflateEnd(&z);
    *out_len = n;
    return out;
}

static void test_nginx_fixture(void **state)
{
    ctx *c = *state;
    size_t body_len, tsv_len, plain_len;
    uint8_t *body = slurp(HB_FIXTURES "/nginx-small.gzip.chunked", &body_len);
    uint8_t *tsv = slurp(HB_FIXTURES "/nginx-small.tsv", &tsv_len);
    outcome o;
    assert_true(body_len <= GUARD_CAP);

    /* Whole, then byte by byte with one byte of output, then in odd pieces: the same stream. */
    decode(c, body, body_len, NULL, 0, body_len, &o);
    assert_int_equal(o.rc, HB_OK);
    assert_int_equal(o.consumed, body_len);
    size_t gz_len = o.out_len;
    uint8_t *gz = malloc(gz_len);
    assert_non_null(gz);
    memcpy(gz, c->got, gz_len);

    for (size_t i = 1; i < body_len; i++)
        c->cuts[i - 1] = i;
    decode(c, body, body_len, c->cuts, body_len - 1, 1, &o);
    assert_int_equal(o.rc, HB_OK);
    assert_int_equal(o.out_len, gz_len);
    assert_memory_equal(c->got, gz, gz_len);

    size_t n = 0;
    for (size_t at = 4093; at < body_len; at += 4093)
        c->cuts[n++] = at;
    decode(c, body, body_len, c->cuts, n, 8191, &o);
    assert_int_equal(o.rc, HB_OK);
    assert_int_equal(o.out_len, gz_len);
    assert_memory_equal(c->got, gz, gz_len);

    uint8_t *plain = gunzip(gz, gz_len, &plain_len);
    assert_int_equal(plain_len, tsv_len);
    assert_memory_equal(plain, tsv, tsv_len);
    free(plain);
    free(gz);
    free(tsv);
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_truncation_everywhere),
        cmocka_unit_test(test_ext_bound),
        cmocka_unit_test(test_trailer_bound),
        cmocka_unit_test(test_no_output_space),
        cmocka_unit_test(test_error_not_consumed),
        cmocka_unit_test(test_stops_when_output_full),
        cmocka_unit_test(test_nginx_fixture),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

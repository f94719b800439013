/* test_volumes_utf16.c - UTF-16 and the XML version in the DescribeVolumes decoders
 * (cases/volumes/vol_utf16.c, the rules in hb_volumes.h; issue 15 section 2).
 *
 * Table-driven: each row is a document written as ASCII with {XXXX} for a raw UTF-16 code unit,
 * encoded little- or big-endian with or without a byte order mark (or left as UTF-8), perhaps
 * with one byte more (an odd length), and the outcome every decoding strategy must give: the JSON,
 * or a rejection with its code, a phrase of its reason, its line and column. Every decoder decodes
 * every row from a copy placed flush against a PROT_NONE page; the streaming (expat) strategies
 * also in pieces of 1, 2, 3, 5, 7 and 4096 bytes, which split code units and surrogate pairs
 * between pieces. fast refuses UTF-16 with a byte order mark as "unsupported: ..." (a documented
 * exclusion of hb_volumes.h) and must agree on everything else. Then: a pair and an unpaired high
 * surrogate split at every piece size; hb_vol_u16_check fed in two parts split at every offset
 * (the position and the offset of the finding do not depend on the split); hb_vol_version_ok.
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
#include <cmocka.h>
#include <expat.h>

#include "hb_guard.h"
#include "vol_reason.h"

#include "hb_err.h"
#include "hb_volumes.h"
#include "volumes_impl.h"

#define GUARD_CAP (1u << 16)

/* ---- memory ending at a PROT_NONE page -------------------------------------------------- */


/* ---- JSON into a string ------------------------------------------------------------------ */

typedef struct sbuf {
    char p[4096];
    size_t len;
} sbuf;

static int sbuf_write(void *ctx, const char *p, size_t n)
{
    sbuf *b = ctx;
    assert_true(sizeof b->p - b->len > n);
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

/* ---- documents ---------------------------------------------------------------------------- */

enum enc { E_LE, E_BE, E_LE_NOBOM, E_BE_NOBOM, E_UTF8 };

/* tmpl encoded as enc into out (cap bytes): ASCII characters as code units, {XXXX} as the code
 * unit XXXX (hex); E_UTF8 copies the bytes. odd: one byte 'x' more. Returns the length. */
static size_t encode(int enc, const char *tmpl, int odd, uint8_t *out, size_t cap)
{
    size_t o = 0;
    if (enc == E_UTF8) {
        o = strlen(tmpl);
        assert_true(o + 1 < cap);
        memcpy(out, tmpl, o);
    } else {
        int be = enc == E_BE || enc == E_BE_NOBOM;
        if (enc == E_LE || enc == E_BE) {
            out[o++] = be ? 0xfe : 0xff;
            out[o++] = be ? 0xff : 0xfe;
        }
        for (const char *t = tmpl; *t;) {
            unsigned w = (unsigned char)*t++;
            if (w == '{') {
                char *e;
                w = (unsigned)strtoul(t, &e, 16);
                assert_true(*e == '}');
                t = e + 1;
            }
            assert_true(o + 3 < cap);
            out[o++] = (uint8_t)(be ? w >> 8 : w & 0xff);
            out[o++] = (uint8_t)(be ? w & 0xff : w >> 8);
        }
    }
    if (odd)
        out[o++] = 'x';
    return o;
}

/* one volume whose volumeId is X: X starts at column 31 (32 after a byte order mark) */
#define PRE "<R><volumeSet><item><volumeId>"
#define POST "</volumeId></item></volumeSet></R>"
#define VOL(x) PRE x POST
#define JVOL(id) "[\n{\"volumeId\": \"" id "\", \"attachments\": [], \"tags\": []}\n]\n"
#define DECL(v, e) "<?xml version=\"" v "\" encoding=\"" e "\"?>"

typedef struct row {
    int enc;
    const char *tmpl;
    int odd;
    const char *json;       /* NULL: rejected */
    int rc;                 /* when rejected */
    const char *why_substr; /* hotbench's words in the reason when rejected ("": any) */
    uint64_t line, column;  /* where, when rejected; 0: not a finding of the UTF-16 check (code
                               and reason checked for the reference only, the position not) */
    const char *why;
    int xml_error; /* expat's enum XML_Error, when expat finds it (the reference is expat's) */
} row;

/* clang-format off */
static const row rows[] = {
    /* well-formed UTF-16 */
    {E_LE, VOL("cafe"), 0, JVOL("cafe"), 0, NULL, 0, 0, "UTF-16LE with a byte order mark", 0},
    {E_BE, VOL("cafe"), 0, JVOL("cafe"), 0, NULL, 0, 0, "UTF-16BE with a byte order mark", 0},
    {E_LE, VOL("a{D83D}{DE80}b"), 0, JVOL("a\xf0\x9f\x9a\x80" "b"), 0, NULL, 0, 0,
     "UTF-16LE: a surrogate pair is one character (U+1F680)", 0},
    {E_BE, VOL("{DBFF}{DFFF}"), 0, JVOL("\xf4\x8f\xbf\xbf"), 0, NULL, 0, 0,
     "UTF-16BE: the last pair (U+10FFFF)", 0},
    {E_LE, DECL("1.0", "UTF-16") VOL("x"), 0, JVOL("x"), 0, NULL, 0, 0,
     "UTF-16LE with a mark, declared UTF-16", 0},
    {E_BE, DECL("1.0", "utf-16be") VOL("x"), 0, JVOL("x"), 0, NULL, 0, 0,
     "UTF-16BE with a mark, declared UTF-16BE", 0},
    /* unpaired surrogates (section 2.2) */
    {E_LE, VOL("{D800}a"), 0, NULL, HB_EPARSE, "high surrogate (code unit 0xD800) not followed",
     1, 32, "UTF-16LE: a high surrogate, then an ordinary character", 0},
    {E_BE, VOL("{D800}a"), 0, NULL, HB_EPARSE, "high surrogate (code unit 0xD800) not followed",
     1, 32, "UTF-16BE: a high surrogate, then an ordinary character", 0},
    {E_LE, VOL("{D800}{D801}{DC00}"), 0, NULL, HB_EPARSE, "0xD800) not followed", 1, 32,
     "UTF-16LE: a high surrogate, then another (which has its low one)", 0},
    {E_BE, VOL("{D800}{D801}"), 0, NULL, HB_EPARSE, "0xD800) not followed", 1, 32,
     "UTF-16BE: a high surrogate, then another", 0},
    {E_LE, VOL("{D800}{0000}"), 0, NULL, HB_EPARSE, "0xD800) not followed", 1, 32,
     "UTF-16LE: a high surrogate, then U+0000", 0},
    {E_BE, VOL("{DBFF}{0000}"), 0, NULL, HB_EPARSE, "0xDBFF) not followed", 1, 32,
     "UTF-16BE: a high surrogate, then U+0000", 0},
    {E_LE, VOL("{DC00}"), 0, NULL, HB_EPARSE, "low surrogate (code unit 0xDC00) without", 1, 32,
     "UTF-16LE: a lone low surrogate", 0},
    {E_BE, VOL("{D83D}{DE80}{DFFF}"), 0, NULL, HB_EPARSE, "low surrogate (code unit 0xDFFF)",
     1, 33, "UTF-16BE: a low surrogate after a whole pair (the pair is one column)", 0},
    {E_LE, "<R a='{DC00}'/>", 0, NULL, HB_EPARSE, "low surrogate", 1, 8,
     "UTF-16LE: a lone low surrogate in an attribute value", 0},
    {E_LE, "<R>\r\n<volumeSet>\n<item>\r<volumeId>{D800}x" POST, 0, NULL, HB_EPARSE,
     "0xD800) not followed", 4, 11, "UTF-16LE: lines end at CR LF, LF and CR", 0},
    {E_LE, PRE "x{D800}", 0, NULL, HB_ETRUNC, "ends after a high surrogate", 1, 33,
     "UTF-16LE: the document ends after a high surrogate", 0},
    /* the byte order mark (section 4.3.3) */
    {E_LE_NOBOM, VOL("cafe"), 0, NULL, HB_EPARSE, "without a byte order mark (first bytes 3C 00)",
     1, 1, "UTF-16LE without a byte order mark or declaration", 0},
    {E_BE_NOBOM, VOL("cafe"), 0, NULL, HB_EPARSE, "without a byte order mark (first bytes 00 3C)",
     1, 1, "UTF-16BE without a byte order mark or declaration", 0},
    {E_LE_NOBOM, DECL("1.0", "UTF-16") VOL("x"), 0, NULL, HB_EPARSE, "without a byte order mark",
     1, 1, "UTF-16LE declared UTF-16, no mark (3C 00 3F 00: appendix F; 4.3.3 wants the mark)", 0},
    {E_BE_NOBOM, DECL("1.0", "UTF-16") VOL("x"), 0, NULL, HB_EPARSE, "without a byte order mark",
     1, 1, "UTF-16BE declared UTF-16, no mark (00 3C 00 3F)", 0},
    {E_LE_NOBOM, DECL("1.0", "UTF-16LE") VOL("x"), 0, NULL, HB_EPARSE,
     "without a byte order mark", 1, 1, "UTF-16LE declared UTF-16LE, no mark", 0},
    {E_BE_NOBOM, "{2000}<R/>", 0, NULL, HB_EPARSE, "without a byte order mark (first bytes 20 00)",
     1, 1, "no mark, first bytes 20 00: 16-bit code units (expat would read UTF-16LE)", 0},
    /* whole code units */
    {E_LE, "<R/>", 1, NULL, HB_ETRUNC, "an odd number of bytes (11)", 1, 6,
     "UTF-16LE: an odd number of bytes", 0},
    {E_BE, VOL("cafe") "\n", 1, NULL, HB_ETRUNC, "an odd number of bytes", 2, 1,
     "UTF-16BE: an odd number of bytes after a line end", 0},
    {E_LE, "", 1, NULL, HB_ETRUNC, "an odd number of bytes (3)", 1, 2,
     "a byte order mark and one byte", 0},
    /* the declared encoding is the document's (section 4.3.3) */
    {E_LE, DECL("1.0", "UTF-16BE") VOL("x"), 0, NULL, HB_EPARSE, NULL, 0, 0,
     "UTF-16LE with a mark, declared UTF-16BE", XML_ERROR_INCORRECT_ENCODING},
    {E_LE, DECL("1.0", "UTF-8") VOL("x"), 0, NULL, HB_EPARSE, NULL, 0, 0,
     "UTF-16LE with a mark, declared UTF-8", XML_ERROR_INCORRECT_ENCODING},
    {E_UTF8, DECL("1.0", "UTF-16") VOL("x"), 0, NULL, HB_EPARSE, "", 0, 0,
     "UTF-8 declared UTF-16", 0},
    /* versions (section 2.8): 1.x is read as 1.0 */
    {E_UTF8, "<?xml version=\"1.1\"?>" VOL("x"), 0, JVOL("x"), 0, NULL, 0, 0, "UTF-8, version 1.1", 0},
    {E_LE, DECL("1.1", "UTF-16") VOL("x"), 0, JVOL("x"), 0, NULL, 0, 0, "UTF-16LE, version 1.1", 0},
    {E_UTF8, "<?xml version='1.9' standalone='yes'?>" VOL("x"), 0, JVOL("x"), 0, NULL, 0, 0,
     "UTF-8, version 1.9, standalone", 0},
    /* hotbench's version rule, or expat's own refusal of the declaration (newer expat) */
    {E_UTF8, "<?xml version=\"2.0\"?>" VOL("x"), 0, NULL, HB_EPARSE, "version other than 1.x", 0,
     0, "version 2.0", XML_ERROR_XML_DECL},
    {E_BE, "<?xml version=\"1.\"?>" VOL("x"), 0, NULL, HB_EPARSE, "version other than 1.x", 0, 0,
     "UTF-16BE, version '1.'", XML_ERROR_XML_DECL},
    {E_UTF8, "<?xml version=\"1.0a\"?>" VOL("x"), 0, NULL, HB_EPARSE, "", 0, 0, "version 1.0a", 0},
};
/* clang-format on */

static const size_t pieces[] = {0, 1, 2, 3, 5, 7, 4096};

/* s decodes doc (fed as piece) as r says; fast refuses a document with a byte order mark. */
static void check_one(const hb_vol_strategy *s, const row *r, const uint8_t *doc, size_t len,
                      size_t piece)
{
    hb_volumes v;
    hb_vol_error err;
    int rc = hb_volumes_decode(s, hb_guard_place(doc, len), len, piece, &v, &err);
    if (strcmp(s->name, "fast") == 0 && (r->enc == E_LE || r->enc == E_BE)) {
        if (rc == HB_OK || strncmp(err.reason, "unsupported: ", 13) != 0)
            fail_msg("%s: fast gives %d (%s), expected an 'unsupported: ' refusal", r->why, rc,
                     rc == HB_OK ? "accepted" : err.reason);
    } else if (r->json) {
        sbuf b = {.len = 0};
        if (rc != HB_OK)
            fail_msg("%s: %s (piece %zu) rejects: %s at line %llu, column %llu", r->why, s->name,
                     piece, err.reason, (unsigned long long)err.line,
                     (unsigned long long)err.column);
        assert_int_equal(hb_volumes_json(&v, sbuf_write, &b), 0);
        if (strcmp(b.p, r->json) != 0)
            fail_msg("%s: %s (piece %zu) gives\n%s\nexpected\n%s", r->why, s->name, piece, b.p,
                     r->json);
    } else {
        if (rc == HB_OK)
            fail_msg("%s: %s (piece %zu) accepts it", r->why, s->name, piece);
        /* code and reason: every strategy for a finding of the shared UTF-16 check (a row with
         * a position), the reference alone otherwise (libxml2 words some errors its own way) */
        int strict = r->line || strcmp(s->name, HB_VOL_REFERENCE) == 0;
        if (strict && (rc != r->rc || !hb_vol_reason_is(&err, r->why_substr, r->xml_error)))
            fail_msg("%s: %s (piece %zu) gives %d '%s' (library code %d), expected %d with '%s' "
                     "or expat's code %d",
                     r->why, s->name, piece, rc, err.reason ? err.reason : "(null)", err.lib_code,
                     r->rc, r->why_substr ? r->why_substr : "-", r->xml_error);
        if (r->line && (err.line != r->line || err.column != r->column))
            fail_msg("%s: %s (piece %zu) at line %llu, column %llu; expected %llu, %llu", r->why,
                     s->name, piece, (unsigned long long)err.line, (unsigned long long)err.column,
                     (unsigned long long)r->line, (unsigned long long)r->column);
    }
    hb_volumes_free(&v);
}

static void test_table(void **state)
{
    (void)state;
    uint8_t doc[1024];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        size_t len = encode(r->enc, r->tmpl, r->odd, doc, sizeof doc);
        for (size_t k = 0; k < hb_vol_strategy_count; k++) {
            const hb_vol_strategy *s = &hb_vol_strategies[k];
            if (s->output != HB_VOL_OUT_VOLUMES)
                continue;
            for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++)
                if (pieces[p] == 0 || s->streaming)
                    check_one(s, r, doc, len, pieces[p]);
        }
    }
}

/* A pair, and an unpaired high surrogate, split between pieces at every piece size: the streaming
 * strategies accept the one and reject the other at the same line and column. */
static void test_every_piece_size(void **state)
{
    (void)state;
    static const row ok = {E_BE,
                           VOL("ab{D83D}{DE80}c"),
                           0,
                           JVOL("ab\xf0\x9f\x9a\x80"
                                "c"),
                           0,
                           NULL,
                           0,
                           0,
                           "a pair split at every piece size",
                           0};
    static const row bad = {E_LE,
                            VOL("ab{D83D}c{DE80}"),
                            0,
                            NULL,
                            HB_EPARSE,
                            "0xD83D) not followed",
                            1,
                            34,
                            "an unpaired high at every piece size",
                            0};
    const row *r[] = {&ok, &bad};
    uint8_t doc[256];
    for (size_t i = 0; i < 2; i++) {
        size_t len = encode(r[i]->enc, r[i]->tmpl, 0, doc, sizeof doc);
        for (size_t k = 0; k < hb_vol_strategy_count; k++) {
            const hb_vol_strategy *s = &hb_vol_strategies[k];
            if (s->output == HB_VOL_OUT_VOLUMES && s->streaming)
                for (size_t piece = 1; piece <= len; piece++)
                    check_one(s, r[i], doc, len, piece);
        }
    }
}

/* hb_vol_u16_check fed doc in two parts split at k: the outcome, the position and the offending
 * offset (k + *bad in the second part, *bad in the first) are those of the whole document. */
static void test_check_split_anywhere(void **state)
{
    (void)state;
    static const struct {
        int enc;
        const char *tmpl;
        int odd;
        int rc;
        uint64_t line, column, at; /* at: the offending code unit's byte offset */
    } docs[] = {
        {E_LE, "<R>{D800}{D800}{DC00}</R>", 0, HB_EPARSE, 1, 5, 8},
        {E_BE, "<R>\n{D83D}{DE80}{DE80}</R>", 0, HB_EPARSE, 2, 2, 14},
        {E_LE, "<R>{D83D}", 0, HB_ETRUNC, 1, 5, 8},
        {E_BE, "<R/>", 1, HB_ETRUNC, 1, 6, 10},
        {E_BE_NOBOM, "<R/>", 0, HB_EPARSE, 1, 1, 0},
        {E_LE, "<R>{D83D}{DE80}</R>", 0, HB_OK, 0, 0, 0},
        {E_UTF8, "<R>\xed\xa0\x80{D800}</R>", 0, HB_OK, 0, 0, 0}, /* UTF-8: not looked at */
    };
    uint8_t doc[128];
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        size_t len = encode(docs[i].enc, docs[i].tmpl, docs[i].odd, doc, sizeof doc);
        for (size_t k = 0; k <= len; k++) {
            hb_vol_u16 u;
            hb_vol_error e;
            size_t bad = (size_t)-1;
            memset(&e, 0, sizeof e);
            hb_vol_u16_init(&u);
            int rc = hb_vol_u16_check(&u, doc, k, 0, &e, &bad);
            size_t at = bad;
            if (rc == HB_OK) {
                rc = hb_vol_u16_check(&u, doc + k, len - k, 1, &e, &bad);
                at = k + bad;
                if (rc != HB_OK && docs[i].at < k)
                    at = bad == 0 ? docs[i].at : (size_t)-1; /* in the first part: 0 */
            }
            if (rc != docs[i].rc)
                fail_msg("doc %zu split at %zu: %d (%s), expected %d", i, k, rc,
                         rc ? e.reason : "ok", docs[i].rc);
            if (rc != HB_OK && (e.line != docs[i].line || e.column != docs[i].column ||
                                at != docs[i].at || !e.reason || strchr(e.reason, '\n')))
                fail_msg("doc %zu split at %zu: line %llu, column %llu, at %zu; expected %llu, "
                         "%llu, %llu",
                         i, k, (unsigned long long)e.line, (unsigned long long)e.column, at,
                         (unsigned long long)docs[i].line, (unsigned long long)docs[i].column,
                         (unsigned long long)docs[i].at);
        }
    }
}

static void test_version_ok(void **state)
{
    (void)state;
    static const struct {
        const char *v;
        int ok;
    } v[] = {{"1.0", 1},  {"1.1", 1}, {"1.10", 1}, {"1.0123456789", 1}, {"1.", 0},
             {"1", 0},    {"2.0", 0}, {"1.a", 0},  {"1.0 ", 0},         {"", 0},
             {"01.0", 0}, {"1,0", 0}, {"11.0", 0}, {"0.9", 0},          {"1.1.1", 0}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (hb_vol_version_ok(v[i].v, strlen(v[i].v)) != v[i].ok)
            fail_msg("version '%s': expected %s", v[i].v, v[i].ok ? "ok" : "refused");
}

int main(void)
{
    hb_guard_init(GUARD_CAP);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_every_piece_size),
        cmocka_unit_test(test_check_split_anywhere),
        cmocka_unit_test(test_version_ok),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* vol_libxml2.c - libxml2-dom: libxml2 parses the document into its DOM, then a walk maps the DOM
 * to structs (the shape of the many SDKs and tools that sit on libxml2).
 *
 * libxml2's allocator is process-global (xmlMemSetup): it is pointed once, before libxml2 is
 * first used, at the counting hooks, which count into the result bound to the calling thread.
 * A DOCTYPE is rejected by a SAX internalSubset handler that stops the parser before any
 * declaration is read. Options: no network, no error printing; entities are not substituted
 * by us (there are no declared ones) and libxml2's own limits (depth 256 without
 * XML_PARSE_HUGE, entity amplification checks) stay on.
 *
 * Where libxml2 is more lenient than expat (the reference), the document is held to expat's rules
 * so that the two never decode differently:
 *  - a NUL character (a zero byte in UTF-8, a zero code unit in UTF-16) is rejected: libxml2
 *    takes it for the end of the input and would ignore whatever follows;
 *  - names follow XML 1.0 before the fifth edition (XML_PARSE_OLD10), as expat's do; the option
 *    is turned on by the SAX startDocument handler, after the XML declaration: with it libxml2
 *    2.9.14 refuses every version but "1.0", without it it warns on "1.x" and reads it as 1.0,
 *    as XML 1.0 Fifth Edition section 2.8 says (and then the version must pass
 *    hb_vol_version_ok: libxml2 takes "1." too);
 *  - a declared encoding expat does not know (it knows UTF-8, UTF-16, UTF-16BE, UTF-16LE,
 *    ISO-8859-1 and US-ASCII) is rejected: libxml2 would convert any iconv encoding; so is a
 *    declared encoding the document is not in (XML 1.0 section 4.3.3: "a fatal error for an
 *    entity including an encoding declaration to be presented to the XML processor in an
 *    encoding other than that named in the declaration"): a UTF-16 name in a document without a
 *    byte order mark, or with one, any name but UTF-16 and UTF-16LE/BE of its byte order
 *    (libxml2 takes UTF-8 after FF FE); the name is read from the declaration itself
 *    (lx_declared_encoding: libxml2 2.12 on keep the detected one instead), and a UTF-8 byte
 *    order mark does not override a declared 8-bit encoding (lx_skip: it does from 2.12 on);
 *  - content after the root element is refused also where libxml2 2.12 and 2.14 on let it pass
 *    after an earlier error that left the document well-formed (lx_end_document);
 *  - the UTF-16 rules of hb_vol_u16_check (vol_utf16.c) are checked before libxml2 sees the
 *    document: a byte order mark where the first bytes hold a 0x00 byte, no unpaired surrogate,
 *    whole code units (libxml2 takes an odd trailing byte, and UTF-16 with a declaration and no
 *    byte order mark);
 *  - xmlCtxtReadMemory takes an int length: a document over INT_MAX bytes is refused with
 *    HB_ELIMIT rather than cut to its int-truncated length.
 */
#include "hb_volumes.h"
#include "volumes_impl.h"

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define DOCTYPE_REASON "a document type declaration (DOCTYPE) is not allowed"
#define NUL_REASON "not well-formed (invalid token)"            /* expat's words for a NUL */
#define ENCODING_REASON "unknown encoding"                      /* expat's words */
#define EXTRA_REASON "Extra content at the end of the document" /* XML_ERR_DOCUMENT_END's */
#define WRONG_ENCODING_REASON "encoding specified in XML declaration is incorrect" /* expat's */

static pthread_once_t lx_once = PTHREAD_ONCE_INIT;

static char *lx_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = hb_vm_hook_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void lx_init(void)
{
    xmlMemSetup(hb_vm_hook_free, hb_vm_hook_malloc, hb_vm_hook_realloc, lx_strdup);
    xmlInitParser();
}

/* What libxml2 would print during a parse is dropped: the error is reported through hb_vol_error,
 * on one line, from xmlCtxtGetLastError. XML_PARSE_NOERROR alone does not silence everything:
 *  - from libxml2 2.13 on (HB_HAVE_XMLCTXTSETERRORHANDLER: the release that reports every error
 *    of a parse through its context) an out-of-memory report ignores NOERROR: the context's own
 *    handler, which takes precedence over every other (xmlCtxtSetErrorHandler), drops it;
 *  - before 2.13 the encoding and I/O layers report without the context, to the thread's generic
 *    handler (libxml2 2.9.14 encoding.c): it is swapped for lx_drop during the parse and then
 *    restored (xmlSetGenericErrorFunc and the xmlGenericError it saves are deprecated from 2.13
 *    on in favour of the above). */
typedef struct lx_quiet_state {
#if HB_HAVE_XMLCTXTSETERRORHANDLER
    int unused; /* nothing to restore: the handler belongs to the context */
#else
    xmlGenericErrorFunc prev_f; /* the thread's generic handler and its context, to restore */
    void *prev_ctx;
#endif
} lx_quiet_state;

#if HB_HAVE_XMLCTXTSETERRORHANDLER
static void lx_drop(void *ctx, const xmlError *e)
{
    (void)ctx;
    (void)e;
}
#else
static void lx_drop(void *ctx, const char *fmt, ...)
{
    (void)ctx;
    (void)fmt;
}
#endif

/* Silences the parse of c (see above) until lx_unquiet(q); *q is the caller's. */
static void lx_quiet(xmlParserCtxtPtr c, lx_quiet_state *q)
{
#if HB_HAVE_XMLCTXTSETERRORHANDLER
    q->unused = 0;
    xmlCtxtSetErrorHandler(c, lx_drop, NULL);
#else
    (void)c;
    q->prev_f = xmlGenericError;
    q->prev_ctx = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(NULL, lx_drop);
#endif
}

static void lx_unquiet(lx_quiet_state *q)
{
#if HB_HAVE_XMLCTXTSETERRORHANDLER
    (void)q;
#else
    xmlSetGenericErrorFunc(q->prev_ctx, q->prev_f);
#endif
}

/* What xmlCtxtGetLastError's NULL (no error recorded) stands for: code XML_ERR_OK, no message,
 * no position. */
static const xmlError lx_no_error;

/* What the SAX handlers below learn during one parse (the context's _private). */
typedef struct lx_parse {
    int doctype; /* a DOCTYPE was met: the parse was stopped there */
    uint64_t doctype_line, doctype_column;
    int junk; /* content after the root element went unreported */
    uint64_t junk_line, junk_column;
} lx_parse;

/* internalSubset: a DOCTYPE; its position is taken here, as the input is gone once libxml2
 * 2.15 returns from a stopped parse. */
static void lx_internal_subset(void *ctx, const xmlChar *name, const xmlChar *ext,
                               const xmlChar *sys)
{
    (void)name;
    (void)ext;
    (void)sys;
    xmlParserCtxtPtr c = ctx;
    lx_parse *p = c->_private;
    p->doctype = 1;
    p->doctype_line = (uint64_t)(c->input ? c->input->line : 0);
    p->doctype_column = (uint64_t)(c->input ? c->input->col : 0);
    xmlStopParser(c);
}

/* endDocument: every byte after the root element must have been read as white space, comments or
 * processing instructions. libxml2 2.9-2.11 and 2.13 report anything else as a fatal error
 * ("Extra content at the end of the document", XML_ERR_DOCUMENT_END) and then never call this
 * handler; 2.12 and 2.14 on do not report it when an error was recorded before, even one that
 * leaves the document well-formed such as an undeclared namespace prefix (parser.c,
 * xmlParseDocument and xmlParserCheckEOF), and call this handler with the input not read to its
 * end. */
static void lx_end_document(void *ctx)
{
    xmlParserCtxtPtr c = ctx;
    lx_parse *p = c->_private;
    if (c->input && c->input->cur < c->input->end) {
        p->junk = 1;
        p->junk_line = (uint64_t)c->input->line;
        p->junk_column = (uint64_t)c->input->col;
    }
    xmlSAX2EndDocument(ctx);
}

/* startDocument: libxml2 has read the XML declaration (its version check done without
 * XML_PARSE_OLD10, see the head comment); names from here on follow the fourth edition. */
static void lx_start_document(void *ctx)
{
    xmlParserCtxtPtr c = ctx;
    c->options |= XML_PARSE_OLD10;
    xmlSAX2StartDocument(ctx);
}

/* 1 when the document starts with a UTF-16 byte order mark (hb_vol_u16_check has rejected UTF-16
 * without one before this is asked). */
static int lx_utf16(const uint8_t *doc, size_t len)
{
    int k = hb_vol_u16_sniff(doc, len);
    return k == HB_VOL_U16_LE || k == HB_VOL_U16_BE;
}

/* The offset of the first NUL character in doc, or len: a zero code unit at an even offset in
 * UTF-16, else a zero byte. */
static size_t lx_find_nul(const uint8_t *doc, size_t len)
{
    if (!lx_utf16(doc, len)) {
        const uint8_t *z = memchr(doc, 0, len);
        return z ? (size_t)(z - doc) : len;
    }
    for (size_t i = 0; i + 1 < len; i += 2)
        if (doc[i] == 0 && doc[i + 1] == 0)
            return i;
    return len;
}

/* libxml2's message as one line of UTF-8 (an error reason): line ends and other control bytes
 * become one space, bytes that are not UTF-8 '?'; trailing spaces dropped. */
static void lx_one_line(char *dst, size_t cap, const char *msg)
{
    const unsigned char *u = (const unsigned char *)msg;
    size_t o = 0;
    while (*u && cap - o > 5) {
        unsigned c = *u;
        size_t k = c < 0x80                 ? 1
                   : c >= 0xc2 && c <= 0xdf ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
        size_t j = 1;
        while (j < k && (u[j] & 0xc0) == 0x80)
            j++;
        if (c < 0x20 || c == 0x7f) {
            if (o > 0 && dst[o - 1] != ' ')
                dst[o++] = ' ';
            u++;
        } else if (k == 0 || j < k) {
            dst[o++] = '?';
            u += j;
        } else {
            memcpy(dst + o, u, k);
            o += k;
            u += k;
        }
    }
    while (o > 0 && dst[o - 1] == ' ')
        o--;
    dst[o] = '\0';
}

/* 1 when expat knows the encoding name (xmltok.c's encodingNames; case-insensitive). */
static int lx_known_encoding(const char *name)
{
    static const char *const known[] = {"UTF-8",    "UTF-16",   "UTF-16BE",
                                        "UTF-16LE", "US-ASCII", "ISO-8859-1"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcasecmp(name, known[i]) == 0)
            return 1;
    return 0;
}

/* 1 when the declared encoding name (NULL: none) fits a document of hb_vol_u16_kind kind, as expat
 * decides (xmltok.c, XmlParseXmlDecl and the 16-bit check of processXmlDecl): a UTF-16 name only
 * in UTF-16, and after a byte order mark UTF-16 or the name of its byte order only. */
static int lx_encoding_fits(const char *name, int kind)
{
    if (!name)
        return 1;
    int u16 = strcasecmp(name, "UTF-16") == 0, le = strcasecmp(name, "UTF-16LE") == 0,
        be = strcasecmp(name, "UTF-16BE") == 0;
    if (kind == HB_VOL_U16_LE)
        return u16 || le;
    if (kind == HB_VOL_U16_BE)
        return u16 || be;
    return !u16 && !le && !be;
}

/* The ASCII character of the code unit at byte offset i of a document of hb_vol_u16_kind kind, or
 * -1 (past the end, not ASCII). */
static int lx_ascii(const uint8_t *doc, size_t len, int kind, size_t i)
{
    if (kind == HB_VOL_U16_LE)
        return i + 1 < len && doc[i + 1] == 0 && doc[i] < 0x80 ? doc[i] : -1;
    if (kind == HB_VOL_U16_BE)
        return i + 1 < len && doc[i] == 0 && doc[i + 1] < 0x80 ? doc[i + 1] : -1;
    return i < len && doc[i] < 0x80 ? doc[i] : -1;
}

/* 1 when the code units from byte offset i spell s (ASCII); w bytes a unit. */
static int lx_spells(const uint8_t *doc, size_t len, int kind, size_t i, size_t w, const char *s)
{
    for (size_t k = 0; s[k]; k++)
        if (lx_ascii(doc, len, kind, i + k * w) != (unsigned char)s[k])
            return 0;
    return 1;
}

/* The encoding name the XML declaration of doc (after its byte order mark) declares, as written,
 * into name (cap bytes, NUL-terminated, cut to cap - 1: a longer name is none expat knows). 0 and
 * "" when there is no declaration or it declares no encoding. Reads within len on any bytes.
 * libxml2 2.12 on replace a declared name that contradicts the byte order mark by the detected
 * one in xmlDoc.encoding and the context's (with the warning XML_WAR_ENCODING_MISMATCH), so the
 * declaration is read here, from the bytes. No well-formedness check is made: in a document
 * libxml2 accepted, "encoding" can only open the EncodingDecl (XML 1.0 Fifth Edition section 2.8
 * [23], section 4.3.3 [80]); before the parse (lx_skip) the answer only picks the bytes libxml2
 * sees, and a malformed declaration is rejected by libxml2 either way. */
static int lx_declared_encoding(const uint8_t *doc, size_t len, char *name, size_t cap)
{
    int kind = hb_vol_u16_sniff(doc, len);
    size_t w = kind == HB_VOL_U16_LE || kind == HB_VOL_U16_BE ? 2 : 1;
    size_t i = w == 2 ? 2 : len >= 3 && memcmp(doc, "\xef\xbb\xbf", 3) == 0 ? 3 : 0, o = 0;
    name[0] = '\0';
    int ch = -1;
    if (!lx_spells(doc, len, kind, i, w, "<?xml") ||
        ((ch = lx_ascii(doc, len, kind, i + 5 * w)) != ' ' && ch != '\t' && ch != '\r' &&
         ch != '\n'))
        return 0;
    for (i += 5 * w; !lx_spells(doc, len, kind, i, w, "encoding"); i += w)
        if (lx_ascii(doc, len, kind, i) < 0 || lx_spells(doc, len, kind, i, w, "?>"))
            return 0;
    for (i += 8 * w; (ch = lx_ascii(doc, len, kind, i)) == ' ' || ch == '\t' || ch == '\r' ||
                     ch == '\n' || ch == '=';)
        i += w; /* S? Eq S? */
    if (ch != '"' && ch != '\'')
        return 0;
    int quote = ch;
    for (i += w; (ch = lx_ascii(doc, len, kind, i)) >= 0 && ch != quote; i += w)
        if (o + 1 < cap)
            name[o++] = (char)ch;
    name[o] = '\0';
    return 1;
}

/* How many bytes at the start of doc libxml2 is not to see: the UTF-8 byte order mark (EF BB BF)
 * when the XML declaration names an encoding other than UTF-8, else none. Expat then decodes the
 * document as declared, and so do libxml2 2.9-2.11; 2.12 on let the mark win over the declaration
 * (and warn, XML_WAR_ENCODING_MISMATCH), but follow the declaration of a document without a mark.
 * libxml2 counts no column for the mark, so positions are the same either way. */
static size_t lx_skip(const uint8_t *doc, size_t len)
{
    char name[64];
    if (len < 3 || memcmp(doc, "\xef\xbb\xbf", 3) != 0 ||
        !lx_declared_encoding(doc, len, name, sizeof name) || strcasecmp(name, "UTF-8") == 0)
        return 0;
    return 3;
}

/* The XML declaration of doc, which libxml2 parsed into d, held to expat's rules (see the head
 * comment): the encoding expat knows and fitting the byte order mark, the version one
 * hb_vol_version_ok takes. Returns HB_OK, or HB_EPARSE with *err filled (at line 1, column 1). */
static int lx_declaration_check(const uint8_t *doc, size_t len, xmlDocPtr d, hb_vol_error *err)
{
    char declared[64];
    /* the name as declared (see lx_declared_encoding), else what libxml2 detected */
    const char *enc = lx_declared_encoding(doc, len, declared, sizeof declared)
                          ? declared
                          : (const char *)d->encoding;
    const char *reason = NULL;
    if (enc && !lx_known_encoding(enc))
        reason = ENCODING_REASON;
    else if (!lx_encoding_fits(enc, hb_vol_u16_sniff(doc, len)))
        reason = WRONG_ENCODING_REASON;
    else if (d->version &&
             !hb_vol_version_ok((const char *)d->version, strlen((const char *)d->version)))
        reason = HB_VOL_VERSION_REASON;
    if (!reason)
        return HB_OK;
    err->line = 1;
    err->column = 1;
    return hb_vol_fail(err, HB_EPARSE, reason);
}

/* What is checked before libxml2 sees the document (see the head comment): its size, the UTF-16
 * rules, NUL characters. Returns HB_OK or the error, *err filled. */
static int lx_precheck(const uint8_t *doc, size_t len, hb_vol_error *err)
{
    if (len > INT_MAX)
        return hb_vol_fail(err, HB_ELIMIT, "libxml2-dom reads documents of at most 2^31 - 1 bytes");
    hb_vol_u16 u;
    size_t bad;
    hb_vol_u16_init(&u);
    int rc = hb_vol_u16_check(&u, doc, len, 1, err, &bad);
    if (rc != HB_OK)
        return rc;
    size_t nul = lx_find_nul(doc, len);
    if (nul < len) {
        if (lx_utf16(doc, len)) {
            err->line = 0; /* characters, not bytes: not worth counting here */
            err->column = 0;
        } else {
            hb_vol_position(doc, nul, &err->line, &err->column);
        }
        return hb_vol_fail(err, HB_EPARSE, NUL_REASON);
    }
    return HB_OK;
}

/* The DOM as builder events, depth first. */
static int lx_map(vb *b, xmlNodePtr n, hb_vol_error *err)
{
    const char *name = (const char *)n->name;
    size_t nlen = strlen(name);
    int rc = vb_start(b, name, nlen);
    for (xmlNodePtr c = n->children; rc == HB_OK && c; c = c->next) {
        switch (c->type) {
        case XML_ELEMENT_NODE:
            rc = lx_map(b, c, err);
            break;
        case XML_TEXT_NODE:
        case XML_CDATA_SECTION_NODE:
            if (c->content && vb_top(b) == VB_LEAF)
                rc = vb_text(b, (const char *)c->content, strlen((const char *)c->content));
            break;
        default:
            break;
        }
    }
    if (rc == HB_OK)
        rc = vb_end(b, name, nlen);
    if (rc != HB_OK && !err->line) {
        err->line = (uint64_t)xmlGetLineNo(n);
        err->column = 1;
    }
    return rc;
}

int hb_vol_libxml2_dom(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                       hb_vol_error *err)
{
    (void)piece;
    int rc = lx_precheck(doc, len, err);
    lx_parse p = {0};
    if (rc != HB_OK)
        return rc;
    pthread_once(&lx_once, lx_init);
    hb_volumes *prev = hb_vm_bind(out);
    xmlDocPtr d = NULL;
    xmlParserCtxtPtr c = xmlNewParserCtxt();
    if (!c) {
        hb_vm_bind(prev);
        return hb_vol_fail(err, HB_ENOMEM, "out of memory");
    }
    lx_quiet_state q;
    lx_quiet(c, &q);
    c->_private = &p;
    c->sax->internalSubset = lx_internal_subset;
    c->sax->startDocument = lx_start_document; /* turns XML_PARSE_OLD10 on */
    c->sax->endDocument = lx_end_document;
    size_t skip = lx_skip(doc, len);
    d = xmlCtxtReadMemory(c, (const char *)doc + skip, (int)(len - skip), NULL, NULL,
                          XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (p.doctype) {
        rc = hb_vol_fail(err, HB_EPARSE, DOCTYPE_REASON);
        err->line = p.doctype_line;
        err->column = p.doctype_column;
    } else if (!d || !c->wellFormed) {
        const xmlError *e = xmlCtxtGetLastError(c); /* the context's member is deprecated */
        if (!e)
            e = &lx_no_error;
        rc = HB_EPARSE;
        if (e->code == XML_ERR_NO_MEMORY)
            rc = HB_ENOMEM;
        else if (e->code == XML_ERR_DOCUMENT_END || e->code == XML_ERR_DOCUMENT_EMPTY ||
                 e->code == XML_ERR_TAG_NOT_FINISHED || e->code == XML_ERR_LTSLASH_REQUIRED)
            rc = HB_ETRUNC;
        if (e->code == XML_ERR_UNKNOWN_VERSION) {
            err->reason = HB_VOL_VERSION_REASON; /* the expat strategies' words */
        } else if (e->code == XML_ERR_UNSUPPORTED_ENCODING || e->code == XML_ERR_UNKNOWN_ENCODING) {
            err->reason = ENCODING_REASON;
        } else if (e->message) {
            lx_one_line(err->msg, sizeof err->msg, e->message);
            err->reason = err->msg;
        } else {
            err->reason = "malformed document";
        }
        err->line = (uint64_t)(e->line > 0 ? e->line : 0);
        err->column = (uint64_t)(e->int2 > 0 ? e->int2 : 0);
        err->lib_code = e->code; /* xmlParserErrors: the same across versions, the words not */
    } else if (p.junk) { /* what libxml2 reports when it does (see lx_end_document), mapped above */
        rc = hb_vol_fail(err, HB_ETRUNC, EXTRA_REASON);
        err->lib_code = XML_ERR_DOCUMENT_END;
        err->line = p.junk_line;
        err->column = p.junk_column;
    } else {
        rc = lx_declaration_check(doc, len, d, err);
    }
    if (rc == HB_OK) {
        vb b;
        rc = vb_init(&b, out, err, 0, 0);
        xmlNodePtr root = xmlDocGetRootElement(d);
        if (rc == HB_OK && root)
            rc = lx_map(&b, root, err);
        if (rc == HB_OK)
            rc = vb_finish(&b);
        vb_release(&b);
    }
    if (d)
        xmlFreeDoc(d);
    xmlFreeParserCtxt(c);
    lx_unquiet(&q);
    hb_vm_bind(prev);
    return rc;
}

const char *hb_vol_libxml2_version(void)
{
    return LIBXML_DOTTED_VERSION;
}

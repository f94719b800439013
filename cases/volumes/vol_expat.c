/* vol_expat.c - the expat strategies: expat-count (the parser's floor), expat-typed and
 * expat-typed-arena (callbacks straight into structs), expat-tree (a generic element tree, then a
 * second pass into structs).
 *
 * Every parser is created with XML_ParserCreate_MM so that expat's own allocations are counted
 * with the strategy's (hb_vm_hook_*), and with a start-DOCTYPE handler that stops the parser: a
 * DOCTYPE is rejected before any declaration in it is read. Entity amplification protection is
 * left at expat's defaults (on in expat 2.4 and later), and so is the hash salt (random per parser)
 * unless $HB_HASH_SALT fixes it (hb_seed.h: the gate's callgrind runs, for counts that repeat). Namespace processing is off: names arrive
 * qualified and the builder matches their local part. An XML declaration's version must be "1."
 * and digits, read as 1.0 (XML 1.0 Fifth Edition section 2.8, hb_vol_version_ok): expat 2.5 takes
 * any version made of name characters ("2.0", "abc"), and reads it by 1.0 rules.
 * expat 2.5 reads UTF-16 without a byte order mark, and takes a high surrogate with whatever code
 * unit follows it (an ordinary character, another high surrogate, U+0000) for a pair, inventing a
 * code point (a lone low surrogate it rejects, as "invalid token"): every piece goes through
 * hb_vol_u16_check (vol_utf16.c) before XML_Parse sees it, across piece boundaries, so each of
 * these is rejected with what and where. At its first finding the bytes before the offending code
 * unit are fed to expat, so an earlier error of expat's is the one reported (the first error in
 * document order, fed whole or in pieces).
 * XML_Parse takes an int length: a document is fed in pieces of at most 64 MiB, so one over
 * 2 GiB is read whole, never cut to its int-truncated length.
 */
#include "hb_volumes.h"
#include "volumes_impl.h"
#include "hb_seed.h"

#include <expat.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define DOCTYPE_REASON "a document type declaration (DOCTYPE) is not allowed"
#define VX_MAX_FEED ((size_t)64 << 20) /* XML_Parse takes an int length: bigger feeds are split */
#define VT_MAX_DEPTH 4096 /* expat-tree maps and frees its tree recursively: a bounded depth */

typedef struct vx {
    XML_Parser p;
    hb_volumes *out;
    hb_vol_error *err;
    int rc;       /* HB_OK, or the error a handler stopped the parser with */
    int doctype;  /* the parser was stopped at a DOCTYPE */
    vb b;         /* expat-typed(-arena) */
    void *tree;   /* expat-tree: the node being built */
    void *root;   /* expat-tree: the document node */
    size_t depth; /* expat-tree: open elements */
} vx;

/* Fixes the parser's hash salt to salt (nonzero): the 16-byte form from expat 2.8 on (salt's
 * bytes, least significant first, repeated to fill 16), XML_SetHashSalt before it
 * (HB_HAVE_XML_SETHASHSALT16BYTES, CMakeLists.txt's feature test). Called before parsing starts. */
static void vx_set_salt(XML_Parser p, unsigned long salt)
{
#if HB_HAVE_XML_SETHASHSALT16BYTES
    uint8_t entropy[16];
    for (size_t i = 0; i < sizeof entropy; i++)
        entropy[i] = (uint8_t)(salt >> (8 * (i % sizeof salt)));
    XML_SetHashSalt16Bytes(p, entropy);
#else
    XML_SetHashSalt(p, salt);
#endif
}

/* The parser's current line and column (expat counts lines from 1, columns from 0): the 64-bit
 * calls from expat 2.8 on, the XML_Size ones before (HB_HAVE_XML_GETCURRENTLINENUMBER64). */
static uint64_t vx_line(XML_Parser p)
{
#if HB_HAVE_XML_GETCURRENTLINENUMBER64
    return XML_GetCurrentLineNumber64(p);
#else
    return XML_GetCurrentLineNumber(p);
#endif
}

static uint64_t vx_column(XML_Parser p)
{
#if HB_HAVE_XML_GETCURRENTLINENUMBER64
    return XML_GetCurrentColumnNumber64(p);
#else
    return XML_GetCurrentColumnNumber(p);
#endif
}

static void XMLCALL vx_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset)
{
    (void)name;
    (void)sysid;
    (void)pubid;
    (void)has_internal_subset;
    vx *x = ud;
    x->doctype = 1;
    x->rc = hb_vol_fail(x->err, HB_EPARSE, DOCTYPE_REASON);
    XML_StopParser(x->p, XML_FALSE);
}

static void XMLCALL vx_xml_decl(void *ud, const XML_Char *version, const XML_Char *encoding,
                                int standalone)
{
    (void)encoding;
    (void)standalone;
    vx *x = ud;
    if (version && !hb_vol_version_ok(version, strlen(version))) {
        x->rc = hb_vol_fail(x->err, HB_EPARSE, HB_VOL_VERSION_REASON);
        XML_StopParser(x->p, XML_FALSE);
    }
}

static int vx_create(vx *x, hb_volumes *out, hb_vol_error *err)
{
    static const XML_Memory_Handling_Suite mm = {hb_vm_hook_malloc, hb_vm_hook_realloc,
                                                 hb_vm_hook_free};
    memset(x, 0, sizeof *x);
    x->out = out;
    x->err = err;
    x->p = XML_ParserCreate_MM(NULL, &mm, NULL);
    if (!x->p)
        return hb_vol_fail(err, HB_ENOMEM, "out of memory");
    if (hb_hash_salt())
        vx_set_salt(x->p, hb_hash_salt());
    XML_SetUserData(x->p, x);
    XML_SetStartDoctypeDeclHandler(x->p, vx_doctype);
    XML_SetXmlDeclHandler(x->p, vx_xml_decl);
    return HB_OK;
}

/* A handler's error: stop the parser, keep the first code. */
static void vx_stop(vx *x, int rc)
{
    if (x->rc == HB_OK)
        x->rc = rc;
    XML_StopParser(x->p, XML_FALSE);
}

/* Feeds the document whole (piece == 0) or in pieces; fills *err on failure. A whole document
 * over VX_MAX_FEED bytes is fed in VX_MAX_FEED pieces, the last one final. Each piece is checked
 * by hb_vol_u16_check first (one comparison once a document is known not to be UTF-16); at its
 * finding expat gets the bytes before the offending code unit, and the finding is reported unless
 * expat stops on an earlier error. */
static int vx_run(vx *x, const uint8_t *doc, size_t len, size_t piece)
{
    enum XML_Status st = XML_STATUS_OK;
    int pieces = piece != 0 && piece < len, urc = HB_OK;
    size_t step = pieces ? piece : len, off = 0, bad = 0;
    hb_vol_u16 u;
    hb_vol_error ue;
    hb_vol_u16_init(&u);
    if (step > VX_MAX_FEED)
        step = VX_MAX_FEED;
    do {
        size_t n = len - off < step ? len - off : step;
        int last = !pieces && off + n == len;
        if (u.kind != HB_VOL_U16_NO &&
            (urc = hb_vol_u16_check(&u, doc + off, n, last, &ue, &bad)) != HB_OK) {
            n = bad; /* the well-formed bytes before the finding */
            last = 0;
        }
        st = XML_Parse(x->p, (const char *)doc + off, (int)n, last ? XML_TRUE : XML_FALSE);
        off += n;
    } while (st == XML_STATUS_OK && urc == HB_OK && off < len);
    if (st == XML_STATUS_OK && urc == HB_OK && pieces && u.kind != HB_VOL_U16_NO)
        urc = hb_vol_u16_check(&u, doc + len, 0, 1, &ue, &bad);
    if (st == XML_STATUS_OK && urc == HB_OK && pieces)
        st = XML_Parse(x->p, "", 0, XML_TRUE);
    if (st == XML_STATUS_OK && x->rc == HB_OK && urc == HB_OK)
        return HB_OK;
    hb_vol_error *e = x->err;
    if (st == XML_STATUS_OK && x->rc == HB_OK) {
        *e = ue; /* the UTF-16 finding: expat found nothing before it */
        e->lib_code = 0; /* hotbench's check (vol_utf16.c), not expat's */
        e->reason = e->msg;
        return urc;
    }
    e->line = vx_line(x->p);
    e->column = vx_column(x->p) + 1;
    if (x->rc != HB_OK)
        return x->rc;
    enum XML_Error code = XML_GetErrorCode(x->p);
    const char *reason = XML_ErrorString(code);
    if (!e->reason)
        e->lib_code = (int)code;
    if (code == XML_ERROR_NO_MEMORY)
        return hb_vol_fail(e, HB_ENOMEM, "out of memory");
    if (code == XML_ERROR_UNCLOSED_TOKEN || code == XML_ERROR_NO_ELEMENTS ||
        code == XML_ERROR_UNCLOSED_CDATA_SECTION || code == XML_ERROR_PARTIAL_CHAR)
        return hb_vol_fail(e, HB_ETRUNC, reason ? reason : "truncated document");
    return hb_vol_fail(e, HB_EPARSE, reason ? reason : "malformed document");
}

/* XML_ParserFree with its frees counted. */
static void vx_free(vx *x)
{
    if (x->p)
        XML_ParserFree(x->p);
    x->p = NULL;
}

/* ---- expat-count ----------------------------------------------------------------------------- */

static void XMLCALL count_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    (void)name;
    (void)atts;
    vx *x = ud;
    x->out->count++;
}

static void XMLCALL count_end(void *ud, const XML_Char *name)
{
    (void)ud;
    (void)name;
}

static void XMLCALL count_text(void *ud, const XML_Char *s, int len)
{
    (void)ud;
    (void)s;
    (void)len;
}

int hb_vol_expat_count(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                       hb_vol_error *err)
{
    hb_volumes *prev = hb_vm_bind(out);
    vx x;
    int rc = vx_create(&x, out, err);
    if (rc == HB_OK) {
        XML_SetElementHandler(x.p, count_start, count_end);
        XML_SetCharacterDataHandler(x.p, count_text);
        rc = vx_run(&x, doc, len, piece);
        out->elements = out->count;
    }
    vx_free(&x);
    hb_vm_bind(prev);
    return rc;
}

/* ---- expat-typed and expat-typed-arena ------------------------------------------------------- */

static void XMLCALL typed_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    (void)atts;
    vx *x = ud;
    if (x->rc != HB_OK)
        return; /* stopped: expat may still report an end tag */
    int rc = vb_start(&x->b, name, strlen(name));
    if (rc != HB_OK)
        vx_stop(x, rc);
}

static void XMLCALL typed_end(void *ud, const XML_Char *name)
{
    vx *x = ud;
    if (x->rc != HB_OK)
        return; /* stopped: expat may still report an end tag */
    /* the arena builder does not look at the end tag's name: no strlen */
    int rc = vb_end(&x->b, name, x->b.fast_lookup ? 0 : strlen(name));
    if (rc != HB_OK)
        vx_stop(x, rc);
}

static void XMLCALL typed_text(void *ud, const XML_Char *s, int len)
{
    vx *x = ud;
    if (x->rc != HB_OK)
        return; /* stopped: expat may still report an end tag */
    if (vb_top(&x->b) != VB_LEAF)
        return;
    int rc = vb_text(&x->b, s, (size_t)len);
    if (rc != HB_OK)
        vx_stop(x, rc);
}

static int typed(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out, hb_vol_error *err,
                 int arena)
{
    hb_volumes *prev = hb_vm_bind(out);
    vx x;
    int rc = vx_create(&x, out, err);
    if (rc == HB_OK)
        rc = vb_init(&x.b, out, err, arena, arena);
    if (rc == HB_OK) {
        XML_SetElementHandler(x.p, typed_start, typed_end);
        XML_SetCharacterDataHandler(x.p, typed_text);
        rc = vx_run(&x, doc, len, piece);
    }
    if (rc == HB_OK)
        rc = vb_finish(&x.b);
    vb_release(&x.b);
    vx_free(&x);
    hb_vm_bind(prev);
    return rc;
}

int hb_vol_expat_typed(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                       hb_vol_error *err)
{
    return typed(doc, len, piece, out, err, 0);
}

int hb_vol_expat_typed_arena(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                             hb_vol_error *err)
{
    return typed(doc, len, piece, out, err, 1);
}

/* ---- expat-tree ------------------------------------------------------------------------------ */

/* A generic element: what a DOM-less tree keeps of it, each part its own allocation. */
typedef struct vt_node {
    struct vt_node *parent;
    char *name;
    char **attrs; /* name, value, name, value, ... (copies) */
    size_t nattrs;
    struct vt_node **children;
    size_t nchildren, cap;
    char *text; /* the element's own character data, concatenated */
    size_t tlen, tcap;
    uint64_t line, column; /* where the start tag is */
} vt_node;

static char *vt_strdup(hb_volumes *v, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = hb_vm_alloc(v, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void vt_free(hb_volumes *v, vt_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->nchildren; i++)
        vt_free(v, n->children[i]);
    for (size_t i = 0; i < 2 * n->nattrs; i++)
        hb_vm_free(v, n->attrs[i]);
    hb_vm_free(v, n->attrs);
    hb_vm_free(v, n->children);
    hb_vm_free(v, n->name);
    hb_vm_free(v, n->text);
    hb_vm_free(v, n);
}

static void XMLCALL tree_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    vx *x = ud;
    if (x->rc != HB_OK)
        return; /* stopped: expat may still report an end tag */
    hb_volumes *v = x->out;
    vt_node *parent = x->tree;
    if (++x->depth > VT_MAX_DEPTH) {
        vx_stop(x, hb_vol_fail(x->err, HB_ELIMIT,
                               "elements nested deeper than expat-tree's limit of 4096"));
        return;
    }
    vt_node *n = hb_vm_alloc(v, sizeof *n);
    if (!n)
        goto oom;
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->line = vx_line(x->p);
    n->column = vx_column(x->p) + 1;
    if (parent->nchildren == parent->cap) {
        size_t nc = parent->cap ? parent->cap * 2 : 4;
        vt_node **nk = hb_vm_realloc(v, parent->children, nc * sizeof *nk);
        if (!nk) {
            hb_vm_free(v, n);
            goto oom;
        }
        parent->children = nk;
        parent->cap = nc;
    }
    parent->children[parent->nchildren++] = n;
    x->tree = n;
    n->name = vt_strdup(v, name);
    if (!n->name)
        goto oom;
    size_t na = 0;
    while (atts[2 * na])
        na++;
    if (na) {
        n->attrs = hb_vm_alloc(v, 2 * na * sizeof *n->attrs);
        if (!n->attrs)
            goto oom;
        memset(n->attrs, 0, 2 * na * sizeof *n->attrs);
        n->nattrs = na;
        for (size_t i = 0; i < 2 * na; i++)
            if (!(n->attrs[i] = vt_strdup(v, atts[i])))
                goto oom;
    }
    return;
oom:
    vx_stop(x, hb_vol_fail(x->err, HB_ENOMEM, "out of memory"));
}

static void XMLCALL tree_end(void *ud, const XML_Char *name)
{
    (void)name;
    vx *x = ud;
    if (x->rc != HB_OK)
        return; /* stopped: expat may still report an end tag */
    vt_node *n = x->tree;
    x->tree = n->parent;
    x->depth--;
}

static void XMLCALL tree_text(void *ud, const XML_Char *s, int len)
{
    vx *x = ud;
    if (x->rc != HB_OK)
        return; /* stopped: expat may still report an end tag */
    vt_node *n = x->tree;
    if (n == x->root)
        return; /* whitespace around the root element */
    size_t k = (size_t)len;
    if (n->tcap - n->tlen < k) {
        size_t nc = n->tcap ? n->tcap : 16;
        while (nc - n->tlen < k)
            nc *= 2;
        char *nt = hb_vm_realloc(x->out, n->text, nc);
        if (!nt) {
            vx_stop(x, hb_vol_fail(x->err, HB_ENOMEM, "out of memory"));
            return;
        }
        n->text = nt;
        n->tcap = nc;
    }
    memcpy(n->text + n->tlen, s, k);
    n->tlen += k;
}

/* The second pass: the tree as builder events, depth first. */
static int tree_map(vb *b, const vt_node *n, hb_vol_error *err)
{
    size_t nlen = strlen(n->name);
    int rc = vb_start(b, n->name, nlen);
    if (rc == HB_OK && n->tlen)
        rc = vb_text(b, n->text, n->tlen);
    for (size_t i = 0; rc == HB_OK && i < n->nchildren; i++)
        rc = tree_map(b, n->children[i], err);
    if (rc == HB_OK) {
        rc = vb_end(b, n->name, nlen);
        if (rc != HB_OK && !err->line) {
            err->line = n->line;
            err->column = n->column;
        }
    }
    return rc;
}

int hb_vol_expat_tree(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                      hb_vol_error *err)
{
    hb_volumes *prev = hb_vm_bind(out);
    vx x;
    vt_node *root = NULL;
    int rc = vx_create(&x, out, err);
    if (rc == HB_OK) {
        root = hb_vm_alloc(out, sizeof *root);
        if (!root)
            rc = hb_vol_fail(err, HB_ENOMEM, "out of memory");
        else
            memset(root, 0, sizeof *root);
    }
    if (rc == HB_OK) {
        x.root = x.tree = root;
        XML_SetElementHandler(x.p, tree_start, tree_end);
        XML_SetCharacterDataHandler(x.p, tree_text);
        rc = vx_run(&x, doc, len, piece);
    }
    vx_free(&x);
    if (rc == HB_OK)
        rc = vb_init(&x.b, out, err, 0, 0);
    for (size_t i = 0; rc == HB_OK && root && i < root->nchildren; i++)
        rc = tree_map(&x.b, root->children[i], err);
    if (rc == HB_OK)
        rc = vb_finish(&x.b);
    vb_release(&x.b);
    vt_free(out, root);
    hb_vm_bind(prev);
    return rc;
}

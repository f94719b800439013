/* vol_libxml2.c - libxml2-dom: libxml2 parses the document into its DOM, then a walk maps the DOM
 * to structs (the shape of the many SDKs and tools that sit on libxml2).
 *
 * libxml2's allocator is process-global (xmlMemSetup): it is pointed once, before libxml2 is
 * first used, at the counting hooks, which count into the result bound to the calling thread.
 * A DOCTYPE is rejected by a SAX internalSubset handler that stops the parser before any
 * declaration is read. Options: no network, no error printing; entities are not substituted
 * by us (there are no declared ones) and libxml2's own limits (depth 256 without
 * XML_PARSE_HUGE, entity amplification checks) stay on.
 */
#include "hb_volumes.h"
#include "volumes_impl.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define DOCTYPE_REASON "a document type declaration (DOCTYPE) is not allowed"

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

static void lx_internal_subset(void *ctx, const xmlChar *name, const xmlChar *ext,
                               const xmlChar *sys)
{
    (void)name;
    (void)ext;
    (void)sys;
    xmlParserCtxtPtr c = ctx;
    *(int *)c->_private = 1;
    xmlStopParser(c);
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
    pthread_once(&lx_once, lx_init);
    hb_volumes *prev = hb_vm_bind(out);
    int rc = HB_OK, doctype = 0;
    xmlDocPtr d = NULL;
    xmlParserCtxtPtr c = xmlNewParserCtxt();
    if (!c) {
        hb_vm_bind(prev);
        return hb_vol_fail(err, HB_ENOMEM, "out of memory");
    }
    c->_private = &doctype;
    c->sax->internalSubset = lx_internal_subset;
    d = xmlCtxtReadMemory(c, (const char *)doc, (int)len, NULL, NULL,
                          XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (doctype) {
        rc = hb_vol_fail(err, HB_EPARSE, DOCTYPE_REASON);
        err->line = (uint64_t)(c->input ? c->input->line : 0);
        err->column = (uint64_t)(c->input ? c->input->col : 0);
    } else if (!d || !c->wellFormed) {
        const xmlError *e = &c->lastError;
        rc = HB_EPARSE;
        if (e->code == XML_ERR_NO_MEMORY)
            rc = HB_ENOMEM;
        else if (e->code == XML_ERR_DOCUMENT_END || e->code == XML_ERR_DOCUMENT_EMPTY ||
                 e->code == XML_ERR_TAG_NOT_FINISHED || e->code == XML_ERR_LTSLASH_REQUIRED)
            rc = HB_ETRUNC;
        if (e->message) {
            snprintf(err->msg, sizeof err->msg, "%s", e->message);
            size_t n = strlen(err->msg);
            while (n > 0 && (err->msg[n - 1] == '\n' || err->msg[n - 1] == ' '))
                err->msg[--n] = '\0';
            err->reason = err->msg;
        } else {
            err->reason = "malformed document";
        }
        err->line = (uint64_t)(e->line > 0 ? e->line : 0);
        err->column = (uint64_t)(e->int2 > 0 ? e->int2 : 0);
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
    hb_vm_bind(prev);
    return rc;
}

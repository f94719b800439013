/* chunked_oracle.c - the independent matcher of RFC 9112 section 7.1 (chunked_oracle.h). Each
 * rule is a function over a cursor; a rule returns CONT when it matched, or the verdict (BAD at
 * the cursor, or SHORT when the input ended inside it). */
#include "chunked_oracle.h"
#include "hb_dechunk.h"

#include <string.h>

enum { CONT = -1 };

typedef struct cursor {
    const uint8_t *p;
    size_t len;
    size_t i;
    uint8_t *data;
    size_t data_len;
} cursor;

/* RFC 9110 section 5.6.2: tchar. */
static int is_tchar(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static int is_hex(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int hex_value(int c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* VCHAR / obs-text */
static int is_vchar_or_obs(int c)
{
    return (c >= 0x21 && c <= 0x7e) || c >= 0x80;
}

/* The byte at the cursor, or -1 at the end of the input. */
static int peek(const cursor *c)
{
    return c->i < c->len ? c->p[c->i] : -1;
}

/* CRLF: SHORT at the end, BAD on anything else. */
static int crlf(cursor *c)
{
    for (int k = 0; k < 2; k++) {
        int b = peek(c);
        if (b < 0)
            return HB_ORACLE_SHORT;
        if (b != (k == 0 ? '\r' : '\n'))
            return HB_ORACLE_BAD;
        c->i++;
    }
    return CONT;
}

/* *( SP / HTAB ) */
static void ows(cursor *c)
{
    while (peek(c) == ' ' || peek(c) == '\t')
        c->i++;
}

/* 1*tchar */
static int token(cursor *c)
{
    if (peek(c) < 0)
        return HB_ORACLE_SHORT;
    if (!is_tchar(peek(c)))
        return HB_ORACLE_BAD;
    while (peek(c) >= 0 && is_tchar(peek(c)))
        c->i++;
    return CONT;
}

/* DQUOTE *( qdtext / quoted-pair ) DQUOTE, the cursor on the opening DQUOTE. */
static int quoted_string(cursor *c)
{
    c->i++;
    for (;;) {
        int b = peek(c);
        if (b < 0)
            return HB_ORACLE_SHORT;
        if (b == '"') {
            c->i++;
            return CONT;
        }
        if (b == '\\') {
            c->i++;
            b = peek(c);
            if (b < 0)
                return HB_ORACLE_SHORT;
            if (b != '\t' && b != ' ' && !is_vchar_or_obs(b))
                return HB_ORACLE_BAD;
        } else if (b != '\t' && b != ' ' && !is_vchar_or_obs(b)) {
            return HB_ORACLE_BAD; /* qdtext: every VCHAR but '"' and '\\', handled above */
        }
        c->i++;
    }
}

/* chunk-ext then CRLF, the cursor right after chunk-size. The bound: the chunk-ext bytes, from
 * here to the CR, are at most HB_DECHUNK_MAX_EXT. A verdict found past the bound is the bound's. */
static int chunk_ext_crlf(cursor *c)
{
    size_t start = c->i;
    int v = CONT;
    for (;;) {
        size_t before_bws = c->i;
        ows(c);
        int b = peek(c);
        if (b == '\r' && c->i > before_bws) {
            v = HB_ORACLE_BAD; /* BWS belongs before ";": none may end the line */
            break;
        }
        if (b == '\r' || b < 0)
            break;
        if (b != ';') {
            v = HB_ORACLE_BAD;
            break;
        }
        c->i++;
        ows(c);
        if ((v = token(c)) != CONT)
            break;
        size_t before_eq = c->i;
        ows(c);
        if (peek(c) != '=') {
            c->i = before_eq; /* the BWS belongs to the next ";" (or is an error there) */
            continue;
        }
        c->i++;
        ows(c);
        v = peek(c) == '"' ? quoted_string(c) : token(c);
        if (v != CONT)
            break;
    }
    if (c->i - start > HB_DECHUNK_MAX_EXT) {
        c->i = start + HB_DECHUNK_MAX_EXT;
        return HB_ORACLE_BAD;
    }
    if (v != CONT)
        return v;
    if (peek(c) < 0)
        return HB_ORACLE_SHORT;
    return crlf(c);
}

/* chunk-size: 1*HEXDIG up to 2^63 - 1; *size gets the value. */
static int chunk_size(cursor *c, uint64_t *size)
{
    *size = 0;
    if (peek(c) < 0)
        return HB_ORACLE_SHORT;
    if (!is_hex(peek(c)))
        return HB_ORACLE_BAD;
    while (peek(c) >= 0 && is_hex(peek(c))) {
        if (*size > (UINT64_C(0x7fffffffffffffff) - (uint64_t)hex_value(peek(c))) / 16)
            return HB_ORACLE_BAD;
        *size = *size * 16 + (uint64_t)hex_value(peek(c));
        c->i++;
    }
    return CONT;
}

/* trailer-section CRLF, the cursor after last-chunk. The bound: field lines with their CRLFs take
 * at most HB_DECHUNK_MAX_TRAILER bytes. */
static int trailer_section(cursor *c)
{
    size_t start = c->i, fields_end = 0;
    int v;
    for (;;) {
        int b = peek(c);
        if (b == '\r' || b < 0) {
            fields_end = c->i;
            v = crlf(c); /* the final CRLF (a field-name never starts with CR) */
            break;
        }
        if ((v = token(c)) != CONT)
            break;
        if (peek(c) < 0) {
            v = HB_ORACLE_SHORT;
            break;
        }
        if (peek(c) != ':') {
            v = HB_ORACLE_BAD;
            break;
        }
        c->i++;
        while (peek(c) == ' ' || peek(c) == '\t' || (peek(c) >= 0 && is_vchar_or_obs(peek(c))))
            c->i++;
        if (peek(c) < 0) {
            v = HB_ORACLE_SHORT;
            break;
        }
        if ((v = crlf(c)) != CONT)
            break;
        if (c->i - start > HB_DECHUNK_MAX_TRAILER)
            break;
    }
    if (!fields_end)
        fields_end = c->i; /* stopped inside (or right after) a field line */
    if (fields_end - start > HB_DECHUNK_MAX_TRAILER) {
        c->i = start + HB_DECHUNK_MAX_TRAILER;
        return HB_ORACLE_BAD;
    }
    return v;
}

/* chunk-data of size bytes, then CRLF. */
static int chunk_data(cursor *c, uint64_t size)
{
    if (size > c->len - c->i) {
        if (c->data)
            memcpy(c->data + c->data_len, c->p + c->i, c->len - c->i);
        c->data_len += c->len - c->i;
        c->i = c->len;
        return HB_ORACLE_SHORT;
    }
    if (c->data && size)
        memcpy(c->data + c->data_len, c->p + c->i, (size_t)size);
    c->data_len += (size_t)size;
    c->i += (size_t)size;
    return crlf(c);
}

int hb_chunked_oracle(const uint8_t *in, size_t len, size_t *end, uint8_t *data,
                      size_t *data_len)
{
    cursor c = {in, len, 0, data, 0};
    int v;
    for (;;) {
        uint64_t size;
        if ((v = chunk_size(&c, &size)) != CONT)
            break;
        if ((v = chunk_ext_crlf(&c)) != CONT)
            break;
        v = size == 0 ? trailer_section(&c) : chunk_data(&c, size);
        if (size == 0 && v == CONT)
            v = HB_ORACLE_BODY;
        if (v != CONT)
            break;
    }
    *end = c.i;
    if (data_len)
        *data_len = c.data_len;
    return v;
}

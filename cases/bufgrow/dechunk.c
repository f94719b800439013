/* dechunk.c - the streaming decoder of the chunked transfer coding (RFC 9112 section 7.1).
 *
 * Two paths. chunk-data, almost every byte of a body, is one memcpy of
 * min(bytes left in the chunk, input available, output space) per call. Everything else - the chunk lines, the CRLF after each chunk-data, the trailer section - goes
 * through a byte-at-a-time state machine whose whole state is the enum below plus the counters of
 * hb_dechunk, so the input may be split at any byte. A fast path takes the common lines whole
 * when they lie complete in the input at hand: the CRLF after chunk-data, and a chunk line of at
 * most 15 HEXDIG of chunk-size and chunk-ext of the form *( ";" token [ "=" token ] ) without BWS,
 * ending in CRLF. It leaves the state exactly as the state machine would after the same bytes
 * and declines anything else (whitespace, quoted-string, an error, a line cut by the end of the
 * input), which the state machine then takes byte by byte: so results, errors and their offsets
 * do not depend on the path or on the split.
 *
 * Errors are sticky: the state becomes the (negative) hb_err code, reason and err_offset are set
 * once and every later call returns the same code.
 */
#include <string.h>

#include "hb_dechunk.h"
#include "hb_err.h"

#define HB_STR_(x) #x
#define HB_STR(x) HB_STR_(x)

#define CHUNK_SIZE_MAX UINT64_C(0x7fffffffffffffff) /* 2^63 - 1 */

/* Where in the grammar the next byte falls. Errors are stored as their negative hb_err code. */
enum {
    S_SIZE_START,  /* first HEXDIG of chunk-size */
    S_SIZE,        /* more HEXDIG, or what may follow chunk-size */
    S_EXT_SEMI_WS, /* BWS before ";" (after chunk-size or a complete chunk-ext) */
    S_EXT_NAME_WS, /* BWS after ";", before chunk-ext-name */
    S_EXT_NAME,    /* in chunk-ext-name (a token) */
    S_EXT_EQ_WS,   /* BWS after chunk-ext-name: "=" or ";" may follow */
    S_EXT_VAL_WS,  /* BWS after "=", before chunk-ext-val */
    S_EXT_TOKEN,   /* in a token chunk-ext-val */
    S_EXT_QS,      /* in a quoted-string chunk-ext-val */
    S_EXT_QP,      /* after the backslash of a quoted-pair */
    S_EXT_QS_END,  /* after the closing DQUOTE */
    S_LINE_LF,     /* after the CR ending a chunk line */
    S_DATA,        /* in chunk-data: remaining > 0 */
    S_DATA_CR,     /* the CR after chunk-data */
    S_DATA_LF,     /* the LF after chunk-data */
    S_TR_START,    /* start of a trailer field line, or the CR of the final CRLF */
    S_TR_NAME,     /* in a trailer field-name */
    S_TR_VALUE,    /* after ":" (OWS and field-value alike) */
    S_TR_LF,       /* the LF ending a trailer field line */
    S_FINAL_LF,    /* the LF of the final CRLF */
    S_DONE,        /* the body is complete */
};

/* HEXDIG in either case: its value 0-15, or -1. */
static inline int hex_value(uint8_t c)
{
    if ((unsigned)(c - '0') < 10u)
        return c - '0';
    c |= 0x20;
    if ((unsigned)(c - 'a') < 6u)
        return c - 'a' + 10;
    return -1;
}

/* tchar of RFC 9110 section 5.6.2: the characters of a token. */
static inline int is_tchar(uint8_t c)
{
    static const char punct[] = "!#$%&'*+-.^_`|~";
    if ((unsigned)((c | 0x20) - 'a') < 26u || (unsigned)(c - '0') < 10u)
        return 1;
    return memchr(punct, c, sizeof(punct) - 1) != NULL;
}

/* VCHAR / obs-text: 0x21-0x7E and 0x80-0xFF. */
static inline int is_vchar_or_obs(uint8_t c)
{
    return (c >= 0x21 && c != 0x7f);
}

static inline int is_ws(uint8_t c)
{
    return c == ' ' || c == '\t';
}

/* Records the first error and returns its code. */
static int fail(hb_dechunk *d, int code, const char *reason, uint64_t offset)
{
    d->state = code;
    d->reason = reason;
    d->err_offset = offset;
    return code;
}

void hb_dechunk_init(hb_dechunk *d)
{
    memset(d, 0, sizeof(*d));
    d->state = S_SIZE_START;
}

/* Counts one byte of chunk-ext; 0 while within HB_DECHUNK_MAX_EXT. */
static inline int ext_over(hb_dechunk *d)
{
    return ++d->ext_len > HB_DECHUNK_MAX_EXT;
}

/* Counts one byte of the trailer section; 0 while within HB_DECHUNK_MAX_TRAILER. */
static inline int trailer_over(hb_dechunk *d)
{
    return ++d->trailer_len > HB_DECHUNK_MAX_TRAILER;
}

static const char r_ext_limit[] = "chunk-ext longer than " HB_STR(HB_DECHUNK_MAX_EXT) " bytes";
static const char r_tr_limit[] =
    "trailer section longer than " HB_STR(HB_DECHUNK_MAX_TRAILER) " bytes";

/* One more than the value of each byte as a HEXDIG (either case); 0: not a HEXDIG. */
static const uint8_t hex1_of[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11,        ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* 1 for each tchar (is_tchar): the characters of a token. */
static const uint8_t tchar_of[256] = {
    ['0' ... '9'] = 1, ['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['!'] = 1, ['#'] = 1, ['$'] = 1,
    ['%'] = 1,         ['&'] = 1,         ['\''] = 1,        ['*'] = 1, ['+'] = 1, ['-'] = 1,
    ['.'] = 1,         ['^'] = 1,         ['_'] = 1,         ['`'] = 1, ['|'] = 1, ['~'] = 1,
};

/* The fast path of a chunk line at p[0 .. n) in state S_SIZE_START (see the top of the file):
 * the bytes of the whole line with its CRLF when it is complete and of the common form, with *d
 * moved past it as the state machine would; 0 (nothing changed) otherwise. */
static size_t fast_line(hb_dechunk *d, const uint8_t *p, size_t n)
{
    size_t i = 0;
    uint64_t v = 0;
    unsigned h;
    while (i < n && i < 15 && (h = hex1_of[p[i]]) != 0) /* 15 digits: below 2^60, no overflow */
        v = v << 4 | (uint64_t)(h - 1), i++;
    if (i == 0 || i == 15)
        return 0;
    size_t ext = i;
    while (i < n && p[i] == ';') {
        size_t t = ++i;
        while (i < n && tchar_of[p[i]])
            i++;
        if (i == t)
            return 0;
        if (i < n && p[i] == '=') {
            t = ++i;
            while (i < n && tchar_of[p[i]])
                i++;
            if (i == t)
                return 0;
        }
    }
    if (n - i < 2 || p[i] != '\r' || p[i + 1] != '\n' || i - ext > HB_DECHUNK_MAX_EXT)
        return 0;
    d->remaining = v;
    d->ext_len = 0;
    d->state = v ? S_DATA : S_TR_START;
    return i + 2;
}

/* The byte-at-a-time part: handles byte c at body offset off (never in S_DATA, S_DONE or an error
 * state). Returns 0 to go on, HB_DECHUNK_DONE after the final LF, or an error code.
 * Long on purpose (tests/long_functions.txt): the decoder's state machine, inlined into the timed
 * hb_dechunk_run; split by state group into always_inline helpers (tried), it grew
 * hb_dechunk_run's code by 110 bytes (gcc 12, -O2): a second switch per byte, so it stays one. */
static int step(hb_dechunk *d, uint8_t c, uint64_t off)
{
    int h;

    switch (d->state) {
    case S_SIZE_START:
        h = hex_value(c);
        if (h >= 0) {
            d->remaining = (uint64_t)h;
            d->state = S_SIZE;
            return 0;
        }
        if (c == '\r' || c == '\n' || c == ';' || is_ws(c))
            return fail(d, HB_EPARSE, "missing chunk-size", off);
        return fail(d, HB_EPARSE, "non-hex digit in chunk-size", off);

    case S_SIZE:
        h = hex_value(c);
        if (h >= 0) {
            if (d->remaining > (CHUNK_SIZE_MAX - (uint64_t)h) >> 4)
                return fail(d, HB_ERANGE, "chunk-size above 2^63 - 1", off);
            d->remaining = d->remaining << 4 | (uint64_t)h;
            return 0;
        }
        if (c == '\r') {
            d->state = S_LINE_LF;
            return 0;
        }
        if (c == '\n')
            return fail(d, HB_EPARSE, "bare LF in chunk line", off);
        if (c != ';' && !is_ws(c))
            return fail(d, HB_EPARSE, "non-hex digit in chunk-size", off);
        if (ext_over(d))
            return fail(d, HB_ELIMIT, r_ext_limit, off);
        d->state = c == ';' ? S_EXT_NAME_WS : S_EXT_SEMI_WS;
        return 0;

    case S_EXT_SEMI_WS:
    case S_EXT_NAME_WS:
    case S_EXT_NAME:
    case S_EXT_EQ_WS:
    case S_EXT_VAL_WS:
    case S_EXT_TOKEN:
    case S_EXT_QS:
    case S_EXT_QP:
    case S_EXT_QS_END:
        if (c == '\n')
            return fail(d, HB_EPARSE, "bare LF in chunk line", off);
        if (c == '\r') {
            switch (d->state) {
            case S_EXT_NAME:
            case S_EXT_TOKEN:
            case S_EXT_QS_END:
                d->state = S_LINE_LF;
                return 0;
            case S_EXT_SEMI_WS:
            case S_EXT_EQ_WS:
                return fail(d, HB_EPARSE, "whitespace at the end of a chunk line", off);
            case S_EXT_NAME_WS:
                return fail(d, HB_EPARSE, "missing chunk-ext-name after ';'", off);
            case S_EXT_VAL_WS:
                return fail(d, HB_EPARSE, "missing chunk-ext-val after '='", off);
            default:
                return fail(d, HB_EPARSE, "unterminated quoted-string in chunk-ext", off);
            }
        }
        if (ext_over(d))
            return fail(d, HB_ELIMIT, r_ext_limit, off);
        switch (d->state) {
        case S_EXT_SEMI_WS:
            if (c == ';')
                d->state = S_EXT_NAME_WS;
            else if (!is_ws(c))
                return fail(d, HB_EPARSE, "invalid character in chunk-ext (expected ';')", off);
            return 0;
        case S_EXT_NAME_WS:
            if (is_tchar(c))
                d->state = S_EXT_NAME;
            else if (!is_ws(c))
                return fail(d, HB_EPARSE, "invalid character in chunk-ext-name", off);
            return 0;
        case S_EXT_NAME:
            if (c == '=')
                d->state = S_EXT_VAL_WS;
            else if (c == ';')
                d->state = S_EXT_NAME_WS;
            else if (is_ws(c))
                d->state = S_EXT_EQ_WS;
            else if (!is_tchar(c))
                return fail(d, HB_EPARSE, "invalid character in chunk-ext-name", off);
            return 0;
        case S_EXT_EQ_WS:
            if (c == '=')
                d->state = S_EXT_VAL_WS;
            else if (c == ';')
                d->state = S_EXT_NAME_WS;
            else if (!is_ws(c))
                return fail(d, HB_EPARSE, "invalid character in chunk-ext (expected '=' or ';')",
                            off);
            return 0;
        case S_EXT_VAL_WS:
            if (c == '"')
                d->state = S_EXT_QS;
            else if (is_tchar(c))
                d->state = S_EXT_TOKEN;
            else if (c == ';')
                return fail(d, HB_EPARSE, "missing chunk-ext-val after '='", off);
            else if (!is_ws(c))
                return fail(d, HB_EPARSE, "invalid character in chunk-ext-val", off);
            return 0;
        case S_EXT_TOKEN:
            if (c == ';')
                d->state = S_EXT_NAME_WS;
            else if (is_ws(c))
                d->state = S_EXT_SEMI_WS;
            else if (!is_tchar(c))
                return fail(d, HB_EPARSE, "invalid character in chunk-ext-val", off);
            return 0;
        case S_EXT_QS:
            /* qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text */
            if (c == '"')
                d->state = S_EXT_QS_END;
            else if (c == '\\')
                d->state = S_EXT_QP;
            else if (!is_ws(c) && !is_vchar_or_obs(c))
                return fail(d, HB_EPARSE, "invalid character in quoted-string in chunk-ext", off);
            return 0;
        case S_EXT_QP:
            /* quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text ) */
            if (!is_ws(c) && !is_vchar_or_obs(c))
                return fail(d, HB_EPARSE, "invalid quoted-pair in chunk-ext", off);
            d->state = S_EXT_QS;
            return 0;
        default: /* S_EXT_QS_END */
            if (c == ';')
                d->state = S_EXT_NAME_WS;
            else if (is_ws(c))
                d->state = S_EXT_SEMI_WS;
            else
                return fail(d, HB_EPARSE, "invalid character after quoted-string in chunk-ext",
                            off);
            return 0;
        }

    case S_LINE_LF:
        if (c != '\n')
            return fail(d, HB_EPARSE, "bare CR in chunk line", off - 1);
        d->ext_len = 0;
        d->state = d->remaining ? S_DATA : S_TR_START;
        return 0;

    case S_DATA_CR:
        if (c == '\r') {
            d->state = S_DATA_LF;
            return 0;
        }
        if (c == '\n')
            return fail(d, HB_EPARSE, "bare LF after chunk-data", off);
        return fail(d, HB_EPARSE, "missing CRLF after chunk-data", off);

    case S_DATA_LF:
        if (c != '\n')
            return fail(d, HB_EPARSE, "bare CR after chunk-data", off - 1);
        d->chunks++;
        d->state = S_SIZE_START;
        return 0;

    case S_TR_START:
        if (c == '\r') {
            d->state = S_FINAL_LF;
            return 0;
        }
        if (c == '\n')
            return fail(d, HB_EPARSE, "bare LF in trailer section", off);
        if (trailer_over(d))
            return fail(d, HB_ELIMIT, r_tr_limit, off);
        if (c == ':')
            return fail(d, HB_EPARSE, "empty trailer field-name", off);
        if (!is_tchar(c))
            return fail(d, HB_EPARSE, "invalid character in trailer field-name", off);
        d->state = S_TR_NAME;
        return 0;

    case S_TR_NAME:
        if (c == '\n')
            return fail(d, HB_EPARSE, "bare LF in trailer section", off);
        if (c == '\r')
            return fail(d, HB_EPARSE, "missing ':' in trailer field", off);
        if (trailer_over(d))
            return fail(d, HB_ELIMIT, r_tr_limit, off);
        if (c == ':')
            d->state = S_TR_VALUE;
        else if (is_ws(c))
            return fail(d, HB_EPARSE, "whitespace before ':' in trailer field", off);
        else if (!is_tchar(c))
            return fail(d, HB_EPARSE, "invalid character in trailer field-name", off);
        return 0;

    case S_TR_VALUE:
        if (c == '\n')
            return fail(d, HB_EPARSE, "bare LF in trailer section", off);
        if (trailer_over(d))
            return fail(d, HB_ELIMIT, r_tr_limit, off);
        if (c == '\r')
            d->state = S_TR_LF;
        else if (!is_ws(c) && !is_vchar_or_obs(c))
            return fail(d, HB_EPARSE, "invalid character in trailer field-value", off);
        return 0;

    case S_TR_LF:
        if (c != '\n')
            return fail(d, HB_EPARSE, "bare CR in trailer section", off - 1);
        if (trailer_over(d))
            return fail(d, HB_ELIMIT, r_tr_limit, off);
        d->state = S_TR_START;
        return 0;

    case S_FINAL_LF:
        if (c != '\n')
            return fail(d, HB_EPARSE, "bare CR in trailer section", off - 1);
        d->state = S_DONE;
        return HB_DECHUNK_DONE;
    }
    /* Unreachable: run() never calls step in S_DATA, S_DONE or an error state. */
    return fail(d, HB_EINVAL, "decoder state corrupt", off);
}

int hb_dechunk_run(hb_dechunk *d, const uint8_t *in, size_t in_len, size_t *in_used, uint8_t *out,
                   size_t out_cap, size_t *out_made)
{
    size_t i = 0, o = 0;
    int rc = 0;

    if (d->state < 0 || d->state == S_DONE) {
        *in_used = 0;
        *out_made = 0;
        return d->state < 0 ? d->state : HB_DECHUNK_DONE;
    }
    while (i < in_len) {
        if (d->state == S_DATA) {
            /* The data path: one copy of all that can move now. */
            uint64_t n = d->remaining;
            if (n > in_len - i)
                n = in_len - i;
            if (n > out_cap - o)
                n = out_cap - o;
            if (n == 0)
                break; /* output full */
            memcpy(out + o, in + i, (size_t)n);
            i += (size_t)n;
            o += (size_t)n;
            d->remaining -= n;
            if (d->remaining == 0)
                d->state = S_DATA_CR;
            if (o == out_cap)
                break; /* out is full: stop right after the byte that filled it */
            continue;
        }
        if (d->state == S_DATA_CR && in_len - i >= 2 && in[i] == '\r' && in[i + 1] == '\n') {
            d->chunks++; /* the CRLF after chunk-data, as S_DATA_CR and S_DATA_LF take it */
            d->state = S_SIZE_START;
            i += 2;
            continue;
        }
        size_t line = d->state == S_SIZE_START ? fast_line(d, in + i, in_len - i) : 0;
        if (line) {
            i += line;
            continue;
        }
        rc = step(d, in[i], d->offset + i);
        if (rc < 0)
            break; /* the offending byte is not consumed */
        i++;
        if (rc == HB_DECHUNK_DONE)
            break;
    }
    d->offset += i;
    d->decoded += o;
    *in_used = i;
    *out_made = o;
    return rc;
}

int hb_dechunk_finish(hb_dechunk *d)
{
    if (d->state < 0)
        return d->state;
    if (d->state == S_DONE)
        return HB_OK;
    return fail(d, HB_ETRUNC, "premature end of chunk-coded message body", d->offset);
}

const char *hb_dechunk_error(const hb_dechunk *d, uint64_t *offset)
{
    if (offset)
        *offset = d->reason ? d->err_offset : 0;
    return d->reason;
}

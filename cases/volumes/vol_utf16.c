/* vol_utf16.c - the UTF-16 well-formedness check every strategy runs before (or, fed in pieces,
 * alongside) its parser: the rules of XML 1.0 (Fifth Edition) that expat 2.5 and libxml2 2.9.14
 * do not both enforce on UTF-16 input (see volumes_impl.h for the contract, hb_volumes.h for the
 * rules as the decode contract states them).
 *
 *  - section 4.3.3: "Entities encoded in UTF-16 MUST begin with the Byte Order Mark". A document
 *    without a byte order mark whose first two bytes hold a 0x00 byte is 16-bit (or 32-bit) code
 *    units without it (appendix F: 3C 00 3F 00 and 00 3C 00 3F are UTF-16 or UCS-2 with no mark;
 *    expat reads any 00 xx / xx 00 start as UTF-16, libxml2 the two patterns only): rejected,
 *    whatever it declares (encoding="UTF-16" does not stand in for the mark). An 8-bit document
 *    cannot start so: U+0000 is not a Char (section 2.2).
 *  - section 2.2: surrogates (D800-DFFF) are not characters; in UTF-16 a high surrogate must be
 *    followed by a low one (the pair is one character) and a low one must follow a high one.
 *  - a UTF-16 document is whole code units: an odd number of bytes ends inside one.
 *
 * A document starting with a byte order mark or none of the above is passed through after its
 * first two bytes: UTF-8 input costs one comparison per call.
 */
#include "volumes_impl.h"

#include <stdio.h>
#include <string.h>

#define U16_SECTION_BOM "XML 1.0 section 4.3.3"
#define U16_SECTION_CHAR "XML 1.0 section 2.2"

void hb_vol_u16_init(hb_vol_u16 *u)
{
    memset(u, 0, sizeof *u);
    u->kind = HB_VOL_U16_UNSEEN;
    u->line = 1;
    u->column = 1;
}

/* e's reason is the text just written to e->msg: sets it and the position, returns code. */
static int u16_fail(hb_vol_error *e, int code, uint64_t line, uint64_t column)
{
    e->reason = e->msg;
    e->line = line;
    e->column = column;
    return code;
}

/* One code unit w at absolute byte offset at: the surrogate rules, then the position of the next
 * character (CR LF, CR and LF end a line, section 2.11; a pair is one character). Returns HB_OK or
 * the error, with *where the absolute offset of the offending unit. */
static int u16_unit(hb_vol_u16 *u, unsigned w, uint64_t at, hb_vol_error *e, uint64_t *where)
{
    if (u->high) {
        if (w >= 0xdc00 && w <= 0xdfff) {
            u->high = 0;
            u->column++;
            u->cr = 0;
            return HB_OK;
        }
        *where = u->high_at;
        snprintf(e->msg, sizeof e->msg,
                 "UTF-16: a high surrogate (code unit 0x%04X) not followed by a "
                 "low surrogate, at byte offset %llu"
                 ": surrogates are not characters (" U16_SECTION_CHAR ")",
                 u->high, (unsigned long long)u->high_at);
        return u16_fail(e, HB_EPARSE, u->high_line, u->high_column);
    }
    if (w >= 0xd800 && w <= 0xdbff) {
        u->high = w;
        u->high_at = at;
        u->high_line = u->line;
        u->high_column = u->column;
        return HB_OK;
    }
    if (w >= 0xdc00 && w <= 0xdfff) {
        *where = at;
        snprintf(e->msg, sizeof e->msg,
                 "UTF-16: a low surrogate (code unit 0x%04X) without a high "
                 "surrogate before it, at byte offset %llu"
                 ": surrogates are not characters (" U16_SECTION_CHAR ")",
                 w, (unsigned long long)at);
        return u16_fail(e, HB_EPARSE, u->line, u->column);
    }
    if (w == 0x0d || (w == 0x0a && !u->cr)) {
        u->line++;
        u->column = 1;
    } else if (w != 0x0a) {
        u->column++;
    }
    u->cr = w == 0x0d;
    return HB_OK;
}

/* The end of the document: a high surrogate or a lone byte left over ends inside a character. */
static int u16_end(hb_vol_u16 *u, hb_vol_error *e, uint64_t *where)
{
    if (u->high) {
        *where = u->high_at;
        snprintf(e->msg, sizeof e->msg,
                 "UTF-16: the document ends after a high surrogate (code unit 0x%04X"
                 ") at byte offset %llu, before its low surrogate",
                 u->high, (unsigned long long)u->high_at);
        return u16_fail(e, HB_ETRUNC, u->high_line, u->high_column);
    }
    if (u->has_held) {
        *where = u->seen - 1;
        snprintf(e->msg, sizeof e->msg,
                 "UTF-16: an odd number of bytes (%llu): the document ends inside "
                 "a code unit, at byte offset %llu",
                 (unsigned long long)u->seen, (unsigned long long)(u->seen - 1));
        return u16_fail(e, HB_ETRUNC, u->line, u->column);
    }
    return HB_OK;
}

/* The first two bytes decide (u->lead): a byte order mark, none needed, or one missing. */
static int u16_start(hb_vol_u16 *u, hb_vol_error *e)
{
    u->kind = hb_vol_u16_sniff(u->lead, 2);
    if (u->kind == HB_VOL_U16_LE || u->kind == HB_VOL_U16_BE)
        u->column = 2; /* the byte order mark is a character to expat (hb_vol_error) */
    if (u->kind != HB_VOL_U16_NO_BOM)
        return HB_OK;
    snprintf(e->msg, sizeof e->msg,
             "UTF-16 without a byte order mark (first bytes %02X %02X"
             "): a UTF-16 document must begin with one (" U16_SECTION_BOM ")",
             (unsigned)u->lead[0], (unsigned)u->lead[1]);
    return u16_fail(e, HB_EPARSE, 1, 1);
}

int hb_vol_u16_check(hb_vol_u16 *u, const uint8_t *p, size_t n, int final, hb_vol_error *e,
                     size_t *bad)
{
    uint64_t base = u->seen, where = base;
    size_t i = 0;
    int rc = HB_OK;
    while (u->kind == HB_VOL_U16_UNSEEN && u->seen < 2 && i < n)
        u->lead[u->seen++] = p[i++];
    if (u->kind == HB_VOL_U16_UNSEEN) {
        if (u->seen < 2) {
            if (final)
                u->kind = HB_VOL_U16_NO; /* under two bytes: the parser judges it */
            return HB_OK;
        }
        rc = u16_start(u, e);
        if (rc != HB_OK) {
            *bad = 0;
            return rc;
        }
        i = (size_t)(2 - base); /* the byte order mark (or the first two bytes): checked */
    }
    if (u->kind == HB_VOL_U16_NO)
        return HB_OK;
    int be = u->kind == HB_VOL_U16_BE;
    if (u->has_held && i < n) {
        unsigned w = be ? (unsigned)u->held << 8 | p[i] : (unsigned)p[i] << 8 | u->held;
        u->has_held = 0;
        rc = u16_unit(u, w, base + i - 1, e, &where);
        i++;
    }
    for (; rc == HB_OK && i + 1 < n; i += 2) {
        unsigned w = be ? (unsigned)p[i] << 8 | p[i + 1] : (unsigned)p[i + 1] << 8 | p[i];
        rc = u16_unit(u, w, base + i, e, &where);
    }
    if (rc == HB_OK && i < n) {
        u->held = p[i];
        u->has_held = 1;
    }
    u->seen = base + n;
    if (rc == HB_OK && final)
        rc = u16_end(u, e, &where);
    if (rc != HB_OK)
        *bad = where > base ? (size_t)(where - base) : 0;
    return rc;
}

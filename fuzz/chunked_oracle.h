/* chunked_oracle.h - an independent, deliberately simple matcher of the HTTP/1.1 chunked transfer
 * coding, for the fuzz targets to check cases/bufgrow/dechunk.c against.
 *
 * Written from RFC 9112 section 7.1 and RFC 9110 section 5.6 directly, not from dechunk.c:
 *     chunked-body    = *chunk last-chunk trailer-section CRLF
 *     chunk           = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
 *     chunk-size      = 1*HEXDIG
 *     last-chunk      = 1*("0") [ chunk-ext ] CRLF
 *     chunk-ext       = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
 *     chunk-ext-name  = token
 *     chunk-ext-val   = token / quoted-string
 *     trailer-section = *( field-line CRLF )
 *     field-line      = field-name ":" OWS field-value OWS          (RFC 9112 section 5)
 *     BWS = OWS       = *( SP / HTAB )
 *     token           = 1*tchar
 *     quoted-string   = DQUOTE *( qdtext / quoted-pair ) DQUOTE
 *     qdtext          = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text
 *     quoted-pair     = "\" ( HTAB / SP / VCHAR / obs-text )
 *     field-value     = *field-content; field-vchar = VCHAR / obs-text
 * With field-value's inner whitespace and the OWS on either side, the part of a field line after
 * ':' is exactly *( SP / HTAB / VCHAR / obs-text ). No obs-fold (RFC 9112 section 5.2).
 * Plus the decoder's documented bounds (hb_dechunk.h): chunk-size at most 2^63 - 1; at most
 * HB_DECHUNK_MAX_EXT bytes of chunk-ext per chunk line (from the byte after chunk-size up to the
 * CR); at most HB_DECHUNK_MAX_TRAILER bytes of field lines with their CRLFs in the trailer section.
 *
 * It reads the bytes left to right and answers with what a streaming decoder that has seen all
 * of them must conclude.
 */
#ifndef HB_CHUNKED_ORACLE_H
#define HB_CHUNKED_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hb_oracle_verdict {
    HB_ORACLE_BODY = 0, /* in[0, end) is a complete chunked-body (bytes may follow it) */
    HB_ORACLE_BAD,      /* a byte (at *end) is no continuation of any chunked-body */
    HB_ORACLE_SHORT,    /* every byte fits, but the body is not complete: in is a proper prefix */
};

/* Matches in[0, len) (in may be NULL when len is 0). Returns an hb_oracle_verdict; *end gets the
 * body's length (BODY), the offset of the first byte that cannot continue a chunked-body (BAD: a
 * byte breaking the grammar, the digit that takes chunk-size past 2^63 - 1, the byte that takes
 * chunk-ext or the trailer section past its bound), or len (SHORT). When data is not NULL the
 * chunk-data is written there (capacity len suffices) and its length to *data_len. */
int hb_chunked_oracle(const uint8_t *in, size_t len, size_t *end, uint8_t *data,
                      size_t *data_len);

#ifdef __cplusplus
}
#endif

#endif /* HB_CHUNKED_ORACLE_H */

/* hb_dechunk.h - a streaming decoder of the HTTP/1.1 chunked transfer coding.
 *
 * Follows RFC 9112 section 7.1:
 *     chunked-body   = *chunk last-chunk trailer-section CRLF
 *     chunk          = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
 *     chunk-size     = 1*HEXDIG
 *     last-chunk     = 1*("0") [ chunk-ext ] CRLF
 *     chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
 *     chunk-ext-val  = token / quoted-string
 *     trailer-section = *( field-line CRLF )
 * chunk-size accepts upper and lower case and any number of leading zeros; a value above
 * 2^63 - 1 is rejected while its digits are read, before any byte of its data is handed out.
 * chunk-ext is parsed by its grammar and discarded; one chunk line's extensions may take at most
 * HB_DECHUNK_MAX_EXT bytes. Trailer fields are parsed (field-name ":" OWS field-value) and
 * discarded; the trailer section may take at most HB_DECHUNK_MAX_TRAILER bytes. CRLF is required
 * exactly where the grammar has it: a bare LF or a bare CR is an error.
 *
 * The decoder is a push parser with zlib's shape: the caller hands it any split of the body, in
 * pieces as small as one byte, and an output window; it never allocates, never reads past
 * in[in_len - 1] and never writes past out[out_cap - 1]. State lives in a caller-owned struct.
 */
#ifndef HB_DECHUNK_H
#define HB_DECHUNK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HB_DECHUNK_MAX_EXT 4096      /* bytes of chunk-ext allowed on one chunk line */
#define HB_DECHUNK_MAX_TRAILER 65536 /* bytes of trailer section allowed in all */

/* Returned by hb_dechunk_run once the final CRLF after the trailer section has been consumed. */
#define HB_DECHUNK_DONE 1

/* Decoder state. The fields are private: read them only through the functions below. */
typedef struct hb_dechunk {
    int state;            /* position in the grammar (private enum in dechunk.c); after an
                             error, its negative hb_err code */
    uint64_t remaining;   /* chunk-data bytes left in the current chunk (while a chunk line
                             is read: the chunk-size so far) */
    uint64_t offset;      /* bytes of the body consumed so far: the offset of the next byte */
    uint64_t chunks;      /* chunks whose data and CRLF have been consumed (last-chunk not
                             counted) */
    uint64_t decoded;     /* chunk-data bytes handed out so far */
    uint32_t ext_len;     /* chunk-ext bytes on the current chunk line (from the first BWS or
                             ";" after chunk-size up to, not including, its CR) */
    uint32_t trailer_len; /* trailer-section bytes so far (field lines with their CRLFs; the
                             final CRLF not counted) */
    const char *reason;   /* static text of the first error, NULL while none */
    uint64_t err_offset;  /* byte offset in the body of the first offending byte */
} hb_dechunk;

/* Prepares *d for a new body. Never fails; does not allocate. */
void hb_dechunk_init(hb_dechunk *d);

/* Decodes in[0 .. in_len) into out[0 .. out_cap).
 * On return *in_used bytes of input were consumed and *out_made bytes of chunk-data were written
 * (both may be 0). in_used and out_made must not be NULL; in may be NULL when in_len is 0 and out
 * when out_cap is 0. chunk-data moves by one memcpy of min(bytes left in the chunk, input left,
 * output space); chunk lines, the CRLF after chunk-data and the trailer section byte by byte.
 * Returns:
 *   0               more input or more output space is needed (call again); the call stops
 *                   early only when out is full, and then right after the chunk-data byte that
 *                   filled it (so where it stops does not depend on how much input follows);
 *                   with output space left all input was used;
 *   HB_DECHUNK_DONE the body is complete: *in_used stops right after its final CRLF, any bytes
 *                   after it are not consumed (the caller decides whether they are an error);
 *   HB_EPARSE       malformed input; HB_ERANGE chunk-size above 2^63 - 1; HB_ELIMIT chunk-ext or
 *                   trailer section over its bound. hb_dechunk_error gives the reason and offset.
 *                   *in_used stops before the offending byte; the chunk-data before it was
 *                   written and counted in *out_made.
 * After an error or DONE, further calls return the same code and consume nothing. */
int hb_dechunk_run(hb_dechunk *d, const uint8_t *in, size_t in_len, size_t *in_used, uint8_t *out,
                   size_t out_cap, size_t *out_made);

/* Declares the end of input. Returns HB_OK when the body was complete, otherwise HB_ETRUNC with
 * reason "premature end of chunk-coded message body" at the offset where input ended (or the
 * earlier error's code). */
int hb_dechunk_finish(hb_dechunk *d);

/* The first error's static reason text (NULL if none) and, through *offset if not NULL, the byte
 * offset in the body of the first offending byte (0 if none; the end of input for HB_ETRUNC; for a
 * bare CR, the CR's own offset). Reasons name the grammar's part, e.g. "non-hex digit in
 * chunk-size", "bare LF in chunk line", "bare CR after chunk-data", "missing CRLF after
 * chunk-data", "chunk-size above 2^63 - 1", "chunk-ext longer than 4096 bytes",
 * "whitespace before ':' in trailer field", "premature end of chunk-coded message body". */
const char *hb_dechunk_error(const hb_dechunk *d, uint64_t *offset);

#ifdef __cplusplus
}
#endif

#endif /* HB_DECHUNK_H */

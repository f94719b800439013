/* hb_volumes.h - decoding the EC2 DescribeVolumes XML response into typed volumes.
 *
 * Incident 3 of DESIGN.md: the AWS SDK for Ruby took far longer for DescribeVolumes when each of
 * 300 volumes carried 20 tags; it parses the XML with a streaming parser and builds one struct per
 * volume and per tag, so the cost follows the number of elements. This module is the typed model,
 * the decode contract, the strategies that implement it (from the memchr ceiling to expat, a
 * generic tree, libxml2's DOM and a hand-written decoder) and the canonical form that verifies
 * them against each other.
 *
 * The decode contract (the one the AWS SDKs follow):
 *  - volumes are the `item` children of `volumeSet` (a child of the root); tags are
 *    `tagSet/item/{key,value}`, attachments `attachmentSet/item/{...}`, in document order with
 *    duplicates kept; a missing or empty tagSet gives no tags. Several volumeSet (tagSet,
 *    attachmentSet) elements append to the same list. The root's name is not checked.
 *  - elements are matched by local name (the part after the last ':'); namespace prefixes,
 *    namespace declarations and the namespace URI are ignored; prefixes need not be declared.
 *  - a leaf's text is the concatenation of all its character data, entity and character
 *    references and CDATA sections (line ends normalised to LF as XML 1.0 section 2.11 says),
 *    never trimmed; an empty element gives "" (present, length 0). Elements inside a leaf are
 *    skipped with their text. A leaf given twice keeps the last.
 *  - unknown elements and all attributes, at any depth, are skipped; members come in any order.
 *  - integers (size, iops, throughput) are an optional '-' and 1 to 19 ASCII digits within int64;
 *    booleans are exactly "true" or "false"; anything else is an error naming the field.
 *  - createTime and attachTime are parsed into an instant by the timestamp case's reference
 *    parser (cases/rfc3339, hb_rfc3339_parse: RFC 3339 date-time as a Spanner TIMESTAMP holds it,
 *    e.g. "2012-10-16T20:00:16.000Z"); the text is kept as sent too. A value it rejects (an empty
 *    one too) is an error naming the member.
 *  - the document must be well-formed XML 1.0 (Fifth Edition) and complete; a document type
 *    declaration (DOCTYPE) is rejected, so only the five predefined entities exist; expat's
 *    protection against entity amplification stays on (expat 2.5 default).
 *  - the XML declaration's version is "1." and one or more digits, and a document of any such
 *    version is read as XML 1.0 (XML 1.0 Fifth Edition section 2.8: VersionNum ::= '1.' [0-9]+;
 *    "When an XML 1.0 processor encounters a document that specifies a 1.x version number other
 *    than '1.0', it will process it as a 1.0 document"): "1.1" is accepted, "2.0" and "1." are
 *    rejected, by every strategy.
 *  - encodings are expat's: UTF-8, UTF-16 (BE, LE), ISO-8859-1 and US-ASCII; any other declared
 *    encoding is rejected (libxml2-dom refuses what its iconv would take), and so is a declared
 *    encoding the document is not in (section 4.3.3; e.g. UTF-8 or UTF-16BE after FF FE).
 *    Names follow XML 1.0 fourth edition rules, as expat's do (libxml2 with XML_PARSE_OLD10).
 *  - UTF-16 (XML 1.0 Fifth Edition; checked by every strategy before or, fed in pieces, as its
 *    parser reads, across piece boundaries): a UTF-16 document begins with the byte order mark FF
 *    FE or FE FF (section 4.3.3: "Entities encoded in UTF-16 MUST begin with the Byte Order
 *    Mark"). Appendix F's autodetection reads a start of 3C 00 3F 00 or 00 3C 00 3F without the
 *    mark as 16-bit code units whose encoding the declaration names; the contract applies 4.3.3 to
 *    it: a document whose first two bytes hold a 0x00 byte and are not a byte order mark is
 *    UTF-16 without its mark and is rejected at line 1, column 1, whatever it declares (an
 *    encoding="UTF-16" declaration does not stand in for the mark; libxml2 2.9.14 would take it,
 *    and expat 2.5 any 00 xx / xx 00 start). No 8-bit document starts so (U+0000 is not a Char).
 *    After the mark: a high surrogate (D800-DBFF) must be followed by a low one (DC00-DFFF) and
 *    a low one must follow a high one (section 2.2: surrogates are not characters; the pair is
 *    one character), and the document is a whole number of code units. A finding is HB_EPARSE
 *    (HB_ETRUNC when the document ends inside a code unit or a pair) at the line and column of
 *    the offending code unit, its byte offset in the reason. "fast" refuses UTF-16 as
 *    "unsupported: ..." (vol_fast.c); it rejects a document without the mark as the others do.
 *  - documents of any size_t length are read whole (the expat strategies feed XML_Parse pieces
 *    of at most 64 MiB); libxml2-dom refuses one over INT_MAX bytes with HB_ELIMIT.
 *
 * Exclusions: where a strategy may refuse a document the reference (expat-typed) accepts. Each is
 * a refusal, never a different answer; fuzz/fuzz_volumes.c (excluded()) quotes these lines.
 *  - fast: "fast refuses what lies outside its subset with a reason starting 'unsupported: '": a
 *    UTF-16 byte order mark or an encoding other than UTF-8 declared, a non-ASCII name, more than
 *    64 attributes on an element (vol_fast.c, head comment).
 *  - libxml2-dom: "libxml2-dom refuses elements nested deeper than 256 ('Excessive depth')":
 *    libxml2's own limit without XML_PARSE_HUGE, kept on (vol_libxml2.c, head comment).
 *  - expat-tree: "expat-tree refuses elements nested deeper than 4096 with HB_ELIMIT": it maps and
 *    frees its tree recursively (VT_MAX_DEPTH, vol_expat.c).
 *  - libxml2-dom: "libxml2-dom refuses one over INT_MAX bytes with HB_ELIMIT" (above).
 *
 * The model is a struct per volume, attachment and tag reached through arrays of pointers, as an
 * SDK's objects are: expat-typed allocates each struct and each string on its own, the arena
 * strategies carve the same structs out of a few large blocks.
 *
 * Memory: a decoded hb_volumes owns its structs, strings and arrays (hb_volumes_free), except that
 * the strings of strategy "fast" may point into the input document: keep the document alive and
 * unchanged while the result is used. All memory a strategy asks for (expat's and libxml2's own
 * included) goes through one counting allocator, whose totals are in hb_volumes.mem.
 */
#ifndef HB_VOLUMES_H
#define HB_VOLUMES_H

#include <stddef.h>
#include <stdint.h>

#include "hb_rfc3339.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A decoded string: len bytes of UTF-8 at s (not NUL-terminated). s == NULL: the element was
 * absent; s != NULL with len == 0: present and empty. */
typedef struct hb_vol_str {
    const char *s;
    size_t len;
} hb_vol_str;

typedef struct hb_vol_tag {
    hb_vol_str key;
    hb_vol_str value;
} hb_vol_tag;

/* Bits of hb_volume.present and hb_vol_attachment.present: which scalar members were given. */
enum hb_vol_present {
    HB_VOL_HAS_SIZE = 1u << 0,
    HB_VOL_HAS_IOPS = 1u << 1,
    HB_VOL_HAS_THROUGHPUT = 1u << 2,
    HB_VOL_HAS_ENCRYPTED = 1u << 3,
    HB_VOL_HAS_MULTI_ATTACH = 1u << 4,
    HB_VOL_HAS_DELETE_ON_TERMINATION = 1u << 5, /* hb_vol_attachment */
};

typedef struct hb_vol_attachment {
    hb_vol_str volume_id;
    hb_vol_str instance_id;
    hb_vol_str device;
    hb_vol_str status;
    hb_vol_str attach_time;         /* RFC 3339 text as sent */
    hb_rfc3339_time attach_instant; /* the same, parsed (when attach_time is present) */
    uint8_t delete_on_termination;
    uint32_t present; /* HB_VOL_HAS_DELETE_ON_TERMINATION */
} hb_vol_attachment;

typedef struct hb_volume {
    hb_vol_str volume_id;
    int64_t size; /* GiB */
    hb_vol_str snapshot_id;
    hb_vol_str availability_zone;
    hb_vol_str status;
    hb_vol_str create_time;         /* RFC 3339 text as sent */
    hb_rfc3339_time create_instant; /* the same, parsed (when create_time is present) */
    hb_vol_str volume_type;
    int64_t iops;
    int64_t throughput; /* MiB/s */
    uint8_t encrypted;
    uint8_t multi_attach_enabled;
    uint32_t present;                /* hb_vol_present bits for the scalars above */
    hb_vol_attachment **attachments; /* nattachments pointers, in document order */
    size_t nattachments;
    hb_vol_tag **tags; /* ntags pointers, in document order */
    size_t ntags;
} hb_volume;

/* Allocation totals of one decode: every malloc/realloc the strategy made, its parser's
 * included (realloc counts as one allocation). Bytes are the sizes asked for. */
typedef struct hb_vol_mem_stats {
    uint64_t allocations;
    uint64_t bytes;      /* sum of the sizes asked for */
    uint64_t peak_bytes; /* largest sum of live blocks during the decode */
} hb_vol_mem_stats;

/* What a strategy gives. Decoders fill volumes; the two baselines fill only count. */
typedef struct hb_volumes {
    hb_volume **volumes; /* nvolumes pointers, in document order */
    size_t nvolumes;
    hb_vol_str request_id;
    hb_vol_str next_token;
    uint64_t elements; /* elements in the document (every start tag), where the strategy counts */
    uint64_t count;    /* the baselines' answer: memchr-scan '<' bytes, expat-count elements */
    hb_vol_mem_stats mem;
    /* private: what hb_volumes_free releases */
    int owns_strings_; /* 1: every struct, string and array is its own block; 0: arena_ */
    void *arena_;      /* arena chunks, a singly linked list */
    size_t live_;      /* bytes of the result still allocated (for mem.peak_bytes accounting) */
} hb_volumes;

/* Where and why a document was rejected, as near to the offending token as the strategy can
 * tell. Line and column count from 1; the column counts characters, not bytes (a multi-byte UTF-8
 * character is one), in every strategy: expat and libxml2 count so and fast follows expat
 * (hb_vol_position), a byte order mark included (libxml2 leaves it out). 0 where a strategy cannot
 * tell (libxml2-dom's NUL check in a UTF-16 document). reason is one line of UTF-8: a bad value
 * quoted in it is escaped (\n, \r, \t, \\, \', \xNN for other control bytes) and cut after 40
 * bytes at a character boundary; libxml2's multi-line messages are joined into one. */
typedef struct hb_vol_error {
    const char *reason; /* static text or msg */
    int lib_code;       /* the parser library's own code when the library found the error:
                           expat's enum XML_Error (the expat strategies), libxml2's
                           xmlParserErrors (libxml2-dom); 0 when hotbench's code found it. The
                           library's words in reason change between its versions; this does not */
    uint64_t line;
    uint64_t column;
    char msg[384];
} hb_vol_error;

/* What a strategy computes. */
enum hb_vol_output {
    HB_VOL_OUT_VOLUMES = 0, /* the typed volumes (and elements) */
    HB_VOL_OUT_ELEMENTS,    /* count = elements (expat-count) */
    HB_VOL_OUT_LT,          /* count = '<' bytes (memchr-scan) */
};

/* One row of the strategy registry. */
typedef struct hb_vol_strategy {
    const char *name; /* the benchmark and --strategy name */
    const char *desc; /* one line */
    /* Decodes len bytes at doc into *out (zeroed by the caller), fed whole (piece == 0) or in
     * pieces of piece bytes (streaming strategies only). Returns HB_OK, or HB_EPARSE /
     * HB_ETRUNC / HB_ERANGE / HB_ENOMEM with *err filled; *out must still be released. */
    int (*decode)(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out, hb_vol_error *err);
    int output;    /* enum hb_vol_output */
    int streaming; /* 1: accepts piece > 0 (the document fed as from a socket) */
} hb_vol_strategy;

/* The registry in presentation order: the ceiling and floor first, then the decoders. */
extern const hb_vol_strategy hb_vol_strategies[];
extern const size_t hb_vol_strategy_count;

#define HB_VOL_REFERENCE "expat-typed" /* the strategy every other is checked against */

/* The row named name, or NULL (also for NULL). */
const hb_vol_strategy *hb_vol_find(const char *name);

/* Runs strategy s on doc (see hb_vol_strategy.decode); zeroes *out and *err first. piece > 0 for
 * a strategy that does not stream is HB_EINVAL. Release *out with hb_volumes_free in every case. */
int hb_volumes_decode(const hb_vol_strategy *s, const uint8_t *doc, size_t len, size_t piece,
                      hb_volumes *out, hb_vol_error *err);

/* Frees what *v holds and zeroes it. Safe on a zeroed or already freed hb_volumes. */
void hb_volumes_free(hb_volumes *v);

/* Verification with glibc's M_PERTURB (every allocation and free poisoned): while on is non-zero,
 * the counting allocator moves a block it grows (malloc, copy, free) instead of calling realloc,
 * for the calling thread. Under M_PERTURB glibc's realloc fills the whole remainder it splits off
 * a large free neighbour, so a tree decoder growing many small texts memset megabytes per call:
 * verifying 3,000 volumes took 3-4 minutes, against 0.2 s a decode. Timed runs leave it off, so
 * strategies are timed with realloc as they are. */
void hb_volumes_set_poisoned_heap(int on);

/* Writes the volumes as a JSON array, one volume per line:
 *   [
 *   {"volumeId": "vol-1", "size": 8, ..., "attachments": [...], "tags": [{"key": "k", "value":
 * "v"}]},
 *   ...
 *   ]
 * Members in the order of hb_volume; absent members are left out; attachments and tags are always
 * written. Strings are escaped per RFC 8259 (", \, control characters; UTF-8 passed through).
 * write is called with consecutive pieces; a nonzero return stops and is returned. */
int hb_volumes_json(const hb_volumes *v, int (*write)(void *ctx, const char *p, size_t n),
                    void *ctx);

/* The canonical digest of the decoded volumes: FNV-1a 64 of their JSON form. Equal volumes give
 * equal digests; the verification of every strategy compares it and then every member. */
uint64_t hb_volumes_digest(const hb_volumes *v);

/* 0 when a and b hold the same volumes (every member, order included, the parsed instants too;
 * request_id and next_token too), else nonzero with the first difference described in msg (cap
 * bytes, e.g. "volume 12 tag 3 value: \"a&b\" vs \"a\""). */
int hb_volumes_compare(const hb_volumes *a, const hb_volumes *b, char *msg, size_t cap);

/* The libxml2 version libxml2-dom was compiled against ("2.9.14": LIBXML_DOTTED_VERSION), static
 * text, for the run's context (measurement rule 6). */
const char *hb_vol_libxml2_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HB_VOLUMES_H */

/* volumes_impl.h - private to cases/volumes: the counting allocator, the arena and the typed
 * builder that the decoding strategies share. Not a public header: tests include it only to test
 * these pieces directly.
 *
 * The builder (vb) turns element events - start(name), text(bytes), end - into hb_volume structs
 * following the decode contract of hb_volumes.h. expat-typed drives it from expat's callbacks;
 * expat-tree and libxml2-dom from a walk of their trees; fast from its own scanner, handing leaf
 * values over directly when they need no decoding, and members it expected (the schema's order)
 * without a look-up (vb_start_known, vb_leaf).
 */
#ifndef HB_VOLUMES_IMPL_H
#define HB_VOLUMES_IMPL_H

#include "hb_err.h"
#include "hb_volumes.h"

#include <stddef.h>
#include <stdint.h>

/* ---- the counting allocator (vol_alloc.c) ---------------------------------------------------- */

/* malloc/realloc/free with a 16-byte size header, counted into v->mem and v->live_. */
void *hb_vm_alloc(hb_volumes *v, size_t n);
void *hb_vm_realloc(hb_volumes *v, void *p, size_t n);
void hb_vm_free(hb_volumes *v, void *p);

/* The same for C libraries whose allocator hooks take no context (expat's memory handling suite,
 * libxml2's xmlMemSetup): they count into the hb_volumes set by hb_vm_bind for the current thread
 * (a thread-local pointer, the one piece of state outside a context struct; NULL counts nothing).
 * hb_vm_bind returns the previous binding. */
hb_volumes *hb_vm_bind(hb_volumes *v);
void *hb_vm_hook_malloc(size_t n);
void *hb_vm_hook_realloc(void *p, size_t n);
void hb_vm_hook_free(void *p);

/* One chunk of v's arena (v->arena_ is the newest; vol_alloc.c allocates and frees them). Shown
 * here only so that hb_vm_arena's common case, a bump in the newest chunk, is inline. */
typedef struct hb_vm_chunk {
    struct hb_vm_chunk *next;
    size_t cap;  /* bytes of data */
    size_t used; /* bytes handed out */
    _Alignas(16) unsigned char data[];
} hb_vm_chunk;

/* hb_vm_arena when the newest chunk lacks room: a new chunk, doubling from 16 KiB (or n) up to
 * 1 MiB, whose first n bytes are returned. NULL on out of memory. */
void *hb_vm_arena_grow(hb_volumes *v, size_t n);

/* n bytes aligned to align (a power of two up to 16) from v's arena, owned by v until
 * hb_volumes_free; chunks grow by doubling from 16 KiB (or n) up to 1 MiB. NULL on out of
 * memory. */
static inline void *hb_vm_arena(hb_volumes *v, size_t n, size_t align)
{
    hb_vm_chunk *c = (hb_vm_chunk *)v->arena_;
    if (c) {
        size_t at = (c->used + align - 1) & ~(align - 1);
        if (at <= c->cap && c->cap - at >= n) {
            c->used = at + n;
            return c->data + at;
        }
    }
    return hb_vm_arena_grow(v, n);
}

/* ---- the builder (vol_builder.c) ------------------------------------------------------------- */

/* What an open element is to the builder. */
enum vb_kind {
    VB_DOC = 0, /* outside the root element */
    VB_ROOT,
    VB_VOLSET,
    VB_VOLUME,
    VB_ATTSET,
    VB_ATTACHMENT,
    VB_TAGSET,
    VB_TAG,
    VB_LEAF, /* a member with text; field says which */
    VB_SKIP, /* unknown: skipped with everything inside */
};

/* Leaf members. */
enum vb_field {
    VF_NONE = 0,
    VF_REQUEST_ID,
    VF_NEXT_TOKEN,
    VF_VOLUME_ID,
    VF_SIZE,
    VF_SNAPSHOT_ID,
    VF_AVAILABILITY_ZONE,
    VF_STATUS,
    VF_CREATE_TIME,
    VF_VOLUME_TYPE,
    VF_IOPS,
    VF_THROUGHPUT,
    VF_ENCRYPTED,
    VF_MULTI_ATTACH,
    VF_A_VOLUME_ID,
    VF_A_INSTANCE_ID,
    VF_A_DEVICE,
    VF_A_STATUS,
    VF_A_ATTACH_TIME,
    VF_A_DELETE_ON_TERMINATION,
    VF_KEY,
    VF_VALUE,
    VF_COUNT
};

typedef struct vb_frame {
    uint8_t kind;
    uint8_t field;
} vb_frame;

typedef struct vb {
    hb_volumes *out;
    hb_vol_error *err;
    int arena;       /* 1: strings and arrays in the arena, no allocation per element */
    int fast_lookup; /* 1: a name is classified once, by a switch; 0: a strcmp table, again at
                        the end tag (a generic SDK's shape) */
    vb_frame *stack; /* open elements; stack[0] is VB_DOC */
    size_t depth;    /* open elements (stack[depth] is the innermost) */
    size_t stack_cap;
    char *text; /* the current leaf's text so far */
    size_t tlen, tcap;
    const char *direct; /* a leaf value handed over whole by vb_leaf_direct (not copied) */
    size_t dlen;
    int has_direct;
    size_t vcap;        /* capacity of out->volumes */
    size_t tags_cap;    /* malloc mode: capacity of the current volume's tags */
    size_t atts_cap;    /* malloc mode: capacity of the current volume's attachments */
    hb_vol_tag **stags; /* arena mode: the current volume's tags, moved at its end */
    size_t nstags, stags_cap;
    hb_vol_attachment **satts; /* arena mode: the current volume's attachments */
    size_t nsatts, satts_cap;
    char *obj[4]; /* where leaves go: the result, the current volume, attachment and tag (the
                     last opened of each; indexed by the owner in vol_builder.c's member table) */
} vb;

/* Where a leaf member goes: vb.obj[owner] is the struct holding it (VO_*), type says how its text
 * is decoded (VT_*). vol_builder.c's table, one row per enum vb_field, is shown here only so
 * that vb_leaf's common case, a string handed over whole, is inline. */
enum { VO_RESULT = 0, VO_VOLUME, VO_ATTACHMENT, VO_TAG };
enum { VT_NONE = 0, VT_STR, VT_TIME, VT_INT, VT_BOOL };

typedef struct vb_member {
    uint8_t owner; /* VO_*: vb.obj[owner] is the struct */
    uint8_t type;  /* VT_*: how the text is decoded */
    uint8_t bit;   /* VT_INT, VT_BOOL: the hb_vol_present bit set in the owner's present */
    uint16_t off;  /* the hb_vol_str (VT_STR, VT_TIME), int64_t (VT_INT) or uint8_t (VT_BOOL) */
    uint16_t off2; /* VT_TIME: the hb_rfc3339_time; VT_INT, VT_BOOL: the uint32_t present */
} vb_member;

extern const vb_member vb_members[VF_COUNT];

/* Starts building into *out (zeroed by the caller). Returns HB_OK or HB_ENOMEM. */
int vb_init(vb *b, hb_volumes *out, hb_vol_error *err, int arena, int fast_lookup);
/* An element starts: name is its qualified name, len bytes (no NUL needed). */
int vb_start(vb *b, const char *name, size_t len);
/* An element starts whose kind and field the caller already knows, as vb_start's switch would
 * find them under the innermost open element (fast's scanner, having matched the member the
 * schema puts next: kind a container, or VB_LEAF with a leaf field whose owner is the innermost
 * element's kind). Same effect and errors as vb_start (HB_OK or HB_ENOMEM). */
int vb_start_known(vb *b, int kind, int field);

/* vb_leaf's other cases (the element already counted). */
int vb_leaf_typed(vb *b, int field, const char *s, size_t n);

/* A whole leaf at once, for the caller that knows the member (field, owned by the innermost open
 * element's kind) and holds its entire value: the start, the value (n bytes at s, valid for the
 * life of the result as for vb_leaf_direct: not copied) and the end, with vb_end's effect and
 * errors (HB_OK, or HB_ERANGE naming the member for a value its type rejects, HB_ENOMEM). */
static inline int vb_leaf(vb *b, int field, const char *s, size_t n)
{
    const vb_member *m = &vb_members[field];
    b->out->elements++;
    if (m->type == VT_STR && !b->out->owns_strings_) {
        hb_vol_str *d = (hb_vol_str *)(void *)(b->obj[m->owner] + m->off);
        d->s = s;
        d->len = n;
        return HB_OK;
    }
    return vb_leaf_typed(b, field, s, n);
}

/* A whole tag item at once - its start, <key> and <value> with these values and its end - under
 * the innermost open element, a tagSet (the caller knows it: fast reading the schema's order):
 * the strings are kept as given (kn and vn bytes, valid for the life of the result: not
 * copied). Arena mode only, with room in the newest arena chunk and the tag list: HB_OK, else
 * HB_EINVAL with nothing done (the caller opens the item as vb_start would). */
int vb_tag(vb *b, const char *key, size_t kn, const char *value, size_t vn);
/* Character data (already decoded: references replaced, line ends normalised). */
int vb_text(vb *b, const char *s, size_t n);
/* The innermost open leaf's whole value, given at once instead of vb_text: s stays valid for the
 * life of the result (it points into the input or the arena), so it is not copied. */
static inline void vb_leaf_direct(vb *b, const char *s, size_t n)
{
    b->direct = s;
    b->dlen = n;
    b->has_direct = 1;
}
/* The innermost element ends (name as at its start; used by the strcmp lookup). */
int vb_end(vb *b, const char *name, size_t len);
/* The kind of the innermost open element. */
static inline int vb_top(const vb *b)
{
    return b->stack[b->depth].kind;
}
/* Ends building: the result is complete (HB_OK) or, after an error, releasable. */
int vb_finish(vb *b);
/* Frees the builder's own scratch memory (not the result). */
void vb_release(vb *b);

/* ---- the error helpers (volumes.c) ----------------------------------------------------------- */

/* Sets err to a static reason (position left for the driver). Returns code. */
int hb_vol_fail(hb_vol_error *err, int code, const char *reason);
/* Line and column (from 1) of byte offset off of doc, counting LF, CR LF and CR as line ends as
 * XML does; the column counts UTF-8 characters (bytes other than 10xxxxxx), as expat does. */
void hb_vol_position(const uint8_t *doc, size_t off, uint64_t *line, uint64_t *column);
/* 1 when the n bytes at v are a version number an XML 1.0 processor reads, else 0: XML 1.0 Fifth
 * Edition, section 2.8: VersionNum ::= '1.' [0-9]+, and a 1.x document other than 1.0 is
 * processed as a 1.0 document. */
int hb_vol_version_ok(const char *v, size_t n);
/* The reason every strategy gives for a version hb_vol_version_ok refuses. */
#define HB_VOL_VERSION_REASON "an XML version other than 1.x (XML 1.0 section 2.8: '1.' and digits)"

/* ---- the UTF-16 check (vol_utf16.c) ---------------------------------------------------------- */

/* What the first two bytes of a document say about UTF-16 (XML 1.0 Fifth Edition, section 4.3.3
 * and appendix F). */
enum hb_vol_u16_kind {
    HB_VOL_U16_UNSEEN = -1, /* hb_vol_u16: fewer than two bytes seen yet */
    HB_VOL_U16_NO = 0,      /* not UTF-16 (UTF-8 or a declared 8-bit encoding), or under 2 bytes */
    HB_VOL_U16_LE,          /* starts with the byte order mark FF FE */
    HB_VOL_U16_BE,          /* starts with the byte order mark FE FF */
    HB_VOL_U16_NO_BOM,      /* no byte order mark, a 0x00 among the first two bytes: rejected */
};

/* The hb_vol_u16_kind of the len bytes at doc (only the first two are read). */
static inline int hb_vol_u16_sniff(const uint8_t *doc, size_t len)
{
    if (len < 2)
        return HB_VOL_U16_NO;
    if (doc[0] == 0xff && doc[1] == 0xfe)
        return HB_VOL_U16_LE;
    if (doc[0] == 0xfe && doc[1] == 0xff)
        return HB_VOL_U16_BE;
    return doc[0] == 0 || doc[1] == 0 ? HB_VOL_U16_NO_BOM : HB_VOL_U16_NO;
}

/* The UTF-16 check of one document fed in pieces (hb_vol_u16_init, then hb_vol_u16_check on each
 * piece in order). Caller-owned state; no allocation. */
typedef struct hb_vol_u16 {
    int kind;         /* enum hb_vol_u16_kind */
    uint8_t lead[2];  /* the first two bytes */
    uint8_t held;     /* a code unit's first byte whose second is in the next piece */
    uint8_t has_held; /* held is set */
    uint8_t cr;       /* the last character was CR (an LF after it ends no other line) */
    unsigned high;    /* a high surrogate waiting for its low half (0: none) */
    uint64_t high_at, high_line, high_column; /* its byte offset and position */
    uint64_t line, column; /* of the next character, from 1; columns count characters */
    uint64_t seen;         /* bytes checked so far */
} hb_vol_u16;

void hb_vol_u16_init(hb_vol_u16 *u);

/* Checks the next n bytes of the document (final: it ends after them; n may be 0) against the
 * UTF-16 rules of XML 1.0 Fifth Edition: a document whose first two bytes hold a 0x00 byte must
 * begin with a byte order mark (section 4.3.3, appendix F); after FF FE or FE FF every high
 * surrogate is followed by a low one and every low one follows a high one (section 2.2: surrogates
 * are not characters); the document is a whole number of code units. Anything else (UTF-8, 8-bit
 * encodings, NUL or other non-characters, what the parser checks) passes: after the first two
 * bytes a non-UTF-16 document costs one comparison per call.
 * Returns HB_OK; HB_EPARSE (no byte order mark, an unpaired surrogate) or HB_ETRUNC (the document
 * ends inside a code unit or a surrogate pair) with *e filled: reason in e->msg (what, the code
 * unit, its byte offset, the section), line and column of the offending code unit as expat counts
 * them (from 1, characters, the byte order mark one, CR LF one line end), and *bad the offset in
 * p of its first byte (0 when it lies in an earlier piece): the bytes before it are well-formed
 * UTF-16, for the caller to give its parser a chance to report an earlier error. */
int hb_vol_u16_check(hb_vol_u16 *u, const uint8_t *p, size_t n, int final, hb_vol_error *e,
                     size_t *bad);

/* ---- the strategies (vol_memchr.c, vol_expat.c, vol_libxml2.c, vol_fast.c) ------------------- */

int hb_vol_memchr_scan(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                       hb_vol_error *err);
int hb_vol_expat_count(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                       hb_vol_error *err);
int hb_vol_expat_tree(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                      hb_vol_error *err);
int hb_vol_expat_typed(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                       hb_vol_error *err);
int hb_vol_expat_typed_arena(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                             hb_vol_error *err);
int hb_vol_libxml2_dom(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out,
                       hb_vol_error *err);
int hb_vol_fast(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out, hb_vol_error *err);

/* fast's window classifier (vol_fast.c), for tests: *mask gets bit i set when byte i of the 64
 * at p needs attention in character data - '<', '&', ']', a control character other than tab and
 * LF (CR included), a byte >= 0x80. isa 0: the SSE2 path (the portable table where SSE2 is not
 * built); isa 1: the AVX2 path fast takes when the CPU has it. Returns HB_OK, or HB_EINVAL (*mask
 * untouched) for isa 1 when it is not built or the CPU lacks AVX2, or another isa. */
int hb_vol_fast_window_mask(const uint8_t *p, int isa, uint64_t *mask);

#endif /* HB_VOLUMES_IMPL_H */

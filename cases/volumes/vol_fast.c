/* vol_fast.c - "fast": a hand-written decoder of the DescribeVolumes response.
 *
 * One pass over the whole document, no tokens materialised. Character data is classified 64
 * bytes at a time (AVX2 where the CPU has it, chosen at run time: a nibble look-up and one
 * compare per 32 bytes; SSE2 otherwise; a table loop without SSE2) into a bit mask of the bytes
 * that need attention - '<', '&', ']', CR, control characters and non-ASCII bytes - kept for the
 * window it covers, so the end of indentation or of a plain value is a shift and a bit scan, not
 * loads and compares waiting on where the previous token ended.
 *
 * The common case is read against the schema's order (fx_orders, fx_members): after <volumeId>
 * the service sends <size>, after a tag's <key> its <value>, and so on. The start tag of the
 * member expected next is matched by two 16-byte compares with its name and '>' and opened without
 * a look-up; a leaf whose value is one plain run (valid UTF-8 allowed) ended by its own end tag is
 * handed to the builder whole as a pointer into the input (vb_leaf: no frame pushed, zero copy),
 * one that needs decoding (references, CR LF, ']') through fx_text and the builder's text buffer;
 * a tag item written so (<item>, <key>, <value>, </item>) is read whole and given at once
 * (fx_tag_item, vb_tag); the end tags of containers are one 16-byte compare with the start's
 * name. The window stays in registers meanwhile. Anything else - another member or order, an
 * unknown element, a prefix, an attribute, a comment, PI or CDATA section, an empty-element tag,
 * a space before '>' - falls to the generic path at that tag, which reads any order: names 16
 * bytes at a time, the builder's switch on the name (prefixes looked up on a miss), the full
 * start tag with attributes, the end tag compared with the start's name; the expectation is
 * resynchronised from the element it opened or closed.
 *
 * What limits it now (300 volumes x 20 tags, 23,487 elements, 1.23 MB indented / 0.68 MB
 * compact; callgrind, and hotbench medians of 5 on the 2-vCPU EPYC VM): 241 instructions per
 * element (4.6 per byte indented, 7.6 compact), against 402 before the expected-member path and
 * 61 for memchr-scan; 2.3 simulated branch mispredictions per element (callgrind's model; 4.2
 * before). ~370 us indented (3.3 GB/s, 1.33x memchr-scan) and ~330 us compact (2.1 GB/s,
 * 1.18x). The cost follows elements, not bytes: per element the start tag's compare, one or two
 * window look-ups (a refill every 64 bytes, ~28 instructions), the end tag's compare and the
 * builder's store (a struct bumped from the arena); then the values that need work (770 escaped
 * values through fx_text, 510 timestamps through the RFC 3339 reference parser, ~300
 * instructions each). The compact form has the same elements in fewer bytes, so its GB/s is
 * lower at the same time per element; memchr-scan's time follows its 47,000 memchr calls (one
 * per '<'), not the bytes either: 3 GB/s on the compact form would be faster than memchr-scan.
 *
 * It checks everything expat checks for a document without a DOCTYPE, or rejects it: well-formed
 * tags, matching end tags, unique attributes with quoted values free of '<', the predefined
 * entities and character references (to a valid XML Char), no "]]>" in character data, comments
 * without "--", PIs not named xml, XML 1.0 characters in valid UTF-8 everywhere, one root element
 * with only whitespace, comments and PIs around it. Supported subset (anything else is an error,
 * never a wrong answer): UTF-8 documents (an encoding declaration other than UTF-8 is refused, so
 * is a document starting with a UTF-16 byte order mark), ASCII names, at most 64 attributes per
 * element. A document whose first two bytes hold a 0x00 byte without a byte order mark is
 * rejected as every strategy rejects it (hb_vol_u16_check: UTF-16 must begin with the mark, XML 1.0
 * section 4.3.3), not refused as unsupported. The version must be "1." and digits, read as 1.0
 * (XML 1.0 Fifth Edition section 2.8, hb_vol_version_ok), as in every strategy. Columns in
 * errors count characters, as expat's do (hb_vol_position).
 */
#include "hb_volumes.h"
#include "volumes_impl.h"

#include <pthread.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* The AVX2 window (fx_special_mask64_avx2): built for AVX2 by a target attribute, called only
 * after __builtin_cpu_supports has found it. */
#if defined(__SSE2__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FX_AVX2 1
#include <immintrin.h>
#endif

#define DOCTYPE_REASON "a document type declaration (DOCTYPE) is not allowed"
#define FX_MAX_ATTS 64
/* No window yet: offset - FX_NO_WINDOW wraps to offset + 64, outside every window, for every
 * offset an in-memory document can have. */
#define FX_NO_WINDOW ((size_t)0 - 64)

/* Byte classes. */
enum {
    C_NAME_START = 1, /* ASCII letter, '_', ':' */
    C_NAME = 2,       /* name start, digit, '.', '-' */
    C_SPACE = 4,      /* S: space, tab, LF, CR */
    C_SPECIAL = 8,    /* needs attention in character data */
};

/* The members in the order the service sends them (hb_volumes.h; the generator's order): the
 * member the scanner expects next. A slot is a member in its parent; S_NONE expects nothing. */
enum {
    S_NONE = 0,
    S_ROOT,
    S_REQUEST_ID,
    S_VOLSET,
    S_NEXT_TOKEN,
    S_VOLUME,
    S_VOLUME_ID,
    S_SIZE,
    S_SNAPSHOT_ID,
    S_AVAILABILITY_ZONE,
    S_STATUS,
    S_CREATE_TIME,
    S_ATTSET,
    S_VOLUME_TYPE,
    S_IOPS,
    S_THROUGHPUT,
    S_ENCRYPTED,
    S_MULTI_ATTACH,
    S_TAGSET,
    S_ATTACHMENT,
    S_A_VOLUME_ID,
    S_A_INSTANCE_ID,
    S_A_DEVICE,
    S_A_STATUS,
    S_A_ATTACH_TIME,
    S_A_DELETE,
    S_TAG,
    S_KEY,
    S_VALUE,
    S_COUNT
};

typedef struct fx_order {
    const char *name; /* the start tag's name (NULL: the root, never expected) */
    uint8_t kind;     /* enum vb_kind, as the builder's look-up gives it under its parent */
    uint8_t field;    /* enum vb_field (VB_LEAF), else VF_NONE */
    uint8_t first;    /* a container: the slot of its usual first child */
    uint8_t next;     /* the slot of its usual next sibling */
} fx_order;

/* clang-format off */
/* [slot] = {name, kind, field, first child, next sibling} */
static const fx_order fx_orders[S_COUNT] = {
    [S_ROOT] = {NULL, VB_ROOT, VF_NONE, S_REQUEST_ID, S_NONE},
    [S_REQUEST_ID] = {"requestId", VB_LEAF, VF_REQUEST_ID, 0, S_VOLSET},
    [S_VOLSET] = {"volumeSet", VB_VOLSET, VF_NONE, S_VOLUME, S_NEXT_TOKEN},
    [S_NEXT_TOKEN] = {"nextToken", VB_LEAF, VF_NEXT_TOKEN, 0, S_NONE},
    [S_VOLUME] = {"item", VB_VOLUME, VF_NONE, S_VOLUME_ID, S_VOLUME},
    [S_VOLUME_ID] = {"volumeId", VB_LEAF, VF_VOLUME_ID, 0, S_SIZE},
    [S_SIZE] = {"size", VB_LEAF, VF_SIZE, 0, S_SNAPSHOT_ID},
    [S_SNAPSHOT_ID] = {"snapshotId", VB_LEAF, VF_SNAPSHOT_ID, 0, S_AVAILABILITY_ZONE},
    [S_AVAILABILITY_ZONE] = {"availabilityZone", VB_LEAF, VF_AVAILABILITY_ZONE, 0, S_STATUS},
    [S_STATUS] = {"status", VB_LEAF, VF_STATUS, 0, S_CREATE_TIME},
    [S_CREATE_TIME] = {"createTime", VB_LEAF, VF_CREATE_TIME, 0, S_ATTSET},
    [S_ATTSET] = {"attachmentSet", VB_ATTSET, VF_NONE, S_ATTACHMENT, S_VOLUME_TYPE},
    [S_VOLUME_TYPE] = {"volumeType", VB_LEAF, VF_VOLUME_TYPE, 0, S_IOPS},
    [S_IOPS] = {"iops", VB_LEAF, VF_IOPS, 0, S_THROUGHPUT},
    [S_THROUGHPUT] = {"throughput", VB_LEAF, VF_THROUGHPUT, 0, S_ENCRYPTED},
    [S_ENCRYPTED] = {"encrypted", VB_LEAF, VF_ENCRYPTED, 0, S_MULTI_ATTACH},
    [S_MULTI_ATTACH] = {"multiAttachEnabled", VB_LEAF, VF_MULTI_ATTACH, 0, S_TAGSET},
    [S_TAGSET] = {"tagSet", VB_TAGSET, VF_NONE, S_TAG, S_NONE},
    [S_ATTACHMENT] = {"item", VB_ATTACHMENT, VF_NONE, S_A_VOLUME_ID, S_ATTACHMENT},
    [S_A_VOLUME_ID] = {"volumeId", VB_LEAF, VF_A_VOLUME_ID, 0, S_A_INSTANCE_ID},
    [S_A_INSTANCE_ID] = {"instanceId", VB_LEAF, VF_A_INSTANCE_ID, 0, S_A_DEVICE},
    [S_A_DEVICE] = {"device", VB_LEAF, VF_A_DEVICE, 0, S_A_STATUS},
    [S_A_STATUS] = {"status", VB_LEAF, VF_A_STATUS, 0, S_A_ATTACH_TIME},
    [S_A_ATTACH_TIME] = {"attachTime", VB_LEAF, VF_A_ATTACH_TIME, 0, S_A_DELETE},
    [S_A_DELETE] = {"deleteOnTermination", VB_LEAF, VF_A_DELETE_ON_TERMINATION, 0, S_NONE},
    [S_TAG] = {"item", VB_TAG, VF_NONE, S_KEY, S_TAG},
    [S_KEY] = {"key", VB_LEAF, VF_KEY, 0, S_VALUE},
    [S_VALUE] = {"value", VB_LEAF, VF_VALUE, 0, S_NONE},
};
/* clang-format on */

/* A slot's start tag as the scanner compares it: the name then '>' in 32 bytes (the rest 0), and
 * the bits of the bytes that must match (32 bytes hold the longest name and its '>'). */
typedef struct fx_tag {
    _Alignas(16) uint8_t lit[32];
    uint32_t mask; /* bit i: byte i of lit must match */
    uint8_t nlen;  /* the name's length */
} fx_tag;

static uint8_t fx_class[256];   /* written once, by fx_class_init under pthread_once */
static fx_tag fx_tags[S_COUNT]; /* the same */
/* The same: the slot of an open element, by its frame: fx_slot_of[kind][field]. */
static uint8_t fx_slot_of[VB_SKIP + 1][VF_COUNT];
#if defined(FX_AVX2)
static int fx_has_avx2; /* the same: the CPU runs AVX2 (fx_special_in uses it) */
#endif
static pthread_once_t fx_class_once = PTHREAD_ONCE_INIT;

/* Fills fx_tags and fx_slot_of from fx_orders. */
static void fx_orders_init(void)
{
    for (int s = 1; s < S_COUNT; s++) {
        const fx_order *o = &fx_orders[s];
        fx_tag *t = &fx_tags[s];
        fx_slot_of[o->kind][o->field] = (uint8_t)s;
        if (!o->name) { /* never matched: every byte must equal 0xff, no name byte */
            memset(t->lit, 0xff, sizeof t->lit);
            t->mask = UINT32_MAX;
            continue;
        }
        size_t n = strlen(o->name);
        memcpy(t->lit, o->name, n);
        t->lit[n] = '>';
        t->nlen = (uint8_t)n;
        t->mask = (uint32_t)((UINT64_C(1) << (n + 1)) - 1);
    }
}

static void fx_class_init(void)
{
    fx_orders_init();
#if defined(FX_AVX2)
    fx_has_avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
    for (int c = 0; c < 256; c++) {
        uint8_t k = 0;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':')
            k |= C_NAME_START | C_NAME;
        if ((c >= '0' && c <= '9') || c == '.' || c == '-')
            k |= C_NAME;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            k |= C_SPACE;
        if (c == '<' || c == '&' || c == ']' || c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n'))
            k |= C_SPECIAL;
        fx_class[c] = k;
    }
}

/* A 64-byte window of the document, classified: bit i of mask is byte start + i needing
 * attention in character data (C_SPECIAL). */
typedef struct fx_win {
    size_t start;  /* offset in the document; FX_NO_WINDOW: none */
    uint64_t mask; /* C_SPECIAL bytes */
} fx_win;

typedef struct fx {
    const uint8_t *doc, *end;
    hb_vol_error *err;
    vb b;
    const uint8_t **names; /* names[d]: the name of the open element at depth d */
    uint32_t *nlens;
    size_t ncap;
    int rc; /* the first error's code */
    /* The special-byte window (fx_next_special): 64 bytes classified at once, so the next text
     * run's end is a shift and a bit scan instead of loads waiting on the previous run's end. */
    fx_win w;
    int expect; /* the slot (S_*) of the member expected to start next; S_NONE: none */
} fx;

/* Records an error at byte at. Returns code. */
static int fx_fail(fx *x, const uint8_t *at, int code, const char *reason)
{
    hb_vol_fail(x->err, code, reason);
    if (x->rc)
        return x->rc; /* the first error stands, with its position */
    x->rc = code;
    if (at > x->end)
        at = x->end;
    hb_vol_position(x->doc, (size_t)(at - x->doc), &x->err->line, &x->err->column);
    return code;
}

/* The first byte at or after p that needs attention in character data, or end. */
#if defined(__SSE2__)
/* Bit i set when byte i of the 16 at p needs attention in character data (C_SPECIAL). */
static inline unsigned fx_special_mask16(const uint8_t *p)
{
    const __m128i lt = _mm_set1_epi8('<'), amp = _mm_set1_epi8('&'), rb = _mm_set1_epi8(']');
    const __m128i sp = _mm_set1_epi8(0x20), nl = _mm_set1_epi8('\n'), tab = _mm_set1_epi8('\t');
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* signed compare: control characters and every byte >= 0x80 are below 0x20 */
    __m128i ctrl = _mm_andnot_si128(_mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, tab)),
                                    _mm_cmplt_epi8(v, sp));
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, lt), _mm_cmpeq_epi8(v, amp)),
                             _mm_or_si128(_mm_cmpeq_epi8(v, rb), ctrl));
    return (unsigned)_mm_movemask_epi8(m);
}
#endif

static inline const uint8_t *fx_find_special(const uint8_t *p, const uint8_t *end)
{
#if defined(__SSE2__)
    while (end - p >= 32) { /* 32 bytes a step: most values end within one */
        uint32_t mask = fx_special_mask16(p) | (uint32_t)fx_special_mask16(p + 16) << 16;
        if (mask)
            return p + __builtin_ctz(mask);
        p += 32;
    }
    if (end - p >= 16) {
        unsigned mask = fx_special_mask16(p);
        if (mask)
            return p + __builtin_ctz(mask);
        p += 16;
    }
#endif
    while (p < end && !(fx_class[*p] & C_SPECIAL))
        p++;
    return p;
}

#if defined(__SSE2__)
/* Bit i set when byte i of the 16 at p is an ASCII name character (C_NAME). */
static inline unsigned fx_name_mask16(const uint8_t *p)
{
    const __m128i bias_a = _mm_set1_epi8((char)(0x80 - 'a')), lim_a = _mm_set1_epi8(-128 + 26);
    const __m128i bias_0 = _mm_set1_epi8((char)(0x80 - '0')), lim_0 = _mm_set1_epi8(-128 + 10);
    const __m128i low = _mm_set1_epi8(0x20), us = _mm_set1_epi8('_'), co = _mm_set1_epi8(':');
    const __m128i dot = _mm_set1_epi8('.'), dash = _mm_set1_epi8('-');
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i letter = _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(v, low), bias_a), lim_a);
    __m128i digit = _mm_cmplt_epi8(_mm_add_epi8(v, bias_0), lim_0);
    __m128i punct = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, us), _mm_cmpeq_epi8(v, co)),
                                 _mm_or_si128(_mm_cmpeq_epi8(v, dot), _mm_cmpeq_epi8(v, dash)));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), punct));
}
#endif

#if defined(__SSE2__)
/* The C_SPECIAL mask of the 64 bytes at p (bit i: byte i), 16 bytes at a time. */
static inline uint64_t fx_special_mask64_sse2(const uint8_t *p)
{
    return (uint64_t)fx_special_mask16(p) | (uint64_t)fx_special_mask16(p + 16) << 16 |
           (uint64_t)fx_special_mask16(p + 32) << 32 | (uint64_t)fx_special_mask16(p + 48) << 48;
}
#endif

#if defined(FX_AVX2)
/* The same, 32 bytes at a time (AVX2) by a nibble look-up: '<' (3C), '&' (26), ']' (5D), tab (09)
 * and LF (0A) have distinct low nibbles, so a byte equals the table entry its low nibble picks
 * (vpshufb; 0 for a byte >= 0x80) exactly when it is one of the five; the signed compare below
 * 0x20 marks control characters and bytes >= 0x80. Special is one or the other, not both (tab and
 * LF are both): five vector operations per 32 bytes. */
static inline __attribute__((target("avx2"))) uint64_t fx_special_mask64_avx2(const uint8_t *p)
{
    const __m256i nib =
        _mm256_setr_epi8(1, 0, 1, 1, 1, 1, '&', 1, 1, '\t', '\n', 1, '<', ']', 1, 1, /* by nibble */
                         1, 0, 1, 1, 1, 1, '&', 1, 1, '\t', '\n', 1, '<', ']', 1, 1);
    const __m256i sp = _mm256_set1_epi8(0x20);
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    /* vpshufb reads only the low nibble (and zeroes bytes >= 0x80) */
    __m256i ma = _mm256_xor_si256(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(nib, a), a),
                                  _mm256_cmpgt_epi8(sp, a));
    __m256i mb = _mm256_xor_si256(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(nib, b), b),
                                  _mm256_cmpgt_epi8(sp, b));
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(ma) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(mb) << 32;
}
#endif

#if defined(__SSE2__)
/* The 64-byte window of the document (len bytes at doc) that holds byte offset at, classified
 * (windows start at multiples of 64 from doc, so each byte is classified once); start is
 * FX_NO_WINDOW when the window would pass the end (the caller scans what is left). Returned by
 * value, so a caller's window stays in registers. */
static __attribute__((noinline)) fx_win fx_window(const uint8_t *doc, size_t len, size_t at)
{
    fx_win w = {FX_NO_WINDOW, 0};
    size_t start = at & ~(size_t)63;
    if (len - start < 64)
        return w;
    w.start = start;
    w.mask = fx_special_mask64_sse2(doc + start);
    return w;
}
#endif

#if defined(FX_AVX2)
/* fx_window built for AVX2 (the mask inlined): called only when fx_has_avx2. */
static __attribute__((target("avx2"), noinline)) fx_win fx_window_avx2(const uint8_t *doc,
                                                                       size_t len, size_t at)
{
    fx_win w = {FX_NO_WINDOW, 0};
    size_t start = at & ~(size_t)63;
    if (len - start < 64)
        return w;
    w.start = start;
    w.mask = fx_special_mask64_avx2(doc + start);
    return w;
}
#endif

int hb_vol_fast_window_mask(const uint8_t *p, int isa, uint64_t *mask)
{
    pthread_once(&fx_class_once, fx_class_init);
    if (isa == 1) {
#if defined(FX_AVX2)
        if (fx_has_avx2) {
            *mask = fx_special_mask64_avx2(p);
            return HB_OK;
        }
#endif
        return HB_EINVAL;
    }
    if (isa != 0)
        return HB_EINVAL;
#if defined(__SSE2__)
    *mask = fx_special_mask64_sse2(p);
#else
    uint64_t m = 0;
    for (int i = 0; i < 64; i++)
        m |= (uint64_t)((fx_class[p[i]] & C_SPECIAL) != 0) << i;
    *mask = m;
#endif
    return HB_OK;
}

/* The first byte at or after p that needs attention in character data, or end: fx_find_special
 * through the 64-byte window *w of the document [doc, end), so the end of the next text run is a
 * shift and a bit scan rather than loads and compares that wait on where the previous run ended.
 * *w is the caller's (a local of the scanning loop, so it stays in registers). */
static inline const uint8_t *fx_special_in(fx_win *w, const uint8_t *doc, const uint8_t *end,
                                           const uint8_t *p)
{
#if defined(__SSE2__)
    for (;;) {
        size_t at = (size_t)(p - doc), off = at - w->start; /* wraps when p is before */
        if (off < 64) {
            uint64_t m = w->mask >> off;
            if (m)
                return p + __builtin_ctzll(m);
            at = w->start + 64;
            p = doc + at;
        }
#if defined(FX_AVX2)
        *w = fx_has_avx2 ? fx_window_avx2(doc, (size_t)(end - doc), at)
                         : fx_window(doc, (size_t)(end - doc), at);
#else
        *w = fx_window(doc, (size_t)(end - doc), at);
#endif
        if (w->start == FX_NO_WINDOW)
            break;
    }
#else
    (void)w, (void)doc; /* no window without SSE2 */
#endif
    return fx_find_special(p, end);
}

/* fx_special_in through x's window. */
static inline const uint8_t *fx_next_special(fx *x, const uint8_t *p)
{
    return fx_special_in(&x->w, x->doc, x->end, p);
}

/* Decodes the UTF-8 sequence at p (*p >= 0x80) and checks it is an XML Char. Returns the byte
 * after it, or NULL (invalid UTF-8, a surrogate, U+FFFE or U+FFFF, or cut by end). */
static const uint8_t *fx_utf8(const uint8_t *p, const uint8_t *end)
{
    uint32_t c = p[0], cp;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return NULL;
    }
    if ((size_t)(end - p) < n)
        return NULL;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return NULL;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return NULL;
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
        return NULL;
    return p + n;
}

/* Nonzero when the UTF-8 sequence at p is valid so far but cut by end. */
static int fx_utf8_cut(const uint8_t *p, const uint8_t *end)
{
    size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || p[0] > 0xf4 || (size_t)(end - p) >= n)
        return 0;
    for (const uint8_t *q = p + 1; q < end; q++)
        if ((*q & 0xc0) != 0x80)
            return 0;
    return 1;
}

/* Checks that [p, end) holds only XML Chars (valid UTF-8, no control characters but tab, LF,
 * CR). Returns NULL when it does, else the offending byte. */
static const uint8_t *fx_check_chars(const uint8_t *p, const uint8_t *end)
{
    while (p < end) {
        uint8_t c = *p;
        if (c >= 0x80) {
            const uint8_t *q = fx_utf8(p, end);
            if (!q)
                return p;
            p = q;
        } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            return p;
        } else {
            p++;
        }
    }
    return NULL;
}

/* Character data of the open leaf to the builder. Returns 0, or -1 with the error recorded. */
static int fx_put(fx *x, const char *s, size_t n)
{
    if (vb_text(&x->b, s, n) == HB_OK)
        return 0;
    fx_fail(x, x->doc, HB_ENOMEM, "out of memory");
    return -1;
}

/* Writes code point cp as UTF-8 to out; returns the length. */
static size_t fx_put_utf8(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* The character reference at p ("&#", q just after it): decimal, or hexadecimal after "&#x", to
 * a valid XML Char. Writes its UTF-8 to out (4 bytes room) and its length to *n; returns the byte
 * after ';' or NULL with the error recorded. Inlined: fx_reference's own branch, apart for length
 * only. */
static inline __attribute__((always_inline)) const uint8_t *
fx_char_reference(fx *x, const uint8_t *p, const uint8_t *q, char *out, size_t *n)
{
    const uint8_t *end = x->end;
    uint32_t cp = 0;
    int hex = q < end && *q == 'x', digits = 0;
    if (hex)
        q++;
    for (; q < end; q++, digits++) {
        uint32_t d;
        if (*q >= '0' && *q <= '9')
            d = (uint32_t)(*q - '0');
        else if (hex && *q >= 'a' && *q <= 'f')
            d = (uint32_t)(*q - 'a' + 10);
        else if (hex && *q >= 'A' && *q <= 'F')
            d = (uint32_t)(*q - 'A' + 10);
        else
            break;
        cp = cp * (hex ? 16 : 10) + d;
        if (cp > 0x10ffff)
            cp = 0x110000; /* stays invalid */
    }
    if (q == end) {
        fx_fail(x, p, HB_ETRUNC, "document ends inside a character reference");
        return NULL;
    }
    if (!digits || *q != ';') {
        fx_fail(x, q, HB_EPARSE, "malformed character reference");
        return NULL;
    }
    int ok = cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
             (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
    if (!ok) {
        fx_fail(x, p, HB_EPARSE, "reference to invalid character number");
        return NULL;
    }
    *n = fx_put_utf8(cp, out);
    return q + 1;
}

/* A reference at p ('&'): the five predefined entities or a character reference. Writes its
 * UTF-8 to out (4 bytes room) and its length to *n; returns the byte after ';' or NULL with the
 * error recorded. */
static const uint8_t *fx_reference(fx *x, const uint8_t *p, char *out, size_t *n)
{
    const uint8_t *end = x->end, *q = p + 1;
    if (end - p >= 6) { /* the predefined entities as written, by word compares */
        char c = 0;
        size_t len = 0;
        if (q[2] == ';' && q[1] == 't' && (q[0] == 'l' || q[0] == 'g'))
            c = q[0] == 'l' ? '<' : '>', len = 3;
        else if (memcmp(q, "amp;", 4) == 0)
            c = '&', len = 4;
        else if (q[4] == ';' && memcmp(q, "quot", 4) == 0)
            c = '"', len = 5;
        else if (q[4] == ';' && memcmp(q, "apos", 4) == 0)
            c = '\'', len = 5;
        if (c) {
            out[0] = c;
            *n = 1;
            return q + len;
        }
    }
    if (q < end && *q == '#')
        return fx_char_reference(x, p, q + 1, out, n);
    const uint8_t *name = q;
    while (q < end && (fx_class[*q] & C_NAME))
        q++;
    if (q == end) {
        fx_fail(x, p, HB_ETRUNC, "document ends inside an entity reference");
        return NULL;
    }
    if (q == name || !(fx_class[*name] & C_NAME_START) || *q != ';') {
        fx_fail(x, q, HB_EPARSE,
                *q >= 0x80 ? "unsupported: non-ASCII entity name" : "malformed entity reference");
        return NULL;
    }
    size_t len = (size_t)(q - name);
    char c = 0;
    if (len == 2 && name[0] == 'l' && name[1] == 't')
        c = '<';
    else if (len == 2 && name[0] == 'g' && name[1] == 't')
        c = '>';
    else if (len == 3 && memcmp(name, "amp", 3) == 0)
        c = '&';
    else if (len == 4 && memcmp(name, "apos", 4) == 0)
        c = '\'';
    else if (len == 4 && memcmp(name, "quot", 4) == 0)
        c = '"';
    if (!c) {
        fx_fail(x, p, HB_EPARSE, "undefined entity");
        return NULL;
    }
    out[0] = c;
    *n = 1;
    return q + 1;
}

/* Character data from p up to the next '<', which is returned (end when the input ends: the
 * caller decides). In a leaf (capture) the decoded text goes to the builder. NULL on error. */
static const uint8_t *fx_text(fx *x, const uint8_t *p, int capture)
{
    const uint8_t *end = x->end, *run = p;
    char buf[4];
    size_t n;
    for (;;) {
        p = fx_next_special(x, p);
        if (p == end)
            return p;
        uint8_t c = *p;
        if (c == '<')
            break;
        if (c == '&') {
            if (capture && p > run && fx_put(x, (const char *)run, (size_t)(p - run)))
                return NULL;
            p = fx_reference(x, p, buf, &n);
            if (!p)
                return NULL;
            if (capture && fx_put(x, buf, n))
                return NULL;
            run = p;
        } else if (c == ']') {
            if (end - p >= 3 && p[1] == ']' && p[2] == '>') {
                fx_fail(x, p, HB_EPARSE, "\"]]>\" is not allowed in character data");
                return NULL;
            }
            p++;
        } else if (c == '\r') {
            /* XML 1.0 section 2.11: CR LF and a lone CR become LF */
            if (capture && p > run && fx_put(x, (const char *)run, (size_t)(p - run)))
                return NULL;
            if (capture && fx_put(x, "\n", 1))
                return NULL;
            p++;
            if (p < end && *p == '\n')
                p++;
            run = p;
        } else if (c >= 0x80) {
            const uint8_t *q = fx_utf8(p, end);
            if (!q) {
                if (fx_utf8_cut(p, end))
                    fx_fail(x, p, HB_ETRUNC, "document ends inside a UTF-8 character");
                else
                    fx_fail(x, p, HB_EPARSE, "not well-formed (invalid UTF-8 or character)");
                return NULL;
            }
            p = q;
        } else {
            fx_fail(x, p, HB_EPARSE, "not well-formed (invalid character)");
            return NULL;
        }
    }
    if (capture && p > run) {
        if (x->b.tlen == 0 && end - p >= 2 && p[1] == '/')
            vb_leaf_direct(&x->b, (const char *)run, (size_t)(p - run));
        else if (fx_put(x, (const char *)run, (size_t)(p - run)))
            return NULL;
    }
    return p;
}

static inline const uint8_t *fx_skip_space(const uint8_t *p, const uint8_t *end)
{
    while (p < end && (fx_class[*p] & C_SPACE))
        p++;
    return p;
}

/* The first byte at or after p that is not an ASCII name character (C_NAME), or end. SSE2: 16
 * bytes per step - letters by one biased compare of the byte with bit 5 set, digits by another,
 * then '_', ':', '.', '-' - so a name costs a load and about a dozen vector operations. */

static inline const uint8_t *fx_name_end(const uint8_t *p, const uint8_t *end)
{
#if defined(__SSE2__)
    while (end - p >= 16) {
        unsigned mask = fx_name_mask16(p);
        if (mask != 0xffff)
            return p + __builtin_ctz(~mask);
        p += 16;
    }
#endif
    while (p < end && (fx_class[*p] & C_NAME))
        p++;
    return p;
}

/* A name at p: returns the byte after it, or NULL with the error recorded. */
static const uint8_t *fx_name(fx *x, const uint8_t *p)
{
    const uint8_t *end = x->end, *q = p;
    if (q < end && (fx_class[*q] & C_NAME_START))
        q = fx_name_end(q + 1, end);
    if (q == end) {
        fx_fail(x, p, HB_ETRUNC, "document ends inside a tag");
        return NULL;
    }
    if (*q >= 0x80) {
        fx_fail(x, q, HB_EPARSE, "unsupported: non-ASCII name");
        return NULL;
    }
    if (q == p) {
        fx_fail(x, p, HB_EPARSE, "not well-formed (invalid token)");
        return NULL;
    }
    return q;
}

/* A comment at p ("<!--"): returns the byte after "-->" or NULL. */
static const uint8_t *fx_comment(fx *x, const uint8_t *p)
{
    const uint8_t *end = x->end, *q = p + 4;
    for (;;) {
        const uint8_t *d = memchr(q, '-', (size_t)(end - q));
        if (!d || end - d < 3) {
            fx_fail(x, p, HB_ETRUNC, "document ends inside a comment");
            return NULL;
        }
        if (d[1] == '-') {
            if (d[2] != '>') {
                fx_fail(x, d, HB_EPARSE, "\"--\" is not allowed in a comment");
                return NULL;
            }
            const uint8_t *bad = fx_check_chars(p + 4, d);
            if (bad) {
                fx_fail(x, bad, HB_EPARSE, "not well-formed (invalid character)");
                return NULL;
            }
            return d + 3;
        }
        q = d + 1;
    }
}

/* A processing instruction at p ("<?"): returns the byte after "?>" or NULL. */
static const uint8_t *fx_pi(fx *x, const uint8_t *p)
{
    const uint8_t *end = x->end, *name = p + 2;
    const uint8_t *q = fx_name(x, name);
    if (!q)
        return NULL;
    if (q - name == 3 && (name[0] | 0x20) == 'x' && (name[1] | 0x20) == 'm' &&
        (name[2] | 0x20) == 'l') {
        fx_fail(x, p, HB_EPARSE, "XML or text declaration not at start of entity");
        return NULL;
    }
    if (*q == '?' && end - q >= 2 && q[1] == '>')
        return q + 2;
    if (!(fx_class[*q] & C_SPACE) && !(*q == '?' && end - q < 2)) {
        fx_fail(x, q, HB_EPARSE, "not well-formed (invalid token)");
        return NULL;
    }
    for (const uint8_t *s = q;;) {
        const uint8_t *e = memchr(s, '?', (size_t)(end - s));
        if (!e || end - e < 2) {
            fx_fail(x, p, HB_ETRUNC, "document ends inside a processing instruction");
            return NULL;
        }
        if (e[1] == '>') {
            const uint8_t *bad = fx_check_chars(q, e);
            if (bad) {
                fx_fail(x, bad, HB_EPARSE, "not well-formed (invalid character)");
                return NULL;
            }
            return e + 2;
        }
        s = e + 1;
    }
}

/* A CDATA section at p ("<![CDATA["): its content to the builder when capturing; returns the
 * byte after "]]>" or NULL. */
static const uint8_t *fx_cdata(fx *x, const uint8_t *p, int capture)
{
    const uint8_t *end = x->end, *s = p + 9, *q = s;
    for (;;) {
        const uint8_t *e = memchr(q, ']', (size_t)(end - q));
        if (!e || end - e < 3) {
            fx_fail(x, p, HB_ETRUNC, "document ends inside a CDATA section");
            return NULL;
        }
        if (e[1] == ']' && e[2] == '>') {
            q = e;
            break;
        }
        q = e + 1;
    }
    const uint8_t *bad = fx_check_chars(s, q);
    if (bad) {
        fx_fail(x, bad, HB_EPARSE, "not well-formed (invalid character)");
        return NULL;
    }
    if (capture) {
        /* line ends normalised as in character data */
        const uint8_t *run = s;
        for (const uint8_t *c = s; c < q; c++) {
            if (*c != '\r')
                continue;
            if (fx_put(x, (const char *)run, (size_t)(c - run)) || fx_put(x, "\n", 1))
                return NULL;
            if (c + 1 < q && c[1] == '\n')
                c++;
            run = c + 1;
        }
        if (fx_put(x, (const char *)run, (size_t)(q - run)))
            return NULL;
    }
    return q + 3;
}

/* An attribute value at p (the quote): checks it; returns the byte after the closing quote. */
static const uint8_t *fx_att_value(fx *x, const uint8_t *p)
{
    const uint8_t *end = x->end, *q = p + 1;
    uint8_t quote = *p;
    char buf[4];
    size_t n;
    while (q < end && *q != quote) {
        uint8_t c = *q;
        if (c == '<') {
            fx_fail(x, q, HB_EPARSE, "'<' is not allowed in an attribute value");
            return NULL;
        }
        if (c == '&') {
            q = fx_reference(x, q, buf, &n);
            if (!q)
                return NULL;
        } else if (c >= 0x80) {
            const uint8_t *r = fx_utf8(q, end);
            if (!r) {
                fx_fail(x, q, HB_EPARSE, "not well-formed (invalid UTF-8 or character)");
                return NULL;
            }
            q = r;
        } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            fx_fail(x, q, HB_EPARSE, "not well-formed (invalid character)");
            return NULL;
        } else {
            q++;
        }
    }
    if (q == end) {
        fx_fail(x, p, HB_ETRUNC, "document ends inside an attribute value");
        return NULL;
    }
    return q + 1;
}

/* Doubles the stack of open elements' names (from 64). */
static __attribute__((noinline)) int fx_grow_names(fx *x)
{
    size_t nc = x->ncap ? x->ncap * 2 : 64;
    const uint8_t **nn = hb_vm_realloc(x->b.out, x->names, nc * sizeof *nn);
    if (!nn)
        return HB_ENOMEM;
    x->names = nn;
    uint32_t *nl = hb_vm_realloc(x->b.out, x->nlens, nc * sizeof *nl);
    if (!nl)
        return HB_ENOMEM;
    x->nlens = nl;
    x->ncap = nc;
    return HB_OK;
}

/* Pushes the name of a newly opened element (at builder depth b.depth). */
static inline int fx_push_name(fx *x, const uint8_t *name, size_t len)
{
    size_t d = x->b.depth;
    if (d >= x->ncap && fx_grow_names(x) != HB_OK)
        return HB_ENOMEM;
    x->names[d] = name;
    x->nlens[d] = (uint32_t)len;
    return HB_OK;
}

/* The attributes of a start tag, from q (just after the element's name), if any: checked
 * (whitespace before each, a name, '=', a quoted value; no name twice, at most FX_MAX_ATTS) and
 * skipped. Returns where they end ('>', '/' or the end of the input, which the caller reports), or
 * NULL with the error recorded. Inlined: fx_start_tag's own loop, apart for length only. */
static inline __attribute__((always_inline)) const uint8_t *fx_attributes(fx *x, const uint8_t *q)
{
    const uint8_t *end = x->end;
    const uint8_t *att_name[FX_MAX_ATTS];
    size_t att_len[FX_MAX_ATTS], natts = 0;
    for (;;) {
        /* q: just after the name or an attribute value */
        if (*q == '>' || *q == '/')
            break;
        if (!(fx_class[*q] & C_SPACE)) {
            fx_fail(x, q, HB_EPARSE, "not well-formed (invalid token)");
            return NULL;
        }
        q = fx_skip_space(q, end);
        if (q == end)
            break;
        if (*q == '>' || *q == '/')
            break;
        const uint8_t *an = q;
        q = fx_name(x, an);
        if (!q)
            return NULL;
        size_t alen = (size_t)(q - an);
        for (size_t i = 0; i < natts; i++) {
            if (att_len[i] == alen && memcmp(att_name[i], an, alen) == 0) {
                fx_fail(x, an, HB_EPARSE, "duplicate attribute");
                return NULL;
            }
        }
        if (natts == FX_MAX_ATTS) {
            fx_fail(x, an, HB_EPARSE, "unsupported: more than 64 attributes");
            return NULL;
        }
        att_name[natts] = an;
        att_len[natts++] = alen;
        q = fx_skip_space(q, end);
        if (q < end && *q != '=') {
            fx_fail(x, q, HB_EPARSE, "not well-formed (invalid token)");
            return NULL;
        }
        if (q < end)
            q = fx_skip_space(q + 1, end);
        if (q == end)
            break;
        if (*q != '"' && *q != '\'') {
            fx_fail(x, q, HB_EPARSE, "not well-formed (invalid token)");
            return NULL;
        }
        q = fx_att_value(x, q);
        if (!q)
            return NULL;
        if (q == end)
            break;
    }
    return q;
}

/* A start tag at p ('<' then a name start): attributes checked and skipped; the element is opened
 * in the builder (and closed at once for an empty-element tag). Returns the byte after '>'. */
static const uint8_t *fx_start_tag(fx *x, const uint8_t *p)
{
    const uint8_t *end = x->end, *name = p + 1;
    const uint8_t *q = fx_name(x, name);
    if (!q)
        return NULL;
    size_t nlen = (size_t)(q - name);
    if (nlen > UINT32_MAX) {
        fx_fail(x, name, HB_EPARSE, "unsupported: name too long");
        return NULL;
    }
    q = fx_attributes(x, q);
    if (!q)
        return NULL;
    if (q == end || (*q == '/' && end - q < 2)) {
        fx_fail(x, p, HB_ETRUNC, "document ends inside a tag");
        return NULL;
    }
    int empty = *q == '/';
    if (empty && q[1] != '>') {
        fx_fail(x, q, HB_EPARSE, "not well-formed (invalid token)");
        return NULL;
    }
    int rc = vb_start(&x->b, (const char *)name, nlen);
    if (rc != HB_OK) {
        fx_fail(x, p, rc, "out of memory");
        return NULL;
    }
    if (empty) {
        rc = vb_end(&x->b, (const char *)name, nlen);
        if (rc != HB_OK) {
            fx_fail(x, p, rc, "bad value");
            return NULL;
        }
        return q + 2;
    }
    if (fx_push_name(x, name, nlen) != HB_OK) {
        fx_fail(x, p, HB_ENOMEM, "out of memory");
        return NULL;
    }
    return q + 1;
}

/* 1 when the n bytes at a and at b are equal. b lies before a in the document, so when 16 bytes
 * from a are inside it, so are 16 from b: a name under 16 bytes is one vector compare. */
static inline int fx_same(const uint8_t *a, const uint8_t *b, size_t n, const uint8_t *end)
{
#if defined(__SSE2__)
    if (n < 16 && end - a >= 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)a),
                           _mm_loadu_si128((const __m128i *)(const void *)b)));
        unsigned want = (1u << n) - 1;
        return (m & want) == want;
    }
#else
    (void)end;
#endif
    return memcmp(a, b, n) == 0;
}

/* An end tag at p ("</"): must close the innermost element. Returns the byte after '>'. */
static const uint8_t *fx_end_tag(fx *x, const uint8_t *p)
{
    const uint8_t *end = x->end, *name = p + 2;
    size_t d = x->b.depth, nlen = x->nlens[d];
    const uint8_t *q = name + nlen;
    if ((size_t)(end - name) > nlen && fx_same(name, x->names[d], nlen, end) &&
        !(fx_class[*q] & C_NAME) && *q < 0x80) {
        /* the name matches and ends there */
    } else {
        q = fx_name(x, name);
        if (!q)
            return NULL;
        fx_fail(x, name, HB_EPARSE, "mismatched tag");
        return NULL;
    }
    if (*q != '>') {
        q = fx_skip_space(q, end);
        if (q == end) {
            fx_fail(x, p, HB_ETRUNC, "document ends inside a tag");
            return NULL;
        }
        if (*q != '>') {
            fx_fail(x, q, HB_EPARSE, "not well-formed (invalid token)");
            return NULL;
        }
    }
    int rc = vb_end(&x->b, (const char *)x->names[d], nlen);
    if (rc != HB_OK) {
        fx_fail(x, p, rc, "bad value");
        return NULL;
    }
    return q + 1;
}

/* The value of the XML declaration's pseudo-attribute which (0 version, 1 encoding, 2
 * standalone): the vl bytes at v. 1 when allowed, else 0 with the error recorded. */
static int fx_decl_value_ok(fx *x, int which, const uint8_t *v, size_t vl)
{
    int ok;
    if (which == 0)
        ok = hb_vol_version_ok((const char *)v, vl);
    else if (which == 1)
        ok = vl == 5 && (v[0] | 0x20) == 'u' && (v[1] | 0x20) == 't' && (v[2] | 0x20) == 'f' &&
             v[3] == '-' && v[4] == '8';
    else
        ok = (vl == 3 && memcmp(v, "yes", 3) == 0) || (vl == 2 && memcmp(v, "no", 2) == 0);
    if (!ok)
        fx_fail(x, v, HB_EPARSE,
                which == 1   ? "unsupported: an encoding other than UTF-8"
                : which == 0 ? HB_VOL_VERSION_REASON
                             : "XML declaration not well-formed");
    return ok;
}

/* The XML declaration at p ("<?xml" S): version 1.0, encoding UTF-8 (any case) or none,
 * standalone yes or no. Returns the byte after "?>". */
static const uint8_t *fx_xml_decl(fx *x, const uint8_t *p)
{
    const uint8_t *end = x->end, *q = p + 5;
    static const char *const names[3] = {"version", "encoding", "standalone"};
    int next = 0;
    for (;;) {
        const uint8_t *s = q;
        q = fx_skip_space(q, end);
        if (end - q < 2) {
            fx_fail(x, p, HB_ETRUNC, "document ends inside the XML declaration");
            return NULL;
        }
        if (q[0] == '?' && q[1] == '>') {
            if (next == 0)
                break; /* caught below: version is required */
            return q + 2;
        }
        if (q == s) {
            fx_fail(x, q, HB_EPARSE, "XML declaration not well-formed");
            return NULL;
        }
        const uint8_t *n = q;
        while (q < end && *q >= 'a' && *q <= 'z')
            q++;
        if (q == end) {
            fx_fail(x, p, HB_ETRUNC, "document ends inside the XML declaration");
            return NULL;
        }
        int which = -1;
        for (int i = next; i < 3; i++)
            if ((size_t)(q - n) == strlen(names[i]) && memcmp(n, names[i], (size_t)(q - n)) == 0)
                which = i;
        if (which < 0 || (next == 0 && which != 0)) {
            fx_fail(x, n, HB_EPARSE, "XML declaration not well-formed");
            return NULL;
        }
        q = fx_skip_space(q, end);
        if (q == end || *q != '=') {
            fx_fail(x, q, q == end ? HB_ETRUNC : HB_EPARSE, "XML declaration not well-formed");
            return NULL;
        }
        q = fx_skip_space(q + 1, end);
        if (q == end || (*q != '"' && *q != '\'')) {
            fx_fail(x, q, q == end ? HB_ETRUNC : HB_EPARSE, "XML declaration not well-formed");
            return NULL;
        }
        const uint8_t *v = q + 1, *ve = memchr(v, *q, (size_t)(end - v));
        if (!ve) {
            fx_fail(x, p, HB_ETRUNC, "document ends inside the XML declaration");
            return NULL;
        }
        if (!fx_decl_value_ok(x, which, v, (size_t)(ve - v)))
            return NULL;
        next = which + 1;
        q = ve + 1;
        if (next == 3) {
            q = fx_skip_space(q, end);
            if (end - q < 2 || q[0] != '?' || q[1] != '>') {
                fx_fail(x, q, end - q < 2 ? HB_ETRUNC : HB_EPARSE,
                        "XML declaration not well-formed");
                return NULL;
            }
            return q + 2;
        }
    }
    fx_fail(x, p, HB_EPARSE, "XML declaration not well-formed");
    return NULL;
}

/* Outside the root element (prolog, or epilog when after_root): whitespace, comments and PIs,
 * up to the root's start tag (returned) or the end. */
static const uint8_t *fx_misc(fx *x, const uint8_t *p, int after_root)
{
    const uint8_t *end = x->end;
    for (;;) {
        p = fx_skip_space(p, end);
        if (p == end)
            return p;
        if (*p != '<') {
            fx_fail(x, p, HB_EPARSE,
                    after_root ? "junk after document element" : "not well-formed (invalid token)");
            return NULL;
        }
        if (end - p < 2) {
            fx_fail(x, p, HB_ETRUNC, "document ends inside a tag");
            return NULL;
        }
        if (p[1] == '?') {
            p = fx_pi(x, p);
        } else if (p[1] == '!') {
            if (end - p >= 4 && p[2] == '-' && p[3] == '-') {
                p = fx_comment(x, p);
            } else if (!after_root && end - p >= 9 && memcmp(p, "<!DOCTYPE", 9) == 0) {
                fx_fail(x, p, HB_EPARSE, DOCTYPE_REASON);
                return NULL;
            } else {
                fx_fail(x, p, end - p < 9 ? HB_ETRUNC : HB_EPARSE,
                        "not well-formed (invalid token)");
                return NULL;
            }
        } else if (after_root) {
            fx_fail(x, p, HB_EPARSE, "junk after document element");
            return NULL;
        } else {
            return p;
        }
        if (!p)
            return NULL;
    }
}

/* Opens the element whose name (nlen bytes at name) a quick path has read, closing it at once
 * when empty ("/>"). Returns the byte after the tag, or NULL with the error recorded. */
static inline const uint8_t *fx_start_open(fx *x, const uint8_t *p, const uint8_t *name,
                                           size_t nlen, int empty)
{
    if (vb_start(&x->b, (const char *)name, nlen) != HB_OK ||
        (!empty && fx_push_name(x, name, nlen) != HB_OK)) {
        fx_fail(x, p, HB_ENOMEM, "out of memory");
        return NULL;
    }
    if (!empty)
        return name + nlen + 1;
    int rc = vb_end(&x->b, (const char *)name, nlen);
    if (rc != HB_OK) {
        fx_fail(x, p, rc, "bad value");
        return NULL;
    }
    return name + nlen + 2;
}

/* The common start tag at p ('<'): a name under 16 bytes (16 more bytes readable) ending in '>'
 * or "/>", no attributes. Anything else, errors included, goes to fx_start_tag from p. */
static inline const uint8_t *fx_start_quick(fx *x, const uint8_t *p)
{
#if defined(__SSE2__)
    const uint8_t *name = p + 1;
    if (x->end - name >= 18 && (fx_class[*name] & C_NAME_START)) {
        unsigned mask = fx_name_mask16(name);
        if (mask != 0xffff) {
            size_t nlen = (size_t)__builtin_ctz(~mask);
            const uint8_t *q = name + nlen;
            if (q[0] == '>' || (q[0] == '/' && q[1] == '>'))
                return fx_start_open(x, p, name, nlen, q[0] == '/');
        }
    }
#endif
    return fx_start_tag(x, p);
}

/* The common end tag at p ("</"): the innermost element's name, under 16 bytes, then '>'.
 * Anything else goes to fx_end_tag. */
static inline const uint8_t *fx_end_quick(fx *x, const uint8_t *p)
{
    const uint8_t *name = p + 2;
    size_t d = x->b.depth, nlen = x->nlens[d];
    if (nlen < 16 && x->end - name >= 16 && fx_same(name, x->names[d], nlen, x->end) &&
        name[nlen] == '>') {
        int rc = vb_end(&x->b, (const char *)name, nlen);
        if (rc != HB_OK) {
            fx_fail(x, p, rc, "bad value");
            return NULL;
        }
        return name + nlen + 1;
    }
    return fx_end_tag(x, p);
}

/* A leaf's text at p up to its end tag: one plain run is handed over as it lies in the input;
 * anything else goes through fx_text. Returns the '<' that follows, end, or NULL. */
static inline const uint8_t *fx_leaf_text(fx *x, const uint8_t *p)
{
    const uint8_t *end = x->end, *q = fx_next_special(x, p);
    if (end - q >= 2 && q[0] == '<' && q[1] == '/' && x->b.tlen == 0) {
        if (q > p)
            vb_leaf_direct(&x->b, (const char *)p, (size_t)(q - p));
        return q;
    }
    return fx_text(x, p, 1);
}

#if defined(__SSE2__)
/* 1 when the bytes at p (32 readable) are the start tag's name and '>' of slot t. */
static inline int fx_tag_is(const uint8_t *p, const fx_tag *t)
{
    const __m128i *l = (const __m128i *)(const void *)t->lit;
    unsigned lo = (unsigned)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), _mm_load_si128(l)));
    unsigned hi = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
        _mm_loadu_si128((const __m128i *)(const void *)(p + 16)), _mm_load_si128(l + 1)));
    return ((lo | hi << 16) & t->mask) == t->mask;
}
#else
/* The same without SSE2 (the root's slot, all 0xff, matches no document byte). */
static inline int fx_tag_is(const uint8_t *p, const fx_tag *t)
{
    return t->nlen ? memcmp(p, t->lit, t->nlen + 1u) == 0 : 0;
}
#endif

/* What x expects after the generic path read a tag: the first child of the element it opened
 * (the builder's depth went up from d0), or the next sibling of the one it closed (an end tag,
 * or an empty-element tag: the frame at d0 + 1 or d0 is the one popped, still in the stack). */
static inline void fx_expect_after(fx *x, size_t d0, int start)
{
    const vb_frame *f;
    if (x->b.depth > d0) {
        f = &x->b.stack[x->b.depth];
        x->expect = fx_orders[fx_slot_of[f->kind][f->field]].first;
    } else {
        f = &x->b.stack[start ? d0 + 1 : d0];
        x->expect = fx_orders[fx_slot_of[f->kind][f->field]].next;
    }
}

/* Opens the element of slot e whose start tag (name nlen bytes at name, after the '<' at p)
 * the scanner matched. Returns 0, or -1 with the error recorded. */
static inline __attribute__((always_inline)) int fx_open_known(fx *x, const uint8_t *p, int e)
{
    if (vb_start_known(&x->b, fx_orders[e].kind, fx_orders[e].field) != HB_OK ||
        fx_push_name(x, p + 1, fx_tags[e].nlen) != HB_OK) {
        fx_fail(x, p, HB_ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

/* An expected leaf (slot e, its start tag at p) whose value is not one plain run: opened, its
 * text decoded by fx_text (references, CR LF, UTF-8, ']'; through x's window) and closed when
 * its own end tag follows. Returns the byte after that end tag with *done set; else where fx_run
 * reads on in the open leaf (a comment, CDATA section or element inside it, a differently
 * written end tag), *done 0; NULL on an error (recorded). */
static __attribute__((noinline)) const uint8_t *fx_leaf_decoded(fx *x, const uint8_t *p, int e,
                                                                int *done)
{
    const fx_tag *t = &fx_tags[e];
    const uint8_t *end = x->end, *q;
    *done = 0;
    if (fx_open_known(x, p, e) != 0 || !(q = fx_text(x, p + 2 + t->nlen, 1)))
        return NULL;
    if (end - q < 34 || q[0] != '<' || q[1] != '/' || !fx_tag_is(q + 2, t))
        return q;
    int rc = vb_end(&x->b, (const char *)p + 1, t->nlen);
    if (rc != HB_OK) {
        fx_fail(x, q, rc, "bad value");
        return NULL;
    }
    *done = 1;
    return q + 3 + t->nlen;
}

/* The end of the plain run of character data at p: the first byte needing attention other than
 * a valid UTF-8 character (fx_utf8), through the window *w (fx_special_in). */
static inline const uint8_t *fx_plain_in(fx_win *w, const uint8_t *doc, const uint8_t *end,
                                         const uint8_t *p)
{
    const uint8_t *q = fx_special_in(w, doc, end, p);
    while (q < end && *q >= 0x80) { /* UTF-8 is plain once checked */
        const uint8_t *r = fx_utf8(q, end);
        if (!r)
            break; /* the caller's slower path reports it */
        q = fx_special_in(w, doc, end, r);
    }
    return q;
}

/* A tag item as the service writes it, at p (its "<item>" start tag, expected and matched):
 * whitespace, "<key>" and "<value>" each with one plain run (valid UTF-8 included) ended by its
 * own end tag, "</item>".
 * Given to the builder at once (vb_tag: no frames, both strings pointers into the input).
 * Returns the byte after "</item>", or p when anything differs (nothing done: fx_members reads
 * the item member by member). *w is fx_members' window. */
static inline const uint8_t *fx_tag_item(fx *x, fx_win *w, const uint8_t *p)
{
    const uint8_t *doc = x->doc, *end = x->end, *k, *ke, *v, *ve, *q;
    const fx_tag *ti = &fx_tags[S_TAG], *tk = &fx_tags[S_KEY], *tv = &fx_tags[S_VALUE];
    q = fx_special_in(w, doc, end, p + 2 + ti->nlen);
    if (end - q < 34 || q[0] != '<' || !fx_tag_is(q + 1, tk))
        return p;
    k = q + 2 + tk->nlen;
    ke = fx_plain_in(w, doc, end, k);
    if (end - ke < 34 || ke[0] != '<' || ke[1] != '/' || !fx_tag_is(ke + 2, tk))
        return p;
    q = fx_special_in(w, doc, end, ke + 3 + tk->nlen);
    if (end - q < 34 || q[0] != '<' || !fx_tag_is(q + 1, tv))
        return p;
    v = q + 2 + tv->nlen;
    ve = fx_plain_in(w, doc, end, v);
    if (end - ve < 34 || ve[0] != '<' || ve[1] != '/' || !fx_tag_is(ve + 2, tv))
        return p;
    q = fx_special_in(w, doc, end, ve + 3 + tv->nlen);
    if (end - q < 34 || q[0] != '<' || q[1] != '/' || !fx_tag_is(q + 2, ti) ||
        vb_tag(&x->b, (const char *)k, (size_t)(ke - k), (const char *)v, (size_t)(ve - v)) !=
            HB_OK)
        return p;
    return q + 3 + ti->nlen;
}

/* The members of containers in the order the service sends them (fx_orders), from the tag at p
 * ('<'): the start tag of the member x expects next - its name then '>', no prefix, no
 * attributes - is matched by two 16-byte compares and opened without a look-up; a leaf whose
 * value is one plain run (valid UTF-8 included) ended by its own end tag is given whole
 * (vb_leaf), one that needs decoding goes through fx_leaf_decoded; end tags of containers are
 * read by fx_end_quick; the whitespace between tags is skipped through the window, kept in
 * registers meanwhile. Stops at anything else (text, markup other than a tag, a start tag it
 * does not expect, a leaf with markup inside - left open -, the root's end tag) and returns
 * where fx_run goes on: p when it read nothing, NULL on an error (recorded). */
static const uint8_t *fx_members(fx *x, const uint8_t *p)
{
    const uint8_t *doc = x->doc, *end = x->end;
    fx_win w = x->w;
    int e = x->expect;
    for (;;) {
        const uint8_t *q;
        if (p[1] == '/') {
            size_t d = x->b.depth;
            if (d <= 1)
                break;
            if (!(q = fx_end_quick(x, p))) {
                p = NULL;
                break;
            }
            const vb_frame *f = &x->b.stack[d]; /* the frame just popped */
            e = fx_orders[fx_slot_of[f->kind][f->field]].next;
        } else {
            const fx_tag *t = &fx_tags[e];
            if (!e || end - p < 34 || !fx_tag_is(p + 1, t))
                break;
            const uint8_t *v = p + 2 + t->nlen;
            if (fx_orders[e].kind != VB_LEAF) {
                if (e == S_TAG && (q = fx_tag_item(x, &w, p)) != p)
                    goto next; /* a whole tag item; the next expected is another */
                if (fx_open_known(x, p, e) != 0) {
                    p = NULL;
                    break;
                }
                e = fx_orders[e].first;
                q = v;
            } else {
                q = fx_plain_in(&w, doc, end, v);
                if (end - q < 34 || q[0] != '<' || q[1] != '/' || !fx_tag_is(q + 2, t)) {
                    int done;
                    x->w = w;
                    q = fx_leaf_decoded(x, p, e, &done);
                    w = x->w;
                    if (!done) { /* fx_run reads on in the open leaf (or NULL: an error) */
                        p = q;
                        e = S_NONE;
                        break;
                    }
                    e = fx_orders[e].next;
                    goto next;
                }
                int rc = vb_leaf(&x->b, fx_orders[e].field, (const char *)v, (size_t)(q - v));
                if (rc != HB_OK) {
                    fx_fail(x, q, rc, "bad value");
                    p = NULL;
                    break;
                }
                e = fx_orders[e].next;
                q += 3 + t->nlen;
            }
        }
    next:
        p = fx_special_in(&w, doc, end, q);
        if (end - p < 2 || *p != '<')
            break;
    }
    x->w = w;
    x->expect = e;
    return p;
}

static int fx_run(fx *x)
{
    const uint8_t *p = x->doc, *end = x->end;
    int u16 = hb_vol_u16_sniff(p, (size_t)(end - p));
    if (u16 == HB_VOL_U16_NO_BOM) {
        hb_vol_u16 u; /* the finding every strategy reports: no byte order mark */
        size_t bad;
        hb_vol_u16_init(&u);
        x->rc = hb_vol_u16_check(&u, p, 2, 0, x->err, &bad);
        return x->rc;
    }
    if (u16 != HB_VOL_U16_NO)
        return fx_fail(x, p, HB_EPARSE, "unsupported: a UTF-16 document");
    if (end - p >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
        p += 3;
    if (end - p >= 6 && memcmp(p, "<?xml", 5) == 0 && (fx_class[p[5]] & C_SPACE)) {
        p = fx_xml_decl(x, p);
        if (!p)
            return x->rc ? x->rc : HB_EPARSE;
    }
    p = fx_misc(x, p, 0);
    if (!p)
        return x->rc ? x->rc : HB_EPARSE;
    if (p == end)
        return fx_fail(x, p, HB_ETRUNC, "no element found");
    p = fx_start_tag(x, p); /* the root element */
    if (!p)
        return x->rc ? x->rc : HB_EPARSE;
    fx_expect_after(x, 0, 1);
    /* content */
    while (x->b.depth > 0) {
        int capture = vb_top(&x->b) == VB_LEAF;
        if (capture)
            p = fx_leaf_text(x, p);
        else
            p = fx_next_special(x, p); /* no text to keep: what it skips needs no check */
        if (p && (p == end || *p != '<'))
            p = fx_text(x, p, capture);
        if (!p)
            return x->rc ? x->rc : HB_EPARSE;
        if (end - p < 2)
            return fx_fail(x, p, HB_ETRUNC, "document ends inside an element");
        uint8_t c = p[1];
        size_t d0 = x->b.depth;
        const uint8_t *q;
        if (c == '/') {
            p = fx_end_quick(x, p);
            if (p)
                fx_expect_after(x, d0, 0);
        } else if (x->expect && (q = fx_members(x, p)) != p) {
            p = q; /* expected members read (or NULL: an error) */
        } else if (c == '!') {
            if (end - p >= 4 && p[2] == '-' && p[3] == '-')
                p = fx_comment(x, p);
            else if (end - p >= 9 && memcmp(p + 2, "[CDATA[", 7) == 0)
                p = fx_cdata(x, p, capture);
            else if (end - p < 9 && memcmp(p, "<![CDATA[", (size_t)(end - p)) == 0)
                return fx_fail(x, p, HB_ETRUNC, "document ends inside a tag");
            else
                return fx_fail(x, p, HB_EPARSE, "not well-formed (invalid token)");
        } else if (c == '?') {
            p = fx_pi(x, p);
        } else {
            p = fx_start_quick(x, p);
            if (p)
                fx_expect_after(x, d0, 1);
        }
        if (!p)
            return x->rc ? x->rc : HB_EPARSE;
    }
    p = fx_misc(x, p, 1);
    if (!p)
        return x->rc ? x->rc : HB_EPARSE;
    return HB_OK;
}

int hb_vol_fast(const uint8_t *doc, size_t len, size_t piece, hb_volumes *out, hb_vol_error *err)
{
    (void)piece;
    pthread_once(&fx_class_once, fx_class_init);
    fx x;
    memset(&x, 0, sizeof x);
    x.doc = doc;
    x.end = doc + len;
    x.err = err;
    x.w.start = FX_NO_WINDOW;
    int rc = vb_init(&x.b, out, err, 1, 1);
    if (rc == HB_OK) {
        rc = fx_run(&x);
    }
    if (rc == HB_OK)
        rc = vb_finish(&x.b);
    hb_vm_free(out, x.names);
    hb_vm_free(out, x.nlens);
    vb_release(&x.b);
    return rc;
}

/* vol_builder.c - the typed builder (vb) that every decoding strategy but memchr-scan and
 * expat-count drives: it turns element events (start, text, end, or a leaf's value handed over
 * whole) into hb_volume structs following the decode contract of hb_volumes.h - names classified
 * by a strcmp table (a generic SDK's shape) or a switch, integers, booleans and RFC 3339 instants
 * parsed, bad values reported with the member's name and the value quoted (see volumes_impl.h).
 * A leaf's value goes where a table of member offsets says. vb_start and vb_end keep their common
 * case (the switch knows the name, a string handed over whole) free of calls but in tail
 * position, so it runs without a stack frame: the rare paths are separate, noinline functions.
 * A scanner that already knows the member (fast, reading the schema's order) skips the look-up:
 * vb_start_known opens it (a tag in arena mode without a frame), vb_leaf gives a whole leaf at
 * once (its string case inline in volumes_impl.h), vb_tag a whole tag item.
 */
#include "hb_volumes.h"
#include "volumes_impl.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- the builder ----------------------------------------------------------------------------- */


/* The strcmp table of the generic lookup: (parent kind, local name) -> (kind, field). */
typedef struct vb_rule {
    uint8_t parent;
    const char *name;
    uint8_t kind;
    uint8_t field;
} vb_rule;

/* clang-format off */
static const vb_rule vb_rules[] = {
    {VB_ROOT,       "requestId",           VB_LEAF,       VF_REQUEST_ID},
    {VB_ROOT,       "volumeSet",           VB_VOLSET,     VF_NONE},
    {VB_ROOT,       "nextToken",           VB_LEAF,       VF_NEXT_TOKEN},
    {VB_VOLSET,     "item",                VB_VOLUME,     VF_NONE},
    {VB_VOLUME,     "volumeId",            VB_LEAF,       VF_VOLUME_ID},
    {VB_VOLUME,     "size",                VB_LEAF,       VF_SIZE},
    {VB_VOLUME,     "snapshotId",          VB_LEAF,       VF_SNAPSHOT_ID},
    {VB_VOLUME,     "availabilityZone",    VB_LEAF,       VF_AVAILABILITY_ZONE},
    {VB_VOLUME,     "status",              VB_LEAF,       VF_STATUS},
    {VB_VOLUME,     "createTime",          VB_LEAF,       VF_CREATE_TIME},
    {VB_VOLUME,     "attachmentSet",       VB_ATTSET,     VF_NONE},
    {VB_VOLUME,     "volumeType",          VB_LEAF,       VF_VOLUME_TYPE},
    {VB_VOLUME,     "iops",                VB_LEAF,       VF_IOPS},
    {VB_VOLUME,     "throughput",          VB_LEAF,       VF_THROUGHPUT},
    {VB_VOLUME,     "encrypted",           VB_LEAF,       VF_ENCRYPTED},
    {VB_VOLUME,     "multiAttachEnabled",  VB_LEAF,       VF_MULTI_ATTACH},
    {VB_VOLUME,     "tagSet",              VB_TAGSET,     VF_NONE},
    {VB_ATTSET,     "item",                VB_ATTACHMENT, VF_NONE},
    {VB_ATTACHMENT, "volumeId",            VB_LEAF,       VF_A_VOLUME_ID},
    {VB_ATTACHMENT, "instanceId",          VB_LEAF,       VF_A_INSTANCE_ID},
    {VB_ATTACHMENT, "device",              VB_LEAF,       VF_A_DEVICE},
    {VB_ATTACHMENT, "status",              VB_LEAF,       VF_A_STATUS},
    {VB_ATTACHMENT, "attachTime",          VB_LEAF,       VF_A_ATTACH_TIME},
    {VB_ATTACHMENT, "deleteOnTermination", VB_LEAF,       VF_A_DELETE_ON_TERMINATION},
    {VB_TAGSET,     "item",                VB_TAG,        VF_NONE},
    {VB_TAG,        "key",                 VB_LEAF,       VF_KEY},
    {VB_TAG,        "value",               VB_LEAF,       VF_VALUE},
};
/* clang-format on */

/* Member names for error messages, by field. */
static const char *const vb_field_names[VF_COUNT] = {
    [VF_REQUEST_ID] = "requestId",
    [VF_NEXT_TOKEN] = "nextToken",
    [VF_VOLUME_ID] = "volumeId",
    [VF_SIZE] = "size",
    [VF_SNAPSHOT_ID] = "snapshotId",
    [VF_AVAILABILITY_ZONE] = "availabilityZone",
    [VF_STATUS] = "status",
    [VF_CREATE_TIME] = "createTime",
    [VF_VOLUME_TYPE] = "volumeType",
    [VF_IOPS] = "iops",
    [VF_THROUGHPUT] = "throughput",
    [VF_ENCRYPTED] = "encrypted",
    [VF_MULTI_ATTACH] = "multiAttachEnabled",
    [VF_A_VOLUME_ID] = "volumeId",
    [VF_A_INSTANCE_ID] = "instanceId",
    [VF_A_DEVICE] = "device",
    [VF_A_STATUS] = "status",
    [VF_A_ATTACH_TIME] = "attachTime",
    [VF_A_DELETE_ON_TERMINATION] = "deleteOnTermination",
    [VF_KEY] = "key",
    [VF_VALUE] = "value",
};

/* The generic lookup: a linear scan with a string compare per rule of the parent. */
static int vb_lookup_table(int parent, const char *name, size_t len, uint8_t *field)
{
    for (size_t i = 0; i < sizeof vb_rules / sizeof vb_rules[0]; i++) {
        const vb_rule *r = &vb_rules[i];
        if (r->parent == parent && strncmp(r->name, name, len) == 0 && r->name[len] == '\0') {
            *field = r->field;
            return r->kind;
        }
    }
    *field = VF_NONE;
    return VB_SKIP;
}

/* 1 when the n bytes at a equal those at lit (n and lit constants where it is used: it unrolls
 * into a few word compares, where memcmp may stay a call that the hot path cannot afford). */
static inline __attribute__((always_inline)) int vb_eq(const char *a, const char *lit, size_t n)
{
    uint64_t x, y;
    for (; n >= 8; a += 8, lit += 8, n -= 8) {
        memcpy(&x, a, 8);
        memcpy(&y, lit, 8);
        if (x != y)
            return 0;
    }
    if (n >= 4) {
        uint32_t u, v;
        memcpy(&u, a, 4);
        memcpy(&v, lit, 4);
        if (u != v)
            return 0;
        a += 4, lit += 4, n -= 4;
    }
    if (n >= 2) {
        uint16_t u, v;
        memcpy(&u, a, 2);
        memcpy(&v, lit, 2);
        if (u != v)
            return 0;
        a += 2, lit += 2, n -= 2;
    }
    return n == 0 || *a == *lit;
}

#define VB_IS(lit) (len == sizeof(lit) - 1 && vb_eq(name, lit, sizeof(lit) - 1))

/* The switch lookup of a volume's member (*field, already VF_NONE): by length, then one compare.
 * Returns VB_LEAF, VB_TAGSET, VB_ATTSET or VB_SKIP. Inlined: vb_lookup_switch's own case, apart for
 * length only. */
static inline __attribute__((always_inline)) int vb_lookup_volume(const char *name, size_t len,
                                                                  uint8_t *field)
{
    switch (len) {
    case 4:
        if (VB_IS("size"))
            *field = VF_SIZE;
        else if (VB_IS("iops"))
            *field = VF_IOPS;
        break;
    case 6:
        if (VB_IS("status"))
            *field = VF_STATUS;
        else if (VB_IS("tagSet"))
            return VB_TAGSET;
        break;
    case 8:
        if (VB_IS("volumeId"))
            *field = VF_VOLUME_ID;
        break;
    case 9:
        if (VB_IS("encrypted"))
            *field = VF_ENCRYPTED;
        break;
    case 10:
        if (VB_IS("snapshotId"))
            *field = VF_SNAPSHOT_ID;
        else if (VB_IS("createTime"))
            *field = VF_CREATE_TIME;
        else if (VB_IS("volumeType"))
            *field = VF_VOLUME_TYPE;
        else if (VB_IS("throughput"))
            *field = VF_THROUGHPUT;
        break;
    case 13:
        if (VB_IS("attachmentSet"))
            return VB_ATTSET;
        break;
    case 16:
        if (VB_IS("availabilityZone"))
            *field = VF_AVAILABILITY_ZONE;
        break;
    case 18:
        if (VB_IS("multiAttachEnabled"))
            *field = VF_MULTI_ATTACH;
        break;
    default:
        break;
    }
    return *field ? VB_LEAF : VB_SKIP;
}

/* The switch lookup: the parent first, then the length, then one compare. */
static inline __attribute__((always_inline)) int vb_lookup_switch(int parent, const char *name,
                                                                  size_t len, uint8_t *field)
{
    *field = VF_NONE;
    switch (parent) {
    case VB_TAGSET:
    case VB_ATTSET:
    case VB_VOLSET:
        if (VB_IS("item"))
            return parent == VB_TAGSET ? VB_TAG : parent == VB_ATTSET ? VB_ATTACHMENT : VB_VOLUME;
        return VB_SKIP;
    case VB_TAG:
        if (VB_IS("key"))
            *field = VF_KEY;
        else if (VB_IS("value"))
            *field = VF_VALUE;
        return *field ? VB_LEAF : VB_SKIP;
    case VB_VOLUME:
        return vb_lookup_volume(name, len, field);
    case VB_ATTACHMENT:
        if (VB_IS("volumeId"))
            *field = VF_A_VOLUME_ID;
        else if (VB_IS("instanceId"))
            *field = VF_A_INSTANCE_ID;
        else if (VB_IS("device"))
            *field = VF_A_DEVICE;
        else if (VB_IS("status"))
            *field = VF_A_STATUS;
        else if (VB_IS("attachTime"))
            *field = VF_A_ATTACH_TIME;
        else if (VB_IS("deleteOnTermination"))
            *field = VF_A_DELETE_ON_TERMINATION;
        return *field ? VB_LEAF : VB_SKIP;
    case VB_ROOT:
        if (VB_IS("requestId"))
            *field = VF_REQUEST_ID;
        else if (VB_IS("nextToken"))
            *field = VF_NEXT_TOKEN;
        else if (VB_IS("volumeSet"))
            return VB_VOLSET;
        return *field ? VB_LEAF : VB_SKIP;
    default:
        return VB_SKIP;
    }
}

int vb_init(vb *b, hb_volumes *out, hb_vol_error *err, int arena, int fast_lookup)
{
    memset(b, 0, sizeof *b);
    b->out = out;
    b->obj[VO_RESULT] = (char *)out;
    b->err = err;
    b->arena = arena;
    b->fast_lookup = fast_lookup;
    out->owns_strings_ = !arena;
    b->stack_cap = 32;
    b->stack = hb_vm_alloc(out, b->stack_cap * sizeof *b->stack);
    b->tcap = 256;
    b->text = hb_vm_alloc(out, b->tcap);
    if (!b->stack || !b->text)
        return hb_vol_fail(err, HB_ENOMEM, "out of memory");
    b->stack[0].kind = VB_DOC;
    b->stack[0].field = VF_NONE;
    return HB_OK;
}

void vb_release(vb *b)
{
    hb_volumes *v = b->out;
    if (!v)
        return;
    hb_vm_free(v, b->stack);
    hb_vm_free(v, b->text);
    hb_vm_free(v, b->stags);
    hb_vm_free(v, b->satts);
    b->stack = NULL;
    b->text = NULL;
    b->stags = NULL;
    b->satts = NULL;
}

/* Grows the array at *p (of *cap elements of size sz) to hold n + 1. */
static int vb_grow(hb_volumes *v, void **p, size_t *cap, size_t n, size_t sz, size_t first)
{
    if (n < *cap)
        return HB_OK;
    size_t nc = *cap ? *cap * 2 : first;
    void *np = hb_vm_realloc(v, *p, nc * sz);
    if (!np)
        return HB_ENOMEM;
    *p = np;
    *cap = nc;
    return HB_OK;
}

static hb_volume *vb_volume(vb *b)
{
    return b->out->volumes[b->out->nvolumes - 1];
}

/* A zeroed struct of n bytes: its own block (malloc mode) or from the arena. */
static void *vb_struct(vb *b, size_t n)
{
    void *p = b->arena ? hb_vm_arena(b->out, n, 16) : hb_vm_alloc(b->out, n);
    if (p)
        memset(p, 0, n);
    return p;
}

/* Opens a container's struct: a volume, an attachment or a tag, appended to its list of
 * pointers (arena mode: a scratch list for attachments and tags, moved at the volume's end). */
static inline int vb_open_struct(vb *b, int kind)
{
    hb_volumes *v = b->out;
    if (kind == VB_VOLUME) {
        if (vb_grow(v, (void **)&v->volumes, &b->vcap, v->nvolumes, sizeof *v->volumes, 64))
            return HB_ENOMEM;
        hb_volume *vol = vb_struct(b, sizeof *vol);
        if (!vol)
            return HB_ENOMEM;
        v->volumes[v->nvolumes++] = vol;
        b->obj[VO_VOLUME] = (char *)vol;
        b->tags_cap = b->atts_cap = 0;
        b->nstags = b->nsatts = 0;
    } else if (kind == VB_ATTACHMENT) {
        hb_volume *vol = vb_volume(b);
        hb_vol_attachment ***list = b->arena ? &b->satts : &vol->attachments;
        size_t *n = b->arena ? &b->nsatts : &vol->nattachments;
        size_t *cap = b->arena ? &b->satts_cap : &b->atts_cap;
        if (vb_grow(v, (void **)list, cap, *n, sizeof **list, b->arena ? 4 : 1))
            return HB_ENOMEM;
        hb_vol_attachment *a = vb_struct(b, sizeof *a);
        if (!a)
            return HB_ENOMEM;
        (*list)[(*n)++] = a;
        b->obj[VO_ATTACHMENT] = (char *)a;
    } else if (kind == VB_TAG) {
        hb_volume *vol = vb_volume(b);
        hb_vol_tag ***list = b->arena ? &b->stags : &vol->tags;
        size_t *n = b->arena ? &b->nstags : &vol->ntags;
        size_t *cap = b->arena ? &b->stags_cap : &b->tags_cap;
        if (vb_grow(v, (void **)list, cap, *n, sizeof **list, b->arena ? 32 : 4))
            return HB_ENOMEM;
        hb_vol_tag *t = vb_struct(b, sizeof *t);
        if (!t)
            return HB_ENOMEM;
        (*list)[(*n)++] = t;
        b->obj[VO_TAG] = (char *)t;
    }
    return HB_OK;
}

/* Arena mode: a volume ends; its lists of tags and attachments move from scratch to the arena. */
static int vb_close_volume(vb *b)
{
    if (!b->arena)
        return HB_OK;
    hb_volume *vol = vb_volume(b);
    if (b->nstags) {
        size_t n = b->nstags * sizeof *b->stags;
        hb_vol_tag **t = hb_vm_arena(b->out, n, alignof(hb_vol_tag *));
        if (!t)
            return HB_ENOMEM;
        memcpy(t, b->stags, n);
        vol->tags = t;
        vol->ntags = b->nstags;
    }
    if (b->nsatts) {
        size_t n = b->nsatts * sizeof *b->satts;
        hb_vol_attachment **a = hb_vm_arena(b->out, n, alignof(hb_vol_attachment *));
        if (!a)
            return HB_ENOMEM;
        memcpy(a, b->satts, n);
        vol->attachments = a;
        vol->nattachments = b->nsatts;
    }
    b->nstags = b->nsatts = 0;
    return HB_OK;
}

/* Doubles the stack of open elements. */
static __attribute__((noinline)) int vb_grow_stack(vb *b)
{
    size_t nc = b->stack_cap * 2;
    vb_frame *ns = hb_vm_realloc(b->out, b->stack, nc * sizeof *ns);
    if (!ns)
        return hb_vol_fail(b->err, HB_ENOMEM, "out of memory");
    b->stack = ns;
    b->stack_cap = nc;
    return HB_OK;
}

/* vb_lookup's second try: the local name of a name with a prefix (after its last ':'), or VB_SKIP
 * for a name without one. */
static __attribute__((noinline)) int vb_lookup_local(const vb *b, int parent, const char *name,
                                                     size_t len, uint8_t *field)
{
    if (!memchr(name, ':', len))
        return VB_SKIP;
    const char *last = name + len;
    while (last[-1] != ':')
        last--;
    len -= (size_t)(last - name);
    name = last;
    return b->fast_lookup ? vb_lookup_switch(parent, name, len, field)
                          : vb_lookup_table(parent, name, len, field);
}

/* The kind (and *field) of an element named name (len bytes) under parent: its local name (after
 * the last ':') looked up. No rule's name holds a ':', so a name that matches as it stands has
 * no prefix: the prefix is looked for only when the whole name matches nothing. */
static inline __attribute__((always_inline)) int vb_lookup(const vb *b, int parent,
                                                          const char *name, size_t len,
                                                          uint8_t *field)
{
    int kind = b->fast_lookup ? vb_lookup_switch(parent, name, len, field)
                              : vb_lookup_table(parent, name, len, field);
    if (kind != VB_SKIP)
        return kind;
    return vb_lookup_local(b, parent, name, len, field);
}

/* vb_start when the stack of open elements is full: grows it, then starts the element. */
static __attribute__((noinline)) int vb_start_grow(vb *b, const char *name, size_t len)
{
    if (vb_grow_stack(b) != HB_OK)
        return HB_ENOMEM;
    b->out->elements--; /* vb_start counts it again */
    return vb_start(b, name, len);
}

/* vb_start's container: its struct opened (out of memory reported as vb_start reports it). */
static __attribute__((noinline)) int vb_start_struct(vb *b, int kind)
{
    if (vb_open_struct(b, kind) != HB_OK)
        return hb_vol_fail(b->err, HB_ENOMEM, "out of memory");
    return HB_OK;
}

/* The element at f (just pushed) is of kind with field: leaves start their text, containers
 * open their struct. */
static inline int vb_started(vb *b, vb_frame *f, int kind, int field)
{
    f->kind = (uint8_t)kind;
    f->field = (uint8_t)field;
    if (kind == VB_LEAF) {
        b->tlen = 0;
        b->has_direct = 0;
        return HB_OK;
    }
    if (kind == VB_VOLUME || kind == VB_ATTACHMENT || kind == VB_TAG)
        return vb_start_struct(b, kind);
    return HB_OK;
}

/* vb_start's look-up off the hot path: the strcmp table, or a name the switch does not know as
 * it stands (a prefixed name, or no member). */
static __attribute__((noinline)) int vb_start_lookup(vb *b, vb_frame *f, int parent,
                                                     const char *name, size_t len)
{
    uint8_t field = VF_NONE;
    int kind = vb_lookup(b, parent, name, len, &field);
    return vb_started(b, f, kind, field);
}

/* The hot path (the switch finds the name) calls nothing but in tail position. */
int vb_start(vb *b, const char *name, size_t len)
{
    b->out->elements++;
    if (b->depth + 1 == b->stack_cap)
        return vb_start_grow(b, name, len);
    int parent = b->stack[b->depth].kind;
    vb_frame *f = &b->stack[++b->depth];
    if (parent == VB_DOC)
        return vb_started(b, f, VB_ROOT, VF_NONE);
    if (parent == VB_SKIP || parent == VB_LEAF)
        return vb_started(b, f, VB_SKIP, VF_NONE);
    if (!b->fast_lookup)
        return vb_start_lookup(b, f, parent, name, len);
    uint8_t field = VF_NONE;
    int kind = vb_lookup_switch(parent, name, len, &field);
    if (kind == VB_SKIP)
        return vb_start_lookup(b, f, parent, name, len);
    return vb_started(b, f, kind, field);
}

/* vb_start_known but for its inline case: a push (the stack grown first when full) and, for a
 * struct, its opening. */
static __attribute__((noinline)) int vb_start_known_slow(vb *b, int kind, int field)
{
    b->out->elements++;
    if (b->depth + 1 == b->stack_cap && vb_grow_stack(b) != HB_OK)
        return HB_ENOMEM;
    return vb_started(b, &b->stack[++b->depth], kind, field);
}

/* The hot path - a tag in arena mode with room in its scratch list, on the stack and in the
 * newest arena chunk (the commonest struct) - calls nothing but in tail position, so it runs
 * without a stack frame. */
int vb_start_known(vb *b, int kind, int field)
{
    hb_vm_chunk *c = (hb_vm_chunk *)b->out->arena_;
    if (kind != VB_TAG || !b->arena || b->nstags >= b->stags_cap ||
        b->depth + 1 == b->stack_cap || !c)
        return vb_start_known_slow(b, kind, field);
    size_t at = (c->used + 15) & ~(size_t)15; /* hb_vm_arena's bump, without its grow call */
    if (at > c->cap || c->cap - at < sizeof(hb_vol_tag))
        return vb_start_known_slow(b, kind, field);
    c->used = at + sizeof(hb_vol_tag);
    hb_vol_tag *t = (hb_vol_tag *)(void *)(c->data + at);
    memset(t, 0, sizeof *t);
    b->out->elements++;
    b->stags[b->nstags++] = t;
    b->obj[VO_TAG] = (char *)t;
    vb_frame *f = &b->stack[++b->depth];
    f->kind = VB_TAG;
    f->field = VF_NONE;
    return HB_OK;
}

/* Without a stack frame, as vb_start_known's hot path; no side effect when it declines. */
int vb_tag(vb *b, const char *key, size_t kn, const char *value, size_t vn)
{
    hb_vm_chunk *c = (hb_vm_chunk *)b->out->arena_;
    if (!b->arena || b->out->owns_strings_ || b->nstags >= b->stags_cap || !c)
        return HB_EINVAL;
    size_t at = (c->used + 15) & ~(size_t)15; /* hb_vm_arena's bump, without its grow call */
    if (at > c->cap || c->cap - at < sizeof(hb_vol_tag))
        return HB_EINVAL;
    c->used = at + sizeof(hb_vol_tag);
    hb_vol_tag *t = (hb_vol_tag *)(void *)(c->data + at);
    t->key.s = key;
    t->key.len = kn;
    t->value.s = value;
    t->value.len = vn;
    b->stags[b->nstags++] = t;
    b->obj[VO_TAG] = (char *)t;
    b->out->elements += 3; /* item, key, value */
    return HB_OK;
}

int vb_text(vb *b, const char *s, size_t n)
{
    if (b->stack[b->depth].kind != VB_LEAF)
        return HB_OK;
    if (b->tcap - b->tlen < n) {
        size_t nc = b->tcap;
        while (nc - b->tlen < n)
            nc *= 2;
        char *nt = hb_vm_realloc(b->out, b->text, nc);
        if (!nt)
            return hb_vol_fail(b->err, HB_ENOMEM, "out of memory");
        b->text = nt;
        b->tcap = nc;
    }
    memcpy(b->text + b->tlen, s, n);
    b->tlen += n;
    return HB_OK;
}

/* Parses an integer member: optional '-', 1 to 19 digits, within int64. */
static int vb_parse_int(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (n > 0 && s[0] == '-') {
        neg = 1;
        i = 1;
    }
    if (i == n || n - i > 19)
        return -1;
    uint64_t v = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned char)s[i] - (unsigned)'0';
        if (d > 9)
            return -1;
        v = v * 10 + d;
    }
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static int vb_parse_bool(const char *s, size_t n, uint8_t *out)
{
    if (n == 4 && memcmp(s, "true", 4) == 0)
        *out = 1;
    else if (n == 5 && memcmp(s, "false", 5) == 0)
        *out = 0;
    else
        return -1;
    return 0;
}

/* The first at most VB_QUOTE_MAX bytes of a bad value, quoted for an error message on one line:
 * printable ASCII as is, '\\' and '\'' escaped, \n \r \t, other control bytes and bytes that
 * are not part of a whole UTF-8 character as \xNN; UTF-8 characters kept whole (the cut falls
 * between characters). "..." follows when the value was cut. Writes at most cap bytes. */
#define VB_QUOTE_MAX 40
static void vb_quote(char *dst, size_t cap, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t lim = n > VB_QUOTE_MAX ? VB_QUOTE_MAX : n, o = 0, i = 0;
    while (i < lim && cap - o > 8) {
        unsigned c = u[i];
        size_t k = c >= 0xc2 && c <= 0xdf   ? 2
                   : c >= 0xe0 && c <= 0xef ? 3
                   : c >= 0xf0 && c <= 0xf4 ? 4
                                            : 0;
        if (k) {
            if (i + k > lim && i + k <= n)
                break; /* the character straddles the cut: leave it out */
            size_t j = 1;
            while (j < k && i + j < n && (u[i + j] & 0xc0) == 0x80)
                j++;
            if (j == k) {
                memcpy(dst + o, u + i, k);
                o += k;
                i += k;
                continue;
            }
        }
        if (c == '\\' || c == '\'') {
            dst[o++] = '\\';
            dst[o++] = (char)c;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            dst[o++] = '\\';
            dst[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        } else if (c < 0x20 || c >= 0x7f) {
            o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", c);
        } else {
            dst[o++] = (char)c;
        }
        i++;
    }
    if (i < n && cap - o > 3) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = '\0';
}

/* The member's typed value failed to parse: "size: not an integer: 'x'" (the value quoted by
 * vb_quote, so the message stays one line). */
static int vb_bad_value(vb *b, int field, const char *what, const char *s, size_t n)
{
    hb_vol_error *e = b->err;
    char q[4 * VB_QUOTE_MAX + 8];
    vb_quote(q, sizeof q, s, n);
    snprintf(e->msg, sizeof e->msg, "%s: %s: '%s'", vb_field_names[field], what, q);
    e->reason = e->msg;
    return HB_ERANGE;
}

/* A timestamp member the RFC 3339 parser rejects: "createTime: <rule> at byte N: '...'". */
static int vb_bad_time(vb *b, int field, int rc, const hb_rfc3339_error *e, const char *s, size_t n)
{
    hb_vol_error *err = b->err;
    char q[4 * VB_QUOTE_MAX + 8];
    vb_quote(q, sizeof q, s, n);
    snprintf(err->msg, sizeof err->msg, "%s: not an RFC 3339 timestamp (%s at byte %zu): '%s'",
             vb_field_names[field], rc == HB_EINVAL ? "invalid" : hb_rfc3339_rule_str(e->rule),
             e->pos, q);
    err->reason = err->msg;
    return HB_ERANGE;
}

/* Stores the leaf's string, not handed over directly or owned by a malloc-mode result: a copy in
 * the arena or in its own block (cold: the common leaf is a pointer into the input). */
static __attribute__((noinline)) int vb_store_copy(vb *b, hb_vol_str *dst, const char *s, size_t n)
{
    char *p;
    if (b->arena) {
        p = hb_vm_arena(b->out, n ? n : 1, 1);
    } else {
        hb_vm_free(b->out, (void *)dst->s); /* a leaf given twice keeps the last */
        dst->s = NULL;
        p = hb_vm_alloc(b->out, n ? n : 1);
    }
    if (!p)
        return hb_vol_fail(b->err, HB_ENOMEM, "out of memory");
    memcpy(p, s, n);
    dst->s = p;
    dst->len = n;
    return HB_OK;
}

/* Stores the leaf's string: copied unless handed over directly (and the result owns none). */
static inline int vb_store(vb *b, hb_vol_str *dst, const char *s, size_t n, int direct)
{
    if (direct && !b->out->owns_strings_) {
        dst->s = s;
        dst->len = n;
        return HB_OK;
    }
    return vb_store_copy(b, dst, s, n);
}

/* Where each leaf member goes (vb_member, volumes_impl.h): one row per enum vb_field; the
 * commit is a table look-up, not a switch per member. */
#define VB_M(owner, type, bit, st, m, m2)                                                         \
    {owner, type, bit, (uint16_t)offsetof(st, m), (uint16_t)offsetof(st, m2)}

/* clang-format off */
const vb_member vb_members[VF_COUNT] = {
    [VF_REQUEST_ID]        = VB_M(VO_RESULT,     VT_STR,  0, hb_volumes, request_id, request_id),
    [VF_NEXT_TOKEN]        = VB_M(VO_RESULT,     VT_STR,  0, hb_volumes, next_token, next_token),
    [VF_VOLUME_ID]         = VB_M(VO_VOLUME,     VT_STR,  0, hb_volume, volume_id, volume_id),
    [VF_SIZE]              = VB_M(VO_VOLUME,     VT_INT,  HB_VOL_HAS_SIZE, hb_volume, size, present),
    [VF_SNAPSHOT_ID]       = VB_M(VO_VOLUME,     VT_STR,  0, hb_volume, snapshot_id, snapshot_id),
    [VF_AVAILABILITY_ZONE] = VB_M(VO_VOLUME,     VT_STR,  0, hb_volume, availability_zone,
                                  availability_zone),
    [VF_STATUS]            = VB_M(VO_VOLUME,     VT_STR,  0, hb_volume, status, status),
    [VF_CREATE_TIME]       = VB_M(VO_VOLUME,     VT_TIME, 0, hb_volume, create_time, create_instant),
    [VF_VOLUME_TYPE]       = VB_M(VO_VOLUME,     VT_STR,  0, hb_volume, volume_type, volume_type),
    [VF_IOPS]              = VB_M(VO_VOLUME,     VT_INT,  HB_VOL_HAS_IOPS, hb_volume, iops, present),
    [VF_THROUGHPUT]        = VB_M(VO_VOLUME,     VT_INT,  HB_VOL_HAS_THROUGHPUT, hb_volume,
                                  throughput, present),
    [VF_ENCRYPTED]         = VB_M(VO_VOLUME,     VT_BOOL, HB_VOL_HAS_ENCRYPTED, hb_volume,
                                  encrypted, present),
    [VF_MULTI_ATTACH]      = VB_M(VO_VOLUME,     VT_BOOL, HB_VOL_HAS_MULTI_ATTACH, hb_volume,
                                  multi_attach_enabled, present),
    [VF_A_VOLUME_ID]       = VB_M(VO_ATTACHMENT, VT_STR,  0, hb_vol_attachment, volume_id, volume_id),
    [VF_A_INSTANCE_ID]     = VB_M(VO_ATTACHMENT, VT_STR,  0, hb_vol_attachment, instance_id,
                                  instance_id),
    [VF_A_DEVICE]          = VB_M(VO_ATTACHMENT, VT_STR,  0, hb_vol_attachment, device, device),
    [VF_A_STATUS]          = VB_M(VO_ATTACHMENT, VT_STR,  0, hb_vol_attachment, status, status),
    [VF_A_ATTACH_TIME]     = VB_M(VO_ATTACHMENT, VT_TIME, 0, hb_vol_attachment, attach_time,
                                  attach_instant),
    [VF_A_DELETE_ON_TERMINATION] = VB_M(VO_ATTACHMENT, VT_BOOL, HB_VOL_HAS_DELETE_ON_TERMINATION,
                                        hb_vol_attachment, delete_on_termination, present),
    [VF_KEY]               = VB_M(VO_TAG,        VT_STR,  0, hb_vol_tag, key, key),
    [VF_VALUE]             = VB_M(VO_TAG,        VT_STR,  0, hb_vol_tag, value, value),
};
/* clang-format on */

/* A typed (not string) leaf: a timestamp, an integer or a boolean, parsed into the struct at base
 * as its row m says. HB_ERANGE with the member named when the text does not parse. */
static __attribute__((noinline)) int vb_commit_typed(vb *b, int field, const vb_member *m,
                                                     char *base, const char *s, size_t n,
                                                     int direct)
{
    if (m->type == VT_TIME) {
        hb_rfc3339_error e = {0, 0};
        int rc = hb_rfc3339_parse(s, n, (hb_rfc3339_time *)(void *)(base + m->off2), &e);
        if (rc != HB_OK)
            return vb_bad_time(b, field, rc, &e, s, n);
        return vb_store(b, (hb_vol_str *)(void *)(base + m->off), s, n, direct);
    }
    uint32_t *present = (uint32_t *)(void *)(base + m->off2);
    if (m->type == VT_INT) {
        int64_t x;
        if (vb_parse_int(s, n, &x) != 0)
            return vb_bad_value(b, field, "not an integer", s, n);
        memcpy(base + m->off, &x, sizeof x);
    } else {
        uint8_t x;
        if (vb_parse_bool(s, n, &x) != 0)
            return vb_bad_value(b, field, "not a boolean (true or false)", s, n);
        base[m->off] = (char)x;
    }
    *present |= m->bit;
    return HB_OK;
}

static inline int vb_commit_leaf(vb *b, int field)
{
    const char *s = b->has_direct ? b->direct : b->text;
    size_t n = b->has_direct ? b->dlen : b->tlen;
    int direct = b->has_direct;
    b->has_direct = 0;
    const vb_member *m = &vb_members[field];
    char *base = b->obj[m->owner];
    if (m->type == VT_STR)
        return vb_store(b, (hb_vol_str *)(void *)(base + m->off), s, n, direct);
    if (m->type == VT_NONE)
        return HB_OK;
    return vb_commit_typed(b, field, m, base, s, n, direct);
}

/* vb_leaf but for a string handed over to a result that owns none (inline there): no frame is
 * pushed, the leaf has no children and its value is committed at once. */
int vb_leaf_typed(vb *b, int field, const char *s, size_t n)
{
    const vb_member *m = &vb_members[field];
    char *base = b->obj[m->owner];
    if (m->type == VT_STR)
        return vb_store(b, (hb_vol_str *)(void *)(base + m->off), s, n, 1);
    return vb_commit_typed(b, field, m, base, s, n, 1);
}

/* The generic shape's end tag: its name is looked up again (under the parent now innermost) and
 * must give the member its start gave. */
static __attribute__((noinline)) int vb_end_recheck(vb *b, vb_frame f, const char *name,
                                                    size_t len)
{
    uint8_t field;
    int kind = vb_lookup(b, b->stack[b->depth].kind, name, len, &field);
    if (kind != f.kind || field != f.field)
        return hb_vol_fail(b->err, HB_EPARSE, "end tag does not match its start");
    return HB_OK;
}

/* Arena mode: the volume just closed gets its lists (out of memory reported as vb_end does). */
static __attribute__((noinline)) int vb_end_volume(vb *b)
{
    if (vb_close_volume(b) != HB_OK)
        return hb_vol_fail(b->err, HB_ENOMEM, "out of memory");
    return HB_OK;
}

/* The element f (already popped) ends: a leaf's value is committed, a volume's lists moved. */
static inline int vb_ended(vb *b, vb_frame f)
{
    if (f.kind == VB_LEAF)
        return vb_commit_leaf(b, f.field);
    if (f.kind == VB_VOLUME && b->arena)
        return vb_end_volume(b);
    return HB_OK;
}

/* vb_end in the generic shape: the end tag's name is checked again first. */
static __attribute__((noinline)) int vb_end_generic(vb *b, vb_frame f, const char *name,
                                                    size_t len)
{
    int rc = vb_end_recheck(b, f, name, len);
    if (rc != HB_OK)
        return rc;
    return vb_ended(b, f);
}

/* The hot path (the switch lookup) calls nothing but in tail position. */
int vb_end(vb *b, const char *name, size_t len)
{
    vb_frame f = b->stack[b->depth];
    b->depth--;
    if (!b->fast_lookup && f.kind != VB_ROOT && f.kind != VB_SKIP && b->depth > 0)
        return vb_end_generic(b, f, name, len);
    return vb_ended(b, f);
}

int vb_finish(vb *b)
{
    /* the parsers only report a complete document; this keeps the builder honest about it */
    if (b->depth != 0)
        return hb_vol_fail(b->err, HB_ETRUNC, "document ends inside an element");
    return HB_OK;
}

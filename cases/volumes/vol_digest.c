/* vol_digest.c - checking one strategy's answer against the reference's: hb_volumes_digest
 * (FNV-1a 64 of the canonical JSON form of vol_json.c, then requestId and nextToken), compared
 * first, and hb_volumes_compare (every member, order and parsed instants included; the first
 * difference described in one line) (see hb_volumes.h).
 */
#include "hb_volumes.h"

#include <stdio.h>
#include <string.h>

/* ---- the digest ------------------------------------------------------------------------------ */

static int digest_write(void *ctx, const char *p, size_t n)
{
    uint64_t *h = ctx;
    for (size_t i = 0; i < n; i++) {
        *h ^= (unsigned char)p[i];
        *h *= 0x100000001b3u;
    }
    return 0;
}

uint64_t hb_volumes_digest(const hb_volumes *v)
{
    uint64_t h = 0xcbf29ce484222325u;
    if (hb_volumes_json(v, digest_write, &h) != 0)
        return 0;
    static const hb_vol_str none = {NULL, 0};
    const hb_vol_str *extra[2] = {&v->request_id, &v->next_token};
    for (int i = 0; i < 2; i++) {
        const hb_vol_str *s = extra[i]->s ? extra[i] : &none;
        digest_write(&h, s->s ? "+" : "-", 1);
        if (s->s)
            digest_write(&h, s->s, s->len);
        digest_write(&h, "\0", 1);
    }
    return h;
}

/* ---- compare --------------------------------------------------------------------------------- */

static int str_eq(const hb_vol_str *a, const hb_vol_str *b)
{
    if (!a->s || !b->s)
        return !a->s && !b->s;
    return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

static int str_diff(char *msg, size_t cap, const char *where, const hb_vol_str *a,
                    const hb_vol_str *b)
{
    if (str_eq(a, b))
        return 0;
    snprintf(msg, cap, "%s: %s%.*s%s%s vs %s%.*s%s%s", where, a->s ? "\"" : "",
             a->s ? (int)(a->len > 60 ? 60 : a->len) : 6, a->s ? a->s : "absent",
             a->s && a->len > 60 ? "..." : "", a->s ? "\"" : "", b->s ? "\"" : "",
             b->s ? (int)(b->len > 60 ? 60 : b->len) : 6, b->s ? b->s : "absent",
             b->s && b->len > 60 ? "..." : "", b->s ? "\"" : "");
    return 1;
}

static int int_diff(char *msg, size_t cap, const char *where, int has_a, int64_t a, int has_b,
                    int64_t b)
{
    if (has_a == has_b && (!has_a || a == b))
        return 0;
    snprintf(msg, cap, "%s: %lld%s vs %lld%s", where, (long long)a, has_a ? "" : " (absent)",
             (long long)b, has_b ? "" : " (absent)");
    return 1;
}

static int time_diff(char *msg, size_t cap, const char *where, const hb_rfc3339_time *a,
                     const hb_rfc3339_time *b)
{
    if (a->seconds == b->seconds && a->nanos == b->nanos)
        return 0;
    snprintf(msg, cap, "%s: %lld.%09d vs %lld.%09d", where, (long long)a->seconds, (int)a->nanos,
             (long long)b->seconds, (int)b->nanos);
    return 1;
}

/* The members of volume i, x against y, before its attachments and tags: 1 after describing the
 * first difference in msg, else 0. */
static int volume_fields_diff(char *msg, size_t cap, size_t i, const hb_volume *x,
                              const hb_volume *y)
{
    char where[96];
#define S(member, label)                                                                           \
    do {                                                                                           \
        snprintf(where, sizeof where, "volume %zu %s", i, label);                                  \
        if (str_diff(msg, cap, where, &x->member, &y->member))                                     \
            return 1;                                                                              \
    } while (0)
#define I(member, bit, label)                                                                      \
    do {                                                                                           \
        snprintf(where, sizeof where, "volume %zu %s", i, label);                                  \
        if (int_diff(msg, cap, where, !!(x->present & bit), (int64_t)x->member,                    \
                     !!(y->present & bit), (int64_t)y->member))                                    \
            return 1;                                                                              \
    } while (0)
    S(volume_id, "volumeId");
    I(size, HB_VOL_HAS_SIZE, "size");
    S(snapshot_id, "snapshotId");
    S(availability_zone, "availabilityZone");
    S(status, "status");
    S(create_time, "createTime");
    snprintf(where, sizeof where, "volume %zu createTime instant", i);
    if (time_diff(msg, cap, where, &x->create_instant, &y->create_instant))
        return 1;
    S(volume_type, "volumeType");
    I(iops, HB_VOL_HAS_IOPS, "iops");
    I(throughput, HB_VOL_HAS_THROUGHPUT, "throughput");
    I(encrypted, HB_VOL_HAS_ENCRYPTED, "encrypted");
    I(multi_attach_enabled, HB_VOL_HAS_MULTI_ATTACH, "multiAttachEnabled");
#undef S
#undef I
    return 0;
}

/* Attachment k of volume i, p against q: 1 after describing the first difference in msg. */
static int attachment_diff(char *msg, size_t cap, size_t i, size_t k, const hb_vol_attachment *p,
                           const hb_vol_attachment *q)
{
    char where[96];
    const hb_vol_str *ps[5] = {&p->volume_id, &p->instance_id, &p->device, &p->status,
                               &p->attach_time};
    const hb_vol_str *qs[5] = {&q->volume_id, &q->instance_id, &q->device, &q->status,
                               &q->attach_time};
    static const char *const names[5] = {"volumeId", "instanceId", "device", "status",
                                         "attachTime"};
    for (int m = 0; m < 5; m++) {
        snprintf(where, sizeof where, "volume %zu attachment %zu %s", i, k, names[m]);
        if (str_diff(msg, cap, where, ps[m], qs[m]))
            return 1;
    }
    snprintf(where, sizeof where, "volume %zu attachment %zu attachTime instant", i, k);
    if (time_diff(msg, cap, where, &p->attach_instant, &q->attach_instant))
        return 1;
    snprintf(where, sizeof where, "volume %zu attachment %zu deleteOnTermination", i, k);
    return int_diff(msg, cap, where, !!(p->present & HB_VOL_HAS_DELETE_ON_TERMINATION),
                    p->delete_on_termination, !!(q->present & HB_VOL_HAS_DELETE_ON_TERMINATION),
                    q->delete_on_termination);
}

/* Volume i, x against y, whole: 1 after describing the first difference in msg, else 0. */
static int volume_diff(char *msg, size_t cap, size_t i, const hb_volume *x, const hb_volume *y)
{
    char where[96];
    if (volume_fields_diff(msg, cap, i, x, y))
        return 1;
    if (x->nattachments != y->nattachments) {
        snprintf(msg, cap, "volume %zu: %zu attachments vs %zu", i, x->nattachments,
                 y->nattachments);
        return 1;
    }
    for (size_t k = 0; k < x->nattachments; k++)
        if (attachment_diff(msg, cap, i, k, x->attachments[k], y->attachments[k]))
            return 1;
    if (x->ntags != y->ntags) {
        snprintf(msg, cap, "volume %zu: %zu tags vs %zu", i, x->ntags, y->ntags);
        return 1;
    }
    for (size_t k = 0; k < x->ntags; k++) {
        snprintf(where, sizeof where, "volume %zu tag %zu key", i, k);
        if (str_diff(msg, cap, where, &x->tags[k]->key, &y->tags[k]->key))
            return 1;
        snprintf(where, sizeof where, "volume %zu tag %zu value", i, k);
        if (str_diff(msg, cap, where, &x->tags[k]->value, &y->tags[k]->value))
            return 1;
    }
    return 0;
}

int hb_volumes_compare(const hb_volumes *a, const hb_volumes *b, char *msg, size_t cap)
{
    if (str_diff(msg, cap, "requestId", &a->request_id, &b->request_id) ||
        str_diff(msg, cap, "nextToken", &a->next_token, &b->next_token))
        return 1;
    if (a->nvolumes != b->nvolumes) {
        snprintf(msg, cap, "%zu volumes vs %zu", a->nvolumes, b->nvolumes);
        return 1;
    }
    for (size_t i = 0; i < a->nvolumes; i++)
        if (volume_diff(msg, cap, i, a->volumes[i], b->volumes[i]))
            return 1;
    if (cap)
        msg[0] = '\0';
    return 0;
}

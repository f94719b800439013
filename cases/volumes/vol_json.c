/* vol_json.c - the canonical JSON form of decoded volumes (hb_volumes_json): one object per
 * volume, one line each, members in a fixed order and only when present, strings escaped per
 * RFC 8259, written through the caller's write function in 4 KiB pieces. The golden files and
 * the digest (vol_digest.c) are made of it (see hb_volumes.h).
 */
#include "hb_err.h"
#include "hb_volumes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the canonical JSON form ----------------------------------------------------------------- */

typedef struct json_out {
    int (*write)(void *ctx, const char *p, size_t n);
    void *ctx;
    int rc;
    char buf[4096];
    size_t len;
} json_out;

static void j_flush(json_out *j)
{
    if (j->rc == 0 && j->len)
        j->rc = j->write(j->ctx, j->buf, j->len);
    j->len = 0;
}

static void j_put(json_out *j, const char *s, size_t n)
{
    while (n > 0 && j->rc == 0) {
        if (j->len == sizeof j->buf)
            j_flush(j);
        size_t k = sizeof j->buf - j->len;
        if (k > n)
            k = n;
        memcpy(j->buf + j->len, s, k);
        j->len += k;
        s += k;
        n -= k;
    }
}

static void j_puts(json_out *j, const char *s)
{
    j_put(j, s, strlen(s));
}

/* A JSON string per RFC 8259 section 7. */
static void j_string(json_out *j, const hb_vol_str *s)
{
    static const char hex[] = "0123456789abcdef";
    j_put(j, "\"", 1);
    size_t start = 0;
    for (size_t i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        j_put(j, s->s + start, i - start);
        start = i + 1;
        char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
        size_t n = 2;
        switch (c) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            n = 6;
        }
        j_put(j, esc, n);
    }
    j_put(j, s->s + start, s->len - start);
    j_put(j, "\"", 1);
}

/* ", "name": "value" for a present string (first: no leading comma). */
static void j_member_str(json_out *j, int *first, const char *name, const hb_vol_str *s)
{
    if (!s->s)
        return;
    j_puts(j, *first ? "\"" : ", \"");
    *first = 0;
    j_puts(j, name);
    j_puts(j, "\": ");
    j_string(j, s);
}

static void j_member_raw(json_out *j, int *first, const char *name, const char *raw)
{
    j_puts(j, *first ? "\"" : ", \"");
    *first = 0;
    j_puts(j, name);
    j_puts(j, "\": ");
    j_puts(j, raw);
}

static void j_member_int(json_out *j, int *first, const char *name, int64_t v)
{
    char num[24];
    snprintf(num, sizeof num, "%lld", (long long)v);
    j_member_raw(j, first, name, num);
}

static void j_volume(json_out *j, const hb_volume *v)
{
    int first = 1;
    j_puts(j, "{");
    j_member_str(j, &first, "volumeId", &v->volume_id);
    if (v->present & HB_VOL_HAS_SIZE)
        j_member_int(j, &first, "size", v->size);
    j_member_str(j, &first, "snapshotId", &v->snapshot_id);
    j_member_str(j, &first, "availabilityZone", &v->availability_zone);
    j_member_str(j, &first, "status", &v->status);
    j_member_str(j, &first, "createTime", &v->create_time);
    j_member_str(j, &first, "volumeType", &v->volume_type);
    if (v->present & HB_VOL_HAS_IOPS)
        j_member_int(j, &first, "iops", v->iops);
    if (v->present & HB_VOL_HAS_THROUGHPUT)
        j_member_int(j, &first, "throughput", v->throughput);
    if (v->present & HB_VOL_HAS_ENCRYPTED)
        j_member_raw(j, &first, "encrypted", v->encrypted ? "true" : "false");
    if (v->present & HB_VOL_HAS_MULTI_ATTACH)
        j_member_raw(j, &first, "multiAttachEnabled", v->multi_attach_enabled ? "true" : "false");
    j_member_raw(j, &first, "attachments", "[");
    for (size_t i = 0; i < v->nattachments; i++) {
        const hb_vol_attachment *a = v->attachments[i];
        int f2 = 1;
        j_puts(j, i ? ", {" : "{");
        j_member_str(j, &f2, "volumeId", &a->volume_id);
        j_member_str(j, &f2, "instanceId", &a->instance_id);
        j_member_str(j, &f2, "device", &a->device);
        j_member_str(j, &f2, "status", &a->status);
        j_member_str(j, &f2, "attachTime", &a->attach_time);
        if (a->present & HB_VOL_HAS_DELETE_ON_TERMINATION)
            j_member_raw(j, &f2, "deleteOnTermination",
                         a->delete_on_termination ? "true" : "false");
        j_puts(j, "}");
    }
    j_puts(j, "]");
    j_member_raw(j, &first, "tags", "[");
    for (size_t i = 0; i < v->ntags; i++) {
        int f2 = 1;
        j_puts(j, i ? ", {" : "{");
        j_member_str(j, &f2, "key", &v->tags[i]->key);
        j_member_str(j, &f2, "value", &v->tags[i]->value);
        j_puts(j, "}");
    }
    j_puts(j, "]}");
}

int hb_volumes_json(const hb_volumes *v, int (*write)(void *ctx, const char *p, size_t n),
                    void *ctx)
{
    json_out *j = malloc(sizeof *j);
    if (!j)
        return HB_ENOMEM;
    j->write = write;
    j->ctx = ctx;
    j->rc = 0;
    j->len = 0;
    if (v->nvolumes == 0) {
        j_puts(j, "[]\n");
    } else {
        j_puts(j, "[\n");
        for (size_t i = 0; i < v->nvolumes; i++) {
            j_volume(j, v->volumes[i]);
            j_puts(j, i + 1 < v->nvolumes ? ",\n" : "\n");
        }
        j_puts(j, "]\n");
    }
    j_flush(j);
    int rc = j->rc;
    free(j);
    return rc;
}

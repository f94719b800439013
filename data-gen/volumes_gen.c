/* volumes_gen.c - the EC2 DescribeVolumes XML response generator (see hb_gen_xml.h).
 *
 * A growing output buffer and a few writers (indentation, open and close tags, escaped leaves).
 * Each volume draws from its own PRNG stream keyed by (seed, volume index), so volume i is the same
 * in responses of any length. The value vocabularies below are plain tables; weights are integer
 * thresholds on PRNG bits, so the bytes are the same on every machine. Each draw is a statement of
 * its own or the only draw of an expression: C leaves the order in which a call's arguments (or
 * the operands of + and []) are evaluated unspecified, so two draws there would give other bytes on
 * another compiler or architecture (DESIGN.md, measurement rule 11).
 */
#include "hb_gen_xml.h"
#include "hb_err.h"
#include "hb_prng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- PRNG ------------------------------------------------------------------------------------ */

/* The streams (hb_prng_stream(seed, k), hb_prng.h): k = 0 the response, k = i + 1 volume i. */

/* A value in [0, n), n > 0 (the modulo bias is irrelevant here and the same everywhere). */
static uint32_t vg_below(uint64_t *state, uint32_t n)
{
    return (uint32_t)(hb_splitmix64(state) % n);
}

/* ---- the output buffer ----------------------------------------------------------------------- */

typedef struct vg_out {
    char *buf;
    size_t len, cap;
    int failed; /* an allocation failed: everything after is dropped */
    int compact;
    hb_volumes_info info;
} vg_out;

static void vg_put(vg_out *o, const char *s, size_t n)
{
    if (o->failed)
        return;
    if (o->cap - o->len < n + 1) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap - o->len < n + 1)
            cap *= 2;
        char *nb = realloc(o->buf, cap);
        if (!nb) {
            o->failed = 1;
            return;
        }
        o->buf = nb;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void vg_puts(vg_out *o, const char *s)
{
    vg_put(o, s, strlen(s));
}

static void vg_indent(vg_out *o, int level)
{
    static const char spaces[] = "\n                                                ";
    if (!o->compact)
        vg_put(o, spaces, 1 + 4 * (size_t)level);
}

/* <name> at the level's indentation. */
static void vg_open(vg_out *o, int level, const char *name)
{
    vg_indent(o, level);
    vg_puts(o, "<");
    vg_puts(o, name);
    vg_puts(o, ">");
    o->info.elements++;
}

static void vg_close(vg_out *o, int level, const char *name)
{
    vg_indent(o, level);
    vg_puts(o, "</");
    vg_puts(o, name);
    vg_puts(o, ">");
}

/* <name/> at the level's indentation. */
static void vg_empty(vg_out *o, int level, const char *name)
{
    vg_indent(o, level);
    vg_puts(o, "<");
    vg_puts(o, name);
    vg_puts(o, "/>");
    o->info.elements++;
}

/* <name>text</name>, text escaped (& < > "); an empty text gives <name/>. */
static void vg_leaf(vg_out *o, int level, const char *name, const char *text)
{
    if (!*text) {
        vg_empty(o, level, name);
        return;
    }
    vg_open(o, level, name);
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "&<>\"");
        vg_put(o, p, n);
        p += n;
        switch (*p) {
        case '&':
            vg_puts(o, "&amp;");
            break;
        case '<':
            vg_puts(o, "&lt;");
            break;
        case '>':
            vg_puts(o, "&gt;");
            break;
        case '"':
            vg_puts(o, "&quot;");
            break;
        default:
            continue;
        }
        p++;
    }
    vg_puts(o, "</");
    vg_puts(o, name);
    vg_puts(o, ">");
}

static void vg_leaf_u64(vg_out *o, int level, const char *name, uint64_t v)
{
    char num[24];
    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    vg_leaf(o, level, name, num);
}

/* ---- values ---------------------------------------------------------------------------------- */

/* prefix followed by n lowercase hex digits: "vol-0a1b2c..." */
static void vg_hex_id(uint64_t *rng, const char *prefix, int n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t k = strlen(prefix);
    memcpy(out, prefix, k);
    uint64_t r = 0;
    for (int i = 0; i < n; i++) {
        if (i % 16 == 0)
            r = hb_splitmix64(rng);
        out[k++] = hex[r & 15];
        r >>= 4;
    }
    out[k] = '\0';
}

/* Unix seconds and milliseconds as RFC 3339 "YYYY-MM-DDTHH:MM:SS.mmmZ" (the civil-from-days
 * conversion of the proleptic Gregorian calendar; t >= 0). */
static void vg_time(uint64_t t, unsigned ms, char *out)
{
    uint64_t days = t / 86400, sod = t % 86400;
    /* shift the epoch to 0000-03-01 so leap days end the year */
    uint64_t z = days + 719468;
    uint64_t era = z / 146097;
    uint64_t doe = z - era * 146097;
    uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    uint64_t y = yoe + era * 400;
    uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    uint64_t mp = (5 * doy + 2) / 153;
    unsigned d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
    unsigned m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    if (m <= 2)
        y++;
    snprintf(out, 48, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ", (unsigned)y, m, d,
             (unsigned)(sod / 3600), (unsigned)(sod / 60 % 60), (unsigned)(sod % 60), ms % 1000);
}

static const char *const vg_zones[] = {"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d",
                                       "us-east-1f", "eu-west-1a", "eu-west-1b", "eu-central-1a"};
static const char *const vg_devices[] = {"/dev/xvda", "/dev/sda1", "/dev/sdf",    "/dev/sdg",
                                         "/dev/xvdb", "/dev/xvdf", "/dev/nvme1n1"};
static const uint32_t vg_sizes[] = {8, 8, 20, 30, 50, 100, 100, 200, 500, 1000, 2000, 16384};

/* Tag keys as real accounts use them: the first keys of every volume, then tag-<n>. */
static const char *const vg_keys[] = {
    "Name",
    "Environment",
    "aws:cloudformation:stack-name",
    "aws:cloudformation:logical-id",
    "aws:ec2launchtemplate:id",
    "user:CostCenter",
    "Project",
    "Owner",
    "kubernetes.io/created-for/pvc/name",
    "kubernetes.io/created-for/pvc/namespace",
    "kubernetes.io/cluster/prod-eks",
    "ebs.csi.aws.com/cluster",
    "BackupPolicy",
    "Compliance",
    "DataClassification",
    "Application",
    "ManagedBy",
    "MaintenanceWindow",
    "Team",
    "CreatedBy",
};

/* Plain tag values; {n} is replaced by a number drawn per value. */
static const char *const vg_plain[] = {
    "production",
    "staging-eu-west-1-blue",
    "platform-engineering-storage",
    "cc-{n}-infrastructure-shared",
    "billing-service-ledger-primary",
    "jane.doe@example.com",
    "web-frontend-{n}-root-volume",
    "prod-data-stack-{n}-DataVolume-1X2Y3Z4W5V6U",
    "terraform-aws-modules/ebs-volume",
    "daily-35d-retention-cross-region",
    "pci-dss-level-1",
    "confidential-customer-data",
    "orders-api-postgres-replica-{n}",
    "v{n}.4.2-release-candidate",
    "finance-and-accounting",
    "owned",
    "gold-tier-99.99",
    "sun:03:00-sun:05:00",
    "eu-west-1",
    "arn:aws:iam::123456789012:role/provisioner-{n}",
    "Managed by Terraform: see https://git.example.com/infra/live/{n}",
    "prod-eks-nodegroup-general-purpose-{n}",
    "s3://backups-example-com/ebs-snapshots/daily/{n}",
    "customer-facing checkout database volume {n}",
    "2023-11-24T00:00:00Z/P35D",
    "team-storage-oncall@example.com",
    "arn:aws:cloudformation:us-east-1:123456789012:stack/prod-data-{n}/6c9e4d10",
    "lt-0a1b2c3d4e5f{n}",
    "pvc-5f3e1a2b-7c8d-4e9f-a0b1-c2d3e4f5{n}",
    "kube-system/ebs-csi-controller-{n}",
};

/* Values that must be escaped in XML (written escaped by vg_leaf). */
static const char *const vg_escaped[] = {
    "R&D <platform>", "a < b && c > d",    "Tom & Jerry's \"cartoon\" disk",
    "<none>",         "AT&T backbone {n}",
};

/* Non-ASCII UTF-8 values: 2-, 3- and 4-byte sequences. */
static const char *const vg_utf8[] = {
    "Z\xc3\xbcrich data {n}",                    /* Zürich */
    "caf\xc3\xa9-m\xc3\xbcnchen",                /* café-münchen */
    "\xe6\x9d\xb1\xe4\xba\xac-prod-{n}",         /* 東京-prod */
    "\xf0\x9f\x9a\x80 launch {n}",               /* rocket emoji */
    "na\xc3\xafve \xe2\x9c\x93 \xe2\x82\xac{n}", /* naïve ✓ € */
};

#define VG_N(a) (sizeof(a) / sizeof((a)[0]))

/* Expands template t into out (cap bytes), replacing {n} with a number from rng. */
static void vg_expand(uint64_t *rng, const char *t, char *out, size_t cap)
{
    const char *brace = strstr(t, "{n}");
    if (!brace) {
        snprintf(out, cap, "%s", t);
        return;
    }
    snprintf(out, cap, "%.*s%u%s", (int)(brace - t), t, vg_below(rng, 10000), brace + 3);
}

/* The tagSet of one volume at level 3: `tags` key/value items, drawn from its stream *rng. */
static void vg_tags(vg_out *o, uint64_t *rng, uint32_t tags)
{
    char value[128];
    vg_open(o, 3, "tagSet");
    for (uint32_t t = 0; t < tags; t++) {
        char key[48];
        if (t < VG_N(vg_keys))
            snprintf(key, sizeof key, "%s", vg_keys[t]);
        else
            snprintf(key, sizeof key, "tag-%u", t);
        uint32_t r = vg_below(rng, 40);
        if (r < 5) {
            vg_expand(rng, vg_escaped[r], value, sizeof value);
            o->info.escaped++;
        } else if (r < 9) {
            uint32_t k = vg_below(rng, VG_N(vg_utf8)); /* then vg_expand's {n} */
            vg_expand(rng, vg_utf8[k], value, sizeof value);
            o->info.non_ascii++;
        } else {
            uint32_t k = vg_below(rng, VG_N(vg_plain)); /* then vg_expand's {n} */
            vg_expand(rng, vg_plain[k], value, sizeof value);
        }
        vg_open(o, 4, "item");
        vg_leaf(o, 5, "key", key);
        vg_leaf(o, 5, "value", value);
        vg_close(o, 4, "item");
    }
    vg_close(o, 3, "tagSet");
    o->info.tags += tags;
}

/* One volume at level 2 (an item of volumeSet). */
static void vg_volume(vg_out *o, const hb_volumes_params *p, uint64_t index)
{
    uint64_t rng = hb_prng_stream(p->seed, index + 1);
    char vol_id[32], snap[32], inst[32], ctime[48], atime[48];
    vg_hex_id(&rng, "vol-", 17, vol_id);
    uint32_t size = vg_sizes[vg_below(&rng, VG_N(vg_sizes))];
    if (vg_below(&rng, 10) < 6)
        vg_hex_id(&rng, "snap-", 17, snap);
    else
        snap[0] = '\0';
    const char *zone = vg_zones[vg_below(&rng, VG_N(vg_zones))];
    int in_use = vg_below(&rng, 10) < 7;
    /* created between 2019-01-01 and 2023-12-31 */
    uint64_t created = 1546300800u + vg_below(&rng, 5u * 365u * 86400u);
    vg_time(created, vg_below(&rng, 1000), ctime);
    uint32_t kind = vg_below(&rng, 16);
    const char *vtype = kind < 8     ? "gp3"
                        : kind < 12  ? "gp2"
                        : kind == 12 ? "io1"
                        : kind == 13 ? "io2"
                        : kind == 14 ? "st1"
                                     : "sc1";
    if (kind == 15 && vg_below(&rng, 2))
        vtype = "standard";

    vg_open(o, 2, "item");
    vg_leaf(o, 3, "volumeId", vol_id);
    vg_leaf_u64(o, 3, "size", size);
    vg_leaf(o, 3, "snapshotId", snap);
    vg_leaf(o, 3, "availabilityZone", zone);
    vg_leaf(o, 3, "status", in_use ? "in-use" : "available");
    vg_leaf(o, 3, "createTime", ctime);
    if (in_use) {
        vg_hex_id(&rng, "i-", 17, inst);
        /* the milliseconds are drawn before the seconds: the order the committed bytes were
         * made in (gcc on x86-64 evaluated the two arguments of one call right to left) */
        uint32_t attach_ms = vg_below(&rng, 1000);
        uint64_t attached = created + 5 + vg_below(&rng, 86400);
        vg_time(attached, attach_ms, atime);
        vg_open(o, 3, "attachmentSet");
        vg_open(o, 4, "item");
        vg_leaf(o, 5, "volumeId", vol_id);
        vg_leaf(o, 5, "instanceId", inst);
        vg_leaf(o, 5, "device", vg_devices[vg_below(&rng, VG_N(vg_devices))]);
        vg_leaf(o, 5, "status", "attached");
        vg_leaf(o, 5, "attachTime", atime);
        vg_leaf(o, 5, "deleteOnTermination", vg_below(&rng, 2) ? "true" : "false");
        vg_close(o, 4, "item");
        vg_close(o, 3, "attachmentSet");
        o->info.attachments++;
    } else {
        vg_empty(o, 3, "attachmentSet");
    }
    vg_leaf(o, 3, "volumeType", vtype);
    if (!strcmp(vtype, "gp3"))
        vg_leaf_u64(o, 3, "iops", 3000 + 1000 * vg_below(&rng, 14));
    else if (!strcmp(vtype, "gp2"))
        vg_leaf_u64(o, 3, "iops", size * 3 < 100 ? 100 : size * 3 > 16000 ? 16000 : size * 3);
    else if (!strcmp(vtype, "io1") || !strcmp(vtype, "io2"))
        vg_leaf_u64(o, 3, "iops", 100 + 100 * vg_below(&rng, 640));
    if (!strcmp(vtype, "gp3"))
        vg_leaf_u64(o, 3, "throughput", 125 + 25 * vg_below(&rng, 36));
    vg_leaf(o, 3, "encrypted", vg_below(&rng, 3) ? "true" : "false");
    vg_leaf(o, 3, "multiAttachEnabled",
            !strcmp(vtype, "io2") && vg_below(&rng, 2) ? "true" : "false");
    if (p->tags > 0)
        vg_tags(o, &rng, p->tags);
    vg_close(o, 2, "item");
    o->info.volumes++;
}

/* ---- the response ---------------------------------------------------------------------------- */

void hb_volumes_params_default(hb_volumes_params *p)
{
    memset(p, 0, sizeof *p);
    p->volumes = HB_VOLUMES_DEFAULT_VOLUMES;
    p->tags = HB_VOLUMES_DEFAULT_TAGS;
    p->seed = HB_VOLUMES_DEFAULT_SEED;
}

int hb_volumes_params_check(const hb_volumes_params *p, const char **why)
{
    const char *w = NULL;
    if (!p)
        w = "no parameters";
    else if (p->volumes > HB_VOLUMES_MAX_VOLUMES)
        w = "volumes must be at most 1000000";
    else if (p->tags > HB_VOLUMES_MAX_TAGS)
        w = "tags must be at most 10000";
    if (why)
        *why = w;
    return w ? HB_EINVAL : HB_OK;
}

int hb_volumes_generate(const hb_volumes_params *p, uint8_t **out, size_t *len,
                        hb_volumes_info *info)
{
    if (!out || !len || hb_volumes_params_check(p, NULL) != HB_OK)
        return HB_EINVAL;
    *out = NULL;
    *len = 0;
    vg_out o;
    memset(&o, 0, sizeof o);
    o.compact = p->compact;
    /* reserve about what the response needs: ~750 bytes per volume, ~190 per tag */
    size_t guess = 1024 + (size_t)p->volumes * (800 + (size_t)p->tags * 200);
    o.buf = malloc(guess);
    if (!o.buf)
        return HB_ENOMEM;
    o.cap = guess;

    uint64_t rng = hb_prng_stream(p->seed, 0);
    char req[40];
    uint64_t a = hb_splitmix64(&rng), b = hb_splitmix64(&rng);
    snprintf(req, sizeof req, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff, 0x8000 | ((unsigned)b & 0x3fff),
             (unsigned long long)(b >> 16) & 0xffffffffffffull);

    vg_puts(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    vg_puts(&o, "<DescribeVolumesResponse xmlns=\"http://ec2.amazonaws.com/doc/2016-11-15/\">");
    o.info.elements++;
    vg_leaf(&o, 1, "requestId", req);
    if (p->volumes == 0) {
        vg_empty(&o, 1, "volumeSet");
    } else {
        vg_open(&o, 1, "volumeSet");
        for (uint32_t i = 0; i < p->volumes; i++)
            vg_volume(&o, p, i);
        vg_close(&o, 1, "volumeSet");
    }
    if (p->next_token) {
        char tok[64];
        vg_hex_id(&rng, "eyJ2IjoiMiIsImMiOi", 40, tok);
        vg_leaf(&o, 1, "nextToken", tok);
    }
    vg_close(&o, 0, "DescribeVolumesResponse");
    vg_puts(&o, "\n");
    if (o.failed) {
        free(o.buf);
        return HB_ENOMEM;
    }
    o.info.bytes = o.len;
    *out = (uint8_t *)o.buf;
    *len = o.len;
    if (info)
        *info = o.info;
    return HB_OK;
}

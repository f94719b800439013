/* timestamps_gen.c - the timestamp row sets of the RFC 3339 case (see hb_gen_ts.h).
 *
 * Every value is drawn from a splitmix64 stream keyed by (seed, value index), so any value can be
 * made on its own (random access: the case builds sets of any size and shape without state) and
 * the first rows never depend on how many follow.
 */
#include "hb_gen_ts.h"
#include "hb_err.h"
#include "hb_io.h"
#include "hb_prng.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define TS_MIN INT64_C(-62135596800) /* 0001-01-01T00:00:00Z */
#define TS_MAX INT64_C(253402300799) /* 9999-12-31T23:59:59Z */
#define TS_2100 INT64_C(4102444800)  /* 2100-01-01T00:00:00Z */
#define TS_WRITE_BUF (1u << 20)

/* ---- parameters ------------------------------------------------------------------------------ */

void hb_ts_params_default(hb_ts_params *p)
{
    memset(p, 0, sizeof *p);
    p->rows = HB_TS_DEFAULT_ROWS;
    p->columns = 1;
    p->encoding = HB_TS_RFC3339;
    p->fraction = HB_TS_FRACTION_MIXED;
    p->offsets = HB_TS_OFFSETS_MIXED;
    p->seed = HB_GEN_DEFAULT_SEED;
}

int hb_ts_params_check(const hb_ts_params *p, const char **why)
{
    const char *w = NULL;
    if (!p)
        w = "no parameters";
    else if (p->rows > HB_TS_MAX_ROWS)
        w = "rows must be at most 100000000";
    else if (p->columns < 1 || p->columns > HB_TS_MAX_COLUMNS)
        w = "columns must be 1 to 64";
    else if (p->encoding != HB_TS_RFC3339 && p->encoding != HB_TS_MILLIS &&
             p->encoding != HB_TS_BOTH)
        w = "encoding must be rfc3339, millis or both";
    else if (p->fraction != HB_TS_FRACTION_MIXED && p->fraction != 0 && p->fraction != 1 &&
             p->fraction != 3 && p->fraction != 6 && p->fraction != 9)
        w = "fraction digits must be 0, 1, 3, 6, 9 or mixed";
    else if (p->offsets != HB_TS_OFFSETS_MIXED && p->offsets != HB_TS_OFFSETS_Z &&
             p->offsets != HB_TS_OFFSETS_NUMERIC)
        w = "offsets must be mixed, z or numeric";
    if (why)
        *why = w;
    return w ? HB_EINVAL : HB_OK;
}

/* ---- values ---------------------------------------------------------------------------------- */

/* Instants at the edges: the range limits, the epoch, the 2^31 and 2^32 second boundaries. */
static const int64_t ts_edges[] = {
    TS_MIN,     TS_MIN + 1, TS_MAX,      TS_MAX - 1,  0,          -1,         1,
    2147483647, 2147483648, -2147483648, -2147483649, 4294967295, 4294967296, -4294967296,
};

/* Offsets seen in real data, in minutes east; neg_zero writes "-00:00". */
static const struct {
    int16_t minutes;
    uint8_t neg_zero;
} ts_offsets[] = {
    {60, 0},   {120, 0},   {330, 0},  {345, 0},  {480, 0},  {540, 0},  {600, 0},
    {-300, 0}, {-240, 0},  {-420, 0}, {-480, 0}, {-210, 0}, {0, 0},    {0, 1},
    {1439, 0}, {-1439, 0}, {840, 0},  {-720, 0}, {765, 0},  {-570, 0},
};

#define TS_N_EDGES (sizeof ts_edges / sizeof ts_edges[0])
#define TS_N_OFFSETS (sizeof ts_offsets / sizeof ts_offsets[0])

void hb_ts_value_at(const hb_ts_params *p, uint64_t j, hb_ts_value *v)
{
    uint64_t st = hb_prng_key(p->seed, j);
    uint64_t r_kind = hb_splitmix64(&st), r_sec = hb_splitmix64(&st), r_frac = hb_splitmix64(&st);
    uint64_t r_off = hb_splitmix64(&st);

    memset(v, 0, sizeof *v);
    uint64_t kind = r_kind % 1000;
    if (kind < 850)
        v->seconds = (int64_t)(r_sec % (uint64_t)TS_2100);
    else if (kind < 990)
        v->seconds = TS_MIN + (int64_t)(r_sec % (uint64_t)(-TS_MIN));
    else
        v->seconds = ts_edges[r_sec % TS_N_EDGES];

    int digits = p->fraction >= 0 ? p->fraction : (int)(r_frac % 4) * 3;
    uint64_t r = r_frac >> 2;
    switch (digits) {
    case 1: /* tenths, never 0: a writer that trims every trailing zero (Go's RFC3339Nano) */
        v->nanos = (int32_t)(1 + r % 9) * 100000000;
        break;
    case 3: /* the group of three is never all zeros: Spanner would trim it */
        v->nanos = (int32_t)(1 + r % 999) * 1000000;
        break;
    case 6: {
        int32_t us = (int32_t)(r % 1000000);
        if (us % 1000 == 0)
            us += 1;
        v->nanos = us * 1000;
        break;
    }
    case 9: {
        int32_t ns = (int32_t)(r % 1000000000);
        if (ns % 1000 == 0)
            ns += 1;
        v->nanos = ns;
        break;
    }
    default:
        v->nanos = 0;
        break;
    }
    v->frac_digits = (uint8_t)digits;

    int numeric = p->offsets == HB_TS_OFFSETS_NUMERIC ||
                  (p->offsets == HB_TS_OFFSETS_MIXED && r_off % 10 == 0);
    v->zulu = 1;
    if (numeric) {
        size_t k = (size_t)((r_off >> 8) % TS_N_OFFSETS);
        int64_t local = v->seconds + (int64_t)ts_offsets[k].minutes * 60;
        if (local >= TS_MIN && local <= TS_MAX) { /* the local year stays 0001-9999 */
            v->zulu = 0;
            v->offset_min = ts_offsets[k].minutes;
            v->neg_zero = ts_offsets[k].neg_zero;
        }
    }
}

/* ---- formatting -------------------------------------------------------------------------------
 */

void hb_ts_civil_from_days(int64_t days, int32_t *year, uint32_t *month, uint32_t *day)
{
    /* Count from 0000-03-01 minus 400 years so everything is non-negative; split into 400-year
     * cycles of 146097 days, then years of the cycle (a leap day every 4 years except every 100
     * except every 400: subtract the leap days before dividing by 365), then months of 153 days
     * per 5 from March. */
    uint64_t z = (uint64_t)(days + 719468 + 146097);
    uint64_t cycle = z / 146097, doc = z % 146097;
    uint64_t yoc = (doc - doc / 1460 + doc / 36524 - doc / 146096) / 365;
    uint64_t doy = doc - (365 * yoc + yoc / 4 - yoc / 100);
    uint64_t mp = (5 * doy + 2) / 153;
    uint32_t d = (uint32_t)(doy - (153 * mp + 2) / 5 + 1);
    uint32_t m = (uint32_t)(mp < 10 ? mp + 3 : mp - 9);
    int64_t y = (int64_t)(yoc + cycle * 400) + (m <= 2) - 400;
    *year = (int32_t)y;
    *month = m;
    *day = d;
}

static char *ts_put2(char *o, uint32_t v)
{
    o[0] = (char)('0' + v / 10);
    o[1] = (char)('0' + v % 10);
    return o + 2;
}

size_t hb_ts_format_rfc3339(const hb_ts_value *v, char *out)
{
    int64_t local = v->seconds + (v->zulu ? 0 : (int64_t)v->offset_min * 60);
    int64_t days = local >= 0 ? local / 86400 : -((-local + 86399) / 86400);
    uint32_t sod = (uint32_t)(local - days * 86400);
    int32_t y;
    uint32_t m, d;
    hb_ts_civil_from_days(days, &y, &m, &d);
    char *o = out;
    o = ts_put2(o, (uint32_t)y / 100);
    o = ts_put2(o, (uint32_t)y % 100);
    *o++ = '-';
    o = ts_put2(o, m);
    *o++ = '-';
    o = ts_put2(o, d);
    *o++ = 'T';
    o = ts_put2(o, sod / 3600);
    *o++ = ':';
    o = ts_put2(o, sod / 60 % 60);
    *o++ = ':';
    o = ts_put2(o, sod % 60);
    if (v->frac_digits) {
        *o++ = '.';
        uint32_t n = (uint32_t)v->nanos;
        for (int k = 8; k >= 0; k--) {
            if (k < v->frac_digits)
                o[k] = (char)('0' + n % 10);
            n /= 10;
        }
        /* the loop wrote digits 0 .. frac_digits-1 of the 9 (most significant first) */
        o += v->frac_digits;
    }
    if (v->zulu) {
        *o++ = 'Z';
    } else {
        int32_t off = v->offset_min;
        *o++ = off < 0 || v->neg_zero ? '-' : '+';
        uint32_t a = (uint32_t)(off < 0 ? -off : off);
        o = ts_put2(o, a / 60);
        *o++ = ':';
        o = ts_put2(o, a % 60);
    }
    return (size_t)(o - out);
}

size_t hb_ts_format_millis(const hb_ts_value *v, char *out)
{
    int64_t ms = v->seconds * 1000 + v->nanos / 1000000;
    char tmp[24];
    size_t n = 0;
    uint64_t a = ms < 0 ? (uint64_t)(-ms) : (uint64_t)ms;
    do {
        tmp[n++] = (char)('0' + a % 10);
        a /= 10;
    } while (a);
    size_t len = 0;
    if (ms < 0)
        out[len++] = '-';
    while (n)
        out[len++] = tmp[--n];
    return len;
}

size_t hb_ts_row_max(const hb_ts_params *p)
{
    size_t per = 0;
    if (p->encoding & HB_TS_RFC3339)
        per += HB_TS_TEXT_MAX + 1;
    if (p->encoding & HB_TS_MILLIS)
        per += HB_TS_MILLIS_MAX + 1;
    return per * p->columns;
}

size_t hb_ts_format_row(const hb_ts_params *p, uint64_t r, char *out)
{
    char *o = out;
    uint64_t j0 = r * p->columns;
    if (p->encoding & HB_TS_RFC3339) {
        for (uint32_t c = 0; c < p->columns; c++) {
            hb_ts_value v;
            hb_ts_value_at(p, j0 + c, &v);
            o += hb_ts_format_rfc3339(&v, o);
            *o++ = '\t';
        }
    }
    if (p->encoding & HB_TS_MILLIS) {
        for (uint32_t c = 0; c < p->columns; c++) {
            hb_ts_value v;
            hb_ts_value_at(p, j0 + c, &v);
            o += hb_ts_format_millis(&v, o);
            *o++ = '\t';
        }
    }
    o[-1] = '\n'; /* the last column's tab */
    return (size_t)(o - out);
}

/* ---- whole sets -------------------------------------------------------------------------------
 */

int hb_ts_write(const hb_ts_params *p, int fd, hb_ts_info *info)
{
    if (hb_ts_params_check(p, NULL) != HB_OK)
        return HB_EINVAL;
    size_t row_max = hb_ts_row_max(p);
    char *buf = malloc(TS_WRITE_BUF + row_max);
    if (!buf)
        return HB_ENOMEM;
    hb_ts_info in = {p->rows, p->rows * p->columns, 0, (uint32_t)crc32(0L, Z_NULL, 0)};
    size_t used = 0;
    int rc = HB_OK;
    for (uint64_t r = 0; r < p->rows && rc == HB_OK; r++) {
        used += hb_ts_format_row(p, r, buf + used);
        if (used >= TS_WRITE_BUF || r + 1 == p->rows) {
            in.crc32 = (uint32_t)crc32(in.crc32, (const Bytef *)buf, (uInt)used);
            in.bytes += used;
            rc = hb_write_all(fd, buf, used) == 0 ? HB_OK : HB_EIO; /* errno kept */
            used = 0;
        }
    }
    int saved = errno;
    free(buf);
    errno = saved;
    if (info)
        *info = in;
    return rc;
}

int hb_ts_build(const hb_ts_params *p, hb_blob *out, hb_ts_info *info)
{
    memset(out, 0, sizeof *out);
    if (hb_ts_params_check(p, NULL) != HB_OK)
        return HB_EINVAL;
    size_t row_max = hb_ts_row_max(p);
    if (p->rows > (SIZE_MAX - HB_TS_PADDING) / row_max)
        return HB_ENOMEM;
    size_t cap = (size_t)p->rows * row_max + HB_TS_PADDING;
    char *buf = malloc(cap);
    if (!buf)
        return HB_ENOMEM;
    size_t used = 0;
    for (uint64_t r = 0; r < p->rows; r++)
        used += hb_ts_format_row(p, r, buf + used);
    memset(buf + used, 0, HB_TS_PADDING);
    char *shrunk = realloc(buf, used + HB_TS_PADDING);
    if (shrunk)
        buf = shrunk;
    out->data = (const uint8_t *)buf;
    out->len = used;
    out->base_ = buf;
    if (info) {
        info->rows = p->rows;
        info->values = p->rows * p->columns;
        info->bytes = used;
        info->crc32 = (uint32_t)crc32_z(crc32(0L, Z_NULL, 0), (const Bytef *)buf, used);
    }
    return HB_OK;
}

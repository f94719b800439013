/* hb_size.c - byte counts from the command line (see hb_size.h). */
#include "hb_size.h"

int hb_size_parse(const char *s, uint64_t *out, const char **why)
{
    const char *p = s;
    uint64_t ip = 0;
    if (*p < '0' || *p > '9') {
        *why = "expected a number such as 4096, 64K or 1.7G";
        return -1;
    }
    while (*p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p++ - '0');
        if (ip > (UINT64_MAX - d) / 10) {
            *why = "number too large";
            return -1;
        }
        ip = ip * 10 + d;
    }
    uint64_t frac = 0, scale = 1; /* the fraction is frac / scale */
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9') {
            *why = "expected digits after the decimal point";
            return -1;
        }
        while (*p >= '0' && *p <= '9') {
            if (scale >= 1000000000u) {
                *why = "too many digits after the decimal point";
                return -1;
            }
            frac = frac * 10 + (uint64_t)(*p++ - '0');
            scale *= 10;
        }
    }
    uint64_t mult = 1;
    switch (*p) {
    case 'k':
    case 'K':
        mult = 1000u;
        p++;
        break;
    case 'm':
    case 'M':
        mult = 1000000u;
        p++;
        break;
    case 'g':
    case 'G':
        mult = 1000000000u;
        p++;
        break;
    default:
        break;
    }
    if (*p != '\0') {
        *why = "unexpected characters (suffixes: K, M, G = 10^3, 10^6, 10^9)";
        return -1;
    }
    /* frac < scale <= 10^9 and mult <= 10^9: the product fits */
    if (frac * mult % scale != 0) {
        *why = "not a whole number of bytes";
        return -1;
    }
    uint64_t fpart = frac * mult / scale;
    if (ip > (UINT64_MAX - fpart) / mult) {
        *why = "number too large";
        return -1;
    }
    *out = ip * mult + fpart;
    return 0;
}

int hb_size_parse_range(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, const char **why)
{
    uint64_t n = 0;
    if (hb_size_parse(s, &n, why) != 0)
        return -1;
    if (n < lo || n > hi) {
        *why = n < lo ? "too small" : "too large";
        return -1;
    }
    *out = n;
    return 0;
}

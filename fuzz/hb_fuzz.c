/* hb_fuzz.c - the fuzz targets' shared helpers (hb_fuzz.h). */
#include "hb_fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HB_FUZZ_TARGET /* the target's name, defined by fuzz/CMakeLists.txt */
#define HB_FUZZ_TARGET "?"
#endif

/* What hb_fuzz_fail prints; set once per input, read only on failure. A test harness's state,
 * not a library's: one process fuzzes one target on one thread. */
static const char *hb_fuzz_file;
static const uint8_t *hb_fuzz_data;
static size_t hb_fuzz_size;

/* malloc(n), also for n = 0 (glibc and ASan give a block of no usable bytes; a NULL from
 * another libc is replaced by a 1-byte block); aborts when memory is exhausted. */
static uint8_t *hb_fuzz_block(size_t n)
{
    uint8_t *q = malloc(n);
    if (!q && n == 0)
        q = malloc(1);
    if (!q) {
        fputs("hotbench fuzz: out of memory\n", stderr);
        abort();
    }
    return q;
}

uint8_t *hb_fuzz_copy(const void *p, size_t n)
{
    uint8_t *q = hb_fuzz_block(n);
    if (n)
        memcpy(q, p, n);
    return q;
}

uint8_t *hb_fuzz_alloc(size_t n)
{
    uint8_t *q = hb_fuzz_block(n);
    if (n)
        memset(q, 0xA5, n);
    return q;
}

void hb_fuzz_rng_seed(hb_fuzz_rng *r, const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a 64 */
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    r->s = h;
}

uint64_t hb_fuzz_next(hb_fuzz_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint64_t hb_fuzz_range(hb_fuzz_rng *r, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo + 1;
    if (span == 0) /* the whole 64-bit range */
        return hb_fuzz_next(r);
    return lo + (uint64_t)(((unsigned __int128)hb_fuzz_next(r) * span) >> 64);
}

void hb_fuzz_set_file(const char *file)
{
    hb_fuzz_file = file;
}

void hb_fuzz_set_input(const uint8_t *data, size_t size)
{
    hb_fuzz_data = data;
    hb_fuzz_size = size;
}

void hb_fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "hotbench fuzz %s: ", HB_FUZZ_TARGET);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (hb_fuzz_file)
        fprintf(stderr, "  input file: %s\n", hb_fuzz_file);
    fprintf(stderr, "  input (%zu bytes): \"", hb_fuzz_size);
    for (size_t i = 0; i < hb_fuzz_size && i < 200; i++) {
        unsigned c = hb_fuzz_data[i];
        if (c == '\\' || c == '"')
            fprintf(stderr, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            fputc((int)c, stderr);
        else
            fprintf(stderr, "\\x%02x", c);
    }
    fprintf(stderr, "\"%s\n", hb_fuzz_size > 200 ? " ..." : "");
    abort();
}

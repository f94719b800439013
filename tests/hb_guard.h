/* hb_guard.h - for the unit tests: a buffer whose last byte touches a PROT_NONE page, so a decoder
 * that reads one byte past a document placed at its end faults (an overread check that needs no
 * sanitizer). Include after <cmocka.h>; one guard per test program, mapped once and never freed.
 */
#ifndef HB_GUARD_H
#define HB_GUARD_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint8_t *hb_guard_end; /* the first byte of the PROT_NONE page */
static size_t hb_guard_cap;   /* bytes usable before it */

/* Maps cap bytes followed by one PROT_NONE page; fails the test when mmap or mprotect does. */
static inline void hb_guard_init(size_t cap)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *base =
        mmap(NULL, cap + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(base != MAP_FAILED);
    assert_int_equal(mprotect(base + cap, page, PROT_NONE), 0);
    hb_guard_end = base + cap;
    hb_guard_cap = cap;
}

/* A copy of doc[0, len) whose last byte is the byte before the guard page (len <= the cap);
 * valid until the next call. */
static inline const uint8_t *hb_guard_place(const void *doc, size_t len)
{
    assert_true(hb_guard_end != NULL && len <= hb_guard_cap);
    uint8_t *dst = hb_guard_end - len;
    if (len)
        memcpy(dst, doc, len);
    return dst;
}

#endif

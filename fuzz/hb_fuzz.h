/* hb_fuzz.h - what the fuzz targets (fuzz/fuzz_*.c) share: exact-size heap copies, a PRNG seeded
 * by the input, failure reports.
 *
 * Each target defines LLVMFuzzerTestOneInput (the libFuzzer entry point) and nothing else that is
 * exported. The same target source is linked either with libFuzzer (clang -fsanitize=fuzzer, the
 * `make fuzz` build) or with fuzz/replay.c, a plain main() that feeds it every file of the
 * committed corpora (the `make test` build, gcc or clang, with and without ASan + UBSan).
 *
 * A disagreement between strategies, or a broken contract, is reported by hb_fuzz_fail: one line
 * on stderr naming the target and the difference, the input's first bytes escaped, then abort().
 * libFuzzer saves the input as a crash file; the replay driver's ctest run fails.
 */
#ifndef HB_FUZZ_H
#define HB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The libFuzzer entry point every target defines: returns 0; aborts on a finding. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A heap block of exactly n bytes holding a copy of p[0 .. n) (p may be NULL when n is 0), so
 * that AddressSanitizer reports a read of one byte past the end. The caller frees it with free().
 * Never NULL: aborts when memory is exhausted (a fuzz harness, not a library). */
uint8_t *hb_fuzz_copy(const void *p, size_t n);

/* A heap block of exactly n bytes (n may be 0), filled with 0xA5 so that a strategy that reports
 * bytes it never wrote is caught by the comparison. Freed with free(). Never NULL. */
uint8_t *hb_fuzz_alloc(size_t n);

/* splitmix64 (Steele, Lea, Flood 2014), seeded by the FNV-1a 64 hash of the input: the split
 * points and windows a target draws are a function of the input alone, so a crash file replays
 * exactly. */
typedef struct hb_fuzz_rng {
    uint64_t s;
} hb_fuzz_rng;

/* Seeds *r from the n bytes at p. */
void hb_fuzz_rng_seed(hb_fuzz_rng *r, const uint8_t *p, size_t n);

/* The next value, uniform in [0, 2^64). */
uint64_t hb_fuzz_next(hb_fuzz_rng *r);

/* A value uniform in [lo, hi] (lo <= hi), by rejection-free multiply-shift (bias below 2^-32 for
 * the small ranges the targets use). */
uint64_t hb_fuzz_range(hb_fuzz_rng *r, uint64_t lo, uint64_t hi);

/* The replay driver's current file, printed by hb_fuzz_fail (NULL: none). The string must
 * outlive the run. The target's name is compiled in (HB_FUZZ_TARGET). */
void hb_fuzz_set_file(const char *file);

/* Remembers the current input (for hb_fuzz_fail's excerpt); the targets call it first. */
void hb_fuzz_set_input(const uint8_t *data, size_t size);

/* Reports a finding: "hotbench fuzz <target>: <message>", the file (replay) and the first 200
 * bytes of the input escaped as C, on stderr; then abort(). printf-style. */
__attribute__((noreturn, format(printf, 1, 2))) void hb_fuzz_fail(const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif /* HB_FUZZ_H */

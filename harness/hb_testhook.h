/* hb_testhook.h - TEST-ONLY regression injections for the CI gate's self-test.
 *
 * tests/test_gate.sh proves that scripts/compare.py catches regressions by switching on a known one
 * and checking that the gate fails, naming the benchmark and the check. The injections exist only
 * in a build configured with -DHB_TEST_HOOKS=ON (make test's build-test does; build/, build-ci/ and
 * the ASan build do not): everywhere else HB_INJECTED(name) is the constant 0, the hooks sit in
 * `#ifdef HB_TEST_HOOKS` blocks and the code compiled is the code without them.
 *
 * In a hooks build, the environment variable HB_INJECT (a comma-separated list) switches them on:
 *   growth     bufgrow "doubling" grows by a factor of 1.25 instead of 2 (cases/bufgrow/bufgrow.c)
 *   parser     rfc3339 "swar" parses every fifth timestamp twice: 20% extra work
 *              (cases/rfc3339/rfc3339.c)
 *   quadratic  bufgrow "growth-1.5" grows to exactly the bytes needed, so every append copies
 *              the whole array: a linear strategy made O(n^2) (cases/bufgrow/bufgrow.c)
 *   slowdown:<fraction>
 *              every benchmark whose family name (the name given to hb_register, e.g.
 *              "bufgrow/doubling") matches the POSIX extended regex of $HB_INJECT_SELECT runs
 *              <fraction> slower: hb_state_keep_running (harness/hb_shim.cc) estimates the CPU
 *              time of the timed work and burns fraction x that time in a busy loop at the end of
 *              the timed loop, timed (paused timing and the untimed verification excluded); the
 *              rows carry the counters hb_injected_fraction and hb_injected_paid. For
 *              `make gate-power`: a slowdown of known size.
 *              fraction: a decimal number in (0, 10]; HB_INJECT_SELECT is then required. A bad
 *              fraction, a missing or invalid regex: hotbench says so naming the variable and
 *              exits 2 when the first benchmark registers.
 *
 * A build-time default, for a bisect test in a throwaway copy of the tree: if a header
 * harness/hb_testhook_builtin.h exists (it never does in the project; a test writes it), it is
 * included and its string macros HB_INJECT_BUILTIN and HB_INJECT_SELECT_BUILTIN stand for
 * $HB_INJECT and $HB_INJECT_SELECT when those are unset (an environment variable, even empty,
 * wins over its macro). E.g.:
 *   #define HB_INJECT_BUILTIN "slowdown:0.1"
 *   #define HB_INJECT_SELECT_BUILTIN "^bufgrow/doubling$"
 */
#ifndef HB_TESTHOOK_H
#define HB_TESTHOOK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef HB_TEST_HOOKS
/* Nonzero when name is one of the comma-separated words of $HB_INJECT (read once, on the first
 * call; later changes of the environment are not seen). A word "slowdown:<fraction>" counts as
 * "slowdown" (the name before the colon), valid or not. */
int hb_test_injected(const char *name);
#define HB_INJECTED(name) hb_test_injected(name)

/* The slowdown for benchmark family `family` (a NUL-terminated name as given to hb_register;
 * borrowed for the call). Returns 0 (HB_OK) and sets *fraction to the fraction of the
 * "slowdown:<fraction>" word of $HB_INJECT when $HB_INJECT_SELECT matches family, else to 0
 * (no slowdown word, or not selected). Returns HB_EINVAL (-2) when $HB_INJECT's slowdown word
 * or $HB_INJECT_SELECT is invalid, with a one-line message naming the variable written to msg
 * (cap bytes, NUL-terminated, truncated to fit; msg may be NULL when cap is 0); *fraction is
 * then 0. The environment is read once, on the first call of this or hb_test_injected. */
int hb_test_slowdown(const char *family, double *fraction, char *msg, size_t cap);
#else
#define HB_INJECTED(name) 0
#endif

#ifdef __cplusplus
}
#endif

#endif /* HB_TESTHOOK_H */

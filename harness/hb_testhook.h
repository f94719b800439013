/* hb_testhook.h - TEST-ONLY regression injections for the CI gate's self-test.
 *
 * tests/test_gate.sh proves that scripts/gate.py catches regressions by switching on a known one
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
 */
#ifndef HB_TESTHOOK_H
#define HB_TESTHOOK_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef HB_TEST_HOOKS
/* Nonzero when name is one of the comma-separated words of $HB_INJECT (read once, on the first
 * call; later changes of the environment are not seen). */
int hb_test_injected(const char *name);
#define HB_INJECTED(name) hb_test_injected(name)
#else
#define HB_INJECTED(name) 0
#endif

#ifdef __cplusplus
}
#endif

#endif /* HB_TESTHOOK_H */

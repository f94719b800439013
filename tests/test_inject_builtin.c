/* test_inject_builtin.c - unit tests of harness/hb_testhook.c (cmocka), compiled with
 * -DHB_TEST_HOOKS and a generated hb_testhook_builtin.h (tests/CMakeLists.txt: HB_INJECT_BUILTIN
 * "growth,slowdown:0.25", HB_INJECT_SELECT_BUILTIN "^bufgrow/(doubling|additive)$"), as a
 * throwaway tree's bisect test builds it: the build-time defaults apply when $HB_INJECT and
 * $HB_INJECT_SELECT are unset; the environment, when set (even empty), wins. hb_testhook.c reads
 * its environment once per process, so each case runs in a child process (fork). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hb_testhook.h"

/* The slowdown of family (asserting success). */
static double slowdown(const char *family)
{
    double f = -1;
    char msg[256];
    assert_int_equal(hb_test_slowdown(family, &f, msg, sizeof msg), 0);
    return f;
}

/* Runs check as a one-test cmocka group in a child whose environment sets HB_INJECT to inject and
 * HB_INJECT_SELECT to select (NULL: unset); asserts that the child passed. */
static void in_child(const char *inject, const char *select, CMUnitTestFunction check)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        unsetenv("HB_INJECT");
        unsetenv("HB_INJECT_SELECT");
        if (inject)
            setenv("HB_INJECT", inject, 1);
        if (select)
            setenv("HB_INJECT_SELECT", select, 1);
        const struct CMUnitTest one[] = {{"child", check, NULL, NULL, NULL}};
        _exit(cmocka_run_group_tests_name("child", one, NULL, NULL) ? 1 : 0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* Both unset: the header's defaults. */
static void builtin_applies(void **state)
{
    (void)state;
    assert_true(hb_test_injected("growth"));
    assert_true(hb_test_injected("slowdown"));
    assert_false(hb_test_injected("parser"));
    assert_true(slowdown("bufgrow/doubling") == 0.25);
    assert_true(slowdown("bufgrow/additive") == 0.25);
    assert_true(slowdown("bufgrow/memcpy") == 0);
    assert_true(slowdown("bufgrow-gzip/doubling") == 0);
}

static void test_builtin(void **state)
{
    (void)state;
    in_child(NULL, NULL, builtin_applies);
}

/* $HB_INJECT and $HB_INJECT_SELECT set: the environment's. */
static void env_wins(void **state)
{
    (void)state;
    assert_false(hb_test_injected("growth"));
    assert_true(hb_test_injected("parser"));
    assert_true(slowdown("rfc3339/swar") == 0.5);
    assert_true(slowdown("bufgrow/doubling") == 0);
}

static void test_env_wins(void **state)
{
    (void)state;
    in_child("parser,slowdown:0.5", "^rfc3339/swar$", env_wins);
}

/* $HB_INJECT set and empty: nothing injected, the defaults notwithstanding. */
static void empty_env_wins(void **state)
{
    (void)state;
    assert_false(hb_test_injected("growth"));
    assert_false(hb_test_injected("slowdown"));
    assert_true(slowdown("bufgrow/doubling") == 0);
}

static void test_empty_env_wins(void **state)
{
    (void)state;
    in_child("", NULL, empty_env_wins);
}

/* $HB_INJECT set, $HB_INJECT_SELECT unset: the default selection applies. */
static void select_default(void **state)
{
    (void)state;
    assert_true(slowdown("bufgrow/additive") == 2);
    assert_true(slowdown("rfc3339/swar") == 0);
}

static void test_select_default(void **state)
{
    (void)state;
    in_child("slowdown:2", NULL, select_default);
}

/* A bad fraction or regex: HB_EINVAL (-2) and a message naming the variable. */
static void bad_fraction(void **state)
{
    (void)state;
    double f = -1;
    char msg[256] = "";
    assert_int_equal(hb_test_slowdown("bufgrow/doubling", &f, msg, sizeof msg), -2);
    assert_true(f == 0);
    assert_non_null(strstr(msg, "HB_INJECT:"));
}

static void bad_regex(void **state)
{
    (void)state;
    double f = -1;
    char msg[256] = "";
    assert_int_equal(hb_test_slowdown("bufgrow/doubling", &f, msg, sizeof msg), -2);
    assert_non_null(strstr(msg, "HB_INJECT_SELECT"));
}

static void test_bad(void **state)
{
    (void)state;
    in_child("slowdown:abc", NULL, bad_fraction);
    in_child("slowdown:0.1", "(", bad_regex);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin),
        cmocka_unit_test(test_env_wins),
        cmocka_unit_test(test_empty_env_wins),
        cmocka_unit_test(test_select_default),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

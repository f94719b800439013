/* test_case_run.c - unit tests of harness/hb_case_run.c (cmocka): registration from the
 * description (strategies in its order, only, takes, profiles), the registry check, the
 * refusals' limits. Nothing is run or timed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "hb_case_run.h"

/* clang-format off */
static const hb_strategy_desc strategies[] = {
    {"ref", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, NULL},
    {"fast", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, NULL},
    {"slow", HB_ROLE_STRATEGY, 2, HB_MODEL_POWER, NULL},
    {NULL, 0, 0, 0, NULL},
};
static const hb_group_desc groups[] = {
    {"t", "test", "test", "ref", "ref", strategies, NULL, "", NULL, NULL, NULL, NULL, 0},
    {0},
};
static const hb_case_desc desc = {"t", "test", "test", groups, NULL, NULL, NULL};
/* clang-format on */

static const int64_t two[] = {1, 10, 2, 20}; /* {a, b} tuples */
static const int64_t one[] = {1, 10};
static const char *const names[] = {"a", "b", NULL};
static const char *const only_fast[] = {"fast", NULL};
static const char *const only_missing[] = {"missing", NULL};

static void time_nothing(hb_run *r)
{
    (void)r;
}

/* Takes the tuples whose b is 10, except for strategy fast, which takes all. */
static int takes_b10(const hb_case_bench *b, const int64_t *args)
{
    return strcmp(b->strategy->name, "fast") == 0 || args[1] == 10;
}

static int verify_ok(hb_run *r)
{
    (void)r;
    return 1;
}

static hb_family family(const char *group, const char *const *only)
{
    hb_family f = {group, only,      0,    names,     {{two, 2}, {one, 1}, {NULL, 0}},
                   HB_US, HB_O_NONE, 0,    0,         NULL,
                   NULL,  NULL,      verify_ok, time_nothing, 0};
    return f;
}

static size_t count(const hb_case_set *set, char *names_out, size_t cap)
{
    size_t n = 0;
    names_out[0] = '\0';
    for (const hb_case_bench *b = set->head; b; b = b->next, n++) {
        strncat(names_out, b->name, cap - strlen(names_out) - 1);
        strncat(names_out, " ", cap - strlen(names_out) - 1);
    }
    return n;
}

/* Every described strategy, in the description's order; only restricts; a profile without
 * tuples registers nothing. */
static void test_register(void **state)
{
    (void)state;
    static hb_case_set set; /* the benches stay registered until exit */
    static hb_family fams[2];
    char got[256];
    hb_options opt = {.profile = "full", .profile_id = HB_PROFILE_FULL};
    fams[0] = family("t", NULL);
    fams[1] = family("t", only_fast);
    assert_int_equal(hb_case_register(&desc, fams, 2, NULL, &opt, &set), HB_OK);
    assert_int_equal(count(&set, got, sizeof got), 4);
    assert_string_equal(got, "t/ref t/fast t/slow t/fast ");
    assert_int_equal(set.head->nargs, 2);
    assert_int_equal(set.head->strategy->complexity, 1);

    static hb_case_set smoke;
    opt.profile_id = HB_PROFILE_SMOKE;
    assert_int_equal(hb_case_register(&desc, fams, 2, NULL, &opt, &smoke), HB_OK);
    assert_null(smoke.head);
}

/* A strategy taking none of the tuples is not registered. */
static void test_takes(void **state)
{
    (void)state;
    static hb_case_set set;
    static hb_family f;
    static const int64_t b20[] = {2, 20};
    char got[256];
    hb_options opt = {.profile = "full", .profile_id = HB_PROFILE_FULL};
    f = family("t", NULL);
    f.tuples[HB_PROFILE_FULL] = (hb_tuples)HB_TUPLES(b20, 2);
    f.takes = takes_b10;
    assert_int_equal(hb_case_register(&desc, &f, 1, NULL, &opt, &set), HB_OK);
    assert_int_equal(count(&set, got, sizeof got), 1);
    assert_string_equal(got, "t/fast ");
}

/* A family of an undescribed group, or naming an undescribed strategy, or a profile that is not
 * one stops the registration. */
static void test_register_refuses(void **state)
{
    (void)state;
    static hb_case_set set;
    hb_options opt = {.profile = "full", .profile_id = HB_PROFILE_FULL};
    hb_family f = family("nope", NULL);
    assert_int_equal(hb_case_register(&desc, &f, 1, NULL, &opt, &set), HB_EINVAL);
    f = family("t", only_missing);
    assert_int_equal(hb_case_register(&desc, &f, 1, NULL, &opt, &set), HB_EINVAL);
    f = family("t", NULL);
    f.memo_size = HB_MEMO_MAX + 1;
    assert_int_equal(hb_case_register(&desc, &f, 1, NULL, &opt, &set), HB_EINVAL);
    /* without verify a strategy would be timed unverified */
    f = family("t", NULL);
    f.verify = NULL;
    assert_int_equal(hb_case_register(&desc, &f, 1, NULL, &opt, &set), HB_EINVAL);
    /* a profile out of the enum indexes no table of tuples (it read past tuples[]) */
    f = family("t", NULL);
    opt.profile_id = HB_PROFILES;
    assert_int_equal(hb_case_register(&desc, &f, 1, NULL, &opt, &set), HB_EINVAL);
    opt.profile_id = (enum hb_profile)-1;
    assert_int_equal(hb_case_register(&desc, &f, 1, NULL, &opt, &set), HB_EINVAL);
    assert_null(set.head);
}

/* Rows whose first member is the name: all described, or the first one that is not named. */
static void test_check_registry(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int other;
    } ok[] = {{"fast", 1}, {"ref", 2}}, bad[] = {{"ref", 1}, {"undescribed", 2}};
    assert_int_equal(hb_case_check_registry(&desc, "t", ok, 2, sizeof ok[0]), HB_OK);
    assert_int_equal(hb_case_check_registry(&desc, "t", bad, 2, sizeof bad[0]), HB_EINVAL);
    assert_int_equal(hb_case_check_registry(&desc, "nope", ok, 2, sizeof ok[0]), HB_EINVAL);
    assert_non_null(hb_case_group(&desc, "t"));
    assert_null(hb_case_group(&desc, "nope"));
}

/* --hb_max_memory is the limit when given; otherwise 90% of MemAvailable (some bytes). */
static void test_memory_limit(void **state)
{
    (void)state;
    hb_options opt = {.max_memory = 12345};
    assert_true(hb_memory_limit(&opt) == 12345);
    opt.max_memory = 0;
    assert_true(hb_memory_limit(&opt) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_register),         cmocka_unit_test(test_takes),
        cmocka_unit_test(test_register_refuses), cmocka_unit_test(test_check_registry),
        cmocka_unit_test(test_memory_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

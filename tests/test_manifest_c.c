/* test_manifest_c.c - harness/hb_manifest.c: JSON escaping, and hb_manifest_describes naming
 * what is missing and where (a registered family its case does not describe stops a run). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "hb_manifest.h"

static const hb_strategy_desc strategies[] = {
    {"ref", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER},
    {"floor", HB_ROLE_CEILING, 1, HB_MODEL_POWER},
    {NULL, 0, 0, 0},
};
static const char *const charts[] = {"table", NULL};
static const hb_view_desc views[] = {
    {.key = "demo", .x = "n", .production = INFINITY, .items_per_x = NAN, .per_scale = 1e9,
     .charts = charts},
    {NULL},
};
static const hb_group_desc groups[] = {
    {"demo", "A \"quoted\" title\n", "about\\", "ref", "floor", strategies, NULL, "", NULL},
    {"demo-views", "t", "a", NULL, NULL, strategies, views, NULL, NULL},
    {NULL},
};
static const hb_case_desc desc = {"demo", "Demo \xc3\xa9t\xe9 \xed\xa0\x80 \xf0\x9f\x93\x88\xf0",
                                   "one line", groups, NULL, NULL, NULL};
static int reg(const hb_options *opt)
{
    (void)opt;
    return HB_OK;
}
static const hb_case cases[] = {{"demo", reg, &desc}};

static void test_describes(void **state)
{
    (void)state;
    char why[256] = "";
    assert_int_equal(hb_manifest_describes(cases, 1, "demo/ref", why, sizeof why), 1);
    assert_int_equal(hb_manifest_describes(cases, 1, "demo/fast", why, sizeof why), 0);
    assert_non_null(strstr(why, "'fast'"));
    assert_non_null(strstr(why, "cases/demo/case.c"));
    assert_int_equal(hb_manifest_describes(cases, 1, "other/ref", why, sizeof why), 0);
    assert_non_null(strstr(why, "group 'other'"));
    assert_int_equal(hb_manifest_describes(cases, 1, "demo", why, sizeof why), 0);
}

static void test_json(void **state)
{
    (void)state;
    char *j = hb_manifest_json(cases, 1);
    assert_non_null(j);
    assert_non_null(strstr(j, "{\"schema\":\"hotbench-manifest/1\",\"cases\":[{\"name\":\"demo\""));
    assert_non_null(strstr(j, "\"title\":\"A \\\"quoted\\\" title\\u000a\""));
    assert_non_null(strstr(j, "\"about\":\"about\\\\\""));
    assert_non_null(strstr(j, "\"role\":\"ceiling\""));
    /* well-formed UTF-8 as it is; a Latin-1 byte, a surrogate, a truncated sequence: U+FFFD */
    assert_non_null(strstr(j, "\"title\":\"Demo \xc3\xa9t\\ufffd \\ufffd\\ufffd\\ufffd "
                              "\xf0\x9f\x93\x88\\ufffd\","));
    assert_non_null(strstr(j, "\"views\":[],\"gate\":{\"select\":\"\",\"ir_select\":null}"));
    assert_non_null(strstr(j, "\"e2e\":[],\"peers\":[],\"peers_driver\":null}]}"));
    /* JSON has no infinity or NaN: null, not "inf" or "nan" (which made the whole run JSON's
     * manifest unreadable) */
    assert_non_null(strstr(j, "\"production\":null"));
    assert_non_null(strstr(j, "\"items_per_x\":null"));
    assert_non_null(strstr(j, "\"per_scale\":1000000000,"));
    assert_null(strstr(j, "inf"));
    assert_null(strstr(j, "nan"));
    free(j);
}

/* Duplicates the readers would merge: a strategy twice in a group, a group in two cases, a view
 * key twice. */
static void test_unique(void **state)
{
    (void)state;
    char why[256] = "";
    assert_int_equal(hb_manifest_unique(cases, 1, why, sizeof why), 1);
    static const hb_strategy_desc twice[] = {
        {"a", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER},
        {"b", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER},
        {"a", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER},
        {NULL, 0, 0, 0},
    };
    static const hb_group_desc g_twice[] = {{"g", "t", "a", NULL, NULL, twice, NULL, NULL, NULL},
                                            {NULL}};
    static const hb_case_desc d_twice = {"dup", "D", "i", g_twice, NULL, NULL, NULL};
    const hb_case c1[] = {{"dup", reg, &d_twice}};
    assert_int_equal(hb_manifest_unique(c1, 1, why, sizeof why), 0);
    assert_non_null(strstr(why, "strategy 'a' twice"));
    /* group "demo" in a second case */
    static const hb_case_desc d_again = {"again", "A", "i", groups, NULL, NULL, NULL};
    const hb_case c2[] = {{"demo", reg, &desc}, {"again", reg, &d_again}};
    assert_int_equal(hb_manifest_unique(c2, 2, why, sizeof why), 0);
    assert_non_null(strstr(why, "group 'demo' is described twice"));
    /* view key "demo" in another group of another case */
    static const hb_group_desc g_view[] = {{"other", "t", "a", NULL, NULL, strategies, views,
                                            NULL, NULL},
                                           {NULL}};
    static const hb_case_desc d_view = {"view", "V", "i", g_view, NULL, NULL, NULL};
    const hb_case c3[] = {{"demo", reg, &desc}, {"view", reg, &d_view}};
    assert_int_equal(hb_manifest_unique(c3, 2, why, sizeof why), 0);
    assert_non_null(strstr(why, "view key 'demo' is used twice"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_describes),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_unique),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_manifest_c.c - harness/hb_manifest.c: JSON escaping, the allocator matrix's fields, and
 * hb_manifest_describes naming what is missing and where (a registered family its case does not
 * describe stops a run), a group's limits written and checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "hb_manifest.h"

static const hb_strategy_desc strategies[] = {
    {"ref", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, "floor"},
    {"floor", HB_ROLE_CEILING, 1, HB_MODEL_POWER, NULL},
    {NULL, 0, 0, 0, NULL},
};
static const char *const charts[] = {"table", NULL};
static const hb_view_desc views[] = {
    {.key = "demo", .x = "n", .production = INFINITY, .items_per_x = NAN, .per_scale = 1e9,
     .charts = charts},
    {0},
};
static const hb_limits_desc limits = {"ref", "floor", "n:3", "n:1", NULL, "why \"it\" is slow"};
static const hb_group_desc groups[] = {
    {"demo", "A \"quoted\" title\n", "about\\", "ref", "floor", strategies, NULL, "", NULL,
     "ref/n:(1|2)/", "ref/n:3/", NULL, 1 /* gate_isolate */},
    {"demo-views", "t", "a", NULL, NULL, strategies, views, NULL, NULL, NULL, NULL, &limits, 0},
    {0},
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
    assert_non_null(strstr(j, "\"views\":[],\"gate\":{\"select\":\"\",\"ir_select\":null,"
                              "\"isolate\":true},"
                              "\"alloc_select\":\"ref/n:(1|2)/\",\"alloc_select_long\":\"ref/n:3/\","
                              "\"limits\":null}"));
    assert_non_null(strstr(j, "\"gate\":{\"select\":null,\"ir_select\":null,\"isolate\":false},"
                              "\"alloc_select\":null,\"alloc_select_long\":null,"
                              "\"limits\":{\"strategy\":\"ref\",\"ceiling\":\"floor\","
                              "\"row\":\"n:3\",\"probe\":\"n:1\",\"item\":null,"
                              "\"mechanism\":\"why \\\"it\\\" is slow\"}}"));
    assert_non_null(strstr(j, "\"name\":\"ref\",\"role\":\"strategy\",\"complexity\":1,"
                              "\"model\":\"power\",\"custom_allocator_twin\":\"floor\"}"));
    assert_non_null(strstr(j, "\"model\":\"power\",\"custom_allocator_twin\":null}"));
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
        {"a", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, NULL},
        {"b", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, NULL},
        {"a", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, NULL},
        {NULL, 0, 0, 0, NULL},
    };
    static const hb_group_desc g_twice[] = {
        {"g", "t", "a", NULL, NULL, twice, NULL, NULL, NULL, NULL, NULL, NULL, 0}, {0}};
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
                                            NULL, NULL, NULL, NULL, NULL, 0},
                                           {0}};
    static const hb_case_desc d_view = {"view", "V", "i", g_view, NULL, NULL, NULL};
    const hb_case c3[] = {{"demo", reg, &desc}, {"view", reg, &d_view}};
    assert_int_equal(hb_manifest_unique(c3, 2, why, sizeof why), 0);
    assert_non_null(strstr(why, "view key 'demo' is used twice"));
}

/* A custom_allocator_twin must name another strategy of its group: itself or an unknown name
 * stops the run, naming both. */
static void test_twin(void **state)
{
    (void)state;
    char why[256] = "";
    static const hb_strategy_desc self[] = {
        {"a", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, "a"},
        {NULL, 0, 0, 0, NULL},
    };
    static const hb_strategy_desc unknown[] = {
        {"a", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, NULL},
        {"b", HB_ROLE_STRATEGY, 1, HB_MODEL_POWER, "c"},
        {NULL, 0, 0, 0, NULL},
    };
    static const hb_group_desc g_self[] = {
        {"g", "t", "a", NULL, NULL, self, NULL, NULL, NULL, NULL, NULL, NULL, 0}, {0}};
    static const hb_group_desc g_unknown[] = {
        {"h", "t", "a", NULL, NULL, unknown, NULL, NULL, NULL, NULL, NULL, NULL, 0}, {0}};
    static const hb_case_desc d_self = {"s", "S", "i", g_self, NULL, NULL, NULL};
    static const hb_case_desc d_unknown = {"u", "U", "i", g_unknown, NULL, NULL, NULL};
    const hb_case c1[] = {{"s", reg, &d_self}};
    assert_int_equal(hb_manifest_unique(c1, 1, why, sizeof why), 0);
    assert_non_null(strstr(why, "strategy 'a' of group 'g' (cases/s/case.c) names 'a'"));
    const hb_case c2[] = {{"u", reg, &d_unknown}};
    assert_int_equal(hb_manifest_unique(c2, 1, why, sizeof why), 0);
    assert_non_null(strstr(why, "names 'c' as its custom_allocator_twin"));
}

/* A group's limits must name a strategy and a ceiling of the group, each in its role, and give
 * every text but item: else the run stops, naming the group and the name. */
static void test_limits(void **state)
{
    (void)state;
    char why[256] = "";
    static const hb_limits_desc swapped = {"floor", "ref", "n:3", "n:1", NULL, "m"};
    static const hb_limits_desc unknown = {"ref", "memcpy", "n:3", "n:1", NULL, "m"};
    static const hb_limits_desc no_text = {"ref", "floor", "n:3", "n:1", NULL, NULL};
    static const hb_group_desc g_swapped[] = {
        {"g", "t", "a", NULL, NULL, strategies, NULL, NULL, NULL, NULL, NULL, &swapped, 0}, {0}};
    static const hb_group_desc g_unknown[] = {
        {"g", "t", "a", NULL, NULL, strategies, NULL, NULL, NULL, NULL, NULL, &unknown, 0}, {0}};
    static const hb_group_desc g_no_text[] = {
        {"g", "t", "a", NULL, NULL, strategies, NULL, NULL, NULL, NULL, NULL, &no_text, 0}, {0}};
    static const hb_case_desc d1 = {"l", "L", "i", g_swapped, NULL, NULL, NULL};
    static const hb_case_desc d2 = {"l", "L", "i", g_unknown, NULL, NULL, NULL};
    static const hb_case_desc d3 = {"l", "L", "i", g_no_text, NULL, NULL, NULL};
    const hb_case c1[] = {{"l", reg, &d1}}, c2[] = {{"l", reg, &d2}}, c3[] = {{"l", reg, &d3}};
    assert_int_equal(hb_manifest_unique(cases, 1, why, sizeof why), 1);
    assert_int_equal(hb_manifest_unique(c1, 1, why, sizeof why), 0);
    assert_non_null(strstr(why, "limits names strategy 'floor', not a strategy of the group"));
    assert_int_equal(hb_manifest_unique(c2, 1, why, sizeof why), 0);
    assert_non_null(strstr(why, "limits names ceiling 'memcpy', not a ceiling of the group"));
    assert_int_equal(hb_manifest_unique(c3, 1, why, sizeof why), 0);
    assert_non_null(strstr(why, "group 'g' of cases/l/case.c: limits lacks"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_describes),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_unique),
        cmocka_unit_test(test_twin),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

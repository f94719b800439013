/* test_volumes_gen.c - the DescribeVolumes generator (data-gen/volumes_gen.c).
 *
 * Same parameters give the same bytes, another seed other bytes; a response of n volumes starts
 * with the k < n volumes of the response of k; the counts in hb_volumes_info match the bytes;
 * the 300 x 20 response has the size of the incident; compact has no whitespace between
 * elements; escaped and non-ASCII values appear; bad parameters are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hb_err.h"
#include "hb_gen_xml.h"

static uint8_t *gen(uint32_t volumes, uint32_t tags, uint64_t seed, int compact, size_t *len,
                    hb_volumes_info *info)
{
    hb_volumes_params p;
    hb_volumes_params_default(&p);
    p.volumes = volumes;
    p.tags = tags;
    p.seed = seed;
    p.compact = compact;
    uint8_t *doc = NULL;
    assert_int_equal(hb_volumes_generate(&p, &doc, len, info), HB_OK);
    assert_non_null(doc);
    assert_int_equal(doc[*len], '\0');
    return doc;
}

static void test_deterministic(void **state)
{
    (void)state;
    size_t la, lb, lc;
    hb_volumes_info ia, ib, ic;
    uint8_t *a = gen(50, 7, 1, 0, &la, &ia);
    uint8_t *b = gen(50, 7, 1, 0, &lb, &ib);
    uint8_t *c = gen(50, 7, 2, 0, &lc, &ic);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    assert_true(la != lc || memcmp(a, c, la) != 0);
    free(a);
    free(b);
    free(c);
}

/* Volume i depends only on (seed, i): the 4-volume response's volumes are the first four of the
 * 10-volume response. */
static void test_prefix(void **state)
{
    (void)state;
    size_t l4, l10;
    hb_volumes_info i4, i10;
    uint8_t *a = gen(4, 5, 9, 0, &l4, &i4);
    uint8_t *b = gen(10, 5, 9, 0, &l10, &i10);
    const char *end4 = strstr((const char *)a, "\n    </volumeSet>");
    assert_non_null(end4);
    size_t n = (size_t)(end4 - (const char *)a);
    assert_memory_equal(a, b, n);
    free(a);
    free(b);
}

/* The counts in the info are those of the bytes. */
static void test_info(void **state)
{
    (void)state;
    static const uint32_t shapes[][3] = {{0, 0, 0}, {1, 0, 1}, {3, 1, 0}, {30, 20, 0}, {7, 50, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t len;
        hb_volumes_info info;
        uint8_t *doc = gen(shapes[s][0], shapes[s][1], 5, (int)shapes[s][2], &len, &info);
        uint64_t starts = 0, items = 0, keys = 0, atts = 0;
        for (size_t i = 0; i + 1 < len; i++) {
            if (doc[i] == '<' && doc[i + 1] != '/' && doc[i + 1] != '?')
                starts++;
        }
        for (const char *p = (const char *)doc; (p = strstr(p, "<key>")); p++)
            keys++;
        for (const char *p = (const char *)doc; (p = strstr(p, "<instanceId>")); p++)
            atts++;
        for (const char *p = (const char *)doc; (p = strstr(p, "<item>")); p++)
            items++;
        assert_int_equal(info.bytes, len);
        assert_int_equal(info.elements, starts);
        assert_int_equal(info.volumes, shapes[s][0]);
        assert_int_equal(info.tags, (uint64_t)shapes[s][0] * shapes[s][1]);
        assert_int_equal(keys, info.tags);
        assert_int_equal(atts, info.attachments);
        assert_int_equal(items, info.volumes + info.tags + info.attachments);
        if (shapes[s][1] == 0)
            assert_null(strstr((const char *)doc, "tagSet"));
        if (shapes[s][2]) /* compact: the only line end follows the XML declaration */
            assert_ptr_equal(strchr((const char *)doc, '\n'),
                             strstr((const char *)doc, "?>\n") + 2);
        free(doc);
    }
}

/* The incident's response: 300 volumes of 20 tags, about 1.2 MB indented, about half compact;
 * some values escaped and some non-ASCII; no raw '&' outside references. */
static void test_incident_size(void **state)
{
    (void)state;
    size_t len, clen;
    hb_volumes_info info, cinfo;
    uint8_t *doc = gen(300, 20, HB_VOLUMES_DEFAULT_SEED, 0, &len, &info);
    uint8_t *cdoc = gen(300, 20, HB_VOLUMES_DEFAULT_SEED, 1, &clen, &cinfo);
    assert_in_range(len, 1100000, 1400000);
    assert_in_range(clen, len / 3, len * 2 / 3);
    assert_int_equal(info.elements, cinfo.elements);
    assert_in_range(info.escaped, 300, 1500);
    assert_in_range(info.non_ascii, 300, 1200);
    assert_non_null(strstr((const char *)doc, "&amp;"));
    assert_non_null(strstr((const char *)doc, "&lt;"));
    assert_non_null(strstr((const char *)doc, "\xc3\xbc")); /* ü */
    for (const char *p = (const char *)doc; (p = strchr(p, '&')); p++)
        assert_true(!strncmp(p, "&amp;", 5) || !strncmp(p, "&lt;", 4) || !strncmp(p, "&gt;", 4) ||
                    !strncmp(p, "&quot;", 6));
    assert_non_null(strstr((const char *)doc, "<DescribeVolumesResponse xmlns=\"http://ec2."
                                              "amazonaws.com/doc/2016-11-15/\">"));
    free(doc);
    free(cdoc);
}

static void test_params(void **state)
{
    (void)state;
    hb_volumes_params p;
    const char *why = "unset";
    hb_volumes_params_default(&p);
    assert_int_equal(p.volumes, 300);
    assert_int_equal(p.tags, 20);
    assert_int_equal(hb_volumes_params_check(&p, &why), HB_OK);
    assert_null(why);
    p.volumes = HB_VOLUMES_MAX_VOLUMES + 1;
    assert_int_equal(hb_volumes_params_check(&p, &why), HB_EINVAL);
    assert_non_null(why);
    uint8_t *doc = (uint8_t *)"x";
    size_t len = 1;
    assert_int_equal(hb_volumes_generate(&p, &doc, &len, NULL), HB_EINVAL);
    p.volumes = 1;
    p.tags = HB_VOLUMES_MAX_TAGS + 1;
    assert_int_equal(hb_volumes_params_check(&p, NULL), HB_EINVAL);
    assert_int_equal(hb_volumes_params_check(NULL, &why), HB_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic), cmocka_unit_test(test_prefix),
        cmocka_unit_test(test_info),          cmocka_unit_test(test_incident_size),
        cmocka_unit_test(test_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* hb_testhook.c - TEST-ONLY: HB_INJECT parsing for the regression injections of hb_testhook.h.
 * Compiled only with -DHB_TEST_HOOKS=ON. */
#include "hb_testhook.h"

#include <stdlib.h>
#include <string.h>

#define HB_INJECT_MAX 256

int hb_test_injected(const char *name)
{
    /* A test-only cache of the environment, filled once: the hooks sit in hot loops. */
    static int loaded;
    static char words[HB_INJECT_MAX];
    if (!loaded) {
        const char *env = getenv("HB_INJECT");
        if (env && strlen(env) < sizeof words)
            strcpy(words, env);
        loaded = 1;
    }
    size_t n = strlen(name);
    for (const char *p = words; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (end ? 1 : 0);
    }
    return 0;
}

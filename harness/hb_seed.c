/* hb_seed.c - hb_hash_salt (hb_seed.h). */
#include "hb_seed.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define HB_SALT_ENV "HB_HASH_SALT"

static unsigned long parse_salt(const char *v)
{
    char *end = NULL;
    errno = 0;
    unsigned long s = strtoul(v, &end, 0);
    if (v[0] == '-' || v[0] == '\0' || *end != '\0' || errno == ERANGE || s == 0) {
        fprintf(stderr, "hotbench: %s=\"%s\" is not a number from 1 to %lu: ignored (the "
                        "libraries keep their random hash salts)\n", HB_SALT_ENV, v, ULONG_MAX);
        return 0;
    }
    return s;
}

unsigned long hb_hash_salt(void)
{
    static int done;
    static unsigned long salt;
    if (!done) {
        const char *v = getenv(HB_SALT_ENV);
        salt = v ? parse_salt(v) : 0;
        done = 1;
    }
    return salt;
}

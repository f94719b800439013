/* hb_seed.c - hb_hash_salt (hb_seed.h). */
#include "hb_seed.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define HB_SALT_ENV "HB_HASH_SALT"

/* v as "1" to ULONG_MAX in decimal, or after "0x" / "0X" in hex; 0 (reported) otherwise. */
static unsigned long parse_salt(const char *v)
{
    int hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    const char *digits = hex ? v + 2 : v;
    char *end = NULL;
    errno = 0;
    unsigned long s = isxdigit((unsigned char)digits[0]) ? strtoul(digits, &end, hex ? 16 : 10)
                                                        : 0;
    if (s == 0 || *end != '\0' || errno == ERANGE) {
        fprintf(stderr, "hotbench: %s=\"%s\" is not a number from 1 to %lu (decimal, or hex "
                        "after 0x): ignored (the libraries keep their random hash salts)\n",
                HB_SALT_ENV, v, ULONG_MAX);
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

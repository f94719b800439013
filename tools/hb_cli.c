#include "hb_cli.h"

#include <string.h>

const char *hb_cli_bad_option(char **argv, const struct option *longopts, char buf[3])
{
    const char *a = argv[optind - 1];
    if (optopt == 0) /* an unknown or ambiguous long option */
        return a;
    if (strncmp(a, "--", 2) == 0) { /* a long option with a missing or unwanted value? */
        size_t n = strcspn(a + 2, "=");
        for (const struct option *o = longopts; o->name; o++)
            if (o->val == optopt && strncmp(o->name, a + 2, n) == 0)
                return a;
    }
    buf[0] = '-';
    buf[1] = (char)optopt;
    buf[2] = '\0';
    return buf;
}

#include "hb_cli.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

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

int hb_cli_write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        size_t part = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n;
        ssize_t w = write(fd, b, part);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* hb_io.c - writing every byte to a file descriptor (see hb_io.h). */
#include "hb_io.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

int hb_write_all(int fd, const void *p, size_t n)
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

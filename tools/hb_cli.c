#include "hb_cli.h"

#include <errno.h>
#include <stdlib.h>
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

uint64_t hb_cli_phys_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

int hb_cli_read_all(int fd, uint64_t max, uint8_t **out, size_t *len)
{
    uint64_t limit = max < SIZE_MAX - 1 ? max + 1 : SIZE_MAX; /* room to see the byte past max */
    size_t cap = limit < HB_CLI_BLOCK ? (size_t)limit : HB_CLI_BLOCK, n = 0;
    uint8_t *buf = malloc(cap);
    *out = NULL;
    *len = 0;
    if (!buf)
        return -1;
    for (;;) {
        if (n == cap && n == limit)
            break; /* max + 1 bytes: over the limit */
        if (n == cap) {
            size_t ncap = cap > limit / 2 ? (size_t)limit : cap * 2;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                errno = ENOMEM;
                return -1;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return -1;
        }
        if (r == 0) {
            *out = buf;
            *len = n;
            return 0;
        }
        n += (size_t)r;
    }
    free(buf);
    return 1;
}

int hb_cli_lines_init(hb_cli_lines *l, int fd, size_t keep)
{
    memset(l, 0, sizeof(*l));
    l->fd = fd;
    l->keep = keep;
    l->block = malloc(HB_CLI_BLOCK);
    l->line = malloc(keep + 1);
    if (!l->block || !l->line || keep == 0) {
        hb_cli_lines_free(l);
        errno = keep == 0 ? EINVAL : ENOMEM;
        return -1;
    }
    return 0;
}

/* Refills the block when it is used up. Returns 1 with bytes to read, 0 at the end of the input,
 * -1 on a read error (errno). */
static int lines_fill(hb_cli_lines *l)
{
    while (l->pos == l->have) {
        ssize_t r = read(l->fd, l->block, HB_CLI_BLOCK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? -1 : 0;
        l->have = (size_t)r;
        l->pos = 0;
    }
    return 1;
}

/* Skips the rest of an over-long line: up to and including its LF, or to the end of the input. */
static int lines_skip(hb_cli_lines *l)
{
    int rc = 1;
    while (l->skipping && (rc = lines_fill(l)) > 0) {
        const uint8_t *lf = memchr(l->block + l->pos, '\n', l->have - l->pos);
        l->pos = lf ? (size_t)(lf - l->block) + 1 : l->have;
        l->skipping = lf == NULL;
    }
    return l->skipping ? rc : 1;
}

int hb_cli_line_next(hb_cli_lines *l, const char **line, size_t *len)
{
    int rc = lines_skip(l);
    if (rc <= 0)
        return rc;
    *line = l->line;
    l->len = 0;
    while ((rc = lines_fill(l)) > 0) {
        const uint8_t *p = l->block + l->pos, *lf = memchr(p, '\n', l->have - l->pos);
        size_t seg = lf ? (size_t)(lf - p) : l->have - l->pos, room = l->keep + 1 - l->len;
        memcpy(l->line + l->len, p, seg < room ? seg : room);
        if (seg > room) { /* more than keep + 1 bytes: over-long, even if a CR ends it */
            l->pos = lf ? (size_t)(lf - l->block) + 1 : l->have;
            l->skipping = lf == NULL;
            *len = l->keep;
            return 2;
        }
        l->len += seg;
        l->pos += seg + (lf != NULL);
        if (lf)
            break;
    }
    if (rc < 0)
        return -1;
    if (rc == 0 && l->len == 0)
        return 0; /* the end of the input, no line started */
    if (rc > 0 && l->len > 0 && l->line[l->len - 1] == '\r')
        l->len--; /* CRLF: the CR is not the line's (only before an LF, as before) */
    *len = l->len > l->keep ? l->keep : l->len;
    return l->len > l->keep ? 2 : 1;
}

void hb_cli_lines_free(hb_cli_lines *l)
{
    free(l->block);
    free(l->line);
    memset(l, 0, sizeof(*l));
}

/* hb_cli.h - small helpers shared by the command mains (tools/ only). */
#ifndef HB_CLI_H
#define HB_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

/* The option getopt_long (with opterr = 0) just refused, as the user gave it: "-c" for a short
 * option c (from optopt: inside a cluster such as -xy, argv[optind - 1] is still the argument
 * before it), else the long option's argument as typed. buf (3 bytes, the caller's) holds the
 * short form; the result points into argv or buf. */
const char *hb_cli_bad_option(char **argv, const struct option *longopts, char buf[3]);

/* Bytes of physical memory (sysconf _SC_PHYS_PAGES x _SC_PAGESIZE), or 0 if unknown. A cgroup
 * limit below it is not consulted. */
uint64_t hb_cli_phys_memory(void);

/* Reads all of fd into a malloc'd buffer (*out, *len; the caller frees *out), but never holds
 * more than max + 1 bytes of it: the buffer doubles from 64 KiB, capped at max + 1. Returns 0;
 * 1 when the input is longer than max bytes (*out NULL; the byte past the limit is at offset
 * max); or -1 with errno set (a read error, ENOMEM). */
int hb_cli_read_all(int fd, uint64_t max, uint8_t **out, size_t *len);

#define HB_CLI_BLOCK (64u * 1024u) /* bytes hb_cli_line_next reads from its fd at a time */

/* Lines of a file descriptor, read in blocks of HB_CLI_BLOCK bytes, of which at most keep bytes
 * are held: memory does not grow with the length of a line. A line ends at LF; a CR just before
 * the LF is not part of it (CRLF files); the last line may lack its LF. The fields are private. */
typedef struct hb_cli_lines {
    int fd;
    size_t keep;    /* the longest line returned whole, in bytes */
    uint8_t *block; /* HB_CLI_BLOCK bytes read from fd */
    size_t have;    /* bytes in block */
    size_t pos;     /* the next byte of block */
    char *line;     /* keep + 1 bytes: the current line (a CR may still follow at keep) */
    size_t len;     /* bytes in line */
    int skipping;   /* the rest of an over-long line is still to be skipped */
} hb_cli_lines;

/* Prepares *l to read the lines of fd (not closed by hb_cli_lines_free), keeping at most keep
 * (>= 1) bytes of a line. Returns 0, or -1 with errno ENOMEM (nothing left allocated). */
int hb_cli_lines_init(hb_cli_lines *l, int fd, size_t keep);

/* The next line: returns 1 with the whole line at *line, *len <= keep bytes (no LF, no CR before
 * it); 2 for a line longer than keep bytes, as soon as that is known, with its first keep bytes
 * (the next call first skips the rest of it, reading but not storing it); 0 at the end of the
 * input; -1 with errno set on a read error (EINTR is retried). *line is valid until the next
 * call. */
int hb_cli_line_next(hb_cli_lines *l, const char **line, size_t *len);

/* Frees what hb_cli_lines_init allocated; safe twice and on a zeroed struct. */
void hb_cli_lines_free(hb_cli_lines *l);

#endif /* HB_CLI_H */

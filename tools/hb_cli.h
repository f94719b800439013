/* hb_cli.h - small helpers shared by the command mains (tools/ only). */
#ifndef HB_CLI_H
#define HB_CLI_H

#include <getopt.h>
#include <stddef.h>

/* The option getopt_long (with opterr = 0) just refused, as the user gave it: "-c" for a short
 * option c (from optopt: inside a cluster such as -xy, argv[optind - 1] is still the argument
 * before it), else the long option's argument as typed. buf (3 bytes, the caller's) holds the
 * short form; the result points into argv or buf. */
const char *hb_cli_bad_option(char **argv, const struct option *longopts, char buf[3]);

/* Writes all n bytes at p to fd, retrying short writes and EINTR, in parts of at most 1 GiB
 * (Linux writes at most ~2 GiB at once). The caller keeps p. Returns 0, or -1 with errno set
 * (EPIPE when the reader went away: callers stay quiet about that one). */
int hb_cli_write_all(int fd, const void *p, size_t n);

#endif /* HB_CLI_H */

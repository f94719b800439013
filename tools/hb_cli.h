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

#endif /* HB_CLI_H */

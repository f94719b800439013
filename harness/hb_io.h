/* hb_io.h - the one output helper of hotbench's tools and generators: write every byte or fail.
 *
 * Used by hotbench-gen and hotbench-decode (files and standard output) and by the generators'
 * whole-body writers (hb_chunked_write, hb_ts_write). Plain C, no allocation, no globals.
 */
#ifndef HB_IO_H
#define HB_IO_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes all n bytes at p to the file descriptor fd (from its current position), retrying short
 * writes and writes interrupted by a signal (EINTR), in parts of at most 1 GiB (Linux writes at
 * most ~2 GiB at once). p is the caller's and only read; n == 0 writes nothing. Returns 0 once
 * all n bytes are written, or -1 with errno set by write(2) (EPIPE when the reader went away:
 * callers stay quiet about that one); fd then holds a prefix of the bytes. */
int hb_write_all(int fd, const void *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* HB_IO_H */

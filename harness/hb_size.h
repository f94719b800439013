/* hb_size.h - the one parser of byte counts on hotbench's command lines.
 *
 * Used by every size option of every tool: hotbench-gen's --size, --rows and --chunk-size,
 * hotbench-decode's --size-hint, --read-size and --piece, hotbench's --hb_max_memory and
 * --hb_read. Plain C, no allocation, no globals.
 */
#ifndef HB_SIZE_H
#define HB_SIZE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parses s, a decimal byte count with an optional fraction and an optional suffix K, M or G
 * (powers of 1000, either case): "4096", "64K", "10M", "1.7G". No sign, spaces or exponent; the
 * value must be a whole number of bytes ("1.5" is refused, "1.5K" is 1500) no larger than
 * UINT64_MAX. Returns 0 with the count in *out, or -1 with *why set to a static reason (e.g.
 * "number too large"); *out is then unchanged. Range checks beyond UINT64_MAX are the caller's,
 * which names its option in the message. */
int hb_size_parse(const char *s, uint64_t *out, const char **why);

/* hb_size_parse, then a range check: the count must lie in [lo, hi]. Returns 0 with *out, or -1
 * with *why set to hb_size_parse's reason, "too small" or "too large" (*out unchanged). */
int hb_size_parse_range(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, const char **why);

#ifdef __cplusplus
}
#endif

#endif /* HB_SIZE_H */

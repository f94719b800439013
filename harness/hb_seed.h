/* hb_seed.h - the salt a strategy gives a library's randomized hash tables.
 *
 * expat salts each parser's hash tables with getrandom() (its defence against hash flooding,
 * CVE-2012-0876), so which element names collide differs from run to run: under callgrind one
 * binary's volumes/expat-tree counted 13.90e6 and 14.64e6 instructions per iteration in two
 * runs, and a compare of two commits with the same C code called that a 3.8% regression. The
 * compare's callgrind runs (scripts/hotbench/callgrind.py) fix the salt through $HB_HASH_SALT;
 * every other run keeps the library's own random salt.
 */
#ifndef HB_SEED_H
#define HB_SEED_H

#ifdef __cplusplus
extern "C" {
#endif

/* $HB_HASH_SALT as a number (decimal, or hex after 0x), 1 to ULONG_MAX, when it is set; else 0,
 * which means "keep the library's random salt". Read once per process (not thread-safe before
 * the first call returns). A value that is not such a number is reported once on stderr, naming
 * the variable and the value, and read as 0: the answers stay right, only the counts vary. */
unsigned long hb_hash_salt(void);

#ifdef __cplusplus
}
#endif

#endif

/* hb_manifest.h - the cases' descriptions (hb_case.h) as JSON: the manifest every script reads.
 * Schema "hotbench-manifest/1", documented in docs/manifest.md. */
#ifndef HB_MANIFEST_H
#define HB_MANIFEST_H

#include <stddef.h>
#include <stdio.h>

#include "hb.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HB_MANIFEST_SCHEMA "hotbench-manifest/1"

/* Writes the manifest of cases[0..n) to f as one line of JSON (no trailing newline). Returns 0,
 * or -1 when a write failed (errno from stdio). Strings are escaped per RFC 8259. */
int hb_manifest_write(FILE *f, const hb_case *cases, size_t n);

/* The same as a NUL-terminated string the caller frees, or NULL when out of memory. */
char *hb_manifest_json(const hb_case *cases, size_t n);

/* Whether family (a registered name "<group>/<strategy>") is described by one of cases[0..n):
 * 1 if a group of that name lists that strategy, else 0 and a sentence naming what is missing
 * and where to add it in why[0..cap). */
int hb_manifest_describes(const hb_case *cases, size_t n, const char *family, char *why,
                          size_t cap);

/* Whether the names the manifest's readers key on are unique: group names over all cases,
 * strategy names within a group, view keys over all cases (a reader keeps one of each, and two
 * views of one key write the same chart files); and that every custom_allocator_twin names
 * another strategy of its group and every group's limits a strategy and a ceiling of it. 1 if
 * so, else 0 and a sentence naming the duplicate (or the twin, or the limits) and its case in
 * why[0..cap). */
int hb_manifest_unique(const hb_case *cases, size_t n, char *why, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* HB_MANIFEST_H */

/* hb_alloc.h - the allocator a run measures: hotbench --hb_allocator=glibc|jemalloc|mimalloc|
 * tcmalloc (issue 16 item 1).
 *
 * Design: one binary serves every allocator. For any allocator but glibc the runner re-executes
 * itself (/proc/self/exe, the same argv) with the allocator's Debian shared library prepended to
 * LD_PRELOAD and the marker HB_ALLOCATOR_ACTIVE=<name>:<pid> (execve keeps the pid, so a marker
 * inherited from another process is not mistaken for ours). The preloaded malloc then serves the
 * whole process - the cases, google-benchmark, expat, libxml2, zlib - which is what an
 * application linked with that allocator gets. The trade-off against one binary per allocator:
 * no rebuild and no link-time choice, but LD_PRELOAD is process-wide (the harness's own
 * allocations use the allocator too) and rests on the dynamic loader's interposition.
 * After the re-exec the runner checks that malloc really is the library's: dladdr on
 * dlsym(RTLD_DEFAULT, "malloc") must name that library's file.
 *
 * Libraries: found by file name pattern in the build's multiarch folder (/usr/lib/<multiarch>), or
 * in $HB_ALLOCATOR_DIR when set (tests point it at a folder without them), so that a release's
 * new soname (libmimalloc.so.2 -> .so.3) needs no change here. Of the matches, the highest
 * version named like a soname (.so.<N>) is preloaded, else the highest of all (strverscmp);
 * the run JSON's hb_allocator_library is that file. scripts/deps.sh installs the packages.
 *   jemalloc  libjemalloc.so.*          version mallctl("version")
 *   mimalloc  libmimalloc.so.*          version mi_version(): 209 -> "2.0.9", 301 -> "3.0.1"
 *   tcmalloc  libtcmalloc_minimal.so.*  version tc_version()
 *   glibc     (libc itself, no re-exec) gnu_get_libc_version()
 * The version functions are found with dlsym: nothing links an allocator.
 *
 * A sanitizer build (AddressSanitizer replaces malloc itself) refuses every allocator but glibc:
 * preloading another malloc under ASan's interceptors conflicts with them.
 * Plain C; errors are values (messages in the caller's buffer); no exit below main.
 */
#ifndef HB_ALLOC_H
#define HB_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HB_ALLOC_NAMES "glibc, jemalloc, mimalloc, tcmalloc" /* for messages and --help */

/* What a run records about its allocator (the run JSON's context keys hb_allocator,
 * hb_allocator_version, hb_allocator_library). Strings inside the struct. */
typedef struct hb_alloc_info {
    char name[16];     /* "glibc", "jemalloc", "mimalloc", "tcmalloc" */
    char version[64];  /* e.g. "2.36", "5.3.0-0-g54eaed1d8b56...", "2.0.9", "gperftools 2.10" */
    char library[512]; /* the file dladdr names as the one serving malloc: for an allocator
                        * but glibc, the library file the pattern lookup chose and preloaded */
} hb_alloc_info;

/* Whether name is one of HB_ALLOC_NAMES. */
int hb_alloc_known(const char *name);

/* Makes this process run under the allocator name (one of HB_ALLOC_NAMES; NULL is "glibc"),
 * argv the process's argv (NULL-terminated, as main received it). For glibc nothing is
 * re-executed. For another, the first call re-executes the process under the library (it does
 * not return on success); in the re-executed process it removes the marker and checks that the
 * library serves malloc. On success fills *info and returns HB_OK. Otherwise writes one line
 * for the user into msg (cap bytes), starting "hotbench: --hb_allocator=<name>: ", and returns:
 * HB_EINVAL an unknown name (the names listed) or a sanitizer build; HB_EIO no file matching the
 * library's pattern (the folder and pattern named, and scripts/deps.sh's need), the re-exec
 * failing, or malloc served by another file than the library's. */
int hb_alloc_enter(const char *name, char *const *argv, hb_alloc_info *info, char *msg, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* HB_ALLOC_H */

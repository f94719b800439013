/* hb_alloc.c - the allocator a run measures: re-execution under LD_PRELOAD, the check that
 * malloc is the library's, its version (hb_alloc.h). */
#include "hb_alloc.h"
#include "hb_err.h"

#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define HB_ALLOC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HB_ALLOC_ASAN 1
#endif
#endif
#ifndef HB_ALLOC_ASAN
#define HB_ALLOC_ASAN 0
#endif

#define MARKER "HB_ALLOCATOR_ACTIVE" /* <name>:<pid> in the re-executed process */

/* One allocator: its name, the file name pattern of its library, how to read its version. */
typedef struct alloc_desc {
    const char *name;
    const char *pattern; /* glob(7) of the library's versioned names; NULL: glibc, no preload */
    int (*version)(char *out, size_t cap);
} alloc_desc;

static int glibc_version(char *out, size_t cap);
static int jemalloc_version(char *out, size_t cap);
static int mimalloc_version(char *out, size_t cap);
static int tcmalloc_version(char *out, size_t cap);

/* name      pattern                     version */
static const alloc_desc allocators[] = {
    {"glibc", NULL, glibc_version},
    {"jemalloc", "libjemalloc.so.*", jemalloc_version},
    {"mimalloc", "libmimalloc.so.*", mimalloc_version},
    {"tcmalloc", "libtcmalloc_minimal.so.*", tcmalloc_version},
};

static const alloc_desc *find(const char *name)
{
    for (size_t i = 0; i < sizeof allocators / sizeof allocators[0]; i++)
        if (!strcmp(allocators[i].name, name))
            return &allocators[i];
    return NULL;
}

int hb_alloc_known(const char *name)
{
    return name && find(name) != NULL;
}

static int glibc_version(char *out, size_t cap)
{
    snprintf(out, cap, "%s", gnu_get_libc_version());
    return HB_OK;
}

/* jemalloc: mallctl("version") gives a static string (jemalloc(3), "version (const char *) r-"). */
static int jemalloc_version(char *out, size_t cap)
{
    int (*mallctl)(const char *, void *, size_t *, void *, size_t);
    *(void **)&mallctl = dlsym(RTLD_DEFAULT, "mallctl");
    const char *v = NULL;
    size_t len = sizeof v;
    if (!mallctl || mallctl("version", (void *)&v, &len, NULL, 0) != 0 || !v)
        return HB_EIO;
    snprintf(out, cap, "%s", v);
    return HB_OK;
}

/* mimalloc: mi_version() is MI_MALLOC_VERSION, 100 * major + 10 * minor + patch (209: 2.0.9). */
static int mimalloc_version(char *out, size_t cap)
{
    int (*mi_version)(void);
    *(void **)&mi_version = dlsym(RTLD_DEFAULT, "mi_version");
    if (!mi_version)
        return HB_EIO;
    int v = mi_version();
    snprintf(out, cap, "%d.%d.%d", v / 100, v / 10 % 10, v % 10);
    return HB_OK;
}

/* gperftools: tc_version(&major, &minor, &patch) returns "gperftools 2.10". */
static int tcmalloc_version(char *out, size_t cap)
{
    const char *(*tc_version)(int *, int *, const char **);
    *(void **)&tc_version = dlsym(RTLD_DEFAULT, "tc_version");
    int major = 0, minor = 0;
    const char *patch = NULL;
    const char *v = tc_version ? tc_version(&major, &minor, &patch) : NULL;
    if (!v)
        return HB_EIO;
    snprintf(out, cap, "%s", v);
    return HB_OK;
}

/* The folder of the allocators' libraries: $HB_ALLOCATOR_DIR, the build's multiarch folder
 * (HB_MULTIARCH_DIR), else libc's own folder as the dynamic loader found it. */
static void library_dir(char *out, size_t cap)
{
    const char *env = getenv("HB_ALLOCATOR_DIR");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return;
    }
#ifdef HB_MULTIARCH_DIR
    if (HB_MULTIARCH_DIR[0]) {
        snprintf(out, cap, "%s", HB_MULTIARCH_DIR);
        return;
    }
#endif
    Dl_info di;
    if (dladdr((void *)gnu_get_libc_version, &di) && di.dli_fname) {
        snprintf(out, cap, "%s", di.dli_fname);
        char *slash = strrchr(out, '/');
        if (slash) {
            *slash = '\0';
            return;
        }
    }
    snprintf(out, cap, "/usr/lib");
}

/* Whether name ends in a soname's version, ".so.<digits>" (libmimalloc.so.3, not .so.3.0). */
static int soname_form(const char *name)
{
    const char *v = strstr(name, ".so.");
    if (!v || !v[4])
        return 0;
    for (v += 4; *v; v++)
        if (*v < '0' || *v > '9')
            return 0;
    return 1;
}

/* The library of a: among the files of its folder matching its pattern, the highest version
 * (strverscmp) of those named like a soname (.so.<N>: what a program linked with the library
 * loads), else of all matches; into out. Deterministic for one folder's contents. HB_OK, or
 * HB_EIO with out holding "<folder>/<pattern>" when nothing matches. */
static int find_library(const alloc_desc *a, char *out, size_t cap)
{
    char dir[PATH_MAX], pat[PATH_MAX + 64];
    library_dir(dir, sizeof dir);
    snprintf(pat, sizeof pat, "%s/%s", dir, a->pattern);
    snprintf(out, cap, "%s", pat);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
        return HB_EIO;
    const char *best = NULL;
    int best_soname = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *p = g.gl_pathv[i];
        int so = soname_form(strrchr(p, '/') + 1);
        if (!best || so > best_soname || (so == best_soname && strverscmp(p, best) > 0)) {
            best = p;
            best_soname = so;
        }
    }
    if (best)
        snprintf(out, cap, "%s", best);
    globfree(&g);
    return best ? HB_OK : HB_EIO;
}

/* Re-executes /proc/self/exe with path prepended to LD_PRELOAD and the marker set. Returns only
 * on failure: HB_EIO with the message. */
static int reexec(const alloc_desc *a, const char *path, char *const *argv, char *msg, size_t cap)
{
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(path) + (old ? strlen(old) + 1 : 0) + 1;
    char *pre = malloc(n);
    if (!pre) {
        snprintf(msg, cap, "hotbench: --hb_allocator=%s: out of memory", a->name);
        return HB_ENOMEM;
    }
    snprintf(pre, n, "%s%s%s", path, old && *old ? ":" : "", old && *old ? old : "");
    char mark[64];
    snprintf(mark, sizeof mark, "%s:%ld", a->name, (long)getpid());
    if (setenv("LD_PRELOAD", pre, 1) != 0 || setenv(MARKER, mark, 1) != 0) {
        free(pre);
        snprintf(msg, cap, "hotbench: --hb_allocator=%s: cannot set the environment: %s", a->name,
                 strerror(errno));
        return HB_EIO;
    }
    free(pre);
    execv("/proc/self/exe", argv);
    snprintf(msg, cap, "hotbench: --hb_allocator=%s: cannot re-execute /proc/self/exe: %s", a->name,
             strerror(errno));
    return HB_EIO;
}

/* Whether this process is the re-execution for a: the marker names a and this pid. */
static int is_reexecuted(const alloc_desc *a)
{
    const char *m = getenv(MARKER);
    char want[64];
    snprintf(want, sizeof want, "%s:%ld", a->name, (long)getpid());
    return m && !strcmp(m, want);
}

/* The file serving malloc (dladdr of dlsym(RTLD_DEFAULT, "malloc")) into out. HB_OK or HB_EIO. */
static int malloc_file(char *out, size_t cap)
{
    void *m = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info di;
    if (!m || !dladdr(m, &di) || !di.dli_fname)
        return HB_EIO;
    snprintf(out, cap, "%s", di.dli_fname);
    return HB_OK;
}

/* Whether files a and b are the same (their real paths are equal). */
static int same_file(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

/* Checks that glibc serves malloc (libc.so.*), allowing a sanitizer's runtime and valgrind's
 * replacement, which serve it by design; fills info->library. */
static int check_glibc(hb_alloc_info *info, char *msg, size_t cap)
{
    if (malloc_file(info->library, sizeof info->library) != HB_OK) {
        snprintf(msg, cap, "hotbench: --hb_allocator=glibc: cannot find which file serves malloc");
        return HB_EIO;
    }
    const char *base = strrchr(info->library, '/');
    base = base ? base + 1 : info->library;
    if (strncmp(base, "libc.so", 7) == 0 || HB_ALLOC_ASAN || RUNNING_ON_VALGRIND)
        return HB_OK;
    snprintf(msg, cap,
             "hotbench: --hb_allocator=glibc: malloc is served by %s, not glibc (LD_PRELOAD is "
             "'%s'): unset LD_PRELOAD, or choose that allocator with --hb_allocator",
             info->library, getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
    return HB_EIO;
}

int hb_alloc_enter(const char *name, char *const *argv, hb_alloc_info *info, char *msg, size_t cap)
{
    const alloc_desc *a = find(name ? name : "glibc");
    memset(info, 0, sizeof *info);
    if (!a) {
        snprintf(msg, cap, "hotbench: --hb_allocator=%s: unknown allocator; one of %s", name,
                 HB_ALLOC_NAMES);
        return HB_EINVAL;
    }
    snprintf(info->name, sizeof info->name, "%s", a->name);
    if (a->pattern && HB_ALLOC_ASAN) {
        snprintf(msg, cap,
                 "hotbench: --hb_allocator=%s: not in a sanitizer build (AddressSanitizer "
                 "replaces malloc; preloading another allocator conflicts with it): use glibc",
                 a->name);
        return HB_EINVAL;
    }
    int rc = HB_OK;
    char path[PATH_MAX + 64];
    if (!a->pattern) {
        rc = check_glibc(info, msg, cap);
    } else if (find_library(a, path, sizeof path) != HB_OK) {
        snprintf(msg, cap,
                 "hotbench: --hb_allocator=%s: no %s found; install %s's Debian library "
                 "(scripts/deps.sh does, its need '%s')",
                 a->name, path, a->name, a->name);
        return HB_EIO;
    } else if (!is_reexecuted(a)) {
        return reexec(a, path, argv, msg, cap);
    } else {
        unsetenv(MARKER);
        int found = malloc_file(info->library, sizeof info->library) == HB_OK;
        if (!found || !same_file(info->library, path)) {
            snprintf(msg, cap,
                     "hotbench: --hb_allocator=%s: re-executed with %s preloaded, but malloc is "
                     "served by %s",
                     a->name, path, found ? info->library : "an unknown file");
            return HB_EIO;
        }
    }
    if (rc == HB_OK && a->version(info->version, sizeof info->version) != HB_OK) {
        snprintf(msg, cap, "hotbench: --hb_allocator=%s: cannot read its version", a->name);
        rc = HB_EIO;
    }
    return rc;
}

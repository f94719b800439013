/* replay.c - the fuzz targets without libFuzzer: feeds every file of the given files and
 * directories to LLVMFuzzerTestOneInput, once each, in name order.
 *
 *     hb_fuzz_replay_<target> DIR_OR_FILE...
 *
 * What `make test` runs (fuzz/CMakeLists.txt registers one ctest per target over its committed
 * corpus, fuzz/corpus/<target>/, and crash-regression files, fuzz/regressions/<target>/), so a
 * fixed finding stays fixed in every build, with or without clang. Files named README* and dot
 * files are skipped. A target reports a finding by aborting (hb_fuzz_fail) after printing the
 * file; this driver prints one line per directory and a closing "N passed, 0 failed" line.
 * Exit status: 0 when every file ran (a directory may hold none: a regression directory starts
 * empty), 2 on a usage or I/O error (an unreadable file or directory).
 */
#include "hb_fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef HB_FUZZ_TARGET
#define HB_FUZZ_TARGET "target"
#endif

/* Reads the whole file into an exact-size heap block (*len bytes). NULL on an I/O error. */
static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    uint8_t *exact = hb_fuzz_copy(buf, n); /* ASan sees a read past the input */
    free(buf);
    *len = n;
    return exact;
}

/* Runs the target on one file. Returns 0, or 2 when it cannot be read. */
static int replay_file(const char *path)
{
    size_t len = 0;
    uint8_t *data = read_file(path, &len);
    if (!data) {
        fprintf(stderr, "hb_fuzz_replay: cannot read %s\n", path);
        return 2;
    }
    hb_fuzz_set_file(path);
    LLVMFuzzerTestOneInput(data, len);
    hb_fuzz_set_file(NULL);
    free(data);
    return 0;
}

static int skipped(const char *name)
{
    return name[0] == '.' || strncmp(name, "README", 6) == 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of dir in name order; *count gets how many ran. Returns 0 or 2. */
static int replay_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "hb_fuzz_replay: cannot open %s\n", dir);
        return 2;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (skipped(e->d_name))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **bigger = realloc(names, cap * sizeof *names);
            if (!bigger)
                abort();
            names = bigger;
        }
        size_t need = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(need);
        if (!names[n])
            abort();
        snprintf(names[n], need, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, by_name);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            rc = replay_file(names[i]);
            *count += rc == 0;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    size_t total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        size_t count = 0;
        int rc;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "hb_fuzz_replay: no such file or directory: %s\n", argv[i]);
            return 2;
        }
        rc = S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i]);
        count += !S_ISDIR(st.st_mode) && rc == 0;
        if (rc != 0)
            return rc;
        printf("%s: %s: %zu inputs replayed\n", HB_FUZZ_TARGET, argv[i], count);
        total += count;
    }
    printf("%zu passed, 0 failed\n", total);
    return 0;
}

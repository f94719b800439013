/* chunked_cache.c - layer 3 of the chunked generator (hb_gen.h): whole bodies, made by draining
 * the stream of chunked_frame.c: written to a file descriptor (hb_chunked_write, what
 * `hotbench-gen chunked` runs), built in malloc'd memory, or cached on disk under a name made of
 * every parameter, with a sidecar of its description, and mapped read-only (hb_chunked_load,
 * hb_chunked_cache_name); the decoded payload alone in memory (hb_payload_load); hb_blob_free.
 */
#include "hb_gen.h"
#include "hb_err.h"
#include "hb_io.h"
#include "chunked_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

/* ---- layer 3: whole bodies ------------------------------------------------------------------- */

#define HB_WRITE_BUF (256u << 10)
#define HB_PROGRESS_STEP ((uint64_t)64 << 20)

/* Calls progress when the payload has passed the next 64 MiB mark. */
static void hb_progress_maybe(hb_chunked_gen *g, hb_progress_fn progress, void *ctx, uint64_t *next)
{
    if (progress && g->info.size >= *next) {
        progress(ctx, g->info.size, g->p.size);
        *next = g->info.size + HB_PROGRESS_STEP;
    }
}

int hb_chunked_write(const hb_chunked_params *p, int fd, hb_progress_fn progress,
                     void *progress_ctx, hb_chunked_info *info)
{
    hb_chunked_gen *g;
    int rc = hb_chunked_gen_new(&g, p);
    if (rc != HB_OK)
        return rc;
    uint8_t *buf = malloc(HB_WRITE_BUF);
    if (!buf) {
        hb_chunked_gen_free(g);
        return HB_ENOMEM;
    }
    uint64_t next = HB_PROGRESS_STEP;
    for (;;) {
        size_t n;
        rc = hb_chunked_gen_read(g, buf, HB_WRITE_BUF, &n);
        if (rc != HB_OK || n == 0)
            break;
        if (hb_write_all(fd, buf, n) != 0) {
            rc = HB_EIO; /* errno kept */
            break;
        }
        hb_progress_maybe(g, progress, progress_ctx, &next);
    }
    if (rc == HB_OK && progress)
        progress(progress_ctx, g->info.size, g->p.size);
    if (info)
        hb_chunked_gen_info(g, info);
    int saved = errno;
    free(buf);
    hb_chunked_gen_free(g);
    errno = saved;
    return rc;
}

int hb_blob_to_memory(hb_blob *b)
{
    if (b->map_len_ == 0)
        return HB_OK;
    uint8_t *copy = malloc(b->len ? b->len : 1);
    if (!copy)
        return HB_ENOMEM;
    memcpy(copy, b->data, b->len);
    munmap(b->base_, b->map_len_);
    b->data = copy;
    b->base_ = copy;
    b->map_len_ = 0;
    return HB_OK;
}

void hb_blob_free(hb_blob *b)
{
    if (!b)
        return;
    if (b->map_len_ > 0)
        munmap(b->base_, b->map_len_);
    else
        free(b->base_);
    memset(b, 0, sizeof *b);
}

int hb_payload_load(uint64_t size, uint64_t seed, hb_blob *payload)
{
    memset(payload, 0, sizeof *payload);
    if (size >= SIZE_MAX)
        return HB_ENOMEM;
    uint8_t *buf = malloc(size > 0 ? (size_t)size : 1);
    if (!buf)
        return HB_ENOMEM;
    hb_payload_gen *g;
    int rc = hb_payload_gen_new(&g, size, seed);
    if (rc != HB_OK) {
        free(buf);
        return rc;
    }
    size_t n;
    hb_payload_gen_read(g, buf, (size_t)size, &n);
    hb_payload_gen_free(g);
    payload->data = buf;
    payload->len = n;
    payload->base_ = buf;
    return HB_OK;
}

/* Generates the whole body into malloc'd memory (no cache). */
static int hb_chunked_build(const hb_chunked_params *p, hb_progress_fn progress, void *ctx,
                            hb_blob *body, hb_chunked_info *info)
{
    hb_chunked_gen *g;
    int rc = hb_chunked_gen_new(&g, p);
    if (rc != HB_OK)
        return rc;
    /* A first guess at the body size: the data plus at most 11 framing bytes per chunk (7 hex
     * digits for 2^24, two CRLFs) plus the end; gzip stays below the payload plus 1/32. Grown
     * by half if ever exceeded. */
    uint64_t data = p->size + (p->gzip_level >= 0 ? (p->size >> 5) + 1024 : 0);
    uint64_t guess = data + (data / p->chunk_min + 1) * 11 + HB_SMALL_MAX;
    if (guess >= SIZE_MAX / 2) {
        hb_chunked_gen_free(g);
        return HB_ENOMEM;
    }
    size_t cap = (size_t)guess;
    size_t len = 0;
    uint8_t *buf = malloc(cap);
    uint64_t next = HB_PROGRESS_STEP;
    rc = buf ? HB_OK : HB_ENOMEM;
    while (rc == HB_OK) {
        if (len == cap) {
            size_t ncap = cap + cap / 2 + 4096;
            uint8_t *nbuf = realloc(buf, ncap);
            if (!nbuf) {
                rc = HB_ENOMEM;
                break;
            }
            buf = nbuf;
            cap = ncap;
        }
        size_t n;
        rc = hb_chunked_gen_read(g, buf + len, cap - len, &n);
        if (rc != HB_OK || n == 0)
            break;
        len += n;
        hb_progress_maybe(g, progress, ctx, &next);
    }
    if (rc == HB_OK) {
        if (progress)
            progress(ctx, g->info.size, g->p.size);
        hb_chunked_gen_info(g, info);
        body->data = buf;
        body->len = len;
        body->base_ = buf;
    } else {
        free(buf);
    }
    hb_chunked_gen_free(g);
    return rc;
}

int hb_chunked_cache_name(const hb_chunked_params *p, char *buf, size_t cap)
{
    if (hb_chunked_params_check(p, NULL) != HB_OK)
        return HB_EINVAL;
    char coding[16];
    if (p->gzip_level < 0)
        snprintf(coding, sizeof coding, "identity");
    else
        snprintf(coding, sizeof coding, "gzip%d", p->gzip_level);
    int k =
        snprintf(buf, cap, "chunked-v%d-size%llu-chunk%lu-%lu-%s-trailer%d-seed%llu",
                 HB_GEN_FORMAT_VERSION, (unsigned long long)p->size, (unsigned long)p->chunk_min,
                 (unsigned long)p->chunk_max, coding, p->trailer != 0, (unsigned long long)p->seed);
    if (k < 0 || (size_t)k >= cap)
        return HB_EINVAL;
    return HB_OK;
}

/* The sidecar: the hb_chunked_info fields and checks of the body's ends, one "key value" line
 * each. */
#define HB_SIDECAR_MAGIC "hotbench chunked cache"
#define HB_EDGE ((size_t)64 << 10) /* bytes at each end of the body covered by a crc32 */

typedef struct hb_sidecar {
    hb_chunked_info info;
    uint32_t head_crc32; /* crc32 of the body's first min(HB_EDGE, body_size) bytes */
    uint32_t tail_crc32; /* crc32 of the body's last min(HB_EDGE, body_size) bytes */
} hb_sidecar;

static void hb_edges(const uint8_t *body, size_t len, uint32_t *head, uint32_t *tail)
{
    size_t k = len < HB_EDGE ? len : HB_EDGE;
    uint32_t zero = (uint32_t)crc32(0L, Z_NULL, 0);
    *head = hb_crc_update(zero, body, k);
    *tail = hb_crc_update(zero, body + len - k, k);
}

/* Reads a sidecar; returns 0 when it parses and has every field. */
static int hb_sidecar_read(const char *path, hb_sidecar *sc)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    unsigned seen = 0;
    int version = -1;
    if (fgets(line, sizeof line, f) && sscanf(line, HB_SIDECAR_MAGIC " v%d", &version) != 1)
        version = -1;
    while (version == HB_GEN_FORMAT_VERSION && fgets(line, sizeof line, f)) {
        char key[32], val[64];
        if (sscanf(line, "%31s %63s", key, val) != 2)
            continue;
        int hex = strstr(key, "crc32") != NULL; /* crc32, head_crc32, tail_crc32 are hex */
        char *endp;
        errno = 0;
        unsigned long long v = strtoull(val, &endp, hex ? 16 : 10);
        if (errno != 0 || *endp != '\0' || endp == val)
            continue;
        if (strcmp(key, "size") == 0) {
            sc->info.size = v;
            seen |= 1u << 0;
        } else if (strcmp(key, "crc32") == 0 && v <= 0xffffffffu) {
            sc->info.crc32 = (uint32_t)v;
            seen |= 1u << 1;
        } else if (strcmp(key, "body_size") == 0) {
            sc->info.body_size = v;
            seen |= 1u << 2;
        } else if (strcmp(key, "chunks") == 0) {
            sc->info.chunks = v;
            seen |= 1u << 3;
        } else if (strcmp(key, "gzip_size") == 0) {
            sc->info.gzip_size = v;
            seen |= 1u << 4;
        } else if (strcmp(key, "rows") == 0) {
            sc->info.rows = v;
            seen |= 1u << 5;
        } else if (strcmp(key, "head_crc32") == 0 && v <= 0xffffffffu) {
            sc->head_crc32 = (uint32_t)v;
            seen |= 1u << 6;
        } else if (strcmp(key, "tail_crc32") == 0 && v <= 0xffffffffu) {
            sc->tail_crc32 = (uint32_t)v;
            seen |= 1u << 7;
        }
    }
    fclose(f);
    return seen == 0xffu ? 0 : -1;
}

/* Writes a sidecar to path. Returns HB_OK or HB_EIO (errno). */
static int hb_sidecar_write(const char *path, const hb_sidecar *sc)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return HB_EIO;
    fprintf(f, "%s v%d\n", HB_SIDECAR_MAGIC, HB_GEN_FORMAT_VERSION);
    fprintf(f, "size %llu\n", (unsigned long long)sc->info.size);
    fprintf(f, "crc32 %08lx\n", (unsigned long)sc->info.crc32);
    fprintf(f, "body_size %llu\n", (unsigned long long)sc->info.body_size);
    fprintf(f, "chunks %llu\n", (unsigned long long)sc->info.chunks);
    fprintf(f, "gzip_size %llu\n", (unsigned long long)sc->info.gzip_size);
    fprintf(f, "rows %llu\n", (unsigned long long)sc->info.rows);
    fprintf(f, "head_crc32 %08lx\n", (unsigned long)sc->head_crc32);
    fprintf(f, "tail_crc32 %08lx\n", (unsigned long)sc->tail_crc32);
    fprintf(f, "zlib %s\n", zlibVersion());
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        if (bad)
            errno = EIO;
        return HB_EIO;
    }
    return HB_OK;
}

/* Maps the cached body at path if the sidecar at info_path vouches for it: the sidecar parses,
 * its payload size is the one asked for, the file's size is its body_size and both ends of the
 * body match their crc32. Returns HB_OK, or HB_EIO when there is no usable cache entry. */
static int hb_cache_open(const char *path, const char *info_path, uint64_t size, hb_blob *body,
                         hb_chunked_info *info)
{
    hb_sidecar sc;
    memset(&sc, 0, sizeof sc);
    if (hb_sidecar_read(info_path, &sc) != 0 || sc.info.size != size)
        return HB_EIO;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return HB_EIO;
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != sc.info.body_size || st.st_size == 0 ||
        (uint64_t)st.st_size >= SIZE_MAX) {
        close(fd);
        return HB_EIO;
    }
    size_t len = (size_t)st.st_size;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return HB_EIO;
    uint32_t head, tail;
    hb_edges(m, len, &head, &tail);
    if (head != sc.head_crc32 || tail != sc.tail_crc32) {
        munmap(m, len);
        return HB_EIO;
    }
    body->data = m;
    body->len = len;
    body->base_ = m;
    body->map_len_ = len;
    *info = sc.info;
    return HB_OK;
}

/* mkdir -p: creates dir and its missing parents. Returns HB_OK or HB_EIO (errno). */
static int hb_mkdirs(const char *dir)
{
    size_t len = strlen(dir);
    char *tmp = malloc(len + 1);
    if (!tmp)
        return HB_ENOMEM;
    memcpy(tmp, dir, len + 1);
    int rc = HB_OK;
    for (size_t i = 1; i <= len && rc == HB_OK; i++) {
        if (tmp[i] != '/' && tmp[i] != '\0')
            continue;
        char c = tmp[i];
        tmp[i] = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            rc = HB_EIO;
        tmp[i] = c;
    }
    free(tmp);
    if (rc == HB_OK) {
        struct stat st;
        if (stat(dir, &st) != 0)
            return HB_EIO;
        if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return HB_EIO;
        }
    }
    return rc;
}

/* Generates the body into a temporary file beside path, then renames it and its sidecar into
 * place. Returns HB_OK or an hb_err (HB_EIO with errno). */
static int hb_cache_fill(const hb_chunked_params *p, const char *path, const char *info_path,
                         hb_progress_fn progress, void *ctx)
{
    size_t plen = strlen(path) + 32;
    char *tmp = malloc(plen);
    char *tmp_info = malloc(plen);
    int rc = HB_ENOMEM;
    int fd = -1;
    hb_sidecar sc;
    void *m;
    memset(&sc, 0, sizeof sc);
    if (!tmp || !tmp_info)
        goto out;
    snprintf(tmp, plen, "%s.tmp.%ld", path, (long)getpid());
    snprintf(tmp_info, plen, "%s.tmp.%ld", info_path, (long)getpid());
    fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644); /* RDWR: mapped below */
    rc = HB_EIO;
    if (fd < 0)
        goto out;
    rc = hb_chunked_write(p, fd, progress, ctx, &sc.info);
    if (rc != HB_OK)
        goto out;
    /* the ends of what was written, read back through a mapping */
    m = mmap(NULL, (size_t)sc.info.body_size, PROT_READ, MAP_SHARED, fd, 0);
    rc = HB_EIO;
    if (m == MAP_FAILED)
        goto out;
    hb_edges(m, (size_t)sc.info.body_size, &sc.head_crc32, &sc.tail_crc32);
    munmap(m, (size_t)sc.info.body_size);
    int c = close(fd);
    fd = -1;
    if (c != 0)
        goto out;
    rc = hb_sidecar_write(tmp_info, &sc);
    if (rc != HB_OK)
        goto out;
    /* body first: a body without its sidecar is never trusted */
    if (rename(tmp, path) != 0 || rename(tmp_info, info_path) != 0) {
        rc = HB_EIO;
        goto out;
    }
    rc = HB_OK;
out:;
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (rc != HB_OK && tmp) {
        unlink(tmp);
        if (tmp_info)
            unlink(tmp_info);
    }
    free(tmp);
    free(tmp_info);
    errno = saved;
    return rc;
}

/* Removes the temporary files hb_cache_fill of process pid left beside path and info_path. */
static void hb_cache_fill_remains(const char *path, const char *info_path, pid_t pid)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)pid) < (int)sizeof tmp)
        unlink(tmp);
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", info_path, (long)pid) < (int)sizeof tmp)
        unlink(tmp);
}

/* What the child of hb_cache_fill_apart reports: the progress calls short of the end (the parent
 * makes the last one, done == total, once the body is there). */
typedef struct hb_progress_fwd {
    hb_progress_fn fn;
    void *ctx;
} hb_progress_fwd;

static void hb_progress_before_end(void *ctx, uint64_t done, uint64_t total)
{
    const hb_progress_fwd *f = ctx;
    if (done < total)
        f->fn(f->ctx, done, total);
}

/* Runs hb_cache_fill in a child process, so that making the body (the generator's and deflate's
 * allocations, freed when done) leaves nothing in this process's heap: a process that found the
 * body cached and one that had to make it go on with the same malloc layout (each page written
 * before the fork faults once more when next written: copy-on-write). glibc serves a big array
 * from a free chunk of the heap when one fits, so what an earlier allocation left decides
 * whether a benchmark's array is recycled heap or fresh pages (results/notes/heap-history.md).
 * The child sends back the result and errno through a pipe; when it dies without a word, its
 * temporary files are removed and the result is HB_EIO (errno EIO). When pipe or fork fails,
 * fills in this process. Returns what hb_cache_fill returned (errno kept for HB_EIO). */
static int hb_cache_fill_apart(const hb_chunked_params *p, const char *path, const char *info_path,
                               hb_progress_fn progress, void *ctx)
{
    hb_progress_fwd fwd = {progress, ctx};
    hb_progress_fn fn = progress ? hb_progress_before_end : NULL;
    int fds[2];
    pid_t pid = -1;
    if (pipe2(fds, O_CLOEXEC) == 0 && (pid = fork()) < 0) {
        close(fds[0]);
        close(fds[1]);
    }
    if (pid <= 0) { /* the child, or this process when there is none */
        int sent[2] = {hb_cache_fill(p, path, info_path, fn, &fwd), 0};
        if (pid < 0)
            return sent[0];
        sent[1] = errno;
        _exit(write(fds[1], sent, sizeof sent) == (ssize_t)sizeof sent ? 0 : 1);
    }
    close(fds[1]);
    int got[2] = {HB_EIO, EIO}, status = 0;
    ssize_t n;
    do
        n = read(fds[0], got, sizeof got);
    while (n < 0 && errno == EINTR);
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof got) { /* the child died before it could say (the OOM killer) */
        hb_cache_fill_remains(path, info_path, pid);
        errno = EIO;
        return HB_EIO;
    }
    errno = got[1];
    return got[0];
}

int hb_chunked_load(const hb_chunked_params *p, const char *cache_dir, hb_progress_fn progress,
                    void *progress_ctx, hb_blob *body, hb_chunked_info *info)
{
    memset(body, 0, sizeof *body);
    memset(info, 0, sizeof *info);
    if (hb_chunked_params_check(p, NULL) != HB_OK)
        return HB_EINVAL;
    if (!cache_dir)
        return hb_chunked_build(p, progress, progress_ctx, body, info);

    char name[160];
    int rc = hb_chunked_cache_name(p, name, sizeof name);
    if (rc != HB_OK)
        return rc;
    size_t plen = strlen(cache_dir) + strlen(name) + 8;
    char *path = malloc(plen);
    char *info_path = malloc(plen);
    rc = HB_ENOMEM;
    if (!path || !info_path)
        goto out;
    snprintf(path, plen, "%s/%s.body", cache_dir, name);
    snprintf(info_path, plen, "%s/%s.info", cache_dir, name);

    rc = hb_cache_open(path, info_path, p->size, body, info);
    if (rc == HB_OK) {
        if (progress)
            progress(progress_ctx, p->size, p->size);
        goto out;
    }
    rc = hb_mkdirs(cache_dir);
    if (rc != HB_OK)
        goto out;
    rc = hb_cache_fill_apart(p, path, info_path, progress, progress_ctx);
    if (rc != HB_OK)
        goto out;
    rc = hb_cache_open(path, info_path, p->size, body, info);
    if (rc == HB_OK && progress)
        progress(progress_ctx, p->size, p->size); /* the end, once the body is there */
out:;
    int saved = errno;
    free(path);
    free(info_path);
    errno = saved;
    return rc;
}

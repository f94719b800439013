/* hb_counters.c - minor faults, peak resident memory and memory system calls of a timed loop
 * (hb_counters.h). */
#include "hb_counters.h"
#include "hb_err.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const syscall_names[HB_COUNTERS_SYSCALLS] = {"mmap", "munmap", "mremap",
                                                                "madvise"};

/* Where tracefs shows the syscall tracepoints: its own mount, then the old debugfs place. */
static const char *const tracefs_dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

const char *hb_counters_syscall_name(int i)
{
    return i >= 0 && i < HB_COUNTERS_SYSCALLS ? syscall_names[i] : NULL;
}

/* The tracepoint id of syscalls:sys_enter_<name> into *id. Returns HB_OK, or HB_EIO with the
 * path tried last and errno's text in why. */
static int tracepoint_id(const char *name, uint64_t *id, char *why, size_t cap)
{
    char path[128], first[128] = "";
    int err = 0;
    for (size_t k = 0; k < sizeof tracefs_dirs / sizeof tracefs_dirs[0]; k++) {
        snprintf(path, sizeof path, "%s/events/syscalls/sys_enter_%s/id", tracefs_dirs[k], name);
        FILE *f = fopen(path, "r");
        if (!f) {
            if (!err) { /* the reason given is tracefs's own (EACCES says more than ENOENT) */
                err = errno;
                snprintf(first, sizeof first, "%s", path);
            }
            continue;
        }
        unsigned long long v = 0;
        int ok = fscanf(f, "%llu", &v) == 1;
        fclose(f);
        if (ok) {
            *id = v;
            return HB_OK;
        }
        if (!err) {
            err = EINVAL;
            snprintf(first, sizeof first, "%s", path);
        }
    }
    snprintf(why, cap, "unavailable: cannot read %s: %s", first, strerror(err));
    return HB_EIO;
}

/* Opens the counter of syscalls:sys_enter_<name> for this thread, disabled, in leader's group
 * (-1: it leads). Returns the fd, or -1 with the reason in why. */
static int open_tracepoint(const char *name, int leader, char *why, size_t cap)
{
    uint64_t id = 0;
    if (tracepoint_id(name, &id, why, cap) != HB_OK)
        return -1;
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_TRACEPOINT;
    a.config = id;
    a.disabled = leader < 0; /* members follow their leader */
    a.read_format = PERF_FORMAT_GROUP;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1 /* any CPU */, leader,
                          PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        int paranoid = -9;
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
        if (f) {
            if (fscanf(f, "%d", &paranoid) != 1)
                paranoid = -9;
            fclose(f);
        }
        if (paranoid != -9)
            snprintf(why, cap,
                     "unavailable: perf_event_open(syscalls:sys_enter_%s): %s "
                     "(kernel.perf_event_paranoid is %d)",
                     name, strerror(e), paranoid);
        else
            snprintf(why, cap, "unavailable: perf_event_open(syscalls:sys_enter_%s): %s", name,
                     strerror(e));
    }
    return fd;
}

int hb_counters_open(hb_counters *c)
{
    memset(c, 0, sizeof *c);
    c->enabled = 1;
    c->tid = (pid_t)syscall(SYS_gettid);
    for (int i = 0; i < HB_COUNTERS_SYSCALLS; i++)
        c->fds[i] = -1;
    for (int i = 0; i < HB_COUNTERS_SYSCALLS; i++) {
        c->fds[i] = open_tracepoint(syscall_names[i], i ? c->fds[0] : -1, c->syscalls_why,
                                    sizeof c->syscalls_why);
        if (c->fds[i] < 0) {
            for (int k = 0; k < i; k++) {
                close(c->fds[k]);
                c->fds[k] = -1;
            }
            return HB_OK;
        }
    }
    c->syscalls_ok = 1;
    snprintf(c->syscalls_why, sizeof c->syscalls_why, "tracepoints");
    return HB_OK;
}

void hb_counters_disable(hb_counters *c, const char *why)
{
    hb_counters_close(c);
    snprintf(c->syscalls_why, sizeof c->syscalls_why, "unavailable: %s", why);
}

void hb_counters_close(hb_counters *c)
{
    for (int i = 0; i < HB_COUNTERS_SYSCALLS; i++) {
        if (c->fds[i] >= 0)
            close(c->fds[i]);
        c->fds[i] = -1;
    }
    c->syscalls_ok = 0;
    c->enabled = 0;
    c->live = 0;
}

void hb_counters_begin(hb_counters *c)
{
    /* the hooks act on this call when enabled and on the opening thread (one gettid per call) */
    c->live = c->enabled && (pid_t)syscall(SYS_gettid) == c->tid;
    if (!c->live)
        return;
    c->started = c->ended = c->counting = c->hwm_reset = 0;
    c->minor_faults = 0;
    c->peak_rss_bytes = c->rss_at_start = 0;
    memset(c->syscalls, 0, sizeof c->syscalls);
    if (c->syscalls_ok)
        ioctl(c->fds[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
}

/* Writes "5" to /proc/self/clear_refs: the process's VmHWM becomes its current RSS (proc(5)).
 * Returns 1 when the kernel took it. */
static int reset_vmhwm(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int ok = write(fd, "5", 1) == 1;
    close(fd);
    return ok;
}

/* The thread's minor faults so far (getrusage RUSAGE_THREAD); 0 when it fails. */
static long thread_minflt(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt : 0;
}

void hb_counters_resume(hb_counters *c)
{
    if (!c->live || c->counting || c->ended)
        return;
    if (!c->started) {
        c->started = 1;
        c->hwm_reset = reset_vmhwm();
        /* the reset VmHWM is the resident set now: what the loop's growth is counted from */
        if (c->hwm_reset && hb_counters_vmhwm(&c->rss_at_start) != HB_OK)
            c->hwm_reset = 0;
    }
    c->counting = 1;
    c->minflt_at = thread_minflt();
    if (c->syscalls_ok)
        ioctl(c->fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

void hb_counters_pause(hb_counters *c)
{
    if (!c->live || !c->counting)
        return;
    if (c->syscalls_ok)
        ioctl(c->fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    long now = thread_minflt();
    if (now > c->minflt_at)
        c->minor_faults += (uint64_t)(now - c->minflt_at);
    c->counting = 0;
}

int hb_counters_vmhwm(uint64_t *bytes)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return HB_EIO;
    char line[256];
    int rc = HB_EIO;
    while (fgets(line, sizeof line, f)) {
        unsigned long long kb = 0;
        if (sscanf(line, "VmHWM: %llu kB", &kb) == 1) {
            *bytes = (uint64_t)kb * 1024u;
            rc = HB_OK;
            break;
        }
    }
    fclose(f);
    return rc;
}

void hb_counters_end(hb_counters *c)
{
    if (!c->live || !c->started || c->ended)
        return;
    hb_counters_pause(c);
    c->ended = 1;
    if (c->syscalls_ok) {
        /* PERF_FORMAT_GROUP: the number of events, then one value per event, leader first */
        uint64_t v[1 + HB_COUNTERS_SYSCALLS];
        if (read(c->fds[0], v, sizeof v) == (ssize_t)sizeof v && v[0] == HB_COUNTERS_SYSCALLS)
            memcpy(c->syscalls, v + 1, sizeof c->syscalls);
        else
            c->syscalls_ok = 0; /* a short read: the counts of this process are not trusted */
    }
    uint64_t hwm = 0;
    if (c->hwm_reset && hb_counters_vmhwm(&hwm) == HB_OK)
        c->peak_rss_bytes = hwm;
}

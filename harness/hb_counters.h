/* hb_counters.h - what a benchmark's timed loop asked of the kernel: minor page faults, peak
 * resident memory, and the memory system calls (mmap, munmap, mremap, madvise).
 *
 * The shim (hb_shim.cc) drives one hb_counters over each call of a benchmark function: begin
 * when the call starts, resume when the timed loop starts or resumes, pause at every pause and
 * when the loop ends, end once the loop is over. Every read happens on the untimed side of
 * those edges (DESIGN.md measurement rule 4, issue 16 item 2):
 *   - minor page faults: getrusage(RUSAGE_THREAD) ru_minflt, read at each edge. Chosen over the
 *     perf software event PERF_COUNT_SW_PAGE_FAULTS_MIN because it always works (no
 *     perf_event_paranoid, no capability, under any sanitizer) and counts the faults the kernel
 *     takes on the thread's behalf (a read(2) into fresh pages) as well as the user's own.
 *   - peak resident memory: "5" written to /proc/self/clear_refs when the loop starts resets the
 *     process's VmHWM (proc(5)); VmHWM read from /proc/self/status when it ends. Read once
 *     just after the reset too: the resident set the loop started from, so that the loop's own
 *     growth (peak minus start) is known apart from the inputs and caches already resident.
 *   - system calls: one perf_event_open group of the tracepoints syscalls:sys_enter_<name>
 *     (perf_event_open(2), Documentation/trace/events.rst), this thread, enabled only while
 *     the loop is timed. Needs a readable tracefs (/sys/kernel/tracing: root) and perf's
 *     permission for tracepoints (root or CAP_PERFMON, or a low kernel.perf_event_paranoid);
 *     without them the four counts are unavailable and the reason is kept.
 * Plain C; the caller owns the struct (no globals). Single-threaded: the thread that opened it
 * must be the one that drives it (the hooks do nothing on another thread).
 */
#ifndef HB_COUNTERS_H
#define HB_COUNTERS_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HB_COUNTERS_SYSCALLS 4 /* mmap, munmap, mremap, madvise: hb_counters_syscall_name */

typedef struct hb_counters {
    /* set by hb_counters_open */
    int enabled;                   /* 0: every hook does nothing (hb_counters_disable) */
    pid_t tid;                     /* the thread that opened it */
    int fds[HB_COUNTERS_SYSCALLS]; /* perf events, fds[0] the group leader; -1 when none */
    int syscalls_ok;               /* 1: the tracepoint group is open */
    char syscalls_why[192];        /* "tracepoints" or "unavailable: <reason>" */
    /* one call of a benchmark function (hb_counters_begin resets them) */
    int live;                                /* enabled and on the opening thread: the hooks act */
    int started;                             /* the timed loop has started */
    int ended;                               /* and ended (hb_counters_end) */
    int counting;                            /* between a resume and a pause */
    int hwm_reset;                           /* clear_refs accepted when the loop started */
    long minflt_at;                          /* ru_minflt at the last resume */
    uint64_t minor_faults;                   /* faults inside the timed spans so far */
    uint64_t peak_rss_bytes;                 /* VmHWM at the end (0 unknown) */
    uint64_t rss_at_start;                   /* VmHWM just after the reset: the RSS then */
    uint64_t syscalls[HB_COUNTERS_SYSCALLS]; /* counts of the timed spans (hb_counters_end) */
} hb_counters;

/* The system call counted at index i (0..HB_COUNTERS_SYSCALLS-1): "mmap", "munmap", "mremap",
 * "madvise"; NULL past the end. Static strings. */
const char *hb_counters_syscall_name(int i);

/* Prepares *c on the calling thread and tries to open the tracepoint group. Always usable
 * afterwards: page faults and peak memory need nothing opened; when the tracepoints cannot be
 * opened, c->syscalls_ok is 0 and c->syscalls_why says "unavailable: <what failed>: <errno
 * text>" (else "tracepoints"). Returns HB_OK either way; release with hb_counters_close. */
int hb_counters_open(hb_counters *c);

/* Switches every hook of *c off (e.g. under valgrind, where the counts would be valgrind's),
 * with why as the syscall reason ("unavailable: <why>"). Safe after hb_counters_open. */
void hb_counters_disable(hb_counters *c, const char *why);

/* Closes the perf events; *c is then disabled. Safe to call twice. */
void hb_counters_close(hb_counters *c);

/* A new call of a benchmark function: forgets the previous call's counts. */
void hb_counters_begin(hb_counters *c);

/* The timed loop starts (first call) or resumes: resets VmHWM on the first, reads ru_minflt,
 * enables the syscall group. Call just before the timer starts. */
void hb_counters_resume(hb_counters *c);

/* The timed loop pauses: disables the syscall group, adds the faults since the resume. Call
 * just after the timer stops. Nothing when not counting. */
void hb_counters_pause(hb_counters *c);

/* The timed loop is over (call after the timer stopped): pauses, reads the syscall totals and
 * VmHWM, marks the call ended. Nothing when the loop never started. */
void hb_counters_end(hb_counters *c);

/* Reads the process's VmHWM (peak resident set, /proc/self/status) in bytes into *bytes.
 * Returns HB_OK or HB_EIO (no such line or an unreadable file). */
int hb_counters_vmhwm(uint64_t *bytes);

#ifdef __cplusplus
}
#endif

#endif /* HB_COUNTERS_H */

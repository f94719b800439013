/* hb_calibrate.h - a few seconds measuring the machine: first touch and warm copy bandwidth,
 * and the speed of a short CPU-bound loop.
 *
 * The figures that explain why two machines' results differ (DESIGN.md, "Physical limits"):
 * writing fresh memory pays a page fault per 4 KiB page, copying warm memory does not, and
 * parsing is bound by the core's speed, not by memory. hotbench --hb_calibrate prints them as
 * one JSON object (schema "hotbench-calibration/1"); cases price their long runs with the single
 * measurements, scripts/bench.py scales its expected durations with them
 * (scripts/hotbench/estimate.py). Decimal GB/s (10^9 bytes per second), millions of loop steps
 * per second, on the monotonic clock (hb_now_s). Plain C; each function allocates and frees its
 * own buffers.
 */
#ifndef HB_CALIBRATE_H
#define HB_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HB_CALIBRATE_TOUCH_BYTES ((size_t)256 << 20) /* first touch: 256 MiB, fresh each time */
#define HB_CALIBRATE_COPY_BYTES ((size_t)64 << 20)   /* warm copy: 64 MiB between two buffers */
#define HB_CALIBRATE_CPU_STEPS ((uint64_t)1 << 24)   /* CPU probe: ~50 ms at 3 ns a step */
#define HB_CALIBRATE_REPS 3                          /* measurements; the median is kept */

typedef struct hb_calibration {
    double first_touch_gbps; /* GB/s writing freshly malloc'd memory (page faults included) */
    double warm_copy_gbps;   /* GB/s of memcpy between two already-touched buffers */
    double cpu_mops;         /* millions of steps per second of the CPU probe (L1-resident) */
    double seconds;          /* wall time hb_calibrate took */
} hb_calibration;

/* First touch: reps times malloc(bytes) (above glibc's mmap threshold: fresh pages from the
 * kernel, 4 KiB pages, no madvise), memset of every byte, free; the median of the reps rates in
 * *gbps. bytes >= 4096, 1 <= reps <= 15. Returns HB_OK, HB_EINVAL or HB_ENOMEM. */
int hb_calibrate_first_touch(size_t bytes, int reps, double *gbps);

/* Warm copy: two buffers of bytes, both written once first, then reps memcpy of bytes from one
 * to the other; the median of the reps rates in *gbps. Peak memory: 2 x bytes. bytes >= 4096,
 * 1 <= reps <= 15. Returns HB_OK, HB_EINVAL or HB_ENOMEM. */
int hb_calibrate_warm_copy(size_t bytes, int reps, double *gbps);

/* CPU probe: reps runs of steps steps of a dependent chain that a parser's inner loop resembles
 * (xorshift64, a lookup in a 1 KiB table, a data-dependent branch taken half the time); nothing
 * is allocated and no memory beyond L1 is touched, so the rate follows the core's speed and is
 * blind to page faults and memory bandwidth. The median of the reps rates, in millions of steps
 * per second, in *mops. steps >= 1024, 1 <= reps <= 15. Returns HB_OK or HB_EINVAL. */
int hb_calibrate_cpu(uint64_t steps, int reps, double *mops);

/* The three measurements at the sizes above (peak memory 256 MiB; ~1 s at 1 GB/s of first
 * touch, ~3.5 s on a VM at 0.3 GB/s). Returns HB_OK or HB_ENOMEM; *out is filled only on HB_OK. */
int hb_calibrate(hb_calibration *out);

/* Writes *c as one line of JSON, {"schema": "hotbench-calibration/1", "first_touch_gbps": F,
 * "warm_copy_gbps": F, "cpu_mops": F, "seconds": F}, and a newline into buf (size bytes, the
 * caller's). cpu_mops is new in this schema version: readers of older records treat it as
 * absent. Returns the length (as snprintf), or HB_EINVAL when it does not fit or a figure is not
 * finite. */
int hb_calibration_json(const hb_calibration *c, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* HB_CALIBRATE_H */

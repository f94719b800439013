/* hb_calibrate.c - first touch and warm copy bandwidth of this machine (see hb_calibrate.h). */
#include "hb_calibrate.h"

#include "hb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPS 15

/* The median of the n rates in r (sorted in place). */
static double median(double *r, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
            double t = r[j];
            r[j] = r[j - 1];
            r[j - 1] = t;
        }
    return n % 2 ? r[n / 2] : 0.5 * (r[n / 2 - 1] + r[n / 2]);
}

/* Bytes over seconds in decimal GB/s; the clock's resolution bounds the seconds from below. */
static double gbps(size_t bytes, double seconds)
{
    return (double)bytes / 1e9 / (seconds > 1e-9 ? seconds : 1e-9);
}

int hb_calibrate_first_touch(size_t bytes, int reps, double *out)
{
    double r[MAX_REPS];
    if (bytes < 4096 || reps < 1 || reps > MAX_REPS || !out)
        return HB_EINVAL;
    for (int i = 0; i < reps; i++) {
        double t0 = hb_now_s();
        unsigned char *p = malloc(bytes);
        if (!p)
            return HB_ENOMEM;
        memset(p, 0x5a, bytes);
        hb_do_not_optimize_ptr(p); /* the stores are observed: not elided with the free */
        double t1 = hb_now_s();
        free(p);
        r[i] = gbps(bytes, t1 - t0);
    }
    *out = median(r, reps);
    return HB_OK;
}

int hb_calibrate_warm_copy(size_t bytes, int reps, double *out)
{
    double r[MAX_REPS];
    if (bytes < 4096 || reps < 1 || reps > MAX_REPS || !out)
        return HB_EINVAL;
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return HB_ENOMEM;
    }
    memset(a, 0x5a, bytes);
    memset(b, 0xa5, bytes);
    for (int i = 0; i < reps; i++) {
        double t0 = hb_now_s();
        memcpy(b, a, bytes);
        hb_do_not_optimize_ptr(b);
        r[i] = gbps(bytes, hb_now_s() - t0);
    }
    free(a);
    free(b);
    *out = median(r, reps);
    return HB_OK;
}

int hb_calibrate_cpu(uint64_t steps, int reps, double *out)
{
    double r[MAX_REPS];
    uint32_t table[256];
    if (steps < 1024 || reps < 1 || reps > MAX_REPS || !out)
        return HB_EINVAL;
    for (uint32_t i = 0; i < 256; i++)
        table[i] = i * UINT32_C(2654435761) ^ (i << 7);
    for (int i = 0; i < reps; i++) {
        uint64_t x = UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)i, acc = 0;
        double t0 = hb_now_s();
        for (uint64_t s = 0; s < steps; s++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            acc += table[(x ^ acc) & 255];
            if (acc & 1) /* taken about half the time, unpredictably */
                acc += x >> 40;
        }
        hb_do_not_optimize_u64(acc);
        double dt = hb_now_s() - t0;
        r[i] = (double)steps / 1e6 / (dt > 1e-9 ? dt : 1e-9);
    }
    *out = median(r, reps);
    return HB_OK;
}

int hb_calibrate(hb_calibration *out)
{
    hb_calibration c;
    double t0 = hb_now_s();
    int rc =
        hb_calibrate_first_touch(HB_CALIBRATE_TOUCH_BYTES, HB_CALIBRATE_REPS, &c.first_touch_gbps);
    if (rc == HB_OK)
        rc = hb_calibrate_warm_copy(HB_CALIBRATE_COPY_BYTES, HB_CALIBRATE_REPS, &c.warm_copy_gbps);
    if (rc == HB_OK)
        rc = hb_calibrate_cpu(HB_CALIBRATE_CPU_STEPS, HB_CALIBRATE_REPS, &c.cpu_mops);
    if (rc != HB_OK)
        return rc;
    c.seconds = hb_now_s() - t0;
    *out = c;
    return HB_OK;
}

int hb_calibration_json(const hb_calibration *c, char *buf, size_t size)
{
    if (!isfinite(c->first_touch_gbps) || !isfinite(c->warm_copy_gbps) || !isfinite(c->cpu_mops) ||
        !isfinite(c->seconds))
        return HB_EINVAL;
    int n = snprintf(buf, size,
                     "{\"schema\": \"hotbench-calibration/1\", \"first_touch_gbps\": %.4g, "
                     "\"warm_copy_gbps\": %.4g, \"cpu_mops\": %.4g, \"seconds\": %.3f}\n",
                     c->first_touch_gbps, c->warm_copy_gbps, c->cpu_mops, c->seconds);
    return n < 0 || (size_t)n >= size ? HB_EINVAL : n;
}

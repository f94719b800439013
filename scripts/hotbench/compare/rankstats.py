"""rankstats - the compare's statistics: the Hodges-Lehmann estimate of the shift between two
samples of log times, its distribution-free confidence interval from the Mann-Whitney U
distribution, and the Mann-Whitney test (Hollander, Wolfe and Chicken, "Nonparametric
Statistical Methods", 3rd ed., 2014, sections 4.1-4.3).

Times are compared as logarithms, so the shift is a ratio: exp(shift) = head time / base time.
The exact null distribution of U is counted for the small samples a compare takes (a few dozen
processes per side at most); scipy.stats.mannwhitneyu gives the p-value.
"""

import functools
import math

import numpy as np


@functools.lru_cache(maxsize=None)
def u_counts(n, m):
    """The number of orderings of n + m distinct values giving each U = 0 .. n*m (a tuple of
    n*m + 1 ints): c(n, m, u) = c(n - 1, m, u - m) + c(n, m - 1, u)."""
    if n == 0 or m == 0:
        return (1,)
    a, b = u_counts(n - 1, m), u_counts(n, m - 1)
    return tuple((a[u - m] if 0 <= u - m < len(a) else 0) + (b[u] if u < len(b) else 0)
                 for u in range(n * m + 1))


def ci_rank(n, m, conf):
    """k such that [d_(k), d_(nm + 1 - k)] (1-based order statistics of the n*m pairwise
    differences) covers the shift with probability >= conf; 0 when no such interval exists
    (samples too small)."""
    counts = u_counts(n, m)
    total = float(sum(counts))
    alpha2 = (1.0 - conf) / 2.0
    cum, k = 0.0, 0
    for u, c in enumerate(counts):
        cum += c / total
        if cum > alpha2:
            break
        k = u + 1
    return k


def differences(base, head):
    """(log base, log head, the n*m pairwise differences log head - log base sorted, NaN where
    both are infinite: censored) of two samples of positive times."""
    b = np.log(np.asarray(base, float))
    h = np.log(np.asarray(head, float))
    with np.errstate(invalid="ignore"):
        return b, h, np.sort(np.subtract.outer(h, b).ravel())


def shift(base, head, conf=0.95):
    """(ratio, lo, hi, p) for two samples of positive times (sequences of floats, any length
    >= 1): ratio = exp(Hodges-Lehmann estimate of log head - log base), [lo, hi] its
    distribution-free conf interval as ratios ((0, inf) when the samples are too small for
    one), p the two-sided Mann-Whitney p-value (1.0 when undefined). Values of inf (a run that
    did not finish within its limit: right-censored, ranked above every finite value) are
    allowed in head and base."""
    b, h, d = differences(base, head)
    d = d[~np.isnan(d)]  # inf - inf: both censored, no information on the shift's size
    if d.size == 0:
        return float("nan"), 0.0, float("inf"), 1.0
    est = float(np.median(d))
    k = ci_rank(len(b), len(h), conf) if d.size == len(b) * len(h) else 0
    lo, hi = (float(d[k - 1]), float(d[d.size - k])) if k > 0 else (-math.inf, math.inf)
    p = mw_p(base, head)
    return math.exp(est), math.exp(lo), math.exp(hi), p


def mw_p(base, head):
    """Two-sided Mann-Whitney p-value (scipy; exact for small samples without ties)."""
    if len(base) < 1 or len(head) < 1:
        return 1.0
    b = np.asarray(base, float)
    h = np.asarray(head, float)
    big = max(np.max(b[np.isfinite(b)], initial=1.0), np.max(h[np.isfinite(h)], initial=1.0))
    # censored values rank above all others: any finite stand-in above the largest does
    b, h = np.where(np.isfinite(b), b, big * 10), np.where(np.isfinite(h), h, big * 10)
    if np.all(b == b[0]) and np.all(h == b[0]):
        return 1.0
    from scipy.stats import mannwhitneyu  # here: its import costs every script a third of a second
    return float(mannwhitneyu(h, b, alternative="two-sided").pvalue)

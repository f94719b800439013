"""random_effects - the head/base ratio's interval with the binary's copy as a random effect.

Each arm runs from several copies of its binary (copies.py), and a copy can shift every process
that runs from it (issue 31: 6% for one file of two with the same bytes). The processes of one
copy are then not independent samples of their arm: a rank interval over the processes, which
treats them so, reads one slow copy of the head as a slowdown of the head. Here each arm's log
times follow the one-way random-effects model y = mu + c_copy + e (c ~ N(0, s2c), e ~ N(0, s2e)),
its variance components estimated by the ANOVA method of moments (Searle, Casella and McCulloch,
"Variance Components", 1992, section 3.5; s2c truncated at 0), and the variance of the arm's mean
is s2c * sum(n_k^2) / N^2 + s2e / N. The two arms' variances add; the degrees of freedom are
Satterthwaite's ("An approximate distribution of estimates of variance components", Biometrics
Bulletin 2, 1946). With 3 copies the copy component's estimate has 2 degrees of freedom, and
it is above 0 by chance in about half of the arms without any copy effect; counted every time,
it would widen the interval of a real 3% slowdown past 1 (tests/test_compare.py). So the copies
are pooled first when they do not differ (Bancroft's preliminary test, "On biases in estimation
due to the use of preliminary tests of significance", Ann. Math. Statist. 15, 1944), and
s2c = 0 when it does not reject. The preliminary test is Kruskal and Wallis's (JASA 47, 1952),
the rank form of the one-way F test, at POOL_ALPHA: one outlying process, common on a shared
VM, inflates both mean squares of the F test but moves one rank. Where no copy stands out the
compare does not use this interval at all (confirmation.test_verdict): its mean of log times is
no robust estimate, and at the defaults an outlying process in the confirmation widened it past
1 for a 5% slowdown that the rank interval caught (results/gate-power/strict-copies-idle.md:
2 misses of 2).
Where one does, it widens by what base against base (copy against copy) shows, and the compare
calls nothing a regression that does not clear it (confirmation.py).
"""

import math

POOL_ALPHA = 0.05


def arm_variance(pairs):
    """(mean, variance of the mean, degrees of freedom, s2c, s2e) of an arm's log times, pairs
    a list of (copy, seconds > 0); None for fewer than 2 values."""
    groups = {}
    for c, v in pairs:
        groups.setdefault(c, []).append(math.log(v))
    ys = [y for g in groups.values() for y in g]
    n, k = len(ys), len(groups)
    if n < 2:
        return None
    mean = sum(ys) / n
    ssw = sum((y - sum(g) / len(g)) ** 2 for g in groups.values() for y in g)
    ssb = sum(len(g) * (sum(g) / len(g) - mean) ** 2 for g in groups.values())
    if k < 2 or n == k:  # no copy effect apart from the processes' own scatter
        s2 = (ssw + ssb) / (n - 1)
        return mean, s2 / n, n - 1, 0.0, s2
    msw, msb = ssw / (n - k), ssb / (k - 1)
    n0 = (n - sum(len(g) ** 2 for g in groups.values()) / n) / (k - 1)
    s2c = max(0.0, (msb - msw) / n0) if copies_differ(list(groups.values())) else 0.0
    if s2c == 0.0:
        s2 = (ssw + ssb) / (n - 1)
        return mean, s2 / n, n - 1, 0.0, msw
    w = sum(len(g) ** 2 for g in groups.values()) / n ** 2
    a, b = w / n0, 1.0 / n - w / n0  # variance = a * msb + b * msw
    var = a * msb + b * msw
    df = var ** 2 / ((a * msb) ** 2 / (k - 1) + (b * msw) ** 2 / (n - k))
    return mean, var, df, s2c, msw


def copies_differ(groups):
    """Whether the copies differ beyond the processes' scatter: Kruskal-Wallis over groups (one
    list of log times per copy, two copies or more) rejects at POOL_ALPHA."""
    from scipy import stats  # lazily, as in interval()
    vals = [v for g in groups for v in g]
    if len(set(vals)) < 2:
        return False
    return stats.kruskal(*groups).pvalue < POOL_ALPHA


def interval(base, head, conf):
    """{ratio, ci: [lo, hi], df, copy_sd: {"base": sd, "head": sd}} of head/base (exp of the
    difference of the arms' mean log times) at two-sided confidence conf, base and head lists
    of (copy, seconds); None when a side has fewer than 2 values. copy_sd: the copy effect's
    standard deviation as a fraction (the A/A spread), 0 when none shows."""
    from scipy import stats  # lazily: the compare's other modules load without scipy

    b, h = arm_variance(base), arm_variance(head)
    if b is None or h is None:
        return None
    var = b[1] + h[1]
    diff = h[0] - b[0]
    if var <= 0:
        return dict(ratio=math.exp(diff), ci=[math.exp(diff)] * 2, df=float("inf"),
                    copy_sd=dict(base=0.0, head=0.0))
    df = var ** 2 / (b[1] ** 2 / b[2] + h[1] ** 2 / h[2])
    half = stats.t.ppf(0.5 + conf / 2, df) * math.sqrt(var)
    return dict(ratio=math.exp(diff), ci=[math.exp(diff - half), math.exp(diff + half)], df=df,
                copy_sd=dict(base=math.expm1(math.sqrt(b[3])), head=math.expm1(math.sqrt(h[3]))))

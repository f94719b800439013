"""sequential - a second confirmation round for the suspect strategies the first left
undecided, and a test that stays valid though the round is chosen after seeing the first.

Pinpoint (Chromium's performance bisection) doubles the runs of a comparison it cannot decide.
Done naively that inflates false alarms: the strategies given more runs are those whose first
round looked slow, and all their runs tested together at the first round's level reject
unchanged code more often than the level says. So each test has two one-sided p-values: p1 from
the first round's runs and p2 from the second round's own, fresh processes (independent of p1,
and uniform under no slowdown whatever chose the strategy). At level a a test rejects when

    p1 <= f a                                              (the first round alone), or
    p1 <= a0, it went on and p1 p2 <= c(a) = (1 - f) a / ln(a0 / (f a))   (Fisher's product),

f = FIRST_SHARE when a second round is planned (before the first round runs: from the time the
screening took, engine.py), else 1 (the one-round test); a0 = MAX_P1, the first round's p
above which no test goes on (the bound for stopping for futility). The chance of a false
rejection is then at most f a + c ln(a0 / (f a)) = a, and a test that did not go on counts
p2 = 1, which only rejects less (Bauer and Koehne, "Evaluation of experiments with adaptive
interim analyses", Biometrics 50, 1994, section 2). A test's p-value q is the least a at which
it rejects, and Holm's procedure runs over the q (confirmation.step_down). A test that went on
also needs both rounds' runs together to put its estimate above 1 + e (which only rejects less):
a first round of p1 <= f a at a later step of Holm's procedure is no regression when its second
round showed none. The second round runs from copies of the binaries written afresh (copies.py):
a slow copy of the first would slow the second too, and p2 would not be independent of p1.

p is the one-sided p-value of "no slowdown of e/2 or more" (e: --min-effect) read off the
interval the confirmation uses: the exact Mann-Whitney U distribution of the rank interval
(rankstats.py), widened for the blocks (blocks.py), and where an arm's copies differ the larger
of that and the random-effects interval's (random_effects.py); 1 when the estimate is not above
1 + e. So with f = 1, q <= alpha / 2 when that interval at 1 - alpha lies above 1 + e/2 with the
estimate above 1 + e: the one-round compare's rule (but at an exact tie of U's distribution
with the level, which the interval's sum in floating point may put on either side).
"""

import math

import numpy as np

from . import phases, random_effects, rankstats

# The share of a test's level the first round spends when a second round is planned.
FIRST_SHARE = 0.5
# The second round takes at most this many strategies, those of the least p1 ...
MAX_STRATEGIES = 4
# ... and only those whose p1 could still lead to a rejection with a second round's p2: for a
# 4% slowdown where processes scatter by 3% (log-normal, over 8 copies, the blocks' widening of
# sqrt(4/3)), p_value has a median of 5e-4 (90th percentile 0.01) with 40 processes a side
# (MAX_BLOCKS), 0.04 (0.27) with 10 (5 blocks; 200 made-up draws each), so a p1 up to 0.2 can
# still be confirmed. The price: c(a) at Holm's levels 0.025/m is 0.50 (m = 1) to 0.71 (m = 8)
# of what it is with a bound of 0.05; a p1 of 0.02 at m = 4 then needs p2 <= 0.04, not 0.06.
MAX_P1 = 0.2
# The round's ABBA blocks: as many as fit in ROUND_S seconds and in the first round's own
# seconds (Pinpoint's doubling: a small selection's round stays small), timed by its first
# block, at least --confirm-rounds and at most MAX_BLOCKS: idle, compares of the default
# selection took 5.5-6.2 min with rounds of 5 blocks (16 s) at 3457ea7 and 6.3-8.6 min with
# these rounds (6-13 blocks, 49-59 s of processes) at e3cd4d2, `make bench-ci` with both
# builds 8 min 24 s (results/gate-power/README.md): under its 10 minutes.
ROUND_S = 60.0
MAX_BLOCKS = 20
# The round's anchors (confirmation.anchor_names): as many as phases.py reads a phase from, so
# that its short processes are corrected for the host's phases. With the first round's 6 the
# round's processes of 3 slowed strategies' 14 sizes had too few steady neighbours to be
# corrected: their sizes scattered by 5-18% (sd of log CPU time, results/gate-power/
# default-idle-5c160a8-runs, 0.05-001), where the first round's correction took expat-tree's
# from 16-17% to 9-10%.
ANCHORS = phases.WINDOW
# Each arm's copies written afresh for the round (at least --copies): the copy effect averaged
# over 8, not 3 (1 to 5 processes of an arm a copy, 5 to 20 blocks).
COPIES = 8


def rank_p(base, head, margin, widen=1.0):
    """The one-sided p-value, from the exact U distribution, that the rank interval of
    head/base (rankstats.shift, widened by widen about its estimate) excludes 1 + margin from
    below: the least alpha at which the two-sided 1 - 2 alpha interval lies above it. base,
    head: positive seconds; 1.0 when the samples are too small or censored values tie."""
    b, h, d = rankstats.differences(base, head)
    if len(b) < 1 or len(h) < 1 or np.isnan(d).any():
        return 1.0
    est = float(np.median(d))
    bound = math.log1p(margin)
    if est <= bound:
        return 1.0
    # the widened lower end est - widen (est - d_(k)) lies above bound iff d_(k) > cut (an
    # infinite estimate is not widened: blocks.widened)
    cut = est - (est - bound) / widen if math.isfinite(est) else bound
    below = int(np.searchsorted(d, cut, side="right"))  # how many d <= cut
    counts = rankstats.u_counts(len(b), len(h))
    return float(sum(counts[:below + 1])) / float(sum(counts))


def copies_p(base, head, margin, widen=1.0):
    """The one-sided p-value of the random-effects interval (random_effects.interval: the copy
    a random effect, t with Satterthwaite's degrees of freedom, widened by widen) against
    1 + margin; base, head: (copy, seconds) pairs. None when it cannot be formed or no copy
    stands out (it then does not decide: confirmation.test_verdict)."""
    from scipy import stats  # lazily, as random_effects does

    re = random_effects.interval(base, head, 0.95)
    if re is None or max(re["copy_sd"].values()) <= 0:
        return None
    diff = math.log(re["ratio"])
    half = diff - math.log(re["ci"][0])
    if half <= 0:
        return 0.0 if diff > math.log1p(margin) else 1.0
    se = half / stats.t.ppf(0.975, re["df"])
    return float(stats.t.sf((diff - math.log1p(margin)) / (widen * se), re["df"]))


def p_value(base, head, opts, widen=1.0):
    """One test's one-sided p-value of "no slowdown of e/2 or more", base and head lists of
    (copy, value): the rank interval's (rank_p), the larger with the copies' (copies_p) where
    they differ, 1.0 when the Hodges-Lehmann estimate is not above 1 + e."""
    b, h = [v for _, v in base], [v for _, v in head]
    if len(b) < 2 or len(h) < 2:
        return 1.0
    ratio = rankstats.shift(b, h, 0.5)[0]
    if not ratio > 1.0 + opts.min_effect:
        return 1.0
    p = rank_p(b, h, opts.min_effect / 2, widen)
    pc = copies_p(base, head, opts.min_effect / 2, widen)
    return p if pc is None else max(p, pc)


def threshold(a, share):
    """c(a): the bound of p1 p2 for a rejection at level a (one-sided) when the first round
    spent share of it and no p1 over MAX_P1 goes on; 0 when share is 1 (no second round)."""
    first = share * a
    if share >= 1.0 or first <= 0.0 or first >= MAX_P1:
        return 0.0
    return (1.0 - share) * a / math.log(MAX_P1 / first)


def q_value(p1, p2, share):
    """The least one-sided level a at which the two-round test rejects (the module's rule),
    capped at 1: p1 / share where the first round decides, else the root of
    threshold(a) = p1 p2 (increasing in a; bisection in log a). p2 None: no second round."""
    q = min(1.0, p1 / share)
    if p2 is None or share >= 1.0 or p1 > MAX_P1:
        return q
    target = p1 * p2
    if target <= 0.0:
        return 0.0
    top = min(q, MAX_P1 / share * (1.0 - 1e-9))  # threshold is 0 from f a = MAX_P1 on
    if threshold(top, share) < target:
        return q
    lo, hi = math.log(1e-300), math.log(top)
    for _ in range(100):
        mid = (lo + hi) / 2
        if threshold(math.exp(mid), share) >= target:
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def blocks(block_s, least, first_s=ROUND_S):
    """The second round's ABBA blocks when its first block took block_s seconds: as many as
    fit in ROUND_S and in first_s (the first round's seconds), at least least (--confirm-rounds,
    which wins over MAX_BLOCKS)."""
    fit = int(min(ROUND_S, first_s) // block_s) if block_s > 0 else least
    return max(least, min(MAX_BLOCKS, fit))


def chosen(first, rejected, opts, limit=MAX_STRATEGIES):
    """The keys of the tests that go on to the second round: those not rejected by the first,
    their estimate above 1 + e and p1 at most MAX_P1, the least p1 first, at most limit.
    first: {key: (p1, estimate)}."""
    left = sorted((p, k) for k, (p, est) in first.items()
                  if k not in rejected and est is not None and est > 1.0 + opts.min_effect and
                  p <= MAX_P1)
    return [k for _, k in left[:limit]]

"""changepoints - E-divisive means: multiple change points in one series, each with a permutation
p-value. Pure numpy; knows nothing of the database or the page.

Source: D. S. Matteson and N. A. James, "A nonparametric approach for multiple change point
analysis of multivariate data", JASA 109(505):334-345, 2014 (the R package ecp's e.divisive is
the reference implementation). Used on every commit by MongoDB's performance CI (D. Daly et al.,
"The Use of Change Point Detection to Identify Software Performance Regressions in a Continuous
Integration System", ICPE 2020) and by DataStax's Hunter.

The method, as in the paper (section 2-3):
  * Divergence. For samples X (n points) and Y (m points) and an exponent a in (0, 2),
        E(X, Y; a) = 2/(nm) sum |X_i - Y_j|^a - 1/C(n,2) sum_{i<k} |X_i - X_k|^a
                                               - 1/C(m,2) sum_{j<k} |Y_j - Y_k|^a,
    the empirical energy distance: zero in the limit iff X and Y have the same distribution
    (any change: mean, spread, shape), for every a in (0, 2). The statistic scales it by sample
    size: Q(X, Y; a) = nm/(n+m) E(X, Y; a).
  * One split. In a segment Z_1..Z_L, X = Z_1..Z_tau and Y = Z_tau+1..Z_kappa; (tau, kappa)
    maximises Q over tau in [s, L-s], kappa in [tau+s, L] (s = min_size). The change point is
    tau: the segment splits into Z_1..Z_tau and Z_tau+1..Z_L (kappa only helps find tau when a
    second change follows inside the segment).
  * Bisection. With k change points found, the series has k+1 segments; the best split of each
    is found and the one with the largest Q is the candidate k+1-th change point.
  * Significance. The candidate's Q is compared with R permutations: the points of each segment
    are shuffled within it (under "no further change" they are exchangeable), the largest best-
    split Q over the segments recomputed; p = (1 + #{Q_perm >= Q_obs}) / (R + 1). The candidate
    is kept when p <= sig_level and the search goes on; otherwise the search stops.
Under a series with no change, the chance of reporting any change point is at most sig_level
(the first test's permutation p-value is valid); p-values cannot go below 1 / (R + 1).

Location (refine). The search's tau lies in [s, L-s]: a shift in the last (or first) k < s
points of a segment can only be split at L-s (or s), k points away from it. The test answers
THAT the segment changed; WHERE is then re-estimated by a least-absolute-deviation two-segment
fit on the points near tau that the test compared, W = Z_a+1..Z_b with a = max(0, tau-2s) and b
= min(kappa, tau+2s): the t minimising sum|W_i - med(W before t)| + sum|W_i - med(W from t on)|
over t in [tau-(s-1), tau+(s-1)], at least one point of W on each side (so within the segment,
between the neighbouring change points). Ties go to the t nearest tau, then the earliest. This
is the L1 (median) M-estimate of one change point's location: J. Bai, "Least absolute deviation
estimation of a shift", Econometric Theory 11(3):403-436, 1995 (consistent, robust to heavy
tails); the cost is ruptures' CostL1. The window keeps a further change in the segment from
pulling it (fitted on a whole 100-point segment with steps at 25, 50 and 75, the first split, at
50, moved to 54). The p-value and statistic stay those of the test at tau; the refined location
becomes the segment bound for the rest of the search. So a shift (well above the noise) in the
last (or first) k >= 1 points is listed at its own commit once the test reaches significance,
and not at all before: a 2x step in 40 points with 1% noise is found from k = 3 at level 0.05
and from k = 4 at 0.01 (k = 2 and 3, respectively, in most draws; k = 1 never:
tests/test_changepoints.py, class Ends). A single outlying last point, when significant, looks
the same as a shift at the last commit. Refining every split, not only one at the limit: on 40
draws each of 9 cases (a +3% or +5% step in 1% noise, 40 or 60 points, mid-series and within 5
of an end, alpha 0.01) it listed 257 at the right commit and 7 two or more away, against 247 and
13 when refining only splits at the limit (a moderate tail shift's tau may stop short of the
limit); mid-series, the two differ by a draw or two either way.

Implementation: all (tau, kappa) of a segment at once from 2-D prefix sums of the distance
matrix, permutations in batches (B, L, L). Cost per candidate: O(R L^2) time, O(chunk L^2)
memory (chunk = 64 permutations: 64 x 100 x 100 floats ~ 5 MB per array). The permutations stop
early once the count of exceedances alone makes p > sig_level (the decision is then certain;
the p-value of a kept change point is always from all R permutations), so a series with nothing
to find costs a few batches, not R.
"""

from dataclasses import dataclass

import numpy as np

_CHUNK = 64  # permutations per batch


@dataclass(frozen=True)
class ChangePoint:
    """One change point: index is the first position of the new segment (0-based in the series
    given to e_divisive: the point that differs from those before it; the test's split moved
    by refine(), at most min_size-1 away), pvalue the
    permutation p-value (in [1/(R+1), 1]), statistic the Q of the test's split (units: the
    series' units to the power exponent), order the step of the bisection that found it (1 =
    first)."""
    index: int
    pvalue: float
    statistic: float
    order: int


def _pairs(L, min_size):
    """The splits the search allows in a segment of length L, flattened: (flat index of
    (tau, kappa) in an (L+1, L+1) grid, tau, kappa, and the coefficients of S[tau, kappa],
    S[tau, tau] and S[kappa, kappa] in Q, each (P,)). Q is linear in the prefix sums:
    Q = f (2 B/(nm) - W_X/C(n,2) - W_Y/C(m,2)) with f = nm/(n+m), B = S[t,k] - S[t,t],
    W_X = S[t,t]/2, W_Y = (S[k,k] - 2 S[t,k] + S[t,t])/2, n = t, m = k - t."""
    key = (L, min_size)
    if key not in _PAIRS:
        t, k = np.meshgrid(np.arange(L + 1), np.arange(L + 1), indexing="ij")
        ok = (t >= min_size) & (t <= L - min_size) & (k - t >= min_size)
        t, k = t[ok], k[ok]
        n, m = t.astype(float), (k - t).astype(float)
        f = n * m / (n + m)
        c_s = f * (2.0 / (n * m) + 2.0 / (m * (m - 1)))
        c_t = f * (-2.0 / (n * m) - 1.0 / (n * (n - 1)) - 1.0 / (m * (m - 1)))
        c_k = f * (-1.0 / (m * (m - 1)))
        _PAIRS[key] = (t * (L + 1) + k, t, k, c_s, c_t, c_k)
    return _PAIRS[key]


_PAIRS = {}  # (L, min_size) -> _pairs(L, min_size): a cache of index arrays, never mutated


def split_grid(Z, min_size, exponent=1.0):
    """Q(tau, kappa) of every split of each row of Z, Z: float array (B, L) (B series of length
    L >= 2 min_size, min_size >= 2). Returns (B, L+1, L+1) with Q at [b, tau, kappa] for the
    splits the search allows (tau in [min_size, L-min_size], kappa in [tau+min_size, L], X =
    Z[b, :tau], Y = Z[b, tau:kappa]) and -inf elsewhere. O(B L^2) time and memory."""
    Z = np.asarray(Z, dtype=float)
    B, L = Z.shape
    flat, q = _split_values(Z, min_size, exponent)
    grid = np.full((B, (L + 1) * (L + 1)), -np.inf)
    grid[:, flat] = q
    return grid.reshape(B, L + 1, L + 1)


def _split_values(Z, min_size, exponent):
    """(flat indices, Q of those splits (B, P)) for the rows of Z (B, L): see split_grid."""
    B, L = Z.shape
    D = np.abs(Z[:, :, None] - Z[:, None, :])
    if exponent != 1.0:
        D **= exponent
    S = np.zeros((B, L + 1, L + 1))
    np.cumsum(np.cumsum(D, axis=1), axis=2, out=S[:, 1:, 1:])
    flat, t, k, c_s, c_t, c_k = _pairs(L, min_size)
    idx = np.arange(L + 1)
    diag = S[:, idx, idx]
    return flat, S.reshape(B, -1)[:, flat] * c_s + diag[:, t] * c_t + diag[:, k] * c_k


def best_split(z, min_size, exponent=1.0):
    """The best split of one segment z (1-D, length L): (tau, q) with tau the number of points
    before the change (1 <= tau < L), q its statistic; (None, -inf) when L < 2 min_size."""
    tau, _, q = _best(z, min_size, exponent)
    return tau, q


def _best(z, min_size, exponent):
    """(tau, kappa, q) of z's best split (see best_split); (None, None, -inf) when too short."""
    z = np.asarray(z, dtype=float)
    if len(z) < 2 * min_size:
        return None, None, -np.inf
    g = split_grid(z[None, :], min_size, exponent)[0]
    flat = int(np.argmax(g))  # the first maximum: ties go to the earliest tau
    return flat // g.shape[1], flat % g.shape[1], float(g.flat[flat])


def refine(z, tau, min_size):
    """Where the change in segment z (1-D, length L >= 2) lies, near the search's split tau
    (1 <= tau < L): the t in [max(1, tau-min_size+1), min(L-1, tau+min_size-1)] minimising the
    sum of absolute deviations of z[:t] from their median plus those of z[t:] from theirs (the
    least-absolute-deviation two-segment fit, Bai 1995: module docstring). Ties go to the t
    nearest tau, then the earliest. Returns t, an int (the number of points before the change).
    Units: those of z. Raises ValueError when tau is outside [1, L-1]. O(min_size L) time."""
    z = np.asarray(z, dtype=float)
    L = len(z)
    if not 1 <= tau < L:
        raise ValueError("refine: tau %r outside [1, %d]" % (tau, L - 1))
    best, cost = tau, None
    for t in sorted(range(max(1, tau - min_size + 1), min(L - 1, tau + min_size - 1) + 1),
                    key=lambda t: (abs(t - tau), t)):
        c = np.abs(z[:t] - np.median(z[:t])).sum() + np.abs(z[t:] - np.median(z[t:])).sum()
        if cost is None or c < cost - 1e-12 * max(1.0, cost):
            best, cost = t, c
    return best


def _best_permuted(z, min_size, exponent, rng, count):
    """The best split's Q of count random permutations of z: (count,); -inf when too short."""
    if len(z) < 2 * min_size:
        return np.full(count, -np.inf)
    P = rng.permuted(np.broadcast_to(z, (count, len(z))), axis=1)
    return _split_values(P, min_size, exponent)[1].max(axis=1)


def permutation_pvalue(segments, observed, permutations, sig_level, min_size, exponent, rng):
    """The permutation p-value of the largest best-split Q over segments (a list of 1-D arrays,
    the current segments), observed being that Q. Each permutation shuffles every segment within
    itself. Returns (p, done) with done the permutations run: fewer than permutations (and p
    then only known to exceed sig_level) when the exceedances already decide."""
    over, done = 0, 0
    stop_at = sig_level * (permutations + 1) - 1  # over > stop_at  <=>  p > sig_level
    while done < permutations:
        c = min(_CHUNK, permutations - done)
        best = np.full(c, -np.inf)
        for seg in segments:
            best = np.maximum(best, _best_permuted(seg, min_size, exponent, rng, c))
        # a tiny tolerance: a permutation equal to the data must count as "as large"
        over += int(np.sum(best >= observed - 1e-12 * max(1.0, abs(observed))))
        done += c
        if over > stop_at:
            break
    return (1 + over) / (done + 1), done


def e_divisive(z, sig_level=0.05, permutations=199, min_size=5, exponent=1.0, seed=0):
    """E-divisive means (Matteson and James 2014) on one series z (1-D, length T, finite; any
    units). sig_level: the permutation test's level for each new change point; permutations: R
    (p-values are multiples of 1/(R+1): R = 199 allows p = 0.005); min_size >= 2: the fewest
    points on either side of a split; exponent in (0, 2): the divergence's a (1: the paper's
    default; smaller for heavy tails). seed: the permutations' numpy Generator seed, an int
    >= 0 or a sequence of them (the same inputs give the same answer). Returns the change
    points found, sorted by index (empty when T < 2 min_size); each index is the test's split
    refined by refine() within its segment (module docstring), so a segment between change
    points may hold fewer than min_size points (at least 1). Raises ValueError on bad
    parameters or non-finite data.
    Time O(K R T^2) for K change points found, usually far less (early stop, smaller segments)."""
    z = np.asarray(z, dtype=float)
    if z.ndim != 1 or not np.all(np.isfinite(z)):
        raise ValueError("e_divisive: z must be a 1-D array of finite numbers")
    if min_size < 2 or not 0 < exponent < 2 or not 0 < sig_level < 1 or permutations < 1:
        raise ValueError("e_divisive: need min_size >= 2, 0 < exponent < 2, 0 < sig_level < 1,"
                         " permutations >= 1")
    rng = np.random.default_rng(seed)
    bounds = [0, len(z)]
    found = []
    cache = {}  # (start, end) -> (tau, kappa, q) of that segment's best split
    while True:
        segs = [(a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        for s in segs:
            if s not in cache:
                cache[s] = _best(z[s[0]:s[1]], min_size, exponent)
        cand = max(segs, key=lambda s: cache[s][2])
        tau, kappa, q = cache[cand]
        if tau is None or not np.isfinite(q):
            break
        p, _ = permutation_pvalue([z[a:b] for a, b in segs], q, permutations, sig_level,
                                  min_size, exponent, rng)
        if p > sig_level:
            break
        # refined on the points near tau the test compared (X's last 2 min_size, Y up to
        # kappa), so that another change further away does not pull it (module docstring)
        a = cand[0] + max(0, tau - 2 * min_size)
        b = cand[0] + min(kappa, tau + 2 * min_size)
        at = a + refine(z[a:b], cand[0] + tau - a, min_size)
        found.append(ChangePoint(at, p, q, len(found) + 1))
        bounds = sorted(bounds + [at])
    return sorted(found, key=lambda c: c.index)

"""hbfit - read hotbench run JSON, fit scaling models, predict with intervals, validate the fits.

Used by the report (scripts/report.py), the plots (scripts/plots.py) and the CI gate
(scripts/gate.py). Python 3 with numpy and scipy from Debian, run under /usr/bin/python3.

Models, beyond google-benchmark's Big-O (which fits t = c*g(N) through the origin and never
predicts):

  power       t(N) = a + b*N^k, a >= 0, b > 0 (a = 0 below 5 sizes), fitted by least squares on
              the log of each size's median time: relative errors (timing noise is
              multiplicative), one point per size (repetitions share a size's cache and page
              state, so they are not independent; the median also ignores the repetition that
              first touch of fresh memory at 1.7 GB makes several times slower about once in
              three on these VMs). k is reported with a 95% confidence interval from the fit's
              covariance (Student t, dof = sizes - parameters);
              a prediction at N* carries a 95% prediction interval: the parameter uncertainty
              propagated through the model plus the scatter of one measurement.
  piecewise   httpcore's ByteArrayBuffer: t(N) = a + b*N + d*[N > L] + c*X(N), where X(N) is the
              bytes copied by the additive growth steps past the overflow threshold L =
              2^(bits-2) (X = 0 below it; above, k = ceil((N-L)/r) steps copying L + i*r bytes
              each, i = 0..k-1: the same arithmetic as account_additive in
              cases/bufgrow/bufgrow.c), and d a one-off cost of crossing it (httpcore-heap's
              first steps take fresh memory, the later ones reuse it); d is fitted only when
              two sizes past L are measured. Linear in a, b, c, d: a non-negative weighted least
              squares with relative weights.

Validation: every fit is refitted without its largest measured size and asked to predict it;
the relative error (predicted / measured median - 1) is reported. Errors beyond 25% are flagged
by the callers (VALIDATION_LIMIT), never hidden.

Units: N in the benchmark's own unit (bytes, rows, tags, volumes), t in seconds.
"""

import json
import math
import re

import numpy as np
from scipy import optimize, stats

VALIDATION_LIMIT = 0.25  # a prediction whose leave-largest-out error exceeds this is flagged
WIDE_INTERVAL = 100.0  # a 95% interval whose high / low exceeds this is shown as "unbounded"
TIME_UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


# --- run JSON ---------------------------------------------------------------------------------

def parse_name(name):
    """'bufgrow/doubling/size:1024/read:4096/real_time_median' ->
    ('bufgrow', 'doubling', {'size': 1024, 'read': 4096}). Non-numeric values stay strings."""
    parts = name.split("/")
    family, strategy, params = parts[0], parts[1] if len(parts) > 1 else "", {}
    for p in parts[2:]:
        if ":" in p:
            k, v = p.split(":", 1)
            try:
                params[k] = int(v)
            except ValueError:
                params[k] = v
    return family, strategy, params


_PREDICTED = re.compile(r"predicted ([0-9.eE+-]+) s")


class Run:
    """One run: google-benchmark JSON with hotbench's context.

    rows:       iteration rows (one per repetition) that ran: dicts with family, strategy,
                params, t (seconds per iteration), counters (the row's other numeric fields).
    skipped:    rows the harness skipped: family, strategy, params, message, predicted_s (float
                or None, parsed from 'skipped: predicted X s > budget').
    failed:     rows that failed verification ('error: ...').
    complexity: (family, strategy) -> the declared class google-benchmark was given ('N', 'N^2',
                ...), from the _BigO rows.
    """

    def __init__(self, path):
        with open(path) as f:
            doc = json.load(f)
        self.path = path
        self.context = doc.get("context", {})
        self.rows, self.skipped, self.failed, self.complexity = [], [], [], {}
        seen_skip = set()
        for b in doc.get("benchmarks", []):
            name = b.get("run_name") or b["name"]
            family, strategy, params = parse_name(name)
            if b.get("error_occurred"):
                msg = b.get("error_message", "")
                key = (family, strategy, tuple(sorted(params.items())))
                if key in seen_skip:
                    continue
                seen_skip.add(key)
                m = _PREDICTED.search(msg)
                row = dict(family=family, strategy=strategy, params=params, message=msg,
                           predicted_s=float(m.group(1)) if m else None)
                (self.skipped if msg.startswith("skipped") else self.failed).append(row)
                continue
            if b.get("run_type") == "aggregate":
                if b["name"].endswith("_BigO"):
                    self.complexity[(family, strategy)] = b.get("big_o", b.get("complexity"))
                continue
            if b["name"].endswith(("_BigO", "_RMS")):
                continue
            unit = TIME_UNIT[b.get("time_unit", "ns")]
            counters = {k: v for k, v in b.items()
                        if isinstance(v, (int, float)) and k not in (
                            "real_time", "cpu_time", "iterations", "repetitions",
                            "repetition_index", "threads", "family_index",
                            "per_family_instance_index")}
            self.rows.append(dict(family=family, strategy=strategy, params=params,
                                  t=b["real_time"] * unit, counters=counters,
                                  rep=b.get("repetition_index", 0)))

    def families(self):
        out = []
        for r in self.rows + self.skipped:
            if r["family"] not in out:
                out.append(r["family"])
        return out

    def strategies(self, family):
        out = []
        for r in self.rows + self.skipped + self.failed:
            if r["family"] == family and r["strategy"] not in out:
                out.append(r["strategy"])
        return out

    def select(self, family, strategy=None, **fixed):
        """Iteration rows of a family (and strategy) whose params match every fixed value."""
        return [r for r in self.rows if r["family"] == family
                and (strategy is None or r["strategy"] == strategy)
                and all(r["params"].get(k) == v for k, v in fixed.items())]

    def series(self, family, strategy, xparam, **fixed):
        """(N, t) arrays of every repetition along xparam, the other params fixed."""
        rows = [r for r in self.select(family, strategy, **fixed) if xparam in r["params"]]
        rows.sort(key=lambda r: r["params"][xparam])
        return (np.array([r["params"][xparam] for r in rows], dtype=float),
                np.array([r["t"] for r in rows], dtype=float))

    def upper_bound_strategies(self, family, fallback=()):
        """The strategies of family whose bytes_copied counter is an upper bound (growth by
        realloc, which may move a block with mremap and copy nothing): the rows whose counter
        bytes_copied_is_upper_bound is 1. Returns (names, known): known is False when no row of
        the family carries that counter (a run JSON older than it); names are then fallback."""
        rows = [r for r in self.rows if r["family"] == family]
        if not any("bytes_copied_is_upper_bound" in r["counters"] for r in rows):
            return [s for s in fallback if s in self.strategies(family)], False
        out = []
        for r in rows:
            if r["counters"].get("bytes_copied_is_upper_bound") == 1 and r["strategy"] not in out:
                out.append(r["strategy"])
        return out, True

    def skipped_at(self, family, strategy, **fixed):
        return [r for r in self.skipped if r["family"] == family and r["strategy"] == strategy
                and all(r["params"].get(k) == v for k, v in fixed.items())]


def summarize(ts):
    """Median, coefficient of variation (sample stddev / mean) and count of repetition times."""
    ts = np.asarray(ts, dtype=float)
    if ts.size == 0:
        return dict(median=float("nan"), cv=float("nan"), n=0, min=float("nan"))
    cv = float(np.std(ts, ddof=1) / np.mean(ts)) if ts.size > 1 else 0.0
    return dict(median=float(np.median(ts)), cv=cv, n=int(ts.size), min=float(np.min(ts)))


def medians(N, t):
    """Distinct sizes and the median time at each."""
    xs = np.unique(N)
    return xs, np.array([np.median(t[N == x]) for x in xs])


# --- the power model ----------------------------------------------------------------------------

class PowerFit:
    """t = a + b*N^k fitted on the log of each size's median time. Attributes: a, b, k (seconds,
    seconds/unit^k, exponent), k_ci (95% interval), at_bound (k stuck at a bound of k_bounds: the
    model does not describe the data), dof (sizes - parameters), s (residual standard deviation
    of log t), n_sizes, ok, why."""

    def __init__(self, N, t, k_bounds=(0.2, 3.5), with_constant=True):
        N, t = np.asarray(N, float), np.asarray(t, float)
        keep = (N > 0) & (t > 0) & np.isfinite(N) & np.isfinite(t)
        N, t = N[keep], t[keep]
        self.n_sizes = len(np.unique(N))
        self.n_points = len(N)
        self.ok, self.why = False, ""
        self.with_constant = with_constant and self.n_sizes >= 5
        npar = 3 if self.with_constant else 2
        if self.n_sizes < 3:
            self.why = "fewer than 3 sizes"
            return
        self.nmax, self.nmin = float(N.max()), float(N.min())
        # Repetitions of one size share its caches and page state: they are not independent
        # draws of the model's error, so the fit and its uncertainty use one point per size
        # (the median, which also ignores the odd slow repetition) and dof = sizes - parameters.
        xs, ms = medians(N / self.nmax, t)
        y = np.log(ms)
        k0 = float(np.clip(np.log(ms[-1] / ms[-2]) / np.log(xs[-1] / xs[-2]), *k_bounds))
        if self.with_constant:
            def model(p, x):
                return p[0] + np.log(p[1] + x ** p[2])
            p0 = [np.log(ms[-1]), 1e-3, k0]
            lo, hi = [-np.inf, 0.0, k_bounds[0]], [np.inf, np.inf, k_bounds[1]]
        else:
            def model(p, x):
                return p[0] + p[1] * np.log(x)
            p0 = [np.log(ms[-1]), k0]
            lo, hi = [-np.inf, k_bounds[0]], [np.inf, k_bounds[1]]
        res = optimize.least_squares(lambda p: model(p, xs) - y, p0, bounds=(lo, hi),
                                     x_scale="jac", max_nfev=20000)
        self._model, self.p = model, res.x
        self.dof = self.n_sizes - npar
        r = model(res.x, xs) - y
        self.s = math.sqrt(float(r @ r) / self.dof)
        J = res.jac
        self.cov = np.linalg.pinv(J.T @ J) * self.s ** 2
        self.tq = float(stats.t.ppf(0.975, self.dof))
        ik = 2 if self.with_constant else 1
        self.k = float(self.p[ik])
        self.at_bound = min(abs(self.k - k_bounds[0]), abs(self.k - k_bounds[1])) < 1e-3
        se_k = math.sqrt(max(float(self.cov[ik, ik]), 0.0))
        self.k_ci = (self.k - self.tq * se_k, self.k + self.tq * se_k)
        scale = math.exp(self.p[0])
        # back to t = a + b*N^k in the caller's units
        self.a = scale * self.p[1] if self.with_constant else 0.0
        self.b = scale / self.nmax ** self.k
        self.ok = True

    def predict(self, Nstar):
        """(median, low, high) seconds at Nstar: the model and its 95% prediction interval."""
        x = float(Nstar) / self.nmax
        f = float(self._model(self.p, x))
        g = np.zeros(len(self.p))
        for i in range(len(self.p)):  # gradient of log t by central differences
            h = 1e-6 * max(1.0, abs(self.p[i]))
            pp, pm = self.p.copy(), self.p.copy()
            pp[i] += h
            pm[i] -= h
            g[i] = (self._model(pp, x) - self._model(pm, x)) / (2 * h)
        var = float(g @ self.cov @ g) + self.s ** 2
        half = self.tq * math.sqrt(var) if np.isfinite(var) else math.inf
        return _exp(f), _exp(f - half), _exp(f + half)

    def label(self):
        if not self.ok:
            return "no fit (%s)" % self.why
        return "k=%.2f [%.2f, %.2f]%s" % (self.k, *self.k_ci,
                                          " (at its bound: no power law)" if self.at_bound else "")


def _exp(v):
    """exp that saturates to 0 and inf instead of raising (a wide interval's ends)."""
    if not np.isfinite(v):
        return 0.0 if v < 0 else math.inf
    return math.exp(min(v, 700.0))


# --- the piecewise httpcore model ---------------------------------------------------------------

def additive_copies(N, bits, read):
    """Bytes copied by httpcore's additive steps past L = 2^(bits-2) for a total of N bytes read in
    reads of `read` bytes: k = ceil((N-L)/r) steps, step i copying L + i*r bytes."""
    L = float(2 ** (bits - 2))
    N = np.asarray(N, dtype=float)
    k = np.where(N > L, np.ceil((N - L) / read), 0.0)
    return k * L + read * k * (k - 1) / 2


class PiecewiseFit:
    """t = a + b*N + d*[N > L] + c*X(N) (X = additive_copies), non-negative coefficients,
    relative weights. Attributes: a (s), b (s/byte), c (s per byte copied past the threshold),
    d (s, the one-off cost of crossing it), step_s (one additive step at the threshold, c*L),
    s (relative residual sd), cov (of a, b, c, d), ok, why."""

    def __init__(self, N, t, bits, read):
        N, t = np.asarray(N, float), np.asarray(t, float)
        keep = (N > 0) & (t > 0) & np.isfinite(N) & np.isfinite(t)
        N, t = medians(N[keep], t[keep])  # one point per size, as PowerFit
        self.bits, self.read, self.L = bits, read, float(2 ** (bits - 2))
        X = additive_copies(N, bits, read)
        self.n_points, self.ok, self.why = len(N), False, ""
        if len(np.unique(N[X > 0])) < 1 or len(np.unique(N[X == 0])) < 2:
            self.why = "needs 2 sizes below the threshold and 1 above"
            return
        self.jump = len(np.unique(N[X > 0])) >= 2
        cols = [np.ones_like(N), N, X] + ([(X > 0).astype(float)] if self.jump else [])
        if len(N) <= len(cols):
            self.why = "as many parameters as sizes: no interval"
            return
        A = np.column_stack(cols) / t[:, None]
        res = optimize.lsq_linear(A, np.ones_like(t), bounds=(0, np.inf))
        self.p = res.x
        self.dof = len(N) - len(cols)
        r = A @ self.p - 1
        self.s = math.sqrt(float(r @ r) / self.dof) if self.dof > 0 else float("nan")
        self.cov = np.linalg.pinv(A.T @ A) * self.s ** 2
        self.tq = stats.t.ppf(0.975, self.dof) if self.dof > 0 else float("inf")
        self.a, self.b, self.c = (float(v) for v in self.p[:3])
        self.d = float(self.p[3]) if self.jump else 0.0
        self.step_s = self.c * self.L
        self.ok = True

    def predict(self, Nstar):
        X = float(additive_copies(Nstar, self.bits, self.read))
        x = np.array([1.0, float(Nstar), X] + ([float(X > 0)] if self.jump else []))
        f = float(x @ self.p)
        var = float(x @ self.cov @ x) + (self.s * f) ** 2
        half = self.tq * math.sqrt(var)
        return f, max(f - half, 0.0), f + half

    def label(self):
        if not self.ok:
            return "no fit (%s)" % self.why
        return "%.3g ns/B + %.3g ns per byte copied past 2^%d%s" % (
            self.b * 1e9, self.c * 1e9, self.bits - 2,
            " + %s once past it" % fmt_time(self.d) if self.jump and self.d > 1e-6 else "")


def httpcore_fit(run, strategy, bits=32, read=4096, fit_min=64 << 20, leave_out_largest=False):
    """The piecewise fit of an httpcore model (strategy "httpcore" or "httpcore-heap") from its
    main family's sizes from fit_min up (bufgrow/<strategy>/size:N/read:<read>) and its cliff
    sizes around 2^(bits-2) (bufgrow-cliff/<strategy>/width:<bits>/size:N). With
    leave_out_largest the largest cliff size is left out (the validation refit). Returns the
    PiecewiseFit (check .ok) and the (N, t) arrays it was given."""
    mN, mt = run.series("bufgrow", strategy, "size", read=read)
    keep = mN >= fit_min
    cN, ct = run.series("bufgrow-cliff", strategy, "size", width=bits)
    if leave_out_largest and len(cN):
        cN, ct = cN[cN < cN.max()], ct[cN < cN.max()]
    N, t = np.concatenate([mN[keep], cN]), np.concatenate([mt[keep], ct])
    return PiecewiseFit(N, t, bits, read), (N, t)


def step_interval(fit):
    """One additive step at the threshold, c * L, and its 95% confidence interval (seconds)."""
    se = fit.tq * math.sqrt(max(float(fit.cov[2, 2]), 0.0)) * fit.L
    return fit.step_s, max(fit.step_s - se, 0.0), fit.step_s + se


# --- validation ---------------------------------------------------------------------------------

def validate(make_fit, N, t):
    """Leave the largest size out, refit with make_fit(N, t), predict it. Returns dict(size,
    measured, predicted, low, high, error) with error = predicted / measured median - 1, or None
    when the smaller sizes cannot be fitted."""
    N, t = np.asarray(N, float), np.asarray(t, float)
    if len(np.unique(N)) < 2:
        return None
    top = N.max()
    measured = float(np.median(t[N == top]))
    if not (measured > 0 and np.isfinite(measured)):
        return None
    fit = make_fit(N[N < top], t[N < top])
    if not fit.ok:
        return None
    pred, lo, hi = fit.predict(top)
    return dict(size=top, measured=measured, predicted=pred, low=lo, high=hi,
                error=pred / measured - 1)


# --- formatting ---------------------------------------------------------------------------------

def bounded(lo, hi):
    """True when a 95% interval [lo, hi] is narrow enough to print: lo > 0, hi finite and
    hi / lo <= WIDE_INTERVAL (a wider one says nothing but that the model cannot tell)."""
    return bool(lo > 0 and np.isfinite(hi) and hi / lo <= WIDE_INTERVAL)


def fmt_interval(lo, hi, fmt=None):
    """'[lo, hi]' formatted by fmt (default fmt_time), or 'unbounded' for an interval wider than
    WIDE_INTERVAL: its digits would only mislead."""
    if not bounded(lo, hi):
        return "[95%% interval unbounded: wider than %gx]" % WIDE_INTERVAL
    fmt = fmt or fmt_time
    return "[%s, %s]" % (fmt(lo), fmt(hi))


def fmt_time(s):
    """Seconds in the unit a reader compares: ns, us, ms, s, or hours past 2 h."""
    if s is None or not np.isfinite(s):
        return "-"
    a = abs(s)
    if a >= 7200:
        return "%.3g s (%.3g h)" % (s, s / 3600)
    for unit, f in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if a >= f:
            return "%.3g %s" % (s / f, unit)
    return "%.3g ns" % (s / 1e-9)


if __name__ == "__main__":
    import argparse
    _ap = argparse.ArgumentParser(
        description="hbfit is a module (import hbfit): the run-JSON reader, models, predictions "
        "and validation used by report.py, plots.py and gate.py. Run as a script it only prints "
        "this help.", epilog=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _ap.parse_args()
    _ap.print_help()

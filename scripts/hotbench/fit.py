"""fit - scaling models fitted to a run's times, predictions with intervals, validation.

Used by the report (hotbench.report), the peers section and the CI gate. Python 3 with numpy and
scipy from Debian, run under /usr/bin/python3. Reading the run is hotbench.runjson's job; which
strategy follows which model is the manifest's (a strategy's "model", docs/manifest.md).

Models, beyond google-benchmark's Big-O (which fits t = c*g(N) through the origin and never
predicts):

  power         t(N) = a + b*N^k, a >= 0, b > 0 (a = 0 below 5 sizes), fitted by least squares on
                the log of each size's median time: relative errors (timing noise is
                multiplicative), one point per size (repetitions share a size's cache and page
                state, so they are not independent; the median also ignores the repetition that
                first touch of fresh memory at 1.7 GB makes several times slower about once in
                three on these VMs). k is reported with a 95% confidence interval from the fit's
                covariance (Student t, dof = sizes - parameters);
                a prediction at N* carries a 95% prediction interval: the parameter uncertainty
                propagated through the model plus the scatter of one measurement.
  piecewise-32  a capacity of `bits` bits (32 for the model "piecewise-32") that doubles until it
                overflows, then grows by one step at a time: t(N) = a + b*N + d*[N > L] + c*X(N),
                where X(N) is the bytes copied by the additive growth steps past the overflow
                threshold L = 2^(bits-2) (X = 0 below it; above, k = ceil((N-L)/r) steps of r
                bytes, copying L + i*r bytes each, i = 0..k-1: the same arithmetic as
                account_additive in cases/bufgrow/bufgrow.c), and d a one-off cost of crossing it
                (a heap that reuses memory pays fresh memory on its first steps only); d is
                fitted only when two sizes past L are measured. Linear in a, b, c, d: a
                non-negative weighted least squares with relative weights. The step r is a fixed
                argument of the view (its "step_arg"); the sizes past 2^30 come from the view's
                companion "cliff" view.

Validation: every fit is refitted without its largest measured size and asked to predict it;
the relative error (predicted / measured median - 1) is reported. Errors beyond 25% are flagged
by the callers (VALIDATION_LIMIT), never hidden.

Units: N in the benchmark's own unit (bytes, rows, tags, volumes), t in seconds.
"""

import math

import numpy as np

from .units import fmt_time

VALIDATION_LIMIT = 0.25  # a prediction whose leave-largest-out error exceeds this is flagged
WIDE_INTERVAL = 100.0  # a 95% interval whose high / low exceeds this is shown as "unbounded"
PIECEWISE = "piecewise-"  # the models "piecewise-<bits>" (docs/manifest.md)


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
        from scipy import optimize  # here: its import costs every script a third of a second
        res = optimize.least_squares(lambda p: model(p, xs) - y, p0, bounds=(lo, hi),
                                     x_scale="jac", max_nfev=20000)
        self._model, self.p = model, res.x
        self.dof = self.n_sizes - npar
        r = model(res.x, xs) - y
        self.s = math.sqrt(float(r @ r) / self.dof)
        J = res.jac
        self.cov = np.linalg.pinv(J.T @ J) * self.s ** 2
        from scipy import stats
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


# --- the piecewise model ------------------------------------------------------------------------

def additive_copies(N, bits, read):
    """Bytes copied by the additive steps past L = 2^(bits-2) for a total of N bytes read in
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
        from scipy import optimize
        res = optimize.lsq_linear(A, np.ones_like(t), bounds=(0, np.inf))
        self.p = res.x
        self.dof = len(N) - len(cols)
        r = A @ self.p - 1
        self.s = math.sqrt(float(r @ r) / self.dof) if self.dof > 0 else float("nan")
        self.cov = np.linalg.pinv(A.T @ A) * self.s ** 2
        from scipy import stats
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


def model_bits(model):
    """The capacity width of a piecewise model's name ("piecewise-32" -> 32), or None for
    another model."""
    if not model or not model.startswith(PIECEWISE):
        return None
    return int(model[len(PIECEWISE):])


def piecewise_fit(run, strategy, main, cliff, bits, step, fit_min=64 << 20,
                  leave_out_largest=False):
    """The piecewise fit of a strategy from its main series' sizes from fit_min up and its cliff
    series' sizes around 2^(bits-2). main and cliff are (group, x, fixed args) of the two views
    (the cliff's fixed args hold the full width). With leave_out_largest the largest cliff size
    is left out (the validation refit). Returns the PiecewiseFit (check .ok) and the (N, t)
    arrays it was given."""
    mN, mt = run.series(main[0], strategy, main[1], **main[2])
    keep = mN >= fit_min
    cN, ct = run.series(cliff[0], strategy, cliff[1], **cliff[2])
    if leave_out_largest and len(cN):
        cN, ct = cN[cN < cN.max()], ct[cN < cN.max()]
    N, t = np.concatenate([mN[keep], cN]), np.concatenate([mt[keep], ct])
    return PiecewiseFit(N, t, bits, step), (N, t)


def piecewise_views(manifest, strategy):
    """Where a piecewise strategy is measured: (main, cliff, bits, step) from the first view of
    the manifest whose group has the strategy with a piecewise model and whose companion is a
    "cliff" view; main and cliff are (group, x, fixed args) as piecewise_fit takes them, step the
    value of the view's step_arg. None when no view says."""
    for g, v in manifest.views():
        bits = model_bits(manifest.model(g["name"], strategy))
        cg, comp = manifest.view(v.get("companion") or "")
        if bits and comp and "cliff" in comp["charts"] and manifest.strategy(g["name"], strategy):
            return ((g["name"], v["x"], dict(v["fixed"])),
                    (cg["name"], comp["x"], dict(comp["fixed"])), bits,
                    v["fixed"].get(v.get("step_arg")))
    return None


class SumFit:
    """A prediction that adds a linear-part fit and the additive copies of a piecewise fit priced
    by its c (a variant whose own linear part differs, the copy price measured on the main
    series). Interval half-widths add in quadrature."""

    def __init__(self, linear, piece):
        self.linear, self.piece = linear, piece
        self.ok = linear.ok and piece.ok
        self.k = getattr(linear, "k", float("nan"))

    def predict(self, n):
        m1, l1, h1 = self.linear.predict(n)
        x = float(additive_copies(n, self.piece.bits, self.piece.read))
        c_se = np.sqrt(max(self.piece.cov[2, 2], 0.0))
        m2 = self.piece.c * x
        h2 = self.piece.tq * c_se * x
        lo = m1 + m2 - np.hypot(m1 - l1, h2)
        return m1 + m2, max(lo, 0.0), m1 + m2 + np.hypot(h1 - m1, h2)

    def label(self):
        if not self.ok:
            return "no fit (%s)" % (self.piece.why or self.linear.why)
        return "linear part + %.3g ns per byte copied past 2^%d" % (self.piece.c * 1e9,
                                                                    self.piece.bits - 2)


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



def strategy_piecewise_fit(run, strategy, fit_min=64 << 20, leave_out_largest=False):
    """The piecewise fit of a piecewise strategy from the views the run's manifest names
    (piecewise_views, piecewise_fit): (PiecewiseFit, (N, t)); a PiecewiseFit that is not ok, and
    no points, when the manifest names none."""
    where = piecewise_views(run.manifest, strategy)
    if where is None:
        fit = PiecewiseFit([], [], 32, 1)
        fit.why = "the manifest names no views measuring %s's piecewise model" % strategy
        return fit, ([], [])
    main, cliff, bits, step = where
    return piecewise_fit(run, strategy, main, cliff, bits, step, fit_min, leave_out_largest)

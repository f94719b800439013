"""complexity - check 2, per strategy along a series of sizes.

The series are the views of the manifest (x, the other arguments fixed, the production value of
x) whose x counts items and that the gate's selection measures at 3 sizes or more (today bufgrow
and bufgrow-gzip: size; rfc3339: rows; volumes: volumes at 20 tags). Each time is divided by its
reference's (the group's yardstick) at the same size and run, and fitted by hotbench.fit.PowerFit
(t = a + b*N^k on log t; k with its 95% confidence interval; a = 0 for the class check, so that k
is the mean slope over the sizes: with a free constant and 3-4 sizes k is unidentifiable, 2.1 with
an interval of [-5, 9] for the injected quadratic).
a) The declared class: each strategy's declared complexity in the manifest (0: none, no class
   check). Fitted on ratio * N: the reference is linear by declaration, so the memory hierarchy's
   curvature it shares with the strategy cancels (raw times of bufgrow's linear strategies fit
   k = 1.3-1.5 from 64 KiB, in cache, to 16 MiB, paying page faults; memcpy itself 1.3). The
   view's fit_from (where the report's raw-time fits are meaningful) is not applied: the ratio
   cancels what it avoids. Regressed when the whole interval of k lies above the midpoint to the
   next class (1.5 for linear, 2.5 for quadratic) and above the baseline's interval; a strategy
   already off its class in the baseline is inconclusive, not failed on every run (in a small
   selection, glibc's malloc history can decide whether fresh memory page-faults and make a
   linear strategy fit k = 3). Pass when the whole interval is at or below the midpoint;
   inconclusive otherwise.
b) The budget at production size (the view's production: bufgrow 1.7 GB, rfc3339 100,000 rows,
   volumes 300), fitted on ratio * the baseline's reference time (the strategy's time on the
   baseline's machine): the budget is --budget-factor (2) times the baseline's 95% upper
   prediction bound there; regressed when the current prediction's lower bound exceeds it, even
   when every measured point passed check 1. The factor leaves speed drifts to check 1: this is
   for a change of growth, which extrapolation multiplies.
c) A size the baseline measured that hotbench now skips because its predicted time exceeds
   --hb_budget (the skipped row's hb_predicted_s field): regressed when that prediction is over
   --budget-factor times the baseline's time there (scaled by the reference row); inconclusive
   otherwise (a skip near the budget can flip).
"""

import math

import numpy as np

from ..fit import PowerFit
from ..units import fmt_time
from .stats import (in_view, log_median_se, normalised_series, reference_name,
                    series_views)


def fits(ctx, family, strategy, view):
    """{per_reference: (fit now, fit of the baseline's runs)} for the class check (True) and
    the budget check (False); a fit is None below 3 sizes."""
    base, run_c, ref_base, m = ctx["base"], ctx["run_c"], ctx["ref_base"], ctx["manifest"]
    out = {}
    for mode in (True, False):
        Nc, tc = normalised_series(m, run_c, family, strategy, view, ref_base, mode)
        Nb, tb = [], []
        for r in base.runs:
            n_, t_ = normalised_series(m, r, family, strategy, view, ref_base, mode)
            Nb.append(n_)
            tb.append(t_)
        Nb, tb = np.concatenate(Nb), np.concatenate(tb)
        # the class check fits a pure power (no constant): k is the mean slope over the
        # sizes, which a constant term makes unidentifiable with 3-4 sizes (k = 2.1 with a
        # 95% interval of [-5, 9] for the injected quadratic growth)
        out[mode] = (PowerFit(Nc, tc, with_constant=not mode) if len(np.unique(Nc)) >= 3
                     else None,
                     PowerFit(Nb, tb, with_constant=not mode) if len(np.unique(Nb)) >= 3
                     else None)
    return out


def _k(f):
    return "k = %.2f [%.2f, %.2f]" % (f.k, f.k_ci[0], f.k_ci[1])


def class_check(res, fc, fb, cls):
    """a) The fitted k (fc now, fb the baseline's) against the declared class cls."""
    edge = cls + 0.5
    order = "" if cls == 1 else "^%d" % cls
    if fc is None or not fc.ok:
        res.update(verdict="inconclusive", why="too few measured sizes now: a fit needs 3")
    elif fc.k_ci[0] > edge:
        why = "declared O(N%s) but %s > %.1f" % (order, _k(fc), edge)
        if fb is not None and fb.ok and fc.k_ci[0] <= fb.k_ci[1]:
            res.update(verdict="inconclusive", why=why + ", as in the baseline (%s)" % _k(fb))
        else:
            res.update(verdict="regressed", why=why + (", baseline " + _k(fb)
                                                       if fb is not None and fb.ok else ""))
    elif fc.k_ci[1] <= edge:
        res.update(verdict="pass", why="%s <= %.1f (declared O(N%s))" % (_k(fc), edge, order))
    else:
        res.update(verdict="inconclusive", why="%s straddles %.1f" % (_k(fc), edge))
    return res


def budget_check(opt, label, family, strategy, fc, fb, nstar):
    """b) The prediction at the production size nstar against the budget; None without fits."""
    if fc is None or not fc.ok or fb is None or not fb.ok:
        return None
    pc, pb = fc.predict(nstar), fb.predict(nstar)
    res = dict(check="complexity", name="%s:%.4g (predicted)" % (label, nstar), family=family,
               strategy=strategy, base=fmt_time(pb[0]), now=fmt_time(pc[0]),
               change="%+.0f%%" % (100 * (pc[0] / pb[0] - 1)))
    budget = opt.budget_factor * pb[2]
    why = "predicted %s [%s, %s], budget %s (%g x the baseline's upper bound %s)" % (
        fmt_time(pc[0]), fmt_time(pc[1]), fmt_time(pc[2]), fmt_time(budget), opt.budget_factor,
        fmt_time(pb[2]))
    if pc[1] > budget:
        res.update(verdict="regressed", why=why)
    elif pc[2] < pb[1] / opt.budget_factor:
        res.update(verdict="improved", why=why)
    elif pc[0] <= budget:
        res.update(verdict="pass", why=why)
    else:
        res.update(verdict="inconclusive", why=why)
    return res


def series_results(ctx, family, strategy, view):
    """The class check's row ("<group>/<strategy>/<x>:*") and the budget check's row of one
    strategy along one view."""
    label = "%s/%s/%s" % (family, strategy, view["x"])
    if not (ctx["manifest"].group(family) or {}).get("yardstick"):
        return [dict(check="complexity", name=label + ":*", family=family, strategy=strategy,
                     base="-", now="-", change="-", verdict="inconclusive",
                     why="no yardstick: %s is not gated (its manifest's yardstick is null)"
                     % family)]
    f = fits(ctx, family, strategy, view)
    fc, fb = f[True]
    out = []
    cls = ctx["manifest"].complexity(family, strategy)
    if cls:
        res = dict(check="complexity", name=label + ":*", family=family, strategy=strategy,
                   base=("k=%.2f" % fb.k) if fb and fb.ok else "-",
                   now=("k=%.2f" % fc.k) if fc and fc.ok else "-", change="-")
        out.append(class_check(res, fc, fb, cls))
    budget = budget_check(ctx["opt"], label, family, strategy, *f[False], view["production"])
    if budget is not None:
        out.append(budget)
    return out


def skipped_results(ctx):
    """c) Sizes the baseline measured that the harness now refuses on its predicted time."""
    base, run_c, ref_base = ctx["base"], ctx["run_c"], ctx["ref_base"]
    out = []
    for name, sk in run_c["skipped"].items():
        brows = [r["rows"].get(name) for r in base.runs]
        if sk["predicted_s"] is None or any(b is None for b in brows):
            continue
        base_med = float(np.median(np.concatenate([b["t"] for b in brows])))
        ref = reference_name(ctx["manifest"], name, sk)
        scale = 1.0
        if ref and ref in run_c["rows"] and ref in ref_base["rows"]:
            scale = math.exp(log_median_se(run_c["rows"][ref]["t"])[0] -
                             log_median_se(ref_base["rows"][ref]["t"])[0])
        factor = sk["predicted_s"] / (base_med * scale)
        res = dict(check="complexity", name=name, family=sk["family"], strategy=sk["strategy"],
                   base=fmt_time(base_med), now=fmt_time(sk["predicted_s"]) + " (pred)",
                   change="%+.0f%%" % (100 * (factor - 1)))
        why = "skipped over the budget: predicted %s, %.3gx the baseline's time" % (
            fmt_time(sk["predicted_s"]), factor)
        res.update(verdict="regressed" if factor > ctx["opt"].budget_factor else "inconclusive",
                   why=why)
        out.append(res)
    return out


def check_complexity(base, cur, opt):
    """The class and budget rows of every strategy on every series, then the new skips."""
    ctx = dict(base=base, opt=opt, manifest=cur.manifest, ref_base=base.runs[0],
               run_c=cur.runs[0])
    views = series_views(cur.manifest, base.runs[0])
    out, seen = [], set()
    for row in ctx["run_c"]["rows"].values():
        for group, view in views:
            key = (row["family"], row["strategy"], view["key"])
            if group["name"] != row["family"] or key in seen or not in_view(row, view):
                continue
            seen.add(key)
            out += series_results(ctx, row["family"], row["strategy"], view)
    return out + skipped_results(ctx)

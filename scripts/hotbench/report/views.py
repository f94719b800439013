"""views - one view of the manifest (a group's series: x scaled, the other arguments fixed), the
fits of its strategies and its tables ("table", "k-table" of the chart catalogue).

A view whose fit_from is "2x-llc" is fitted from twice the last-level cache up (smaller inputs
are written into cached, already-mapped memory, larger ones into fresh pages - two regimes one
power law would blur); a strategy measured at fewer than 3 such sizes (a quadratic one, which the
budget stops early) is fitted from FIT_MIN_SMALL up; one measured only below twice the last-level
cache is fitted but never predicted past it. A piecewise-32 strategy (docs/manifest.md) is fitted
with the sizes of the view's companion "cliff" view, or priced by the piecewise fit of its
companion view (fit.SumFit).
"""

import numpy as np

from .. import fit as hbfit
from ..units import fmt_time
from . import counters

LLC_REGIME = "2x-llc"
# Stands in when the run's context reports no caches (some VMs expose none): the project's VMs'.
FALLBACK_LLC = 32 << 20
FIT_MIN_SMALL = 1 << 20


class View:
    """A view of the manifest with its group: the attribute names the report's code uses."""

    def __init__(self, manifest, group, view):
        self.manifest, self.group, self.view = manifest, group, view
        self.key, self.family, self.title = view["key"], group["name"], view["title"]
        self.case = group["case"]
        self.x, self.fixed = view["x"], dict(view.get("fixed") or {})
        self.prod, self.prod_label = view["production"], view.get("production_label") or ""
        self.ref = group.get("reference")
        self.xlabel, self.unit = view["x_label"], view.get("unit") or ""
        self.per_label, self.per_scale = view["per_label"], view["per_scale"]
        self.items_per_x = view.get("items_per_x") or 0
        self.items_per_n = self.items_per_x or 1.0
        self.fit_from = view.get("fit_from") or ""
        self.charts = list(view.get("charts") or [])
        self.plain_x = bool(view.get("plain_x"))
        self.upper_bound = list(view.get("upper_bound") or [])
        self.items_key = view.get("items_key")
        self.step_arg, self.width_arg = view.get("step_arg"), view.get("width_arg")
        self.companion = view.get("companion")

    def ceilings(self):
        return self.manifest.ceilings(self.family)

    def model_bits(self, strategy):
        return hbfit.model_bits(self.manifest.model(self.family, strategy))

    def filter(self):
        return "^%s/" % self.family

    def piece_views(self):
        """(main, cliff) Views measuring this view's piecewise-32 strategies: this view (or its
        companion, whose piecewise fit prices this view's copies) and its "cliff" companion; None
        when the manifest names none."""
        main = self
        comp = other(self.manifest, self.companion)
        if comp is not None and "cliff" not in comp.charts:
            main, comp = comp, other(self.manifest, comp.companion)
        if comp is None or "cliff" not in comp.charts:
            return None
        return main, comp

    def step(self):
        """The bytes per additive step of the piecewise model: step_arg's fixed value, here or in
        the companion."""
        if self.step_arg in self.fixed:
            return self.fixed[self.step_arg]
        comp = other(self.manifest, self.companion)
        return comp.fixed.get(self.step_arg) if comp is not None else None

    def spec(self):
        """(group, x, fixed) as fit.piecewise_fit takes a series."""
        return self.family, self.x, self.fixed


def other(manifest, key):
    g, v = manifest.view(key) if key else (None, None)
    return View(manifest, manifest.group(g["name"]), v) if v is not None else None


def views(manifest):
    """Every view of the manifest, in its order."""
    return [View(manifest, g, v) for g, v in manifest.views()]


def last_level_cache(run):
    """(bytes of the last-level cache, True) from the run's context caches, or (FALLBACK_LLC,
    False) when the machine reported none (some VMs expose no cache sizes under /sys)."""
    caches = [c for c in run.context.get("caches", []) if c.get("type") != "Instruction"]
    if not caches:
        return FALLBACK_LLC, False
    top = max(c.get("level", 0) for c in caches)
    return max(int(c.get("size", 0)) for c in caches if c.get("level", 0) == top), True


def fit_view(run, v, limit):
    """Per strategy: series, fit (PowerFit, PiecewiseFit or SumFit), validation, the row at the
    production value (measured or predicted), the values fitted (fit_range) and, when it is not
    predicted, why (no_predict). limit: twice the last-level cache."""
    out = {}
    for s in run.strategies(v.family):
        N, t = run.series(v.family, s, v.x, **v.fixed)
        if len(N) == 0 and not run.skipped_at(v.family, s, **v.fixed):
            continue
        if v.fit_from == LLC_REGIME:
            row = _fit_llc(run, v, s, N, t, limit)
        else:
            row = _fit_power(N, t, float(v.fit_from or 0))
        at = t[N == v.prod]
        row.update(series=(N, t), measured=len(at) > 0, summary=hbfit.summarize(at))
        fit = row["fit"]
        if len(at) == 0 and fit is not None and fit.ok and not row["no_predict"]:
            row["predicted"] = fit.predict(v.prod)
        sk = [r for r in run.skipped_at(v.family, s, **v.fixed)
              if r["params"].get(v.x) == v.prod]
        row["budget_prediction"] = sk[0]["predicted_s"] if sk else None
        row["skip_message"] = sk[0]["message"] if sk else None
        out[s] = row
    return out


def _fit_power(N, t, fit_min):
    keep = N >= fit_min
    Nf, tf = N[keep], t[keep]
    fit = val = None
    if len(np.unique(Nf)) >= 3:
        fit = hbfit.PowerFit(Nf, tf)
        val = hbfit.validate(hbfit.PowerFit, Nf, tf) if len(np.unique(Nf)) >= 4 else None
    return dict(fit=fit, val=val, no_predict=None,
                fit_range=(Nf.min(), Nf.max()) if fit is not None else None)


def _fit_llc(run, v, s, N, t, limit):
    """A strategy's fit from the sizes past the caches (from `limit` up, or from FIT_MIN_SMALL
    up when fewer than 3 sizes reach it), a piecewise fit for a piecewise-32 strategy; measured
    only inside the caches (nothing from `limit` up): fitted there, never predicted past them."""
    bits = v.model_bits(s)
    pv = v.piece_views() if bits else None
    cN = run.series(pv[1].family, s, pv[1].x, **pv[1].fixed)[0] if pv else N[:0]
    top = max([*N, *cN], default=0)
    no_predict = None
    if len(N) and top < limit:
        no_predict = "measured only up to %s, inside the caches" % fmt_n(top, v.unit)
    keep = N >= limit
    if len(np.unique(N[keep])) < 3:
        keep = N >= FIT_MIN_SMALL
    Nf, tf = N[keep], t[keep]
    fit = val = None
    rng = (Nf.min(), Nf.max()) if len(Nf) else None
    if pv:
        main, cliff = pv
        piece, (pN, _) = hbfit.piecewise_fit(run, s, main.spec(), cliff.spec(), bits,
                                             main.step(), fit_min=limit)
        if main is v:
            fit, val = piece, cliff_validation(run, s, main, cliff, bits, limit)
            rng = (pN.min(), pN.max()) if len(pN) else None
        else:  # its own linear part, the copy price measured on the companion's series
            fit = hbfit.SumFit(hbfit.PowerFit(Nf, tf), piece)
            val = hbfit.validate(hbfit.PowerFit, Nf, tf)
    elif len(np.unique(Nf)) >= 3:
        fit = hbfit.PowerFit(Nf, tf)
        val = hbfit.validate(hbfit.PowerFit, Nf, tf) if len(np.unique(Nf)) >= 4 else None
    return dict(fit=fit, val=val, no_predict=no_predict, fit_range=rng)


def cliff_validation(run, s, main, cliff, bits, limit):
    """The largest full-width cliff size predicted by the piecewise fit of the others, or
    None."""
    cN, ct = run.series(cliff.family, s, cliff.x, **cliff.fixed)
    val = hbfit.piecewise_fit(run, s, main.spec(), cliff.spec(), bits, main.step(),
                              fit_min=limit, leave_out_largest=True)[0]
    if not len(cN) or not val.ok:
        return None
    top = cN.max()
    m = float(np.median(ct[cN == top]))
    p, lo, hi = val.predict(top)
    return dict(size=top, measured=m, predicted=p, low=lo, high=hi, error=p / m - 1)


def prod_time(row):
    if row["measured"]:
        return row["summary"]["median"]
    if "predicted" in row:
        return row["predicted"][0]
    return float("nan")


def counter_median(run, v, s, name):
    rows = [r for r in run.select(v.family, s, **v.fixed) if r["params"].get(v.x) == v.prod
            and name in r["counters"]]
    return float(np.median([r["counters"][name] for r in rows])) if rows else None


def fmt_n(value, unit):
    """A value of x for the text: bytes in decimal GB or MB, other units as integers."""
    if unit == "B":
        return "%.3g GB" % (value / 1e9) if value >= 1e9 else "%.3g MB" % (value / 1e6)
    return "%d" % value


def table(run, v, fits):
    """The view's table ("table"): Markdown lines; the memory counters at the production size
    beside the times when the rows carry them (counters.columns)."""
    ref = fits.get(v.ref)
    ref_t = prod_time(ref) if ref else float("nan")
    order = sorted(fits, key=lambda s: (np.isnan(prod_time(fits[s])), prod_time(fits[s])))
    extra, cells = counters.columns(run, v, order)
    lines = ["| strategy | median at production size | CV | throughput | ratio to `%s` | "
             "%sfitted k [95%% CI] | leave-largest-out error | note |" % (
                 v.ref or "(no reference)", "".join(c + " | " for c in extra)),
             "|---|---|---|---|---|---|---|---|" + "---|" * len(extra)]
    for s in order:
        r = fits[s]
        t = prod_time(r)
        med, cv = prod_cell(r, v)
        ratio = "%.3g" % (t / ref_t) if np.isfinite(t) and np.isfinite(ref_t) else "-"
        note = ""
        if r["budget_prediction"] is not None:
            note = ("hotbench's budget estimate: %s (its dry-run copies priced by a measured "
                    "copy step, not this fit)" % fmt_time(r["budget_prediction"]))
        elif r["skip_message"]:
            note = r["skip_message"][:80]
        lines.append("| `%s` | %s | %s | %s | %s | %s%s | %s | %s |" % (
            s, med, cv, throughput(run, v, s, t), ratio, "".join(c + " | " for c in cells[s]),
            k_cell(r["fit"]), val_cell(r, v), note))
    return lines


def prod_cell(r, v):
    """The median and CV cells at the production value: measured, **predicted** with its 95%
    interval (or "unbounded"), not predicted (and why), or not run."""
    if r["measured"]:
        sm = r["summary"]
        cv = "-" if sm["n"] < 2 else "%.1f%%%s" % (100 * sm["cv"],
                                                  " (noisy)" if sm["cv"] > 0.10 else "")
        return fmt_time(sm["median"]), cv
    if "predicted" in r:
        p = r["predicted"]
        return "**predicted %s** %s" % (fmt_time(p[0]), hbfit.fmt_interval(p[1], p[2])), "-"
    N = r["series"][0]
    if r["no_predict"]:
        return "not predicted: %s" % r["no_predict"], "-"
    if len(N):
        f = r["fit"]
        why = "no fit" if f is None else f.label() if not f.ok else "no prediction"
        return "not predicted: measured only up to %s (%s)" % (fmt_n(N.max(), v.unit), why), "-"
    return "not run", "-"


def throughput(run, v, s, t):
    """GB/s when x counts bytes; the MB_per_s and ns_per_<item> counters when the rows carry
    them; else the time per item."""
    if not np.isfinite(t):
        return "-"
    if v.unit == "B":
        return "%.3g GB/s" % (v.prod / t / 1e9)
    rows = run.select(v.family, s, **v.fixed)
    names = sorted({k for r in rows for k in r["counters"] if k.startswith("ns_per_")})
    mbps = counter_median(run, v, s, "MB_per_s")
    if mbps and names:
        nse = counter_median(run, v, s, names[0])
        return "%.0f MB/s, %.3g ns/%s" % (mbps, nse, names[0][len("ns_per_"):])
    if any("MB_per_s" in r["counters"] for r in rows):
        return "-"
    return "%.3g ns/%s" % (t / (v.prod * v.items_per_n) * 1e9, v.unit)


def k_cell(f):
    if f is None or not f.ok:
        return "-" if f is None else f.label()
    if isinstance(f, hbfit.PowerFit):
        return "%.2f [%.2f, %.2f]" % (f.k, *f.k_ci)
    if isinstance(f, hbfit.PiecewiseFit):
        return "piecewise: %s" % f.label()
    return "%s; linear part k=%.2f" % (f.label(), f.k)


def val_cell(r, v):
    val = r["val"]
    if val is None:
        f_ = r["fit"].linear if isinstance(r["fit"], hbfit.SumFit) else r["fit"]
        n = getattr(f_, "n_sizes", getattr(f_, "n_points", 0))
        return ("not validated (fitted on %d sizes: too few to leave one out)" % n
                if f_ is not None and f_.ok else "-")
    ve = "%+.1f%% at %s" % (100 * val["error"], fmt_n(val["size"], v.unit))
    if abs(val["error"]) > hbfit.VALIDATION_LIMIT:
        ve = "**%s FLAGGED (> %d%%)**" % (ve, 100 * hbfit.VALIDATION_LIMIT)
    return ve


def k_table(v, f):
    """The fitted exponents only ("k-table")."""
    md = ["The fitted exponents, %s scaled:" % v.x, "",
          "| strategy | fitted k [95% CI] | leave-largest-out error |", "|---|---|---|"]
    for s, r in f.items():
        fi, val = r["fit"], r["val"]
        md.append("| `%s` | %s | %s |" % (
            s, "%.2f [%.2f, %.2f]" % (fi.k, *fi.k_ci) if fi is not None and fi.ok
            else "-", "-" if val is None else "%+.1f%% at %d %s%s" % (
                100 * val["error"], val["size"], v.x,
                " **FLAGGED**" if abs(val["error"]) > hbfit.VALIDATION_LIMIT else "")))
    return md + [""]

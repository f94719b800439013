"""catalogue - the charts a view may name (docs/manifest.md, "The chart catalogue"), each a
function of (context, view, heading level) returning Markdown lines. Chart files are named
<view key>-<chart>, except "lines" and "cliff", which are the view itself: <view key>.
"""

import numpy as np

from .. import charts
from .. import fit as hbfit
from ..units import fmt_bytes, fmt_time
from . import views as V
from .missing import missing_note, missing_sentence


class Context:
    """What every chart needs: the run, the views' fits (by view key), twice the last-level
    cache, and stem(name) -> the path of a chart file without its extension."""

    def __init__(self, run, fits, limit, stem):
        self.run, self.fits, self.limit, self.stem = run, fits, limit, stem


def draw(ctx, v, chart, heading):
    """The Markdown of one chart of view v; an unknown chart name is said, not fatal."""
    fn = CHARTS.get(chart)
    if fn is None:
        return ["**Unknown chart `%s` in view `%s`** (the manifest's catalogue: %s)." % (
            chart, v.key, ", ".join(CHARTS)), ""]
    return fn(ctx, v, heading)


def link(png, alt):
    """The Markdown of a chart, or nothing when the chart had nothing to draw."""
    return ["![%s](charts/%s)" % (alt, png), ""] if png else []


def log_label(label):
    """'time per tag (ns)' -> 'time per tag (ns, log scale)'."""
    return label[:-1] + ", log scale)" if label.endswith(")") else label + " (log scale)"


def chart_table(ctx, v, heading):
    return V.table(ctx.run, v, ctx.fits[v.key]) + [""]


def chart_k_table(ctx, v, heading):
    return V.k_table(v, ctx.fits[v.key])


def chart_scaling(ctx, v, heading):
    f = ctx.fits[v.key]
    series = {s: (n[n > 0], t[n > 0]) for s, (n, t) in ((s, r["series"]) for s, r in f.items())}
    pf = {s: r["fit"] for s, r in f.items() if isinstance(r["fit"], hbfit.PowerFit)}
    png = charts.scaling(series, ctx.stem(v.key + "-scaling"), v.title, v.xlabel, v.per_label,
                         v.per_scale, pf, v.prod, v.prod_label, items_per_n=v.items_per_n,
                         plain_x=v.plain_x)
    return link(png, v.key + " scaling")


def chart_extrapolation(ctx, v, heading):
    f = ctx.fits[v.key]
    lines = {s: (r["series"][0], r["series"][1], None if r["no_predict"] else r["fit"],
                 r["val"]) for s, r in f.items()}
    png = charts.extrapolation(lines, ctx.stem(v.key + "-extrapolation"), v.prod, v.prod_label,
                               "%s: every strategy carried to %s" % (v.title, v.prod_label),
                               v.xlabel)
    return link(png, v.key + " extrapolated") or [
        "No chart carries the strategies to %s: none was measured or predicted there."
        % v.prod_label, ""]


def _prod_fixed(v):
    return dict(v.fixed, **{v.x: v.prod})


def _fmt_arg(x):
    return "%d" % x if float(x).is_integer() else "%g" % x


def chart_bars(ctx, v, heading):
    """Time per item at the production value, median and min-max; ratio to the reference."""
    f = ctx.fits[v.key]
    items = []
    for s in f:
        at = [r["t"] / (v.prod * v.items_per_n) * v.per_scale
              for r in ctx.run.select(v.family, s, **_prod_fixed(v))]
        if at:
            items.append((s, at))
    items.sort(key=lambda x: np.median(x[1]))
    md = []
    if f and not items:
        md += [_missing_at_production(ctx, v), ""]
    png = charts.bars(items, ctx.stem(v.key + "-bars"), "%s at %s (median, min-max of the "
                      "repetitions; the ratio to `%s` printed)" % (
                          v.per_label, v.prod_label, v.ref or items[0][0] if items else ""),
                      log_label(v.per_label), ref=v.ref)
    return md + link(png, v.key + " bars")


def _missing_at_production(ctx, v):
    return missing_note(ctx.run, "%s at %s" % (v.title, v.prod_label), v.family,
                        "^%s/.*/%s:%s/" % (v.family, v.x, _fmt_arg(v.prod)),
                        **_prod_fixed(v))


def chart_per_element(ctx, v, heading):
    """The ns_per_element counter at the production value as bars."""
    nse = []
    for s in ctx.fits[v.key]:
        vals = [r["counters"]["ns_per_element"]
                for r in ctx.run.select(v.family, s, **_prod_fixed(v))
                if "ns_per_element" in r["counters"]]
        if vals:
            nse.append((s, vals))
    nse.sort(key=lambda x: np.median(x[1]))
    png = charts.bars(nse, ctx.stem(v.key + "-per-element"), "ns per element at %s (median, "
                      "min-max; the ratio to `%s` printed)" % (v.prod_label, v.ref or nse[0][0]),
                      "time per element (ns, log scale)", ref=v.ref) if nse else None
    return link(png, v.key + " per element")


def chart_lines(ctx, v, heading):
    """Time per item against x on a linear axis (logarithmic when x spans 100x or more). Items per iteration: x * items_per_x when x
    counts them, else the run-context value the view's items_key names, else one (the time per
    iteration, said in the title)."""
    raw = ctx.run.context.get(v.items_key) if v.items_key else None
    per = int(raw) if raw else None
    series = {}
    for s in ctx.run.strategies(v.family):
        rows = [r for r in ctx.run.select(v.family, s, **v.fixed) if v.x in r["params"]]
        if not rows:
            continue
        xs = [r["params"][v.x] for r in rows]
        if v.items_per_x:
            series[s] = (xs, [r["t"] / (x * v.items_per_x) * v.per_scale
                              for r, x in zip(rows, xs)])
        else:
            series[s] = (xs, [r["t"] / (per or 1) * v.per_scale for r in rows])
    ticks = sorted({x for pts in series.values() for x in pts[0]})
    what = ("" if v.items_per_x else " (%d %s per iteration)" % (per, v.unit) if per else
            " (per iteration: the run does not say how many items)")
    wide = bool(ticks) and ticks[0] > 0 and ticks[-1] >= 100 * ticks[0]  # e.g. 64 B to 64 KiB
    png = charts.lines(series, ctx.stem(v.key), v.title + what, v.xlabel, v.per_label,
                       logx=wide, xticks=ticks or None)
    return link(png, v.key)


def chart_copied(ctx, v, heading):
    """Bytes copied per unit of x; counts that are upper bounds marked (from the
    bytes_copied_is_upper_bound counter, else the view's upper_bound list, said assumed)."""
    run = ctx.run
    if not run.select(v.family, **v.fixed):
        return []
    pts, ceilings = {}, v.ceilings()
    for s in run.strategies(v.family):
        Ns, rs, pr = [], [], []
        for r in sorted(run.select(v.family, s, **v.fixed), key=lambda r: r["params"][v.x]):
            if r["rep"] == 0 and "bytes_copied_per_byte" in r["counters"]:
                Ns.append(r["params"][v.x])
                rs.append(r["counters"]["bytes_copied_per_byte"])
                pr.append(False)
        for r in run.skipped_at(v.family, s, **v.fixed):
            m = r["counters"].get("hb_bytes_copied")
            if m:
                Ns.append(r["params"][v.x])
                rs.append(m / r["params"][v.x])
                pr.append(True)
        if Ns and s not in ceilings:
            pts[s] = (Ns, rs, pr)
    upper, known = _upper_bounds(run, v)
    png = charts.copied_per_byte(pts, ctx.stem(v.key + "-copied"), "Bytes copied: " + v.title,
                                 v.xlabel, "bytes copied per byte (log scale)", upper=upper)
    md = ["%s Bytes copied per byte" % heading, "",
          "The copies each strategy makes, from the `bytes_copied_per_byte` counter; for sizes "
          "the budget skipped, from the strategy's dry-run plan. Strategies that copy nothing "
          "are drawn on the axis's floor, labelled."]
    if upper:
        md[-1] += (" For %s, which grow with `realloc`, the count is an **upper bound** (it "
                   "counts the block as copied whenever `realloc` moves it, but glibc moves large "
                   "blocks with `mremap`, copying nothing): drawn as downward triangles%s." % (
                       ", ".join("`%s`" % s for s in upper),
                       "" if known else "; this run JSON does not say which strategies use "
                       "realloc (no `bytes_copied_is_upper_bound` counter), so the registry's "
                       "are assumed"))
    return md + [""] + link(png, v.key + " bytes copied")


def _upper_bounds(run, v):
    """(strategies whose counts are upper bounds, True) from the counter; without it (a run
    older than the counter) (the view's upper_bound that ran, False)."""
    rows = [r for r in run.rows if r["family"] == v.family]
    if not any("bytes_copied_is_upper_bound" in r["counters"] for r in rows):
        return [s for s in v.upper_bound if s in run.strategies(v.family)], False
    return run.upper_bound_strategies(v.family), True


def chart_cliff(ctx, v, heading):
    """Each strategy and capacity width measured past its threshold: the piecewise fit, its
    step, its validation; the full width joined with the companion view's sizes past the
    caches."""
    run, main = ctx.run, V.other(run_manifest(ctx), v.companion)
    rows_by_strategy = ctx.fits.get(main.key, {}) if main is not None else {}
    panels, notes = [], []
    rows = ["| strategy | %s | threshold | per additive step (at the threshold) "
            "| piecewise fit | leave-largest-out error |" % (v.width_arg or "width"),
            "|---|---|---|---|---|---|"]
    strategies = [s for s in run.strategies(v.family) if v.model_bits(s)]
    for strategy in strategies:
        for bits in _widths(run, v, strategy):
            panel = _cliff_panel(ctx, v, main, rows_by_strategy.get(strategy), strategy, bits,
                                 notes)
            if panel is not None:
                panels.append(panel[0])
                rows.append(panel[1])
    png = charts.cliff(panels, ctx.stem(v.key), strategies[0] if strategies else "",
                       v.xlabel.split(" (")[0], v.per_label) if panels else None
    md = rows + ["", "![%s](charts/%s)" % (v.key, png), ""] if png else []
    for n in notes:
        md += [n, ""]
    return md


def run_manifest(ctx):
    return ctx.run.manifest


def _widths(run, v, strategy):
    """The capacity widths of strategy the run has (timed or skipped), and the model's own; the
    model's alone when the view names no width argument."""
    full = v.fixed.get(v.width_arg, v.model_bits(strategy))
    if not v.width_arg:
        return [full]
    seen = {r["params"].get(v.width_arg) for r in run.select(v.family, strategy)}
    seen |= {r["params"].get(v.width_arg) for r in run.skipped
             if r["family"] == v.family and r["strategy"] == strategy}
    return sorted(w for w in seen | {full} if isinstance(w, int))


def _cliff_panel(ctx, v, main, main_row, strategy, bits, notes):
    """(panel, table row) of one strategy and width, or None (a sentence added to notes)."""
    run = ctx.run
    at = {v.width_arg: bits} if v.width_arg else v.fixed
    N, t = run.series(v.family, strategy, v.x, **at)
    L = 2 ** (bits - 2)
    if not (N > L).any():  # the sizes past the threshold are the measurement
        sk = [r for r in run.skipped_at(v.family, strategy, **at)
              if r["params"].get(v.x, 0) > L]
        notes.append(missing_sentence(
            "`%s/%s/%s:%d` past %s" % (v.family, strategy, v.width_arg, bits, fmt_bytes(L)),
            "^%s/%s/%s:%d/" % (v.family, strategy, v.width_arg, bits), sk))
        return None
    if bits == v.fixed.get(v.width_arg, bits) and main_row is not None:
        mN, mt = main_row["series"]
        keep = mN >= ctx.limit
        N, t = np.concatenate([mN[keep], N]), np.concatenate([mt[keep], t])
        near = N >= L
        fit, val = main_row["fit"], main_row["val"]
        under = N[~near].max() if (~near).any() else None
        below = (under, float(np.median(t[N == under]))) if under is not None else None
        panel = ("%s, %d bits: at and just past 2^%d" % (strategy, bits, bits - 2), N[near],
                 t[near], L, fit, below)
    else:
        step = main.step() if main is not None else v.step()
        fit = hbfit.PiecewiseFit(N, t, bits, step)
        val = hbfit.validate(lambda n, tt: hbfit.PiecewiseFit(n, tt, bits, step), N, t)
        panel = ("%s, %d bits: overflow past %s" % (strategy, bits, fmt_bytes(L)), N, t, L, fit)
    return panel, _cliff_row(strategy, bits, L, fit, val)


def _cliff_row(strategy, bits, L, fit, val):
    if fit is not None and fit.ok:
        st = hbfit.step_interval(fit)
        step = "%s %s" % (fmt_time(st[0]), hbfit.fmt_interval(st[1], st[2]))
        lab = fit.label()
    else:
        step, lab = "-", "-" if fit is None else fit.label()
    ve = "-" if val is None else "%+.1f%% at %d B%s" % (
        100 * val["error"], val["size"],
        " **FLAGGED**" if abs(val["error"]) > hbfit.VALIDATION_LIMIT else "")
    return "| `%s` | %d | %s | %s | %s | %s |" % (strategy, bits, fmt_bytes(L), step, lab, ve)


CHARTS = {"table": chart_table, "k-table": chart_k_table, "scaling": chart_scaling,
          "extrapolation": chart_extrapolation, "bars": chart_bars,
          "per-element": chart_per_element, "lines": chart_lines, "copied": chart_copied,
          "cliff": chart_cliff}

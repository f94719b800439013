"""sections - the in-process part of the report, walked from the manifest: the summary, then per
case (its title and incident), per group with views (its title and about), per view the charts
the view names, from the catalogue of docs/manifest.md (drawn by hotbench.report.catalogue).
Whatever the run lacks is one sentence naming the command that measures it.
"""

import numpy as np

from .. import fit as hbfit
from ..units import fmt_bytes, fmt_time
from . import catalogue, counters, limits as limits_text
from .missing import missing_note
from .views import (FIT_MIN_SMALL, LLC_REGIME, fit_view, last_level_cache, prod_time,
                    views)

# The charts that need the view's fits (the others read the run directly).
FITTED = {"table", "k-table", "scaling", "extrapolation", "bars", "per-element"}


def in_process_sections(run, status, stem, environment, limits=None):
    """The failed benchmarks, the summary, the environment and every case, from the run;
    limits: the hotbench-limits/1 document of `make limits` (hotbench.limits) or None."""
    limit = 2 * last_level_cache(run)[0]
    vs = views(run.manifest)
    fits = {v.key: fit_view(run, v, limit) for v in vs if FITTED & set(v.charts)}
    md = []
    if run.failed:
        md += ["**%d benchmark(s) FAILED verification and were not timed** (their answers "
               "differed from the reference; hotbench exited 1):" % len(run.failed), ""]
        md += ["- `%s/%s/%s`: %s" % (r["family"], r["strategy"], "/".join(
            "%s:%s" % kv for kv in r["params"].items()), r["message"][:300]) for r in run.failed]
        md += [""]
    unknown = [f for f in run.families() if run.manifest.group(f) is None]
    if unknown:
        md += ["**Not reported: %s**: the run has benchmarks of these groups but its manifest "
               "does not describe them (add them to their case's case.c and rerun)." % ", ".join(
                   "`%s`" % f for f in unknown), ""]
    md += summary_section(vs, fits)
    md += ["## Environment", ""] + environment(run, status) + [""]
    ctx = catalogue.Context(run, fits, limit, stem)
    for i, case in enumerate(run.manifest.cases, 1):
        md += case_section(ctx, i, case, [v for v in vs if v.case == case["name"]], limits)
    return md


def summary_section(vs, fits):
    """Per view with a table: the fastest and slowest strategy at the production value (ceilings
    left out)."""
    tabled = [v for v in vs if "table" in v.charts]
    md = ["## Summary", "",
          "At each production size (%s):" % "; ".join(dict.fromkeys(
              v.prod_label for v in tabled)),
          "", "| case | fastest | slowest | slowest / fastest |", "|---|---|---|---|"]
    missing_figures, absent, ceilings = [], [], []
    for v in tabled:
        f, skip = fits[v.key], v.ceilings()
        ceilings += [c for c in skip if c not in ceilings]
        ts = {s: prod_time(r) for s, r in f.items() if np.isfinite(prod_time(r))
              and s not in skip}
        if not ts:
            absent.append(v.title)
            continue
        lo, hi = min(ts, key=ts.get), max(ts, key=ts.get)
        none = [s for s in f if s not in ts and s not in skip]
        if none:
            missing_figures.append("%s: %s" % (v.title, ", ".join("`%s`" % x for x in none)))
        md.append("| %s | `%s` %s%s | `%s` %s%s | %.3g |" % (
            v.title, lo, fmt_time(ts[lo]), _pred_tag(f[lo]), hi, fmt_time(ts[hi]),
            _pred_tag(f[hi]), ts[hi] / ts[lo]))
    if ceilings:
        md += ["", "Baseline rows (%s) are ceilings, not strategies, and are left out of fastest "
               "and slowest." % ", ".join("`%s`" % c for c in ceilings)]
    if missing_figures:
        md += ["Strategies with no figure at the production size (not measured there and not "
               "predicted; see their tables): " + "; ".join(missing_figures) + "."]
    if absent:
        md += ["No figure at the production size in this run for: %s (see their sections)."
               % "; ".join(absent)]
    return md + [""]


def _pred_tag(r):
    if r["measured"]:
        return ""
    p = r.get("predicted")
    return " (predicted)" if p is None or hbfit.bounded(p[1], p[2]) else \
        " (predicted; 95% interval unbounded)"


def case_section(ctx, number, case, vs, limits=None):
    """A case: its title and incident, the fit range of its views fitted past the caches, then
    each group with views or limits (then its "What limits it now" paragraph, with the counts
    of the limits document when given)."""
    md = ["## Case %d: %s (%s)" % (number, case["title"], case["name"]), "", case["incident"]]
    llc = [v for v in vs if v.fit_from == LLC_REGIME]
    if llc:
        size, known = last_level_cache(ctx.run)
        md[-1] += " " + fit_range_text(llc, ctx.fits, ctx.limit)
        if not known:
            md[-1] += (" This run's context reports no cache sizes (some VMs expose none): the "
                       "last-level cache is taken as %s, the project's VMs'." % fmt_bytes(size))
    md.append("")
    sentence = counters.case_sentence(ctx.run, [v for v in vs if "table" in v.charts])
    md += [sentence, ""] if sentence else []
    for group in case["groups"]:
        gv = [v for v in vs if v.family == group["name"]]
        if not gv and not group.get("limits"):
            continue
        md += ["### %s" % group["title"], "", group["about"], ""]
        for v in gv:
            md += view_section(ctx, v, "####" if len(gv) > 1 else None)
        md += limits_text.paragraph(ctx.run, group, limits)
    return md


def view_section(ctx, v, heading):
    """A view: what the run lacks of it, then its charts in the manifest's order."""
    md = ["%s %s" % (heading, v.title), ""] if heading else []
    fixed = {k: x for k, x in v.fixed.items() if k != v.width_arg}
    note = missing_note(ctx.run, "%s (`%s`)" % (v.title, v.family), v.family, v.filter(),
                        **fixed)
    md += [note, ""] if note else []
    if v.key in ctx.fits and not ctx.fits[v.key] or note and v.width_arg:
        return md
    for chart in v.charts:
        md += catalogue.draw(ctx, v, chart, "#" + heading if heading else "####")
    return md


def fit_range_text(vs, fits, limit):
    """The sizes the fits of views fitted past the caches actually used, in words."""
    past, small, inside = [], [], []
    for v in vs:
        for s, r in fits.get(v.key, {}).items():
            if r["no_predict"]:
                inside.append(s)
            elif r["fit_range"] is not None:
                (past if r["fit_range"][0] >= limit else small).append(s)
    names = lambda xs: ", ".join("`%s`" % x for x in dict.fromkeys(xs))  # noqa: E731
    out = []
    if past:
        out.append("Fits use the sizes from %s up (twice the last-level cache: smaller inputs are "
                   "written into cached memory, a different regime)" % fmt_bytes(limit)
                   + ("; from %s up for %s, measured at fewer than 3 sizes from %s (the budget "
                      "stops them earlier)." % (fmt_bytes(FIT_MIN_SMALL), names(small),
                                                fmt_bytes(limit)) if small else "."))
    elif small:
        out.append("Fits use the sizes from %s up: %s reached %s at fewer than 3 sizes." % (
            fmt_bytes(FIT_MIN_SMALL), names(small), fmt_bytes(limit)))
    if inside:
        out.append("%s measured only below %s (twice the last-level cache), inside the caches: "
                   "fitted from %s up on those sizes, and not predicted at %s, a regime not "
                   "measured." % ("Every strategy was" if not past and not small else
                                  names(inside) + (" was" if len(set(inside)) == 1 else
                                                   " were"),
                                  fmt_bytes(limit), fmt_bytes(FIT_MIN_SMALL),
                                  vs[0].prod_label))
    return " ".join(out)


def method_section(manifest):
    """The method, naming the manifest's piecewise strategies (none without a run)."""
    piecewise = list(dict.fromkeys(
        s["name"] for g in (manifest.groups() if manifest else []) for s in g["strategies"]
        if hbfit.model_bits(s["model"])))
    return ["## Method", "",
            "- Medians of the repetitions; CV = sample standard deviation / mean, flagged over "
            "10%.",
            "- Fitted model `t(N) = a + b*N^k` (a >= 0), least squares on log t so every point "
            "weighs by its relative error; k's 95% confidence interval from the fit's covariance "
            "(Student t)." + (" %s: the piecewise model "
                              "`t = a + b*N + d*[N > 2^30] + c*X(N)`, X the bytes "
                              "copied by the additive steps past 2^30 (zero below), fitted on "
                              "its main family and the 32-bit cliff sizes just past 2^30." % (
                                  " and ".join("`%s`" % s for s in piecewise))
                              if piecewise else ""),
            "- Predictions at the production size carry 95%% prediction intervals (parameter "
            "uncertainty plus the scatter of one measurement). They are predictions, never "
            "measurements. An interval wider than %dx is shown as unbounded, not as digits; a "
            "strategy measured only inside the caches (below twice the last-level cache) "
            "is not predicted at the production size." % hbfit.WIDE_INTERVAL,
            "- Validation: each fit is redone without its largest measured size and predicts it; "
            "the relative error is shown, and flagged beyond %d%%." % (
                100 * hbfit.VALIDATION_LIMIT),
            "- google-benchmark's own `_BigO` rows fit `t = c*g(N)` through the origin; across "
            "cache regimes they mean little and are not used here.", ""]

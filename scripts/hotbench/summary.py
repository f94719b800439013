"""summary - one console table per group of a hotbench run, at the production size (scripts/
summary.py; `make bench` prints it).

For each group of the run it picks one configuration - the production value of x with the other
arguments fixed as in the group's first view (docs/manifest.md), or the largest x measured when
the production value was not; for a group without views, the largest value of its first argument
- and shows per strategy: the median time of the repetitions, their coefficient of variation
(flagged over 10%), GB/s, ns per item where items are counted, and the ratio to the group's
reference row (the manifest's "reference"). Sizes the budget skipped show their predicted time
(the hb_predicted_s field), marked PREDICTED. The full data stay in the JSON. A run JSON of
aggregates only shows google-benchmark's median and cv rows.
"""

import numpy as np

from .fit import summarize
from .units import fmt_time4


def configurations(run):
    """{group: {strategy: {args tuple: {median_s, cv, gbps, items} | {error, predicted_s}}}}, in
    the run's order."""
    out = {}
    for r in run.rows:
        if not r["params"]:
            continue
        cell = out.setdefault(r["family"], {}).setdefault(r["strategy"], {}).setdefault(
            tuple(r["params"].items()), {"t": [], "bps": [], "ips": []})
        cell["t"].append(r["t"])
        cell["bps"].append(r["counters"].get("bytes_per_second", 0.0))
        if "items_per_second" in r["counters"]:
            cell["ips"].append(r["counters"]["items_per_second"])
    for cells in out.values():
        for rows in cells.values():
            for key, c in rows.items():
                sm = summarize(c["t"])
                rows[key] = dict(median_s=sm["median"], cv=sm["cv"] if sm["n"] > 1 else None,
                                 gbps=float(np.median(c["bps"])) / 1e9,
                                 items=float(np.median(c["ips"])) if c["ips"] else None)
    for r in run.aggregates:  # a run JSON of aggregates only: google-benchmark's median, cv
        if r["params"] and r["aggregate"] in ("median", "cv"):
            rows = out.setdefault(r["family"], {}).setdefault(r["strategy"], {})
            cell = rows.get(tuple(r["params"].items()))
            if cell is None or "agg" in cell:
                cell = rows.setdefault(tuple(r["params"].items()),
                                       dict(agg=True, median_s=float("nan"), cv=None, gbps=0.0,
                                            items=None))
                if r["aggregate"] == "cv":
                    cell["cv"] = r["t"]
                else:
                    cell.update(median_s=r["t"], items=r["counters"].get("items_per_second"),
                                gbps=r["counters"].get("bytes_per_second", 0.0) / 1e9)
    for r in run.skipped + run.failed:
        if r["params"]:
            rows = out.setdefault(r["family"], {}).setdefault(r["strategy"], {})
            rows.setdefault(tuple(r["params"].items()),
                            dict(error=r["message"], predicted_s=r.get("predicted_s")))
    return out


def pick(group, strategies):
    """The configuration (args tuple) the group's table shows; group is the manifest's (or
    None)."""
    keys = list(dict.fromkeys(k for rows in strategies.values() for k in rows))
    view = (group or {}).get("views") or []
    if view:
        v = view[0]
        chosen = [k for k in keys if all(dict(k).get(a) == b for a, b in v["fixed"].items())
                  and v["x"] in dict(k)]
        at = [k for k in chosen if dict(k)[v["x"]] == v["production"]]
        if at or chosen:
            return (at or [max(chosen, key=lambda k: dict(k)[v["x"]])])[0]
    first = keys[0][0][0]
    top = max(dict(k).get(first, 0) for k in keys)
    return next(k for k in keys if dict(k).get(first) == top)


def print_group(name, group, strategies, out):
    key = pick(group, strategies)
    ref_name = (group or {}).get("reference")
    ref = strategies.get(ref_name, {}).get(key, {}).get("median_s")
    out("\n%s at %s; ratio = time / %s" % (
        name, ", ".join("%s:%s" % kv for kv in key),
        ref_name + "'s time" if ref else "(no reference row)" if not ref_name else
        "%s's time (%s not measured here: no ratios)" % (ref_name, ref_name)))
    out("  %-20s %12s %7s %9s %10s %9s" % ("strategy", "median", "cv", "GB/s", "ns/item",
                                           "ratio"))
    for strategy, rows in strategies.items():
        r = rows.get(key)
        if r is None:
            out("  %-20s not run at this configuration" % strategy)
        elif "median_s" in r:
            cv = r.get("cv")
            flag = "  noisy (cv > 10%)" if cv is not None and cv > 0.10 else ""
            ratio = "%9.3g" % (r["median_s"] / ref) if ref else "%9s" % "-"
            per_item = "%10.4g" % (1e9 / r["items"]) if r.get("items") else "%10s" % "-"
            out("  %-20s %12s %7s %9.3f %s %s%s" % (
                strategy, fmt_time4(r["median_s"]),
                "%.1f%%" % (100 * cv) if cv is not None else "-", r["gbps"], per_item, ratio,
                flag))
        elif r.get("predicted_s"):
            pred = r["predicted_s"]
            ratio = "%9.3g" % (pred / ref) if ref else "%9s" % "-"
            out("  %-20s %12s %7s %9s %10s %s  PREDICTED, not run" % (
                strategy, fmt_time4(pred), "-", "-", "-", ratio))
        else:
            out("  %-20s %s" % (strategy, r.get("error", "no result")))


def summary(run, out=print, manifest=None):
    """Prints the run's line and every group's table through out; manifest None: no reference
    rows (a run without one)."""
    ctx = run.context
    out("run %s  rev %s  profile %s  budget %s s" % (ctx.get("date"), ctx.get("hb_git_revision"),
                                                    ctx.get("hb_profile"), ctx.get("hb_budget_s")))
    for name, strategies in configurations(run).items():
        print_group(name, manifest.group(name) if manifest else None, strategies, out)

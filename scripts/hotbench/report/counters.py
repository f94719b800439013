"""counters - the memory counters beside the times (issue 16 item 2): the table columns and one
sentence per case on what they explain.

The counters are per iteration of the timed loop, in the rows of runs made with them
(docs/manifest.md, "Fields of a run's rows"): minor_faults, minor_faults_per_mb (per 1e6 bytes of
payload), peak_rss_bytes (whole-process) and peak_rss_growth_bytes (the loop's own, shown
where present), and mremap_calls, madvise_calls (absent where the kernel's syscall
tracepoints could not be opened). Rows of older runs lack them: their tables lack the columns and
their cases the sentence.
"""

import numpy as np

from ..units import fmt_bytes, fmt_time

# Pearson r from which the sentence says time follows the faults (else "partly", below 0.5 not)
FOLLOWS, PARTLY = 0.8, 0.5


def fmt_mem(n):
    """Bytes of memory in decimal MB or GB, three significant digits."""
    return "%.3g GB" % (n / 1e9) if n >= 1e9 else "%.3g MB" % (n / 1e6)


# (counter, column title, format), the calls shown only where some row has them non-zero.
ALWAYS = (("minor_faults_per_mb", "faults/MB", lambda x: "%.3g" % x),
          ("peak_rss_growth_bytes", "peak RSS growth", fmt_mem),
          ("peak_rss_bytes", "peak RSS", fmt_mem))
# the whole-process peak only where a run predates the loop's own growth (issue 16)
SUPERSEDES = {"peak_rss_bytes": "peak_rss_growth_bytes"}
WHEN_USED = (("mremap_calls", "mremap calls", lambda x: "%.3g" % x),
             ("madvise_calls", "madvise calls", lambda x: "%.3g" % x))


def _median(rows, name):
    vals = [r["counters"][name] for r in rows if name in r["counters"]]
    return float(np.median(vals)) if vals else None


def columns(run, v, strategies):
    """(header cells, {strategy: cells}) of the counters at the view's production value: the
    ALWAYS columns when any row there has them, the WHEN_USED ones when any is non-zero."""
    at = dict(v.fixed, **{v.x: v.prod})
    rows = {s: run.select(v.family, s, **at) for s in strategies}
    every = [r for rs in rows.values() for r in rs]
    have = {c[0] for c in ALWAYS if any(c[0] in r["counters"] for r in every)}
    cols = [c for c in ALWAYS if c[0] in have and SUPERSEDES.get(c[0]) not in have]
    cols += [c for c in WHEN_USED if any(r["counters"].get(c[0]) for r in every)]
    cells = {}
    for s, rs in rows.items():
        meds = [_median(rs, c[0]) for c in cols]
        cells[s] = [c[2](m) if m is not None else "-" for c, m in zip(cols, meds)]
    return [c[1] for c in cols], cells


def _peak(rows):
    """(median peak memory, its name in the sentence): the loop's own growth where the rows have
    it, else the whole-process peak; (None, None) without either."""
    for name, text in (("peak_rss_growth_bytes", "peak RSS growth"), ("peak_rss_bytes", "peak RSS")):
        m = _median(rows, name)
        if m is not None:
            return m, text
    return None, None


def _points(run, v):
    """(args, [(strategy, median time s, median faults per iteration, faults/MB, _peak)]) at
    the largest x of the view where at least 3 strategies have the fault counters; None."""
    by_x = {}
    for r in run.select(v.family, **v.fixed):
        if "minor_faults" in r["counters"] and v.x in r["params"]:
            by_x.setdefault(r["params"][v.x], {}).setdefault(r["strategy"], []).append(r)
    for x in sorted(by_x, reverse=True):
        pts = [(s, float(np.median([r["t"] for r in rs])), _median(rs, "minor_faults"),
                _median(rs, "minor_faults_per_mb"), _peak(rs)) for s, rs in by_x[x].items()]
        if len(pts) >= 3:
            return x, pts
    return None


def case_sentence(run, views):
    """One sentence on what the fault counters explain in the case's first view (with a table)
    that has them, at its largest size with 3 or more strategies; None without counters."""
    for v in views:
        got = _points(run, v)
        if got is None:
            continue
        x, pts = got
        where = "At %s %s (`%s`)" % (v.x, fmt_bytes(x) if v.unit == "B" else "%g" % x,
                                     v.family)
        t = np.array([p[1] for p in pts])
        f = np.array([p[2] for p in pts])
        fmb = {p[0]: p[3] for p in pts}
        hi, lo = max(pts, key=lambda p: p[2]), min(pts, key=lambda p: p[2])
        rss = [p[4][0] for p in pts if p[4][0] is not None]
        what = next((p[4][1] for p in pts if p[4][1]), "")
        rss_text = "" if not rss else ", %s %s" % (what, fmt_mem(min(rss))) + (
            " to %s" % fmt_mem(max(rss)) if fmt_mem(max(rss)) != fmt_mem(min(rss)) else "")
        if f.max() < 1 or np.ptp(f) == 0:
            return ("%s page faults explain none of the %d strategies' differences: at most "
                    "%.3g minor faults per iteration%s, so their times (%s to %s) come from the "
                    "work itself." % (where, len(pts), f.max(), rss_text, fmt_time(t.min()),
                                      fmt_time(t.max())))
        r = float(np.corrcoef(f, t)[0, 1]) if np.ptp(t) > 0 else float("nan")
        slope = float(np.polyfit(f, t, 1)[0])
        verb = ("follows" if r >= FOLLOWS else "partly follows" if r >= PARTLY
                else "does not follow")
        return ("%s time %s minor page faults across the %d strategies (Pearson r = "
                "%.2f; least-squares slope %s per fault): `%s` takes the most (%s/MB, %s), "
                "`%s` the fewest (%s/MB, %s)%s." % (
                    where, verb, len(pts), r, fmt_time(slope), hi[0], _num(fmb[hi[0]]),
                    fmt_time(hi[1]), lo[0], _num(fmb[lo[0]]), fmt_time(lo[1]), rss_text))
    return None


def _num(x):
    return "-" if x is None else "%.3g" % x

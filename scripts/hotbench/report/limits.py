"""limits - a group's "What limits it now" paragraph: the case author's mechanism text (the
manifest's limits, docs/manifest.md), then the figures measured: the fast strategy's and its
ceiling's medians at the limits row of the run, their ratio, GB/s or ns per item, the
calibration's warm copy bandwidth, and from `make limits` (hotbench-limits/1, hotbench.limits)
instructions per byte and per item of both rows and simulated branch misses. Without the
limits document, the run's figures and one sentence saying how to get the rest.
"""

import numpy as np

from ..runjson import parse_name

NOISY = 0.10  # the report's CV flag (docs: "flagged over 10%")
HOW = ("Instructions per byte and simulated branch misses: run `make limits` "
       "(scripts/limits.py, callgrind) and regenerate the report.")


def _row(run, group, strategy, args):
    """(median seconds per iteration, CV, repetitions, bytes, items) of one row of the run, or
    None when the run has no such row. bytes/items per iteration: the row's rates times its
    time (None where the row has no rate)."""
    params = parse_name("%s/%s/%s" % (group, strategy, args))[2]
    rows = [r for r in run.select(group, strategy, **params) if r["params"] == params]
    if not rows:
        return None
    t = np.array([r["t"] for r in rows])
    cv = float(np.std(t, ddof=1) / np.mean(t)) if len(t) > 1 else None
    out = dict(t=float(np.median(t)), cv=cv, n=len(t))
    for key, rate in (("bytes", "bytes_per_second"), ("items", "items_per_second")):
        v = rows[0]["counters"].get(rate)
        out[key] = v * rows[0]["t"] if v else None
    return out


def _speed(r, item):
    """'14.0 GB/s' and/or '10.8 ns per timestamp' of a row of _row."""
    out = []
    if r["bytes"]:
        out.append("%.3g GB/s" % (r["bytes"] / r["t"] / 1e9))
    if item and r["items"]:
        out.append("%.3g ns per %s" % (r["t"] / r["items"] * 1e9, item))
    return ", ".join(out)


def run_figures(run, group, lim):
    """The sentence of the run's own figures at the limits row, or one saying what is missing."""
    s, c = lim["strategy"], lim["ceiling"]
    rs, rc = _row(run, group, s, lim["row"]), _row(run, group, c, lim["row"])
    if rs is None or rc is None:
        return ("This run has no `%s/%s/%s` row of %s: measure it with `make bench` (the full "
                "profile)." % (group, s if rs is None else c, lim["row"],
                               "`%s`" % (s if rs is None else c)))
    cvs = [x["cv"] for x in (rs, rc) if x["cv"] is not None]
    text = ("In this run at `%s` (medians of %d repetitions%s): `%s` %s, `%s` %s; `%s` takes "
            "%.2fx the ceiling's time." % (
                lim["row"], min(rs["n"], rc["n"]),
                ", CV up to %.1f%%" % (100 * max(cvs)) if cvs else "", s,
                _speed(rs, lim.get("item")), c, _speed(rc, lim.get("item")), s,
                rs["t"] / rc["t"]))
    if cvs and max(cvs) > NOISY:
        text += (" A CV over %d%% usually means the machine was busy: this ratio is noisy; "
                 "rerun on an idle machine before drawing on it." % (100 * NOISY))
    warm = _number(run.context.get("hb_calib_warm_copy_gbps"))
    if not warm:
        text += (" The run carries no warm copy bandwidth (context hb_calib_warm_copy_gbps: "
                 "`make bench` calibrates first).")
    elif rs["bytes"]:
        text += (" The calibration's warm copy bandwidth on this machine is %.3g GB/s: `%s` "
                 "moves its input at %.0f%% of it, `%s` at %.0f%%." % (
                     warm, s, 100 * rs["bytes"] / rs["t"] / 1e9 / warm, c,
                     100 * rc["bytes"] / rc["t"] / 1e9 / warm))
    return text


def count_figures(doc, group, lim, run):
    """The sentence of the callgrind counts of the limits document for the group, or HOW."""
    g = (doc or {}).get("groups", {}).get(group)
    if not g or lim["strategy"] not in g["rows"] or lim["ceiling"] not in g["rows"]:
        return HOW
    s, c = g["rows"][lim["strategy"]], g["rows"][lim["ceiling"]]
    ctx = doc.get("context", {})
    parts, item = [], lim.get("item")
    if item and s.get("instructions_per_item") and c.get("instructions_per_item"):
        parts.append("%.3g instructions and %.3g simulated branch misses per %s against "
                     "`%s`'s %.3g and %.3g (%.2fx the instructions)" % (
                         s["instructions_per_item"], s["branch_misses_per_item"], item,
                         lim["ceiling"], c["instructions_per_item"],
                         c["branch_misses_per_item"],
                         s["instructions_per_item"] / c["instructions_per_item"]))
        if s.get("instructions_per_byte") and c.get("instructions_per_byte"):
            parts.append("%.3g and %.3g instructions per byte of each row's own input" % (
                s["instructions_per_byte"], c["instructions_per_byte"]))
    elif s.get("instructions_per_byte") and c.get("instructions_per_byte"):
        parts.append("%.3g instructions per byte against `%s`'s %.3g (%.2fx), %.3g simulated "
                     "branch misses per KiB against %.3g" % (
                         s["instructions_per_byte"], lim["ceiling"],
                         c["instructions_per_byte"],
                         s["instructions_per_byte"] / c["instructions_per_byte"],
                         1024 * s["branch_misses_per_byte"], 1024 * c["branch_misses_per_byte"]))
    text = ("Under callgrind at `%s` (one iteration; %s; branch prediction simulated by "
            "callgrind, this VM has no hardware counters; glibc's `rep movsb` copy path turned "
            "off, as valgrind counts each byte it moves as an instruction): `%s` %s." % (
                g["probe"], ctx.get("valgrind", "valgrind"), lim["strategy"],
                "; ".join(parts) or "no per-byte or per-item figure (the rows count neither)"))
    rates = [_rate(run, group, lim, g["rows"][n], n) for n in (lim["strategy"], lim["ceiling"])]
    if None not in rates:
        text += (" At this run's speed that is %.3g instructions per ns for `%s` and %.3g for "
                 "`%s` (callgrind's count per byte or item times the run's bytes or items per "
                 "ns)." % (rates[0], lim["strategy"], rates[1], lim["ceiling"]))
    rev, head = ctx.get("hb_git_revision"), run.context.get("hb_git_revision")
    if rev and head and rev != head:
        text += (" The counts are of revision %s, the run of %s: rerun `make limits` for this "
                 "one." % (rev, head))
    return text


def _rate(run, group, lim, counted, strategy):
    """Instructions per ns of a row: its counted instructions per byte (or item) times the
    run's bytes (or items) per ns at the limits row; None without both."""
    r = _row(run, group, strategy, lim["row"])
    if r is None:
        return None
    for unit in ("byte", "item"):
        if counted.get("instructions_per_" + unit) and r[unit + "s"]:
            return counted["instructions_per_" + unit] * r[unit + "s"] / (r["t"] * 1e9)
    return None


def paragraph(run, group, doc):
    """The Markdown lines of a group's "What limits it now" paragraph ([] without limits)."""
    lim = group.get("limits")
    if not lim:
        return []
    return ["#### What limits `%s` now" % lim["strategy"], "",
            " ".join([lim["mechanism"], run_figures(run, group["name"], lim),
                      count_figures(doc, group["name"], lim, run)]), ""]


def _number(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if np.isfinite(v) and v > 0 else None

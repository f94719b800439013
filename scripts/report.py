#!/usr/bin/python3
"""report.py - REPORT.md and its charts from a hotbench run's JSON.

Reads google-benchmark JSON written by `make bench` (default results/latest.json), and when present
the whole-process runs of `make bench-e2e` (results/e2e-latest.json), the peers of `make
bench-peers` (results/peers-latest.json) and the status of `make bench`'s parts
(results/bench-status.json: each part's status, duration, error and command). Writes DIR/REPORT.md
(default results/) and its charts as PNG and SVG under DIR/charts/. Every figure in the report is
computed here from those files: medians and coefficients of variation of the repetitions, fitted
models t = a + b*N^k (the piecewise httpcore model for httpcore), predictions at the production
size with 95% prediction intervals, and the leave-largest-out validation of every fit
(scripts/hbfit.py says how). A body strategy measured only below twice the last-level cache is
not predicted at 1.7 GB; an interval wider than 100x is printed as unbounded. Whatever the run
lacks (a family, sizes the budget skipped, the e2e or peers results) is one sentence naming the
command that measures it. Run under Debian's /usr/bin/python3 (python3-matplotlib,
python3-numpy, python3-scipy).
"""

import argparse
import datetime
import json
import os
import re
import shlex
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hbfit  # noqa: E402
import plots  # noqa: E402
from hbfit import fmt_time  # noqa: E402

PROD_SIZE = 1_700_000_000  # the incident's body, decoded bytes
HTTPCORE = ("httpcore", "httpcore-heap")  # the strategies fitted by the piecewise model
PROD_ROWS = 100_000
READ = 4096
# bufgrow fits start at twice the last-level cache (the run's context; 32 MiB on the project's
# VMs): smaller bodies are written into cached, already-mapped memory, larger ones into fresh
# pages - two regimes one power law would blur into k ~ 1.5. Strategies measured at fewer than 3
# such sizes (the quadratic ones, which the budget stops early) are fitted from FIT_MIN_SMALL up;
# a strategy measured only below twice the last-level cache is fitted but never predicted past
# it. FALLBACK_LLC stands in when the run's context reports no caches (some VMs expose none).
FALLBACK_LLC = 32 << 20
FIT_MIN_SMALL = 1 << 20

# The groups of the report, one row each: family, title, the parameter scaled, the others fixed,
# the production value, the row ratios divide by, the item counted (per_label, per_scale).
GROUPS = [
    dict(key="bufgrow", family="bufgrow", title="Identity chunked body into one array",
         x="size", fixed={"read": READ}, prod=PROD_SIZE, ref="exact", xlabel="payload size N (bytes)",
         per_label="time per byte (ns/B)", per_scale=1e9, unit="B", fit_min=None),
    dict(key="bufgrow-gzip", family="bufgrow-gzip", title="gzip chunked body into one array",
         x="size", fixed={"read": READ}, prod=PROD_SIZE, ref="inflate",
         xlabel="decoded payload size N (bytes)", per_label="time per decoded byte (ns/B)",
         per_scale=1e9, unit="B", fit_min=None),
    dict(key="rfc3339", family="rfc3339", title="RFC 3339 timestamps, one column",
         x="rows", fixed={}, prod=PROD_ROWS, ref="millis-parse", xlabel="rows N",
         per_label="time per timestamp (ns)", per_scale=1e9, unit="ts", fit_min=0),
    dict(key="volumes-tags", family="volumes", title="DescribeVolumes, 300 volumes, tags scaled",
         x="tags", fixed={"volumes": 300, "compact": 0, "piece": 0}, prod=20, ref="expat-count",
         xlabel="tags per volume T", per_label="time per tag (ns)", per_scale=1e9, unit="tag",
         fit_min=1, items_per_n=300),
    dict(key="volumes", family="volumes", title="DescribeVolumes, 20 tags each, volumes scaled",
         x="volumes", fixed={"tags": 20, "compact": 0, "piece": 0}, prod=300, ref="expat-count",
         xlabel="volumes V", per_label="time per volume (us)", per_scale=1e6, unit="volume",
         fit_min=0, items_per_n=1),
]


class SumFit:
    """A prediction that adds a linear-part fit and httpcore's additive copies priced by another
    fit's c (gzip httpcore: its own linear part, the copy price measured on identity bodies).
    Interval half-widths add in quadrature."""

    def __init__(self, linear, piece):
        self.linear, self.piece = linear, piece
        self.ok = linear.ok and piece.ok
        self.k = getattr(linear, "k", float("nan"))

    def predict(self, n):
        m1, l1, h1 = self.linear.predict(n)
        x = float(hbfit.additive_copies(n, self.piece.bits, self.piece.read))
        c_se = np.sqrt(max(self.piece.cov[2, 2], 0.0))
        m2 = self.piece.c * x
        h2 = self.piece.tq * c_se * x
        lo = m1 + m2 - np.hypot(m1 - l1, h2)
        return m1 + m2, max(lo, 0.0), m1 + m2 + np.hypot(h1 - m1, h2)

    def label(self):
        if not self.ok:
            return "no fit (%s)" % (self.piece.why or self.linear.why)
        return "linear part + %.3g ns per byte copied past 2^30" % (self.piece.c * 1e9)


def last_level_cache(run):
    """(bytes of the last-level cache, True) from the run's context caches, or (FALLBACK_LLC,
    False) when the machine reported none (some VMs expose no cache sizes under /sys)."""
    caches = [c for c in run.context.get("caches", []) if c.get("type") != "Instruction"]
    if not caches:
        return FALLBACK_LLC, False
    top = max(c.get("level", 0) for c in caches)
    return max(int(c.get("size", 0)) for c in caches if c.get("level", 0) == top), True


def fit_group(run, g, limit):
    """Per strategy: series, fit (PowerFit, PiecewiseFit or SumFit), validation, the row at the
    production size (measured or predicted), the sizes fitted (fit_range) and, when it is not
    predicted, why (no_predict). limit: the first size past the caches (bufgrow groups)."""
    out = {}
    for s in run.strategies(g["family"]):
        N, t = run.series(g["family"], s, g["x"], **g["fixed"])
        if len(N) == 0 and not run.skipped_at(g["family"], s, **g["fixed"]):
            continue
        if g["unit"] == "B":
            row = _fit_body(run, g, s, N, t, limit)
        else:
            row = _fit_power(N, t, g["fit_min"])
        at = t[N == g["prod"]]
        row.update(series=(N, t), measured=len(at) > 0, summary=hbfit.summarize(at))
        fit = row["fit"]
        if len(at) == 0 and fit is not None and fit.ok and not row["no_predict"]:
            row["predicted"] = fit.predict(g["prod"])
        sk = [r for r in run.skipped_at(g["family"], s, **g["fixed"])
              if r["params"].get(g["x"]) == g["prod"]]
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


def _fit_body(run, g, s, N, t, limit):
    """A body strategy's fit from the sizes past the caches (from `limit` up, or from
    FIT_MIN_SMALL up when fewer than 3 sizes reach it), httpcore's piecewise fit; measured only
    inside the caches (nothing from `limit` up): fitted there, never predicted past them."""
    cN = run.series("bufgrow-cliff", s, "size", width=32)[0] if s in HTTPCORE else N[:0]
    top = max([*N, *cN], default=0)
    no_predict = None
    if len(N) and top < limit:
        no_predict = "measured only up to %s, inside the caches" % _n(top, "B")
    keep = N >= limit
    if len(np.unique(N[keep])) < 3:
        keep = N >= FIT_MIN_SMALL
    Nf, tf = N[keep], t[keep]
    fit = val = None
    rng = (Nf.min(), Nf.max()) if len(Nf) else None
    if s in HTTPCORE:
        piece, (pN, _) = hbfit.httpcore_fit(run, s, read=READ, fit_min=limit)
        if g["key"] == "bufgrow":
            fit, val = piece, _cliff_validation(run, s, limit)
            rng = (pN.min(), pN.max()) if len(pN) else None
        else:  # gzip: its own linear part, the copy price measured on identity bodies
            fit = SumFit(hbfit.PowerFit(Nf, tf), piece)
            val = hbfit.validate(hbfit.PowerFit, Nf, tf)
    elif len(np.unique(Nf)) >= 3:
        fit = hbfit.PowerFit(Nf, tf)
        val = hbfit.validate(hbfit.PowerFit, Nf, tf) if len(np.unique(Nf)) >= 4 else None
    return dict(fit=fit, val=val, no_predict=no_predict, fit_range=rng)


def _cliff_validation(run, s, limit):
    """The largest 32-bit cliff size predicted by the piecewise fit of the others, or None."""
    cN, ct = run.series("bufgrow-cliff", s, "size", width=32)
    v = hbfit.httpcore_fit(run, s, read=READ, fit_min=limit, leave_out_largest=True)[0]
    if not len(cN) or not v.ok:
        return None
    top = cN.max()
    m = float(np.median(ct[cN == top]))
    p, lo, hi = v.predict(top)
    return dict(size=top, measured=m, predicted=p, low=lo, high=hi, error=p / m - 1)


def prod_time(row):
    if row["measured"]:
        return row["summary"]["median"]
    if "predicted" in row:
        return row["predicted"][0]
    return float("nan")


def counter_median(run, g, s, name):
    rows = [r for r in run.select(g["family"], s, **g["fixed"]) if r["params"].get(g["x"]) ==
            g["prod"] and name in r["counters"]]
    return float(np.median([r["counters"][name] for r in rows])) if rows else None


def table(run, g, fits):
    """The per-case table: Markdown lines."""
    ref = fits.get(g["ref"])
    ref_t = prod_time(ref) if ref else float("nan")
    lines = ["| strategy | median at production size | CV | throughput | ratio to `%s` | "
             "fitted k [95%% CI] | leave-largest-out error | note |" % g["ref"],
             "|---|---|---|---|---|---|---|---|"]
    order = sorted(fits, key=lambda s: (np.isnan(prod_time(fits[s])), prod_time(fits[s])))
    for s in order:
        r = fits[s]
        t = prod_time(r)
        med, cv = prod_cell(r, g)
        ratio = "%.3g" % (t / ref_t) if np.isfinite(t) and np.isfinite(ref_t) else "-"
        note = ""
        if r["budget_prediction"] is not None:
            note = ("hotbench's budget estimate: %s (its dry-run copies priced by a measured "
                    "copy step, not this fit)" % fmt_time(r["budget_prediction"]))
        elif r["skip_message"]:
            note = r["skip_message"][:80]
        lines.append("| `%s` | %s | %s | %s | %s | %s | %s | %s |" % (
            s, med, cv, _throughput(run, g, s, t), ratio, _k_cell(r["fit"]), _val_cell(r, g),
            note))
    return lines


def prod_cell(r, g):
    """The median and CV cells at the production size: measured, **predicted** with its 95%
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
        return "not predicted: measured only up to %s (%s)" % (_n(N.max(), g["unit"]), why), "-"
    return "not run", "-"


def _throughput(run, g, s, t):
    if not np.isfinite(t):
        return "-"
    if g["unit"] == "B":
        return "%.3g GB/s" % (g["prod"] / t / 1e9)
    if g["unit"] == "ts":
        return "%.3g ns/ts" % (t / g["prod"] * 1e9)
    mbps = counter_median(run, g, s, "MB_per_s")
    nse = counter_median(run, g, s, "ns_per_element")
    return ("%.0f MB/s, %.3g ns/element" % (mbps, nse)) if mbps else "-"


def _k_cell(f):
    if f is None or not f.ok:
        return "-" if f is None else f.label()
    if isinstance(f, hbfit.PowerFit):
        return "%.2f [%.2f, %.2f]" % (f.k, *f.k_ci)
    if isinstance(f, hbfit.PiecewiseFit):
        return "piecewise: %s" % f.label()
    return "%s; linear part k=%.2f" % (f.label(), f.k)


def _val_cell(r, g):
    v = r["val"]
    if v is None:
        f_ = r["fit"].linear if isinstance(r["fit"], SumFit) else r["fit"]
        n = getattr(f_, "n_sizes", getattr(f_, "n_points", 0))
        return ("not validated (fitted on %d sizes: too few to leave one out)" % n
                if f_ is not None and f_.ok else "-")
    ve = "%+.1f%% at %s" % (100 * v["error"], _n(v["size"], g["unit"]))
    if abs(v["error"]) > hbfit.VALIDATION_LIMIT:
        ve = "**%s FLAGGED (> %d%%)**" % (ve, 100 * hbfit.VALIDATION_LIMIT)
    return ve


def _n(v, unit):
    if unit == "B":
        return "%.3g GB" % (v / 1e9) if v >= 1e9 else "%.3g MB" % (v / 1e6)
    return "%d" % v


def environment(run, status=None):
    c = run.context
    mem = c.get("hb_memory", "")
    caches = ", ".join("L%d%s %d KiB" % (x["level"], x["type"][0].lower(), x["size"] // 1024)
                       for x in c.get("caches", []))
    if not caches:
        caches = ("none reported (this machine exposes no cache sizes): the fits assume a %s "
                  "last-level cache" % plots._bytes(FALLBACK_LLC))
    rows = [
        ("git revision", c.get("hb_git_revision", "?")),
        ("run date", c.get("date", "?")),
        ("host", c.get("host_name", "?")),
        ("CPU", "%s, %s cores, %s MHz" % (c.get("hb_cpu_model", "?"), c.get("num_cpus", "?"),
                                          c.get("mhz_per_cpu", "?"))),
        ("caches", caches),
        ("memory", mem or "?"),
        ("calibration", calibration(c, status)),
        ("kernel", c.get("hb_kernel", "?")),
        ("compiler and flags", "%s; %s (%s)" % (c.get("hb_compiler", "?"),
                                                c.get("hb_build_flags", "?"),
                                                c.get("hb_build_type", "?"))),
        ("libraries", "google-benchmark %s (Debian's build is %s: it prints 'Library was built "
                      "as DEBUG'; one timed iteration is a whole batch, so its per-iteration "
                      "bookkeeping is negligible), zlib %s, expat %s" % (
                          c.get("hb_benchmark_version", "?"), c.get("library_build_type", "?"),
                          c.get("zlib_version", "?"), c.get("expat_version", "?"))),
        ("profile", "%s, %s repetitions, budget %s s, reads of %s bytes" % (
            c.get("hb_profile", "?"), c.get("hb_repetitions", "?"), c.get("hb_budget_s", "?"),
            c.get("hb_read_size", "?"))),
        ("seeds and generator parameters", "; ".join(
            "%s=%s" % (k, v) for k, v in sorted(c.items())
            if k.split("_")[0] in ("bufgrow", "rfc3339", "volumes", "timestamps"))),
        ("load average at the start", c.get("hb_loadavg", "?")),
    ]
    out = ["| | |", "|---|---|"]
    out += ["| %s | %s |" % (k, v) for k, v in rows]
    return out


def calibration(ctx, status):
    """The machine's calibration (`make bench` measures it before its parts): from the run's
    context (hb_calib_first_touch_gbps, hb_calib_warm_copy_gbps), else from the bench status."""
    ft, wc = ctx.get("hb_calib_first_touch_gbps"), ctx.get("hb_calib_warm_copy_gbps")
    src = "the run's context"
    cal = (status or {}).get("calibration") or {}
    if not (ft and wc) and cal.get("first_touch_gbps") and cal.get("warm_copy_gbps"):
        ft, wc, src = cal["first_touch_gbps"], cal["warm_copy_gbps"], "the bench status"
    if not (ft and wc):
        return ("not recorded (a run made before `make bench` calibrated the machine, or "
                "without `make bench`)")
    return ("first touch of fresh memory %s GB/s, copy of warm memory %s GB/s (measured by "
            "`make bench` before its parts, from %s): the buffer strategies' times follow these, "
            "so they are what to compare first between two machines" % (
                _gbps(ft), _gbps(wc), src))


def _gbps(v):
    try:
        return "%.3g" % float(v)
    except (TypeError, ValueError):
        return str(v)


STATUS_SCHEMA = "hotbench-bench-status/1"


def load_status(path):
    """(the bench status dict or None, a sentence when it could not be used or None)."""
    if not path or not os.path.exists(path):
        return None, None
    try:
        with open(path) as fh:
            st = json.load(fh)
    except (OSError, ValueError) as e:
        return None, "`%s` could not be read (%s): the run's parts are not listed." % (path, e)
    if not isinstance(st, dict) or st.get("schema") != STATUS_SCHEMA:
        return None, ("`%s` is not a bench status (schema %r, not %s): the run's parts are not "
                      "listed." % (path, st.get("schema") if isinstance(st, dict) else None,
                                   STATUS_SCHEMA))
    bad = _status_problem(st)
    if bad:
        return None, "`%s` is malformed (%s): the run's parts are not listed." % (path, bad)
    return st, None


def _status_problem(st):
    """What in the bench status st (a dict of the right schema) has the wrong type, or None:
    "parts" a list of objects, each with "command" a list of strings or null and "output" a
    string or null; "calibration" an object or null."""
    parts = st.get("parts")
    if parts is not None and not isinstance(parts, list):
        return "\"parts\" is not a list"
    for i, p in enumerate(parts or []):
        if not isinstance(p, dict):
            return "parts[%d] is not an object" % i
        cmd, out = p.get("command"), p.get("output")
        if cmd is not None and not (isinstance(cmd, list) and
                                    all(isinstance(c, str) for c in cmd)):
            return "parts[%d].command is not a list of strings" % i
        if out is not None and not isinstance(out, str):
            return "parts[%d].output is not a string" % i
    if st.get("calibration") is not None and not isinstance(st["calibration"], dict):
        return "\"calibration\" is not an object"
    return None


def status_section(st, path):
    """The parts of `make bench` (bench-status.json): status and duration of each, and for a
    failed or skipped part its error and the command that re-runs it."""
    md = ["## The run's parts", "",
          "From `%s`: `make bench`, %s profile, %s, git %s on %s." % (
              os.path.relpath(os.path.realpath(path)), st.get("profile", "?"),
              _span(st.get("started"), st.get("finished")), st.get("git_revision", "?"),
              st.get("host", "?")), "",
          "| part | status | took | expected | output |", "|---|---|---|---|---|"]
    notes = []
    for p in st.get("parts") or []:
        name, state = p.get("name", "?"), p.get("status", "?")
        md.append("| %s | %s | %s | %s | %s |" % (
            name, "**%s**" % state if state != "ok" else state, _secs(p.get("seconds")),
            _secs(p.get("expected_seconds")), "`%s`" % p["output"] if p.get("output") else "-"))
        if state != "ok":
            notes.append("- `%s` %s%s: %s. Re-run it with `%s`." % (
                name, state, " (exit %s)" % p["exit_code"] if p.get("exit_code") is not None
                else "", p.get("error") or "no error recorded", _rerun(st, p)))
    if notes:
        md += ["", "The report below is written from the parts that succeeded.", ""] + notes
    return md + [""]


def _rerun(st, part):
    """The command that measures part again and records it: its own command, except for the
    in-process suite, whose command wrote to bench.py's temporary file (bench.py records it)."""
    cmd = part.get("command")
    if part.get("name") == "in-process":
        return "scripts/bench.py --profile %s --parts in-process,report" % (
            st.get("profile") if st.get("profile") in ("full", "quick") else "full")
    return shlex.join(cmd) if cmd else "make bench"


def _span(started, finished):
    """When the bench ran: "A to B", or "started A" while it still runs (finished is null when
    the report is its own last part)."""
    if not finished:
        return "started %s (still running: this report is its last part)" % (started or "?")
    return "%s to %s" % (started or "?", finished)


def _secs(v):
    if not isinstance(v, (int, float)):
        return "-"
    return "%.0f s" % v if v < 120 else "%.1f min" % (v / 60)


def missing_sentence(what, filt, skipped):
    """One sentence: what is missing from the run, why (not run, or skipped: the first skip
    message), and the command that measures it."""
    budget = ""
    if skipped:
        why = "the run skipped all %d of its sizes (`%s`)" % (
            len(skipped), skipped[0]["message"][:110])
        ps = [r["predicted_s"] for r in skipped if r["predicted_s"]]
        if ps and max(ps) <= 3600:
            budget = " --hb_budget=%d" % int(np.ceil(max(ps) * 1.2))
    else:
        why = "this run has none"
    return ("**Missing: %s**: %s; measure it with `make bench`, or only this with "
            "`scripts/bench.sh build/hotbench --hb_profile=full%s --benchmark_filter='%s'`." % (
                what, why, budget, filt))


def missing_note(run, what, family, filt, strategy=None, **fixed):
    """missing_sentence when the run has no timed row of family (and strategy) matching fixed,
    else None."""
    if run.select(family, strategy, **fixed):
        return None
    sk = [r for r in run.skipped if r["family"] == family and strategy in (None, r["strategy"])
          and all(r["params"].get(k) == v for k, v in fixed.items())]
    return missing_sentence(what, filt, sk)


def group(key):
    return next(x for x in GROUPS if x["key"] == key)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", default=None, help="run JSON (results/latest.json)")
    ap.add_argument("--e2e", default="results/e2e-latest.json",
                    help="hyperfine results of make bench-e2e (%(default)s; optional; an empty "
                    "string: none)")
    ap.add_argument("--peers", default="results/peers-latest.json",
                    help="peers of make bench-peers (%(default)s; optional; an empty string: "
                    "none)")
    ap.add_argument("--status", default=None,
                    help="make bench's status of its parts (default: results/bench-status.json "
                    "when it exists and --run is not given or is its in-process output; "
                    "optional)")
    ap.add_argument("--out", default="results", help="folder of REPORT.md and charts/ "
                    "(%(default)s)")
    ap.add_argument("--chart-formats", default="png,svg",
                    help="comma-separated chart files to write (%(default)s); none: build "
                    "every chart but write no file (the tests)")
    ap.add_argument("--dpi", type=int, default=None,
                    help="PNG resolution in dots per inch (default: each chart's own)")
    a = ap.parse_args(argv)
    bad = sorted(set(f for f in a.chart_formats.split(",") if f) - {"png", "svg", "none"})
    if bad:
        ap.error("--chart-formats: %s unknown (png, svg or none)" % ",".join(bad))
    if a.dpi is not None and a.dpi <= 0:
        ap.error("--dpi must be a positive number of dots per inch")
    if a.status is None and _status_of(a.run, "results/bench-status.json"):
        a.status = "results/bench-status.json"
    a.run = a.run or "results/latest.json"
    return a


def _status_of(run, path):
    """True when the bench status at path describes the run JSON run (None: the latest run):
    another run's report must not list the parts of the last `make bench`."""
    st = load_status(path)[0]
    if st is None:
        return False
    if run is None:
        return True
    out = [p.get("output") for p in st.get("parts") or [] if p.get("name") == "in-process"]
    return bool(out and out[0]) and os.path.realpath(out[0]) == os.path.realpath(run)


def load_run(path, status):
    """The run, or None when there is none but a bench status says why (its parts are then
    reported); exits with a message otherwise."""
    if not os.path.exists(path):
        if status is not None:
            return None
        sys.exit("report.py: no run JSON at %s: run `make bench` first (or pass --run FILE)"
                 % path)
    try:
        run = hbfit.Run(path)
    except (ValueError, KeyError, TypeError) as e:
        sys.exit("report.py: %s is not a readable google-benchmark JSON (%s: %s): rerun "
                 "`make bench`" % (path, type(e).__name__, e))
    known = {g["family"] for g in GROUPS}
    if not run.rows and not run.skipped or not known & set(run.families()):
        sys.exit("report.py: %s holds no benchmark of hotbench's cases (%s): is it a "
                 "hotbench run?" % (path, ", ".join(sorted(known))))
    return run


def main(argv=None):
    a = parse_args(argv)
    plots.configure([f for f in a.chart_formats.split(",") if f] or ["none"], a.dpi)
    status, status_note = load_status(a.status)
    run = load_run(a.run, status)
    charts = os.path.join(a.out, "charts")
    os.makedirs(charts, exist_ok=True)

    def stem(name):
        return os.path.join(charts, name)

    md = ["# hotbench report", "",
          "Generated by `scripts/report.py` from `%s` on %s. Every figure below is computed "
          "from that file; predictions are labelled as such and carry 95%% prediction intervals."
          % (os.path.relpath(os.path.realpath(a.run)),
             datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")), ""]
    if status is not None:
        md += status_section(status, a.status)
    elif status_note:
        md += [status_note, ""]
    if run is not None:
        md += in_process_sections(run, status, stem)
    else:
        md += ["## In-process suite", "",
               "**Missing: the in-process run**: there is no run JSON at `%s` (see the parts "
               "above); measure it with `make bench`." % a.run, ""]
    md += ["## Whole-process runs (hyperfine)", ""]
    md += optional_section("e2e_report", a.e2e, a.run if run else None, charts,
                           "No whole-process results: run `make bench-e2e`.")
    md += ["## Peers: the real libraries", ""]
    md += optional_section("peers_report", a.peers, a.run if run else None, charts,
                           "No peer results: install the runtimes with `scripts/deps.sh --peers` "
                           "(as root) and run `make bench-peers`.")
    md += method_section()
    path = os.path.join(a.out, "REPORT.md")
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("\n".join(md) + "\n")
    os.replace(tmp, path)
    print("report: %s (charts in %s)" % (path, charts))


def in_process_sections(run, status, stem):
    """The summary, environment and the three cases, from the run JSON."""
    limit = 2 * last_level_cache(run)[0]
    fits = {g["key"]: fit_group(run, g, limit) for g in GROUPS}
    md = []
    if run.failed:
        md += ["**%d benchmark(s) FAILED verification and were not timed** (their answers "
               "differed from the reference; hotbench exited 1):" % len(run.failed), ""]
        md += ["- `%s/%s/%s`: %s" % (r["family"], r["strategy"], "/".join(
            "%s:%s" % kv for kv in r["params"].items()), r["message"][:300]) for r in run.failed]
        md += [""]
    md += summary_section(fits)
    md += ["## Environment", ""] + environment(run, status) + [""]
    md += bufgrow_section(run, fits, limit, stem)
    md += rfc3339_section(run, fits["rfc3339"], stem)
    md += volumes_section(run, fits, stem)
    return md


BASELINES = ("memcpy", "inflate", "memchr-scan", "int64-binary")


def summary_section(fits):
    md = ["## Summary", "",
          "At each case's production size (1.7 GB body; 100,000 rows; 300 volumes x 20 tags):",
          "", "| case | fastest | slowest | slowest / fastest |", "|---|---|---|---|"]
    missing_figures, absent = [], []
    for g in GROUPS:
        if g["key"] == "volumes":
            continue
        f = fits[g["key"]]
        ts = {s: prod_time(r) for s, r in f.items() if np.isfinite(prod_time(r))
              and s not in BASELINES}
        if not ts:
            absent.append(g["title"])
            continue
        lo, hi = min(ts, key=ts.get), max(ts, key=ts.get)
        none = [s for s in f if s not in ts and s not in BASELINES]
        if none:
            missing_figures.append("%s: %s" % (g["title"], ", ".join("`%s`" % x for x in none)))
        md.append("| %s | `%s` %s%s | `%s` %s%s | %.3g |" % (
            g["title"], lo, fmt_time(ts[lo]), _pred_tag(f[lo]), hi, fmt_time(ts[hi]),
            _pred_tag(f[hi]), ts[hi] / ts[lo]))
    md += ["", "Baseline rows (`memcpy`, `inflate`, `int64-binary`, `memchr-scan`) are ceilings, "
           "not strategies, and are left out of fastest and slowest."]
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


def fit_range_text(fits, limit):
    """The sizes the body fits actually used, in words."""
    past, small, inside = [], [], []
    for key in ("bufgrow", "bufgrow-gzip"):
        for s, r in fits[key].items():
            if r["no_predict"]:
                inside.append(s)
            elif r["fit_range"] is not None:
                (past if r["fit_range"][0] >= limit else small).append(s)
    names = lambda xs: ", ".join("`%s`" % x for x in dict.fromkeys(xs))  # noqa: E731
    out = []
    if past:
        out.append("Fits use the sizes from %s up (twice the last-level cache: smaller bodies are "
                   "written into cached memory, a different regime)" % plots._bytes(limit)
                   + ("; from %s up for %s, measured at fewer than 3 sizes from %s (the budget "
                      "stops them earlier)." % (plots._bytes(FIT_MIN_SMALL), names(small),
                                                plots._bytes(limit)) if small else "."))
    elif small:
        out.append("Fits use the sizes from %s up: %s reached %s at fewer than 3 sizes." % (
            plots._bytes(FIT_MIN_SMALL), names(small), plots._bytes(limit)))
    if inside:
        out.append("%s measured only below %s (twice the last-level cache), inside the caches: "
                   "fitted from %s up on those sizes, and not predicted at 1.7 GB, a regime not "
                   "measured." % ("Every strategy was" if not past and not small else
                                       names(inside) + (" was" if len(set(inside)) == 1 else
                                                        " were"),
                                       plots._bytes(limit), plots._bytes(FIT_MIN_SMALL)))
    return " ".join(out)


def bufgrow_section(run, fits, limit, stem):
    llc, known = last_level_cache(run)
    md = ["## Case 1: byte-buffer growth (bufgrow)", "",
          "One iteration reads a whole chunked body in reads of %d bytes into one array. "
          "Time per iteration; throughput in decimal GB/s of decoded payload. %s%s" % (
              READ, fit_range_text(fits, limit),
              "" if known else " This run's context reports no cache sizes (some VMs expose "
              "none): the last-level cache is taken as %s, the project's VMs'." %
              plots._bytes(llc)), ""]
    for key in ("bufgrow", "bufgrow-gzip"):
        g = group(key)
        f = fits[key]
        md += ["### %s" % g["title"], ""]
        note = missing_note(run, "%s (`%s`)" % (g["title"].lower(), key), key, "^%s/" % key,
                            read=READ)
        md += [note, ""] if note else []
        if not f:
            continue
        md += table(run, g, f) + [""]
        series = {s: r["series"] for s, r in f.items()}
        pf = {s: r["fit"] for s, r in f.items() if isinstance(r["fit"], hbfit.PowerFit)}
        png = plots.scaling(series, stem(key + "-scaling"), g["title"], g["xlabel"],
                            g["per_label"], g["per_scale"], pf, g["prod"], "1.7 GB")
        md += link(png, key + " scaling")
        lines_ = {s: (r["series"][0], r["series"][1],
                      None if r["no_predict"] else r["fit"], r["val"]) for s, r in f.items()}
        png = plots.extrapolation(lines_, stem(key + "-extrapolation"), PROD_SIZE,
                                  g["title"] + ": every strategy carried to 1.7 GB")
        md += link(png, key + " extrapolated") or [
            "No chart carries the strategies to 1.7 GB: none was measured or predicted there.",
            ""]
    md += copied_section(run, stem)
    md += cliff_section(run, fits["bufgrow"], stem, limit)
    return md


# The strategies that grow by realloc in the registry (uses_realloc), for run JSONs without the
# bytes_copied_is_upper_bound counter.
REALLOC_FALLBACK = ("realloc-doubling", "sds")


def copied_section(run, stem):
    """Bytes copied per payload byte; realloc's counts marked as upper bounds."""
    if not run.select("bufgrow", read=READ):
        return []
    pts = {}
    for s in run.strategies("bufgrow"):
        Ns, rs, pr = [], [], []
        for r in sorted(run.select("bufgrow", s, read=READ), key=lambda r: r["params"]["size"]):
            if r["rep"] == 0 and "bytes_copied_per_byte" in r["counters"]:
                Ns.append(r["params"]["size"])
                rs.append(r["counters"]["bytes_copied_per_byte"])
                pr.append(False)
        for r in run.skipped_at("bufgrow", s, read=READ):
            m = _copied(r["message"])
            if m:
                Ns.append(r["params"]["size"])
                rs.append(m / r["params"]["size"])
                pr.append(True)
        if Ns and s != "memcpy":
            pts[s] = (Ns, rs, pr)
    upper, known = run.upper_bound_strategies("bufgrow", REALLOC_FALLBACK)
    png = plots.copied_per_byte(pts, stem("bufgrow-copied"), "Bytes copied by growth",
                                upper=upper)
    md = ["### Bytes copied per payload byte", "",
          "The copies each growth policy makes (the final gather or `toByteArray` copy "
          "included), from the `bytes_copied_per_byte` counter; for sizes the budget skipped, "
          "from the strategy's dry-run plan. Strategies that copy nothing are drawn on the "
          "axis's floor, labelled."]
    if upper:
        md[-1] += (" For %s, which grow with `realloc`, the count is an **upper bound** (it "
                   "counts the block as copied whenever `realloc` moves it, but glibc moves large "
                   "blocks with `mremap`, copying nothing): drawn as downward triangles%s." % (
                       ", ".join("`%s`" % s for s in upper),
                       "" if known else "; this run JSON does not say which strategies use "
                       "realloc (no `bytes_copied_is_upper_bound` counter), so the registry's "
                       "are assumed"))
    return md + [""] + link(png, "bytes copied")


def rfc3339_section(run, f, stem):
    g = group("rfc3339")
    md = ["## Case 2: RFC 3339 timestamps (rfc3339)", "",
          "One iteration parses every row of a column into seconds and nanoseconds (or millis) "
          "and checksums them.", ""]
    note = missing_note(run, "RFC 3339 timestamps (`rfc3339`)", "rfc3339", "^rfc3339/")
    if note:
        md += [note, ""]
    if f:
        md += table(run, g, f) + [""]
    items = []
    for s in f:
        at = [r["t"] / PROD_ROWS * 1e9 for r in run.select("rfc3339", s, rows=PROD_ROWS)]
        if at:
            items.append((s, at))
    items.sort(key=lambda x: np.median(x[1]))
    if f and not items:
        md += [missing_note(run, "RFC 3339 timestamps at 100,000 rows", "rfc3339",
                            "^rfc3339/.*/rows:%d/" % PROD_ROWS, rows=PROD_ROWS), ""]
    png = plots.bars(items, stem("rfc3339-bars"), "ns per timestamp at 100,000 rows (median, "
                     "min-max of the repetitions; the ratio to `%s` printed)" % g["ref"],
                     "time per timestamp (ns, log scale)", ref=g["ref"])
    md += link(png, "rfc3339 bars")
    dig = {}
    for s in run.strategies("rfc3339-digits"):
        rows = run.select("rfc3339-digits", s)
        if rows:
            n = _rows_of(run, "rfc3339-digits")
            dig[s] = ([r["params"]["digits"] for r in rows], [r["t"] / n * 1e9 for r in rows])
    if dig:
        png = plots.lines(dig, stem("rfc3339-digits"), "ns per timestamp against time-secfrac "
                          "digits (%d rows)" % _rows_of(run, "rfc3339-digits"),
                          "fraction digits", "time per timestamp (ns)", xticks=[0, 3, 6, 9])
        md += link(png, "rfc3339 digits")
    else:
        md += [missing_note(run, "time-secfrac digits (`rfc3339-digits`)", "rfc3339-digits",
                            "^rfc3339-digits/") or "", ""]
    series = {s: r["series"] for s, r in f.items()}
    pf = {s: r["fit"] for s, r in f.items() if isinstance(r["fit"], hbfit.PowerFit)}
    png = plots.scaling(series, stem("rfc3339-scaling"), g["title"], g["xlabel"], g["per_label"],
                        g["per_scale"], pf, PROD_ROWS, "100k rows")
    md += link(png, "rfc3339 scaling")
    return md


def volumes_section(run, fits, stem):
    md = ["## Case 3: tag-heavy XML (volumes)", "",
          "One iteration decodes a whole DescribeVolumes response (indented, fed whole) into "
          "the strategy's model.", ""]
    for key in ("volumes-tags", "volumes"):
        g = group(key)
        f = fits[key]
        md += ["### %s" % g["title"], ""]
        note = missing_note(run, "%s (`%s`)" % (g["title"], key), g["family"], "^volumes/",
                            **g["fixed"])
        md += [note, ""] if note else []
        if not f:
            continue
        if key == "volumes-tags":
            md += table(run, g, f) + [""]
        else:
            md += volumes_k_table(f)
        series = {s: r["series"] for s, r in f.items()}
        pf = {s: r["fit"] for s, r in f.items() if isinstance(r["fit"], hbfit.PowerFit)}
        png = plots.scaling({s: (n[n > 0], t[n > 0]) for s, (n, t) in series.items()},
                            stem(key + "-scaling"), g["title"], g["xlabel"], g["per_label"],
                            g["per_scale"], pf, g["prod"], "production",
                            items_per_n=g["items_per_n"], plain_x=True)
        md += link(png, key)
    nse = []
    gv = group("volumes-tags")
    for s in fits["volumes-tags"]:
        v = [r["counters"]["ns_per_element"] for r in run.select("volumes", s, **gv["fixed"])
             if r["params"].get("tags") == 20 and "ns_per_element" in r["counters"]]
        if v:
            nse.append((s, v))
    nse.sort(key=lambda x: np.median(x[1]))
    if nse:
        png = plots.bars(nse, stem("volumes-per-element"), "ns per XML element, 300 volumes x "
                         "20 tags (median, min-max; the ratio to `%s` printed)" % gv["ref"],
                         "time per element (ns, log scale)", ref=gv["ref"])
        md += link(png, "volumes per element")
    return md


def volumes_k_table(f):
    md = ["The same strategies with 20 tags per volume and the volume count scaled; the "
          "fitted exponents:", "", "| strategy | fitted k [95% CI] | "
          "leave-largest-out error |", "|---|---|---|"]
    for s, r in f.items():
        fi, v = r["fit"], r["val"]
        md.append("| `%s` | %s | %s |" % (
            s, "%.2f [%.2f, %.2f]" % (fi.k, *fi.k_ci) if fi is not None and fi.ok
            else "-", "-" if v is None else "%+.1f%% at %d volumes%s" % (
                100 * v["error"], v["size"],
                " **FLAGGED**" if abs(v["error"]) > hbfit.VALIDATION_LIMIT else "")))
    return md + [""]


def method_section():
    return ["## Method", "",
            "- Medians of the repetitions; CV = sample standard deviation / mean, flagged over "
            "10%.",
            "- Fitted model `t(N) = a + b*N^k` (a >= 0), least squares on log t so every point "
            "weighs by its relative error; k's 95% confidence interval from the fit's covariance "
            "(Student t). `httpcore` and `httpcore-heap`: the piecewise model "
            "`t = a + b*N + d*[N > 2^30] + c*X(N)`, X the bytes "
            "copied by the additive steps past 2^30 (zero below), fitted on its main family and "
            "the 32-bit cliff sizes just past 2^30.",
            "- Predictions at the production size carry 95%% prediction intervals (parameter "
            "uncertainty plus the scatter of one measurement). They are predictions, never "
            "measurements. An interval wider than %dx is shown as unbounded, not as digits; a "
            "body strategy measured only inside the caches (below twice the last-level cache) "
            "is not predicted at 1.7 GB." % hbfit.WIDE_INTERVAL,
            "- Validation: each fit is redone without its largest measured size and predicts it; "
            "the relative error is shown, and flagged beyond %d%%." % (
                100 * hbfit.VALIDATION_LIMIT),
            "- google-benchmark's own `_BigO` rows fit `t = c*g(N)` through the origin; across "
            "cache regimes they mean little and are not used here.", ""]


def _copied(msg):
    m = re.search(r"([0-9.eE+-]+) bytes copied", msg)
    return float(m.group(1)) if m else None


def _rows_of(run, family):
    n = run.context.get("rfc3339_variant_rows")
    return int(n) if n else PROD_ROWS


CLIFF_INTRO = (
    "`httpcore` models ByteArrayBuffer's `int` capacity: doubling until `capacity << 1` "
    "overflows, then growth to exactly what is needed, one read at a time, each step "
    "copying the whole array. `bufgrow-cliff/httpcore/width:24` narrows the capacity to 24 "
    "bits so the overflow (past 4 MiB) shows at sizes small enough to run; `width:32` is "
    "the real width just below and just past 2^30. Each new array is fresh memory from "
    "malloc (page faults on every page). `httpcore-heap` is the same arithmetic on a "
    "JVM-like heap: a dead array's memory is reused for a later one and zeroed, as a "
    "`new byte[]` is, so its steady steps pay zeroing and copying but no page faults. The "
    "real JVM should lie between the two.")


def cliff_section(run, rows_by_strategy, stem, limit):
    md = ["### The httpcore cliff", "", CLIFF_INTRO, ""]
    note = missing_note(run, "the httpcore cliff (`bufgrow-cliff`)", "bufgrow-cliff",
                        "^bufgrow-cliff/")
    if note:
        return md + [note, ""]
    panels, notes = [], []
    rows = ["| strategy | width | threshold | per additive step (at the threshold) "
            "| piecewise fit | leave-largest-out error |", "|---|---|---|---|---|---|"]
    for strategy, bits in (("httpcore", 24), ("httpcore", 32), ("httpcore-heap", 32)):
        N, t = run.series("bufgrow-cliff", strategy, "size", width=bits)
        L = 2 ** (bits - 2)
        if not (N > L).any():  # the sizes past the threshold are the measurement
            sk = [r for r in run.skipped_at("bufgrow-cliff", strategy, width=bits)
                  if r["params"].get("size", 0) > L]
            notes.append(missing_sentence(
                "`bufgrow-cliff/%s/width:%d` past %s" % (strategy, bits, plots._bytes(L)),
                "^bufgrow-cliff/%s/width:%d/" % (strategy, bits), sk))
            continue
        httpcore_row = rows_by_strategy.get(strategy)
        if bits == 32 and httpcore_row is not None:
            mN, mt = httpcore_row["series"]
            keep = mN >= limit
            N, t = np.concatenate([mN[keep], N]), np.concatenate([mt[keep], t])
            near = N >= L
            fit, val = httpcore_row["fit"], httpcore_row["val"]
            panels.append(("%s, 32 bits: at and just past 2^30" % strategy, N[near], t[near],
                           L, fit))
        else:
            fit = hbfit.PiecewiseFit(N, t, bits, READ)
            val = hbfit.validate(lambda n, tt: hbfit.PiecewiseFit(n, tt, bits, READ), N, t)
            panels.append(("%s, %d bits: overflow past %s" % (strategy, bits, plots._bytes(L)),
                           N, t, L, fit))
        rows.append(_cliff_row(strategy, bits, L, fit, val))
    png = plots.cliff(panels, stem("bufgrow-cliff")) if panels else None
    if png:
        md += rows + ["", "![httpcore cliff](charts/%s)" % png, ""]
    for n in notes:
        md += [n, ""]
    return md


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
    return "| `%s` | %d | %s | %s | %s | %s |" % (strategy, bits, plots._bytes(L), step, lab, ve)


def link(png, alt):
    """The Markdown of a chart, or nothing when the chart had nothing to draw."""
    return ["![%s](charts/%s)" % (alt, png), ""] if png else []


def optional_section(module, path, run_path, charts, missing):
    """The Markdown of module's section from the JSON at path; missing when path is empty (not
    part of this run) or absent."""
    if not path or not os.path.exists(path):
        return [missing, ""]
    try:
        mod = __import__(module)
        mod.FORMATS = plots.FORMATS
        if plots.DPI and hasattr(mod, "DPI"):
            mod.DPI = plots.DPI
        return [mod.section(path, run_path, charts), ""]
    except Exception as e:  # a truncated or foreign file: say so, keep the rest of the report
        print("report.py: %s could not use %s: %s: %s" % (module, path, type(e).__name__, e),
              file=sys.stderr)
        return ["**`%s` could not be read (%s: %s)**: rerun the command that writes it." % (
            path, type(e).__name__, e), ""]


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""report.py - REPORT.md and its charts from a hotbench run's JSON.

usage: report.py [--run RUN.json] [--e2e E2E.json] [--peers PEERS.json] [--out DIR]

Reads google-benchmark JSON written by `make bench` (default results/latest.json), and when present
the whole-process runs of `make bench-e2e` (results/e2e-latest.json) and the peers of `make
bench-peers` (results/peers-latest.json). Writes DIR/REPORT.md (default results/) and its charts as
PNG and SVG under DIR/charts/. Every figure in the report is computed here from those files:
medians and coefficients of variation of the repetitions, fitted models t = a + b*N^k (the piecewise
httpcore model for httpcore), predictions at the production size with 95% prediction intervals,
and the leave-largest-out validation of every fit (scripts/hbfit.py says how). Run under Debian's
/usr/bin/python3 (python3-matplotlib, python3-numpy, python3-scipy).
"""

import argparse
import datetime
import os
import platform
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
# bufgrow fits start past the last-level cache (32 MiB here): smaller bodies are written into
# cached, already-mapped memory, larger ones into fresh pages - two regimes one power law would
# blur into k ~ 1.5. Strategies measured at fewer than 3 such sizes (the quadratic ones, which the
# budget stops early) are fitted from FIT_MIN_SMALL up.
FIT_MIN_SIZE = 64 << 20
FIT_MIN_SMALL = 1 << 20

# The groups of the report, one row each: family, title, the parameter scaled, the others fixed,
# the production value, the row ratios divide by, the item counted (per_label, per_scale).
GROUPS = [
    dict(key="bufgrow", family="bufgrow", title="Identity chunked body into one array",
         x="size", fixed={"read": READ}, prod=PROD_SIZE, ref="exact", xlabel="payload size N (bytes)",
         per_label="time per byte (ns/B)", per_scale=1e9, unit="B", fit_min=FIT_MIN_SIZE),
    dict(key="bufgrow-gzip", family="bufgrow-gzip", title="gzip chunked body into one array",
         x="size", fixed={"read": READ}, prod=PROD_SIZE, ref="inflate",
         xlabel="decoded payload size N (bytes)", per_label="time per decoded byte (ns/B)",
         per_scale=1e9, unit="B", fit_min=FIT_MIN_SIZE),
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


def fit_group(run, g):
    """Per strategy: series, fit (PowerFit, PiecewiseFit or SumFit), validation, the row at the
    production size (measured or predicted)."""
    out = {}
    for s in run.strategies(g["family"]):
        N, t = run.series(g["family"], s, g["x"], **g["fixed"])
        if len(N) == 0 and not run.skipped_at(g["family"], s, **g["fixed"]):
            continue
        keep = N >= g["fit_min"]
        if len(np.unique(N[keep])) < 3 and g["unit"] == "B":
            keep = N >= FIT_MIN_SMALL
        Nf, tf = N[keep], t[keep]
        fit = val = None
        if g["key"].startswith("bufgrow") and s in HTTPCORE:
            piece, _ = hbfit.httpcore_fit(run, s, read=READ, fit_min=FIT_MIN_SIZE)
            if g["key"] == "bufgrow":
                fit = piece
                cN, ct = run.series("bufgrow-cliff", s, "size", width=32)
                v = hbfit.httpcore_fit(run, s, read=READ, fit_min=FIT_MIN_SIZE,
                                       leave_out_largest=True)[0]
                if len(cN) and v.ok:  # validation: the largest cliff size from the rest
                    top = cN.max()
                    m = float(np.median(ct[cN == top]))
                    p, lo, hi = v.predict(top)
                    val = dict(size=top, measured=m, predicted=p, low=lo, high=hi,
                               error=p / m - 1)
            else:  # gzip: its own linear part, the copy price measured on identity bodies
                fit = SumFit(hbfit.PowerFit(Nf, tf), piece)
                val = hbfit.validate(hbfit.PowerFit, Nf, tf)
        elif len(np.unique(Nf)) >= 3:
            fit = hbfit.PowerFit(Nf, tf)
            val = hbfit.validate(hbfit.PowerFit, Nf, tf) if len(np.unique(Nf)) >= 4 else None
        at = t[N == g["prod"]]
        row = dict(series=(N, t), fit=fit, val=val, measured=len(at) > 0,
                   summary=hbfit.summarize(at))
        if len(at) == 0 and fit is not None and fit.ok:
            row["predicted"] = fit.predict(g["prod"])
        sk = [r for r in run.skipped_at(g["family"], s, **g["fixed"])
              if r["params"].get(g["x"]) == g["prod"]]
        row["budget_prediction"] = sk[0]["predicted_s"] if sk else None
        row["skip_message"] = sk[0]["message"] if sk else None
        out[s] = row
    return out


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
    unit = g["unit"]
    lines = ["| strategy | median at production size | CV | throughput | ratio to `%s` | "
             "fitted k [95%% CI] | leave-largest-out error | note |" % g["ref"],
             "|---|---|---|---|---|---|---|---|"]
    order = sorted(fits, key=lambda s: (np.isnan(prod_time(fits[s])), prod_time(fits[s])))
    for s in order:
        r = fits[s]
        t = prod_time(r)
        if r["measured"]:
            med = fmt_time(t)
            cv = "-" if r["summary"]["n"] < 2 else "%.1f%%%s" % (
                100 * r["summary"]["cv"], " (noisy)" if r["summary"]["cv"] > 0.10 else "")
        elif "predicted" in r:
            p = r["predicted"]
            med = "**predicted %s** [%s, %s]" % (fmt_time(p[0]), fmt_time(p[1]), fmt_time(p[2]))
            cv = "-"
        else:
            med, cv = "not run", "-"
        if not np.isfinite(t):
            thr = "-"
        elif unit == "B":
            thr = "%.3g GB/s" % (g["prod"] / t / 1e9)
        elif unit == "ts":
            thr = "%.3g ns/ts" % (t / g["prod"] * 1e9)
        else:
            mbps = counter_median(run, g, s, "MB_per_s")
            nse = counter_median(run, g, s, "ns_per_element")
            thr = ("%.0f MB/s, %.3g ns/element" % (mbps, nse)) if mbps else "-"
        ratio = "%.3g" % (t / ref_t) if np.isfinite(t) and np.isfinite(ref_t) else "-"
        f = r["fit"]
        if f is None or not f.ok:
            kk = "-" if f is None else f.label()
        elif isinstance(f, hbfit.PowerFit):
            kk = "%.2f [%.2f, %.2f]" % (f.k, *f.k_ci)
        elif isinstance(f, hbfit.PiecewiseFit):
            kk = "piecewise: %s" % f.label()
        else:
            kk = "%s; linear part k=%.2f" % (f.label(), f.k)
        v = r["val"]
        if v is None:
            f_ = r["fit"].linear if isinstance(r["fit"], SumFit) else r["fit"]
            n = getattr(f_, "n_sizes", getattr(f_, "n_points", 0))
            ve = ("not validated (fitted on %d sizes: too few to leave one out)" % n
                  if f_ is not None else "-")
        else:
            ve = "%+.1f%% at %s" % (100 * v["error"], _n(v["size"], unit))
            if abs(v["error"]) > hbfit.VALIDATION_LIMIT:
                ve = "**%s FLAGGED (> %d%%)**" % (ve, 100 * hbfit.VALIDATION_LIMIT)
        note = ""
        if r["budget_prediction"] is not None:
            note = ("hotbench's budget estimate: %s (its dry-run copies priced by a measured "
                    "copy step, not this fit)" % fmt_time(r["budget_prediction"]))
        elif r["skip_message"]:
            note = r["skip_message"][:80]
        lines.append("| `%s` | %s | %s | %s | %s | %s | %s | %s |" % (s, med, cv, thr, ratio, kk,
                                                                     ve, note))
    return lines


def _n(v, unit):
    if unit == "B":
        return "%.3g GB" % (v / 1e9) if v >= 1e9 else "%.3g MB" % (v / 1e6)
    return "%d" % v


def environment(run):
    c = run.context
    mem = c.get("hb_memory", "")
    rows = [
        ("git revision", c.get("hb_git_revision", "?")),
        ("run date", c.get("date", "?")),
        ("host", c.get("host_name", "?")),
        ("CPU", "%s, %s cores, %s MHz" % (c.get("hb_cpu_model", "?"), c.get("num_cpus", "?"),
                                          c.get("mhz_per_cpu", "?"))),
        ("caches", ", ".join("L%d%s %d KiB" % (x["level"], x["type"][0].lower(), x["size"] // 1024)
                             for x in c.get("caches", []))),
        ("memory", mem or "?"),
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", default="results/latest.json", help="run JSON (%(default)s)")
    ap.add_argument("--e2e", default="results/e2e-latest.json",
                    help="hyperfine results of make bench-e2e (%(default)s; optional)")
    ap.add_argument("--peers", default="results/peers-latest.json",
                    help="peers of make bench-peers (%(default)s; optional)")
    ap.add_argument("--out", default="results", help="folder of REPORT.md and charts/ "
                    "(%(default)s)")
    a = ap.parse_args()
    if not os.path.exists(a.run):
        sys.exit("report.py: no run JSON at %s: run `make bench` first (or pass --run FILE)"
                 % a.run)
    try:
        run = hbfit.Run(a.run)
    except (ValueError, KeyError, TypeError) as e:
        sys.exit("report.py: %s is not a readable google-benchmark JSON (%s: %s): rerun "
                 "`make bench`" % (a.run, type(e).__name__, e))
    known = {g["family"] for g in GROUPS}
    if not run.rows or not known & set(run.families()):
        sys.exit("report.py: %s holds no timed benchmark of hotbench's cases (%s): is it a "
                 "hotbench run?" % (a.run, ", ".join(sorted(known))))
    charts = os.path.join(a.out, "charts")
    os.makedirs(charts, exist_ok=True)

    def stem(name):
        return os.path.join(charts, name)

    md = ["# hotbench report", "",
          "Generated by `scripts/report.py` from `%s` on %s. Every figure below is computed "
          "from that file; predictions are labelled as such and carry 95%% prediction intervals."
          % (os.path.relpath(os.path.realpath(a.run)),
             datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")), ""]
    fits = {g["key"]: fit_group(run, g) for g in GROUPS}
    if run.failed:
        md += ["**%d benchmark(s) FAILED verification and were not timed** (their answers "
               "differed from the reference; hotbench exited 1):" % len(run.failed), ""]
        md += ["- `%s/%s/%s`: %s" % (r["family"], r["strategy"], "/".join(
            "%s:%s" % kv for kv in r["params"].items()), r["message"][:300]) for r in run.failed]
        md += [""]

    # --- summary, derived from the data ---
    md += ["## Summary", "",
           "At each case's production size (1.7 GB body; 100,000 rows; 300 volumes x 20 tags):",
           "", "| case | fastest | slowest | slowest / fastest |", "|---|---|---|---|"]
    missing_figures = []
    for g in GROUPS:
        if g["key"] == "volumes":
            continue
        f = fits[g["key"]]
        ts = {s: prod_time(r) for s, r in f.items() if np.isfinite(prod_time(r))
              and s not in ("memcpy", "inflate", "memchr-scan", "int64-binary")}
        if not ts:
            continue
        lo, hi = min(ts, key=ts.get), max(ts, key=ts.get)
        none = [s for s in f if s not in ts and s not in ("memcpy", "inflate", "memchr-scan",
                                                          "int64-binary")]
        if none:
            missing_figures.append("%s: %s" % (g["title"], ", ".join("`%s`" % x for x in none)))
        tag = {s: "" if f[s]["measured"] else " (predicted)" for s in ts}
        md.append("| %s | `%s` %s%s | `%s` %s%s | %.3g |" % (
            g["title"], lo, fmt_time(ts[lo]), tag[lo], hi, fmt_time(ts[hi]), tag[hi],
            ts[hi] / ts[lo]))
    md += ["", "Baseline rows (`memcpy`, `inflate`, `int64-binary`, `memchr-scan`) are ceilings, "
           "not strategies, and are left out of fastest and slowest."]
    if missing_figures:
        md += ["Strategies with no figure at the production size (not run there and no fit to "
               "predict from; see their tables): " + "; ".join(missing_figures) + "."]
    md += [""]

    md += ["## Environment", ""] + environment(run) + [""]

    # --- bufgrow ---
    md += ["## Case 1: byte-buffer growth (bufgrow)", "",
           "One iteration reads a whole chunked body in reads of %d bytes into one array. "
           "Time per iteration; throughput in decimal GB/s of decoded payload. Fits use the "
           "sizes from 64 MiB up (twice the last-level cache: smaller bodies are written into "
           "cached memory, a different regime), or from 1 MiB up for the strategies the budget "
           "stops before 64 MiB (the quadratic ones)." % READ,
           ""]
    for key in ("bufgrow", "bufgrow-gzip"):
        g = next(x for x in GROUPS if x["key"] == key)
        f = fits[key]
        md += ["### %s" % g["title"], ""] + table(run, g, f) + [""]
        series = {s: r["series"] for s, r in f.items()}
        pf = {s: r["fit"] for s, r in f.items() if isinstance(r["fit"], hbfit.PowerFit)}
        png = plots.scaling(series, stem(key + "-scaling"), g["title"], g["xlabel"],
                            g["per_label"], g["per_scale"], pf, g["prod"], "1.7 GB")
        md += link(png, key + " scaling")
        lines_ = {s: (r["series"][0], r["series"][1], r["fit"], r["val"]) for s, r in f.items()}
        png = plots.extrapolation(lines_, stem(key + "-extrapolation"), PROD_SIZE,
                                  g["title"] + ": every strategy carried to 1.7 GB")
        md += link(png, key + " extrapolated")
    # bytes copied per byte
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
    png = plots.copied_per_byte(pts, stem("bufgrow-copied"), "Bytes copied by growth")
    md += ["### Bytes copied per payload byte", "",
           "The copies each growth policy makes (the final gather or `toByteArray` copy "
           "included), from the `bytes_copied_per_byte` counter; for sizes the budget skipped, "
           "from the strategy's dry-run plan.", ""] + link(png, "bytes copied")
    md += cliff_section(run, fits["bufgrow"], stem)

    # --- rfc3339 ---
    g = next(x for x in GROUPS if x["key"] == "rfc3339")
    f = fits["rfc3339"]
    md += ["## Case 2: RFC 3339 timestamps (rfc3339)", "",
           "One iteration parses every row of a column into seconds and nanoseconds (or millis) "
           "and checksums them.", ""] + table(run, g, f) + [""]
    items = []
    for s in f:
        at = [r["t"] / PROD_ROWS * 1e9 for r in run.select("rfc3339", s, rows=PROD_ROWS)]
        if at:
            items.append((s, at))
    items.sort(key=lambda x: np.median(x[1]))
    png = plots.bars(items, stem("rfc3339-bars"), "ns per timestamp at 100,000 rows (median, "
                     "min-max of the repetitions)", "time per timestamp (ns, log scale)")
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
    series = {s: r["series"] for s, r in f.items()}
    pf = {s: r["fit"] for s, r in f.items() if isinstance(r["fit"], hbfit.PowerFit)}
    png = plots.scaling(series, stem("rfc3339-scaling"), g["title"], g["xlabel"], g["per_label"],
                        g["per_scale"], pf, PROD_ROWS, "100k rows")
    md += link(png, "rfc3339 scaling")

    # --- volumes ---
    md += ["## Case 3: tag-heavy XML (volumes)", "",
           "One iteration decodes a whole DescribeVolumes response (indented, fed whole) into "
           "the strategy's model.", ""]
    for key in ("volumes-tags", "volumes"):
        g = next(x for x in GROUPS if x["key"] == key)
        f = fits[key]
        md += ["### %s" % g["title"], ""]
        if key == "volumes-tags":
            md += table(run, g, f) + [""]
        else:
            md += ["The same strategies with 20 tags per volume and the volume count scaled; the "
                   "fitted exponents:", "", "| strategy | fitted k [95% CI] | "
                   "leave-largest-out error |", "|---|---|---|"]
            for s, r in f.items():
                fi, v = r["fit"], r["val"]
                md.append("| `%s` | %s | %s |" % (
                    s, "%.2f [%.2f, %.2f]" % (fi.k, *fi.k_ci) if fi is not None and fi.ok
                    else "-", "-" if v is None else "%+.1f%% at %d volumes%s" % (
                        100 * v["error"], v["size"],
                        " **FLAGGED**" if abs(v["error"]) > hbfit.VALIDATION_LIMIT else "")))
            md.append("")
        series = {s: r["series"] for s, r in f.items()}
        pf = {s: r["fit"] for s, r in f.items() if isinstance(r["fit"], hbfit.PowerFit)}
        png = plots.scaling({s: (n[n > 0], t[n > 0]) for s, (n, t) in series.items()},
                            stem(key + "-scaling"), g["title"], g["xlabel"], g["per_label"],
                            g["per_scale"], pf, g["prod"], "production",
                            items_per_n=g["items_per_n"], plain_x=True)
        md += link(png, key)
    nse = []
    gv = next(x for x in GROUPS if x["key"] == "volumes-tags")
    for s in fits["volumes-tags"]:
        v = [r["counters"]["ns_per_element"] for r in run.select("volumes", s, **gv["fixed"])
             if r["params"].get("tags") == 20 and "ns_per_element" in r["counters"]]
        if v:
            nse.append((s, v))
    nse.sort(key=lambda x: np.median(x[1]))
    if nse:
        png = plots.bars(nse, stem("volumes-per-element"), "ns per XML element, 300 volumes x "
                         "20 tags (median, min-max)", "time per element (ns, log scale)")
        md += link(png, "volumes per element")

    # --- whole-process and peers, when their results exist ---
    md += ["## Whole-process runs (hyperfine)", ""]
    md += optional_section("e2e_report", a.e2e, a.run, charts,
                           "No whole-process results: run `make bench-e2e`.")
    md += ["## Peers: the real libraries", ""]
    md += optional_section("peers_report", a.peers, a.run, charts,
                           "No peer results: install the runtimes with `scripts/deps.sh --peers` "
                           "(as root) and run `make bench-peers`.")

    md += ["## Method", "",
           "- Medians of the repetitions; CV = sample standard deviation / mean, flagged over 10%.",
           "- Fitted model `t(N) = a + b*N^k` (a >= 0), least squares on log t so every point "
           "weighs by its relative error; k's 95% confidence interval from the fit's covariance "
           "(Student t). `httpcore` and `httpcore-heap`: the piecewise model "
           "`t = a + b*N + d*[N > 2^30] + c*X(N)`, X the bytes "
           "copied by the additive steps past 2^30 (zero below), fitted on its main family and the "
           "32-bit cliff sizes just past 2^30.",
           "- Predictions at the production size carry 95% prediction intervals (parameter "
           "uncertainty plus the scatter of one measurement). They are predictions, never "
           "measurements.",
           "- Validation: each fit is redone without its largest measured size and predicts it; "
           "the relative error is shown, and flagged beyond %d%%." % (
               100 * hbfit.VALIDATION_LIMIT),
           "- google-benchmark's own `_BigO` rows fit `t = c*g(N)` through the origin; across "
           "cache regimes they mean little and are not used here.", ""]
    path = os.path.join(a.out, "REPORT.md")
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("\n".join(md) + "\n")
    os.replace(tmp, path)
    print("report: %s (charts in %s)" % (path, charts))


def _copied(msg):
    import re
    m = re.search(r"([0-9.eE+-]+) bytes copied", msg)
    return float(m.group(1)) if m else None


def _rows_of(run, family):
    n = run.context.get("rfc3339_variant_rows")
    return int(n) if n else PROD_ROWS


def cliff_section(run, rows_by_strategy, stem):
    md = ["### The httpcore cliff", "",
          "`httpcore` models ByteArrayBuffer's `int` capacity: doubling until `capacity << 1` "
          "overflows, then growth to exactly what is needed, one read at a time, each step "
          "copying the whole array. `bufgrow-cliff/httpcore/width:24` narrows the capacity to 24 "
          "bits so the overflow (past 4 MiB) shows at sizes small enough to run; `width:32` is "
          "the real width just below and just past 2^30. Each new array is fresh memory from "
          "malloc (page faults on every page). `httpcore-heap` is the same arithmetic on a "
          "JVM-like heap: a dead array's memory is reused for a later one and zeroed, as a "
          "`new byte[]` is, so its steady steps pay zeroing and copying but no page faults. The "
          "real JVM should lie between the two.", ""]
    panels, rows = [], ["| strategy | width | threshold | per additive step (at the threshold) "
                        "| piecewise fit | leave-largest-out error |",
                        "|---|---|---|---|---|---|"]
    for strategy, bits in (("httpcore", 24), ("httpcore", 32), ("httpcore-heap", 32)):
        N, t = run.series("bufgrow-cliff", strategy, "size", width=bits)
        if len(N) == 0:
            continue
        L = 2 ** (bits - 2)
        httpcore_row = rows_by_strategy.get(strategy)
        if bits == 32 and httpcore_row is not None:
            mN, mt = httpcore_row["series"]
            keep = mN >= FIT_MIN_SIZE
            N, t = np.concatenate([mN[keep], N]), np.concatenate([mt[keep], t])
            near = N >= L
            fit = httpcore_row["fit"]
            val = httpcore_row["val"]
            panels.append(("%s, 32 bits: at and just past 2^30" % strategy, N[near], t[near],
                           L, fit))
        else:
            fit = hbfit.PiecewiseFit(N, t, bits, READ)
            val = hbfit.validate(lambda n, tt: hbfit.PiecewiseFit(n, tt, bits, READ), N, t)
            panels.append(("%s, %d bits: overflow past %s" % (strategy, bits, plots._bytes(L)),
                           N, t, L, fit))
        if fit is not None and fit.ok:
            se = fit.tq * np.sqrt(max(fit.cov[2, 2], 0.0)) * L
            step = "%s [%s, %s]" % (fmt_time(fit.step_s), fmt_time(max(fit.step_s - se, 0)),
                                   fmt_time(fit.step_s + se))
            lab = fit.label()
        else:
            step, lab = "-", "-" if fit is None else fit.label()
        ve = "-" if val is None else "%+.1f%% at %d B%s" % (
            100 * val["error"], val["size"],
            " **FLAGGED**" if abs(val["error"]) > hbfit.VALIDATION_LIMIT else "")
        rows.append("| `%s` | %d | %s | %s | %s | %s |" % (strategy, bits, plots._bytes(L), step,
                                                          lab, ve))
    if panels:
        png = plots.cliff(panels, stem("bufgrow-cliff"))
        md += rows + ["", "![httpcore cliff](charts/%s)" % png, ""]
    return md


def link(png, alt):
    """The Markdown of a chart, or nothing when the chart had nothing to draw."""
    return ["![%s](charts/%s)" % (alt, png), ""] if png else []


def optional_section(module, path, run_path, charts, missing):
    if not os.path.exists(path):
        return [missing, ""]
    try:
        mod = __import__(module)
        return [mod.section(path, run_path, charts), ""]
    except Exception as e:  # a truncated or foreign file: say so, keep the rest of the report
        print("report.py: %s could not use %s: %s: %s" % (module, path, type(e).__name__, e),
              file=sys.stderr)
        return ["**`%s` could not be read (%s: %s)**: rerun the command that writes it." % (
            path, type(e).__name__, e), ""]


if __name__ == "__main__":
    main()

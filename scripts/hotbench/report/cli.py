"""report.py - REPORT.md and its charts from a hotbench run's JSON.

Reads google-benchmark JSON written by `make bench` (default results/latest.json), and when present
the whole-process runs of `make bench-e2e` (results/e2e-latest.json), the peers of `make
bench-peers` (results/peers-latest.json), the allocator matrix of `make bench-alloc`
(results/latest-alloc.json: the Allocators section), the instruction counts of `make limits`
(results/limits.json: the What limits it now paragraphs) and the status of `make bench`'s parts
(results/bench-status.json: each part's status, duration, error and command). Writes DIR/REPORT.md
(default results/) and its charts as PNG and SVG under DIR/charts/. What to report comes from the
manifest the run carries (context.hb_manifest, docs/manifest.md): per case, per group, per view
the table, fits and charts the view names. Every figure in the report is computed here from those
files: medians and coefficients of variation of the repetitions, fitted models t = a + b*N^k (the
piecewise model for a strategy whose model is piecewise-32), predictions at the production size
with 95% prediction intervals, and the leave-largest-out validation of every fit
(scripts/hotbench/fit.py says how). A strategy of a view fitted past the caches and measured only
below twice the last-level cache is not predicted at the production size; an interval wider than
100x is printed as unbounded. Whatever the run lacks (a group, sizes the budget skipped, the e2e
or peers results) is one sentence naming the command that measures it. A run without a manifest
(older than hotbench-manifest/1) is refused with exit 2, naming the hotbench revision that can upgrade it.
Run under Debian's /usr/bin/python3 (python3-matplotlib, python3-numpy, python3-scipy).
"""

import argparse
import datetime
import importlib
import os
import sys

from .. import limits as hblimits
from .. import style
from ..manifest import ManifestError
from ..runjson import Run
from . import allocators
from .environment import environment
from .sections import in_process_sections, method_section
from .status import load_status, status_section


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
    ap.add_argument("--alloc", default="results/latest-alloc.json",
                    help="the allocator matrix of make bench-alloc (%(default)s; optional; an "
                    "empty string: none)")
    ap.add_argument("--limits", default="results/limits.json",
                    help="instruction counts of make limits (%(default)s; optional; an empty "
                    "string: none): the What limits it now paragraphs' counts")
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
    reported); exits with a message otherwise (2 for a run without a usable manifest)."""
    if not os.path.exists(path):
        if status is not None:
            return None
        sys.exit("report.py: no run JSON at %s: run `make bench` first (or pass --run FILE)"
                 % path)
    try:
        run = Run(path)
        known = {g["name"] for g in run.manifest.groups()}
    except ManifestError as e:
        print("report.py: %s" % e, file=sys.stderr)
        sys.exit(2)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("report.py: %s is not a readable google-benchmark JSON (%s: %s): rerun "
                 "`make bench`" % (path, type(e).__name__, e))
    if not run.rows and not run.skipped or not known & set(run.families()):
        sys.exit("report.py: %s holds no benchmark of the cases its manifest describes (%s): "
                 "is it a hotbench run?" % (path, ", ".join(sorted(known))))
    return run


def main(argv=None):
    a = parse_args(argv)
    style.configure([f for f in a.chart_formats.split(",") if f] or ["none"], a.dpi)
    status, status_note = load_status(a.status)
    # with only an allocator matrix (make bench-alloc before any make bench), its section alone
    alone = status is None and bool(a.alloc) and os.path.exists(a.alloc)
    run = load_run(a.run, {} if alone else status)
    charts = os.path.join(a.out, "charts")
    try:
        os.makedirs(charts, exist_ok=True)
    except OSError as e:
        sys.exit("report.py: cannot make the folder of --out %s: %s" % (a.out, e))

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
        md += in_process_sections(run, status, stem, environment, load_limits(a.limits))
    else:
        md += ["## In-process suite", "",
               "**Missing: the in-process run**: there is no run JSON at `%s` (see the parts "
               "above); measure it with `make bench`." % a.run, ""]
    md += other_sections(a, run, charts)
    md += method_section(run.manifest if run is not None else None)
    path = os.path.join(a.out, "REPORT.md")
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write("\n".join(md) + "\n")
    os.replace(tmp, path)
    print("report: %s (charts in %s)" % (path, charts))


def load_limits(path):
    """The hotbench-limits/1 document at path, or None (absent, not given, or unreadable: said
    on stderr; the paragraphs then say how to measure it)."""
    if not path or not os.path.exists(path):
        return None
    try:
        return hblimits.load(path)
    except (OSError, ValueError) as e:
        print("report.py: the instruction counts %s could not be used: %s (rerun make limits)"
              % (path, e), file=sys.stderr)
        return None


def other_sections(a, run, charts):
    """The whole-process and peers sections, written by their own modules
    (hotbench.e2e_report, hotbench.peers_report)."""
    run_path = a.run if run else None
    md = ["## Whole-process runs (hyperfine)", ""]
    md += optional_section("e2e_report", a.e2e, run_path, charts,
                           "No whole-process results: run `make bench-e2e`.")
    md += ["## Peers: the real libraries", ""]
    md += optional_section("peers_report", a.peers, run_path, charts,
                           "No peer results: install the runtimes with `scripts/deps.sh --peers` "
                           "(as root) and run `make bench-peers`.")
    md += ["## Allocators", ""] + alloc_section(a.alloc, a.peers)
    return md


def alloc_section(path, peers):
    """The Allocators section from the matrix at path (hotbench.report.allocators), or a
    sentence saying how to measure it or why it could not be read."""
    if not path or not os.path.exists(path):
        return ["No allocator matrix: run `make bench-alloc` (glibc, jemalloc, mimalloc and "
                "tcmalloc on the rows the cases select; docs/allocators.md).", ""]
    try:
        return allocators.section(path, peers)
    except Exception as e:  # a truncated or foreign file: say so, keep the rest of the report
        print("report.py: the allocator matrix %s could not be used: %s: %s" % (
            path, type(e).__name__, e), file=sys.stderr)
        return ["**`%s` could not be read (%s: %s)**: rerun `make bench-alloc`." % (
            path, type(e).__name__, e), ""]


def optional_section(module, path, run_path, charts, missing):
    """The Markdown of module's section from the JSON at path; missing when path is empty (not
    part of this run) or absent."""
    if not path or not os.path.exists(path):
        return [missing, ""]
    try:
        mod = importlib.import_module("hotbench." + module)
        mod.FORMATS = style.FORMATS
        if style.DPI and hasattr(mod, "DPI"):
            mod.DPI = style.DPI
        return [mod.section(path, run_path, charts), ""]
    except Exception as e:  # a truncated or foreign file: say so, keep the rest of the report
        print("report.py: %s could not use %s: %s: %s" % (module, path, type(e).__name__, e),
              file=sys.stderr)
        return ["**`%s` could not be read (%s: %s)**: rerun the command that writes it." % (
            path, type(e).__name__, e), ""]

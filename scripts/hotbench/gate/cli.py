"""gate.py - hotbench's CI regression gate: measure, record a baseline, compare, export.

    scripts/gate.py ci       --build build-ci        measure, compare with results/baseline/, exit 1
                                                     on a regression (what `make bench-ci` runs)
    scripts/gate.py baseline --build build-ci        measure twice into results/baseline/ and
                                                     compare the two runs (`make baseline`)
    scripts/gate.py measure  --build DIR --out DIR   one measurement, no verdict
    scripts/gate.py compare  --baseline DIR --current DIR   the verdict on existing measurements

The commands (cli of hotbench.gate: its modules document the measurement and the statistics).
"""

import argparse
import datetime
import glob
import os
import shutil
import sys
import tempfile

from .errors import die
from .instructions import check_instructions
from .measure import confirm, measure
from .measurement import Measurement
from .settings import settings_from
from .speed import check_speed
from .verdict import compare

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
DEFAULTS = dict(z=4.0, min_effect=0.20, resolution=0.20, ir_tolerance=0.02, budget_factor=2.0)
EPILOG = ("See scripts/hotbench/gate/ for the statistics (speed.py, complexity.py, "
          "instructions.py). Exit status: 0 no regression, 1 a regression (ci, compare), 2 a "
          "usage or run error.")


def utc_stamp():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


class Tee:
    """Writes to several streams (the console and the saved table)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for f in self.streams:
            f.write(s)


def cmd_measure(args):
    measure(args.build, args.out, settings_from(args, args.like))
    return 0


def cmd_compare(args):
    base, cur = Measurement(args.baseline), Measurement(args.current)
    return 1 if compare(base, cur, args) else 0


def cmd_ci(args):
    if not os.path.exists(os.path.join(args.baseline, "settings.json")):
        die("no baseline in %s: record one with `make baseline` (and commit it)" % args.baseline)
    out = args.out or os.path.join(ROOT, "results", "runs", utc_stamp() + "-ci")
    settings = settings_from(args, args.baseline)
    measure(args.build, out, settings)
    base, cur = Measurement(args.baseline), Measurement(out)
    ir = {r["name"] for r in check_instructions(base, cur, args)[0] if r["verdict"] == "pass"}
    suspects = [r["name"] for r in check_speed(base, cur, args, ir) if r["verdict"] == "regressed"]
    if suspects:
        confirm(args.build, out, cur.settings or settings, cur, suspects)
        cur = Measurement(out)
    with open(os.path.join(out, "gate.txt"), "w") as f:
        nreg = compare(base, cur, args, out=Tee(sys.stdout, f))
    print("gate: wrote %s/: run.json (google-benchmark JSON), bmf.json (Bencher Metric Format), "
          "instructions.json, gate.txt (this table)" % os.path.relpath(out, os.getcwd()))
    return 1 if nreg else 0


def cmd_baseline(args):
    s = settings_from(args)
    out = args.out
    os.makedirs(out, exist_ok=True)
    for f in glob.glob(os.path.join(out, "*.json")) + glob.glob(os.path.join(out, "*.log")):
        os.remove(f)
    # hotbench's console output goes with the other runs (git-ignored), not into the baseline
    logdir = os.path.join(ROOT, "results", "runs", utc_stamp() + "-baseline-logs")
    for i in range(1, args.runs + 1):
        measure(args.build, out, s, suffix="-%d" % i, logdir=logdir)
    report = self_compare(out, args.runs, args)
    with open(report) as f:
        lines = f.read().splitlines()
    print("\n".join(l for l in lines if l.startswith(("verdict", "REGRESSED", "checks", "     "))))
    print("gate: baseline in %s (%d runs); run %d against run 1: %s" % (
        os.path.relpath(out, os.getcwd()), args.runs, args.runs,
        os.path.relpath(report, os.getcwd())))
    return 0


def self_compare(out, runs, args):
    """The baseline against itself: its last run compared with its first, written to
    self-compare.txt in the baseline (the evidence for the thresholds)."""
    report = os.path.join(out, "self-compare.txt")
    tmp = tempfile.mkdtemp(prefix="hb-gate-")
    try:
        dirs = []
        for i in (1, runs):
            d = os.path.join(tmp, str(i))
            os.makedirs(d, exist_ok=True)
            for name in ("run", "instructions"):
                shutil.copy(os.path.join(out, "%s-%d.json" % (name, i)),
                            os.path.join(d, "%s.json" % name))
            shutil.copy(os.path.join(out, "fingerprint.json"), d)
            dirs.append(d)
        with open(report, "w") as f:
            f.write("The baseline's run %d compared with its run 1 (a one-run baseline: the "
                    "thresholds here see no run-to-run spread).\n\n" % runs)
            compare(Measurement(dirs[0]), Measurement(dirs[1]), args, out=f)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report


def stats_opts(p):
    p.add_argument("--z", type=float, default=DEFAULTS["z"],
                   help="speed: standard errors a change must exceed (default %(default)s)")
    p.add_argument("--min-effect", type=float, default=DEFAULTS["min_effect"],
                   help="speed: smallest change called a regression, as a fraction "
                        "(default %(default)s)")
    p.add_argument("--resolution", type=float, default=DEFAULTS["resolution"],
                   help="speed: 'pass' needs the threshold below this change, else "
                        "'inconclusive' (default %(default)s)")
    p.add_argument("--ir-tolerance", type=float, default=DEFAULTS["ir_tolerance"],
                   help="instructions: smallest change called a regression "
                        "(default %(default)s)")
    p.add_argument("--budget-factor", type=float, default=DEFAULTS["budget_factor"],
                   help="complexity: the budget at production size, and for a size now "
                        "skipped over --hb_budget, as a multiple of the baseline's time "
                        "(default %(default)s)")


def sel_opts(p):
    p.add_argument("--build", default=os.path.join(ROOT, "build-ci"),
                   help="build directory holding hotbench (default build-ci)")
    p.add_argument("--filter", help="override the timed selection (a --benchmark_filter)")
    p.add_argument("--ir-filter", help="override the callgrind selection")
    p.add_argument("--repetitions", type=int, help="override the repetitions")
    p.add_argument("--min-time", type=float, help="override --benchmark_min_time (s)")
    p.add_argument("--budget-s", type=float, help="override --hb_budget (s)")


def parser():
    ap = argparse.ArgumentParser(
        prog="gate.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0], epilog=EPILOG)
    sub = ap.add_subparsers(dest="cmd", required=True)
    base_default = os.path.join(ROOT, "results", "baseline")
    p = sub.add_parser("ci", help="measure and compare with the baseline; exit 1 on a regression")
    sel_opts(p)
    stats_opts(p)
    p.add_argument("--baseline", default=base_default)
    p.add_argument("--out", help="where the measurement goes (default results/runs/<UTC>-ci/)")
    p.set_defaults(func=cmd_ci)

    p = sub.add_parser("baseline", help="record results/baseline/ (several runs)")
    sel_opts(p)
    stats_opts(p)
    p.add_argument("--out", default=base_default)
    p.add_argument("--runs", type=int, default=2, help="runs to record (default 2)")
    p.set_defaults(func=cmd_baseline)

    p = sub.add_parser("measure", help="one measurement into --out")
    sel_opts(p)
    p.add_argument("--out", required=True)
    p.add_argument("--like", help="take the selection from this baseline's settings.json")
    p.set_defaults(func=cmd_measure)

    p = sub.add_parser("compare", help="compare two measurements")
    stats_opts(p)
    p.add_argument("--baseline", default=base_default)
    p.add_argument("--current", required=True)
    p.set_defaults(func=cmd_compare)
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    if getattr(args, "runs", 2) < 1:
        die("--runs wants at least 1")
    return args.func(args)

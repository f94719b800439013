#!/usr/bin/python3
"""test_report_quick.py - a report from a quick run does not mislead (issue 11 §3).

tests/fixtures/run-quick.json is a quick-profile run (scripts/bench.sh build/hotbench
--hb_profile=quick on the project's 2-vCPU VM, which reports no cache sizes; its iteration rows
only): the bodies go up to 16 MiB, all inside the caches. report.py renders it (PNG charts at a
low resolution, so they are drawn) and the report must: predict no body strategy at 1.7 GB and say
why, print no interval spanning more than 100x as digits, state the fit range it used (not "from
64 MiB up"), call no measured strategy "not run", and say the cache size it assumed. Prints one
line per check and 'N passed, M failed'; exits 1 on a failure.
"""

import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import report  # noqa: E402
from hotbench import fit as hbfit  # noqa: E402
from hotbench.runjson import Run  # noqa: E402
from test_report_util import check, done  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "run-quick.json")
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
INTERVAL = re.compile(r"\[([0-9.e+-]+) (ns|us|ms|s)[^,\]]*, ([0-9.e+-]+) (ns|us|ms|s)")


def widest_interval(text):
    """The largest high / low of the '[low, high]' time intervals printed in text."""
    worst = 1.0
    for lo, ulo, hi, uhi in INTERVAL.findall(text):
        a, b = float(lo) * UNIT[ulo], float(hi) * UNIT[uhi]
        worst = max(worst, b / a if a > 0 else float("inf"))
    return worst


with tempfile.TemporaryDirectory() as tmp:
    none = os.path.join(tmp, "none.json")
    report.main(["--run", FIXTURE, "--e2e", none, "--peers", none, "--out", tmp,
                 "--chart-formats", "png", "--dpi", "40"])
    with open(os.path.join(tmp, "REPORT.md")) as fh:
        text = fh.read()
    run = Run(FIXTURE)
    check(max(s for f in ("bufgrow", "bufgrow-gzip") for s in
              (r["params"]["size"] for r in run.select(f))) < 64 << 20,
          "the fixture is a quick run: no body of 64 MiB or more")
    summary = text.split("## Summary")[1].split("##")[0]
    check("predicted" not in summary, "the summary leads with no prediction")
    body = text.split("## Case 1")[1].split("## Case 2")[0]
    check("**predicted" not in body, "no body strategy is predicted at 1.7 GB")
    check("not predicted: measured only up to" in body and "inside the caches" in body,
          "the tables say why: measured only up to X, inside the caches")
    w = widest_interval(text)
    check(w <= hbfit.WIDE_INTERVAL, "no printed interval spans more than 100x (widest %.3gx)" % w)
    intro = body.split("###")[0]
    check("from 64 MiB up" not in intro and "measured only below 64 MiB" in intro and
          "fitted from 1 MiB up" in intro, "the text states the fit range used: %s"
          % intro.strip()[-260:])
    check("reports no cache sizes" in intro or "L3" in text,
          "the assumed last-level cache is stated when the run reports none")
    measured = {r["strategy"] for r in run.rows}
    wrong = [s for s in re.findall(r"^\| `([^`]+)` \| not run \|", text, re.M) if s in measured]
    check(not wrong, "no measured strategy is 'not run' (%s)" % (", ".join(wrong) or "none"))
    charts = re.findall(r"\(charts/([^)]+\.png)\)", text)
    check(len(charts) >= 6 and all(os.path.getsize(os.path.join(tmp, "charts", c)) > 2000
                                   for c in charts), "%d charts drawn" % len(charts))
    check("bufgrow-extrapolation.png" not in charts and "No chart carries" in body,
          "no extrapolation chart, no band, when nothing is predicted")
done()

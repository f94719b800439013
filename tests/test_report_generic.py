#!/usr/bin/python3
"""test_report_generic.py - the report is walked from the manifest a run carries (issue 12 §3).

A tiny run JSON built here describes a made-up case "demo" (one group, a ceiling and two
strategies, one view naming the "table" and "scaling" charts) that no script knows: report.py
must write a section for it with its table and its scaling chart, and summary.py must print its
table with ratios to the group's reference. A run without a manifest (older than
hotbench-manifest/1): report.py refuses it with exit 2 and ManifestError's message, summary.py
prints its tables without ratios and says why; never a traceback.
Prints one line per check and 'N passed, M failed'; exits 1 on a failure.
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "scripts")
from test_report_util import check, done  # noqa: E402

VIEW = {"key": "demo-sum", "title": "Sum of n numbers", "x": "n", "x_label": "numbers n",
        "unit": "num", "fixed": {"width": 8}, "production": 100000,
        "production_label": "100k numbers", "items_per_x": 1,
        "per_label": "time per number (ns)", "per_scale": 1e9, "fit_from": "",
        "charts": ["table", "scaling"]}
MANIFEST = {"schema": "hotbench-manifest/1", "cases": [{
    "name": "demo", "title": "A made-up case", "incident": "Summing numbers one at a time.",
    "groups": [{"name": "demo-sum", "title": "Summing a column",
                "about": "One iteration sums n numbers.", "reference": "plain",
                "yardstick": "plain",
                "strategies": [{"name": "zero", "role": "ceiling", "complexity": 1,
                                "model": "power"},
                               {"name": "plain", "role": "strategy", "complexity": 1,
                                "model": "power"},
                               {"name": "unrolled", "role": "strategy", "complexity": 1,
                                "model": "power"}],
                "views": [VIEW], "gate": {"select": "", "ir_select": None}}],
    "e2e": [], "peers": [], "peers_driver": None}]}
NS_PER = {"zero": 0.1, "plain": 1.0, "unrolled": 0.4}


def run_doc(manifest=True):
    """google-benchmark JSON of the demo case: 4 sizes x 3 repetitions per strategy."""
    rows = []
    for s, ns in NS_PER.items():
        for n in (1000, 10000, 100000, 1000000):
            for rep in range(3):
                name = "demo-sum/%s/n:%d/width:8/real_time" % (s, n)
                rows.append({"name": name, "run_name": name, "run_type": "iteration",
                             "repetitions": 3, "repetition_index": rep, "iterations": 10,
                             "real_time": (50 + ns * n) * (1 + 0.01 * rep),
                             "cpu_time": 50 + ns * n, "time_unit": "ns",
                             "items_per_second": 1e9 / ns})
    ctx = {"date": "2026-12-01T00:00:00+00:00", "caches": [], "hb_profile": "full"}
    if manifest:
        ctx["hb_manifest"] = json.dumps(MANIFEST)
    return {"context": ctx, "benchmarks": rows}


def script(name, *args, cwd=None):
    return subprocess.run(["/usr/bin/python3", "-B", os.path.join(SCRIPTS, name), *args],
                          capture_output=True, text=True, cwd=cwd)


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "demo.json")
    with open(path, "w") as fh:
        json.dump(run_doc(), fh)
    out = os.path.join(tmp, "report")
    r = script("report.py", "--run", path, "--e2e", "", "--peers", "", "--out", out,
               "--chart-formats", "png", "--dpi", "40")
    check(r.returncode == 0, "report.py on the demo case: exit %d %s" % (r.returncode,
                                                                      r.stderr[-600:]))
    text = open(os.path.join(out, "REPORT.md")).read() if r.returncode == 0 else ""
    case = text.split("## Case 1: A made-up case (demo)")[-1].split("## Whole-process")[0]
    check("## Case 1: A made-up case (demo)" in text and "Summing numbers one at a time." in
          case and "### Summing a column" in case and "One iteration sums n numbers." in case,
          "a section for the case, from the manifest's title, incident, group title and about")
    check("ratio to `plain`" in case and "| `unrolled` | " in case and "| `zero` | " in case,
          "its table, with ratios to the group's reference")
    check("| Sum of n numbers | `unrolled` " in text and "`zero`" in text.split("## Summary")[1]
          .split("## Environment")[0].split("Baseline rows")[1],
          "the summary's row: fastest strategy, the ceiling left out and named")
    png = os.path.join(out, "charts", "demo-sum-scaling.png")
    check("(charts/demo-sum-scaling.png)" in case and os.path.getsize(png) > 2000,
          "its scaling chart, linked and written")
    r = script("summary.py", path)
    check(r.returncode == 0 and "demo-sum at n:100000, width:8; ratio = time / plain's time"
          in r.stdout and "(no reference row)" not in r.stdout,
          "summary.py: the demo group at its production size, ratios to its reference %s"
          % (r.stdout[-300:] + r.stderr[-300:]))

    old = os.path.join(tmp, "old.json")
    with open(old, "w") as fh:
        json.dump(run_doc(manifest=False), fh)
    r = script("report.py", "--run", old, "--e2e", "", "--peers", "", "--out",
               os.path.join(tmp, "old"))
    check(r.returncode == 2 and "carries no manifest" in r.stderr and "revision 23eba03" in
          r.stderr and "Traceback" not in r.stderr,
          "report.py on a run without a manifest: exit %d, %s" % (r.returncode,
                                                                 r.stderr.strip()[-200:]))
    r = script("summary.py", old)
    check(r.returncode == 0 and "carries no manifest" in r.stderr and "no reference rows" in
          r.stderr and "demo-sum at n:1000000, width:8; ratio = time / (no reference row)" in
          r.stdout and "Traceback" not in r.stderr,
          "summary.py on a run without a manifest: its tables, no ratios, the reason said "
          "(exit %d) %s" % (r.returncode, r.stderr.strip()[-200:]))

    # the parts' section names the make target its profile came from
    sys.path.insert(0, SCRIPTS)
    from hotbench.report.status import status_section
    for profile, target in (("quick", "`make bench-quick`, quick profile"),
                            ("full", "`make bench`, full profile")):
        md = "\n".join(status_section({"profile": profile, "parts": []}, old))
        check(target in md, "the parts of a %s run come from %s" % (profile, target))
done()

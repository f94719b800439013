#!/usr/bin/python3
"""test_gate_manifest.py SRCDIR - the gate knows a case from its description alone: with a made-up
manifest (a "demo" case: one group, its yardstick "ref", two strategies, one view) in tiny
baseline and current run JSONs, `scripts/gate.py compare` reports the group's rows, passes on
unchanged times and flags each regression injected into the current run, naming the benchmark
and the check. No hotbench and no valgrind: the runs are written here (fixed seeds).
Prints one line per check and 'N passed, M failed' (HB_TEST_VERBOSE=1: every table too); exits
1 on a failure."""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from test_report_util import check, done

SRC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
GATE = os.path.join(SRC, "scripts", "gate.py")
sys.path.insert(0, os.path.join(SRC, "scripts"))
from hotbench.gate.settings import selection_filter  # noqa: E402
from hotbench.manifest import Manifest  # noqa: E402

SIZES = (1000, 10000, 100000, 1000000)
# seconds per unit of n: the yardstick and the two strategies
PER_N = {"ref": 1e-9, "loop": 3e-9, "table": 2e-9}
IR = {"ref": 1.0e4, "loop": 3.1e4, "table": 2.2e4}  # instructions per iteration at n:1000


def strategy(name, role="strategy"):
    return {"name": name, "role": role, "complexity": 1, "model": "power"}


def group(name, yardstick, strategies):
    view = {"key": name, "title": name + " scaled", "x": "n", "x_label": "n", "unit": "B",
            "fixed": {}, "production": 1e7, "production_label": "10 MB", "items_per_x": 1,
            "per_label": "time per byte (ns/B)", "per_scale": 1e9, "fit_from": "",
            "charts": ["table", "scaling"]}
    return {"name": name, "title": name, "about": "One iteration reads n bytes.",
            "reference": yardstick, "yardstick": yardstick, "strategies": strategies,
            "views": [view], "gate": {"select": "", "ir_select": "[^/]+/n:1000/"}}


def manifest(extra_group=False):
    groups = [group("demo", "ref", [strategy("ref", "ceiling"), strategy("loop"),
                                    strategy("table")])]
    if extra_group:
        groups.append(group("demo-new", "ref", [strategy("ref", "ceiling"), strategy("loop")]))
    return {"schema": "hotbench-manifest/1",
            "cases": [{"name": "demo", "title": "A made-up case", "incident": "none",
                       "groups": groups, "e2e": [], "peers": [], "peers_driver": None}]}


def name(grp, strat, n):
    return "%s/%s/n:%d/real_time" % (grp, strat, n)


def iteration(bench, rep, seconds):
    ns = seconds * 1e9
    return {"name": bench, "run_name": bench, "run_type": "iteration", "repetitions": 5,
            "repetition_index": rep, "threads": 1, "iterations": 100, "real_time": ns,
            "cpu_time": ns, "time_unit": "ns"}


def skip(bench, rep, predicted):
    return {"name": bench, "run_name": bench, "run_type": "iteration", "repetitions": 5,
            "repetition_index": rep, "threads": 1, "error_occurred": True,
            "error_message": "skipped: over the budget", "hb_predicted_s": predicted,
            "iterations": 0, "real_time": 0.0, "cpu_time": 0.0, "time_unit": "ns"}


def run(seed, times=None, skipped=(), extra_group=False):
    """A run JSON: every (group, strategy, n) five times with 1% multiplicative noise; times
    (group, strategy, n) -> seconds overrides the model; skipped: (group, strategy, n, predicted
    seconds) refused over the budget."""
    rng = np.random.default_rng(seed)
    doc = manifest(extra_group)
    rows = []
    for g in doc["cases"][0]["groups"]:
        for s in g["strategies"]:
            for n in SIZES:
                bench = name(g["name"], s["name"], n)
                sk = [p for (gg, ss, nn, p) in skipped if (gg, ss, nn) == (g["name"], s["name"], n)]
                t = (times or {}).get((g["name"], s["name"], n), PER_N[s["name"]] * n)
                for rep in range(5):
                    rows.append(skip(bench, rep, sk[0]) if sk else
                                iteration(bench, rep, t * float(np.exp(rng.normal(0, 0.01)))))
    return {"context": {"hb_build_flags": " -O2", "hb_manifest": json.dumps(doc)},
            "benchmarks": rows}


def instructions(scale=None, extra_group=False):
    groups = ("demo", "demo-new") if extra_group else ("demo",)
    return {"valgrind": "valgrind-test", "benchmarks": {
        name(g, s, 1000): {"instructions": 100 * v, "iterations": 100,
                           "per_iteration": v * (scale or {}).get(s, 1.0)}
        for g in groups for s, v in IR.items() if not (g == "demo-new" and s == "table")}}


def write(path, files):
    os.makedirs(path)
    files = dict(files, **{"fingerprint.json": {"cpu_model": "test"},
                           "settings.json": {"selection": "manifest"}})
    for f, doc in files.items():
        with open(os.path.join(path, f), "w") as out:
            json.dump(doc, out)


def compare(work, current):
    r = subprocess.run(["/usr/bin/python3", "-B", GATE, "compare", "--baseline",
                        os.path.join(work, "baseline"), "--current", os.path.join(work, current)],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def regressed(out, bench, chk):
    return any(l.startswith("REGRESSED " + bench) and "[" + chk in l for l in out.splitlines())


quadratic = {("demo", "table", n): PER_N["table"] * n * n / 1000 for n in SIZES}
# name, the current run's files, expected exit, (benchmark prefix, check) it must name
CASES = [
    ("unchanged", {"run.json": run(3), "instructions.json": instructions()}, 0, None),
    ("loop 2x slower", {"run.json": run(4, {("demo", "loop", n): 2 * PER_N["loop"] * n
                                             for n in SIZES}),
                        "instructions.json": instructions()}, 1, ("demo/loop/n:", "speed")),
    ("table quadratic", {"run.json": run(5, quadratic), "instructions.json": instructions()}, 1,
     ("demo/table/n:*", "complexity")),
    ("loop +10% instructions", {"run.json": run(6), "instructions.json":
                                instructions({"loop": 1.1})}, 1,
     ("demo/loop/n:1000/", "instructions")),
    ("table skipped at 1e6 over the budget", {"run.json": run(7, skipped=[
        ("demo", "table", 1000000, 10 * PER_N["table"] * 1e6)]),
        "instructions.json": instructions()}, 1, ("demo/table/n:1000000/", "complexity")),
    ("a group the baseline lacks", {"run.json": run(8, extra_group=True),
                                    "instructions.json": instructions(extra_group=True)}, 0, None),
]

m = Manifest(manifest(), "test")
check(selection_filter(m, "select") == "^(demo/)" and
      selection_filter(m, "ir_select") == "^(demo/([^/]+/n:1000/))",
      "the selection is built from gate.select and gate.ir_select: %s, %s" % (
          selection_filter(m, "select"), selection_filter(m, "ir_select")))

with tempfile.TemporaryDirectory() as work:
    write(os.path.join(work, "baseline"), {
        "run-1.json": run(1), "run-2.json": run(2),
        "instructions-1.json": instructions(), "instructions-2.json": instructions()})
    for i, (what, files, status, expect) in enumerate(CASES):
        write(os.path.join(work, str(i)), files)
        rc, out = compare(work, str(i))
        check(rc == status, "%s: exit %d (want %d)" % (what, rc, status))
        if expect:
            check(regressed(out, *expect), "%s: REGRESSED %s... [%s]" % ((what,) + expect))
        else:
            check("REGRESSED" not in out, "%s: nothing regressed" % what)
        if what == "unchanged":
            rows = [name("demo", s, n) for s in PER_N for n in SIZES] + [
                "demo/loop/n:*", "demo/table/n:*", "demo/loop/n:1e+07 (predicted)"]
            missing = [r for r in rows if not any(l.startswith(r + " ")
                                                  for l in out.splitlines())]
            check(not missing, "unchanged: the demo group's rows are in the table (missing: %s)"
                  % (missing or "none"))
            check(any(l.startswith(name("demo", "loop", 1000)) and " pass " in l
                      for l in out.splitlines()), "unchanged: demo/loop/n:1000 passes")
        if what == "a group the baseline lacks":
            check(any(l.startswith("demo-new/loop/n:1000/") and "not in the baseline" in l
                      for l in out.splitlines()),
                  "the new group's rows are in the table, not in the baseline")
        if rc != status or "Traceback" in out or os.environ.get("HB_TEST_VERBOSE"):
            print(out)

    # A group whose yardstick is null is not speed-gated: its rows say so (not "no reference
    # row None").
    def no_yardstick(doc):
        m = json.loads(doc["context"]["hb_manifest"])
        m["cases"][0]["groups"][0]["yardstick"] = None
        doc["context"]["hb_manifest"] = json.dumps(m)
        return doc
    write(os.path.join(work, "nobase"), {"run-1.json": no_yardstick(run(1)),
                                         "run-2.json": no_yardstick(run(2))})
    write(os.path.join(work, "nocur"), {"run.json": no_yardstick(run(3))})
    r = subprocess.run(["/usr/bin/python3", "-B", GATE, "compare", "--baseline",
                        os.path.join(work, "nobase"), "--current", os.path.join(work, "nocur")],
                       capture_output=True, text=True)
    line = next((l for l in r.stdout.splitlines() if l.startswith(name("demo", "loop", 1000))),
                "")
    check(r.returncode == 0 and "None" not in r.stdout and "not speed-gated" in line,
          "a group without a yardstick: its rows are not speed-gated (exit %d: %s)"
          % (r.returncode, line.strip() or r.stderr.strip()[-200:]))
    # a current run without any benchmark compares nothing: not a pass
    write(os.path.join(work, "empty"), {"run.json": dict(run(3), benchmarks=[])})
    rc, out = compare(work, "empty")
    check(rc == 2 and "nothing to compare" in out,
          "a current run with no benchmark: exit %d (want 2)" % rc)
    line = next((l for l in r.stdout.splitlines() if l.startswith("demo/loop/n:*")), "")
    check("not gated" in line and "too few" not in line,
          "a group without a yardstick: its complexity rows say it is not gated (%s)"
          % line.strip())
done()

#!/usr/bin/python3
"""test_compare_manifest.py [SRCDIR] - the compare knows a case from its description alone: with a
made-up manifest (a "demo" case: one group, its yardstick "ref", two strategies, one view, and a
group the gate does not select), the gate's selection (hotbench.selection) picks exactly the
described rows, the complexity check fits the demo strategies along the demo view and labels a
strategy made quadratic, and make bench-ci on a history of one commit records the head's run into
the history (exit 0) with a stand-in hotbench that prints that manifest. No real hotbench, no
valgrind; fixed seeds."""

import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 and os.path.isdir(sys.argv[1]) \
    else os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "scripts"))

from hotbench.compare import checks  # noqa: E402
from hotbench.compare.trials import Samples  # noqa: E402
from hotbench.manifest import Manifest  # noqa: E402
from hotbench.selection import selection_filter  # noqa: E402

SIZES = (1000, 10000, 100000, 1000000)
PER_N = {"ref": 1e-9, "loop": 3e-9, "table": 2e-9}  # seconds per unit of n


def strategy(name, role="strategy"):
    return {"name": name, "role": role, "complexity": 1, "model": "power"}


def group(name, strategies, gate):
    view = {"key": name, "title": name + " scaled", "x": "n", "x_label": "n", "unit": "B",
            "fixed": {}, "production": 1e7, "production_label": "10 MB", "items_per_x": 1,
            "per_label": "time per byte (ns/B)", "per_scale": 1e9, "fit_from": "",
            "charts": ["table", "scaling"]}
    return {"name": name, "title": name, "about": "One iteration reads n bytes.",
            "reference": "ref", "yardstick": "ref", "strategies": strategies,
            "views": [view], "gate": gate}


def manifest_doc():
    groups = [group("demo", [strategy("ref", "ceiling"), strategy("loop"), strategy("table")],
                    {"select": "", "ir_select": "[^/]+/n:1000/"}),
              group("demo-off", [strategy("ref", "ceiling")], {"select": None})]
    return {"schema": "hotbench-manifest/1",
            "cases": [{"name": "demo", "title": "A made-up case", "incident": "none",
                       "groups": groups, "e2e": [], "peers": [], "peers_driver": None}]}


def names(grp, strategies=PER_N):
    return ["%s/%s/n:%d/real_time" % (grp, s, n) for s in strategies for n in SIZES]


class Selection(unittest.TestCase):
    def test_the_description_selects(self):
        m = Manifest(manifest_doc(), "test")
        timed, counted = selection_filter(m), selection_filter(m, "ir_select")
        every = names("demo") + names("demo-off", ["ref"])
        self.assertEqual([n for n in every if re.search(timed, n)], names("demo"))
        self.assertEqual([n for n in every if re.search(counted, n)],
                         ["demo/%s/n:1000/real_time" % s for s in PER_N])


def samples(quadratic=None, seed=3):
    """Samples of 6 processes an arm along the demo view, 1% noise; quadratic: a strategy whose
    head time grows as n^2 (equal to the base at the smallest size)."""
    rng = np.random.default_rng(seed)
    s = Samples()
    for label in ("base", "head"):
        for _ in range(6):
            row = {}
            for strat, per in PER_N.items():
                for n in SIZES:
                    t = per * n
                    if label == "head" and strat == quadratic:
                        t *= n / SIZES[0]
                    t *= float(np.exp(rng.normal(0, 0.01)))
                    row["demo/%s/n:%d/real_time" % (strat, n)] = (t, t)
            s.runs.append((label, row))
            s.copy.append(1)
    for strat in PER_N:
        for n in SIZES:
            name = "demo/%s/n:%d/real_time" % (strat, n)
            s.family[name], s.params[name] = "demo/" + strat, {"n": n}
    return s


class Complexity(unittest.TestCase):
    def run_check(self, quadratic):
        s = samples(quadratic)
        rows = {n: checks.new_row(s, n) for n in s.family}
        for row in rows.values():
            row["time"] = {"verdict": "regressed" if quadratic and
                           row["family"] == "demo/" + quadratic else "same"}
        checks.complexity(rows, s, Manifest(manifest_doc(), "test"), None)
        return {n: [c for c in r["checks"] if c["kind"] == "complexity"] for n, r in rows.items()}

    def test_a_quadratic_strategy_is_labelled_at_its_largest_size(self):
        found = self.run_check("loop")
        labelled = [n for n, c in found.items() if c]
        self.assertEqual(labelled, ["demo/loop/n:1000000/real_time"])
        self.assertIn("1.00 -> 2.00", found[labelled[0]][0]["text"])

    def test_unchanged_strategies_are_not(self):
        self.assertFalse(any(self.run_check(None).values()))


STAND_IN = r'''#!/usr/bin/python3
import json, sys
MANIFEST = %s
args = sys.argv[1:]
if "--help" in args:
    print("--hb_manifest --hb_profile --hb_budget --hb_repetitions"); sys.exit(0)
if "--hb_manifest" in args:
    print(json.dumps(MANIFEST)); sys.exit(0)
out = [a.split("=", 1)[1] for a in args if a.startswith("--benchmark_out=")][0]
rows = [{"name": "demo/ref/n:%%d/real_time" %% n, "run_name": "demo/ref/n:%%d/real_time" %% n,
         "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
         "iterations": 10, "real_time": n * 1.0, "cpu_time": n * 1.0, "time_unit": "ns"}
        for n in (1000, 10000)]
json.dump({"context": {"hb_git_revision": "stand-in", "hb_manifest": json.dumps(MANIFEST)},
           "benchmarks": rows}, open(out, "w"))
'''


def git(repo, *args):
    subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True)


class OneCommit(unittest.TestCase):
    def test_a_history_of_one_commit_records_the_head(self):
        """make bench-ci in a clone of one commit: no base, so the head's run of the gate's
        selection is recorded into the history, it says so, exit 0."""
        repo = tempfile.mkdtemp(prefix="hb-onecommit-")
        try:
            shutil.copytree(os.path.join(SRC, "scripts"), os.path.join(repo, "scripts"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            git(repo, "init", "-q")
            git(repo, "add", "scripts")
            git(repo, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "one")
            os.makedirs(os.path.join(repo, "build-ci"))
            binary = os.path.join(repo, "build-ci", "hotbench")
            with open(binary, "w") as f:
                f.write(STAND_IN % repr(manifest_doc()))
            os.chmod(binary, os.stat(binary).st_mode | stat.S_IXUSR)
            db = os.path.join(repo, "history.sqlite")
            env = {k: v for k, v in os.environ.items() if k != "HB_BASE"}
            env["HB_HISTORY"] = db
            p = subprocess.run(["/usr/bin/python3", os.path.join(repo, "scripts", "compare.py"),
                                "--ci", "--head-build", os.path.join(repo, "build-ci")],
                               capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("no base revision", p.stdout)
            self.assertIn("recorded", p.stdout)
            con = sqlite3.connect(db)
            self.assertEqual(con.execute("select count(*) from runs").fetchone()[0], 1)
            con.close()
        finally:
            shutil.rmtree(repo, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=1)

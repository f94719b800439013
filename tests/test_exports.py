#!/usr/bin/python3
"""test_exports.py - the exports services accept (scripts/hotbench/exports.py, docs/ci.md).

Each export is parsed with strict JSON parsers (Python's json with NaN/Infinity refused, and
node's JSON.parse where node is installed) and checked against its consumer's documented shape:
  bmf.json  Bencher Metric Format (https://bencher.dev/docs/reference/bencher-metric-format/):
            {benchmark: {measure: {"value": number, "lower_value"?, "upper_value"?}}},
            lower_value <= value <= upper_value
  gab.json  github-action-benchmark customSmallerIsBetter (its src/extract.ts): an array of
            {"name": str, "unit": str, "value": finite number, "range"?: str, "extra"?: str},
            names unique
on the committed reference run (results/reference/run.json: 164 bare NaN, skipped rows,
aggregates, _BigO/_RMS rows), on made-up runs and compares, and through the three writers (the
recording path's, the compare's, the gate's). The figures are recomputed here from the raw
google-benchmark JSON. Last, google-benchmark's own compare.py (Debian's libbenchmark-tools)
reads the reference run and a copy with every time scaled by 1.1 and lists every benchmark.
Correctness only, never timings."""

import hashlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
REFERENCE = os.path.join(SRC, "results", "reference", "run.json")
sys.path.insert(0, os.path.join(SRC, "scripts"))

from hotbench import exports  # noqa: E402
from hotbench.compare import table  # noqa: E402
from hotbench.compare.arms import Arm  # noqa: E402
from hotbench.compare.engine import Result  # noqa: E402

SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}  # google-benchmark time_unit -> ns
AGGREGATE_SUFFIXES = ("_mean", "_median", "_stddev", "_cv", "_BigO", "_RMS")


def _refuse(token):
    raise ValueError("non-standard JSON constant %s" % token)


def strict_load(path):
    """Python's json, refusing NaN, Infinity and -Infinity (RFC 8259 has none of them)."""
    with open(path) as f:
        return json.load(f, parse_constant=_refuse)


def node_parse(paths):
    """(ran, error): node's JSON.parse over each file; ran False when node is absent."""
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        return False, None
    p = subprocess.run([node, "-e", "const fs = require('fs');"
                        "for (const p of process.argv.slice(1)) {"
                        "  try { JSON.parse(fs.readFileSync(p, 'utf8')); }"
                        "  catch (e) { console.error(p + ': ' + e.message); process.exit(1); } }",
                        *paths], capture_output=True, text=True)
    return True, (p.stderr.strip() or "exit %d" % p.returncode) if p.returncode else None


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def bmf_problems(doc):
    """What breaks the BMF shape (an empty list when none)."""
    if not isinstance(doc, dict) or not doc:
        return ["not a non-empty object"]
    out = []
    for name, measures in doc.items():
        if not name or not isinstance(measures, dict) or not measures:
            out.append("%r: not a non-empty object of measures" % name)
            continue
        for slug, m in measures.items():
            where = "%s / %s" % (name, slug)
            if not slug or not isinstance(m, dict) or not is_number(m.get("value")):
                out.append("%s: no numeric value" % where)
                continue
            extra = set(m) - {"value", "lower_value", "upper_value"}
            if extra:
                out.append("%s: unknown fields %s" % (where, sorted(extra)))
            lo, hi = m.get("lower_value", m["value"]), m.get("upper_value", m["value"])
            if not (is_number(lo) and is_number(hi) and lo <= m["value"] <= hi):
                out.append("%s: not lower <= value <= upper: %r" % (where, m))
    return out


def gab_problems(doc):
    """What breaks the customSmallerIsBetter shape (an empty list when none)."""
    if not isinstance(doc, list) or not doc:
        return ["not a non-empty array"]
    out, seen = [], set()
    for e in doc:
        if not isinstance(e, dict):
            out.append("%r: not an object" % (e,))
            continue
        if not isinstance(e.get("name"), str) or not e["name"]:
            out.append("%r: no name" % (e,))
        elif e["name"] in seen:
            out.append("%s: name twice" % e["name"])
        seen.add(e.get("name"))
        if not isinstance(e.get("unit"), str) or not e["unit"]:
            out.append("%r: no unit" % (e,))
        if not is_number(e.get("value")):
            out.append("%r: value not a finite number" % (e,))
        for k in ("range", "extra"):
            if k in e and not isinstance(e[k], str):
                out.append("%r: %s not a string" % (e, k))
        if set(e) - {"name", "unit", "value", "range", "extra"}:
            out.append("%r: unknown fields" % (e,))
    return out


def measured(raw):
    """{run_name: {"cpu": [ns], "wall": [ns]}} of the iteration rows that ran (no error), read
    from the raw google-benchmark document independently of the code under test."""
    out = {}
    for b in raw["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred") or \
                b["name"].endswith(AGGREGATE_SUFFIXES):
            continue
        f = out.setdefault(b.get("run_name") or b["name"], {"cpu": [], "wall": []})
        for key, field in (("cpu", "cpu_time"), ("wall", "real_time")):
            if math.isfinite(b[field]):
                f[key].append(b[field] * SCALE[b["time_unit"]])
    return {k: v for k, v in out.items() if v["cpu"] or v["wall"]}


class Checkers(unittest.TestCase):
    """The shape checks below can fail: each rejects what the formats forbid."""

    def test_bmf_checker_rejects(self):
        good = {"b": {"latency": {"value": 2.0, "lower_value": 1.0, "upper_value": 3.0}}}
        self.assertEqual(bmf_problems(good), [])
        for bad in ({}, [], {"b": {}}, {"b": {"latency": {"lower_value": 1.0}}},
                    {"b": {"latency": {"value": True}}},
                    {"b": {"latency": {"value": 2.0, "lower_value": 2.5}}},
                    {"b": {"latency": {"value": 2.0, "upper_value": 1.5}}},
                    {"b": {"latency": {"value": 2.0, "median": 2.0}}}):
            self.assertNotEqual(bmf_problems(bad), [], bad)

    def test_gab_checker_rejects(self):
        good = [{"name": "a", "unit": "ns/iter", "value": 1.5, "range": "± 1", "extra": "x"}]
        self.assertEqual(gab_problems(good), [])
        for bad in ([], {}, [{"name": "a", "unit": "ns/iter"}],
                    [{"name": "a", "unit": "ns/iter", "value": "1"}],
                    [{"name": "a", "value": 1}], [{"name": "", "unit": "ns", "value": 1}],
                    good + good, [{"name": "a", "unit": "ns", "value": 1, "range": 3}]):
            self.assertNotEqual(gab_problems(bad), [], bad)

    def test_strict_parsers_refuse_nan(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "nan.json")
            with open(p, "w") as f:
                f.write('{"a": NaN}')
            with self.assertRaises(ValueError):
                strict_load(p)
            ran, err = node_parse([p])
            if not ran:
                print("node absent: node's JSON.parse checks skipped", file=sys.stderr)
            else:
                self.assertIsNotNone(err)


class ReferenceRun(unittest.TestCase):
    """The committed reference run: the file whose NaN the services refused (issue 14)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hb-exports-")
        cls.run_path = os.path.join(cls.tmp, "20260101T000000Z-0123456789ab.json")
        shutil.copy(REFERENCE, cls.run_path)
        with open(cls.run_path, "rb") as f:
            cls.digest = hashlib.sha256(f.read()).hexdigest()
        cls.gab, cls.bmf = exports.export_run(cls.run_path)
        with open(REFERENCE) as f:
            cls.want = measured(json.load(f))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_input_is_the_hard_case(self):
        with self.assertRaises(ValueError):  # it does hold bare NaN
            strict_load(REFERENCE)
        self.assertGreater(len(self.want), 100)

    def test_written_beside_the_run(self):
        d = os.path.join(self.tmp, "20260101T000000Z-0123456789ab.exports")
        self.assertEqual((self.gab, self.bmf), (os.path.join(d, "gab.json"),
                                                os.path.join(d, "bmf.json")))
        with open(self.run_path, "rb") as f:  # the run JSON itself is left as written
            self.assertEqual(hashlib.sha256(f.read()).hexdigest(), self.digest)

    def test_strict_json(self):
        strict_load(self.gab)
        strict_load(self.bmf)
        ran, err = node_parse([self.gab, self.bmf])
        if not ran:
            print("node absent: node's JSON.parse checks skipped", file=sys.stderr)
        self.assertIsNone(err)

    def test_bmf_shape_and_figures(self):
        doc = strict_load(self.bmf)
        self.assertEqual(bmf_problems(doc), [])
        self.assertEqual(set(doc), set(self.want))
        for name, f in self.want.items():
            for slug, key in (("cpu-time", "cpu"), ("latency", "wall")):
                m = doc[name][slug]
                self.assertAlmostEqual(m["value"], statistics.median(f[key]),
                                       delta=1e-9 * m["value"], msg=name)
                self.assertAlmostEqual(m["lower_value"], min(f[key]), delta=1e-9 * m["value"])
                self.assertAlmostEqual(m["upper_value"], max(f[key]), delta=1e-9 * m["value"])

    def test_gab_shape_and_figures(self):
        doc = strict_load(self.gab)
        self.assertEqual(gab_problems(doc), [])
        self.assertEqual(sorted(e["name"] for e in doc), sorted(self.want))
        for e in doc:
            self.assertEqual(e["unit"], "ns/iter")
            self.assertAlmostEqual(e["value"], statistics.median(self.want[e["name"]]["cpu"]),
                                   delta=1e-9 * e["value"], msg=e["name"])

    def test_rows_left_out(self):
        with open(REFERENCE) as f:
            raw = json.load(f)
        ran = set(self.want)
        skipped = {b["run_name"] for b in raw["benchmarks"] if b.get("error_occurred")} - ran
        self.assertTrue(skipped)
        names = {e["name"] for e in strict_load(self.gab)} | set(strict_load(self.bmf))
        self.assertFalse(names & skipped)
        self.assertFalse([n for n in names if n.endswith(AGGREGATE_SUFFIXES)])


def row(name, cpu, real, rep, **kw):
    return dict(dict(name=name, run_name=name, run_type="iteration", repetitions=3,
                     repetition_index=rep, threads=1, iterations=10, real_time=real,
                     cpu_time=cpu, time_unit="us"), **kw)


class MadeUpRun(unittest.TestCase):
    def test_nan_skips_aggregates_and_errors(self):
        nan, inf = float("nan"), float("inf")
        raw = {"context": {}, "benchmarks": [
            row("g/a/n:1", 1.0, 1.5, 0), row("g/a/n:1", nan, 1.6, 1), row("g/a/n:1", 3.0, inf, 2),
            row("g/b/n:1", nan, nan, 0),
            row("g/c/n:1", 0.0, 0.0, 0, error_occurred=True, error_message="skipped: budget"),
            row("g/d/n:1", 0.0, 0.0, 0, error_occurred=True, error_message="error: wrong"),
            dict(row("g/a/n:1_median", 2.0, 2.0, 0), run_type="aggregate",
                 aggregate_name="median", run_name="g/a/n:1"),
            dict(row("g/a/n:1_cv", nan, nan, 0), run_type="aggregate", aggregate_name="cv",
                 run_name="g/a/n:1"),
            dict(name="g/a_BigO", run_name="g/a", run_type="aggregate", aggregate_name="BigO",
                 big_o="N", cpu_coefficient=1.0, real_coefficient=1.0, time_unit="us")]}
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, "r.json")
            with open(run, "w") as f:
                json.dump(raw, f)  # bare NaN and Infinity, as google-benchmark writes them
            logged = []
            out = exports.write_run_exports(run, log=logged.append)
            self.assertEqual(out, os.path.join(d, "r.exports"), logged)
            gab = strict_load(os.path.join(out, "gab.json"))
            bmf = strict_load(os.path.join(out, "bmf.json"))
        self.assertEqual(gab_problems(gab), [])
        self.assertEqual(bmf_problems(bmf), [])
        self.assertEqual([e["name"] for e in gab], ["g/a/n:1"])
        self.assertEqual(gab[0]["value"], 2000.0)  # median of 1 us and 3 us, NaN dropped
        self.assertEqual(bmf, {"g/a/n:1": {
            "cpu-time": {"value": 2000.0, "lower_value": 1000.0, "upper_value": 3000.0},
            "latency": {"value": 1550.0, "lower_value": 1500.0, "upper_value": 1600.0}}})

    def test_a_bad_file_is_said_not_raised(self):
        with tempfile.TemporaryDirectory() as d:
            run = os.path.join(d, "r.json")
            with open(run, "w") as f:
                f.write("[1, 2")
            logged = []
            self.assertIsNone(exports.write_run_exports(run, log=logged.append))
            self.assertIn("none written", logged[0])
            self.assertEqual(exports.main([run]), 1)
            self.assertEqual(exports.main([]), 2)


class CompareOutputs(unittest.TestCase):
    """The compare's output writer (compare/table.write) with made-up rows."""

    def test_compare_exports(self):
        rows = [
            dict(name="g/s/x:1", verdict="same", check="time (interleaved)", ratio=1.01,
                 ci=[0.99, 1.03], head_s=2e-6, base_s=1.98e-6,
                 instructions=dict(verdict="same", ratio=1.0, base=1000.0, head=1000.0)),
            dict(name="g/s/x:2", verdict="inconclusive", check="time", ratio=float("nan"),
                 ci=[float("-inf"), float("inf")], head_s=3e-6),
            dict(name="g/s/x:3", verdict="regressed", check="time (confirmed)", ratio=1.2,
                 ci=[1.25, 1.4], head_s=float("inf")),
            dict(name="g/s/x:4", verdict="not-measured", check="time", ratio=None, ci=None,
                 head_s=None)]
        res = Result(Arm("base", "b"), Arm("head", "h"), rows, 1.0, {})
        with tempfile.TemporaryDirectory() as d:
            table.write(res, d)
            for name in ("compare.json", "bmf.json", "gab.json"):
                strict_load(os.path.join(d, name))
            ran, err = node_parse([os.path.join(d, n) for n in ("bmf.json", "gab.json")])
            self.assertIsNone(err)
            bmf = strict_load(os.path.join(d, "bmf.json"))
            gab = strict_load(os.path.join(d, "gab.json"))
        self.assertEqual(bmf_problems(bmf), [])
        self.assertEqual(gab_problems(gab), [])
        self.assertEqual(bmf["g/s/x:1"], {
            "cpu-time": {"value": 2000.0},
            "ratio": {"value": 1.01, "lower_value": 0.99, "upper_value": 1.03},
            "instructions": {"value": 1000.0}})
        self.assertEqual(bmf["g/s/x:2"], {"cpu-time": {"value": 3000.0}})
        self.assertEqual(bmf["g/s/x:3"], {"ratio": {"value": 1.2}})  # interval misses it
        self.assertNotIn("g/s/x:4", bmf)
        self.assertEqual([(e["name"], e["value"]) for e in gab],
                         [("g/s/x:1", 2000.0), ("g/s/x:2", 3000.0)])
        self.assertIn("change: +1.0% [-1.0%, +3.0%]", gab[0]["extra"])


def google_compare_py():
    """Debian's libbenchmark-tools installs compare.py under /usr/share/benchmark/."""
    try:
        out = subprocess.run(["dpkg", "-L", "libbenchmark-tools"], capture_output=True,
                             text=True).stdout.split()
    except OSError:
        out = []
    found = [p for p in out if p.endswith("/compare.py")]
    return found[0] if found else None


class GoogleBenchmarkTools(unittest.TestCase):
    """run.json stays readable by google-benchmark's own compare.py."""

    def test_compare_py_lists_every_benchmark(self):
        tool = google_compare_py()
        self.assertIsNotNone(tool, "libbenchmark-tools is not installed: scripts/deps.sh")
        with open(REFERENCE) as f:
            raw = json.load(f)
        for b in raw["benchmarks"]:
            if b.get("run_type") == "iteration" and not b.get("error_occurred"):
                b["real_time"] *= 1.1
                b["cpu_time"] *= 1.1
        with tempfile.TemporaryDirectory() as d:
            scaled, dump = os.path.join(d, "scaled.json"), os.path.join(d, "dump.json")
            with open(scaled, "w") as f:
                json.dump(raw, f)
            p = subprocess.run(["/usr/bin/python3", tool, "--no-color", "-d", dump,
                                "benchmarks", REFERENCE, scaled], capture_output=True,
                               text=True, cwd=os.path.dirname(tool))
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            with open(dump) as f:
                listed = json.load(f)
        want = set(measured(raw))
        self.assertTrue(want)
        self.assertEqual(want - {e["name"] for e in listed}, set())
        self.assertEqual([n for n in want if n not in p.stdout], [])
        changes = [e["measurements"][0]["time"] for e in listed
                   if e["name"] in want and e.get("run_type") == "iteration"
                   and e["measurements"][0].get("real_time")]
        self.assertTrue(changes)
        for c in changes:
            self.assertAlmostEqual(c, 0.1, places=6)


if __name__ == "__main__":
    unittest.main(verbosity=1)

#!/usr/bin/env python3
"""test_history_db.py - the history database's recorder, import and backfill
(scripts/hotbench/history/): the committed reference run recorded with the right counts and a
median computed here independently; NaN rows; corrupt, truncated and foreign files refused with
nothing written; a failure inside the transaction leaving nothing; the same file twice = one run;
several processes recording at once into one file; two databases merged; a compare folder; the
backfill's range expansion, resume, build failures, older CLIs and Ctrl-C with its build and run
stubbed. Correctness only, never timings."""

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
SCRIPTS = os.path.join(TOP, "scripts")
sys.path.insert(0, SCRIPTS)

from hotbench.compare.revisions import BuildError  # noqa: E402
from hotbench.history import backfill, importer, schema, store  # noqa: E402
from hotbench.history.fromcompare import from_compare_dir  # noqa: E402
from hotbench.history.machine import local_context  # noqa: E402
from hotbench.history.record import RecordError, from_run_json  # noqa: E402

REFERENCE = os.path.join(TOP, "results", "reference", "run.json")
HISTORY = os.path.join(SCRIPTS, "history.py")
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def count(db, table="runs"):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT COUNT(*) FROM %s" % table).fetchone()[0]
    except sqlite3.OperationalError:  # no table: nothing was ever written
        return 0
    finally:
        con.close()


def run_doc(rev="unknown", rows=(), manifest=True, extra_ctx=None):
    """A small hotbench run JSON: rows are (name, [cpu values], unit), three repetitions."""
    ctx = dict(local_context(), hb_git_revision=rev, hb_profile="full", date="2026-12-01",
               load_avg=[0.5, 0.4, 0.3], hb_compiler=local_context().get("hb_compiler"))
    if manifest:
        ctx["hb_manifest"] = "{}"
    ctx.update(extra_ctx or {})
    bench = []
    for name, values, unit in rows:
        for i, v in enumerate(values):
            bench.append({"name": name, "run_name": name, "run_type": "iteration",
                          "repetitions": len(values), "repetition_index": i, "iterations": 10,
                          "real_time": v, "cpu_time": v, "time_unit": unit})
    return {"context": ctx, "benchmarks": bench}


def write_json(path, doc, allow_nan=True):
    with open(path, "w") as f:
        json.dump(doc, f, allow_nan=allow_nan)
    return path


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hb-history-")
        self.db = os.path.join(self.tmp, "history.sqlite")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def record(self, path, kind="import"):
        con = store.open_db(self.db)
        try:
            return store.write(con, from_run_json(path, kind, TOP))
        finally:
            con.close()

    def query(self, sql, *params):
        con = sqlite3.connect(self.db)
        try:
            return con.execute(sql, params).fetchall()
        finally:
            con.close()


class Reference(Case):
    def test_counts_and_a_median_computed_here(self):
        with open(REFERENCE) as f:
            doc = json.load(f)
        timed = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"
                 and not b.get("error_occurred")]
        names = {b["run_name"] for b in timed}
        run_id, new = self.record(REFERENCE)
        self.assertTrue(new)
        got = dict(self.query("SELECT metric, COUNT(*) FROM measurements GROUP BY metric"))
        self.assertEqual(got, {"cpu_time": len(names), "real_time": len(names)})
        self.assertGreater(len(names), 100)  # the committed full run: hundreds of benchmarks
        # one benchmark in ms: the middle of its three repetitions, in seconds
        b0 = next(b for b in timed if b["time_unit"] == "ms")
        reps = sorted(b["cpu_time"] for b in timed if b["run_name"] == b0["run_name"])
        self.assertEqual(len(reps), 3)
        value, lo, hi, n, verified, unit = self.query(
            "SELECT value, lower, upper, repetitions, verified, unit FROM measurements WHERE "
            "benchmark=? AND metric='cpu_time'", b0["run_name"])[0]
        self.assertAlmostEqual(value, reps[1] * 1e-3, delta=1e-15)
        self.assertAlmostEqual(lo, reps[0] * 1e-3, delta=1e-15)
        self.assertAlmostEqual(hi, reps[2] * 1e-3, delta=1e-15)
        self.assertEqual((n, verified, unit), (3, 1, "s"))
        # every skipped (over the budget) benchmark is absent, and no _BigO/_RMS row
        skipped = {b["run_name"] for b in doc["benchmarks"] if b.get("error_occurred")}
        self.assertTrue(skipped)
        recorded = {r[0] for r in self.query("SELECT DISTINCT benchmark FROM measurements")}
        self.assertFalse(skipped & recorded)
        self.assertFalse([r for r in recorded if r.endswith(("_BigO", "_RMS"))])
        rev, ctime, profile, kind, load = self.query(
            "SELECT revision, commit_time, profile, kind, load FROM runs")[0]
        self.assertTrue(rev.startswith(doc["context"]["hb_git_revision"]), rev)
        self.assertEqual((profile, kind, load), ("full", "import", doc["context"]["load_avg"][0]))
        if len(rev) == 40:  # the commit is in this clone: its time, in UTC
            self.assertRegex(ctime, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

    def test_same_file_twice_is_one_run(self):
        first = self.record(REFERENCE)
        again = self.record(REFERENCE)
        self.assertEqual((again[0], again[1]), (first[0], False))
        self.assertEqual(count(self.db), 1)
        with open(REFERENCE) as f:  # cpu_time and real_time of each benchmark that was timed
            names = {b["run_name"] for b in json.load(f)["benchmarks"]
                     if b["run_type"] == "iteration" and not b.get("error_occurred")}
        self.assertEqual(count(self.db, "measurements"), 2 * len(names))


class Target(Case):
    """Where a run's own recording goes: --history, --no-history, $HB_HISTORY and its 'off'."""

    def target(self, env, history=None, no_history=False):
        from argparse import Namespace
        from hotbench.history import live
        old = os.environ.pop(store.ENV, None)
        try:
            if env is not None:
                os.environ[store.ENV] = env
            return (live.target(TOP, Namespace(history=history, no_history=no_history)),
                    store.default_path(TOP))
        finally:
            os.environ.pop(store.ENV, None)
            if old is not None:
                os.environ[store.ENV] = old

    def test_rows(self):
        default = os.path.join(TOP, "results", "history.sqlite")
        # (env, --history, --no-history) -> (live.target, store.default_path)
        for env, history, no, want in ((None, None, False, (default, default)),
                                       (self.db, None, False, (self.db, self.db)),
                                       ("off", None, False, (None, default)),
                                       ("off", self.db, False, (self.db, default)),
                                       (None, self.db, True, (None, default))):
            self.assertEqual(self.target(env, history, no), want, (env, history, no))


class Values(Case):
    def test_nan_rows_and_units(self):
        doc = run_doc(rows=[("g/a/n:1", [2.0, float("nan"), 4.0], "us"),
                            ("g/b/n:1", [float("nan")] * 3, "ns"),
                            ("g/c/n:1", [5.0, 1.0, 3.0], "ns")])
        doc["benchmarks"].append({"name": "g/c/n:1_BigO", "run_name": "g/c/n:1",
                                  "run_type": "aggregate", "aggregate_name": "BigO",
                                  "cpu_coefficient": float("nan"), "time_unit": "ns"})
        path = write_json(os.path.join(self.tmp, "nan.json"), doc)
        self.record(path)
        rows = dict((b, (v, n)) for b, v, n in self.query(
            "SELECT benchmark, value, repetitions FROM measurements WHERE metric='cpu_time'"))
        self.assertEqual(set(rows), {"g/a/n:1", "g/c/n:1"})  # all-NaN b is no measurement
        self.assertAlmostEqual(rows["g/a/n:1"][0], 3.0e-6)   # median of the two finite ones
        self.assertEqual(rows["g/a/n:1"][1], 2)
        self.assertAlmostEqual(rows["g/c/n:1"][0], 3.0e-9)

    def test_aggregates_only(self):
        doc = run_doc(manifest=False)
        for agg, v in (("mean", 2.5), ("median", 2.0), ("stddev", 0.5), ("cv", 0.2)):
            doc["benchmarks"].append({"name": "g/a/n:1_" + agg, "run_name": "g/a/n:1",
                                      "run_type": "aggregate", "aggregate_name": agg,
                                      "repetitions": 5, "real_time": v, "cpu_time": v,
                                      "time_unit": "ms"})
        self.record(write_json(os.path.join(self.tmp, "agg.json"), doc))
        self.assertEqual(self.query("SELECT value, repetitions, cv, verified FROM measurements "
                                    "WHERE metric='cpu_time'"), [(2.0e-3, 5, 0.2, None)])


class Refused(Case):
    def refused(self, path, words):
        con = store.open_db(self.db)
        with self.assertRaises(RecordError) as cm:
            store.write(con, from_run_json(path, "import", TOP))
        con.close()
        self.assertIn(path, str(cm.exception))
        for w in words:
            self.assertIn(w, str(cm.exception))
        self.assertEqual(count(self.db), 0)
        self.assertEqual(count(self.db, "measurements"), 0)

    def test_truncated_not_json_and_foreign(self):
        with open(REFERENCE, "rb") as f:
            raw = f.read()
        trunc = os.path.join(self.tmp, "truncated.json")
        with open(trunc, "wb") as f:
            f.write(raw[:len(raw) // 2])
        self.refused(trunc, ["truncated JSON"])
        text = os.path.join(self.tmp, "notes.json")
        with open(text, "w") as f:
            f.write("not json at all\n")
        self.refused(text, ["invalid or truncated JSON"])
        self.refused(write_json(os.path.join(self.tmp, "list.json"), [1, 2]), ["list"])
        gb = run_doc(rows=[("g/a", [1.0], "ns")])
        del gb["context"]["hb_git_revision"]  # google-benchmark's JSON, not hotbench's
        self.refused(write_json(os.path.join(self.tmp, "gb.json"), gb), ["hb_git_revision"])
        empty = run_doc()
        self.refused(write_json(os.path.join(self.tmp, "empty.json"), empty), ["no benchmark"])

    def test_cli_import_names_the_file_and_keeps_the_good_one(self):
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"context": {"hb_git_revision": "x"}, "benchmarks": [')
        good = write_json(os.path.join(self.tmp, "good.json"),
                          run_doc(rows=[("g/a/n:1", [1.0, 2.0, 3.0], "ns")]))
        p = subprocess.run([sys.executable, HISTORY, "import", "--history", self.db, bad, good],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("bad.json", p.stderr)
        self.assertEqual(count(self.db), 1)

    def test_failure_inside_the_transaction_writes_nothing(self):
        rec = from_run_json(write_json(os.path.join(self.tmp, "r.json"), run_doc(
            rows=[("g/a/n:1", [1.0, 2.0, 3.0], "ns")])), "import", TOP)
        rec.measurements.append(dict(rec.measurements[0]))  # a duplicate key: IntegrityError
        con = store.open_db(self.db)
        with self.assertRaises(sqlite3.IntegrityError):
            store.write(con, rec)
        self.assertFalse(con.in_transaction)
        con.close()
        self.assertEqual((count(self.db), count(self.db, "measurements")), (0, 0))


WRITER = r"""
import os, sys, time
sys.path.insert(0, %r)
from hotbench.history import store
from hotbench.history.record import from_run_json
go, db, path = sys.argv[1:4]
rec = from_run_json(path, "bench", %r)  # parsed before the start: the writes collide
while not os.path.exists(go):
    time.sleep(0.001)
con = store.open_db(db)
print(store.write(con, rec)[1])
"""


class Concurrent(Case):
    def test_writers_ending_at_once_lose_nothing(self):
        n, rows = 8, [("g/s%d/n:%d" % (i % 7, i), [1.0, 2.0, 3.0], "ns") for i in range(1500)]
        paths = [write_json(os.path.join(self.tmp, "r%d.json" % i),
                            run_doc(rev="r%d" % i, rows=rows)) for i in range(n)]
        paths.append(paths[0])  # the same file by two processes at once: one run
        go = os.path.join(self.tmp, "go")
        script = WRITER % (SCRIPTS, TOP)
        procs = [subprocess.Popen([sys.executable, "-c", script, go, self.db, p],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for p in paths]
        open(go, "w").close()
        outs = [p.communicate(timeout=120) for p in procs]
        for p, (out, err) in zip(procs, outs):
            self.assertEqual(p.returncode, 0, err)
        self.assertEqual(sorted(o.strip() for o, _ in outs), ["False"] + ["True"] * n)
        self.assertEqual(count(self.db), n)
        self.assertEqual(count(self.db, "measurements"), n * len(rows) * 2)
        self.assertEqual({r[0] for r in self.query("SELECT revision FROM runs")},
                         {"r%d" % i for i in range(n)})


class Merge(Case):
    def test_two_databases_merge_once(self):
        other = os.path.join(self.tmp, "other.sqlite")
        a = write_json(os.path.join(self.tmp, "a.json"), run_doc("ra", [("g/a", [1.0], "ns")]))
        b = write_json(os.path.join(self.tmp, "b.json"), run_doc("rb", [("g/a", [2.0], "ns")]))
        self.record(a)
        con = store.open_db(other)
        store.write(con, from_run_json(a, "bench", TOP))  # the same run on both runners
        store.write(con, from_run_json(b, "bench-ci", TOP))
        con.close()
        for _ in range(2):  # the second merge adds nothing
            s = importer.import_all(self.db, [other], TOP, log=lambda m: None)
            self.assertEqual(s.refused, [])
        self.assertEqual(sorted(self.query("SELECT revision, kind FROM runs")),
                         [("ra", "import"), ("rb", "bench-ci")])
        self.assertEqual(self.query("SELECT m.value FROM measurements m JOIN runs r ON "
                                    "r.id = m.run_id WHERE r.revision='rb' AND "
                                    "m.metric='cpu_time'"), [(2.0e-9,)])

    def test_a_broken_database_is_refused(self):
        bad = os.path.join(self.tmp, "bad.sqlite")
        with open(bad, "wb") as f:
            f.write(store.SQLITE_MAGIC + b"\0" * 100)  # SQLite's header, then garbage
        s = importer.import_all(self.db, [bad], TOP, log=lambda m: None)
        self.assertEqual([p for p, _ in s.refused], [bad])
        self.assertEqual(count(self.db), 0)


def compare_folder(root, rev):
    """A made-up compare folder: one row measured with instructions, one measured without,
    one not measured, one failed in the head; a head trial carrying the context."""
    os.makedirs(os.path.join(root, "trials"))
    rows = [dict(name="g/a/n:1", verdict="same", ratio=1.01, ci=[0.99, 1.03], base_s=1e-6,
                 head_s=1.01e-6, n_base=6, n_head=6,
                 instructions={"verdict": "same", "ratio": 1.0, "base": 500.0, "head": 501.0}),
            dict(name="g/b/n:1", verdict="inconclusive", ratio=0.9, ci=[0.7, 1.2], base_s=2e-6,
                 head_s=1.8e-6, n_base=6, n_head=6, instructions=None),
            dict(name="g/c/n:1", verdict="not-measured", ratio=None, ci=None, base_s=None,
                 head_s=None, n_base=0, n_head=0, instructions=None),
            dict(name="g/d/n:1", verdict="failed", ratio=None, ci=None, base_s=3e-6,
                 head_s=None, n_base=6, n_head=0, instructions=None)]
    write_json(os.path.join(root, "compare.json"), {
        "schema": "hotbench-compare/1", "rows": rows, "settings": {"filter": "^g/"},
        "head": {"commit": "worktree"}}, allow_nan=False)
    write_json(os.path.join(root, "trials", "screen-001-head.json"), run_doc(rev))
    return root


class Compare(Case):
    def test_compare_folder(self):
        folder = compare_folder(os.path.join(self.tmp, "20261202T000000Z-compare"), "abc")
        con = store.open_db(self.db)
        run_id, new = store.write(con, from_compare_dir(folder, "compare", TOP))
        con.close()
        got = {(b, m): (v, lo, hi, n, ver) for b, m, v, lo, hi, n, ver in self.query(
            "SELECT benchmark, metric, value, lower, upper, repetitions, verified FROM "
            "measurements")}
        self.assertEqual(got, {("g/a/n:1", "cpu_time"): (1.01e-6, None, None, 6, 1),
                               ("g/a/n:1", "ratio"): (1.01, 0.99, 1.03, 6, 1),
                               ("g/a/n:1", "instructions"): (501.0, None, None, 1, 1),
                               ("g/b/n:1", "cpu_time"): (1.8e-6, None, None, 6, 1),
                               ("g/b/n:1", "ratio"): (0.9, 0.7, 1.2, 6, 1)})
        self.assertEqual(self.query("SELECT revision, kind, selection FROM runs"),
                         [("abc", "compare", "filter=^g/")])
        s = importer.import_all(self.db, [folder], TOP, log=lambda m: None)  # already there
        self.assertEqual((s.added, s.already), (0, 1))

    def test_imported_compare_folder_is_a_compare(self):
        # the page keeps a compare's figures (the least repetition per process) apart from runs'
        # medians by kind: an imported compare folder must not look like a run
        from hotbench.history import trends
        folder = compare_folder(os.path.join(self.tmp, "20261202T000000Z-compare"), "abc")
        importer.import_all(self.db, [folder], TOP, log=lambda m: None)
        self.assertEqual(self.query("SELECT kind FROM runs"), [("compare",)])
        self.assertEqual([trends.setup_key("m", "full", k).split("|")[2]
                          for k in ("compare", "bench-ci", "import", "bench", "backfill")],
                         ["compare", "compare", "run", "run", "run"])

    def test_not_a_compare(self):
        folder = os.path.join(self.tmp, "x-compare")
        os.makedirs(folder)
        with self.assertRaises(RecordError):
            from_compare_dir(folder, "import", TOP)
        write_json(os.path.join(folder, "compare.json"), {"schema": "other/1", "rows": []})
        with self.assertRaises(RecordError) as cm:
            from_compare_dir(folder, "import", TOP)
        self.assertIn("schema", str(cm.exception))


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def journal_mode(path):
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return con.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        con.close()


def foreign_db(path):
    """Another application's SQLite file: tables users and x, rollback journal (delete)."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = DELETE")
    con.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("CREATE TABLE x (v)")
    con.execute("INSERT INTO users(name) VALUES ('ann')")
    con.commit()
    con.close()
    return path


class OddSources(Case):
    """One odd source is refused with its reason, the others still imported, nothing of it
    written; sqlite3 errors of the target itself still stop the import."""

    def good(self):
        return write_json(os.path.join(self.tmp, "good.json"),
                          run_doc("rgood", [("g/a/n:1", [1.0, 2.0, 3.0], "ns")]))

    def cli(self, *args):
        p = subprocess.run([sys.executable, HISTORY] + list(args), capture_output=True,
                           text=True)
        self.assertNotIn("Traceback", p.stderr)
        return p

    def import_refused(self, bad, words):
        p = self.cli("import", "--history", self.db, bad, self.good())
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        refusal = [l for l in p.stderr.splitlines() if l.startswith("refused: ")]
        self.assertEqual(len(refusal), 1, p.stderr)
        for w in [bad] + words:
            self.assertIn(w, refusal[0])
        self.assertEqual(self.query("SELECT revision FROM runs"), [("rgood",)])
        self.assertEqual(count(self.db, "measurements"), 2)

    def record_refused(self, bad, words):
        db = os.path.join(self.tmp, "record.sqlite")
        p = self.cli("record", "--history", db, bad)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        for w in ["refused", bad] + words:
            self.assertIn(w, p.stderr)
        self.assertEqual(count(db), 0)

    def test_surrogate_name(self):
        bad = write_json(os.path.join(self.tmp, "surrogate.json"),
                         run_doc("rbad", [("g/\ud800/x", [1.0], "ns")]))
        with open(bad) as f:
            self.assertIn("\\ud800", f.read())  # the JSON escape, as the breaker's file
        self.import_refused(bad, ["benchmark name", "is not valid Unicode"])
        self.record_refused(bad, ["is not valid Unicode"])

    def test_bigint_cpu_time(self):
        doc = run_doc("rbad", [("g/x", [1.0], "ns")])
        doc["benchmarks"][0]["cpu_time"] = 10 ** 400
        bad = write_json(os.path.join(self.tmp, "bigint.json"), doc)
        self.import_refused(bad, ["'g/x'", "cpu_time", "is not a finite number"])
        self.record_refused(bad, ["is not a finite number"])

    def test_duplicate_compare_rows(self):
        folder = compare_folder(os.path.join(self.tmp, "dup-compare"), "rbad")
        cj = os.path.join(folder, "compare.json")
        with open(cj) as f:
            doc = json.load(f)
        doc["rows"][1]["name"] = doc["rows"][0]["name"]
        write_json(cj, doc)
        self.import_refused(folder, [cj, "'g/a/n:1'", "two rows"])
        self.record_refused(folder, [cj, "'g/a/n:1'", "two rows"])

    def test_safety_net_rolls_back_one_source(self):
        rec = from_run_json(self.good(), "import", TOP)
        rec.run["digest"] = "other"
        rec.measurements.append(dict(rec.measurements[0]))  # IntegrityError inside write
        bad = write_json(os.path.join(self.tmp, "bad.json"), run_doc("rbad"))
        real = importer.from_run_json

        def parse(path, kind, root):
            return rec if path == bad else real(path, kind, root)
        with mock.patch.object(importer, "from_run_json", parse):
            s = importer.import_all(self.db, [bad, self.good()], TOP, log=lambda m: None)
        self.assertEqual(s.added, 1)
        self.assertEqual([p for p, _ in s.refused], [bad])
        self.assertIn("IntegrityError: UNIQUE constraint failed", s.refused[0][1])
        self.assertEqual(self.query("SELECT revision FROM runs"), [("rgood",)])
        self.assertEqual(count(self.db, "measurements"), 2)

    def test_record_safety_net(self):
        import history  # scripts/history.py, in this process to stub its parser
        rec = from_run_json(self.good(), "import", TOP)
        rec.measurements.append(dict(rec.measurements[0]))  # IntegrityError inside write
        err = []
        with mock.patch.object(history, "from_run_json", lambda *a: rec), \
                mock.patch.object(sys, "stderr", mock.Mock(write=err.append)):
            code = history.main(["record", "--history", self.db, self.good()])
        self.assertEqual(code, 1)
        self.assertIn("refused: %s: IntegrityError: UNIQUE constraint failed" % self.good(),
                      "".join(err))
        self.assertEqual((count(self.db), count(self.db, "measurements")), (0, 0))

    def test_target_errors_still_stop_the_import(self):
        def full(con, rec):
            raise sqlite3.OperationalError("database or disk is full")
        with mock.patch.object(store, "write", full):
            with self.assertRaises(schema.SchemaError) as cm:
                importer.import_all(self.db, [self.good()], TOP, log=lambda m: None)
        self.assertIn(self.db, str(cm.exception))
        self.assertIn("disk is full", str(cm.exception))


class ForeignFiles(Case):
    """A file that is not a hotbench history is refused and left byte for byte as it was."""

    def test_foreign_source_untouched(self):
        src = foreign_db(os.path.join(self.tmp, "foreign.sqlite"))
        before = sha256(src)
        s = importer.import_all(self.db, [src, OddSources.good(self)], TOP, log=lambda m: None)
        self.assertEqual(s.added, 1)
        self.assertEqual(s.refused, [(src, "%s: not a hotbench history database: it holds "
                                           "other tables (users, x) and no hotbench schema"
                                      % src)])
        self.assertEqual(sha256(src), before)
        self.assertEqual(journal_mode(src), "delete")
        self.assertEqual([n for n in os.listdir(self.tmp) if n.startswith("foreign")],
                         ["foreign.sqlite"])  # no -wal, -shm or -journal left beside it

    def test_foreign_target_untouched(self):
        target = foreign_db(os.path.join(self.tmp, "foreign.sqlite"))
        before = sha256(target)
        p = subprocess.run([sys.executable, HISTORY, "import", "--history", target,
                            OddSources.good(self)], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("%s: not a hotbench history database: it holds other tables (users, x)"
                      % target, p.stderr)
        self.assertEqual(sha256(target), before)
        self.assertEqual(journal_mode(target), "delete")
        with self.assertRaises(schema.SchemaError):
            schema.connect(target)
        self.assertEqual(sha256(target), before)

    def test_schema_not_a_number(self):
        other = os.path.join(self.tmp, "beta.sqlite")
        store.open_db(other).close()
        con = sqlite3.connect(other)
        con.execute("UPDATE meta SET value = 'v2-beta' WHERE key = 'schema'")
        con.commit()
        con.close()
        before = sha256(other)
        s = importer.import_all(self.db, [other], TOP, log=lambda m: None)
        self.assertEqual(s.refused, [(other, "%s: history schema 'v2-beta', this code reads 1"
                                      % other)])
        self.assertEqual(sha256(other), before)
        for create in (True, False):
            with self.assertRaises(schema.SchemaError) as cm:
                schema.connect(other, create=create)
            self.assertIn("schema 'v2-beta'", str(cm.exception))

    def test_new_and_empty_targets_initialised_readers_create_nothing(self):
        empty = os.path.join(self.tmp, "empty.sqlite")
        open(empty, "w").close()  # 0 bytes
        for db in (empty, os.path.join(self.tmp, "new.sqlite")):
            s = importer.import_all(db, [OddSources.good(self)], TOP, log=lambda m: None)
            self.assertEqual((s.added, s.refused), (1, []))
            self.assertEqual(count(db), 1)
            self.assertEqual(journal_mode(db), "wal")
        missing = os.path.join(self.tmp, "missing.sqlite")
        with self.assertRaises(schema.SchemaError):
            schema.connect(missing, create=False)
        self.assertFalse(os.path.exists(missing))
        with self.assertRaises(schema.SchemaError) as cm:
            schema.connect(empty + "-none", create=False)  # nothing there either
        self.assertIn("cannot open", str(cm.exception))

    def test_target_as_its_own_source(self):
        logs = []
        importer.import_all(self.db, [OddSources.good(self)], TOP, log=lambda m: None)
        s = importer.import_all(self.db, [self.db], TOP, log=logs.append)
        self.assertEqual((s.added, s.merged, s.already, s.refused), (0, 0, 0, []))
        self.assertEqual(logs, ["%s: skipped: it is the database imported into" % self.db])


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True,
                          text=True).stdout.strip()


FULL_HELP = "--hb_profile=full --hb_budget=SECONDS --hb_repetitions=N --hb_manifest"


class Backfill(Case):
    def setUp(self):
        super().setUp()
        self.repo = os.path.join(self.tmp, "repo")
        os.makedirs(self.repo)
        git(self.repo, "init", "-q", "-b", "main")
        git(self.repo, "config", "user.email", "t@example.com")
        git(self.repo, "config", "user.name", "t")
        self.shas = []
        for i in range(4):
            with open(os.path.join(self.repo, "f"), "w") as f:
                f.write("%d\n" % i)
            git(self.repo, "add", "f")
            git(self.repo, "commit", "-qm", "commit %d" % i)
            self.shas.append(git(self.repo, "rev-parse", "HEAD"))
        self.runs, self.logs = [], []

    def test_range_expansion(self):
        c0, c1, c2, c3 = self.shas
        self.assertEqual(backfill.expand(self.repo, "%s..%s" % (c0, c3)),
                         [(c1, "commit 1"), (c2, "commit 2"), (c3, "commit 3")])
        self.assertEqual(backfill.expand(self.repo, "HEAD~1"), [(c2, "commit 2")])
        for bad in ("nosuch..HEAD", "HEAD..HEAD", "%s..%s" % (c3, c0), "..HEAD", "nosuch"):
            with self.assertRaises(backfill.RangeError, msg=bad):
                backfill.expand(self.repo, bad)
        # a merge: the range follows first parents, the side branch's commit is not built
        git(self.repo, "checkout", "-qb", "side", c3)
        with open(os.path.join(self.repo, "g"), "w") as f:
            f.write("side\n")
        git(self.repo, "add", "g")
        git(self.repo, "commit", "-qm", "side commit")
        git(self.repo, "checkout", "-q", "main")
        git(self.repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
        got = backfill.expand(self.repo, "%s..main" % c3)
        self.assertEqual([s for _, s in got], ["merge side"])

    def make(self, build_fails=(), interrupt=None, help_text=FULL_HELP, **kw):
        def build(sha):
            if sha in build_fails:
                raise BuildError(sha, "commit ?", ["cases/x/y.c:3:1: error: expected ';'"],
                                 "build-rev/%s/build.log" % sha)
            return "/fake/bin-%s/hotbench" % sha

        def run(argv, env, log_path):
            sha = argv[0].split("bin-")[1].split("/")[0]
            out = next(a.split("=", 1)[1] for a in argv if a.startswith("--benchmark_out="))
            doc = run_doc(sha[:12], [("g/a/n:1", [1.0, 2.0, 3.0], "ns")])
            doc["context"]["argv"] = " ".join(argv)  # each run's file differs, as hotbench's
            write_json(out, doc)
            if sha == interrupt:
                raise KeyboardInterrupt
            self.runs.append((sha, argv))
            return 0
        kw.setdefault("filt", "^g/")
        return backfill.Backfill(self.repo, self.db, build=build, run=run,
                                 help_text=lambda b: help_text, log=self.logs.append, **kw)

    def test_resume_and_build_failures(self):
        commits = backfill.expand(self.repo, "HEAD~3..HEAD")
        c1, c2, c3 = (s for s, _ in commits)
        b = self.make(build_fails={c2})
        counts = b.run_all(commits)
        self.assertEqual(counts, {"recorded": 2, "skipped": 0, "not built": 1, "failed": 0})
        self.assertEqual([s for s, _ in self.runs], [c1, c3])  # c3 after the one not built
        # the commit's line, then its outcome: not built, the compiler's first error, the log
        i = next(i for i, m in enumerate(self.logs) if m.startswith("commit 2/3 %s commit 2"
                                                                    % c2[:12]))
        self.assertRegex(self.logs[i + 1], r"^  not built: cases/x/y.c:3:1: error: expected "
                         r"';'; its build log: build-rev/%s/build.log " % c2)
        self.assertEqual(b.not_built, [(c2, "commit 2", "cases/x/y.c:3:1: error: expected ';'")])
        self.assertTrue(any(m.startswith("commit 3/3 %s commit 3" % c3[:12]) for m in self.logs))
        self.assertEqual(sorted(r[0] for r in self.query("SELECT revision FROM runs WHERE "
                                                         "kind='backfill'")), sorted([c1, c3]))
        self.runs, self.logs = [], []
        counts = self.make().run_all(commits)  # again: c1, c3 skipped, c2 built now
        self.assertEqual(counts, {"recorded": 1, "skipped": 2, "not built": 0, "failed": 0})
        self.assertEqual([s for s, _ in self.runs], [c2])
        self.assertTrue(any("already recorded" in m for m in self.logs))
        self.runs = []
        counts = self.make(repetitions=5).run_all(commits)  # another selection: run again
        self.assertEqual(counts["recorded"], 3)
        self.assertEqual(count(self.db), 6)

    def test_ctrl_c_leaves_nothing_of_its_commit(self):
        commits = backfill.expand(self.repo, "HEAD~3..HEAD")
        with self.assertRaises(KeyboardInterrupt):
            self.make(interrupt=commits[1][0]).run_all(commits)
        self.assertEqual([r[0] for r in self.query("SELECT revision FROM runs")], [commits[0][0]])
        left = os.listdir(os.path.join(self.repo, "results", "runs", "backfill"))
        self.assertFalse([n for n in left if n.endswith(".tmp")], left)
        self.assertTrue(any("interrupted at commit 2/3" in m for m in self.logs))

    def test_an_older_cli(self):
        b = self.make(help_text="--hb_profile=full", filt=None)
        argv, notes = b.command("/fake/bin-x/hotbench", "x" * 40, "/tmp/o.json")
        self.assertIsNone(argv)  # no manifest: no default selection
        self.assertTrue(any("FILTER" in n for n in notes))
        b = self.make(help_text="--hb_profile=full")
        argv, notes = b.command("/fake/bin-x/hotbench", "x" * 40, "/tmp/o.json")
        self.assertIn("--benchmark_repetitions=3", argv)
        self.assertNotIn("--hb_budget=0.25", argv)
        self.assertEqual(len(notes), 2)
        commits = backfill.expand(self.repo, "HEAD~1..HEAD")
        counts = self.make(help_text="", filt=None).run_all(commits)
        self.assertEqual(counts["failed"], 1)
        self.assertEqual(count(self.db), 0)


if __name__ == "__main__":
    unittest.main(verbosity=1)

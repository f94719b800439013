#!/usr/bin/env python3
"""test_compare_shards.py [SRCDIR] - the compare cut into shards and merged back
(scripts/hotbench/compare/shards.py, merge.py; docs/compare.md, "Shards"). Correctness only,
nothing is run or timed:
  - the cut: longest processing time first on tables of costs, the same parts from the same
    selection however it is listed, whole strategies, priced from the reference run;
  - one recorded compare (tests/fixtures/compare-shards/compare.json) cut into 2 and 3 shards by
    the cut and merged gives the single compare's rows, checks, strategies and A/A exactly;
    each shard merged alone confirms no fewer regressions (Holm's levels only get stricter);
  - a regression one shard confirms alone that Holm's correction over both shards' tests does
    not; the witness, the acceptance and the complexity label applied again;
  - shards that are not parts of one compare refused, each kind of difference named with both
    folders; a missing shard makes the verdict `incomplete` (exit 2), a not-built one exit 3.

The fixture was recorded with the test hooks' injected slowdown (a build with
-DHB_TEST_HOOKS=ON, one binary in two environments) on the project's 2-vCPU VM:
    scripts/compare.py --build build-hooks --head-env HB_INJECT=slowdown:0.08 \\
      --head-env 'HB_INJECT_SELECT=^(bufgrow/doubling|rfc3339/swar)$' \\
      --filter '^(bufgrow/(doubling|exact|memcpy)/size:(65536|262144|1048576)/|rfc3339/(swar|scalar|int64-binary)/rows:(1000|10000)/)' \\
      --ir-filter '^bufgrow/exact/size:65536/' --seed 1 --out DIR --no-history
(40 s; 15 benchmarks, 6 confirmation tests, 3 rows regressed)."""

import copy
import io
import json
import os
import random
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 and os.path.isdir(sys.argv[1]) \
    else os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "scripts"))

from hotbench import estimate  # noqa: E402
from hotbench.compare import merge, shards  # noqa: E402
from hotbench.compare.engine import Options  # noqa: E402

FIXTURE = os.path.join(SRC, "tests", "fixtures", "compare-shards", "compare.json")
REFERENCE = os.path.join(SRC, "results", "reference", "run.json")


def load_fixture():
    with open(FIXTURE) as f:
        return json.load(f)


def reference_rows():
    with open(REFERENCE) as f:
        return estimate.run_rows(json.load(f), REFERENCE)


def family_of_test(t):
    return t["name"] if t["kind"] == "strategy" else shards.strategy_of(t["name"])


def cut(doc, n, rows):
    """The recorded compare doc as the n shards the cut makes of its selection: each shard's
    rows, strategies, tests and suspects those of its part (the processes all in shard 1)."""
    names = [r["name"] for r in doc["rows"]]
    ir = [r["name"] for r in doc["rows"] if r.get("instructions")]
    out = []
    for i in range(1, n + 1):
        part, record = shards.cut(names, ir, rows, Options(), i, n)
        record.update(filter=doc["settings"]["filter"], ir_filter=doc["settings"]["ir_filter"],
                      instructions=True)
        fams = set(record["parts"][i - 1])
        d = copy.deepcopy(doc)
        d["shard"] = record
        d["rows"] = [r for r in d["rows"] if r["family"] in fams]
        d["strategies"] = [s for s in d["strategies"] if s["family"] in fams]
        c = d["confirmation"]
        c["tests"] = [t for t in c["tests"] if family_of_test(t) in fams]
        c["suspects"] = [s for s in c["suspects"] if s["family"] in fams]
        d["processes"] = d["processes"] if i == 1 else []
        if not part:  # more shards than strategies: as engine.empty_shard leaves it
            d.update(toolchain=None, confirmation=None, aa=None, duration_s=0.0)
        assert sorted(r["name"] for r in d["rows"]) == part
        out.append(("shard-%d" % i, d))
    return out


def approx(v):
    """v with every float rounded to 9 significant digits (lists and tuples too): the recorded
    compare was computed by another numpy and scipy than the one re-deciding it (Debian 12's
    against 13's), whose last bits may differ; 9 digits is far finer than any verdict reads."""
    if isinstance(v, float):
        return float("%.9g" % v)
    if isinstance(v, (list, tuple)):
        return type(v)(approx(x) for x in v)
    return v


def row_view(r):
    return approx((r["name"], r["verdict"], r["check"], r["ratio"], r["ci"], r["p"], r["n_base"],
                   r["n_head"], r["base_s"], r["head_s"], r.get("note")))


def strategy_view(s):
    return approx((s["family"], s["verdict"], s["why"], s["ratio"], s["ci"], s["sizes"],
                   s["timed"]))


def quiet(fn, *args):
    """fn(*args) with its stdout and stderr captured: (result, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        res = fn(*args)
    return res, out.getvalue(), err.getvalue()


class Cut(unittest.TestCase):
    def test_longest_processing_time_first(self):
        rows = [  # {costs, parts, expected, why}
            ({"a": 5, "b": 4, "c": 3, "d": 3, "e": 3}, 2, [["a", "d"], ["b", "c", "e"]],
             "each in decreasing cost to the part with the least so far"),
            ({"y": 1, "x": 1}, 2, [["x"], ["y"]], "equal costs: by name, to the lower index"),
            ({"a": 1}, 3, [["a"], [], []], "fewer strategies than parts: empty parts"),
            ({"a": 2, "b": 1}, 1, [["a", "b"]], "one part holds everything"),
            ({"a": 10, "b": 1, "c": 1, "d": 1}, 2, [["a"], ["b", "c", "d"]],
             "a strategy is never split, however large"),
        ]
        for cost, n, want, why in rows:
            self.assertEqual(shards.split(cost, n), want, why)

    def test_parse(self):
        for text, want in (("1/2", (1, 2)), (" 3 / 3 ", (3, 3)), ("1/1", (1, 1))):
            self.assertEqual(shards.parse(text), want, text)
        for bad in ("0/2", "3/2", "1/0", "2", "a/b", "", "1/2/3", "-1/2"):
            with self.assertRaises(ValueError, msg=bad):
                shards.parse(bad)

    def test_the_same_split_twice(self):
        """The parts depend on the selection and the committed record only: the same however
        the names are listed, whole strategies, together the whole selection, disjoint."""
        doc, rows = load_fixture(), reference_rows()
        names = [r["name"] for r in doc["rows"]]
        for n in (2, 3):
            first = [shards.cut(names, [], rows, Options(), i, n) for i in range(1, n + 1)]
            again = list(reversed(names))
            random.Random(n).shuffle(again)
            second = [shards.cut(again, [], rows, Options(), i, n) for i in range(1, n + 1)]
            self.assertEqual(first, second)
            got = [name for part, _ in first for name in part]
            self.assertEqual(sorted(got), sorted(names))
            for part, record in first:
                self.assertTrue(part)
                whole = {shards.strategy_of(x) for x in part}
                self.assertEqual(whole, set(record["parts"][first.index((part, record))]))
            hashes = {r["selection_sha256"] for _, r in first}
            self.assertEqual(hashes, {shards.selection_hash(names)})

    def test_selection_hash(self):
        a = ["g/s/n:1", "g/s/n:2", "g/t/n:1"]
        self.assertEqual(shards.selection_hash(a), shards.selection_hash(list(reversed(a))))
        self.assertNotEqual(shards.selection_hash(a), shards.selection_hash(a[:2]))

    def test_priced_from_the_record(self):
        """A strategy's cost is its benchmarks' in the record; one the record lacks is priced
        like its neighbours; with no record every benchmark costs the same."""
        rec = {"g/slow/n:1": dict(n=1, t=0.05, reps=1, faults=0, skipped=False),
               "g/fast/n:1": dict(n=1000, t=1e-6, reps=1, faults=0, skipped=False)}
        cost = shards.costs(["g/slow/n:1", "g/fast/n:1", "g/new/n:1"], [], rec, Options())
        self.assertGreater(cost["g/slow"], cost["g/fast"])
        self.assertGreater(cost["g/new"], cost["g/fast"])  # the group's median: between
        self.assertLess(cost["g/new"], cost["g/slow"])
        flat = shards.costs(["a/x/n:1", "a/x/n:2", "a/y/n:1"], [], {}, Options())
        self.assertAlmostEqual(flat["a/x"], 2 * flat["a/y"])


class MergeRecorded(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.doc, cls.rows = load_fixture(), reference_rows()

    def test_fixture_has_what_the_merge_must_redo(self):
        c = self.doc["confirmation"]
        self.assertGreaterEqual(len(c["tests"]), 4)
        self.assertIn("regressed", {r["verdict"] for r in self.doc["rows"]})
        self.assertTrue(any("not confirmed" in r["check"] for r in self.doc["rows"]))

    def test_merged_shards_are_the_single_compare(self):
        fams = len(self.doc["strategies"])
        for n in (2, 3, fams + 1):
            docs = cut(self.doc, n, self.rows)
            self.assertEqual(sum(1 for _, d in docs if not d["rows"]), 1 if n > fams else 0)
            merge.check(docs)
            res = merge.merge(docs, [])
            self.assertEqual([row_view(r) for r in res.rows],
                             [row_view(r) for r in self.doc["rows"]], n)
            self.assertEqual([strategy_view(s) for s in res.strategies],
                             [strategy_view(s) for s in self.doc["strategies"]], n)
            self.assertEqual(res.aa, self.doc["aa"], n)
            self.assertEqual(res.summary, self.doc["summary"], n)
            self.assertEqual(res.exit_code, self.doc["exit_code"], n)
            self.assertEqual(len(res.confirmation["tests"]),
                             len(self.doc["confirmation"]["tests"]))

    def test_a_shard_alone_confirms_no_fewer(self):
        """Each shard merged alone (its own tests only: Holm at its own levels) confirms every
        regression the merge confirms among its rows; the merge may confirm fewer."""
        docs = cut(self.doc, 2, self.rows)
        merged = {r["name"]: r["verdict"] for r in merge.merge(docs, []).rows}
        for d, doc in docs:
            alone = merge.merge([(d, doc)], [])
            self.assertEqual(alone.exit_code, merge.INCOMPLETE)
            for r in alone.rows:
                if merged[r["name"]] == "regressed":
                    self.assertEqual(r["verdict"], "regressed", r["name"])

    def test_main_writes_the_outputs(self):
        with tempfile.TemporaryDirectory() as tmp:
            dirs = []
            for d, doc in cut(self.doc, 2, self.rows):
                os.makedirs(os.path.join(tmp, d))
                with open(os.path.join(tmp, d, "compare.json"), "w") as f:
                    json.dump(doc, f)
                dirs.append(os.path.join(tmp, d))
            out = os.path.join(tmp, "merged")
            rc, stdout, _ = quiet(merge.main, dirs + ["--out", out])
            self.assertEqual(rc, self.doc["exit_code"])
            self.assertEqual(sorted(os.listdir(out)),
                             ["bmf.json", "compare.json", "compare.md", "gab.json"])
            with open(os.path.join(out, "compare.json")) as f:
                got = json.load(f)
            self.assertEqual(got["shards"]["count"], 2)
            self.assertNotIn("verdict", got)
            self.assertEqual([r["verdict"] for r in got["rows"]],
                             [r["verdict"] for r in self.doc["rows"]])
            self.assertEqual({p["shard"] for p in got["processes"]}, {1})
            with open(os.path.join(out, "compare.md")) as f:
                md = f.read()
            self.assertIn("merged from shard 1/2", md)
            self.assertIn("what failed the compare:", md)


def synthetic_doc(fixture, index, count, parts, tests):
    """A shard of made-up suspects: tests {name: (base, head)} (values; copies in turn), each
    a suspect size of its own strategy, its screening runs its confirmation's first six."""
    cop = lambda vs: [[k % 3 + 1, v] for k, v in enumerate(vs)]
    doc = {k: copy.deepcopy(fixture[k]) for k in ("schema", "base", "head", "settings",
                                                  "toolchain")}
    names = sorted(n for p in parts for n in p)
    doc.update(duration_s=60.0, exit_code=0, summary={}, strategies=[], processes=[],
               aa=None, shard=dict(index=index, count=count, benchmarks=len(names),
                                   selection_sha256=shards.selection_hash(names),
                                   parts=[sorted({shards.strategy_of(n) for n in p})
                                          for p in parts],
                                   filter=fixture["settings"]["filter"],
                                   ir_filter=fixture["settings"]["ir_filter"],
                                   instructions=True))
    doc["rows"] = [dict(name=n, family=shards.strategy_of(n), params={}, note="", copies=None,
                        instructions=None, verdict="regressed", check="stub",
                        checks=[dict(kind="time", verdict="regressed", text="stub")])
                   for n in sorted(tests)]
    doc["confirmation"] = dict(alpha=0.05, tests=[
        dict(kind="size", name=n, base=cop(b), head=cop(h)) for n, (b, h) in tests.items()],
        suspects=[dict(name=n, family=shards.strategy_of(n), screen_ratio=h[0] / b[0],
                       screen=dict(base=b[:6], head=h[:6])) for n, (b, h) in tests.items()])
    return doc


class Holm(unittest.TestCase):
    """A +4% that one shard's single test confirms at 95%, but not at 1 - 0.05/2 once the other
    shard's test (no change) counts too (tests/test_compare.py checks step_down itself)."""
    base = [1.0 + 0.01 * k for k in range(10)]

    def docs(self):
        fix = load_fixture()
        weak = {"g/weak/n:1": (self.base, [b * 1.04 for b in self.base])}
        null = {"g/null/n:1": (self.base, list(self.base))}
        parts = [sorted(weak), sorted(null)]
        return [("a", synthetic_doc(fix, 1, 2, parts, weak)),
                ("b", synthetic_doc(fix, 2, 2, parts, null))]

    def test_the_merge_corrects_for_every_shard(self):
        docs = self.docs()
        alone = merge.merge(docs[:1], [])
        self.assertEqual(alone.rows[0]["verdict"], "regressed")
        self.assertIn("confirmed at 95.0% (Holm)", alone.rows[0]["check"])
        both = merge.merge(docs, [])
        weak = [r for r in both.rows if r["name"] == "g/weak/n:1"][0]
        self.assertEqual(weak["verdict"], "inconclusive")
        self.assertIn("not confirmed", weak["check"])
        self.assertIn("confirmation at 97.5%", weak["check"])
        self.assertEqual(both.exit_code, 0)

    def test_witness_acceptance_and_complexity_applied_again(self):
        docs = self.docs()
        row = docs[0][1]["rows"][0]
        row["witness"] = "cases/g/: byte-identical"
        self.assertEqual(merge.merge(docs[:1], []).rows[0]["verdict"], "inconclusive")
        self.assertIn("no code change: cases/g/", merge.merge(docs[:1], []).rows[0]["check"])
        del row["witness"]
        row["accepted"] = "accepted by results/accepted-slowdowns.tsv:3 (abc): on purpose"
        got = merge.merge(docs[:1], []).rows[0]
        self.assertEqual(got["verdict"], "accepted")
        self.assertTrue(got["check"].endswith("on purpose"))
        merged = [r for r in merge.merge(docs, []).rows if r["name"] == row["name"]][0]
        self.assertEqual(merged["verdict"], "inconclusive")  # no longer regressed: not accepted
        self.assertNotIn("accepted", merged)
        del row["accepted"]
        row["checks"].append(dict(kind="complexity", verdict="regressed",
                                  text="complexity: exponent along n 1.00 -> 2.00"))
        self.assertEqual(merge.merge(docs[:1], []).rows[0]["check"].count("complexity"), 1)
        merged = [r for r in merge.merge(docs, []).rows if r["name"] == row["name"]][0]
        self.assertNotIn("complexity", merged["check"])
        self.assertIn("2.00 (no size confirmed slower)", merged["note"])


class Refusals(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.docs = cut(load_fixture(), 2, reference_rows())

    def test_each_difference_is_named(self):
        def setting(key, value):
            return lambda d: d["settings"].__setitem__(key, value)
        rows = [  # {what is changed in shard 2, the key the error names}
            (lambda d: d["shard"].__setitem__("selection_sha256", "0" * 64),
             "shard.selection_sha256"),
            (lambda d: d["shard"].__setitem__("count", 3), "shard.count"),
            (lambda d: d["shard"]["parts"].reverse(), "shard.parts"),
            (lambda d: d["shard"].__setitem__("filter", "^x/"), "shard.filter"),
            (lambda d: d["base"].__setitem__("commit", "f" * 40), "base.commit"),
            (lambda d: d["head"].__setitem__("sha256", "e" * 64), "head.sha256"),
            (lambda d: d["head"].__setitem__("env", {}), "head.env"),
            (setting("blocks", 5), "settings.blocks"),
            (setting("confirm_blocks", 9), "settings.confirm_blocks"),
            (setting("repetitions", 3), "settings.repetitions"),
            (setting("min_effect", 0.05), "settings.min_effect"),
            (setting("copies", 1), "settings.copies"),
            (lambda d: d["toolchain"]["head"].__setitem__("hb_compiler", "other 1.0"),
             "toolchain.head"),
        ]
        for change, key in rows:
            docs = copy.deepcopy(self.docs)
            change(docs[1][1])
            with self.assertRaises(merge.MergeError, msg=key) as cm:
                merge.check(docs)
            msg = str(cm.exception)
            self.assertIn(key, msg)
            self.assertIn("shard-1", msg)
            self.assertIn("shard-2", msg)

    def test_a_second_round_of_one_shard_is_no_difference(self):
        # shard 2 ran a second confirmation round: its arms ran from 3 + 8 files
        docs = copy.deepcopy(self.docs)
        for arm in ("base", "head"):
            docs[1][1][arm]["copies"] = 11
        merge.check(docs)
        res = merge.merge(docs, [])
        self.assertEqual([a.describe()["copies"] for a in (res.base, res.head)], [11, 11])

    def test_not_a_shard_or_twice(self):
        docs = copy.deepcopy(self.docs)
        docs[1][1]["shard"]["index"] = 1
        with self.assertRaisesRegex(merge.MergeError, "shard 1/2 twice"):
            merge.check(docs)
        docs = copy.deepcopy(self.docs)
        del docs[1][1]["shard"]
        with self.assertRaisesRegex(merge.MergeError, "is no shard"):
            merge.check(docs)
        docs = copy.deepcopy(self.docs)
        docs[0][1]["settings"]["alpha"] = 0.1
        with self.assertRaisesRegex(merge.MergeError, "alpha"):
            merge.check(docs)

    def test_refused_exit_2_and_nothing_written(self):
        with tempfile.TemporaryDirectory() as tmp:
            dirs = write_dirs(tmp, self.docs)
            with open(os.path.join(dirs[1], "compare.json")) as f:
                doc = json.load(f)
            doc["head"]["commit"] = "f" * 40
            with open(os.path.join(dirs[1], "compare.json"), "w") as f:
                json.dump(doc, f)
            out = os.path.join(tmp, "merged")
            rc, _, err = quiet(merge.main, dirs + ["--out", out])
            self.assertEqual(rc, 2)
            self.assertIn("head.commit", err)
            self.assertFalse(os.path.exists(out))
            with open(os.path.join(dirs[1], "compare.json"), "w") as f:
                f.write("{not json")
            rc, _, err = quiet(merge.main, dirs + ["--out", out])
            self.assertEqual(rc, 2)
            self.assertIn("cannot read it", err)


def write_dirs(tmp, docs):
    dirs = []
    for d, doc in docs:
        os.makedirs(os.path.join(tmp, d))
        with open(os.path.join(tmp, d, "compare.json"), "w") as f:
            json.dump(doc, f)
        dirs.append(os.path.join(tmp, d))
    return dirs


class Missing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.docs = cut(load_fixture(), 2, reference_rows())

    def test_a_missing_shard_is_incomplete(self):
        with tempfile.TemporaryDirectory() as tmp:
            dirs = write_dirs(tmp, self.docs)
            os.remove(os.path.join(dirs[1], "compare.json"))  # the job left its folder only
            for given in (dirs, dirs[:1]):
                out = os.path.join(tmp, "merged-%d" % len(given))
                rc, stdout, err = quiet(merge.main, given + ["--out", out])
                self.assertEqual(rc, 2)
                with open(os.path.join(out, "compare.json")) as f:
                    got = json.load(f)
                self.assertEqual(got["verdict"], "incomplete")
                self.assertEqual(got["missing"], ["2/2"])
                self.assertEqual(got["exit_code"], 2)
                part = self.docs[1][1]["shard"]["parts"][1]
                self.assertIn("INCOMPLETE: shard 2/2 did not report", stdout)
                self.assertIn(", ".join(part), stdout)
                with open(os.path.join(out, "compare.md")) as f:
                    self.assertIn("verdict: incomplete", f.read())
                if len(given) == 2:  # the folder given without a compare.json is named
                    self.assertIn("shard-2: no compare.json", err)

    def test_nothing_to_merge(self):
        with tempfile.TemporaryDirectory() as tmp:
            rc, _, err = quiet(merge.main, [tmp, "--out", os.path.join(tmp, "m")])
            self.assertEqual(rc, 2)
            self.assertIn("holds a compare.json", err)

    def test_a_revision_not_built(self):
        with tempfile.TemporaryDirectory() as tmp:
            dirs = write_dirs(tmp, self.docs)
            with open(os.path.join(dirs[0], "compare.json"), "w") as f:
                json.dump(dict(schema="hotbench-compare/1", verdict="not built",
                               not_built=["base"], rows=[], exit_code=3), f)
            out = os.path.join(tmp, "m")
            rc, _, err = quiet(merge.main, dirs + ["--out", out])
            self.assertEqual(rc, 3)
            self.assertIn("not built", err)
            with open(os.path.join(out, "compare.json")) as f:
                self.assertEqual(json.load(f)["verdict"], "not built")


if __name__ == "__main__":
    unittest.main(verbosity=1)

#!/usr/bin/env python3
"""test_compare.py - the compare's statistics and decisions (scripts/hotbench/compare/), on
made-up samples: the Mann-Whitney interval ranks against published critical values, the
Hodges-Lehmann estimate, each verdict, the confirmation rule, censored runs, intended slowdowns
accepted only inside base..head, and JSON without NaN. Correctness only, never timings."""

import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

import numpy as np  # noqa: E402

from hotbench.compare import accepted, outliers, rankstats, table, toolchain  # noqa: E402
from hotbench.compare import copies, random_effects, strategies, witness  # noqa: E402
from hotbench.compare.arms import Arm  # noqa: E402
from hotbench.compare.checks import strategy_suspects  # noqa: E402
from hotbench.compare.confirmation import (holm, judge, record, step_down, test_verdict,  # noqa: E402,E501
                                           tests as confirmation_tests)
from hotbench.compare.engine import Options, Result  # noqa: E402
from hotbench.compare import isolation  # noqa: E402
from hotbench.compare.trials import Samples, run_process  # noqa: E402
from hotbench.compare.blocks import align, widened  # noqa: E402
from hotbench.compare import checks  # noqa: E402
from hotbench.compare.verdicts import (combine, instructions_verdict, repeated,  # noqa: E402
                                       time_verdict)


class RankStats(unittest.TestCase):
    def test_interval_ranks_match_the_tables(self):
        # two-sided 5% critical values of U (Hollander-Wolfe table A.6 / any U table):
        # n=m=4: 0 -> k=1; n=m=6: 5 -> k=6; n=m=8: 13 -> k=14; n=m=10: 23 -> k=24
        for n, k in ((4, 1), (6, 6), (8, 14), (10, 24)):
            self.assertEqual(rankstats.ci_rank(n, n, 0.95), k, n)
        self.assertEqual(rankstats.ci_rank(2, 2, 0.95), 0)  # too small for any interval

    def test_u_distribution_sums_to_the_orderings(self):
        from math import comb
        for n, m in ((3, 5), (6, 6), (7, 4)):
            self.assertEqual(sum(rankstats.u_counts(n, m)), comb(n + m, n))

    def test_hodges_lehmann_of_a_pure_shift(self):
        base = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5]
        ratio, lo, hi, p = rankstats.shift(base, [x * 1.25 for x in base])
        self.assertAlmostEqual(ratio, 1.25, places=9)
        self.assertLess(lo, 1.25)
        self.assertGreater(hi, 1.25)

    def test_separated_samples_are_significant(self):
        ratio, lo, hi, p = rankstats.shift([1, 1.01, 0.99, 1.02], [2, 2.1, 1.9, 2.05])
        self.assertGreater(lo, 1.0)
        self.assertAlmostEqual(p, 2 / 70, places=6)  # the exact two-sided p of 4 vs 4

    def test_censored_runs_rank_above(self):
        ratio, lo, hi, p = rankstats.shift([1, 1.1, 0.9, 1.05], [5.0] * 4)
        self.assertGreater(lo, 4.0)  # the limit over the base's largest: a lower bound

    def test_coverage_is_near_95_percent(self):
        rng = np.random.default_rng(7)
        cover = 0
        for _ in range(1000):
            b = np.exp(rng.normal(0, 0.05, 6))
            h = 1.1 * np.exp(rng.normal(0, 0.05, 6))
            _, lo, hi, _ = rankstats.shift(b, h)
            cover += lo <= 1.1 <= hi
        self.assertGreater(cover, 930)


class Verdicts(unittest.TestCase):
    base = [1.00, 1.01, 0.99, 1.00, 1.02, 0.98]

    def v(self, head, e=0.02):
        return time_verdict(self.base, head, e)["verdict"]

    def test_each_verdict(self):
        self.assertEqual(self.v([x * 1.10 for x in self.base]), "regressed")
        self.assertEqual(self.v([x * 0.90 for x in self.base]), "improved")
        tight = [1.0 + i * 1e-3 for i in range(6)]
        self.assertEqual(time_verdict(tight, [x * 1.001 for x in tight], 0.02)["verdict"], "same")
        self.assertEqual(self.v([0.8, 1.3, 0.9, 1.2, 1.0, 1.1]), "inconclusive")

    def test_a_significant_change_under_the_minimum_effect_is_not_a_regression(self):
        tight = [1.0 + i * 1e-4 for i in range(6)]
        self.assertNotEqual(time_verdict(tight, [x * 1.01 for x in tight], 0.02)["verdict"],
                            "regressed")

    def test_the_screening_survives_one_outlying_run(self):
        """6 runs a side, one head run as fast as the base: the 95% interval reaches below 1,
        the screening's 80% one stays above, so the row is still a suspect."""
        from hotbench.compare.checks import SCREEN_CONF
        head = [x * 1.1 for x in self.base[:5]] + [0.95]
        self.assertNotEqual(time_verdict(self.base, head, 0.02)["verdict"], "regressed")
        self.assertEqual(time_verdict(self.base, head, 0.02, conf=SCREEN_CONF)["verdict"],
                         "regressed")

    def test_too_few_runs(self):
        self.assertEqual(time_verdict([1.0], [2.0], 0.02)["verdict"], "inconclusive")

    def test_instructions(self):
        self.assertEqual(instructions_verdict(100, 103, 0.02)["verdict"], "regressed")
        self.assertEqual(instructions_verdict(100, 101, 0.02)["verdict"], "same")
        self.assertEqual(instructions_verdict(100, 90, 0.02)["verdict"], "improved")
        self.assertIsNone(instructions_verdict(None, 90, 0.02))

    def test_a_suspect_needs_the_confirmation(self):
        name = "g/s/size:1/real_time"
        head = [x * 1.1 for x in self.base]
        screen = samples_of({"base": {name: self.base}, "head": {name: head}})
        rows = {name: {"name": name, "family": "g/s",
                       "time": time_verdict(self.base, head, 0.02)}}
        self.assertEqual(rows[name]["time"]["verdict"], "regressed")
        conf = samples_of({"base": {name: self.base}, "head": {name: list(self.base)}})
        tv = judge(rows, screen, conf, [name], Options())[name]
        self.assertNotEqual(tv["verdict"], "regressed")
        self.assertIn("not confirmed", tv["text"])
        conf = samples_of({"base": {name: self.base}, "head": {name: head}})
        tv = judge(rows, screen, conf, [name], Options())[name]
        self.assertEqual(tv["verdict"], "regressed")
        self.assertIn("confirmed at 95.0% (Holm)", tv["text"])

    def test_holm_widens_the_interval_with_the_number_of_tests(self):
        base = [1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02]
        weak = ([x * 1.03 for x in base[::-1]], base)
        strong = ([x * 1.2 for x in base], base)
        weak, strong = [tuple(copied(x) for x in pair) for pair in (weak, strong)]
        base = copied(base)
        one = step_down({"w": (weak[1], weak[0])}, Options())
        self.assertEqual(one["w"]["verdict"], "regressed")
        many = step_down(dict({"w": (weak[1], weak[0])},
                              **{"u%d" % i: (base, base[::-1]) for i in range(19)}), Options())
        self.assertNotEqual(many["w"]["verdict"], "regressed")
        self.assertAlmostEqual(many["w"]["conf"], 1 - 0.05 / 20)
        # the strong ones leave first, and the weak one is tried again at a narrower level
        out = step_down(dict({"w": (weak[1], weak[0])},
                             **{"s%d" % i: (strong[1], strong[0]) for i in range(3)}), Options())
        self.assertEqual({k: v["verdict"] for k, v in out.items()},
                         dict(w="regressed", s0="regressed", s1="regressed", s2="regressed"))
        self.assertAlmostEqual(out["w"]["conf"], 0.95)

    def test_a_moved_count_stands_only_when_it_repeats(self):
        iv = instructions_verdict(1.407e7, 1.461e7, 0.02)  # the CI failure's expat-tree row
        self.assertEqual(iv["verdict"], "regressed")
        self.assertEqual(repeated(iv, 1.407e7, 1.461e7, 0.02)["verdict"], "regressed")
        # the head's second count fell back: one binary, two counts 5% apart
        shaky = repeated(iv, 1.39e7, 1.39e7, 0.02)
        self.assertEqual(shaky["verdict"], "inconclusive")
        self.assertIn("1.461e+07 then 1.39e+07", shaky["why"])
        # each arm drifted 1.5%, more than a quarter of the 3.8% change, though the verdict agrees
        self.assertEqual(repeated(iv, 1.428e7, 1.483e7, 0.02)["verdict"], "inconclusive")
        # a 10% change survives a count that spreads 0.6% (libxml2's clock-seeded dictionary)
        big = instructions_verdict(100.0, 110.0, 0.02)
        self.assertEqual(repeated(big, 100.6, 110.0, 0.02)["verdict"], "regressed")
        self.assertEqual(repeated(iv, None, 1.461e7, 0.02)["verdict"], "inconclusive")
        improved = instructions_verdict(100.0, 90.0, 0.02)
        self.assertEqual(repeated(improved, 100.2, 90.1, 0.02)["verdict"], "improved")


class InstructionRecount(unittest.TestCase):
    """checks.instructions with callgrind replaced by a queue of made-up counts."""

    def run_check(self, rounds):
        """rounds: [{"base": {name: count}, "head": {...}}, ...], one per callgrind run of both
        arms. Returns (rows, the ir_filter of each run of the base)."""
        calls = {"/b": [], "/h": []}

        def fake(binary, logdir, settings, ctx, suffix, log, run_cmd=None):
            calls[binary].append(settings["ir_filter"])
            counts = rounds[len(calls[binary]) - 1]["base" if binary == "/b" else "head"]
            if counts is None:
                return {"unavailable": "callgrind run failed (exit 137)"}
            return {"benchmarks": {n: {"per_iteration": v} for n, v in counts.items()}}

        saved = checks.measure_instructions
        checks.measure_instructions = fake
        try:
            with tempfile.TemporaryDirectory() as out:
                opts = Options(ir_filter="x", ir_tolerance=0.02)
                rows = {}
                checks.instructions(rows, (Arm("base", "/b"), Arm("head", "/h")), {"env": {}},
                                    None, opts, out, lambda m: None)
        finally:
            checks.measure_instructions = saved
        return rows, calls["/b"]

    def test_a_count_that_does_not_repeat_decides_nothing(self):
        steady, shaky = "f/steady/n:1", "f/salted/n:1"
        rows, filters = self.run_check([
            {"base": {steady: 100.0, shaky: 1.407e7}, "head": {steady: 100.0, shaky: 1.461e7}},
            {"base": {shaky: 1.39e7}, "head": {shaky: 1.39e7}}])
        self.assertEqual(len(filters), 2)
        self.assertIn("salted", filters[1])
        self.assertNotIn("steady", filters[1])  # only the moved row is counted again
        self.assertEqual(rows[steady]["checks"][0]["verdict"], "same")
        self.assertEqual(rows[shaky]["checks"][0]["verdict"], "inconclusive")
        self.assertIn("time decides", rows[shaky]["checks"][0]["text"])

    def test_a_repeated_regression_stands(self):
        name = "f/slower/n:1"
        rows, filters = self.run_check([{"base": {name: 100.0}, "head": {name: 110.0}},
                                        {"base": {name: 100.0}, "head": {name: 110.0}}])
        self.assertEqual(len(filters), 2)
        self.assertEqual(rows[name]["checks"][0]["verdict"], "regressed")

    def test_a_failed_second_count_says_so(self):
        name = "f/slower/n:1"
        rows, filters = self.run_check([{"base": {name: 100.0}, "head": {name: 110.0}},
                                        {"base": {name: 100.0}, "head": None}])
        check = rows[name]["checks"][0]
        self.assertEqual(check["verdict"], "inconclusive")
        self.assertIn("base 100 then 100, head 110 then no count", check["text"])
        self.assertIn("the head's second count failed: callgrind run failed (exit 137)",
                      check["text"])

    def test_nothing_moved_nothing_counted_again(self):
        name = "f/same/n:1"
        rows, filters = self.run_check([{"base": {name: 100.0}, "head": {name: 100.5}}])
        self.assertEqual(len(filters), 1)
        self.assertEqual(rows[name]["checks"][0]["verdict"], "same")


class Strategies(unittest.TestCase):
    """A strategy's sizes pooled: Samples.pooled, the screening's and the confirmation's rule."""
    names = ["g/s/size:%d" % k for k in (1, 2, 3)]

    def samples(self, change, noise, runs, seed):
        rng = np.random.default_rng(seed)
        return samples_of({lb: {n: [(k + 1) * 1e-3 * f * (1 + noise * rng.standard_normal())
                                    for _ in range(runs)] for k, n in enumerate(self.names)}
                           for lb, f in (("base", 1.0), ("head", change))})

    def test_pooled_is_the_geometric_mean_of_the_sizes(self):
        s = samples_of({"base": {"a": [1.0, 1.0], "b": [4.0, 4.0]},
                        "head": {"a": [1.1, 1.1], "b": [4.4 * 1.21 / 1.1, 4.4 * 1.21 / 1.1]}})
        ratio = np.median(s.pooled("head", ["a", "b"])) / np.median(s.pooled("base", ["a", "b"]))
        self.assertAlmostEqual(ratio, (1.1 * 1.21) ** 0.5, places=9)
        self.assertEqual(s.pooled("base", ["a", "missing"]), [])

    def rows(self, s):
        return {n: {"name": n, "family": "g/s",
                    "time": time_verdict(s.values("base", n), s.values("head", n), 0.02)}
                for n in self.names}

    def test_pooling_confirms_what_no_size_alone_does(self):
        # seed 2: a 5% slowdown of 3 sizes with 5% noise, 10 runs a side: no size alone is
        # confirmed; pooled, every size that ran slower is
        s = self.samples(1.05, 0.05, 10, 2)
        out = judge(self.rows(s), s, s, self.names, Options())
        self.assertTrue(any(tv["verdict"] == "regressed" for tv in out.values()))
        for n, tv in out.items():
            if tv["verdict"] == "regressed":
                self.assertIn("3 suspect sizes pooled", tv["text"])
                # its medians are its own seconds, not the pooled ratios (compare.json, bmf)
                self.assertAlmostEqual(tv["base_s"], np.median(s.values("base", n)))
                self.assertAlmostEqual(tv["head_s"], np.median(s.values("head", n)))
            else:
                self.assertIn("not confirmed", tv["text"])

    def test_pooling_rarely_confirms_nothing(self):
        hits = 0
        for seed in range(100):
            s = self.samples(1.0, 0.06, 10, seed)
            out = judge(self.rows(s), s, s, self.names, Options())
            hits += any(tv["verdict"] == "regressed" for tv in out.values())
        self.assertLessEqual(hits, 3)  # under ALPHA / 2 = 2.5% for the strategy's one test

    def test_holm_counts_one_test_per_suspect_strategy(self):
        s = self.samples(1.0, 0.03, 10, 4)
        family = {n: "g/s" for n in self.names}
        all_ = confirmation_tests(self.names, {"g/s": self.names}, s)
        self.assertEqual(len(all_), 4)  # the three sizes' runs are kept beside the pooled test
        out = holm(all_, family, Options())
        self.assertAlmostEqual(out[("strategy", "g/s")]["conf"], 0.95)  # one test: m = 1
        for n in self.names:
            self.assertIs(out[("size", n)]["counted"], False)
            self.assertAlmostEqual(out[("size", n)]["conf"], 0.95)
        # beside 9 single-size strategies: 10 tests, not 13 (sizes) + 1 (the strategy)
        other = {"o%d/s/n:1" % i: "o%d/s" % i for i in range(9)}
        more = samples_of({lb: dict({n: s.values(lb, n) for n in self.names},
                                    **{n: s.values(lb, self.names[0]) for n in other})
                           for lb in ("base", "head")})
        rows = dict(self.rows(more), **{n: {"name": n, "family": f, "time": time_verdict(
            more.values("base", n), more.values("head", n), 0.02)} for n, f in other.items()})
        rec = record(rows, more, more, sorted(rows))
        held = [t for t in rec["tests"] if t["counted"]]
        self.assertEqual(len(held), 10)
        self.assertEqual({t["kind"] for t in held if t["name"].startswith("g/")}, {"strategy"})
        out = holm({(t["kind"], t["name"]): (t["base"], t["head"], t["widen"])
                    for t in rec["tests"]}, dict(family, **other), Options())
        self.assertAlmostEqual(out[("strategy", "g/s")]["conf"], 1 - 0.05 / 10)

    def test_a_size_alone_does_not_decide_for_its_pooled_strategy(self):
        # size 1 slowed 8%, size 3 sped up 8%, all with 2% noise: the pooled test is not
        # rejected, and size 1's own interval, though above 1 + e/2, is not a test
        rng = np.random.default_rng(7)
        base = {n: [1e-3 * (1 + 0.02 * rng.standard_normal()) for _ in range(10)]
                for n in self.names}
        head = {n: [v * f for v in base[n][::-1]] for n, f in zip(self.names, (1.08, 1.0, 0.92))}
        s = samples_of({"base": base, "head": head})
        out = judge(self.rows(s), s, s, self.names, Options())
        own = test_verdict(s.by_copy("base", self.names[0]), s.by_copy("head", self.names[0]),
                           0.95, Options())
        self.assertEqual(own["verdict"], "regressed")
        self.assertNotEqual(out[self.names[0]]["verdict"], "regressed")
        self.assertIn("its strategy's 3 suspect sizes pooled at 95.0%",
                      out[self.names[0]]["text"])

    def test_a_noisy_size_no_longer_hides_its_strategys_steady_ones(self):
        # sizes 1 and 2 slowed 6% with 2% noise, size 3 unchanged with 30% noise (a size whose
        # processes page-fault at random): weighted by their precision in an independent
        # screening, the pooled test is confirmed, its interval less than half as wide (in log)
        # as the plain geometric mean's; the confirmation's own processes set no weight
        rng = np.random.default_rng(11)
        sd = dict(zip(self.names, (0.02, 0.02, 0.3)))

        def drawn():
            return samples_of({lb: {n: [1e-3 * f * math.exp(sd[n] * rng.standard_normal())
                                        for _ in range(10)] for n, f in zip(self.names, fs)}
                               for lb, fs in (("base", (1, 1, 1)), ("head", (1.06, 1.06, 1)))})
        screen, s = drawn(), drawn()
        w = screen.weights(self.names)
        self.assertAlmostEqual(sum(w.values()), 1.0)
        self.assertLess(w[self.names[2]], 0.05)
        rows = self.rows(s)
        out = judge(rows, screen, s, self.names, Options())
        self.assertEqual([out[n]["verdict"] for n in self.names[:2]], ["regressed"] * 2)
        plain = test_verdict(s.pooled("base", self.names, True), s.pooled("head", self.names,
                                                                          True), 0.95, Options())
        weighted = test_verdict(s.pooled("base", self.names, True, w),
                                s.pooled("head", self.names, True, w), 0.95, Options())
        self.assertLess(weighted["ci"][1] / weighted["ci"][0],
                        (plain["ci"][1] / plain["ci"][0]) ** 0.5)
        # judged with the confirmation's own processes as the screening, the weights would
        # come from the values they pool: tests() takes them from the screening it is given
        rec = record(rows, screen, s, self.names)
        pooled = next(t for t in rec["tests"] if t["kind"] == "strategy")
        self.assertEqual([v for _, v in pooled["head"]],
                         [v for _, v in s.pooled("head", self.names, True, w)])

    def test_a_pooled_suspect_makes_its_slower_sizes_suspects(self):
        s = self.samples(1.08, 0.02, 6, 3)
        rows = {n: {"family": "g/s", "time": {"ratio": r}, "suspect": False}
                for n, r in zip(self.names, (1.08, 0.99, 1.07))}
        strategy_suspects(rows, s, Options())
        self.assertEqual([rows[n]["suspect"] for n in self.names], ["strategy", False, "strategy"])
        s = self.samples(1.0, 0.02, 6, 3)
        for r in rows.values():
            r["suspect"] = False
        strategy_suspects(rows, s, Options())
        self.assertFalse(any(r["suspect"] for r in rows.values()))


def samples_of(values, copies=3):
    """Samples whose process k of each arm measured values[label][name][k] (CPU and real), run
    from copy k % copies + 1 of its arm's binary."""
    s = Samples()
    for label, by_name in values.items():
        count = len(next(iter(by_name.values())))
        for k in range(count):
            s.runs.append((label, {n: (v[k], v[k]) for n, v in by_name.items()}))
            s.copy.append(k % copies + 1)
    return s


def copied(values, copies=3):
    """(copy, value) pairs: value k from copy k % copies + 1."""
    return [(k % copies + 1, v) for k, v in enumerate(values)]


def blocked_samples(base, head, blocks):
    """Samples of processes in ABBA blocks: base[name][k], head[name][k] the values of process
    k of each arm, which ran in block blocks[k] (both arms' process k in the same block)."""
    s = Samples()
    for label, by_name in (("base", base), ("head", head)):
        for k, blk in enumerate(blocks):
            s.add(label, FakeRun([dict(name=n, family="g", strategy="s", params={}, cpu=v[k],
                                       t=v[k]) for n, v in by_name.items()]), 1, ("screen", blk))
    return s


class FakeRun:
    """What Samples.add reads of a runjson.Run."""

    def __init__(self, rows):
        self.rows, self.skipped, self.failed, self.context = rows, [], [], {}


class Blocks(unittest.TestCase):
    """blocks.py: the values aligned on their ABBA blocks."""

    def test_a_slow_block_no_longer_hides_a_slowdown(self):
        rng = np.random.default_rng(5)
        blocks = [1, 1, 2, 2, 3, 3]
        speed = {1: 1.0, 2: 1.0, 3: 1.5}  # the third block ran slow in both arms
        base = {"g/s/n:1": [1e-3 * speed[b] * (1 + 0.01 * rng.standard_normal())
                            for b in blocks]}
        head = {"g/s/n:1": [1.05e-3 * speed[b] * (1 + 0.01 * rng.standard_normal())
                            for b in blocks]}
        raw = time_verdict(base["g/s/n:1"], head["g/s/n:1"], 0.02)
        self.assertLess(raw["ci"][0], 1.0)  # the cross-block pairs hide it
        s = blocked_samples(base, head, blocks)
        tv = time_verdict(s.values("base", "g/s/n:1"), s.values("head", "g/s/n:1"), 0.02,
                          widen=s.widen(["g/s/n:1"]))
        self.assertEqual(tv["verdict"], "regressed")
        self.assertAlmostEqual(tv["ratio"], 1.05, delta=0.02)
        self.assertAlmostEqual(s.widen(["g/s/n:1"]), math.sqrt(4 / 3))
        # values stay in seconds: the aligned medians near the quiet blocks' times
        self.assertAlmostEqual(statistics.median(s.values("base", "g/s/n:1")) / 1e-3, 1.0,
                               delta=0.3)

    def test_within_block_differences_are_kept(self):
        blocks = [1, 1, 2, 2]
        base = {"n": [1.0, 1.1, 2.0, 2.2]}
        head = {"n": [1.2, 1.3, 2.4, 2.6]}
        s = blocked_samples(base, head, blocks)
        b, h = s.values("base", "n"), s.values("head", "n")
        for k in range(2):
            for j in range(2):
                self.assertAlmostEqual(h[k] / b[j], head["n"][k] / base["n"][j])
                self.assertAlmostEqual(h[2 + k] / b[2 + j], head["n"][2 + k] / base["n"][2 + j])

    def test_a_block_with_one_arm_is_left_out_and_one_block_is_not_aligned(self):
        kept = [0, 1, 2, 3, 4]
        labels = ["base", "head", "base", "head", "base"]
        blocks_ = ["a", "a", "b", "b", "c"]
        values = {i: {"n": (1.0 + i, 1.0 + i)} for i in kept}
        out, widen = align(kept, labels, blocks_, values)
        self.assertNotIn("n", out[4])  # block c holds the base only
        self.assertAlmostEqual(widen["n"], math.sqrt(2.0))  # 2 processes a block
        out, widen = align(kept[:2], labels[:2], blocks_[:2], {i: values[i] for i in kept[:2]})
        self.assertEqual(out[0]["n"], values[0]["n"])
        self.assertEqual(widen["n"], 1.0)
        unknown = align(kept, labels, [None] * 5, values)
        self.assertIs(unknown[0], values)

    def test_unchanged_compares_exclude_no_more_than_the_level(self):
        """300 simulated unchanged screenings (3 blocks of 2 + 2, t(3) noise, block effects of
        20%): the widened 80% interval excludes 1 at most as often as 20% (and 5% at 95%),
        give or take the simulation's own error."""
        rng = np.random.default_rng(11)
        miss80 = miss95 = 0
        n = 300
        for _ in range(n):
            blocks = [1, 1, 2, 2, 3, 3]
            eff = {b: math.exp(0.2 * rng.standard_normal()) for b in (1, 2, 3)}
            base = {"n": [eff[b] * math.exp(0.02 * rng.standard_t(3)) for b in blocks]}
            head = {"n": [eff[b] * math.exp(0.02 * rng.standard_t(3)) for b in blocks]}
            s = blocked_samples(base, head, blocks)
            b, h, w = s.values("base", "n"), s.values("head", "n"), s.widen(["n"])
            for conf in (0.80, 0.95):
                lo, hi = time_verdict(b, h, 0.02, conf=conf, widen=w)["ci"]
                if lo > 1 or hi < 1:
                    if conf == 0.80:
                        miss80 += 1
                    else:
                        miss95 += 1
        self.assertLess(miss80 / n, 0.20 + 0.05, miss80)
        self.assertLess(miss95 / n, 0.05 + 0.03, miss95)

    def test_widened(self):
        lo, hi = widened(1.1, 1.0, 1.2, 2.0)
        self.assertAlmostEqual(math.log(1.1 / lo), 2 * math.log(1.1 / 1.0))
        self.assertAlmostEqual(math.log(hi / 1.1), 2 * math.log(1.2 / 1.1))
        self.assertEqual(widened(1.1, 0.0, math.inf, 2.0), (0.0, math.inf))


class Outliers(unittest.TestCase):
    """outliers.py: a process whose benchmarks all ran far off the others is left out."""
    names = ["g/s/size:%d" % n for n in range(8)]

    def arm(self, factors, jitter=0.01, seed=1):
        rng = np.random.default_rng(seed)
        return {n: [f * (i + 1) * 1e-3 * (1 + jitter * rng.standard_normal()) for f in factors]
                for i, n in enumerate(self.names)}

    def test_a_slow_process_is_left_out_of_its_arm_only(self):
        s = samples_of({"base": self.arm([1.35, 1, 1, 1, 1, 1]), "head": self.arm([1] * 6)})
        self.assertEqual(list(s.outliers), [0])
        self.assertAlmostEqual(s.outliers[0], 1.35, delta=0.03)
        self.assertEqual(len(s.values("base", self.names[0])), 5)
        self.assertEqual(len(s.values("head", self.names[0])), 6)

    def test_a_change_of_every_benchmark_is_no_outlier(self):
        for change in (1.05, 1.3, 0.8):
            s = samples_of({"base": self.arm([1] * 6), "head": self.arm([change] * 6, seed=2)})
            self.assertEqual(s.outliers, {}, change)
            tv = time_verdict(s.values("base", self.names[3]), s.values("head", self.names[3]),
                              0.02)
            self.assertAlmostEqual(tv["ratio"], change, delta=0.02)
        s = samples_of({"base": self.arm([1, 1, 1.4, 1, 1, 1]),
                        "head": self.arm([1.05] * 6, seed=2)})
        self.assertEqual(list(s.outliers), [2])

    def test_one_slow_benchmark_leaves_its_process_in(self):
        base = self.arm([1] * 6)
        base[self.names[0]][2] *= 1.5
        self.assertEqual(samples_of({"base": base}).outliers, {})

    def test_ordinary_scatter_and_small_processes_stay(self):
        self.assertEqual(samples_of({"base": self.arm([1, 1.02, 0.99, 1, 1.01, 1])}).outliers, {})
        few = {n: v for n, v in self.arm([1.5, 1, 1, 1, 1, 1]).items() if n in self.names[:3]}
        self.assertEqual(samples_of({"base": few}).outliers, {})
        self.assertEqual(samples_of({"base": self.arm([1.5, 1, 1])}).outliers, {})

    def test_at_most_a_third_of_an_arm(self):
        far = samples_of({"base": self.arm([1.5, 1.4, 1.3, 1, 1, 1, 1, 1, 1])}).outliers
        self.assertEqual(sorted(far), [0, 1, 2])
        far = samples_of({"base": self.arm([1.5, 1.4, 1.3, 1.2, 1, 1, 1, 1, 1])}).outliers
        self.assertEqual(sorted(far), [0, 1, 2])
        self.assertIsNone(outliers.factors([{"a": 1.0}, {"a": 2.0}]))


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True,
                          text=True).stdout.strip()


class Accepted(unittest.TestCase):
    def setUp(self):
        self.repo = tempfile.mkdtemp(prefix="hb-accept-")
        git(self.repo, "init", "-q")
        git(self.repo, "config", "user.email", "t@example.org")
        git(self.repo, "config", "user.name", "t")
        self.commits = []
        for i in range(3):
            with open(os.path.join(self.repo, "f"), "w") as f:
                f.write(str(i))
            git(self.repo, "add", "f")
            git(self.repo, "commit", "-qm", "c%d" % i)
            self.commits.append(git(self.repo, "rev-parse", "HEAD"))

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.repo])

    def write(self, text):
        os.makedirs(os.path.join(self.repo, "results"), exist_ok=True)
        with open(os.path.join(self.repo, accepted.PATH), "w") as f:
            f.write(text)

    def test_applies_inside_base_to_head_only(self):
        c0, c1, c2 = self.commits
        self.write("# benchmark\trevision\treason\n^g/s/\t%s\ta correctness fix\n" % c1)
        self.assertEqual(len(accepted.applicable(self.repo, c0, "worktree")), 1)
        self.assertEqual(accepted.applicable(self.repo, c1, "worktree"), [])  # base has it
        rows = [{"name": "g/s/size:1", "verdict": "regressed", "check": "time"},
                {"name": "g/t/size:1", "verdict": "regressed", "check": "time"}]
        accepted.apply(rows, accepted.applicable(self.repo, c0, "worktree"))
        self.assertEqual([r["verdict"] for r in rows], ["accepted", "regressed"])
        self.assertIn("a correctness fix", rows[0]["check"])

    def test_bad_lines_stop_the_compare(self):
        for text in ("^g/s/\tnot-a-revision\twhy\n", "^g/s/ %s why\n" % self.commits[1],
                     "(\t%s\twhy\n" % self.commits[1]):
            self.write(text)
            with self.assertRaises(SystemExit) as cm:
                accepted.applicable(self.repo, self.commits[0], "worktree")
            self.assertEqual(cm.exception.code, 2)


class CachedBuilds(unittest.TestCase):
    def test_a_build_made_with_other_options_is_not_reused(self):
        import shutil
        from hotbench.compare import revisions
        bdir = tempfile.mkdtemp(prefix="hb-rev-")
        try:
            binary = os.path.join(bdir, "hotbench")
            with open(binary, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(binary, 0o755)
            stamp = os.path.join(bdir, revisions.STAMP)
            open(stamp, "w").close()  # the stamp of a build before the options were recorded
            self.assertIsNone(revisions.cached_binary(bdir, False))
            with open(stamp, "w") as f:
                f.write(" ".join(revisions.cmake_args(False)))
            self.assertEqual(revisions.cached_binary(bdir, False), binary)
            self.assertIsNone(revisions.cached_binary(bdir, True))  # hooks: other options
            self.assertIn("-DCMAKE_C_FLAGS=" + revisions.HB_LAYOUT_FLAGS,
                          revisions.cmake_args(False))
            with open(os.path.join(os.path.dirname(HERE), "CMakeLists.txt")) as f:
                self.assertIn("add_compile_options(%s)" % revisions.HB_LAYOUT_FLAGS, f.read(),
                              "the head's build and older revisions' get the same layout flag")
        finally:
            shutil.rmtree(bdir, ignore_errors=True)


class Toolchain(unittest.TestCase):
    BASE = {"hb_compiler": "GNU 12.2.0", "hb_benchmark_version": "1.7.1",
            "expat_version": "2.5.0", "hb_build_flags": "-O2", "num_cpus": 2}

    def test_same_toolchain_no_warning(self):
        tc = toolchain.compare({"base": self.BASE, "head": dict(self.BASE)})
        self.assertEqual(tc["differs"], [])
        self.assertEqual(tc["base"], {"hb_compiler": "GNU 12.2.0", "hb_benchmark_version": "1.7.1",
                                      "expat_version": "2.5.0"})
        self.assertEqual(toolchain.warning_lines(tc), [])

    def test_differences_named_in_table_and_json(self):
        head = dict(self.BASE, hb_compiler="GNU 14.2.0", libxml2_version="2.9.14")
        rows = [dict(name="g/s/x:1", family="g/s", verdict="same", check="time", ratio=1.0)]
        res = Result(Arm("base", "b"), Arm("head", "h"), rows, 1.0, {})
        res.toolchain = toolchain.compare({"base": self.BASE, "head": head})
        self.assertEqual(res.toolchain["differs"], ["hb_compiler"])
        self.assertEqual(res.toolchain["one_side"], ["libxml2_version"])
        text = "\n".join(table.lines(res))
        self.assertIn("hb_compiler: base GNU 12.2.0, head GNU 14.2.0", text)
        self.assertNotIn("libxml2_version", text, "a key the base predates is no difference")
        self.assertEqual(table.to_json(res)["toolchain"]["differs"], ["hb_compiler"])

    def test_one_side_missing_is_not_a_difference(self):
        self.assertEqual(toolchain.compare({"head": self.BASE})["differs"], [])
        older = dict(self.BASE)
        del older["expat_version"]
        tc = toolchain.compare({"base": older, "head": self.BASE})
        self.assertEqual((tc["differs"], tc["one_side"]), ([], ["expat_version"]))
        self.assertEqual(toolchain.warning_lines(tc), [])


class Copies(unittest.TestCase):
    """copies.py and random_effects.py: each arm from several files; one file's effect is not
    a change of the arm (issue 31)."""

    def arms(self, head_copy_factors, change=1.0, noise=0.01, runs=10, seed=1):
        rng = np.random.default_rng(seed)
        base = [(k % 3 + 1, 1e-3 * (1 + noise * rng.standard_normal())) for k in range(runs)]
        head = [(k % 3 + 1, 1e-3 * change * head_copy_factors[k % 3] *
                 (1 + noise * rng.standard_normal())) for k in range(runs)]
        return base, head

    def test_one_slow_copy_of_the_head_is_no_regression(self):
        # the case: every process of one file 6% slower. Spread over 3 copies it moves
        # the estimate under e; two slow copies of three fool a rank test over the processes,
        # not the interval with the copy a random effect
        tv = test_verdict(*self.arms([1.06, 1.0, 1.0]), 0.95, Options())
        self.assertNotEqual(tv["verdict"], "regressed")
        base, head = self.arms([1.06, 1.06, 1.0], runs=16)
        rank = time_verdict([v for _, v in base], [v for _, v in head], 0.02, conf=0.95,
                            margin=0.01)
        self.assertEqual(rank["verdict"], "regressed")
        tv = test_verdict(base, head, 0.95, Options())
        self.assertEqual(tv["verdict"], "inconclusive")
        self.assertIn("copies' own spread", tv["why"])
        self.assertGreater(tv["copies"]["copy_sd"]["head"], 0.02)
        self.assertEqual(tv["copies"]["copy_sd"]["base"], 0.0)

    def test_a_change_of_every_copy_is_a_regression(self):
        base, head = self.arms([1.0, 1.0, 1.0], change=1.06)
        tv = test_verdict(base, head, 0.95, Options())
        self.assertEqual(tv["verdict"], "regressed")
        self.assertAlmostEqual(tv["copies"]["ratio"], 1.06, delta=0.01)

    def test_the_copies_cost_little_power(self):
        # a 4% slowdown with 3% process noise, 10 runs a side, no copy effect
        hits = sum(test_verdict(*self.arms([1.0] * 3, 1.04, 0.03, 10, seed), 0.95,
                                Options())["verdict"] == "regressed" for seed in range(40))
        rank = 0
        for seed in range(40):
            b, h = self.arms([1.0] * 3, 1.04, 0.03, 10, seed)
            rank += time_verdict([v for _, v in b], [v for _, v in h], 0.02, conf=0.95,
                                 margin=0.01)["verdict"] == "regressed"
        self.assertGreaterEqual(hits, rank * 0.8)

    def test_without_copies_the_interval_is_welchs(self):
        ys = [(1, x) for x in (1.0, 1.1, 0.9, 1.05)]
        b = random_effects.arm_variance(ys)
        self.assertEqual(b[2], 3)
        self.assertEqual(b[3], 0.0)

    def test_copies_are_separate_files_of_the_same_bytes(self):
        with tempfile.TemporaryDirectory() as tmp:
            binary = os.path.join(tmp, "hotbench")
            with open(binary, "wb") as f:
                f.write(b"\x7fELF" + bytes(range(256)) * 64)
            arm = Arm("head", binary)
            paths = copies.write(arm, 3, os.path.join(tmp, "out"))
            self.assertEqual(len({os.stat(p).st_ino for p in paths + [binary]}), 4)
            for p in paths:
                with open(p, "rb") as f, open(binary, "rb") as g:
                    self.assertEqual(f.read(), g.read())
                self.assertTrue(os.access(p, os.X_OK))
            self.assertEqual(len({len(p) for p in paths}), 1)
            taken = [copies.take(arm)[0] for _ in range(6)]
            self.assertEqual(sorted(taken), [1, 1, 2, 2, 3, 3])
            self.assertEqual(arm.describe()["copies"], 3)
            copies.remove(os.path.join(tmp, "out"))
            self.assertFalse(any(os.path.exists(p) for p in paths))


class SecondWitness(unittest.TestCase):
    """witness.py: a time regression with byte-identical object code and unmoved instructions
    is inconclusive; with changed code, moved instructions or arms differing by environment it
    stands."""

    class Fake:
        answers = {}

        def __init__(self, base_dir, head_dir):
            pass

        def unchanged(self, case):
            return self.answers[case]

    class Manifest:
        def case_of(self, group):
            return {"name": {"g": "c1", "h": "c2"}[group]}

    def rows(self):
        out = {}
        for name, fam, iv in (("g/s/n:1", "g/s", None), ("g/s/n:2", "g/s", "same"),
                              ("g/s/n:3", "g/s", "regressed"), ("h/t/n:1", "h/t", None)):
            out[name] = dict(name=name, family=fam, note="", time=dict(verdict="regressed"),
                             checks=[dict(kind="time", verdict="regressed", text="time (x)")])
            if iv:
                out[name]["instructions"] = dict(verdict=iv, ratio=1.0 if iv == "same" else 1.1)
                out[name]["checks"].append(dict(kind="instructions", verdict=iv, text="i"))
        return out

    def test_the_rule(self):
        self.Fake.answers = {"c1": (True, "cases/c1/ ...: 3 objects, byte-identical"),
                             "c2": (False, "cases/c2 objects differ (cases/c2/a.c)")}
        saved, witness.Witness = witness.Witness, self.Fake
        try:
            rows = self.rows()
            n = witness.apply(rows, Arm("base", "/b/hotbench"), Arm("head", "/h/hotbench"),
                              self.Manifest(), lambda m: None)
            self.assertEqual(n, 2)
            for name in ("g/s/n:1", "g/s/n:2"):
                combine(rows[name])
                self.assertEqual(rows[name]["verdict"], "inconclusive")
                self.assertIn("no code change: cases/c1/", rows[name]["check"])
            combine(rows["g/s/n:3"])  # instructions rose: they decide, regressed
            self.assertEqual(rows["g/s/n:3"]["verdict"], "regressed")
            combine(rows["h/t/n:1"])  # its code changed: the time check stands
            self.assertEqual(rows["h/t/n:1"]["verdict"], "regressed")
            self.assertIn("cases/c2 objects differ", rows["h/t/n:1"]["note"])
            rows = self.rows()  # an injection in one arm: no witness
            n = witness.apply(rows, Arm("base", "/b/hotbench"),
                              Arm("head", "/b/hotbench", env={"HB_INJECT": "parser"}),
                              self.Manifest(), lambda m: None)
            self.assertEqual(n, 0)
            self.assertEqual(rows["g/s/n:1"]["time"]["verdict"], "regressed")
        finally:
            witness.Witness = saved


class StrategyLines(unittest.TestCase):
    """strategies.py: one line per strategy."""

    def test_verdicts_and_reasons(self):
        names = {"g/a": ["g/a/n:1", "g/a/n:2"], "g/b": ["g/b/n:1", "g/b/n:2"],
                 "g/c": ["g/c/n:1", "g/c/n:2"]}
        rng = np.random.default_rng(3)
        vals = {}
        for fam, ns in names.items():
            for n in ns:
                noise = 0.001 if fam == "g/b" else 0.08
                vals[n] = [1e-3 * (1 + noise * rng.standard_normal()) for _ in range(6)]
        s = samples_of({"base": vals, "head": {n: list(v) for n, v in vals.items()}})
        rows = []
        for fam, ns in names.items():
            for n in ns:
                rows.append(dict(name=n, family=fam, params={"n": int(n[-1])},
                                 verdict="regressed" if fam == "g/a" else "inconclusive",
                                 check="time (confirmed)", n_base=6, n_head=6))
        out = {st["family"]: st for st in strategies.summarize(rows, s, Options())}
        self.assertEqual(out["g/a"]["verdict"], "regressed")
        self.assertIn("2 of 2 sizes regressed: n:1, n:2", out["g/a"]["why"])
        self.assertEqual(out["g/b"]["verdict"], "same")
        self.assertEqual(out["g/c"]["verdict"], "undecided")
        self.assertIn("wider than +-2%", out["g/c"]["why"])
        aa = strategies.copy_floor(s, rows)
        self.assertEqual(aa["copies"], 3)
        self.assertIn("copies", rows[0])
        line = table.decided_text(list(out.values()))
        self.assertEqual(line, "strategies: 2 of 3 decided (1 regressed, 1 same), 1 undecided")
        # an accepted slowdown (accepted.py, after the summary) makes its line accepted, and
        # the other lines keep their pooled verdicts
        accepted.mark(rows[0], "accepted by results/accepted-slowdowns.tsv:2 (abc): on purpose")
        again = {st["family"]: st for st in strategies.relined(rows, list(out.values()),
                                                                Options())}
        self.assertEqual(again["g/a"]["verdict"], "regressed")  # n:2 is still regressed
        accepted.mark(rows[1], "accepted by results/accepted-slowdowns.tsv:2 (abc): on purpose")
        again = {st["family"]: st for st in strategies.relined(rows, list(out.values()),
                                                                Options())}
        self.assertEqual(again["g/a"]["verdict"], "accepted")
        self.assertIn("2 of 2 sizes accepted", again["g/a"]["why"])
        self.assertEqual(again["g/b"]["verdict"], "same")
        self.assertEqual(again["g/c"]["verdict"], "undecided")

    def test_improved_needs_its_pool_or_instructions(self):
        # a strategy with one size faster in the screening alone, its sizes pooled no faster:
        # undecided (or same), the faster size noted; with that size's instruction count
        # fallen (a second witness) or its sizes pooled faster: improved
        rng = np.random.default_rng(5)
        names = ["g/a/n:1", "g/a/n:2", "g/a/n:3"]
        base = {n: [1e-3 * (1 + 0.03 * rng.standard_normal()) for _ in range(8)]
                for n in names}
        head = {n: [v * 1.01 for v in vs] for n, vs in base.items()}

        def rows_with(first_checks):
            return [dict(name=n, family="g/a", params={"n": int(n[-1])}, n_base=8, n_head=8,
                         verdict="improved" if i == 0 else "inconclusive",
                         check="time", checks=first_checks if i == 0 else [])
                    for i, n in enumerate(names)]

        s = samples_of({"base": base, "head": head})
        time_only = [dict(kind="time", verdict="improved", text="time (screening)")]
        st = strategies.summarize(rows_with(time_only), s, Options())[0]
        self.assertIn(st["verdict"], ("undecided", "same"))
        self.assertIn("1 of 3 sizes faster in the screening alone (not confirmed): n:1",
                      st["why"])
        counted = time_only + [dict(kind="instructions", verdict="improved", text="ir")]
        st = strategies.summarize(rows_with(counted), s, Options())[0]
        self.assertEqual(st["verdict"], "improved")
        self.assertEqual(st["why"], "1 of 3 sizes improved (instructions): n:1")
        # its sizes pooled 20% faster in the screening alone: undecided, saying so; the
        # confirmation's own processes faster too: improved
        faster = {n: [v * 0.8 for v in vs] for n, vs in base.items()}
        screen = samples_of({"base": base, "head": faster})
        st = strategies.summarize(rows_with(time_only), screen, Options())[0]
        self.assertEqual(st["verdict"], "undecided")
        self.assertIn("faster at 95% with the screening's processes; not confirmed",
                      st["why"])
        again = samples_of({"base": base, "head": faster})
        st = strategies.summarize(rows_with(time_only), screen, Options(), again)[0]
        self.assertEqual(st["verdict"], "improved")
        self.assertIn("time (confirmation): -20.0%", st["why"])
        self.assertIn("faster at 95% (Bonferroni over the 1 strategy it measured)", st["why"])
        # a merge (relined) keeps it
        self.assertEqual(strategies.relined(rows_with(time_only), [st], Options())[0]["why"],
                         st["why"])

    def test_faster_strategies_go_to_the_confirmation(self):
        # to_confirm: a strategy faster at the screening's 95% goes, beside the inconclusive
        # one; one the same within +-e, or with a suspect size, does not
        rng = np.random.default_rng(2)
        fams = {"g/fast": 0.8, "g/open": 1.0, "g/same": 1.0, "g/sus": 1.0}
        noise = {"g/fast": 0.01, "g/open": 0.2, "g/same": 0.001, "g/sus": 0.2}
        base, head, rows = {}, {}, {}
        for fam, k in fams.items():
            n = fam + "/n:1"
            base[n] = [1e-3 * (1 + noise[fam] * rng.standard_normal()) for _ in range(6)]
            head[n] = [v * k for v in base[n]]
            rows[n] = dict(name=n, family=fam, time={"ratio": k}, suspect=fam == "g/sus")
        s = samples_of({"base": base, "head": head})
        self.assertEqual(strategies.to_confirm(rows, s, Options()), ["g/fast/n:1", "g/open/n:1"])

    def test_improved_by_the_confirmation_at_bonferronis_level(self):
        # the confirmation's 10 processes a side, 3% faster (3% scatter): improved when it
        # measured one strategy (95%), not when it measured 78 (99.935%)
        rng = np.random.default_rng(1)
        base = {"g/a/n:1": [1e-3 * (1 + 0.03 * rng.standard_normal()) for _ in range(10)]}
        head = {"g/a/n:1": [1e-3 * 0.97 * (1 + 0.03 * rng.standard_normal())
                            for _ in range(10)]}
        s = samples_of({"base": base, "head": head})
        rows = [dict(name="g/a/n:1", family="g/a", params={"n": 1}, n_base=10, n_head=10,
                     verdict="inconclusive", check="time", checks=[])]
        self.assertEqual(strategies.pct_level(strategies.improved_level(78)), "99.935%")
        self.assertEqual(strategies.pct_level(strategies.improved_level(2)), "97.5%")
        self.assertEqual(strategies.strategy_line("g/a", rows, s, Options(), s, 1)["verdict"],
                         "improved")
        st = strategies.strategy_line("g/a", rows, s, Options(), s, 78)
        self.assertEqual(st["verdict"], "undecided")
        self.assertIn("not confirmed", st["why"])
        self.assertIsNone(strategies.confirmation_values(rows, None))
        self.assertIsNone(strategies.improved_by(None, Options(), 0.95))
        # a merge of shards (relined) judges again over every shard's confirmed strategies: the
        # line improved alone, with 77 others confirmed beside it (other shards) not; its
        # record goes through compare.json
        one = json.loads(json.dumps(strategies.strategy_line("g/a", rows, s, Options(), s, 1)))
        self.assertEqual(strategies.relined(rows, [one], Options())[0]["verdict"], "improved")
        others = [dict(one, family="g/o%d" % i) for i in range(77)]
        st = strategies.relined(rows, [one] + others, Options())[0]
        self.assertEqual(st["verdict"], "undecided")
        self.assertIn("faster at 95% (Bonferroni over the 1 strategy it measured)", one["why"])
        self.assertNotIn("Bonferroni over the 1 strategy", st["why"])

    def test_improved_beyond_the_copies_spread_and_by_the_lines_estimate(self):
        # the head's copies run 5% and 7% faster and as the base: the rank interval says
        # faster, the interval with the copy a random effect does not
        rng = np.random.default_rng(3)
        base = [1e-3 * (1 + 0.005 * rng.standard_normal()) for _ in range(12)]
        head = [1e-3 * (0.95, 0.93, 1.0)[k % 3] * (1 + 0.005 * rng.standard_normal())
                for k in range(12)]
        s = samples_of({"base": {"g/a/n:1": base}, "head": {"g/a/n:1": head}})
        rows = [dict(name="g/a/n:1", family="g/a", params={"n": 1}, n_base=12, n_head=12,
                     verdict="inconclusive", check="time", checks=[])]
        self.assertEqual(time_verdict(s.pooled("base", ["g/a/n:1"]),
                                      s.pooled("head", ["g/a/n:1"]), 0.02)["verdict"],
                         "improved")
        veto = strategies.improved_by(strategies.confirmation_values(rows, s), Options(), 0.95)
        self.assertEqual(veto["verdict"], "inconclusive")
        self.assertIn("not beyond the copies' own spread", veto["why"])
        st = strategies.strategy_line("g/a", rows, s, Options(), s, 1)
        self.assertEqual(st["verdict"], "undecided")
        self.assertIn("the confirmation's processes: time (confirmation)", st["why"])
        self.assertIn("copies' own spread", st["why"])
        # every copy 3% faster: improved
        fast = samples_of({"base": {"g/a/n:1": base},
                           "head": {"g/a/n:1": [v * 0.97 for v in base]}})
        self.assertEqual(strategies.improved_by(strategies.confirmation_values(rows, fast),
                                                Options(), 0.95)["verdict"], "improved")
        self.assertEqual(strategies.strategy_line("g/a", rows, fast, Options(), fast, 1)[
            "verdict"], "improved")
        # the screening's 20 processes 3% slower, the confirmation's 12 3% faster: the
        # confirmation says improved, the line's estimate does not; no `improved` line, and
        # none when the line is made again from its record (a merge of shards, recount.py)
        screen = samples_of({"base": {"g/a/n:1": base + base[:8]},
                             "head": {"g/a/n:1": [v * 1.03 for v in base + base[:8]]}})
        st = strategies.strategy_line("g/a", rows, screen, Options(), fast, 1)
        self.assertNotEqual(st["verdict"], "improved")
        self.assertGreater(st["ratio"], 1.0)
        self.assertIn("but not the line's estimate", st["why"])
        self.assertIn("time (screening and confirmation)", st["why"])
        again = strategies.relined(rows, [st], Options())[0]
        self.assertEqual((again["verdict"], again["why"]), (st["verdict"], st["why"]))
        recorded = dict(st, pooled=dict(st["pooled"], improved="time (confirmation): -3%"))
        self.assertNotEqual(strategies.relined(rows, [dict(recorded, ratio=1.01)],
                                               Options())[0]["verdict"], "improved")
        self.assertEqual(strategies.relined(rows, [dict(recorded, ratio=0.99)],
                                            Options())[0]["verdict"], "improved")


class Outputs(unittest.TestCase):
    def test_json_has_no_nan(self):
        rows = [dict(name="g/s/x:1", family="g/s", verdict="inconclusive", check="time",
                     ratio=float("nan"), ci=[float("-inf"), float("inf")], p=1.0)]
        res = Result(Arm("base", "b"), Arm("head", "h"), rows, 1.0, {})
        text = json.dumps(table.to_json(res), allow_nan=False)
        self.assertNotIn("NaN", text)
        self.assertEqual(json.loads(text)["schema"], "hotbench-compare/1")
        self.assertEqual(res.exit_code, 0)
        rows[0]["verdict"] = "regressed"
        res.recount()
        self.assertEqual(res.exit_code, 1)


FAKE_HOTBENCH = r"""#!/usr/bin/env python3
# a stand-in for hotbench: lists or "runs" the names its --benchmark_filter selects
import json, re, sys
NAMES = ["g/a/n:1/real_time", "g/a/n:2/real_time", "h/x/n:1/real_time", "g/b/n:1/real_time",
         "h/y/n:1/real_time"]
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
names = [n for n in NAMES if re.search(args.get("--benchmark_filter", ""), n)]
if "--benchmark_list_tests" in sys.argv:
    print("\n".join(names))
    sys.exit(0)
with open(args["--benchmark_out"], "w") as f:
    json.dump({"context": {"part": names[0]}, "benchmarks": [
        {"name": n, "run_name": n, "run_type": "iteration", "repetition_index": 0,
         "real_time": 1.0, "cpu_time": 1.0, "time_unit": "us", "iterations": 1}
        for n in names]}, f)
"""


def fake_hotbench(d):
    """The path of FAKE_HOTBENCH written, executable, into folder d."""
    fake = os.path.join(d, "hotbench")
    with open(fake, "w") as f:
        f.write(FAKE_HOTBENCH)
    os.chmod(fake, 0o755)
    return fake


class Isolation(unittest.TestCase):
    """isolation.py: the strategies of an isolated group each run in a process of their own,
    the rest in one; the parts' JSON is merged into the process's."""

    NAMES = ["g/a/n:1", "g/a/n:2", "h/x/n:1", "g/b/n:1", "h/y/n:1"]

    def test_split(self):
        filters = isolation.split(self.NAMES, "^(g)/")
        matched = [[n for n in self.NAMES if re.search(f, n)] for f in filters]
        self.assertEqual(matched, [["h/x/n:1", "h/y/n:1"], ["g/a/n:1", "g/a/n:2"],
                                   ["g/b/n:1"]])
        self.assertEqual(isolation.split(self.NAMES, "^(k)/"), [])
        only = isolation.split(["g/a/n:1", "g/b/n:1"], "^(g)/")
        self.assertEqual(len(only), 2)  # no empty rest

    def test_isolate_filter(self):
        class M:
            def __init__(self, flags):
                self.flags = flags

            def groups(self):
                return [dict(name=n, gate=dict(select="", isolate=f) if f is not None else {})
                        for n, f in self.flags]
        self.assertEqual(isolation.isolate_filter(M([("g", True), ("h", False), ("k", None),
                                                     ("g-x.y", True)])), r"^(g|g-x\.y)/")
        self.assertIsNone(isolation.isolate_filter(M([("h", False), ("k", None)])))

    def test_a_process_in_parts_is_one_run(self):
        with tempfile.TemporaryDirectory() as d:
            fake = fake_hotbench(d)
            settings = dict(profile="full", budget_s=0.25, min_time=0.01, env={},
                            isolate="^(g)/")
            out = os.path.join(d, "screen-001-base.json")
            run, rc, _, timed_out = run_process(Arm("base", fake), settings, "^(g|h)/", out)
            self.assertEqual((rc, timed_out), (0, False))
            self.assertEqual([r["name"] for r in run.rows],
                             ["h/x/n:1/real_time", "h/y/n:1/real_time", "g/a/n:1/real_time",
                              "g/a/n:2/real_time", "g/b/n:1/real_time"])
            self.assertEqual(run.context, {"part": "h/x/n:1/real_time"})
            with open(out[:-len(".json")] + ".log") as f:
                self.assertEqual(sum(1 for line in f if "--benchmark_filter=" in line), 3)
            self.assertEqual(sorted(os.listdir(d)), ["hotbench", "screen-001-base.json",
                                                     "screen-001-base.log"])
            settings["isolate"] = None
            run, rc, _, _ = run_process(Arm("base", fake), settings, "^(g|h)/", out)
            self.assertEqual(len(run.rows), 5)
            self.assertEqual(run.context, {"part": "g/a/n:1/real_time"})


if __name__ == "__main__":
    unittest.main(verbosity=1)

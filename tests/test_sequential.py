#!/usr/bin/env python3
"""test_sequential.py - the second confirmation round (scripts/hotbench/compare/sequential.py
and confirmation.py): the p-values read off the confirmation's intervals, Bauer and Koehne's
two-round test and its level when the round goes only to the strategies whose first round
looked slow, Holm's procedure over the combined p-values, and compare.json's record of both
rounds as a merge of shards reads it. Made-up samples; correctness only, never timings."""

import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

import numpy as np  # noqa: E402

from hotbench.compare import confirmation, merge, sequential  # noqa: E402
from hotbench.compare.confirmation import Second, step_down, test_verdict  # noqa: E402
from hotbench.compare.engine import Options  # noqa: E402
from hotbench.compare.trials import Samples  # noqa: E402


def arm(rng, n, factor, sd):
    """n (copy, seconds) pairs of log-normal noise sd about factor ms, copies 1-3 in turn."""
    return [(k % 3 + 1, 1e-3 * factor * math.exp(sd * rng.standard_normal())) for k in range(n)]


def samples_of(values, copies=3):
    """Samples whose process k of each arm measured values[label][name][k]."""
    s = Samples()
    for label, by_name in values.items():
        for k in range(len(next(iter(by_name.values())))):
            s.runs.append((label, {n: (v[k], v[k]) for n, v in by_name.items()}))
            s.copy.append(k % copies + 1)
    return s


STRATEGY = ["g/s/size:%d" % k for k in (1, 2, 3)]


def strategy_samples(rng, factor):
    """Samples of the three sizes of STRATEGY (1, 2, 3 ms), 10 processes a side, 4% noise, the
    head factor slower."""
    return samples_of({lb: {n: [1e-3 * (k + 1) * f * math.exp(0.04 * rng.standard_normal())
                                for _ in range(10)] for k, n in enumerate(STRATEGY)}
                       for lb, f in (("base", 1.0), ("head", factor))})


class PValues(unittest.TestCase):
    def test_p_is_the_level_at_which_the_interval_clears_the_margin(self):
        # q <= (1 - conf) / 2 exactly when the one-round rule (test_verdict) says regressed:
        # the rank interval, widened, above 1 + e/2, the estimate above 1 + e, and the copies'
        # interval too where they differ
        rng, opts, checked = np.random.default_rng(1), Options(), 0
        for _ in range(400):
            n, m = rng.integers(4, 12, size=2)
            effect = rng.choice([1.0, 1.03, 1.05, 1.1, 1.2])
            sd = rng.choice([0.01, 0.03, 0.08])
            b, h = arm(rng, n, 1.0, sd), arm(rng, m, effect, sd)
            if rng.random() < 0.3:  # one slow copy of the head
                h = [(c, v * (1.08 if c == 2 else 1.0)) for c, v in h]
            widen = rng.choice([1.0, 1.3])
            p = sequential.p_value(b, h, opts, widen)
            for conf in (0.95, 0.99, 0.999):
                tv = test_verdict(b, h, conf, opts, widen)
                self.assertEqual(tv["verdict"] == "regressed", p <= (1 - conf) / 2 + 1e-12,
                                 (n, m, effect, sd, widen, conf, p, tv))
                checked += tv["verdict"] == "regressed"
        self.assertGreater(checked, 100)  # both sides of the rule were tried

    def test_no_p_below_one_without_an_estimate_above_one_plus_e(self):
        b = [(1, 1e-3 * (1 + 0.001 * k)) for k in range(10)]
        h = [(1, v * 1.015) for _, v in b]  # every head run slower, by 1.5% only
        self.assertEqual(sequential.p_value(b, h, Options()), 1.0)
        self.assertEqual(sequential.p_value(b[:1], h, Options()), 1.0)


class TwoRounds(unittest.TestCase):
    def test_one_round_q_is_p1(self):
        self.assertEqual(sequential.q_value(0.001, None, 1.0), 0.001)
        self.assertEqual(sequential.q_value(0.001, None, 0.5), 0.002)
        self.assertEqual(sequential.threshold(0.01, 1.0), 0.0)

    def test_q_solves_fishers_bound(self):
        q = sequential.q_value(0.01, 0.01, 0.5)
        self.assertLess(q, 0.02)  # the second round helped: p1 alone gives 0.02
        self.assertAlmostEqual(sequential.threshold(q, 0.5), 1e-4, delta=1e-9)
        # the second round never makes it worse than the first alone
        self.assertEqual(sequential.q_value(0.001, 0.9, 0.5), 0.002)

    def test_the_level_holds_when_only_slow_looking_first_rounds_go_on(self):
        # uniform p-values (no slowdown): the round goes on only where p1 <= MAX_P1, the case
        # that inflates a naive pooled test; rejections at a stay under a
        rng = np.random.default_rng(2)
        p1, p2 = rng.random(200000), rng.random(200000)
        for a in (0.05, 0.0025):
            q = [sequential.q_value(x, y if x <= sequential.MAX_P1 else None, 0.5)
                 for x, y in zip(p1, p2)]
            rate = np.mean(np.asarray(q) <= a)
            self.assertLess(rate, a * 1.1)
            # the bound for stopping (no p1 over MAX_P1 goes on) is counted in c(a), so the
            # level is spent: without it, 66-78% of a (a review's figure)
            self.assertGreater(rate, a * 0.9)
        # the naive rule (both rounds' p-values as if one round, at a) is what this avoids
        naive = np.mean((p1 <= 0.0025) | ((p1 <= sequential.MAX_P1) & (p2 <= 0.0025 / p1 * 0.05)))
        self.assertGreater(naive, 0.0025)

    def test_chosen_are_the_undecided_of_least_p1(self):
        first = {("strategy", "a"): (0.001, 1.08), ("strategy", "b"): (0.03, 1.2),
                 ("size", "c"): (sequential.MAX_P1 * 1.01, 1.1), ("size", "d"): (0.002, 1.01),
                 ("strategy", "e"): (1e-6, 1.3)}
        self.assertEqual(sequential.chosen(first, {("strategy", "e")}, Options()),
                         [("strategy", "a"), ("strategy", "b")])
        self.assertEqual(sequential.chosen(first, set(), Options(), limit=1),
                         [("strategy", "e")])


    def test_no_second_round_path_above_the_bound_for_stopping(self):
        top = sequential.MAX_P1
        self.assertEqual(sequential.q_value(top * 1.2, 1e-9, 0.5), min(1.0, top * 2.4))
        self.assertLess(sequential.q_value(top * 0.8, 1e-9, 0.5), top * 1.6)
        # at the bound itself the second round still counts (the exact U distribution can
        # give p exactly at it)
        self.assertLess(sequential.q_value(top, 1e-6, 0.5), 1e-5)

    def test_an_infinite_estimate_is_not_widened(self):
        b = [1e-3 * (1 + 0.01 * k) for k in range(8)]
        h = [math.inf] * 8
        self.assertLess(sequential.rank_p(b, h, 0.01, 1.5), 0.001)


class Copies(unittest.TestCase):
    def test_the_second_round_runs_from_copies_written_afresh(self):
        import tempfile
        from hotbench.compare import copies
        from hotbench.compare.arms import Arm
        with tempfile.TemporaryDirectory() as d:
            binary = os.path.join(d, "hotbench")
            with open(binary, "wb") as f:
                f.write(b"\x7fELF" + b"x" * 100)
            a = Arm("base", binary)
            first = copies.write(a, 3, d)
            self.assertEqual(a.describe()["copies"], 3)
            again = copies.write(a, 3, d, first=4)
            # compare.json counts every file the arm ran from, both rounds'
            self.assertEqual(a.describe()["copies"], 6)
            self.assertEqual([os.path.basename(os.path.dirname(p)) for p in again],
                             ["base-4", "base-5", "base-6"])
            self.assertFalse(set(first) & set(again))
            self.assertEqual(sorted(copies.take(a)[0] for _ in range(3)), [4, 5, 6])
            self.assertEqual(os.stat(first[0]).st_ino != os.stat(again[0]).st_ino, True)


class RoundSize(unittest.TestCase):
    def test_the_round_fills_its_seconds_between_its_bounds(self):
        self.assertEqual(sequential.blocks(sequential.ROUND_S / 12.5, 5), 12)
        self.assertEqual(sequential.blocks(sequential.ROUND_S, 5), 5)
        self.assertEqual(sequential.blocks(1e-3, 5), sequential.MAX_BLOCKS)
        self.assertEqual(sequential.blocks(1e-3, sequential.MAX_BLOCKS + 3),
                         sequential.MAX_BLOCKS + 3)  # --confirm-rounds wins
        self.assertEqual(sequential.blocks(0.0, 5), 5)
        # no more than the first round took
        self.assertEqual(sequential.blocks(1.0, 3, 11.5), 11)
        self.assertEqual(sequential.blocks(1.0, 3, 1.0), 3)

    def test_a_round_run_in_two_calls_numbers_its_processes_and_blocks_on(self):
        import random
        import tempfile
        from hotbench.compare.arms import Arm
        from hotbench.compare.trials import interleaved
        from test_compare import fake_hotbench
        with tempfile.TemporaryDirectory() as d:
            fake = fake_hotbench(d)
            arms = (Arm("base", fake), Arm("head", fake))
            settings = dict(profile="full", budget_s=0.25, min_time=0.01, env={}, isolate=None)
            s, lines, rng = Samples(), [], random.Random(1)
            interleaved(arms, settings, "^g/", 1, d, "confirm2", s, rng, lines.append)
            interleaved(arms, settings, "^g/", 2, d, "confirm2", s, rng, lines.append)
            self.assertEqual([p["block"] for p in s.processes], [1] * 4 + [2] * 4 + [3] * 4)
            self.assertEqual(len({p["json"] for p in s.processes}), 12)
            self.assertEqual(sorted(set(s.block)), [("confirm2", b) for b in (1, 2, 3)])
            self.assertIn("confirm2 5/12 ", lines[4])


class RoundsPooled(unittest.TestCase):
    def test_rounds_at_different_host_speeds_pool_their_shifts_not_their_levels(self):
        o, aligned, raw = Options(), [], []
        for seed in range(6):
            rng = np.random.default_rng(seed)
            # a 4% slowdown; the second round's host 2x faster, outliers left out unevenly
            first = (arm(rng, 4, 1.0, 0.03), arm(rng, 10, 1.04, 0.03), 1.0)
            second = (arm(rng, 40, 0.5, 0.03), arm(rng, 20, 0.52, 0.03), 1.0)
            self.assertTrue(confirmation.both_above(first, second, o))
            tv = confirmation.shown(first, second, 0.95, o)
            self.assertEqual(tv["rounds"], 2)
            aligned.append(tv["ratio"])
            raw.append(confirmation.test_verdict(first[0] + second[0], first[1] + second[1],
                                                 0.95, o)["ratio"])
            # a second round that showed no slowdown: the pooled estimate stays under 1 + e
            flat = (arm(rng, 40, 0.5, 0.03), arm(rng, 40, 0.5, 0.03), 1.0)
            self.assertFalse(confirmation.both_above(first, flat, o))
        self.assertAlmostEqual(float(np.mean(aligned)), 1.04, delta=0.01)
        self.assertGreater(float(np.mean(raw)), 1.05)  # the levels' mix, read as a shift

    def test_the_pooled_values_stay_in_the_first_rounds_seconds(self):
        rng = np.random.default_rng(7)
        first = (arm(rng, 10, 3.0, 0.01), arm(rng, 10, 3.12, 0.01), 1.0)  # 3 ms
        second = (arm(rng, 40, 1.5, 0.01), arm(rng, 40, 1.56, 0.01), 1.0)
        tv = confirmation.shown(first, second, 0.95, Options())
        self.assertAlmostEqual(tv["base_s"], 3e-3, delta=1e-4)  # seconds, not a ratio
        self.assertAlmostEqual(tv["head_s"], 3.12e-3, delta=1e-4)

    def test_a_round_an_arm_lacks_is_left_out_of_the_pooled_values(self):
        rng = np.random.default_rng(8)
        first = (arm(rng, 10, 1.0, 0.01), arm(rng, 10, 1.05, 0.01), 1.0)
        for second in (([], arm(rng, 10, 0.5, 0.01), 1.0),
                       (arm(rng, 10, 0.5, 0.01), [], 1.0),
                       ([(1, 0.0)] * 10, arm(rng, 10, 0.5, 0.01), 1.0)):
            base, head = confirmation.rounds_pooled(first, second)
            self.assertEqual((base, head), (first[0], first[1]))
            tv = confirmation.shown(first, second, 0.95, Options())
            self.assertAlmostEqual(tv["ratio"], 1.05, delta=0.02)


class Holm(unittest.TestCase):
    def setUp(self):
        self.rng, self.opts = np.random.default_rng(3), Options()

    def unchanged(self, n=10):
        return (arm(self.rng, n, 1.0, 0.03), arm(self.rng, n, 1.0, 0.03), 1.0)

    def test_a_second_round_confirms_what_the_first_left_undecided(self):
        tests = {("strategy", "s%d" % k): self.unchanged() for k in range(9)}
        # a 5% slowdown, 4% noise: a first round of p1 over 0.0025, ten times Holm's first
        # level at m = 10 (one round cannot reject it), then a second of p2 <= 0.01
        slow = self.drawn(lambda p: 0.0025 < p < 0.05)
        again = self.drawn(lambda p: p <= 0.01)
        tests[("strategy", "slow")] = slow
        one = step_down(tests, self.opts)
        two = step_down(tests, self.opts, {("strategy", "slow"): again}, 0.5)
        self.assertNotEqual(one[("strategy", "slow")]["verdict"], "regressed")
        self.assertEqual(two[("strategy", "slow")]["verdict"], "regressed")  # ... two do
        self.assertEqual(two[("strategy", "slow")]["rounds"], 2)
        self.assertFalse(any(two[k]["verdict"] == "regressed" for k in tests if k[1] != "slow"))

    def drawn(self, keep):
        """A test of a 5% slowdown with 4% noise, 10 runs a side, whose p-value keep accepts."""
        for _ in range(500):
            t = (arm(self.rng, 10, 1.0, 0.04), arm(self.rng, 10, 1.05, 0.04), 1.0)
            if keep(sequential.p_value(*t[:2], self.opts)):
                return t
        self.fail("no such test drawn")

    def test_a_first_round_that_spent_half_its_level_says_so(self):
        # p1 between a / 2 and a: the one-round rule passes, the planned two-round one not
        # with no second round to help
        for _ in range(200):
            t = (arm(self.rng, 10, 1.0, 0.03), arm(self.rng, 10, 1.06, 0.03), 1.0)
            p = sequential.p_value(*t[:2], self.opts)
            if 0.0125 < p <= 0.025:
                break
        else:
            self.fail("no first round of p in (0.0125, 0.025] drawn")
        self.assertEqual(step_down({"x": t}, self.opts)["x"]["verdict"], "regressed")
        half = step_down({"x": t}, self.opts, {}, 0.5)["x"]
        self.assertEqual(half["verdict"], "inconclusive")
        self.assertIn("sequential.py", half["why"])

    def test_a_second_round_that_showed_nothing_is_no_regression(self):
        # at Holm's later step p1 <= f a holds, but the test went on and its second round ran
        # 3% faster: both rounds together put the estimate under 1 + e
        slow = self.drawn(lambda p: 0.0025 < p <= 0.0125)
        strong = (arm(self.rng, 10, 1.0, 0.01), arm(self.rng, 10, 1.3, 0.01), 1.0)
        faster = (arm(self.rng, 10, 1.0, 0.01), arm(self.rng, 10, 0.97, 0.01), 1.0)
        tests = {"slow": slow, "strong": strong}
        out = step_down(tests, self.opts, {"slow": faster}, 0.5)
        self.assertEqual(out["strong"]["verdict"], "regressed")
        self.assertLessEqual(sequential.q_value(sequential.p_value(*slow[:2], self.opts),
                                                1.0, 0.5), 0.025)  # p1 alone would reject
        self.assertNotEqual(out["slow"]["verdict"], "regressed")
        alone = step_down(tests, self.opts, {}, 0.5)
        self.assertEqual(alone["slow"]["verdict"], "regressed")

    def test_unchanged_compares_rarely_confirm_anything(self):
        # 300 unchanged compares of 8 suspect strategies, the second round going to those of
        # least p1 as the compare chooses them: any false regression in at most 2.5% (ALPHA / 2)
        # of the compares. A sanity check of the wiring, far from the level's edge (unchanged
        # code, not 1% slower): the level itself is test_the_level_holds_when_... above and
        # results/notes/confirmation-level.md
        false = 0
        for _ in range(300):
            tests = {("strategy", "s%d" % k): self.unchanged() for k in range(8)}
            first = step_down(tests, self.opts, {}, 0.5)
            p1 = {k: (sequential.p_value(*t[:2], self.opts), first[k]["ratio"])
                  for k, t in tests.items()}
            keys = sequential.chosen(p1, {k for k, v in first.items()
                                          if v["verdict"] == "regressed"}, self.opts)
            out = step_down(tests, self.opts, {k: self.unchanged() for k in keys}, 0.5)
            false += any(v["verdict"] == "regressed" for v in out.values())
        self.assertLessEqual(false, 7)  # 2.5% of 300 (the draws are seeded)


class MissingSize(unittest.TestCase):
    def test_a_size_missing_from_an_arm_does_not_empty_its_strategy(self):
        # three sizes 10% slower; the head measured the third in no process: the strategy's
        # test pools the two it measured (a review found the whole strategy left untested)
        names = ["g/s/size:%d" % k for k in (1, 2, 3)]
        rng = np.random.default_rng(5)
        vals = {lb: {n: [1e-3 * f * math.exp(0.02 * rng.standard_normal()) for _ in range(10)]
                     for n in names} for lb, f in (("base", 1.0), ("head", 1.1))}
        s = Samples()
        for lb in ("base", "head"):
            for k in range(10):
                s.runs.append((lb, {n: (v[k], v[k]) for n, v in vals[lb].items()
                                    if not (lb == "head" and n == names[2])}))
                s.copy.append(k % 3 + 1)
        rows = {n: dict(name=n, family="g/s", time=dict(ratio=1.1)) for n in names}
        out = confirmation.judge(rows, s, s, names, Options())
        self.assertEqual([out[n]["verdict"] for n in names[:2]], ["regressed"] * 2)
        self.assertIn("2 suspect sizes pooled", out[names[0]]["text"])


    def test_sizes_missing_in_turn_leave_a_strategy_of_the_rest(self):
        # every head process misses one size in turn: no process measured all three, each
        # size has 6-7 values; the strategy pools the two that the most processes share (a
        # second review found its one test emptied)
        names = ["g/s/size:%d" % k for k in (1, 2, 3)]
        rng = np.random.default_rng(7)
        s = Samples()
        for lb, f in (("base", 1.0), ("head", 1.1)):
            for k in range(10):
                d = {n: 1e-3 * f * math.exp(0.02 * rng.standard_normal()) for n in names}
                if lb == "head":
                    del d[names[k % 3]]
                s.runs.append((lb, {n: (v, v) for n, v in d.items()}))
                s.copy.append(k % 3 + 1)
        rows = {n: dict(name=n, family="g/s", time=dict(ratio=1.1)) for n in names}
        families, family = confirmation.strategies_of(rows, names, s)
        self.assertEqual(len(families["g/s"]), 2)
        rec = confirmation.record(rows, s, s, names)
        pooled = next(t for t in rec["tests"] if t["kind"] == "strategy")
        self.assertGreaterEqual(min(len(pooled["base"]), len(pooled["head"])), 2)
        out = confirmation.judge(rows, s, s, names, Options())
        # all three ran slower themselves: each is regressed with its strategy's test
        self.assertEqual([out[n]["verdict"] for n in names], ["regressed"] * 3)
        self.assertIn("2 suspect sizes pooled", out[names[0]]["text"])

    def test_a_size_no_test_can_read_is_not_counted(self):
        # two suspect sizes, the head measured the second once: the first is its strategy's
        # only test, the second is shown and not counted (Holm's m = 1, the level 95%)
        names = ["g/s/size:1", "g/s/size:2"]
        rng = np.random.default_rng(8)
        s = Samples()
        for lb, f in (("base", 1.0), ("head", 1.1)):
            for k in range(10):
                d = {n: 1e-3 * f * math.exp(0.02 * rng.standard_normal()) for n in names}
                if lb == "head" and k:
                    del d[names[1]]
                s.runs.append((lb, {n: (v, v) for n, v in d.items()}))
                s.copy.append(k % 3 + 1)
        rows = {n: dict(name=n, family="g/s", time=dict(ratio=1.1)) for n in names}
        rec = confirmation.record(rows, s, s, names)
        self.assertEqual([(t["name"], t["counted"]) for t in rec["tests"]],
                         [(names[0], True), (names[1], False)])
        out = confirmation.judge(rows, s, s, names, Options())
        self.assertIn("95.0%", out[names[0]]["text"])


class SecondRound(unittest.TestCase):
    """confirmation.second_round: the blocks its first block's seconds fit in, the copies."""

    def run_round(self, process_s, first_s, opts):
        import types
        names = STRATEGY
        rows = {n: dict(name=n, family="g/s", suspect=True, checks=[],
                        time=dict(ratio=1.05, verdict="inconclusive")) for n in names}
        for seed in range(50):  # a first round that leaves g/s undecided with p1 <= MAX_P1
            rng = np.random.default_rng(seed)
            s = strategy_samples(rng, 1.04)
            extra = Second(0.5)
            calls, written = [], []

            def fake_interleaved(arms, settings, bfilter, blocks, trials_dir, tag, samples,
                                 rng, log):
                calls.append(blocks)
                samples.processes += [dict(seconds=process_s, tag=tag)] * (4 * blocks)

            def fake_write(arm, count, out_dir, first=1):
                written.append((arm.label, count, first))
            s.processes = [dict(seconds=first_s / 20.0, tag="confirm")] * 20
            arms = tuple(types.SimpleNamespace(label=lb, sha256=None) for lb in ("base", "head"))
            saved = confirmation.interleaved, confirmation.copies.write
            confirmation.interleaved, confirmation.copies.write = fake_interleaved, fake_write
            try:
                confirmation.second_round(rows, names, s, s, extra, (arms, {}, "/nonexistent/t",
                                                                     None), opts, lambda m: None)
            finally:
                confirmation.interleaved, confirmation.copies.write = saved
            if extra.keys:
                return calls, written, extra
        self.fail("no first round that goes on drawn")

    def test_the_round_runs_its_first_block_then_what_the_seconds_allow(self):
        o = Options()
        calls, written, extra = self.run_round(0.5, 24.5, o)  # 2 s blocks, a 24.5 s first round
        self.assertEqual(calls, [1, 11])
        self.assertEqual(written, [("base", sequential.COPIES, o.copies + 1),
                                   ("head", sequential.COPIES, o.copies + 1)])
        calls, _, _ = self.run_round(0.05, 1000.0, o)  # the round's own cap
        self.assertEqual(calls, [1, sequential.MAX_BLOCKS - 1])
        o.confirm_blocks, o.copies = 1, 12
        calls, written, _ = self.run_round(100.0, 1000.0, o)  # one block is all it gets
        self.assertEqual(calls, [1, 0])
        self.assertEqual(written[0][1:], (12, 13))


class Record(unittest.TestCase):
    names = STRATEGY

    def test_a_merge_reads_both_rounds_as_the_compare_did(self):
        rng = np.random.default_rng(4)
        first, again = strategy_samples(rng, 1.05), strategy_samples(rng, 1.05)
        rows = {n: dict(name=n, family="g/s", suspect=True, checks=[],
                        time=dict(ratio=1.05, verdict="inconclusive"))
                for n in self.names}
        extra = Second(0.5, again, [("strategy", "g/s")])
        judged = confirmation.judge(rows, first, first, self.names, Options(), extra)
        rec = confirmation.record(rows, first, first, self.names, extra)
        self.assertEqual([t["kind"] for t in rec["tests"] if t.get("second")],
                         ["size"] * 3 + ["strategy"])
        self.assertTrue(all(t["share"] == 0.5 for t in rec["tests"]))
        doc = dict(rows=[dict(r, verdict=judged[n]["verdict"],
                              checks=[dict(kind="time", verdict=judged[n]["verdict"],
                                           text=judged[n]["text"])])
                         for n, r in rows.items()], confirmation=rec)
        merged, _ = merge.rejudge([("shard", doc)], Options())
        for n in self.names:
            self.assertEqual(merged[n]["verdict"], judged[n]["verdict"])
        self.assertTrue(any(judged[n]["verdict"] == "regressed" for n in self.names))
        self.assertIn("two rounds: q", next(judged[n]["text"] for n in self.names
                                            if judged[n]["verdict"] == "regressed"))


if __name__ == "__main__":
    unittest.main()

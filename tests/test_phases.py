#!/usr/bin/env python3
"""test_phases.py - the phase correction (scripts/hotbench/compare/phases.py) and the strategies
it may read phases from (steady.py), on made-up processes: slow phases inside processes
removed, a change of a strategy kept whole, no change lent to a steady neighbour, the test
hooks' injected strategies never read, and the level of the intervals kept in unchanged
compares. Correctness only, never timings."""

import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

import numpy as np  # noqa: E402

from hotbench.compare import phases, steady  # noqa: E402
from hotbench.compare.merge import merged_phases  # noqa: E402
from hotbench.compare.table import phases_text  # noqa: E402
from hotbench.compare.arms import Arm  # noqa: E402
from hotbench.compare.trials import Samples  # noqa: E402
from hotbench.compare.verdicts import time_verdict  # noqa: E402

STRATEGIES = ["a/s%d" % k for k in range(6)] + ["b/s%d" % k for k in range(6)]
SIZES = 5
SENSITIVITY = {f: (0.3, 1.0, 1.5)[k % 3] for k, f in enumerate(STRATEGIES)}


class FakeRun:
    """What Samples.add reads of a runjson.Run."""

    def __init__(self, rows):
        self.rows, self.skipped, self.failed, self.context = rows, [], [], {}


def process(rng, slow, injected=(), phased=True, noise=0.02, sensitivity=None, whole=False):
    """One process's rows in run order: each strategy's sizes in turn, a slow phase (1.1x to
    1.45x, felt by each strategy to the power of its sensitivity) over a random third of the
    run (none unless phased), noise (2%); slow {strategy: factor} multiplies the head's own
    slowdowns; the strategies of injected carry the test hooks' counter; sensitivity
    {strategy: power} (default SENSITIVITY); whole: the phase spans the whole process."""
    sensitivity = sensitivity or SENSITIVITY
    n = len(STRATEGIES) * SIZES
    start = rng.integers(0, n)
    length, factor = rng.integers(n // 4, n // 2), rng.uniform(1.1, 1.45) if phased else 1.0
    if whole:
        start, length = 0, n
    rows = []
    for k in range(n):
        fam = STRATEGIES[k // SIZES]
        f = factor ** sensitivity[fam] if start <= k < start + length else 1.0
        v = 1e-3 * (1 + k % SIZES) * f * slow.get(fam, 1.0) * math.exp(
            noise * rng.standard_normal())
        group, strategy = fam.split("/")
        rows.append(dict(name="%s/n:%d" % (fam, k % SIZES), family=group, strategy=strategy,
                         params={}, cpu=v, t=v,
                         counters={"hb_injected_fraction": 0.5} if fam in injected else {}))
    return rows


def compare(seed, slow=None, steady=None, injected=(), blocks=3, **kw):
    """Samples of blocks ABBA blocks (2 processes of each arm a block), the head slowed by slow
    ({strategy: factor}), phases read from the strategies steady says (a function, or None);
    settled (the correction made); kw: process()'s."""
    rng = np.random.default_rng(seed)
    s = Samples(steady=steady)
    for b in range(blocks):
        for label in ("base", "head", "head", "base"):
            rows = process(rng, slow if label == "head" else {}, injected, **kw)
            s.add(label, FakeRun(rows), 1, ("screen", b))
    s.cpu
    return s


def interval(s, name):
    b, h = s.values("base", name), s.values("head", name)
    return time_verdict(b, h, 0.02, widen=s.widen([name]))


def pooled_ratio(s, fam):
    names = ["%s/n:%d" % (fam, k) for k in range(SIZES)]
    b, h = s.pooled("base", names), s.pooled("head", names)
    return math.exp(np.median(np.log(h)) - np.median(np.log(b)))


class Correction(unittest.TestCase):
    def test_slow_phases_inside_processes_are_removed(self):
        slow = {"a/s1": 1.05}
        widths = {}
        for reading in (None, lambda f: True):
            s = compare(11, slow, reading)
            ws = [math.log(interval(s, n)["ci"][1] / interval(s, n)["ci"][0])
                  for n in s.family]
            widths[reading is None] = float(np.median(ws))
        self.assertLess(widths[False], widths[True] * 0.75, widths)
        self.assertAlmostEqual(pooled_ratio(s, "a/s1"), 1.05, delta=0.03)

    def test_a_change_of_one_case_is_kept_and_lent_to_no_neighbour(self):
        # case a slowed 5% in the head, b steady, every strategy felt each process's speed
        # alike: read as a phase, a's rows would take up to 5% off the head's b rows beside
        # them (and the phases' removal leaves the change of a's rows whole)
        slow = {f: 1.05 for f in STRATEGIES if f.startswith("a/")}
        alike = {f: 1.0 for f in STRATEGIES}
        s = compare(20, slow, lambda f: f.startswith("b/"), noise=0.002, sensitivity=alike,
                    whole=True)
        raw = compare(20, slow, None, noise=0.002, sensitivity=alike, whole=True)
        for f in STRATEGIES:
            want = 1.05 if f.startswith("a/") else 1.0
            self.assertAlmostEqual(pooled_ratio(s, f), want, delta=0.005, msg=f)
        self.assertGreater(max(abs(pooled_ratio(raw, f) - 1.0) for f in STRATEGIES
                               if f.startswith("b/")), 0.01)  # the phases, uncorrected

    def test_injected_strategies_are_never_read(self):
        # a/s0 runs 3x slower in the head and says so by its counter: were it read as a
        # phase, its neighbours in the head would be corrected by up to a factor of 3
        s = compare(13, {"a/s0": 3.0}, lambda f: True, injected=("a/s0",), noise=0.002,
                    sensitivity={f: 1.0 for f in STRATEGIES}, whole=True)
        self.assertEqual(s.injected, {"a/s0"})
        self.assertAlmostEqual(pooled_ratio(s, "a/s0"), 3.0, delta=0.02)
        for f in STRATEGIES[1:]:
            self.assertAlmostEqual(pooled_ratio(s, f), 1.0, delta=0.005, msg=f)

    def test_an_injected_strategy_takes_its_whole_case_out(self):
        # as a change of that case's code would: its other strategies are not read either
        s = compare(15, {"a/s0": 1.05}, steady.Steady(None), injected=("a/s0",))
        self.assertEqual(s.read, sorted(f for f in STRATEGIES if f.startswith("b/")))

    def test_an_arm_of_too_few_processes_is_left_as_it_is(self):
        s = compare(16, {}, lambda f: True, blocks=1)  # 2 processes an arm
        raw = compare(16, {}, None, blocks=1)
        self.assertIsNone(s.thetas)
        for n in s.family:
            self.assertEqual(s.values("base", n), raw.values("base", n))

    def test_no_phase_from_benchmarks_run_far_away(self):
        order = ["x/a/%d" % k for k in range(phases.MAX_DISTANCE + 20)]
        order[0] = "y/b/0"
        fam = {n: "/".join(n.split("/")[:2]) for n in order}
        res = {n: 0.1 for n in order}
        near = set(fam.values())
        self.assertAlmostEqual(phases.phase(order, res, fam, 0, near), 0.1)
        gap = ["z/c/%d" % k for k in range(phases.MAX_DISTANCE)]
        far = order[:1] + gap + order[1:]
        fam.update({n: "z/c" for n in gap})
        res.update({n: 0.1 for n in gap})
        self.assertIsNone(phases.phase(far, res, fam, 0, {"x/a"}))

    def test_nothing_is_corrected_without_neighbours_or_steady(self):
        for reading in (None, lambda f: False):
            s = compare(14, {}, reading)
            raw = compare(14, {}, None)
            for n in s.family:
                self.assertEqual(s.values("head", n), raw.values("head", n))

    def test_the_level_holds_in_unchanged_compares(self):
        # each unchanged compare's 95% intervals, strategies pooled across sizes being
        # correlated, counted per row: the share that excludes 1 stays near the level
        out = total = 0
        for seed in range(40):
            s = compare(100 + seed, {}, lambda f: True)
            for n in s.family:
                lo, hi = interval(s, n)["ci"]
                out += lo > 1 or hi < 1
                total += 1
        self.assertLess(out / total, 0.08, "%d of %d" % (out, total))

    def test_phase_of_the_nearest_other_strategies(self):
        order = ["x/a/1", "y/b/1", "y/b/2", "z/c/1"]
        res = {"x/a/1": 0.1, "y/b/1": 0.5, "y/b/2": 0.5, "z/c/1": 0.3}
        fam = {n: "/".join(n.split("/")[:2]) for n in order}
        phases.MIN_NEIGHBOURS, keep = 2, phases.MIN_NEIGHBOURS
        try:
            # y/b/1's own strategy left out: x/a/1 and z/c/1, median 0.2
            self.assertAlmostEqual(phases.phase(order, res, fam, 1, set(fam.values())), 0.2)
            # z/c not steady: only x/a/1, fewer than MIN_NEIGHBOURS
            self.assertIsNone(phases.phase(order, res, fam, 1, {"x/a", "y/b"}))
        finally:
            phases.MIN_NEIGHBOURS = keep


class Record(unittest.TestCase):
    def test_shards_merge_their_phases_and_the_table_says_what_was_corrected(self):
        one = {"screening": {"read": ["a/s0"], "theta": {"a/s0": 0.0, "b/s0": 1.2}},
               "confirmation": None}
        two = {"screening": {"read": ["c/s0"], "theta": {"c/s0": 0.5}}, "confirmation": None}
        got = merged_phases([one, two, None])
        self.assertEqual(got, {"screening": {"read": ["a/s0", "c/s0"], "theta": {
            "a/s0": 0.0, "b/s0": 1.2, "c/s0": 0.5}}})
        self.assertIsNone(merged_phases([None, {"screening": None, "confirmation": None}]))
        self.assertIn("2 of 3 strategies corrected", phases_text(got))
        self.assertIn("none corrected", phases_text(
            {"screening": {"read": ["a/s0"], "theta": {"a/s0": 0.0}}}))
        self.assertIn("not corrected", phases_text({"screening": None}))


class Steady(unittest.TestCase):
    def arms(self, base_env, head_env, binary="/nonexistent/hotbench"):
        return Arm("base", binary, base_env), Arm("head", binary, head_env)

    def test_an_environment_of_unknown_reach_reads_no_phase(self):
        for env in ({"HB_INJECT": "growth"}, {"MY_VAR": "1"},
                    {"HB_INJECT": "slowdown:0.1,parser", "HB_INJECT_SELECT": "^a/s0$"}):
            self.assertIsNone(steady.steady(*self.arms({}, env), None, lambda m: None), env)

    def test_one_binary_with_the_slowdown_hook_reads_every_strategy(self):
        base, head = self.arms({"HB_INJECT": "slowdown:0.1", "HB_INJECT_SELECT": "^a$x"},
                               {"HB_INJECT": "slowdown:0.1", "HB_INJECT_SELECT": "^a$"})
        got = steady.steady(base, head, None, lambda m: None)
        self.assertTrue(got("a/s0") and got("b/s1"))


if __name__ == "__main__":
    unittest.main()

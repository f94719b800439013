#!/usr/bin/python3
"""test_gate_power.py [SRCDIR] - scripts/gate_power.py's logic without hotbench or the compare
engine (scripts/hotbench/compare/power.py): which strategy of a made-up manifest is slowed down,
how a compare's rows are judged (detected, by which check, false alarms), the table's lines and
the goals, and the Markdown written from a made-up measurement.
Prints one line per check and 'N passed, M failed'; exits 1 on a failure."""

import json
import os
import sys
import tempfile

SRC = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, os.path.join(SRC, "scripts"))
sys.path.insert(0, os.path.join(SRC, "tests"))
from hotbench.compare import power  # noqa: E402
from test_report_util import check, done  # noqa: E402


class FakeManifest:
    def __init__(self, cases):
        self.cases = cases


def strategies(*names):
    return [{"name": n, "role": "ceiling" if n == "top" else "strategy"} for n in names]


def case(name, groups):
    return {"name": name, "groups": groups}


def group(name, ref, yard, names):
    return {"name": name, "reference": ref, "yardstick": yard, "strategies": strategies(*names)}


# {case, its groups, the benchmarks the selection lists, expected family or None, why}
TARGETS = [
    ("a", [group("a", "ref", "top", ["top", "ref", "x", "y"])], ["a/top/n:1/", "a/x/n:1/"],
     "a/x", "the first strategy neither reference nor yardstick nor ceiling"),
    ("b", [group("b", "ref", "y", ["ref", "y", "x.1"])], ["b/y/n:1/", "b/x.1/n:2/"],
     "b/x.1", "the yardstick is skipped too"),
    ("c", [group("c", "ref", None, ["ref", "x", "y"])], ["c/y/n:1/"],
     "c/y", "x is not in the selection: the next one"),
    ("d", [group("d", "ref", None, ["ref", "x"]), group("d2", None, None, ["z"])],
     ["d2/z/n:1/"], None, "only the first group counts"),
    ("e", [], [], None, "no group"),
]


def test_targets():
    for name, groups, names, want, why in TARGETS:
        targets, skipped = power.choose_targets(FakeManifest([case(name, groups)]), names)
        got = targets[0]["family"] if targets else None
        check(got == want and (not targets) == bool(skipped),
              "choose_targets %s: %s (%s, got %s)" % (name, want, why, got))
    rx = power.family_regex(["b/x.1", "a/x"])
    check(rx == r"^(b/x\.1|a/x)$", "family_regex escapes the dot and anchors (%s)" % rx)


def row(family, verdict, check_="time"):
    return {"name": family + "/n:1/", "family": family, "verdict": verdict, "check": check_,
            "ratio": 1.05, "ci": [1.01, 1.09]}


# {rows, level, detected, by_time, by_instructions, false rows, why}
CLASSIFY = [
    ([row("a/x", "regressed"), row("a/y", "same")], 0.05, True, True, False, 0,
     "caught by time"),
    ([row("a/x", "regressed", "instructions"), row("a/y", "regressed")], 0.05, True, False, True,
     1, "caught by instructions, a false alarm beside it"),
    ([row("a/x", "regressed", "instructions,time")], 0.1, True, True, True, 0, "both checks"),
    ([row("a/x", "inconclusive"), row("a/y", "same")], 0.03, False, False, False, 0, "missed"),
    ([row("a/x", "regressed")], 0, False, False, False, 1,
     "at level 0 every regressed row is a false alarm"),
]


def test_classify():
    for rows, level, det, bt, bi, nfalse, why in CLASSIFY:
        c = power.classify(rows, ["a/x"], level)
        got = (c["detected"], c["by_time"], c["by_instructions"], len(c["false_rows"]))
        check(got == (det, bt, bi, nfalse), "classify: %s (got %s)" % (why, got))


def records(level, n, detected, false=0, minutes=2.0):
    return [dict(level=level, detected=i < detected, by_time=i < detected, by_instructions=False,
                 false_rows=["r"] if i < false else [], wall_s=minutes * 60, summary={"same": 3})
            for i in range(n)]


def test_goals():
    # {lines, default options, expected verdicts, why}
    table = [
        ([power.summarize(0.0, records(0.0, 20, 0)), power.summarize(0.05, records(0.05, 10, 9))],
         True, ["pass", "pass", "pass"], "9/10, no false alarm, 2 minutes"),
        ([power.summarize(0.0, records(0.0, 20, 0, false=1)),
          power.summarize(0.05, records(0.05, 10, 8, minutes=11))],
         True, ["fail", "fail", "fail"], "8/10, one false alarm, 11 minutes"),
        ([power.summarize(0.1, records(0.1, 10, 10))], False, ["not measured", "not measured",
                                                               "pass"], "levels 0 and 5% absent"),
    ]
    for lines, default, want, why in table:
        got = [v for _, v, _ in power.goals(lines, default)]
        check(got == want, "goals: %s (got %s)" % (why, got))
    recs = records(0.05, 10, 10)
    for r in recs:
        r["injected_rows"] = [{"ratio": 1.30}]
    g = power.goals([power.summarize(0.05, recs)], True)[0]
    check(g[1] == "not measured" and "measured +30.0%, not 5%" in g[2],
          "a 5%% injection measured as +30%% leaves the goal not measured (%s)" % (g,))
    # 10 of 10 caught, and 7 of 10 (a fail): a miss of the size that favours the verdict
    # leaves it not measured, one that holds a fortiori keeps it
    for caught, ratio, want in ((10, 1.079, "not measured"), (10, 1.061, "pass"),
                                (10, 1.039, "pass"), (10, 1.036, "pass"),
                                (7, 1.079, "fail"), (7, 1.036, "not measured"),
                                (7, 1.05, "fail")):
        recs = records(0.05, 10, caught)
        for r in recs:
            r["injected_rows"] = [{"ratio": ratio}]
        g = power.goals([power.summarize(0.05, recs)], True)[0]
        check(g[1] == want and ("missed its size" in g[2]) == (abs(ratio - 1.05) > 0.0125),
              "%d/10 caught of a 5%% injection measured as %+.1f%%: %s (%s)" % (
                  caught, (ratio - 1) * 100, want, g))
    s = power.summarize(0.05, records(0.05, 10, 9, false=2))
    check((s["detections"], s["rate"], s["false_compares"], s["false_rows"]) == (9, 0.9, 2, 2),
          "summarize counts detections, rate and false alarms")
    recs = records(0.05, 3, 3)
    for r, ratio in zip(recs, (1.04, 1.06, None)):
        r["injected_rows"] = [{"ratio": ratio}]
    c = power.summarize(0.05, recs)["change_median"]
    check(c is not None and abs(c - 0.05) < 1e-9, "the measured change is the median of the "
          "injected rows' ratios, rows without one left out (%s)" % c)


def test_render():
    lines = [power.summarize(0.0, records(0.0, 2, 0)), power.summarize(0.05, records(0.05, 2, 1))]
    doc = dict(label="idle", targets=[{"family": "a/x"}], inject_select="^(a/x)$",
               options={"load": 0}, machine_before=power.machine(SRC), machine_after=None,
               lines=lines, goals=power.goals(lines, True), skipped=[("e", "no group")])
    md = power.render(doc)
    check("| 5% | - | 2 | 1/2 | 0.50 |" in md, "the table has the 5% line with 1/2 detected")
    check("| none | - | 2 | - | - |" in md, "level 0 is 'none', without detections")
    check("**fail** (1/2 compares: fewer than 10" in md, "the goal line says fail and why")
    check("Case e not measured: no group." in md, "a case without a target is named")


def write_trial(d, name, rows):
    with open(os.path.join(d, name), "w") as f:
        json.dump({"context": {}, "benchmarks": rows}, f)


def test_injection_reach():
    def row(fam, frac=None, paid=None, **kw):
        r = dict(name=fam + "/n:1/real_time", iterations=10, **kw)
        if frac is not None:
            r["hb_injected_fraction"] = frac
        if paid is not None:
            r["hb_injected_paid"] = paid
        return r
    with tempfile.TemporaryDirectory() as d:
        check(power.injection_reach(d, {"a/x"}, 0.05) is None, "no trial: None")
        write_trial(d, "screen-001-head.json", [row("a/x", 0.05, 0.049), row("a/y")])
        write_trial(d, "screen-002-base.json", [row("a/x"), row("a/y")])
        write_trial(d, "screen-003-head.json", [row("a/x", 0.05, 0.051),
                                                row("a/x", error_occurred=True)])
        write_trial(d, "confirm-005-head.json", [row("a/x", 0.05, 0.02), row("a/x")])
        write_trial(d, "confirm-006-head.json", [row("a/y")])
        write_trial(d, "probe-base.json", [row("a/x", 0.05)])
        got = power.injection_reach(d, {"a/x"}, 0.05)
        check(got["head"] == 3, "head processes that ran an injected row: 3 (one ran none, "
              "the probe is no trial) (%s)" % got)
        check(got["head_reached"] == 2, "a process with one injected row lacking the counter "
              "is not reached; an errored row does not count (%s)" % got)
        check(got["base_reached"] == 0, "no base process carries the counter (%s)" % got)
        check(got["paid"] == [0.02, 0.049, 0.051], "paid: least, median, most (%s)" % got)
        write_trial(d, "screen-007-base.json", [row("a/y", 0.05)])
        check(power.injection_reach(d, {"a/x"}, 0.05)["base_reached"] == 1,
              "a base process with the counter on any row is a leak")
        check(power.injection_reach(d, {"a/x"}, 0.1)["head_reached"] == 0,
              "the counter at another fraction does not reach this level")
    recs = [dict(level=0.05, index=0, injection=dict(head=6, head_reached=5, base_reached=0,
                                                     paid=[0.04, 0.05, 0.06]))]
    md = "\n".join(power.injection_lines(recs))
    check("| 0.05-000 | 5 of 6 | 0 | 4.0% / 5.0% / 6.0% |" in md,
          "the injection table names the compare, the reach and what was paid")
    check(power.injection_lines([dict(level=0, index=0, injection=None)]) == [],
          "no injection table without a slowed-down compare")


def test_inject_envs():
    import re
    import gate_power
    select = power.family_regex(["a/x", "b/y.1"])
    head, base = gate_power.inject_envs(0.05, select)
    check(head["HB_INJECT"] == base["HB_INJECT"] == "slowdown:0.05",
          "both arms parse the same slowdown word (%s, %s)" % (head, base))
    check(len(head["HB_INJECT_SELECT"]) == len(base["HB_INJECT_SELECT"]),
          "the two selections are as long (the environment's size alike)")
    check(all(re.search(head["HB_INJECT_SELECT"], f) for f in ("a/x", "b/y.1")) and
          not any(re.search(base["HB_INJECT_SELECT"], f) for f in ("a/x", "b/y.1", "a/z")),
          "the head's selection matches the families, the base's none")


def test_measure_resumes():
    # a resumed series runs only what it has not recorded, and its ETA counts only those
    import io
    import contextlib
    import gate_power
    key = dict(binary="/b/hotbench", sha256="0" * 16)
    with tempfile.TemporaryDirectory() as runs:
        def rec(level, index):
            return dict(key=key, level=level, index=index, wall_s=60.0, summary={"same": 1},
                        detected=level > 0, false_rows=[], injection=None)
        with open(os.path.join(runs, "0.05-000.json"), "w") as f:  # the last one planned
            json.dump(rec(0.05, 0), f)
        ran = []
        saved = gate_power.one_compare
        gate_power.one_compare = lambda ctx, level, i: ran.append((level, i)) or rec(level, i)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                got = gate_power.measure(dict(runs=runs, key=key), [(0, 2), (0.05, 1)],
                                         lambda records: None)
        finally:
            gate_power.one_compare = saved
        lines = out.getvalue().splitlines()
        check(ran == [(0, 0), (0, 1)] and [len(got[0]), len(got[0.05])] == [2, 1],
              "measure: the recorded compare skipped, the others run (%s)" % ran)
        check(lines[0].endswith("ETA 1 min") and lines[1].endswith("ETA 0 min"),
              "measure: the ETA counts only the compares still to run: %s" % lines)


def test_confirmation_of():
    rec = dict(tests=[dict(kind="strategy", name="a/x", counted=True, share=0.5,
                           second=dict(base=[], head=[], widen=1.0)),
                      dict(kind="size", name="a/x/n:1", counted=False, share=0.5,
                           second=dict(base=[], head=[], widen=1.0)),
                      dict(kind="size", name="b/y/n:1", counted=True, share=0.5)])
    got = power.confirmation_of(rec)
    check(got == dict(tests=2, second=["a/x"], share=0.5), "confirmation_of: %s" % got)
    old = dict(tests=[dict(kind="size", name="b/y/n:1", base=[], head=[])])  # before 41b060a
    check(power.confirmation_of(old) == dict(tests=1, second=[], share=1.0),
          "confirmation_of, an old record: %s" % power.confirmation_of(old))
    check(power.confirmation_of(None) is None and power.confirmation_of({}) is None,
          "confirmation_of: none")


test_targets()
test_measure_resumes()
test_confirmation_of()
test_inject_envs()
test_injection_reach()
test_classify()
test_goals()
test_render()
done()

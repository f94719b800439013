#!/usr/bin/python3
"""test_estimate.py SRCDIR - the expected-duration model (scripts/hotbench/estimate.py) and the
compare's (scripts/hotbench/compare/duration.py): their arithmetic on hand-made rows, and their
predictions across the recorded runs of two machines, the reference VM (results/reference/:
run.json and the bench-status records) and the project's other 2-vCPU VM
(tests/fixtures/estimate/: its bench-quick runs, one with first touch 30x faster). Only recorded
figures are used: nothing is timed here. Ends with "N passed".
"""
import json
import math
import os
import sys

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(SRC, "scripts"))

from hotbench import estimate as E  # noqa: E402
from hotbench.compare import duration as D  # noqa: E402
from hotbench.compare import sequential as S  # noqa: E402

FIX = os.path.join(SRC, "tests", "fixtures", "estimate")
REF = os.path.join(SRC, "results", "reference")
TOLERANCE = 0.30  # the goal: within +-30%


def load(path):
    with open(path) as f:
        return json.load(f)


def close(a, b, rel=1e-9):
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def row(n, t, reps=3, faults=0.0, skipped=False):
    return {"n": n, "t": t, "reps": reps, "faults": faults, "skipped": skipped}


def test_floor_row_does_not_scale():
    """A benchmark at its minimum-time floor (many iterations) takes the same repetitions on a
    machine 10x slower in CPU as long as one iteration stays under the floor."""
    r = row(1000, 0.0003)  # 0.3 s a repetition
    fast = E.row_seconds(r, 1.0, 1.0, 0.3, 0.3)
    slow = E.row_seconds(r, 1.0, 10.0, 0.3, 0.3)
    assert close(fast, 3 * 0.3 + E.C_ROW + E.C_ITER * 3 * 1000 + E.C_T * 0.0003), fast
    # 10x slower: 100 iterations a repetition, the timed part unchanged
    assert close(slow, 3 * 0.3 + (E.C_ROW + E.C_ITER * 3 * 100) * 10 + E.C_T * 0.003), slow


def test_single_iteration_scales_by_its_shares():
    """A 6 s iteration whose faults are 2 s of first touch at 1 GB/s: that share scales by s_ft,
    the rest by s_cpu; once faster than the floor, the floor holds."""
    faults = 2e9 / E.PAGE  # 2 s at 1 GB/s
    r = row(1, 6.0, reps=3, faults=faults)
    got = E.row_seconds(r, 0.1, 2.0, 1.0, 0.3)  # first touch 10x faster, CPU 2x slower
    t_here = 2.0 * 0.1 + 4.0 * 2.0
    assert close(got, 3 * t_here + (E.C_ROW + E.C_ITER * 3) * 2.0 + E.C_T * t_here), got
    fast = E.row_seconds(row(1, 0.5, faults=0.5e9 / E.PAGE), 0.01, 0.1, 1.0, 0.3)
    t_here = 0.5 * 0.01  # all first touch: 5 ms here, the floor 0.3 s holds
    assert close(fast, 3 * 0.3 + (E.C_ROW + E.C_ITER * 3 * 60) * 0.1 + E.C_T * t_here), fast
    # faults beyond the iteration's time (another machine's pages) count as the whole iteration
    capped = E.row_seconds(row(1, 1.0, faults=1e12), 2.0, 1.0, 1.0, 0.3)
    assert close(capped, 3 * 2.0 + E.C_ROW + E.C_ITER * 3 + E.C_T * 2.0), capped
    assert close(E.row_seconds(row(0, 0, reps=0, skipped=True), 1.0, 3.0, 1.0, 0.3),
                 E.C_ROW * 3.0)


def test_scales_and_their_fallbacks():
    s_ft, s_cpu, notes = E.scales({"first_touch_gbps": 0.3, "cpu_mops": 300},
                                  {"first_touch_gbps": 3.0, "cpu_mops": 150, "mhz": 2000})
    assert close(s_ft, 0.1) and close(s_cpu, 2.0), (s_ft, s_cpu)
    s_ft, s_cpu, notes = E.scales({"first_touch_gbps": 0.3, "mhz": 3000},
                                  {"first_touch_gbps": 0.3, "cpu_mops": 150, "mhz": 2000})
    assert close(s_cpu, 1.5) and "record has no CPU probe" in notes[1], notes
    s_ft, s_cpu, notes = E.scales({}, None)
    assert (s_ft, s_cpu) == (1.0, 1.0) and "unscaled" in notes[0] and "unscaled" in notes[1]
    for bad in (float("nan"), float("inf"), -1, 0, True, "3"):
        assert E.scales({"first_touch_gbps": bad}, {"first_touch_gbps": 1.0})[0] == 1.0, bad


def test_run_rows_and_errors():
    doc = {"benchmarks": [
        {"name": "g/a/x:1/real_time", "run_name": "g/a/x:1/real_time", "run_type": "iteration",
         "iterations": 10, "real_time": 2.0, "time_unit": "ms", "minor_faults": 5},
        {"name": "g/a/x:1/real_time", "run_name": "g/a/x:1/real_time", "run_type": "iteration",
         "iterations": 10, "real_time": 4.0, "time_unit": "ms", "minor_faults": 5},
        {"name": "g/a/x:1/real_time_mean", "run_name": "g/a/x:1/real_time",
         "run_type": "aggregate", "real_time": 3.0, "time_unit": "ms"},
        {"name": "g/b/x:9/real_time", "run_name": "g/b/x:9/real_time", "run_type": "iteration",
         "error_occurred": True, "iterations": 0, "real_time": 0, "time_unit": "ns"}]}
    rows = E.run_rows(doc)
    assert rows["g/a/x:1/real_time"] == row(10, 0.003, reps=2, faults=5), rows
    assert rows["g/b/x:9/real_time"]["skipped"], rows
    for bad, what in (({}, "no \"benchmarks\" list"),
                      ({"benchmarks": [{"run_type": "iteration", "name": 3}]}, "no name"),
                      ({"benchmarks": [{"name": "a/b", "iterations": 1, "real_time": 1,
                                        "time_unit": "days"}]}, "no usable iterations")):
        try:
            E.run_rows(bad, "X.json")
        except E.EstimateError as e:
            assert what in str(e) and ("X.json" in str(e)), e
        else:
            raise AssertionError("no error for %r" % bad)


def test_benchmarks_price_unrecorded_by_neighbours():
    rows = {"g/a/s:1/real_time": row(100, 0.002), "g/a/s:2/real_time": row(50, 0.006),
            "h/z/s:1/real_time": row(1000, 0.0001)}
    names = ["g/a/s:1/real_time", "g/a/s:3/real_time", "g/q/s:1/real_time", "k/k/k"]
    each, info = E.benchmarks(names, rows, {"first_touch_gbps": 1.0}, {"first_touch_gbps": 1.0})
    priced = {n: E.row_seconds(r, 1.0, 1.0, 1.0, E.floor_of(rows)) for n, r in rows.items()}
    assert info["unrecorded"] == 3 and close(each[0], priced["g/a/s:1/real_time"]), (each, info)
    g_a = sorted([priced["g/a/s:1/real_time"], priced["g/a/s:2/real_time"]])
    assert close(each[1], sum(g_a) / 2), each  # its strategy's median
    assert close(each[2], sum(g_a) / 2), each  # its group's median (g/ has only g/a)
    assert close(each[3], sorted(priced.values())[1]), each  # all rows' median
    assert close(E.floor_of(rows), 0.2), E.floor_of(rows)
    try:
        E.benchmarks(names, {}, None, None)
    except E.EstimateError as e:
        assert "no benchmark" in str(e)
    else:
        raise AssertionError("no error for an empty record")


def test_pace():
    p = E.Pace(["a", "b", "c", "d"], [10.0, 10.0, 10.0, 70.0])
    assert p.remaining(5.0) == (95.0, None)  # nothing done: the estimate
    p.done("a", 12.0)
    p.done("b", 24.0)
    assert p.factor() is None  # two benchmarks: too few to trust
    p.done("c", 36.0)
    p.done("c", 99.0)  # a name seen twice counts once
    left, f = p.remaining(40.0)
    assert close(f, 1.2) and close(left, 70.0 * 1.2 - 4.0), (left, f)
    assert p.remaining(1000.0)[0] == 0.0


def test_part_seconds():
    assert close(E.part_seconds(100.0, 0.1, 2.0, 0.5), 100 * (0.05 + 1.0))
    assert close(E.part_seconds(100.0, 0.1, 2.0), 200.0)
    assert close(E.part_seconds(100.0, 0.1, 2.0, 7), 10.0)  # a share is clamped to 0..1


class Opts:
    blocks, confirm_blocks, min_time, repetitions, max_iteration_s = 3, 5, 0.01, 2, 0.1


def test_compare_plan():
    rows = {"g/a/s:1/real_time": row(100, 0.001), "g/a/s:2/real_time": row(1, 0.5),
            "g/b/s:1/real_time": row(0, 0, reps=0, skipped=True)}
    names = sorted(rows) + ["g/a/s:3/real_time"]
    p = D.plan(names, ["g/a/s:1/real_time"], rows, Opts)
    # the probe: one iteration each; s:3 (unrecorded) priced like g/a's recorded rows
    b1 = (0.001, D.C_BENCH + E.C_T * 0.001 + E.C_ITER)
    b2 = (0.5, D.C_BENCH + E.C_T * 0.5 + E.C_ITER)
    probe_t = b1[0] + b2[0] + (b1[0] + b2[0]) / 2
    probe_o = D.P0 + b1[1] + b2[1] + D.C_BENCH + (b1[1] + b2[1]) / 2
    assert close(p["probe"], probe_t + probe_o) and close(p["probe_parts"][0], probe_t), p
    s1 = (2 * 0.01, D.C_BENCH + E.C_T * 0.001 + E.C_ITER * 2 * 10)
    s2 = (2 * 0.5, D.C_BENCH + E.C_T * 0.5 + E.C_ITER * 2)
    # s:2 is over --max-iteration: left out of the screening
    one = D.P0 + s1[0] + s1[1] + D.C_BENCH + (s1[0] + s2[0]) / 2 + (s1[1] + s2[1]) / 2
    assert close(p["screening"], 12 * one), (p, one)
    # the likely confirmation: a tenth of the benchmarks as suspects and the anchors (all
    # three here: no more than the screening's own process)
    assert p["confirmation"][0] == 0 and close(p["confirmation"][1], 20 * one), p
    assert close(p["confirmation"][2], 20 * one), p
    cg = D.VALGRIND_START_S + D.C_BENCH + D.CALLGRIND_SLOWDOWN * (1 + E.C_T) * 0.001
    assert close(p["callgrind"], cg), p
    assert close(p["total"][0], probe_t + probe_o + 12 * one + cg), p
    # 10 strategies of 2 sizes: a tenth of the benchmarks' cost as suspects (the screening's
    # 80% interval's upper tail), UNDECIDED_CAP strategies of 2 sizes, the anchors
    many = {"g/a%d/s:%d/real_time" % (i // 2, i): row(100, 0.001 * i) for i in range(1, 21)}
    q = D.plan(sorted(many), [], many, Opts)
    costs = sorted(sum(D.benchmark_seconds(r, 0.01, 2)) for r in many.values())
    assert close(D.SUSPECT_SHARE, 0.1)
    likely = D.P0 + 0.1 * sum(costs) + costs[10] * D.UNDECIDED_CAP * 20 / 11 + \
        sum(costs[:D.ANCHORS])
    assert close(q["confirmation"][1], 20 * likely) and q["confirmation"][2] > 20 * likely, q
    # a second round (sequential.py), when one can be planned: up to MAX_STRATEGIES
    # strategies' sizes and the anchors; in the likely total too when the screening is
    # priced to end within --second-round-by
    assert q["second"] == 0 and close(q["total"][2] - q["total"][1], q["confirmation"][2] -
                                      q["confirmation"][1]), q

    class Second(Opts):
        second_round_by = 300.0
    sec = D.plan(sorted(many), [], many, Second)
    second = min(D.P0 + costs[10] * D.MAX_STRATEGIES * 20 / 11 + sum(costs[:S.ANCHORS]),
                 sec["screening"] / (4 * Opts.blocks))  # at most a screening process
    assert close(sec["second"], 4 * second * S.blocks(4 * second, 5)), sec
    assert 5 <= S.blocks(4 * second, 5) <= S.MAX_BLOCKS, second
    assert close(sec["total"][2], q["total"][2] + sec["second"])
    assert close(sec["likely_second"], sec["second"]) and \
        close(sec["total"][1], q["total"][1] + sec["second"]), sec
    assert "a second round of up to" in D.text(sec) and "a second round" not in D.text(q)
    assert "expected to end before" in D.text(sec)

    class Late(Opts):  # the screening is priced to end after --second-round-by
        second_round_by = sec["probe"] + sec["screening"] - 1.0
    class NoCopies(Second):  # engine.second_round_planned: no round without copies
        copies = 0
    assert D.plan(sorted(many), [], many, NoCopies)["second"] == 0
    late = D.plan(sorted(many), [], many, Late)
    assert late["likely_second"] == 0 and late["total"][1] == q["total"][1], late
    assert close(late["total"][2], sec["total"][2]) and "only if" in D.text(late)
    # after the probe: s:1 measured at 2 ms an iteration, the overheads at twice the model's
    measured = {"g/a/s:1/real_time": 0.002}
    q = D.plan(names, ["g/a/s:1/real_time"], rows, Opts, measured)
    actual = q["probe_parts"][0] + 2 * q["probe_parts"][1]
    pace, r = D.at_pace(names, ["g/a/s:1/real_time"], rows, Opts, actual, measured)
    assert close(pace, 2.0) and close(r["probe"], actual), (pace, r)
    m1 = (2 * 0.01, D.C_BENCH + E.C_T * 0.002 + E.C_ITER * 2 * 5)
    one = D.P0 * 2 + m1[0] + 2 * m1[1] + 2 * D.C_BENCH + (s1[0] + s2[0]) / 2 + \
        2 * (s1[1] + s2[1]) / 2
    assert close(r["screening"], 12 * one), (r, one)
    assert "without a confirmation" in D.text(p) and "x2.00 the model's" in D.text(r, pace)
    # isolated strategies (isolation.py): P0 once per part; g/a and g/b are parts of their own
    # beside the rest (h/x), so the probe's process pays P0 three times, not once
    two = dict(rows, **{"h/x/s:1/real_time": row(100, 0.001)})
    plain = D.plan(sorted(two), [], two, Opts)
    parts = D.plan(sorted(two), [], two, Opts, isolate="^(g)/")
    assert close(parts["probe_parts"][1] - plain["probe_parts"][1], 2 * D.P0), (parts, plain)
    assert close(D.plan(sorted(two), [], two, Opts, isolate="^(k)/")["probe"], plain["probe"])


# --- the two machines' recorded runs -----------------------------------------------------------

def calibration_of(doc):
    """A run JSON's calibration from its context (as bench.py's read_reference_run)."""
    ctx = doc.get("context", {})

    def num(k):
        try:
            return float(ctx[k])
        except (KeyError, TypeError, ValueError):
            return None
    return {"first_touch_gbps": num("hb_calib_first_touch_gbps"),
            "cpu_mops": num("hb_calib_cpu_mops"), "mhz": num("mhz_per_cpu")}


def in_process(status):
    return next(p["seconds"] for p in status["parts"] if p["name"] == "in-process")


def rows_of(doc):
    """{run_name: row} of a run JSON, or of a fixture's "rows" list (estimate.run_rows made it)."""
    if "rows" in doc:
        return {r["name"]: {k: v for k, v in r.items() if k != "name"} for r in doc["rows"]}
    return E.run_rows(doc)


def predict(rows_doc, names, here_cal):
    each, info = E.benchmarks(names, rows_of(rows_doc), calibration_of(rows_doc), here_cal)
    return sum(each), info


def within(predicted, actual, what):
    err = predicted / actual - 1
    assert abs(err) <= TOLERANCE, "%s: predicted %.0f s, recorded %.0f s (%+.0f%%)" % (
        what, predicted, actual, 100 * err)
    return err


REFERENCE_RUN = None


def reference_run():
    global REFERENCE_RUN
    if REFERENCE_RUN is None:
        REFERENCE_RUN = load(os.path.join(REF, "run.json"))
    return REFERENCE_RUN


def vm(name):
    """(status, rows document) of one recorded bench-quick run of the fixture machine."""
    return (load(os.path.join(FIX, name + "-status.json")),
            load(os.path.join(FIX, name + "-rows.json")))


def names_of(doc):
    if "rows" in doc:
        return [r["name"] for r in doc["rows"]]
    seen = []
    for b in doc["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration" and b["run_name"] not in seen:
            seen.append(b["run_name"])
    return seen


def test_reference_full_from_its_own_rows():
    """The constants were fitted on the other VM's quick run: the reference VM's full run
    (571 benchmarks, 1.7 GB inputs) is out of sample."""
    run = reference_run()
    status = load(os.path.join(REF, "bench-status.json"))
    got, _ = predict(run, names_of(run), status["calibration"])
    within(got, in_process(status), "reference full in-process")


def test_this_vm_quick_from_the_reference_rows():
    """Each recorded quick run of the other VM (first touch 0.3 and ~10 GB/s) predicted from the
    reference VM's rows and the two calibrations."""
    for name in ("vm2-quick", "vm2-quick-thp"):
        status, doc = vm(name)
        got, info = predict(reference_run(), names_of(doc), status["calibration"])
        assert info["unrecorded"] <= 10, info
        within(got, in_process(status), name + " from the reference rows")


def test_this_vm_runs_predict_each_other():
    """The other VM's two quick runs, first touch 30x apart, each predicted from the other."""
    a, b = vm("vm2-quick"), vm("vm2-quick-thp")
    for (st, doc), (st2, doc2), what in ((a, b, "thp from plain"), (b, a, "plain from thp")):
        got, _ = predict(doc, names_of(doc2), st2["calibration"])
        within(got, in_process(st2), what)


def test_recorded_estimates_are_what_the_model_gives():
    """The fixture's records hold the estimate bench.py printed: the model reproduces it from
    the record's calibration (the arithmetic, not the timing)."""
    for name in ("vm2-quick", "vm2-quick-thp"):
        status, doc = vm(name)
        est = status["estimate"]
        part = next(p for p in status["parts"] if p["name"] == "in-process")
        rows = E.run_rows(reference_run())
        floor, ref_ft = E.floor_of(rows), calibration_of(reference_run())["first_touch_gbps"]
        f = est["in_process"]  # the factors it used (4 digits)
        priced = {n: E.row_seconds(r, f["s_ft"], f["s_cpu"], ref_ft, floor)
                  for n, r in rows.items()}
        got = sum(priced[n] if n in priced else E.fallback_seconds(n, priced)
                  for n in names_of(doc))
        assert abs(got - part["expected_seconds"]) <= 0.1 + 0.002 * got, (
            name, got, part["expected_seconds"])
        assert close(est["actual_over_expected"],
                     round(status["seconds"] / est["expected_seconds"], 3)), est


def main():
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_")]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print("ok   %s" % name)
        except Exception as e:  # report every test, then fail
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, str(e)[:2000]))
    print("%d passed, %d failed" % (len(tests) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

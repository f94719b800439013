"""duration - the compare's expected duration: printed before it measures, refined by the probe's
measured pace, and set against the actual one at the end (compare.json "estimate").

A hotbench process of the compare runs each selected benchmark `repetitions` times at
--benchmark_min_time m, after verifying it once. Each benchmark is priced from its row of the
recorded reference run (results/reference/run.json, matched by name; a benchmark it lacks is
priced like its neighbours) with bench.py's terms (hotbench/estimate.py), split in two:

  timed       R x max(m, t)                     (t: seconds of one iteration; R: repetitions)
  overhead    C_BENCH + C_T x t + C_ITER x R x max(1, m / t), and P0 once per process part
              (one, or one per isolated strategy and one for the rest: isolation.py)
  probe       one process, one iteration of each benchmark of the selection (R = 1, m = 0)
  screening   blocks x 4 processes of the benchmarks the probe keeps (per iteration at most
              --max-iteration)
  confirmation  confirm_blocks x 4 processes of the suspects, the sizes of up to
              UNDECIDED_CAP undecided strategies (strategies.to_confirm) and ANCHORS anchors (the
              quickest benchmarks): 0 when the screening decides everything, likely
              SUSPECT_SHARE of the screening's benchmarks as suspects (their share of its
              process) and UNDECIDED_CAP strategies of the selection's mean number of sizes
              (each benchmark the median one) with the anchors, at most processes of the
              screening's size: the estimate is the likely total, with that range
  second      sequential.blocks (as many as fit in sequential.ROUND_S) x 4 processes of up to
              sequential.MAX_STRATEGIES strategies' sizes (the selection's mean number) and
              sequential.ANCHORS anchors, when --second-round-by is on (engine.py plans the
              round from the screening's time): in the likely total when the probe and the
              screening are priced to end within --second-round-by (a round ran in all 11
              compares of the e3cd4d2 series on the EPYC VM, 49-59 s, and in 8 of the 30 at
              ec5d069 on the Intel one), in the range's top always
  callgrind   the two arms side by side, each VALGRIND_START_S + C_BENCH per benchmark +
              CALLGRIND_SLOWDOWN x (1 + C_T) x t per benchmark of the instruction selection

P0 and C_BENCH were fitted on two compares of this project's 2-vCPU VM (2026-12-05: processes of
39 and 10 benchmarks, 1.9 and 0.53 s); bench.py's C_ROW is larger because at the default 0.5 s
minimum time google-benchmark's sizing runs add ~0.2 x m a benchmark. An input a benchmark
generates in every process (rfc3339's million rows) is under-priced: its generation is only
seen through C_T x t (the 8 rfc3339 benchmarks' processes took 0.88 s where this model says
0.5 s).

No calibration runs before a compare. After the probe, every benchmark is re-priced with the
iteration time the probe measured, and the overheads are scaled by the probe's own: (its
seconds - its timed iterations) / its predicted overhead. The builds (revisions.py) print their
own "about" figure and are not in the estimate.
"""
from .. import estimate as model
from . import isolation
from .checks import SCREEN_CONF
from .confirmation import ANCHORS
from . import sequential
from .sequential import MAX_STRATEGIES
from .strategies import UNDECIDED_CAP

VALGRIND_START_S = 1.0  # valgrind's own start (a guess: the compare of 2026-12-05 took ~1 s)
CALLGRIND_SLOWDOWN = 50.0  # callgrind runs code ~50x slower than native (valgrind's manual)
# The likely confirmation's suspects: the share of an unchanged compare's benchmarks its
# screening makes suspects, the upper tail of its 80% interval (checks.SCREEN_CONF): 10%. The
# 5 unchanged idle compares of the default selection at e3cd4d2 left 10 to 51 suspects of 270
# (median 27, 10%; results/gate-power/default-idle-e3cd4d2-runs/0-*.log).
SUSPECT_SHARE = (1 - SCREEN_CONF) / 2
P0 = 0.084  # seconds a process takes besides its benchmarks (exec, manifest, library init)
C_BENCH = 0.0213  # seconds a benchmark takes besides its iterations at a small minimum time


def benchmark_seconds(row, min_time, repetitions, t=None):
    """(timed, overhead) seconds of one benchmark in one process (the model above); row:
    estimate.run_rows's, or None for a benchmark without a record; t: its iteration's seconds
    measured here (the probe), else the record's."""
    if t is None:
        if row is None or row["skipped"] or row["reps"] == 0:
            return 0.0, C_BENCH
        t = row["t"]
    t = max(t, 1e-9)
    rep = max(min_time, t)
    return (repetitions * rep,
            C_BENCH + model.C_T * t + model.C_ITER * repetitions * max(1.0, rep / t))


def process_seconds(names, rows, min_time, repetitions, measured=None, each=None, isolate=None):
    """(timed, overhead) seconds of one hotbench process over names (a list) with the given
    settings; rows: {run_name: row} of the recorded run (may be empty: C_BENCH each); measured:
    {name: seconds of one iteration} the probe measured, preferred to the record; each: a list
    that receives each benchmark's (timed, overhead), when given; isolate: the ERE of the
    benchmarks whose strategies run as parts of their own (isolation.py), None for none."""
    measured = measured or {}
    priced = {n: benchmark_seconds(r, min_time, repetitions) for n, r in rows.items()}
    parts = len(isolation.split(names, isolate)) if isolate else 0
    timed, over = 0.0, P0 * max(1, parts)
    for n in names:
        if n in measured:
            a, b = benchmark_seconds(rows.get(n), min_time, repetitions, measured[n])
        elif n in priced:
            a, b = priced[n]
        elif priced:
            a = model.fallback_seconds(n, {k: v[0] for k, v in priced.items()})
            b = model.fallback_seconds(n, {k: v[1] for k, v in priced.items()})
        else:
            a, b = 0.0, C_BENCH
        timed += a
        over += b
        if each is not None:
            each.append((a, b))
    return timed, over


def callgrind_seconds(t):
    """Seconds one benchmark of t seconds an iteration adds to a callgrind run (the model
    above, valgrind's start aside)."""
    return C_BENCH + CALLGRIND_SLOWDOWN * (1 + model.C_T) * t


def kept(names, rows, max_iteration_s, measured=None):
    """The names the probe keeps: those at no more than max_iteration_s an iteration (measured,
    else recorded; an unrecorded one is kept)."""
    measured = measured or {}
    out = []
    for n in names:
        t = measured.get(n, rows[n]["t"] if n in rows and not rows[n]["skipped"] else None)
        if t is None or t <= max_iteration_s:
            out.append(n)
    return out


def plan(names, ir_names, rows, opts, measured=None, pace=1.0, isolate=None):
    """The compare's expected seconds, step by step: {"probe", "screening", "confirmation":
    [none, likely, all], "second" (the second round, when one can be planned), "likely_second"
    (second when the screening is priced to end within --second-round-by, else 0), "callgrind",
    "total": [none, likely, all] (without a confirmation, with the likely one and
    likely_second, with every benchmark confirmed and a second round), "benchmarks": count,
    "probe_parts": (timed, overhead)}. names: the selection's benchmarks (hotbench --benchmark_list_tests);
    ir_names: the instruction selection's (empty when the step is off); rows: the recorded run's
    rows (estimate.run_rows); opts: the compare's Options (blocks, confirm_blocks, min_time,
    repetitions, max_iteration_s); measured: {name: iteration seconds} from the probe; pace:
    the factor on every overhead (at_pace); isolate: as process_seconds'."""
    pt, po = process_seconds(names, rows, 0.0, 1, measured, isolate=isolate)
    screen_names = kept(names, rows, opts.max_iteration_s, measured)
    each = []
    st, so = process_seconds(screen_names, rows, opts.min_time, opts.repetitions, measured,
                             each, isolate)
    one = st + so * pace
    screening = opts.blocks * 4 * one
    costs = sorted(a + b * pace for a, b in each)
    sizes = len(screen_names) / max(1, len({"/".join(n.split("/")[:2]) for n in screen_names}))
    likely = (P0 * pace + SUSPECT_SHARE * sum(costs) +
              costs[len(costs) // 2] * UNDECIDED_CAP * sizes + sum(costs[:ANCHORS])) \
        if costs else 0.0
    confirmation = [0.0, opts.confirm_blocks * 4 * min(likely, one),
                    opts.confirm_blocks * 4 * one]
    second = 0.0
    # engine.second_round_planned: never without copies (the second round's p2 would share
    # the first round's file)
    if costs and getattr(opts, "second_round_by", 0) > 0 and getattr(opts, "copies", 1) > 0:
        proc = min(P0 * pace + costs[len(costs) // 2] * MAX_STRATEGIES * sizes +
                   sum(costs[:sequential.ANCHORS]), one)
        second = sequential.blocks(4 * proc, opts.confirm_blocks) * 4 * proc
    callgrind = 0.0
    if ir_names:
        ts = [(measured or {}).get(n, rows[n]["t"] if n in rows and not rows[n]["skipped"]
                                   else 0.0) for n in ir_names]
        callgrind = VALGRIND_START_S + sum(callgrind_seconds(t) for t in ts) * pace
    probe = pt + po * pace
    base = probe + screening + callgrind
    # the likely total has the second round when the screening is expected to end in time
    likely_second = second if probe + screening <= getattr(opts, "second_round_by", 0) else 0.0
    return {"probe": probe, "screening": screening, "confirmation": confirmation,
            "second": second, "likely_second": likely_second, "callgrind": callgrind,
            "total": [base, base + confirmation[1] + likely_second,
                      base + confirmation[2] + second],
            "benchmarks": len(names), "probe_parts": (pt, po)}


def at_pace(names, ir_names, rows, opts, probe_actual_s, measured, isolate=None):
    """The plan re-made after the probe: (pace, plan) where every benchmark's iteration is the
    probe's measured one and every overhead is scaled by pace = (the probe's seconds - its timed
    iterations) / its predicted overhead (1 when that is 0); the probe counts as measured."""
    p = plan(names, ir_names, rows, opts, measured, isolate=isolate)
    pt, po = p["probe_parts"]
    pace = max(probe_actual_s - pt, 0.0) / po if po > 0 else 1.0
    p = plan(names, ir_names, rows, opts, measured, pace, isolate)
    shift = probe_actual_s - p["probe"]
    p["probe"] = probe_actual_s
    p["total"] = [t + shift for t in p["total"]]
    return pace, p


def span(seconds):
    """'45 s' below 90 s, else '3.5 min'."""
    return "%.0f s" % seconds if seconds < 90 else "%.1f min" % (seconds / 60)


def text(p, pace=None):
    """One line for the log: the likely total, its range and its steps."""
    lo, likely, hi = p["total"]
    head = "~%s (~%s without a confirmation, ~%s if every benchmark is a suspect)" % (
        span(likely), span(lo), span(hi))
    if pace is not None:
        return "%s after the probe (its iterations as measured, the overheads x%.2f the " \
               "model's)" % (head, pace)
    second = ""
    if p.get("second"):
        second = ", a second round of up to %s %s" % (span(p["second"]), (
            "(the screening is expected to end before --second-round-by)"
            if p.get("likely_second") else "(only if the screening ends early enough)"))
    steps = "probe %s, screening %s, confirmation %s (%d%% of the benchmarks as suspects, " \
            "%d undecided strategies and %d anchors; it runs only when the screening leaves " \
            "a suspect or an undecided strategy)%s, callgrind %s" % (
                span(p["probe"]), span(p["screening"]), span(p["confirmation"][1]),
                round(SUSPECT_SHARE * 100), UNDECIDED_CAP, ANCHORS, second,
                span(p["callgrind"]))
    return "%s for %d benchmarks (%s; priced from the reference run, the builds aside)" % (
        head, p["benchmarks"], steps)

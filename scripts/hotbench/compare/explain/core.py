"""core - the explanation of one benchmark: both arms profiled under callgrind side by side
(profile.py), the differential table (diff.py), folded stacks (folded.py) and the differential
flame graph (flame.py); with perf, the same from sampled stacks (perf.py). Used by the compare's
hook (hook.py), `make explain` (cli.py) and `make bisect`.

The files of a strategy <group>/<name> go under <out>/explain/: <group>/<name>.svg (the flame
graph), and beside it <name>.base.callgrind / .head.callgrind (the dumps, for KCachegrind or
callgrind_annotate), .base.folded / .head.folded (flamegraph.pl's input), their logs, and with
perf <name>.perf.svg and .perf.base.folded / .perf.head.folded.
"""

import concurrent.futures
import os
import time

from . import diff, flame, folded, perf, profile

# About a minute per strategy: callgrind's runs (side by side, profile.TIMEOUT_S each), then
# perf's two runs share what is left of it, or are skipped when less than PERF_MIN_S is left.
BUDGET_S = 60.0
PERF_MIN_S = 10.0
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))


def source_roots(binaries):
    """The source trees the binaries were built from (their build directory's CMakeCache.txt
    CMAKE_HOME_DIRECTORY), this checkout and build-rev/.src/ (compare/revisions.py's one source
    path for every commit): the prefixes diff.relative strips."""
    roots = [ROOT, os.path.join(ROOT, "build-rev", ".src")]
    for b in binaries:
        try:
            with open(os.path.join(os.path.dirname(os.path.abspath(b)), "CMakeCache.txt")) as f:
                for line in f:
                    if line.startswith("CMAKE_HOME_DIRECTORY:"):
                        roots.insert(0, line.split("=", 1)[1].strip())
        except OSError:
            pass
    return sorted(set(roots), key=len, reverse=True)


def profile_arms(arms, name, settings, prefix, timeout_s):
    """{label: callgrind.Profile} of benchmark name in each arm (arms.Arm), side by side.
    Errors: profile.ProfileError of the first arm that failed, naming it."""
    def one(arm):
        try:
            return profile.profile(arm.binary, name, settings, arm.env,
                                   "%s.%s.callgrind" % (prefix, arm.label), timeout_s)
        except profile.ProfileError as e:
            raise profile.ProfileError("%s: %s" % (arm.label, e))
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(arms)) as pool:
        return dict(zip([a.label for a in arms], pool.map(one, arms)))


def rel(path, out_dir):
    return os.path.relpath(path, out_dir)


def callgrind_part(entry, arms, name, settings, out_dir, prefix, timeout_s):
    """Fills entry's callgrind part: totals, functions, svg and files."""
    profs = profile_arms(arms, name, settings, prefix, timeout_s)
    base, head = profs["base"], profs["head"]
    roots = source_roots([a.binary for a in arms])
    tb, th = diff.totals(base, head)
    entry["instructions"] = dict(base=tb, head=th, change=th / tb - 1 if tb else None)
    entry["functions"] = diff.rows(base, head, roots)
    stacks = {}
    for label, p in profs.items():
        st = folded.fold(p)
        folded.write(st, "%s.%s.folded" % (prefix, label))
        stacks[label] = folded.scaled(st, 1.0 / p.iterations)
    svg = prefix + ".svg"
    flame.write(svg, stacks["head"], stacks["base"], entry["strategy"] + (
        ": " + entry["verdict"] if entry.get("verdict") else ""),
        "%s, instructions per iteration (callgrind) %s -> %s%s. Width: the head's; colour: each "
        "function's own instructions against the base" % (
            name, flame.fmt(tb), flame.fmt(th), " (%+.1f%%)" % (100 * (th / tb - 1)) if tb
            else ""), unit="instructions")
    entry["svg"] = rel(svg, out_dir)
    entry["files"] = {kind: {lb: rel("%s.%s.%s" % (prefix, lb, kind), out_dir)
                             for lb in ("base", "head")} for kind in ("callgrind", "folded")}


def perf_part(arms, name, settings, out_dir, prefix, seconds_left, times=None):
    """The perf part of an entry: {svg, functions (diff.rows in nanoseconds per iteration),
    samples {base, head}, ns_per_iteration {base, head}, scaled_to} or {error: why}. Each run's
    samples are scaled to a CPU time per iteration: times ({base, head} seconds: the compare's
    medians over its interleaved processes) when given, else the run's own measurement (one
    process each: on a shared machine it can be off by more than the change)."""
    stacks, ns = {}, {}
    try:
        for arm in arms:  # one after the other: samples of one are not the other's noise
            st, cpu_s = perf.record(arm.binary, name, settings, arm.env,
                                    "%s.perf.%s" % (prefix, arm.label),
                                    timeout_s=seconds_left / 2)
            stacks[arm.label] = st
            ns[arm.label] = (times[arm.label] if times else cpu_s) * 1e9
    except perf.PerfError as e:
        return dict(error=str(e))
    for label, st in stacks.items():
        folded.write(st, "%s.perf.%s.folded" % (prefix, label))
    pb = folded.StackProfile(stacks["base"], ns["base"])
    ph = folded.StackProfile(stacks["head"], ns["head"])
    scaled_to = "the compare's median CPU time per iteration" if times else \
        "each run's own CPU time per iteration (one run a side)"
    svg = prefix + ".perf.svg"
    flame.write(svg, folded.scaled(stacks["head"], ns["head"] / ph.total),
                folded.scaled(stacks["base"], ns["base"] / pb.total),
                "%s: CPU time, perf samples" % name,
                "cpu-clock samples at %d Hz (%d base, %d head), scaled to %s, %s -> %s ns. "
                "Width: the head's; colour: each function's own time against the base" % (
                    perf.SAMPLE_HZ, pb.total, ph.total, scaled_to, flame.fmt(ns["base"]),
                    flame.fmt(ns["head"])), unit="ns")
    return dict(svg=rel(svg, out_dir), samples=dict(base=int(pb.total), head=int(ph.total)),
                ns_per_iteration=ns, scaled_to=scaled_to, functions=diff.rows(pb, ph))


def explain_benchmark(arms, strategy, name, settings, out_dir, verdict=None, decided_by=None,
                      perf_state=None, timeout_s=profile.TIMEOUT_S, log=print, times=None):
    """The explanation of benchmark name (of strategy, its family) between arms (base, head):
    a dict strategy, verdict, benchmark, decided_by, instructions {base, head, change} per
    iteration, functions (diff.rows), svg and files (relative to out_dir), source (what the
    profile is made of, in words), perf (perf_part's dict, or None when not asked), error (why
    there is no profile, else None) and seconds. perf_state: None (no perf), or (available,
    why) from perf.available(); times: {base, head} CPU seconds per iteration that perf's
    samples are scaled to (perf_part). Never raises for a failed profile: error says why."""
    t0 = time.monotonic()
    prefix = os.path.join(out_dir, "explain", strategy)
    os.makedirs(os.path.dirname(prefix), exist_ok=True)
    entry = dict(strategy=strategy, verdict=verdict, benchmark=name, decided_by=decided_by,
                 instructions=None, functions=[], svg=None, files=None, perf=None, error=None)
    log("explain: %s: %s under callgrind, base and head side by side" % (strategy, name))
    try:
        callgrind_part(entry, arms, name, settings, out_dir, prefix, timeout_s)
    except (profile.ProfileError, ValueError, OSError) as e:
        entry["error"] = str(e)
        log("explain: %s: no profile: %s" % (strategy, e))
    entry["source"] = "callgrind"
    if perf_state is not None and entry["error"] is None:
        ok, why = perf_state
        left = BUDGET_S - (time.monotonic() - t0)
        if ok and left < PERF_MIN_S:
            ok, why = False, "callgrind took the strategy's %.0f s" % BUDGET_S
        if ok:
            log("explain: %s: perf samples of both" % strategy)
            entry["perf"] = perf_part(arms, name, settings, out_dir, prefix, left, times)
            entry["source"] = "callgrind and perf" if "error" not in entry["perf"] else \
                "callgrind only (perf failed: %s)" % entry["perf"]["error"]
        else:
            entry["source"] = "callgrind only (perf unavailable: %s)" % why
    entry["seconds"] = round(time.monotonic() - t0, 1)
    return entry

#!/usr/bin/python3
"""gate.py - hotbench's CI regression gate: measure, record a baseline, compare, export.

    scripts/gate.py ci       --build build-ci        measure, compare with results/baseline/, exit 1
                                                     on a regression (what `make bench-ci` runs)
    scripts/gate.py baseline --build build-ci        measure twice into results/baseline/ and
                                                     compare the two runs (`make baseline`)
    scripts/gate.py measure  --build DIR --out DIR   one measurement, no verdict
    scripts/gate.py compare  --baseline DIR --current DIR   the verdict on existing measurements

A measurement is two runs of DIR/hotbench over the same selection of benchmarks (SETTINGS below,
kept in the baseline's settings.json so that CI measures what the baseline measured), with
glibc's malloc thresholds pinned (SETTINGS["env"]: otherwise whether a buffer is fresh memory
depends on which benchmarks ran before it):
  run.json           the timed run: google-benchmark's JSON, every repetition kept, so that
                     google-benchmark's compare.py and github-action-benchmark's `googlecpp` input
                     read it. Repetitions run back to back: with google-benchmark's random
                     interleaving, bufgrow's times turned bimodal (the malloc state left by the
                     benchmark before decides whether fresh memory page-faults);
  instructions.json  instructions per iteration of the small sizes under valgrind's callgrind
                     (harness/hb_shim.cc counts the timed loop alone: see HB_CALLGRIND there);
  bmf.json           Bencher Metric Format (https://bencher.dev): {"<benchmark>": {"latency":
                     {"value", "lower_value", "upper_value"}, "instructions": {"value"}}}, latency
                     in ns of wall-clock time per iteration (median, min, max of the repetitions);
  fingerprint.json   the environment: compiler, flags, build type, library versions (the run's
                     context and dpkg), CPU model, kernel, libc, valgrind. Comparing measurements
                     whose fingerprints differ prints a warning naming each difference.

Times are the CPU times of the benchmark's thread (google-benchmark's cpu_time, which includes the
kernel's time on that thread: page faults too), not wall-clock times: on a shared 2-core VM the
wall time doubles whenever another process takes the core. Between the two runs of the baseline,
recorded on this project's VM while other jobs ran, the median change of a benchmark was 79% in
wall time and 2.7% in CPU time; the median spread within a run, 6.0% and 0.8%.

Three checks, each reported with the figures that decided it:

1. speed - relative speed. A benchmark's time is divided by its group's reference row at the same
   arguments in the same run, so that the speed of the machine cancels. The references are library
   code the project does not change and linear in the size: memcpy (bufgrow), inflate
   (bufgrow-gzip), strptime (the rfc3339 groups), timegm (rfc3339-days), expat-count (volumes);
   libc's strtoll is not linear here (18 ns a row at 1,000 rows, 108 ns at 10,000). On the log
   scale (timing noise is multiplicative) the statistic is
       d = log(ratio now) - mean over the R baseline runs of log(ratio then),
   ratio = median of the repetitions / median of the reference's. Its noise is estimated per
   benchmark, never fixed: the standard error of a median of n repetitions (1.2533 * 1.4826 * MAD
   / sqrt(n), a robust sd) of the benchmark and of its reference, now and in the baseline; and
   the run-to-run spread repetitions cannot see, from the baseline's runs: the sd of the
   benchmark's log ratio, or when larger its median over the strategies at the same arguments
   (one pair of runs alone estimates it poorly). With s the larger of the two, per run,
       sigma = sqrt(s_now^2 + s_base^2 / R),   T = max(z * sigma, log(1 + min_effect)).
   d > T is regressed and d < -T improved, if a second estimator agrees: the same d computed from
   the fastest repetition of each row (the one the machine disturbed least) beyond T on the same
   side; when only the median moved the verdict is inconclusive (a burst of load, not the code).
   `ci` then re-measures the suspects and their reference rows in a second hotbench process
   (confirm.json): a regression must show there too (d > T), else it is inconclusive. A process
   can be unlucky as a whole for one benchmark (placement in memory, code alignment): unchanged
   code gave single rows +23% and +61% in one process, with fastest repetitions agreeing.
   Last, a regression seen in time alone must exceed 2T, in both processes: "time alone" when
   the benchmark's instruction count (check 3) was measured and is unchanged, or its work
   counters are (those equal in every repetition of the baseline: bytes copied, growths,
   allocations, elements, peak bytes). On unchanged code, with other jobs sharing the VM,
   rfc3339-digits/scalar ran 21-28% slower against strptime in every process for a quarter of an
   hour, and bufgrow/additive at 256 KiB (64 fresh mmaps) 63% and 22% slower in two processes:
   contention and the kernel's page-fault cost do not slow all code alike.
   |d| <= T is "pass" only when z * sigma <= log(1 + resolution), i.e. when the check could have
   seen a change that large; otherwise "inconclusive": within the noise, never a silent pass.
   z = 4: some 300 comparisons a run, and timing tails are heavier than Gaussian. min_effect =
   resolution = 20%: between the baseline's two runs whole groups moved together by 5-10% when
   their reference row moved (every rfc3339 ratio by about 7%), a build that changed only
   unrelated code moved single rows by 10% (code layout), and one row of unchanged code stayed
   15% slower in a second process. Smaller changes are left to check 3.

2. complexity - per strategy along a series of sizes (bufgrow: size; rfc3339: rows; volumes:
   volumes at 20 tags), each time divided by its reference's at the same size and run, fitted by
   scripts/hbfit.PowerFit (t = a + b*N^k on log t; k with its 95% confidence interval; a = 0
   for the class check, so that k is the mean slope over the sizes: with a free constant and 3-4
   sizes k is unidentifiable, 2.1 with an interval of [-5, 9] for the injected quadratic).
   a) The declared class: bufgrow's from the complexity column of the strategy registry in
      cases/bufgrow/bufgrow.c, every other strategy linear. Fitted on ratio * N: the reference is
      linear by declaration, so the memory hierarchy's curvature it shares with the strategy
      cancels (raw times of bufgrow's linear strategies fit k = 1.3-1.5 from 64 KiB, in cache, to
      16 MiB, paying page faults; memcpy itself 1.3). Regressed when the whole interval of k lies
      above the midpoint to the next class (1.5 for linear, 2.5 for quadratic) and above the
      baseline's interval; a strategy already off its class in the baseline is inconclusive, not
      failed on every run (in a small selection, glibc's malloc history can decide whether fresh
      memory page-faults and make a linear strategy fit k = 3). Pass when the whole interval is at
      or below the midpoint; inconclusive otherwise.
   b) The budget at production size (bufgrow 1.7 GB, rfc3339 100,000 rows, volumes 300), fitted on
      ratio * the baseline's reference time (the strategy's time on the baseline's machine): the
      budget is --budget-factor (2) times the baseline's 95% upper prediction bound there;
      regressed when the current prediction's lower bound exceeds it, even when every measured
      point passed check 1. The factor leaves speed drifts to check 1: this is for a change of
      growth, which extrapolation multiplies.
   c) A size the baseline measured that hotbench now skips because its predicted time exceeds
      --hb_budget: regressed when that prediction is over --budget-factor times the baseline's
      time there (scaled by the reference row); inconclusive otherwise (a skip near the budget
      can flip).

3. instructions - instructions per iteration of the small sizes under callgrind: deterministic on
   one build and machine, so the threshold is tight, the larger of --ir-tolerance (2%) and four
   times the largest difference between the baseline's callgrind runs. Beyond it regressed or
   improved, else pass. Not available for sanitizer builds (valgrind cannot run them) or without
   valgrind: the check then says so and decides nothing.

A strategy that fails verification (its answer differs from the reference's; hotbench does not
time it) is "regressed" by the check "verification". A benchmark is regressed when any check says
so, and the table names which; only "regressed" makes `ci` exit 1. numpy and scipy: run under
Debian's /usr/bin/python3.
"""

import argparse
import datetime
import glob
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hbfit  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# --- what the CI run measures --------------------------------------------------------------------
# Sizes are picked from the full profile with a filter (the quick profile at google-benchmark's
# default 0.5 s per benchmark takes over 10 minutes). Every case, every strategy; several sizes
# per strategy for the complexity fits; the incident's configuration where it is affordable
# (rfc3339: 100,000 rows; volumes: 300 x 20 tags), never the 1.7 GB bodies (predicted by the fit).
SETTINGS = {
    "profile": "full",
    "filter": "^("
              "bufgrow(-gzip)?/[^/]+/size:(65536|262144|1048576|4194304|16777216)/"
              "|bufgrow-cliff/httpcore/width:24/size:(1048576|4194304|4456448)/"
              "|rfc3339/[^/]+/rows:(1000|10000|100000)/"
              "|rfc3339-(digits|offset|columns|days)/"
              "|volumes/[^/]+/volumes:(30|100|300)/tags:20/compact:0/piece:0/"
              "|volumes/[^/]+/volumes:300/tags:(0|100)/compact:0/piece:0/"
              "|volumes/[^/]+/volumes:300/tags:20/compact:1/piece:4096/"
              ")",
    # sizes whose predicted time exceeds this are skipped (the quadratic strategies' larger ones)
    "budget_s": 0.25,
    "repetitions": 5,
    "min_time": 0.03,
    "interleave": False,
    # glibc's malloc adapts its mmap threshold to the blocks freed so far and returns the top of
    # the heap to the kernel past a trim threshold, so whether a buffer was fresh memory (page
    # faults: 1.4 ms for memcpy of 4 MiB) or recycled (0.09 ms) depended on which benchmarks ran
    # before it: one injected regression made an unrelated strategy 6x slower that way, and
    # httpcore at 64 KiB took 30 us or 4 us. Pinned: a buffer of 128 KiB or more is always fresh
    # memory (the cost DESIGN.md counts as real), a smaller one always recycled heap.
    "env": {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=131072:"
                             "glibc.malloc.trim_threshold=4294967295"},
    # callgrind: the small sizes, one iteration each (deterministic counts)
    "ir_filter": "^("
                 "bufgrow(-gzip)?/[^/]+/size:65536/"
                 "|bufgrow-cliff/httpcore/width:24/size:1048576/"
                 "|rfc3339/[^/]+/rows:1000/"
                 "|rfc3339-(digits|offset|columns|days)/(int64-binary|millis-parse|millis-strtoll"
                 "|scalar|swar|simd|simd-sse4.1|simd-avx2|table|hinnant|timegm)/"
                 "|volumes/[^/]+/volumes:30/tags:20/compact:0/piece:0/"
                 ")",
}

# The row each group's times are divided by (check 1). A tuple names a row of another group.
REFERENCE = {
    "bufgrow": "memcpy",
    "bufgrow-gzip": "inflate",
    "bufgrow-cliff": ("bufgrow/memcpy/size:4194304/read:4096/real_time"),
    "rfc3339": "strptime",
    "rfc3339-digits": "strptime",
    "rfc3339-offset": "strptime",
    "rfc3339-columns": "strptime",
    "rfc3339-days": "timegm",
    "volumes": "expat-count",
}
# Check 2: the series each family is fitted along (x parameter, the others fixed) and the
# production size it is predicted at. Families not listed have no size series (their variants
# are checked by speed and instructions).
SERIES = {
    "bufgrow": ("size", {"read": 4096}, 1.7e9),
    "bufgrow-gzip": ("size", {"read": 4096}, 1.7e9),
    "rfc3339": ("rows", {}, 1e5),
    "volumes": ("volumes", {"tags": 20, "compact": 0, "piece": 0}, 300),
}

# Numeric fields of a google-benchmark row that are not the benchmark's own counters.
NOT_COUNTERS = {"real_time", "cpu_time", "iterations", "repetitions", "repetition_index",
                "threads", "family_index", "per_family_instance_index"}

DEFAULTS = dict(z=4.0, min_effect=0.20, resolution=0.20, ir_tolerance=0.02, budget_factor=2.0)
VERDICT_ORDER = ["regressed", "improved", "inconclusive", "pass"]


def die(msg, code=2):
    print("gate: " + msg, file=sys.stderr)
    sys.exit(code)


# --- declared complexity -------------------------------------------------------------------------

def declared_classes():
    """{strategy: 1 or 2} from the registry of cases/bufgrow/bufgrow.c (its O(n^k) column): the
    row's name is on one line, its policy and k on the next."""
    path = os.path.join(ROOT, "cases", "bufgrow", "bufgrow.c")
    try:
        text = open(path).read()
    except OSError as e:
        die("cannot read the bufgrow registry %s: %s" % (path, e))
    out = {}
    for m in re.finditer(r'\{"([a-z0-9.-]+)",\s+"[^"]*",\s*\n[^\n]*POL_[A-Z0-9_]+,\s*(\d),\s*\d\}',
                         text):
        out[m.group(1)] = int(m.group(2))
    if not out:
        die("found no strategy rows with a complexity column in %s (the gate parses its "
            "registry: name on one line, then '..., POL_X, <k>, <realloc>}')" % path)
    return out


def declared(family, strategy, bufgrow_classes):
    if family in ("bufgrow", "bufgrow-gzip"):
        return bufgrow_classes.get(strategy, 1)  # memcpy, inflate: the baselines are linear
    return 1


# --- reading a measurement -----------------------------------------------------------------------

class Measurement:
    """A directory written by `measure`: the timed run (one or more run*.json) and the
    instruction counts (instructions*.json), the fingerprint."""

    def __init__(self, path):
        self.path = path
        runs = sorted(glob.glob(os.path.join(path, "run*.json")))
        if not runs:
            die("no run*.json in %s (make it with `make baseline` or `gate.py measure`)" % path)
        self.runs = [load_run(p) for p in runs]
        self.ir = []
        for p in sorted(glob.glob(os.path.join(path, "instructions*.json"))):
            with open(p) as f:
                self.ir.append(json.load(f))
        fp = os.path.join(path, "fingerprint.json")
        self.fingerprint = json.load(open(fp)) if os.path.exists(fp) else {}
        st = os.path.join(path, "settings.json")
        self.settings = json.load(open(st)) if os.path.exists(st) else None
        cf = os.path.join(path, "confirm.json")
        self.confirm = load_run(cf) if os.path.exists(cf) else None


def load_run(path):
    """{name: dict(family, strategy, params, t=[CPU seconds per iteration of each repetition],
    wall=[wall-clock seconds, the same])},
    {name: skipped row (message, predicted_s)}, failed names, context."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        die("cannot read run JSON %s: %s" % (path, e))
    rows, skipped, failed = {}, {}, []
    for b in doc.get("benchmarks", []):
        if b.get("run_type") == "aggregate" or b["name"].endswith(("_BigO", "_RMS")):
            continue
        name = b.get("run_name", b["name"])
        family, strategy, params = hbfit.parse_name(name)
        if b.get("error_occurred"):
            msg = b.get("error_message", "")
            if msg.startswith("skipped"):
                m = re.search(r"predicted ([0-9.eE+-]+) s", msg)
                skipped[name] = dict(family=family, strategy=strategy, params=params,
                                     message=msg, predicted_s=float(m.group(1)) if m else None)
            else:
                failed.append("%s: %s" % (name, msg))
            continue
        r = rows.setdefault(name, dict(family=family, strategy=strategy, params=params, t=[],
                                       wall=[], counters=[]))
        r["counters"].append({k: v for k, v in b.items() if isinstance(v, (int, float))
                              and not isinstance(v, bool) and k not in NOT_COUNTERS})
        unit = hbfit.TIME_UNIT[b.get("time_unit", "ns")]
        r["t"].append(b["cpu_time"] * unit)
        r["wall"].append(b["real_time"] * unit)
    return dict(path=path, rows=rows, skipped=skipped, failed=failed,
                context=doc.get("context", {}))


# --- statistics ----------------------------------------------------------------------------------

def log_median_se(ts):
    """(median of log t, its standard error): 1.2533 * robust sd / sqrt(n), the robust sd being
    1.4826 * MAD (the sample sd when the MAD is 0, e.g. n = 2)."""
    x = np.log(np.asarray(ts, float))
    med = float(np.median(x))
    if x.size < 2:
        return med, float("inf")
    sd = 1.4826 * float(np.median(np.abs(x - med)))
    if sd == 0:
        sd = float(np.std(x, ddof=1))
    return med, 1.2533 * sd / math.sqrt(x.size)


def reference_name(name, row):
    ref = REFERENCE.get(row["family"])
    if ref is None:
        return None
    if "/" in ref:
        return ref
    parts = name.split("/")
    parts[1] = ref
    return "/".join(parts)


def log_ratio(run, name):
    """(log(median / reference median), its standard error, log(fastest / reference's fastest))
    in one run, or None."""
    row = run["rows"].get(name)
    ref = reference_name(name, row) if row else None
    if row is None or ref is None or ref not in run["rows"]:
        return None
    m1, s1 = log_median_se(row["t"])
    m2, s2 = log_median_se(run["rows"][ref]["t"])
    fastest = math.log(min(row["t"])) - math.log(min(run["rows"][ref]["t"]))
    return m1 - m2, math.hypot(s1, s2), fastest


# --- check 1: speed ------------------------------------------------------------------------------

def work_unchanged(base, cur, name):
    """Whether the benchmark's counters that are the same in every repetition of every baseline
    run (bytes copied, growths, allocations, elements, peak bytes: the work done, not the rates)
    have the same values now; False when it has none."""
    rows = [r["rows"].get(name) for r in base.runs] + [cur.runs[0]["rows"].get(name)]
    if any(r is None for r in rows):
        return False
    reps = [c for r in rows[:-1] for c in r["counters"]]
    fixed = {k: v for k, v in reps[0].items() if all(c.get(k) == v for c in reps)}
    now = rows[-1]["counters"]
    return bool(fixed) and all(c.get(k) == v for c in now for k, v in fixed.items())


def check_speed(base, cur, opt, ir_unchanged=()):
    """One result per benchmark of the current run that the baseline also measured.
    ir_unchanged: names whose instruction counts passed check 3."""
    runs_b = base.runs
    R = len(runs_b)
    run_c = cur.runs[0]
    # run-to-run sd of the log ratio per benchmark (needs 2 baseline runs), and its median over
    # the strategies at the same family and arguments
    between, pooled = {}, {}
    if R >= 2:
        for name in runs_b[0]["rows"]:
            vals = [log_ratio(r, name) for r in runs_b]
            if all(v is not None for v in vals):
                between[name] = float(np.std([v[0] for v in vals], ddof=1))
        groups = {}
        for name, s in between.items():
            row = runs_b[0]["rows"][name]
            if hbfit.parse_name(name)[1] == REFERENCE.get(row["family"]):
                continue  # the reference's own ratio is 1 in every run
            key = (row["family"], tuple(sorted(row["params"].items())))
            groups.setdefault(key, []).append(s)
        for key, ss in groups.items():
            pooled[key] = float(np.median(ss))
    out = []
    for name, row in run_c["rows"].items():
        ref = reference_name(name, row)
        res = dict(check="speed", name=name, family=row["family"], strategy=row["strategy"])
        now_med = float(np.median(row["t"]))
        base_rows = [r["rows"].get(name) for r in runs_b]
        if any(b is None for b in base_rows):
            res.update(verdict="inconclusive", base="-", now=hbfit.fmt_time(now_med), change="-",
                       why="not in the baseline")
            out.append(res)
            continue
        base_med = float(np.median(np.concatenate([b["t"] for b in base_rows])))
        res.update(base=hbfit.fmt_time(base_med), now=hbfit.fmt_time(now_med))
        if ref == name:
            res.update(verdict="reference", change="%+.1f%%" % (100 * (now_med / base_med - 1)),
                       why="the group's reference row (its ratio is 1; instructions check it)")
            out.append(res)
            continue
        lc = log_ratio(run_c, name)
        lb = [log_ratio(r, name) for r in runs_b]
        if lc is None or any(v is None for v in lb):
            res.update(verdict="inconclusive", change="-",
                       why="no reference row %s in both runs" % ref)
            out.append(res)
            continue
        d = lc[0] - float(np.mean([v[0] for v in lb]))
        d_fast = lc[2] - float(np.mean([v[2] for v in lb]))
        key = (row["family"], tuple(sorted(row["params"].items())))
        s_run = max(between.get(name, 0.0), pooled.get(key, 0.0))
        s_now = max(lc[1], s_run)
        s_base = max(float(np.sqrt(np.mean([v[1] ** 2 for v in lb]))), s_run)
        sigma = math.sqrt(s_now ** 2 + s_base ** 2 / R)
        T = max(opt.z * sigma, math.log1p(opt.min_effect))
        res.update(change="%+.1f%%" % (100 * math.expm1(d)), d=d, threshold=T, sigma=sigma)
        band = "threshold +%.1f%%/-%.1f%%" % (100 * math.expm1(T), -100 * math.expm1(-T))
        why = "ratio to %s %s (fastest repetitions %+.1f%%), %s" % (
            hbfit.parse_name(ref)[1], res["change"], 100 * math.expm1(d_fast), band)
        # the bar of a regression: T, or 2T when the work is known unchanged (timing only)
        same = name in ir_unchanged or work_unchanged(base, cur, name)
        bar = 2 * T if same else T
        confirm = log_ratio(cur.confirm, name) if cur.confirm else None
        d_conf = confirm[0] - float(np.mean([v[0] for v in lb])) if confirm else None
        if same and d > T and d_fast > T and not (d > bar and d_fast > bar):
            res.update(verdict="inconclusive", why="timing only: %s unchanged, and under 2T: %s"
                       % ("instructions" if name in ir_unchanged else "work counters", why))
        elif d > bar and d_fast > bar and cur.confirm is not None and (
                d_conf is None or d_conf <= bar):
            res.update(verdict="inconclusive", why="not confirmed by a second process (%s): " % (
                "%+.1f%%" % (100 * math.expm1(d_conf)) if d_conf is not None else
                "not measured") + why)
        elif d > bar and d_fast > bar:
            if d_conf is not None:
                why += "; confirmed by a second process: %+.1f%%" % (100 * math.expm1(d_conf))
            if same:
                why += " (timing only: the bar is 2T)"
            res.update(verdict="regressed", why=why)
        elif d < -T and d_fast < -T:
            res.update(verdict="improved", why=why)
        elif abs(d) > T:
            res.update(verdict="inconclusive", why="median moved, fastest repetitions did not: " +
                       why)
        elif opt.z * sigma <= math.log1p(opt.resolution):
            res.update(verdict="pass", why=band)
        else:
            res.update(verdict="inconclusive", why="noise: could not see a %d%% change (%s)" % (
                round(100 * opt.resolution), band))
        out.append(res)
    return out


# --- check 2: complexity -------------------------------------------------------------------------

def normalised_series(run, family, strategy, xparam, fixed, ref_base, per_reference):
    """(N, t) over every repetition of a strategy along xparam. Each time is divided by the
    median of its reference row at the same size in the same run (the machine cancels), then
    multiplied by
      per_reference=False: the reference's median at that size in the baseline's first run, so
                           t is the strategy's time on the baseline's machine (the budget check);
      per_reference=True:  N, so t grows as the strategy grows relative to a reference declared
                           linear: the memory hierarchy's curvature, which the reference shares
                           (64 KiB fits in L2, 16 MiB pays page faults), cancels (the class check).
    Sizes without a reference row in both runs are left out."""
    N, t = [], []
    for name, row in run["rows"].items():
        if row["family"] != family or row["strategy"] != strategy or xparam not in row["params"]:
            continue
        if any(row["params"].get(k) != v for k, v in fixed.items()):
            continue
        ref = reference_name(name, row)
        if not ref or ref not in run["rows"] or ref not in ref_base["rows"]:
            continue
        n = row["params"][xparam]
        scale = float(n) if per_reference else \
            math.exp(log_median_se(ref_base["rows"][ref]["t"])[0])
        scale /= math.exp(log_median_se(run["rows"][ref]["t"])[0])
        for x in row["t"]:
            N.append(n)
            t.append(x * scale)
    return np.array(N, float), np.array(t, float)


def check_complexity(base, cur, opt):
    classes = declared_classes()
    ref_base = base.runs[0]
    run_c = cur.runs[0]
    out = []
    seen = []
    for row in run_c["rows"].values():
        fam, strat = row["family"], row["strategy"]
        if fam not in SERIES or (fam, strat) in seen:
            continue
        seen.append((fam, strat))
        xparam, fixed, nstar = SERIES[fam]
        label = "%s/%s/%s:*" % (fam, strat, xparam)
        cls = declared(fam, strat, classes)
        edge = cls + 0.5
        fits = {}
        for mode in (True, False):  # class check, budget check
            Nc, tc = normalised_series(run_c, fam, strat, xparam, fixed, ref_base, mode)
            Nb, tb = [], []
            for r in base.runs:
                n_, t_ = normalised_series(r, fam, strat, xparam, fixed, ref_base, mode)
                Nb.append(n_)
                tb.append(t_)
            Nb, tb = np.concatenate(Nb), np.concatenate(tb)
            # the class check fits a pure power (no constant): k is the mean slope over the
            # sizes, which a constant term makes unidentifiable with 3-4 sizes (k = 2.1 with a
            # 95% interval of [-5, 9] for the injected quadratic growth)
            fits[mode] = (hbfit.PowerFit(Nc, tc, with_constant=not mode)
                          if len(np.unique(Nc)) >= 3 else None,
                          hbfit.PowerFit(Nb, tb, with_constant=not mode)
                          if len(np.unique(Nb)) >= 3 else None)
        fc, fb = fits[True]
        res = dict(check="complexity", name=label, family=fam, strategy=strat,
                   base=("k=%.2f" % fb.k) if fb and fb.ok else "-",
                   now=("k=%.2f" % fc.k) if fc and fc.ok else "-", change="-")
        # a) the exponent against the declared class
        if fc is None or not fc.ok:
            res.update(verdict="inconclusive", why="too few measured sizes now: a fit needs 3")
        elif fc.k_ci[0] > edge:
            why = "declared O(N%s) but k = %.2f [%.2f, %.2f] > %.1f" % (
                "" if cls == 1 else "^%d" % cls, fc.k, fc.k_ci[0], fc.k_ci[1], edge)
            if fb is not None and fb.ok and fc.k_ci[0] <= fb.k_ci[1]:
                res.update(verdict="inconclusive", why=why + ", as in the baseline (k = %.2f "
                           "[%.2f, %.2f])" % (fb.k, fb.k_ci[0], fb.k_ci[1]))
            else:
                res.update(verdict="regressed", why=why + (", baseline k = %.2f [%.2f, %.2f]" % (
                    fb.k, fb.k_ci[0], fb.k_ci[1]) if fb is not None and fb.ok else ""))
        elif fc.k_ci[1] <= edge:
            res.update(verdict="pass", why="k = %.2f [%.2f, %.2f] <= %.1f (declared O(N%s))" % (
                fc.k, fc.k_ci[0], fc.k_ci[1], edge, "" if cls == 1 else "^%d" % cls))
        else:
            res.update(verdict="inconclusive", why="k = %.2f [%.2f, %.2f] straddles %.1f" % (
                fc.k, fc.k_ci[0], fc.k_ci[1], edge))
        out.append(res)
        # b) the budget at production size
        fc, fb = fits[False]
        if fc is not None and fc.ok and fb is not None and fb.ok:
            pc, pb = fc.predict(nstar), fb.predict(nstar)
            r2 = dict(check="complexity", name="%s/%s/%s:%.4g (predicted)" % (fam, strat, xparam,
                                                                               nstar),
                      family=fam, strategy=strat, base=hbfit.fmt_time(pb[0]),
                      now=hbfit.fmt_time(pc[0]), change="%+.0f%%" % (100 * (pc[0] / pb[0] - 1)))
            budget = opt.budget_factor * pb[2]
            why = "predicted %s [%s, %s], budget %s (%g x the baseline's upper bound %s)" % (
                hbfit.fmt_time(pc[0]), hbfit.fmt_time(pc[1]), hbfit.fmt_time(pc[2]),
                hbfit.fmt_time(budget), opt.budget_factor, hbfit.fmt_time(pb[2]))
            if pc[1] > budget:
                r2.update(verdict="regressed", why=why)
            elif pc[2] < pb[1] / opt.budget_factor:
                r2.update(verdict="improved", why=why)
            elif pc[0] <= budget:
                r2.update(verdict="pass", why=why)
            else:
                r2.update(verdict="inconclusive", why=why)
            out.append(r2)
    # c) sizes the baseline measured that the harness now refuses on its predicted time
    for name, sk in run_c["skipped"].items():
        brows = [r["rows"].get(name) for r in base.runs]
        if sk["predicted_s"] is None or any(b is None for b in brows):
            continue
        base_med = float(np.median(np.concatenate([b["t"] for b in brows])))
        ref = reference_name(name, sk)
        scale = 1.0
        if ref and ref in run_c["rows"] and ref in ref_base["rows"]:
            scale = math.exp(log_median_se(run_c["rows"][ref]["t"])[0] -
                             log_median_se(ref_base["rows"][ref]["t"])[0])
        factor = sk["predicted_s"] / (base_med * scale)
        res = dict(check="complexity", name=name, family=sk["family"], strategy=sk["strategy"],
                   base=hbfit.fmt_time(base_med), now=hbfit.fmt_time(sk["predicted_s"]) + " (pred)",
                   change="%+.0f%%" % (100 * (factor - 1)))
        why = "skipped over the budget: predicted %s, %.3gx the baseline's time" % (
            hbfit.fmt_time(sk["predicted_s"]), factor)
        res.update(verdict="regressed" if factor > opt.budget_factor else "inconclusive", why=why)
        out.append(res)
    return out


# --- check 3: instructions -----------------------------------------------------------------------

def check_instructions(base, cur, opt):
    if not cur.ir or not cur.ir[0].get("benchmarks"):
        why = (cur.ir[0].get("unavailable") if cur.ir else None) or "no instruction counts"
        return [], "not run: " + why
    if not base.ir or not base.ir[0].get("benchmarks"):
        return [], "not run: the baseline has no instruction counts"
    now = cur.ir[0]["benchmarks"]
    # nondeterminism measured between the baseline's callgrind runs
    spread = 0.0
    if len(base.ir) >= 2:
        a, b = base.ir[0]["benchmarks"], base.ir[1]["benchmarks"]
        for k in a:
            if k in b and a[k]["per_iteration"] > 0:
                spread = max(spread, abs(b[k]["per_iteration"] / a[k]["per_iteration"] - 1))
    tol = max(opt.ir_tolerance, 4 * spread)
    out = []
    for name, v in now.items():
        bs = [i["benchmarks"].get(name) for i in base.ir]
        res = dict(check="instructions", name=name, family=hbfit.parse_name(name)[0],
                   strategy=hbfit.parse_name(name)[1], now="%.4g Ir" % v["per_iteration"])
        if any(b is None for b in bs):
            res.update(verdict="inconclusive", base="-", change="-", why="not in the baseline")
            out.append(res)
            continue
        ref = float(np.mean([b["per_iteration"] for b in bs]))
        ch = v["per_iteration"] / ref - 1
        res.update(base="%.4g Ir" % ref, change="%+.2f%%" % (100 * ch), d=ch)
        band = "tolerance ±%.1f%%" % (100 * tol)
        if ch > tol:
            res.update(verdict="regressed", why="instructions per iteration %+.2f%%, %s" % (
                100 * ch, band))
        elif ch < -tol:
            res.update(verdict="improved", why="instructions per iteration %+.2f%%, %s" % (
                100 * ch, band))
        else:
            res.update(verdict="pass", why=band)
        out.append(res)
    return out, "tolerance ±%.1f%% (--ir-tolerance %.1f%%, 4 x the baseline's run-to-run " \
                "spread %.3f%%)" % (100 * tol, 100 * opt.ir_tolerance, 100 * spread)


# --- the verdict ---------------------------------------------------------------------------------

# Fingerprint keys whose change makes instruction counts and time ratios incomparable.
NOT_COMPARABLE = ("cpu_model", "caches", "num_cpus", "rfc3339_simd_level", "hb_compiler",
                  "hb_build_flags", "packages", "valgrind")


def fingerprint_warnings(base, cur):
    out = []
    a, b = base.fingerprint, cur.fingerprint
    for k in sorted(set(a) | set(b)):
        if k in ("date", "git_revision"):
            continue
        if a.get(k) != b.get(k):
            out.append("%s: baseline %r, now %r" % (k, a.get(k), b.get(k)))
    return out


def compare(base, cur, opt, out=sys.stdout):
    """Prints the table and returns the number of regressions."""
    def p(s=""):
        print(s, file=out)

    warns = fingerprint_warnings(base, cur)
    if warns:
        p("WARNING: the environment differs from the baseline's; differences below may be the "
          "environment's, not the code's:")
        for w in warns:
            p("  " + w)
    if base.settings and cur.settings and base.settings != cur.settings:
        p("WARNING: the selection differs from the baseline's settings (%s)" % ", ".join(
            k for k in base.settings if base.settings.get(k) != cur.settings.get(k)))
    ir, ir_note = check_instructions(base, cur, opt)
    speed = check_speed(base, cur, opt, {r["name"] for r in ir if r["verdict"] == "pass"})
    cplx = check_complexity(base, cur, opt)
    # Instruction counts (glibc picks its memcpy by CPU) and time ratios (cache sizes) measured on
    # another CPU, toolchain or library build say nothing about the code: there a regression by
    # those two checks is only "inconclusive" until `make baseline` is re-run on this machine.
    # Verification failures and complexity (exponents, budgets) still decide.
    moved = [k for k in NOT_COMPARABLE if base.fingerprint.get(k) != cur.fingerprint.get(k)]
    if moved:
        p("WARNING: %s differ(s) from the baseline's: speed and instruction regressions are "
          "reported as inconclusive; record a baseline on this machine (make baseline)"
          % ", ".join(moved))
        for res in speed + ir:
            if res["verdict"] == "regressed":
                res["verdict"] = "inconclusive"
                res["why"] += " (not comparable: %s differ from the baseline's)" % ", ".join(moved)

    # a strategy whose answer differed from the reference was not timed: worse than slow
    verify = []
    for r in cur.runs:
        for f in sorted(set(r["failed"])):
            name, msg = f.split(": ", 1)
            verify.append(dict(check="verification", name=name, base="-", now="not timed",
                               change="-", verdict="regressed", why=msg))
    # one row per benchmark: every check that looked at it
    table = {}
    for res in verify + speed + ir + cplx:
        table.setdefault(res["name"], []).append(res)
    rows = []
    for name, results in table.items():
        decided = [r for r in results if r["verdict"] != "reference"]
        verdict = "pass"
        for v in VERDICT_ORDER:
            if any(r["verdict"] == v for r in decided):
                verdict = v
                break
        if not decided:
            verdict = "reference"
        first = next((r for r in decided if r["verdict"] == verdict), results[0])
        checks = ",".join(sorted({r["check"] for r in decided if r["verdict"] == verdict})) or \
            results[0]["check"]
        rows.append(dict(name=name, verdict=verdict, check=checks, base=first.get("base", "-"),
                         now=first.get("now", "-"), change=first.get("change", "-"),
                         why="; ".join("%s: %s" % (r["check"], r["why"]) for r in decided
                                       if r["verdict"] == verdict) or first.get("why", "")))
    order = {v: i for i, v in enumerate(VERDICT_ORDER + ["reference"])}
    rows.sort(key=lambda r: (order[r["verdict"]], r["name"]))
    w = max([len(r["name"]) for r in rows] + [9])
    p("%-*s %13s %17s %9s  %-12s %s" % (w, "benchmark", "baseline", "now", "change", "verdict",
                                        "check: why"))
    for r in rows:
        p("%-*s %13s %17s %9s  %-12s %s" % (w, r["name"], r["base"], r["now"], r["change"],
                                            r["verdict"], r["why"] if r["verdict"] != "pass"
                                            else r["check"]))
    counts = {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICT_ORDER}
    p()
    p("checks: speed %d benchmarks (z = %g, min effect %g%%, resolution %g%%, %d baseline run%s);"
      % (len(speed), opt.z, 100 * opt.min_effect, 100 * opt.resolution, len(base.runs),
         "" if len(base.runs) == 1 else "s"))
    p("        complexity %d fits/predictions; instructions %d benchmarks, %s" % (
        len(cplx), len(ir), ir_note))
    p("verdict: %s" % ", ".join("%d %s" % (counts[v], v) for v in VERDICT_ORDER))
    regs = [r for r in rows if r["verdict"] == "regressed"]
    for r in regs:
        p("REGRESSED %s [%s]: %s" % (r["name"], r["check"], r["why"]))
    return len(regs)


# --- measuring -----------------------------------------------------------------------------------

def run_cmd(cmd, log, settings):
    """Runs cmd with the settings' environment added, its output into the file log."""
    env = dict(os.environ)
    env.update(settings.get("env", {}))
    with open(log, "w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    return rc


def fingerprint(ctx, valgrind):
    """The environment a measurement depends on."""
    fp = {k: ctx.get(k) for k in ("hb_compiler", "hb_build_flags", "hb_build_type",
                                  "hb_benchmark_version", "library_build_type", "zlib_version",
                                  "expat_version", "rfc3339_simd_level", "num_cpus")}
    fp["caches"] = ";".join("L%d %s %d" % (c["level"], c["type"], c["size"])
                            for c in ctx.get("caches", []))
    fp["git_revision"] = ctx.get("hb_git_revision")
    fp["date"] = ctx.get("date")
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            fp["cpu_model"] = m.group(1).strip() if m else platform.processor()
    except OSError:
        fp["cpu_model"] = platform.processor()
    fp["kernel"] = platform.release()
    fp["libc"] = " ".join(platform.libc_ver())
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}\\n", "libbenchmark-dev",
                              "zlib1g", "libexpat1", "libxml2", "libc6"],
                             capture_output=True, text=True).stdout
        fp["packages"] = ", ".join(sorted(out.split("\n"))).strip(", ")
    except OSError:
        fp["packages"] = "unknown (no dpkg-query)"
    fp["valgrind"] = valgrind or "not installed"
    return fp


def measure(build, outdir, settings, suffix="", logdir=None, log=print):
    """Timed run + callgrind run of the selection; writes run<suffix>.json,
    instructions<suffix>.json, fingerprint.json, settings.json, bmf<suffix>.json into outdir and
    hotbench's console output into logdir (default outdir)."""
    logdir = logdir or outdir
    hotbench = os.path.join(build, "hotbench")
    if not os.access(hotbench, os.X_OK):
        die("%s is not an executable (build it: cmake -S . -B %s && cmake --build %s)" % (
            hotbench, build, build))
    os.makedirs(outdir, exist_ok=True)
    run_json = os.path.join(outdir, "run%s.json" % suffix)
    tmp = run_json + ".tmp"
    cmd = [hotbench, "--hb_profile=" + settings["profile"],
           "--hb_budget=%g" % settings["budget_s"],
           "--hb_repetitions=%d" % settings["repetitions"],
           "--benchmark_min_time=%g" % settings["min_time"],
           "--benchmark_filter=" + settings["filter"],
           "--benchmark_out=" + tmp, "--benchmark_out_format=json"]
    if settings.get("interleave"):
        cmd.append("--benchmark_enable_random_interleaving=true")
    log("gate: timed run: " + " ".join(["%s=%s" % kv for kv in settings.get("env", {}).items()] +
                                        cmd))
    os.makedirs(logdir, exist_ok=True)
    rc = run_cmd(cmd, os.path.join(logdir, "run%s.log" % suffix), settings)
    if rc not in (0, 1) or not os.path.exists(tmp):
        die("the timed run failed (exit %d); its output is in %s" % (
            rc, os.path.join(logdir, "run%s.log" % suffix)))
    os.replace(tmp, run_json)
    run = load_run(run_json)
    if run["failed"]:
        log("gate: %d benchmark(s) FAILED verification (see %s)" % (len(run["failed"]), run_json))

    ir = measure_instructions(hotbench, logdir, settings, run["context"], suffix, log)
    with open(os.path.join(outdir, "instructions%s.json" % suffix), "w") as f:
        json.dump(ir, f, indent=1, sort_keys=True)
    with open(os.path.join(outdir, "fingerprint.json"), "w") as f:
        json.dump(fingerprint(run["context"], ir.get("valgrind")), f, indent=1, sort_keys=True)
    with open(os.path.join(outdir, "settings.json"), "w") as f:
        json.dump(settings, f, indent=1, sort_keys=True)
    write_bmf(run, ir, os.path.join(outdir, "bmf%s.json" % suffix))
    return rc


def measure_instructions(hotbench, logdir, settings, ctx, suffix, log):
    """Instructions per iteration of each benchmark of settings['ir_filter'] under callgrind:
    {"valgrind": version, "command": ..., "benchmarks": {name: {per_iteration, instructions,
    iterations}}} or {"unavailable": why}."""
    valgrind = shutil.which("valgrind")
    if "-fsanitize" in ctx.get("hb_build_flags", ""):
        return {"unavailable": "a sanitizer build (%s): valgrind cannot run it" %
                ctx.get("hb_build_flags").strip()}
    if not valgrind:
        return {"unavailable": "valgrind is not installed (scripts/deps.sh installs it)"}
    version = subprocess.run([valgrind, "--version"], capture_output=True,
                             text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="hb-callgrind-")
    try:
        out_json = os.path.join(work, "run.json")
        cmd = [valgrind, "--tool=callgrind", "--instr-atstart=no",
               "--callgrind-out-file=" + os.path.join(work, "cg.out"), hotbench,
               "--hb_profile=" + settings["profile"], "--hb_budget=%g" % settings["budget_s"],
               "--hb_repetitions=1", "--benchmark_min_time=1e-9",
               "--benchmark_filter=" + settings["ir_filter"],
               "--benchmark_out=" + out_json, "--benchmark_out_format=json"]
        log("gate: instruction counts: " + " ".join(
            ["%s=%s" % kv for kv in settings.get("env", {}).items()] + cmd))
        logf = os.path.join(logdir, "instructions%s.log" % suffix)
        rc = run_cmd(cmd, logf, settings)
        if rc not in (0, 1) or not os.path.exists(out_json):
            return {"unavailable": "callgrind run failed (exit %d), see %s" % (rc, logf),
                    "valgrind": version}
        run = load_run(out_json)
        # (family, args) -> name, from the benchmark names of the same run
        names = {}
        for name, row in run["rows"].items():
            fam = name.split("/")
            fam = "/".join(p for p in fam if ":" not in p and p != "real_time")
            names[(fam, tuple(int(v) if isinstance(v, int) else v
                              for v in row["params"].values()))] = name
        benches = {}
        for path in glob.glob(os.path.join(work, "cg.out.*")):
            desc, total = None, None
            with open(path) as f:
                for line in f:
                    if line.startswith("desc: Trigger: Client Request: hb:"):
                        desc = line.split("hb:", 1)[1].strip()
                    elif line.startswith(("summary:", "totals:")):
                        total = int(line.split()[1])
                        break
            if desc is None or total is None:
                continue
            fam, args, iters = desc.split("|")
            key = (fam, tuple(int(a) for a in args.split(",")) if args else ())
            name = names.get(key)
            if name is None:
                continue  # a run whose result was not reported (an estimate of iterations)
            benches[name] = dict(instructions=total, iterations=int(iters),
                                 per_iteration=total / max(int(iters), 1))
        if not benches:
            return {"unavailable": "callgrind produced no per-benchmark counts (is hotbench "
                                   "built with valgrind/callgrind.h? see harness/hb_shim.cc)",
                    "valgrind": version}
        return {"valgrind": version, "command": " ".join(cmd), "benchmarks": benches}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def write_bmf(run, ir, path):
    """Bencher Metric Format: latency in ns (wall-clock time per iteration, as google-benchmark's
    real_time: median, min, max of the repetitions) and
    instructions per iteration where measured."""
    bmf = {}
    for name, row in run["rows"].items():
        t = np.array(row["wall"]) * 1e9
        bmf[name] = {"latency": {"value": float(np.median(t)), "lower_value": float(t.min()),
                                 "upper_value": float(t.max())}}
    for name, v in ir.get("benchmarks", {}).items():
        bmf.setdefault(name, {})["instructions"] = {"value": float(v["per_iteration"])}
    with open(path, "w") as f:
        json.dump(bmf, f, indent=1, sort_keys=True)


# --- commands ------------------------------------------------------------------------------------

def settings_from(args, base_dir=None):
    s = dict(SETTINGS)
    if base_dir and os.path.exists(os.path.join(base_dir, "settings.json")):
        with open(os.path.join(base_dir, "settings.json")) as f:
            s.update(json.load(f))  # measure what the baseline measured
    for k in ("filter", "ir_filter", "repetitions", "min_time", "budget_s"):
        v = getattr(args, k, None)
        if v is not None:
            s[k] = v
    return s


def cmd_measure(args):
    measure(args.build, args.out, settings_from(args, args.like))
    return 0


def cmd_compare(args):
    base, cur = Measurement(args.baseline), Measurement(args.current)
    return 1 if compare(base, cur, args) else 0


class Tee:
    """Writes to several streams (the console and the saved table)."""

    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for f in self.streams:
            f.write(s)


def cmd_ci(args):
    if not os.path.exists(os.path.join(args.baseline, "settings.json")):
        die("no baseline in %s: record one with `make baseline` (and commit it)" % args.baseline)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = args.out or os.path.join(ROOT, "results", "runs", stamp + "-ci")
    settings = settings_from(args, args.baseline)
    measure(args.build, out, settings)
    base, cur = Measurement(args.baseline), Measurement(out)
    ir = {r["name"] for r in check_instructions(base, cur, args)[0] if r["verdict"] == "pass"}
    suspects = [r["name"] for r in check_speed(base, cur, args, ir) if r["verdict"] == "regressed"]
    if suspects:
        confirm(args.build, out, settings, cur, suspects)
        cur = Measurement(out)
    with open(os.path.join(out, "gate.txt"), "w") as f:
        nreg = compare(base, cur, args, out=Tee(sys.stdout, f))
    print("gate: wrote %s/: run.json (google-benchmark JSON), bmf.json (Bencher Metric Format), "
          "instructions.json, gate.txt (this table)" % os.path.relpath(out, os.getcwd()))
    return 1 if nreg else 0


def confirm(build, out, settings, cur, names, log=print):
    """Re-measures the benchmarks the speed check would call regressed, with their reference
    rows, in a fresh process: confirm.json in out. A regression must show in both processes."""
    rows = cur.runs[0]["rows"]
    want = set(names) | {reference_name(n, rows[n]) for n in names}
    s = dict(settings)
    # POSIX extended regex (google-benchmark's): escape its special characters only
    s["filter"] = "^(%s)$" % "|".join(re.sub(r"([.\[\](){}*+?|^$\\])", r"\\\1", n)
                                      for n in sorted(want) if n)
    hotbench = os.path.join(build, "hotbench")
    tmp = os.path.join(out, "confirm.json.tmp")
    cmd = [hotbench, "--hb_profile=" + s["profile"], "--hb_budget=%g" % s["budget_s"],
           "--hb_repetitions=%d" % s["repetitions"], "--benchmark_min_time=%g" % s["min_time"],
           "--benchmark_filter=" + s["filter"], "--benchmark_out=" + tmp,
           "--benchmark_out_format=json"]
    log("gate: %d suspected speed regression(s); confirming in a second process" % len(names))
    rc = run_cmd(cmd, os.path.join(out, "confirm.log"), s)
    if rc in (0, 1) and os.path.exists(tmp):
        os.replace(tmp, os.path.join(out, "confirm.json"))
    else:
        log("gate: the confirmation run failed (exit %d, see %s): the suspects stay regressed" % (
            rc, os.path.join(out, "confirm.log")))


def cmd_baseline(args):
    s = settings_from(args)
    out = args.out
    os.makedirs(out, exist_ok=True)
    for f in glob.glob(os.path.join(out, "*.json")) + glob.glob(os.path.join(out, "*.log")):
        os.remove(f)
    # hotbench's console output goes with the other runs (git-ignored), not into the baseline
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    logdir = os.path.join(ROOT, "results", "runs", stamp + "-baseline-logs")
    for i in range(1, args.runs + 1):
        measure(args.build, out, s, suffix="-%d" % i, logdir=logdir)
    report = self_compare(out, args.runs, args)
    with open(report) as f:
        lines = f.read().splitlines()
    print("\n".join(l for l in lines if l.startswith(("verdict", "REGRESSED", "checks", "     "))))
    print("gate: baseline in %s (%d runs); run %d against run 1: %s" % (
        os.path.relpath(out, os.getcwd()), args.runs, args.runs,
        os.path.relpath(report, os.getcwd())))
    return 0


def self_compare(out, runs, args):
    """The baseline against itself: its last run compared with its first, written to
    self-compare.txt in the baseline (the evidence for the thresholds)."""
    report = os.path.join(out, "self-compare.txt")
    tmp = tempfile.mkdtemp(prefix="hb-gate-")
    try:
        dirs = []
        for i in (1, runs):
            d = os.path.join(tmp, str(i))
            os.makedirs(d, exist_ok=True)
            for name in ("run", "instructions"):
                shutil.copy(os.path.join(out, "%s-%d.json" % (name, i)),
                            os.path.join(d, "%s.json" % name))
            shutil.copy(os.path.join(out, "fingerprint.json"), d)
            dirs.append(d)
        with open(report, "w") as f:
            f.write("The baseline's run %d compared with its run 1 (a one-run baseline: the "
                    "thresholds here see no run-to-run spread).\n\n" % runs)
            compare(Measurement(dirs[0]), Measurement(dirs[1]), args, out=f)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="gate.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0],
        epilog="See the header of scripts/gate.py for the statistics. Exit status: 0 no "
               "regression, 1 a regression (ci, compare), 2 a usage or run error.")
    sub = ap.add_subparsers(dest="cmd", required=True)

    def stats_opts(p):
        p.add_argument("--z", type=float, default=DEFAULTS["z"],
                       help="speed: standard errors a change must exceed (default %(default)s)")
        p.add_argument("--min-effect", type=float, default=DEFAULTS["min_effect"],
                       help="speed: smallest change called a regression, as a fraction "
                            "(default %(default)s)")
        p.add_argument("--resolution", type=float, default=DEFAULTS["resolution"],
                       help="speed: 'pass' needs the threshold below this change, else "
                            "'inconclusive' (default %(default)s)")
        p.add_argument("--ir-tolerance", type=float, default=DEFAULTS["ir_tolerance"],
                       help="instructions: smallest change called a regression "
                            "(default %(default)s)")
        p.add_argument("--budget-factor", type=float, default=DEFAULTS["budget_factor"],
                       help="complexity: the budget at production size, and for a size now "
                            "skipped over --hb_budget, as a multiple of the baseline's time "
                            "(default %(default)s)")

    def sel_opts(p):
        p.add_argument("--build", default=os.path.join(ROOT, "build-ci"),
                       help="build directory holding hotbench (default build-ci)")
        p.add_argument("--filter", help="override the timed selection (a --benchmark_filter)")
        p.add_argument("--ir-filter", help="override the callgrind selection")
        p.add_argument("--repetitions", type=int, help="override the repetitions")
        p.add_argument("--min-time", type=float, help="override --benchmark_min_time (s)")
        p.add_argument("--budget-s", type=float, help="override --hb_budget (s)")

    base_default = os.path.join(ROOT, "results", "baseline")
    p = sub.add_parser("ci", help="measure and compare with the baseline; exit 1 on a regression")
    sel_opts(p)
    stats_opts(p)
    p.add_argument("--baseline", default=base_default)
    p.add_argument("--out", help="where the measurement goes (default results/runs/<UTC>-ci/)")
    p.set_defaults(func=cmd_ci)

    p = sub.add_parser("baseline", help="record results/baseline/ (several runs)")
    sel_opts(p)
    stats_opts(p)
    p.add_argument("--out", default=base_default)
    p.add_argument("--runs", type=int, default=2, help="runs to record (default 2)")
    p.set_defaults(func=cmd_baseline)

    p = sub.add_parser("measure", help="one measurement into --out")
    sel_opts(p)
    p.add_argument("--out", required=True)
    p.add_argument("--like", help="take the selection from this baseline's settings.json")
    p.set_defaults(func=cmd_measure)

    p = sub.add_parser("compare", help="compare two measurements")
    stats_opts(p)
    p.add_argument("--baseline", default=base_default)
    p.add_argument("--current", required=True)
    p.set_defaults(func=cmd_compare)

    args = ap.parse_args(argv)
    if getattr(args, "runs", 2) < 1:
        die("--runs wants at least 1")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

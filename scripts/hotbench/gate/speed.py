"""speed - check 1, relative speed.

A benchmark's time is divided by its group's reference row (the manifest's yardstick) at the same
arguments in the same run, so that the speed of the machine cancels. The references are library
code the project does not change and linear in the size (today memcpy for bufgrow, inflate for
bufgrow-gzip, strptime for the rfc3339 groups, timegm for rfc3339-days, expat-count for volumes);
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
"""

import math

import numpy as np

from ..runjson import parse_name
from ..units import fmt_time
from .stats import log_ratio, reference_name


def _args_key(row):
    return (row["family"], tuple(sorted(row["params"].items())))


def run_spread(manifest, runs_b):
    """({name: sd of its log ratio over the baseline's runs}, {(family, arguments): the median
    of those sds over the strategies}), both empty with one baseline run."""
    between, groups = {}, {}
    if len(runs_b) < 2:
        return between, {}
    for name in runs_b[0]["rows"]:
        vals = [log_ratio(manifest, r, name) for r in runs_b]
        if all(v is not None for v in vals):
            between[name] = float(np.std([v[0] for v in vals], ddof=1))
    for name, s in between.items():
        row = runs_b[0]["rows"][name]
        if reference_name(manifest, name, row) == name:
            continue  # the reference's own ratio is 1 in every run
        groups.setdefault(_args_key(row), []).append(s)
    return between, {key: float(np.median(ss)) for key, ss in groups.items()}


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


def _pct(d):
    return "%+.1f%%" % (100 * math.expm1(d))


def decide(st, opt, confirming):
    """(verdict, why) from the statistics st (d, d_fast, T, sigma, same, bar, d_conf, why, band,
    how: what is unchanged); confirming: whether a confirmation run exists."""
    d, d_fast, T, bar, why = st["d"], st["d_fast"], st["T"], st["bar"], st["why"]
    if st["same"] and d > T and d_fast > T and not (d > bar and d_fast > bar):
        return "inconclusive", "timing only: %s unchanged, and under 2T: %s" % (st["how"], why)
    if d > bar and d_fast > bar and confirming and (st["d_conf"] is None or st["d_conf"] <= bar):
        return "inconclusive", "not confirmed by a second process (%s): " % (
            _pct(st["d_conf"]) if st["d_conf"] is not None else "not measured") + why
    if d > bar and d_fast > bar:
        if st["d_conf"] is not None:
            why += "; confirmed by a second process: " + _pct(st["d_conf"])
        if st["same"]:
            why += " (timing only: the bar is 2T)"
        return "regressed", why
    if d < -T and d_fast < -T:
        return "improved", why
    if abs(d) > T:
        return "inconclusive", "median moved, fastest repetitions did not: " + why
    if opt.z * st["sigma"] <= math.log1p(opt.resolution):
        return "pass", st["band"]
    return "inconclusive", "noise: could not see a %d%% change (%s)" % (
        round(100 * opt.resolution), st["band"])


def statistics(ctx, name, row, lc, lb):
    """d, its threshold and the words around them for one benchmark (lc: its log ratio now, lb:
    in each baseline run; ctx: the comparison's shared state)."""
    opt, cur, between, pooled = ctx["opt"], ctx["cur"], ctx["between"], ctx["pooled"]
    mean_b = float(np.mean([v[0] for v in lb]))
    d = lc[0] - mean_b
    d_fast = lc[2] - float(np.mean([v[2] for v in lb]))
    s_run = max(between.get(name, 0.0), pooled.get(_args_key(row), 0.0))
    s_now = max(lc[1], s_run)
    s_base = max(float(np.sqrt(np.mean([v[1] ** 2 for v in lb]))), s_run)
    sigma = math.sqrt(s_now ** 2 + s_base ** 2 / len(lb))
    T = max(opt.z * sigma, math.log1p(opt.min_effect))
    band = "threshold +%.1f%%/-%.1f%%" % (100 * math.expm1(T), -100 * math.expm1(-T))
    why = "ratio to %s %s (fastest repetitions %s), %s" % (
        parse_name(ctx["ref"])[1], _pct(d), _pct(d_fast), band)
    # the bar of a regression: T, or 2T when the work is known unchanged (timing only)
    in_ir = name in ctx["ir_unchanged"]
    same = in_ir or work_unchanged(ctx["base"], cur, name)
    conf = log_ratio(ctx["manifest"], cur.confirm, name) if cur.confirm else None
    return dict(d=d, d_fast=d_fast, T=T, sigma=sigma, same=same, bar=2 * T if same else T,
                d_conf=conf[0] - mean_b if conf else None, why=why, band=band,
                how="instructions" if in_ir else "work counters")


def speed_result(ctx, name, row):
    """The speed check's result for one benchmark of the current run."""
    runs_b = ctx["base"].runs
    ref = reference_name(ctx["manifest"], name, row)
    res = dict(check="speed", name=name, family=row["family"], strategy=row["strategy"])
    now_med = float(np.median(row["t"]))
    base_rows = [r["rows"].get(name) for r in runs_b]
    if any(b is None for b in base_rows):
        res.update(verdict="inconclusive", base="-", now=fmt_time(now_med), change="-",
                   why="not in the baseline")
        return res
    base_med = float(np.median(np.concatenate([b["t"] for b in base_rows])))
    res.update(base=fmt_time(base_med), now=fmt_time(now_med))
    if ref == name:
        res.update(verdict="reference", change="%+.1f%%" % (100 * (now_med / base_med - 1)),
                   why="the group's reference row (its ratio is 1; instructions check it)")
        return res
    if ref is None:
        res.update(verdict="inconclusive", change="-",
                   why="no yardstick: %s is not speed-gated (its manifest's yardstick is null)"
                   % row["family"])
        return res
    lc = log_ratio(ctx["manifest"], ctx["cur"].runs[0], name)
    lb = [log_ratio(ctx["manifest"], r, name) for r in runs_b]
    if lc is None or any(v is None for v in lb):
        res.update(verdict="inconclusive", change="-",
                   why="no reference row %s in both runs" % ref)
        return res
    st = statistics(dict(ctx, ref=ref), name, row, lc, lb)
    verdict, why = decide(st, ctx["opt"], ctx["cur"].confirm is not None)
    res.update(change=_pct(st["d"]), d=st["d"], threshold=st["T"], sigma=st["sigma"],
               verdict=verdict, why=why)
    return res


def check_speed(base, cur, opt, ir_unchanged=()):
    """One result per benchmark of the current run that the baseline also measured.
    ir_unchanged: names whose instruction counts passed check 3."""
    manifest = cur.manifest
    between, pooled = run_spread(manifest, base.runs)
    ctx = dict(base=base, cur=cur, opt=opt, manifest=manifest, between=between, pooled=pooled,
               ir_unchanged=set(ir_unchanged))
    return [speed_result(ctx, name, row) for name, row in cur.runs[0]["rows"].items()]

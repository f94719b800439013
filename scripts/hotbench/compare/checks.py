"""checks - the compare's rows and what each check adds to them (engine.py runs them in order;
verdicts.py decides; confirmation.py confirms the screening's suspects). A row: name, family,
params, checks (dicts kind, verdict, text), time (the time verdict that stands), note."""

import concurrent.futures
import os

import numpy as np

from ..callgrind import measure_instructions
from ..fit import PowerFit
from ..listing import list_benchmarks
from .trials import Samples, interleaved, names_filter
from .verdicts import (ORDER, combine, describe_time, instructions_verdict, pct, repeated,
                       time_verdict)


# The screening's interval: a suspect needs its 80% interval above 1 (which 6 runs a side keep
# when one process is an outlier: the 95% interval's ends are the 6th pairwise differences from
# each end, which one outlying run's 6 differences reach).
SCREEN_CONF = 0.80


def new_row(samples, name):
    return dict(name=name, family=samples.family.get(name, ""), params=samples.params.get(name),
                checks=[], time=None, note="")


def add(row, kind, verdict, text):
    row["checks"].append(dict(kind=kind, verdict=verdict, text=text))


def predicted(vals):
    known = [v for v in vals if v is not None]
    return "predicted %.3g s" % max(known) if known else "no prediction"


def screen_rows(s, opts, left_out):
    """{name: row} from the screening samples s: verification failures, sizes left out, sizes
    skipped, and the time verdict of every benchmark both arms measured."""
    rows = {}
    names = set(s.family)
    for name in sorted(names):
        row = rows[name] = new_row(s, name)
        b, h = s.values("base", name), s.values("head", name)
        row["base_s"] = float(np.median(b)) if b else None
        row["head_s"] = float(np.median(h)) if h else None
        fail_h = s.failed.get("head", {}).get(name)
        if fail_h:
            add(row, "verification", "failed", "verification (head): " + fail_h)
        if s.failed.get("base", {}).get(name):
            row["note"] = "the base failed verification: " + s.failed["base"][name]
        skip_b = s.skipped.get("base", {}).get(name)
        skip_h = s.skipped.get("head", {}).get(name)
        if name in left_out:
            add(row, "time", "not-measured", left_out[name])
        elif b and h:
            row["time"] = time_verdict(b, h, opts.min_effect, widen=s.widen([name]))
            screen_tv = time_verdict(b, h, opts.min_effect, conf=SCREEN_CONF,
                                     widen=s.widen([name]))
            row["suspect"] = screen_tv["verdict"] == "regressed"
        elif b and skip_h:
            row["budget_suspect"] = True
            row["note"] = "head skipped it over the budget (%s)" % predicted(skip_h)
        elif skip_b and skip_h:
            add(row, "time", "not-measured", "over the budget in both (base %s, head %s)" % (
                predicted(skip_b), predicted(skip_h)))
        elif not fail_h:
            add(row, "time", "not-measured", "measured only by the %s" % (
                "base" if b or skip_b else "head"))
    strategy_suspects(rows, s, opts)
    return rows


def by_strategy(rows, names):
    """{family: [names of it]} of the names (sorted), families of two names or more only."""
    out = {}
    for n in sorted(names):
        out.setdefault(rows[n]["family"], []).append(n)
    return {f: ns for f, ns in out.items() if len(ns) >= 2}


def strategy_suspects(rows, s, opts):
    """A strategy whose sizes pooled (Samples.pooled) are a suspect of the screening makes a
    suspect of each of its sizes that ran slower in the head: a slowdown of a strategy's code
    shows at every size, and pooling 3-5 sizes narrows the interval that each size alone
    leaves too wide on a noisy machine."""
    timed = [n for n, r in rows.items() if r.get("time") and r["time"].get("ratio")]
    for fam, names in by_strategy(rows, timed).items():
        tv = time_verdict(s.pooled("base", names), s.pooled("head", names), opts.min_effect,
                          conf=SCREEN_CONF, widen=s.widen(names))
        if tv["verdict"] == "regressed":
            for n in names:
                if rows[n]["time"]["ratio"] > 1 and not rows[n].get("suspect"):
                    rows[n]["suspect"] = "strategy"


def unbudgeted(rows, screen, arms, settings, opts, trials_dir, rng, log):
    """Runs every size the head skipped over the budget again (run_unbudgeted)."""
    for name in sorted(n for n, r in rows.items() if r.get("budget_suspect")):
        run_unbudgeted(rows[name], screen, arms, settings, opts, trials_dir, rng, log)


def run_unbudgeted(row, screen, arms, settings, opts, trials_dir, rng, log):
    """A size the base measured and the head skipped over the budget: two ABBA blocks of it
    alone without the budget, each head process stopped after a time limit (a stopped run
    counts as at least the limit); adds the time check."""
    name = row["name"]
    base_t = max(screen.real.get("base", {}).get(name, [0.0]))
    limit = max(opts.censor_s, opts.censor_factor * base_t)
    log("compare: %s: skipped over the budget by the head; measuring it without the budget, "
        "interleaved (head runs stopped after %.1f s)" % (name, limit))
    s = dict(settings, budget_s=1e6, min_time=1e-9, repetitions=1)  # hotbench's largest
    runs = Samples(aligned=False)  # its censored head values join the measured ones as such
    start = len(runs.processes)
    interleaved(arms, s, names_filter([name]), 2, trials_dir, "unbudgeted", runs, rng, log,
                timeout=limit)
    stopped = [p for p in runs.processes[start:] if p["timed_out"] and p["label"] == "head"]
    b = runs.values("base", name)
    h = runs.values("head", name) + [limit / 2] * len(stopped)
    tv = time_verdict(b, h, opts.min_effect)
    how = "%d of %d head runs stopped after %.1f s" % (len(stopped), len(h), limit) \
        if stopped else "measured without the budget"
    tv["text"] = "time (head over the budget, %s): %s" % (how, describe_time(tv, "unbudgeted"))
    row["time"] = tv
    add(row, "time", tv["verdict"], tv["text"])


def listed(binary, bfilter):
    """The benchmark names hotbench lists for bfilter (--benchmark_list_tests: nothing runs)."""
    return set(list_benchmarks(binary, "--hb_profile=full", "--benchmark_filter=" + bfilter).names)


def ir_selection(arms, manifest, opts):
    """The callgrind selection: --ir-filter, else the manifest's gate.ir_select, narrowed to
    the benchmarks --filter selects when one is given. None when it selects nothing."""
    from ..selection import selection_filter
    if opts.ir_filter:
        return opts.ir_filter
    ir_filter = selection_filter(manifest, "ir_select")
    if not ir_filter or not opts.filter:
        return ir_filter
    names = listed(arms[1].binary, ir_filter) & listed(arms[1].binary, opts.filter)
    return names_filter(names) if names else None


def count_arms(arms, settings, ir_filter, logdir, suffix, log):
    """({arm label: {name: {per_iteration, ...}}}, {arm label: why it has no counts}): each arm
    once under callgrind over ir_filter, side by side (instruction counts do not depend on the
    machine's load); an arm callgrind could not count is in the second dict only (logged)."""
    def count(arm):
        s = dict(settings, ir_filter=ir_filter, env=dict(settings["env"], **arm.env))
        return measure_instructions(arm.binary, logdir, s, {}, "-" + arm.label + suffix,
                                    lambda m: None)

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(arms)) as pool:
        irs = dict(zip([a.label for a in arms], pool.map(count, arms)))
    counts, failed = {}, {}
    for label, ir in irs.items():
        if "unavailable" in ir:
            failed[label] = ir["unavailable"]
            log("compare: no instruction counts of the %s: %s" % (label, ir["unavailable"]))
        else:
            counts[label] = ir["benchmarks"]
    return counts, failed


def per_iteration(counts, label, name):
    return counts.get(label, {}).get(name, {}).get("per_iteration")


def instructions(rows, arms, settings, manifest, opts, out_dir, log):
    """Each arm once under callgrind over the ir selection; the rows whose count moved are
    counted again (verdicts.repeated: a count that differs between two runs of one binary
    decides nothing); adds the instructions check (or a note that callgrind is unavailable)."""
    ir_filter = ir_selection(arms, manifest, opts)
    if not ir_filter:
        return
    logdir = os.path.join(out_dir, "trials")
    os.makedirs(logdir, exist_ok=True)
    log("compare: instruction counts under callgrind, base and head side by side")
    first, failed = count_arms(arms, settings, ir_filter, logdir, "", log)
    if failed:
        return
    verdicts = {}
    for name in sorted(set(first["base"]) | set(first["head"])):
        iv = instructions_verdict(per_iteration(first, "base", name),
                                  per_iteration(first, "head", name), opts.ir_tolerance)
        if iv is not None:
            verdicts[name] = iv
    moved = [name for name, iv in verdicts.items() if iv["verdict"] != "same"]
    if moved:
        log("compare: %d instruction counts moved; counting them again, to see that they "
            "repeat" % len(moved))
        again, failed = count_arms(arms, settings, names_filter(moved), logdir, "-again", log)
        missing = "; ".join("the %s's second count failed: %s" % kv for kv in failed.items())
        for name in moved:
            verdicts[name] = repeated(verdicts[name], per_iteration(again, "base", name),
                                      per_iteration(again, "head", name), opts.ir_tolerance,
                                      missing)
    for name, iv in verdicts.items():
        row = rows.setdefault(name, dict(name=name, family="", params=None, checks=[],
                                         time=None, note=""))
        row["instructions"] = iv
        add(row, "instructions", iv["verdict"], "instructions: %s (%.4g -> %.4g per iteration)%s"
            % (pct(iv["ratio"]), iv["base"], iv["head"], iv.get("why", "")))


def fit_exponent(points):
    """The exponent k of t = b*N^k over (N, t) points, fitted as the report fits it
    (hotbench.fit.PowerFit without its constant: least squares of log t on each size's median),
    or None for fewer than 3 sizes or a failed fit."""
    f = PowerFit([n for n, _ in points], [t for _, t in points], with_constant=False)
    return f.k if f.ok else None


def in_view(row, view):
    """Whether a row (dict with params) lies on a manifest view's series: x among its
    arguments, positive (a power law's logarithm needs it), the other arguments at the view's
    fixed values."""
    x = row["params"].get(view["x"])
    return (isinstance(x, (int, float)) and x > 0
            and all(row["params"].get(k) == v for k, v in view["fixed"].items()))


def view_points(samples, label, family, view):
    """{name: (N, [times])} of the benchmarks of family on the view, for arm label."""
    out = {}
    for name, fam in samples.family.items():
        params = samples.params.get(name) or {}
        if fam == family and in_view({"params": params}, view):
            vals = samples.values(label, name)
            if vals:
                out[name] = (params[view["x"]], vals)
    return out


def complexity(rows, samples, manifest, opts, rise=0.3):
    """Fits each strategy's exponent along each view per arm; an exponent higher by more than
    rise in the head labels the regression of the strategy's largest size on the view (when
    that size's time is regressed), else it is only noted there."""
    for group, view in manifest.views():
        if not view.get("items_per_x"):
            continue
        for s in group.get("strategies", []):
            family = group["name"] + "/" + s["name"]
            base = view_points(samples, "base", family, view)
            head = view_points(samples, "head", family, view)
            kb = fit_exponent([(n, t) for n, ts in base.values() for t in ts])
            kh = fit_exponent([(n, t) for n, ts in head.values() for t in ts])
            if kb is None or kh is None or kh - kb <= rise:
                continue
            largest = max(base, key=lambda n: base[n][0])
            row = rows.get(largest)
            if row:
                label_complexity(row, "complexity: exponent along %s %.2f -> %.2f" % (
                    view["x"], kb, kh))


def label_complexity(row, text):
    """A higher exponent (text) of row's strategy: a complexity check labelling row's time
    regression, or only a note where its time is not regressed."""
    if row.get("time") and row["time"]["verdict"] == "regressed":
        add(row, "complexity", "regressed", text)
    else:
        row["note"] = (row["note"] + "; " if row["note"] else "") + text + \
            " (no size confirmed slower)"


def settle(row):
    """Sets row's verdict and check (verdicts.combine) and its figures from its time verdict:
    ratio, ci, p, n_base, n_head and the medians."""
    combine(row)
    tv = row.get("time") or {}
    row["ratio"], row["ci"], row["p"] = tv.get("ratio"), tv.get("ci"), tv.get("p")
    row["n_base"], row["n_head"] = tv.get("n_base"), tv.get("n_head")
    if tv.get("base_s") or tv.get("head_s"):
        row["base_s"], row["head_s"] = tv.get("base_s"), tv.get("head_s")
    return row


def in_order(rows):
    """rows (a list) sorted in verdict order (ORDER), then by name."""
    return sorted(rows, key=lambda r: (ORDER.index(r["verdict"]), r["name"]))


def finish(rows):
    """The rows as a list in verdict order (ORDER), then by name; each settled (settle)."""
    out = []
    for row in rows.values():
        settle(row)
        row.pop("suspect", None)
        row.pop("budget_suspect", None)
        out.append(row)
    return in_order(out)

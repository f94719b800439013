"""confirmation - the screening's suspects run again, and what decides a regression.

The suspects (checks.screen_rows) run in opts.confirm_blocks more ABBA blocks, beside a few
quick other benchmarks as anchors of the processes' speed (outliers.py). Then the strategy is
the unit of the tests: a strategy with two suspect sizes or more is one test, its suspect sizes
pooled (trials.Samples.pooled), and a strategy with one suspect size is that size's test. A
size of a pooled strategy is regressed when its strategy's test is rejected and it ran slower
in the confirmation itself; its own interval is shown, never counted. So a compare makes as
many tests as it has suspect strategies, not one per size and one per strategy on top: of 8
idle compares with 5% injected (results/gate-power/default-idle-759cdca.md) the confirmation
missed 5, each with 18-48 suspect sizes tested at Holm's 99.8-99.9%, while all the target's
runs pooled put its interval above 1. The price: a slowdown of one size is diluted by the
other suspect sizes of its strategy (a geometric mean of their ratios). A test rejects "no
slowdown of e/2 or more" when its interval lies above 1 + e/2, and counts only with its
estimate above 1 + e.

A compare makes many such tests, a few on unchanged code too: at 95% each, one unchanged
compare of 39 benchmarks in 20 confirmed a +6.6% [+2.1%, +13.5%] that was not there. So the
tests go through Holm's step-down procedure (Holm, "A simple sequentially rejective multiple
test procedure", Scand. J. Statist. 6, 1979): with m tests left, those whose interval at
1 - ALPHA/m passes are rejected and leave, and the rest are tried again at the wider level
for m minus those; it stops when none passes. The chance of any false regression among the
confirmed tests stays under ALPHA/2 (one-sided), however many suspects the screening found.
"""

import itertools
import math
import os
import statistics

from . import copies, random_effects, sequential
from .blocks import widened
from .rankstats import differences
from .trials import interleaved, names_filter
from .verdicts import describe_time, pct, time_verdict

ALPHA = 0.05

# Benchmarks run beside the suspects in the confirmation (anchor_names).
ANCHORS = 6
ARMS = ("base", "head")


class Second:
    """The second round (sequential.py): samples (trials.Samples of its processes), keys (the
    tests that went on, in the order chosen) and share (the part of each test's level the
    first round spent: sequential.FIRST_SHARE, or 1.0 when no second round was planned)."""

    def __init__(self, share, samples=None, keys=()):
        self.share, self.samples, self.keys = share, samples, list(keys)

    def tests(self, suspects, families, screen):
        """The chosen tests' second-round data (tests(), weighted by screen), and their sizes'
        for display."""
        if self.samples is None:
            return {}
        chosen = set(self.keys)
        fams = {k[1] for k in chosen if k[0] == "strategy"}
        own = {f: usable(names, self.samples) or names for f, names in families.items()}
        family = families_of(families)
        return {k: t for k, t in tests(suspects, own, self.samples, screen).items()
                if k in chosen or (k[0] == "size" and family.get(k[1]) in fams)}


def families_of(families):
    """{size: strategy} from {strategy: [sizes]}."""
    return {n: f for f, names in families.items() for n in names}


def confirm(rows, screen, arms, settings, opts, trials_dir, rng, log, samples, undecided=(),
            second=False):
    """Runs the confirmation of the suspects into samples (trials.Samples) and adds every
    timed row's time check. undecided: the sizes of undecided strategies measured beside them
    (strategies.to_confirm; they decide only their strategy's summary line). second: a second
    round is planned (sequential.py; second_round). Returns (record() of the suspects, the
    second round's Samples or None)."""
    suspects = sorted(n for n, r in rows.items() if r.get("suspect"))
    if suspects or undecided:
        anchors = anchor_names(rows, suspects + list(undecided))
        log("compare: %d suspect(s) of a slowdown and %d size(s) of undecided strategies; "
            "confirming in %d more ABBA block(s), with %d of the rest as anchors of the "
            "processes' speed" % (len(suspects), len(undecided), opts.confirm_blocks,
                                  len(anchors)))
        interleaved(arms, settings, names_filter(sorted(set(suspects) | set(undecided)) +
                                                 anchors), opts.confirm_blocks,
                    trials_dir, "confirm", samples, rng, log)
    extra = Second(sequential.FIRST_SHARE if second and suspects and opts.copies > 0 else 1.0)
    if extra.share < 1.0:
        second_round(rows, suspects, screen, samples, extra, (arms, settings, trials_dir, rng),
                     opts, log)
    judged = judge(rows, screen, samples, suspects, opts, extra)
    rec = record(rows, screen, samples, suspects, extra)  # before the screening's verdicts go
    for name, row in rows.items():
        tv = judged.get(name, row.get("time"))
        if tv is None:
            continue
        row["time"] = tv
        row["checks"].append(dict(kind="time", verdict=tv["verdict"], text=tv.get("text") or
                                  describe_time(tv, "interleaved")))
    return rec, extra.samples


def second_round(rows, suspects, screen, samples, extra, run, opts, log):
    """The second round (sequential.py): the tests the first round left undecided of the least
    p1 (sequential.chosen) run again, their suspect sizes in ABBA blocks of their own beside
    sequential.ANCHORS anchors (as many blocks as fit in sequential.ROUND_S and the first
    round's seconds, timed by the round's first block: sequential.blocks), from
    sequential.COPIES copies of each binary (at least opts.copies) written afresh (a slow copy
    of the first round would slow the second too: its p2 would not be independent of p1), into
    a new Samples set on extra (a Second). run: (arms, settings, trials_dir, rng). Planned
    only with copies (opts.copies > 0: confirm)."""
    families, family = strategies_of(rows, suspects, samples)
    all_ = tests(suspects, families, samples, screen)
    held = counted(all_, family)
    first = holm(all_, family, opts, share=extra.share)
    rejected = {k for k in held if first[k]["verdict"] == "regressed"}
    p1 = {k: (sequential.p_value(all_[k][0], all_[k][1], opts, all_[k][2]),
              first[k].get("ratio")) for k in held}
    extra.keys = sequential.chosen(p1, rejected, opts)
    if not extra.keys:
        log("compare: no second confirmation round: no undecided suspect strategy's first "
            "round gives p <= %g with its estimate above 1 + e" % sequential.MAX_P1)
        return
    names = sorted(n for kind, name in extra.keys
                   for n in (families[name] if kind == "strategy" else [name]))
    anchors = anchor_names(rows, suspects, sequential.ANCHORS)
    count = max(opts.copies, sequential.COPIES)
    log("compare: second confirmation round (sequential.py): %d undecided strateg%s, %d "
        "size(s), with %d anchors, from %d fresh copies of each binary, in as many ABBA blocks "
        "as fit in %.0f s and the first round's time (%d to %d): %s" % (
            len(extra.keys), "y" if len(extra.keys) == 1 else "ies", len(names), len(anchors),
            count, sequential.ROUND_S, opts.confirm_blocks,
            max(opts.confirm_blocks, sequential.MAX_BLOCKS),
            ", ".join(k[1] for k in extra.keys)))
    arms, settings, trials_dir, rng = run
    try:
        for arm in arms:
            sha = arm.sha256
            copies.write(arm, count, os.path.dirname(trials_dir), first=opts.copies + 1)
            if sha and arm.sha256 != sha:
                raise OSError("%s changed since the compare began" % arm.binary)
    except OSError as e:
        log("compare: no second confirmation round: its copies could not be written (%s); "
            "the first round decides at its share of the level" % e)
        extra.keys = []
        return
    extra.samples = type(samples)(steady=samples.steady)
    bfilter = names_filter(names + anchors)
    # the block count depends on the first block's seconds, the same function of its base and
    # its head processes: under no slowdown it tells nothing of which arm is which
    interleaved(arms, settings, bfilter, 1, trials_dir, "confirm2", extra.samples, rng, log)
    pilot = sum(p["seconds"] for p in extra.samples.processes)
    total = sequential.blocks(pilot, opts.confirm_blocks,
                              sum(p["seconds"] for p in samples.processes))
    log("compare: confirm2: its first block took %.1f s: %d block(s) in all" % (pilot, total))
    interleaved(arms, settings, bfilter, total - 1, trials_dir, "confirm2", extra.samples, rng,
                log)


def record(rows, screen, samples, suspects, extra=None):
    """compare.json's "confirmation": what judge() reads (called before the screening's
    verdicts of the suspects are replaced), so that the tests of several shards
    go through one Holm procedure as if one compare had made them (merge.py): {"alpha",
    "tests": [{kind ("size" or "strategy"), name (a benchmark or a strategy), base, head
    (lists of [copy, value]: CPU seconds aligned on their blocks, or a strategy's pooled
    values), widen (the interval's factor: blocks.py), counted (a test of Holm's procedure;
    false: a size of a pooled strategy, its runs kept for its own interval), share (the
    part of its level its first round spent: sequential.py), second (its second round's
    {base, head, widen}, where it had one)}], "suspects": [{name, family, screen_ratio (the
    screening's estimate), screen: {base, head} (its screening's CPU seconds),
    screen_widen}]}."""
    extra = extra or Second(1.0)
    families, family = strategies_of(rows, suspects, samples)
    all_ = tests(suspects, families, samples, screen)
    more = extra.tests(suspects, families, screen)
    held = counted(all_, family)

    def one(kind, name, b, h, w):
        t = dict(kind=kind, name=name, base=[list(x) for x in b], head=[list(x) for x in h],
                 widen=w, counted=(kind, name) in held, share=extra.share)
        if (kind, name) in more:
            b2, h2, w2 = more[(kind, name)]
            t["second"] = dict(base=[list(x) for x in b2], head=[list(x) for x in h2], widen=w2)
        return t
    return dict(alpha=ALPHA, tests=[one(k, n, *t) for (k, n), t in sorted(all_.items())],
                suspects=[dict(name=n, family=rows[n]["family"],
                               screen_ratio=rows[n]["time"]["ratio"],
                               screen={lb: screen.values(lb, n) for lb in ("base", "head")},
                               screen_widen=screen.widen([n])) for n in suspects])


def judge(rows, screen, samples, suspects, opts, extra=None):
    """{name: time verdict} of each suspect (a name of rows) from the confirmation's samples
    (the screening's too where it is not confirmed) and the second round's (extra, a Second):
    the tests of step_down, then decide."""
    extra = extra or Second(1.0)
    families, family = strategies_of(rows, suspects, samples)
    verdicts = holm(tests(suspects, families, samples, screen), family, opts,
                    second=extra.tests(suspects, families, screen), share=extra.share)
    return {n: decide(rows[n], screen, samples, verdicts,
                      len(families.get(rows[n]["family"], [])), opts) for n in suspects}


def anchor_names(rows, suspects, count=ANCHORS):
    """Up to count benchmarks that are no suspects, the quickest of the screening first: they
    run beside the suspects in the confirmation so that its processes have enough benchmarks to
    tell a whole process that ran slow (outliers.py)."""
    rest = [(r["base_s"], n) for n, r in rows.items()
            if n not in suspects and r.get("time") and r.get("base_s")]
    return [n for _, n in sorted(rest)[:count]]


def tests(suspects, families, samples, screen=None):
    """The confirmation's tests: {("size", name): (base, head, widen)} per suspect and
    {("strategy", family): (base, head, widen)} per family of families, from samples; base
    and head lists of (copy, seconds or pooled value), widen the interval's factor
    (Samples.widen). A strategy's sizes are weighted by screen's processes (Samples.weights:
    independent of samples'), equally without it."""
    out = {("size", n): (samples.by_copy("base", n), samples.by_copy("head", n),
                         samples.widen([n])) for n in suspects}
    for fam, names in families.items():
        w = screen.weights(names) if screen is not None else None
        out[("strategy", fam)] = (samples.pooled("base", names, True, w),
                                  samples.pooled("head", names, True, w),
                                  samples.widen(names))
    return out


def strategies_of(rows, suspects, samples):
    """(families, family): by_strategy of the suspects each strategy can pool (usable), and
    {size: strategy} of every usable suspect (a strategy's lone suspect size with 2 values a
    side or more; the sizes a pooled strategy keeps). A size missing from an arm's processes
    (skipped over the budget in some, failed) would empty its strategy's pooled values (only
    processes that measured every size count) and with them the strategy's one test; a size
    no test can read is never counted."""
    groups, families, family = {}, {}, {}
    for n in sorted(suspects):
        groups.setdefault(rows[n]["family"], []).append(n)
    for fam, names in groups.items():
        keep = usable(names, samples)
        if len(keep) >= 2:
            families[fam] = keep
        family.update({n: fam for n in keep})
    return families, family


def usable(names, samples):
    """The names of one strategy that samples can pool: those with 2 values a side or more,
    then, while fewer than 2 processes of an arm measured all of them, less the one measured
    least (Samples.pooled counts only the processes that measured every name)."""
    keep = [n for n in names if min(len(samples.values(lb, n)) for lb in ARMS) >= 2]
    while len(keep) >= 2 and min(len(samples.pooled(lb, keep)) for lb in ARMS) < 2:
        keep.remove(min(keep, key=lambda n: (sum(len(samples.values(lb, n)) for lb in ARMS),
                                             n)))
    return keep


def counted(tests_, family):
    """The keys of tests_ (tests()) that Holm's procedure counts: every strategy's, and each
    size's of family ({usable size: its strategy}: strategies_of) whose strategy has no test
    of its own (its only usable suspect size)."""
    pooled = {name for kind, name in tests_ if kind == "strategy"}
    return {(kind, name) for kind, name in tests_
            if kind == "strategy" or (name in family and family[name] not in pooled)}


def holm(tests_, family, opts, held=None, second=None, share=1.0):
    """{key: time verdict} of every test of tests_ (tests(); family: {size: strategy}): Holm's
    step-down over the counted ones (held, else counted()), each with its second round's data
    where second ({key: (base, head, widen)}) has it and share (sequential.py; a float, or
    {key: share}), then each uncounted size's own verdict at its strategy's last level, marked
    counted=False (shown, never deciding)."""
    held = counted(tests_, family) if held is None else held
    second = second or {}
    out = step_down({k: t for k, t in tests_.items() if k in held}, opts, second, share)
    for k, t in tests_.items():
        if k not in held:
            level = out.get(("strategy", family.get(k[1])), {}).get("conf", 1.0 - ALPHA)
            out[k] = dict(shown(t, second.get(k), level, opts), counted=False)
    return out


def shown(first, second, level, opts):
    """The time verdict shown for a test at level: its first round's runs, or both rounds'
    pooled where it had a second (the interval then only shown: sequential.py decides)."""
    if second is None:
        return test_verdict(first[0], first[1], level, opts, *first[2:])
    base, head = rounds_pooled(first, second)
    return dict(test_verdict(base, head, level, opts, max(first[2], second[2])), rounds=2)


def rounds_pooled(first, second):
    """(base, head) lists of (copy, value) of both rounds' runs, the second round's values
    scaled by the ratio of the first round's base median to its own (so they stay in the first
    round's seconds): the rounds' processes measure different sets of benchmarks, and the
    host's speed drifts between them (in a compare of the 40 rfc3339 benchmarks one strategy's
    sizes ran 1.3-2x faster in the second round), which pooled raw would read as the arms'
    scatter, not their shift. The second round is left out where an arm of either round has no
    value or a median that is not a positive finite number."""
    def median(values):
        m = statistics.median(v for _, v in values) if values else float("nan")
        return m if math.isfinite(m) and m > 0 else None
    base, head = list(first[0]), list(first[1])
    ref, own = median(first[0]), median(second[0])
    if ref is not None and own is not None and median(first[1]) and median(second[1]):
        base += [(c, v * ref / own) for c, v in second[0]]
        head += [(c, v * ref / own) for c, v in second[1]]
    return base, head


def test_verdict(base, head, level, opts, widen=1.0):
    """One test's time verdict at level: the rank interval over the processes
    (verdicts.time_verdict) above 1 + e/2 and its estimate above 1 + e and, where an arm's
    copies differ (random_effects: a copy effect above 0), the interval with the copy as a
    random effect above 1 + e/2 too; base, head lists of (copy, value), values aligned on
    their blocks whose intervals are widened by widen (blocks.py). A rank test that passes
    where the copies' interval does not is inconclusive, its text naming the copies' interval
    and their spread (the A/A)."""
    tv = time_verdict([v for _, v in base], [v for _, v in head], opts.min_effect, conf=level,
                      margin=opts.min_effect / 2, widen=widen)
    tv["conf"] = level
    re = random_effects.interval(base, head, level)
    if re is not None:
        re["ci"] = list(widened(re["ratio"], re["ci"][0], re["ci"][1], widen))
        tv["copies"] = dict(ratio=re["ratio"], ci=re["ci"], df=round(re["df"], 1),
                            copy_sd=re["copy_sd"])
    differ = re is not None and max(re["copy_sd"].values()) > 0
    if tv["verdict"] == "regressed" and differ and re["ci"][0] <= 1 + opts.min_effect / 2:
        tv["verdict"] = "inconclusive"
        tv["why"] = spread_why(re)
    return tv


def spread_why(re):
    """Why a time verdict is not beyond the copies' own spread, from re (random_effects.interval,
    its ci as the verdict used it): 'not beyond the copies' own spread: ...'."""
    return "not beyond the copies' own spread: %s [%s, %s] with the copy a random effect " \
        "(copies' sd: base %.1f%%, head %.1f%%)" % (
            pct(re["ratio"]), pct(re["ci"][0]), pct(re["ci"][1]),
            re["copy_sd"]["base"] * 100, re["copy_sd"]["head"] * 100)


def step_down(tests, opts, second=None, share=1.0):
    """Holm's step-down over tests ({key: (base, head, widen)}, widen 1.0 when left out), each
    test's p-value its q (sequential.q_value: its first round's p, and its second round's where
    second, {key: (base, head, widen)}, has it; share a float or {key: share}): {key: time
    verdict}, "regressed" for the rejected ones (at the level that rejected them, in
    tv["conf"]); the others' verdicts at the last level tried (a first-round interval that
    passes where q does not is "inconclusive": the level it was given was share of it)."""
    second = second or {}
    part = share if isinstance(share, dict) else {k: share for k in tests}
    q = {k: sequential.q_value(sequential.p_value(t[0], t[1], opts, *t[2:]),
                               sequential.p_value(second[k][0], second[k][1], opts,
                                                  *second[k][2:]) if k in second else None,
                               part.get(k, 1.0)) for k, t in tests.items()}
    left, out = dict(tests), {}
    while left:
        level = 1.0 - ALPHA / len(left)
        hit = [k for k in left if q[k] <= ALPHA / 2 / len(left) and both_above(
            left[k], second.get(k), opts)]
        for k in hit or list(left):
            tv = dict(shown(left[k], second.get(k), level, opts), conf=level, q=q[k])
            if k in hit:
                tv["verdict"] = "regressed"
                tv.pop("why", None)
            elif tv["verdict"] == "regressed":
                tv["verdict"] = "inconclusive"
                tv["why"] = "q %.2g over Holm's %.2g (sequential.py)" % (
                    q[k], ALPHA / 2 / len(left))
            out[k] = tv
            del left[k]
        if not hit:
            break
    return out


def both_above(first, second, opts):
    """Whether a test that went on to a second round has its estimate over both rounds' runs
    above 1 + e (sequential.py); True for one that did not."""
    if second is None:
        return True
    # Hodges-Lehmann over the pairs within each round (stratified: a pair across rounds
    # measures the host's drift between them too), each round weighing its pairs' count
    d = [differences([v for _, v in r[0]], [v for _, v in r[1]])[2] for r in (first, second)]
    d = [x for x in itertools.chain(*d) if not math.isnan(x)]
    return bool(d) and math.exp(statistics.median(d)) > 1.0 + opts.min_effect


def copies_text(tv):
    """'; copies: +5.1% [+2.0%, +8.3%]' (the interval with the copy a random effect) or ''."""
    c = tv.get("copies")
    return "; copies: %s [%s, %s]" % (pct(c["ratio"]), pct(c["ci"][0]), pct(c["ci"][1])) \
        if c else ""


def rounds_text(tv):
    """', two rounds: q 0.0012' where a second round decided (sequential.py), else ''."""
    return ", two rounds: q %.2g" % tv["q"] if tv.get("rounds") == 2 and "q" in tv else ""


def strategy_text(fam, strategy_sizes):
    """'its strategy's 3 suspect sizes pooled at 99.5%: +4.1% [-1.0%, +9.8%]; this size ' (the
    strategy's test that was not rejected) or '' (no strategy test)."""
    if not fam or not fam.get("ci"):
        return "" if not fam else "its strategy's %d suspect sizes pooled: %s; this size " % (
            strategy_sizes, fam.get("why", "no interval"))
    return "its strategy's %d suspect sizes pooled at %.1f%%: %s [%s, %s]; this size " % (
        strategy_sizes, fam["conf"] * 100, pct(fam["ratio"]), pct(fam["ci"][0]),
        pct(fam["ci"][1]))


def decide(row, screen, conf, verdicts, strategy_sizes, opts):
    """A suspect's time verdict: regressed when its own test (a strategy's only suspect size)
    was rejected, or its strategy's pooled one and the size ran slower in the confirmation by
    itself; otherwise the verdict of all its runs pooled, a pooled "regressed" made
    inconclusive."""
    name = row["name"]
    own = verdicts[("size", name)]
    stage = "confirmed at %.1f%% (Holm%s)" % (own["conf"] * 100, rounds_text(own))
    if own["verdict"] == "regressed" and own.get("counted", True):
        return dict(own, text=describe_time(own, stage) + copies_text(own))
    fam = verdicts.get(("strategy", row["family"]))
    if fam and fam["verdict"] == "regressed" and own.get("ratio") and own["ratio"] > 1:
        # the strategy's interval decides; the medians stay the size's own seconds (the
        # pooled values are ratios to each size's median, not times)
        return dict(fam, base_s=own.get("base_s"), head_s=own.get("head_s"),
                    text="time (confirmed with its strategy's %d suspect sizes pooled at "
                    "%.1f%% (Holm%s)): %s [%s, %s], %d/%d runs; this size: %s" % (
                        strategy_sizes, fam["conf"] * 100, rounds_text(fam), pct(fam["ratio"]),
                        pct(fam["ci"][0]), pct(fam["ci"][1]), fam["n_base"], fam["n_head"],
                        describe_time(own, "confirmation")[len("time "):]))
    cb, ch = conf.values("base", name), conf.values("head", name)
    pooled = time_verdict(screen.values("base", name) + cb, screen.values("head", name) + ch,
                          opts.min_effect, widen=max(screen.widen([name]), conf.widen([name])))
    if pooled["verdict"] == "regressed":
        pooled["verdict"] = "inconclusive"
    why = [t["why"] for t in (own, fam or {}) if t.get("verdict") == "inconclusive" and
           "copies" in t.get("why", "")]
    pooled["text"] = "time: %s in the screening, not confirmed (%s%s%s); pooled: %s" % (
        pct(row["time"]["ratio"]), strategy_text(fam, strategy_sizes),
        describe_time(own, "confirmation at %.1f%%" % (own["conf"] * 100)),
        "; " + why[0] if why else "", describe_time(pooled, "all runs")[len("time "):])
    if own.get("copies"):
        pooled["copies"] = own["copies"]
    return pooled

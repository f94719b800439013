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

from . import random_effects
from .checks import by_strategy
from .blocks import widened
from .trials import interleaved, names_filter
from .verdicts import describe_time, pct, time_verdict

ALPHA = 0.05

# Benchmarks run beside the suspects in the confirmation (anchor_names).
ANCHORS = 6


def confirm(rows, screen, arms, settings, opts, trials_dir, rng, log, samples, undecided=()):
    """Runs the confirmation of the suspects into samples (trials.Samples) and adds every
    timed row's time check. undecided: the sizes of undecided strategies measured beside them
    (strategies.to_confirm; they decide only their strategy's summary line). Returns record()
    of the suspects."""
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
    judged = judge(rows, screen, samples, suspects, opts)
    rec = record(rows, screen, samples, suspects)  # before the screening's verdicts go
    for name, row in rows.items():
        tv = judged.get(name, row.get("time"))
        if tv is None:
            continue
        row["time"] = tv
        row["checks"].append(dict(kind="time", verdict=tv["verdict"], text=tv.get("text") or
                                  describe_time(tv, "interleaved")))
    return rec


def record(rows, screen, samples, suspects):
    """compare.json's "confirmation": what judge() reads (called before the screening's
    verdicts of the suspects are replaced), so that the tests of several shards
    go through one Holm procedure as if one compare had made them (merge.py): {"alpha",
    "tests": [{kind ("size" or "strategy"), name (a benchmark or a strategy), base, head
    (lists of [copy, value]: CPU seconds aligned on their blocks, or a strategy's pooled
    values), widen (the interval's factor: blocks.py), counted (a test of Holm's procedure;
    false: a size of a pooled strategy, its runs kept for its own interval)}], "suspects": [{name, family,
    screen_ratio (the screening's estimate), screen: {base, head} (its screening's CPU
    seconds), screen_widen}]}."""
    families = by_strategy(rows, suspects)
    all_ = tests(suspects, families, samples)
    held = counted(all_, {n: rows[n]["family"] for n in suspects})
    tests_ = [dict(kind=kind, name=name, base=[list(x) for x in b], head=[list(x) for x in h],
                   widen=w, counted=(kind, name) in held)
              for (kind, name), (b, h, w) in sorted(all_.items())]
    return dict(alpha=ALPHA, tests=tests_, suspects=[
        dict(name=n, family=rows[n]["family"], screen_ratio=rows[n]["time"]["ratio"],
             screen={lb: screen.values(lb, n) for lb in ("base", "head")},
             screen_widen=screen.widen([n]))
        for n in suspects])


def judge(rows, screen, samples, suspects, opts):
    """{name: time verdict} of each suspect (a name of rows) from the confirmation's samples
    (the screening's too where it is not confirmed): the tests of step_down, then decide."""
    families = by_strategy(rows, suspects)
    verdicts = holm(tests(suspects, families, samples),
                    {n: rows[n]["family"] for n in suspects}, opts)
    return {n: decide(rows[n], screen, samples, verdicts,
                      len(families.get(rows[n]["family"], [])), opts) for n in suspects}


def anchor_names(rows, suspects, count=ANCHORS):
    """Up to count benchmarks that are no suspects, the quickest of the screening first: they
    run beside the suspects in the confirmation so that its processes have enough benchmarks to
    tell a whole process that ran slow (outliers.py)."""
    rest = [(r["base_s"], n) for n, r in rows.items()
            if n not in suspects and r.get("time") and r.get("base_s")]
    return [n for _, n in sorted(rest)[:count]]


def tests(suspects, families, samples):
    """The confirmation's tests: {("size", name): (base, head, widen)} per suspect and
    {("strategy", family): (base, head, widen)} per family of families, from samples; base
    and head lists of (copy, seconds or pooled value), widen the interval's factor
    (Samples.widen)."""
    out = {("size", n): (samples.by_copy("base", n), samples.by_copy("head", n),
                         samples.widen([n])) for n in suspects}
    for fam, names in families.items():
        out[("strategy", fam)] = (samples.pooled("base", names, with_copy=True),
                                  samples.pooled("head", names, with_copy=True),
                                  samples.widen(names))
    return out


def counted(tests_, family):
    """The keys of tests_ (tests()) that Holm's procedure counts: every strategy's, and each
    size's whose strategy has no test of its own (its only suspect size). family: {size name:
    its strategy}."""
    pooled = {name for kind, name in tests_ if kind == "strategy"}
    return {(kind, name) for kind, name in tests_
            if kind == "strategy" or family.get(name) not in pooled}


def holm(tests_, family, opts, held=None):
    """{key: time verdict} of every test of tests_ (tests(); family: {size: strategy}): Holm's
    step-down over the counted ones (held, else counted()), then each uncounted size's own
    verdict at its strategy's last level, marked counted=False (shown, never deciding)."""
    held = counted(tests_, family) if held is None else held
    out = step_down({k: t for k, t in tests_.items() if k in held}, opts)
    for k, t in tests_.items():
        if k not in held:
            level = out.get(("strategy", family.get(k[1])), {}).get("conf", 1.0 - ALPHA)
            out[k] = dict(test_verdict(t[0], t[1], level, opts, *t[2:]), counted=False)
    return out


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
        tv["why"] = "not beyond the copies' own spread: %s [%s, %s] with the copy a random " \
            "effect (copies' sd: base %.1f%%, head %.1f%%)" % (
                pct(re["ratio"]), pct(re["ci"][0]), pct(re["ci"][1]),
                re["copy_sd"]["base"] * 100, re["copy_sd"]["head"] * 100)
    return tv


def step_down(tests, opts):
    """Holm's step-down over tests ({key: (base, head, widen)}, widen 1.0 when left out):
    {key: time verdict},
    "regressed" for the rejected ones (at the level that rejected them, in tv["conf"]); the
    others' verdicts at the last level tried."""
    left, out = dict(tests), {}
    while left:
        level = 1.0 - ALPHA / len(left)
        tvs = {k: test_verdict(t[0], t[1], level, opts, *t[2:]) for k, t in left.items()}
        hit = [k for k, tv in tvs.items() if tv["verdict"] == "regressed"]
        for k in hit or tvs:
            out[k] = tvs[k]
            del left[k]
        if not hit:
            break
    return out


def copies_text(tv):
    """'; copies: +5.1% [+2.0%, +8.3%]' (the interval with the copy a random effect) or ''."""
    c = tv.get("copies")
    return "; copies: %s [%s, %s]" % (pct(c["ratio"]), pct(c["ci"][0]), pct(c["ci"][1])) \
        if c else ""


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
    stage = "confirmed at %.1f%% (Holm)" % (own["conf"] * 100)
    if own["verdict"] == "regressed" and own.get("counted", True):
        return dict(own, text=describe_time(own, stage) + copies_text(own))
    fam = verdicts.get(("strategy", row["family"]))
    if fam and fam["verdict"] == "regressed" and own.get("ratio") and own["ratio"] > 1:
        # the strategy's interval decides; the medians stay the size's own seconds (the
        # pooled values are ratios to each size's median, not times)
        return dict(fam, base_s=own.get("base_s"), head_s=own.get("head_s"),
                    text="time (confirmed with its strategy's %d suspect sizes pooled at "
                    "%.1f%% (Holm)): %s [%s, %s], %d/%d runs; this size: %s" % (
                        strategy_sizes, fam["conf"] * 100, pct(fam["ratio"]),
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

"""verdicts - what each check says of one benchmark, from the interleaved samples.

time (CPU seconds per iteration; hotbench's cpu_time):
    the ratio head/base is the Hodges-Lehmann estimate over the processes, with its 95%
    distribution-free interval (rankstats.shift), both from the values aligned on their ABBA
    blocks, the interval widened for it (blocks.py). With e the smallest effect that counts
    (--min-effect, default 2%):
      regressed     a suspect of the screening (its 80% interval above 1 and its estimate above
                    1 + e: an 80% interval of 6 runs a side survives one outlying process, a 95%
                    one does not; or a size slower in the head of a strategy whose sizes pooled
                    are such a suspect) whose second, independent set of interleaved trials
                    (10 runs a side) puts the interval above 1 + e/2 and the estimate above
                    1 + e, by itself or pooled with its strategy's other suspect sizes, the
                    intervals corrected for the number of tests (Holm: confirmation.py);
      improved      the interval lies below 1 and the estimate below 1 / (1 + e);
      same          the interval lies inside [1 / (1 + e), 1 + e]: no change of e or more;
      inconclusive  anything else: the noise of this machine hides whether there is one.
instructions (callgrind): the ratio of instructions per iteration; regressed above
    1 + --ir-tolerance (default 2%), improved below its inverse, same between. A count is
    deterministic only when the code is: expat salts its hash tables at random, and one binary's
    expat-tree count moved 5% between runs (13.90e6 and 14.64e6 per iteration), which failed a
    compare of two commits with the same C code. So a row whose count moved is counted again in
    both arms, and stands only when each arm repeats its count within a quarter of the larger of
    the tolerance and the change, and the second counts say the same; otherwise it is
    inconclusive and the time check decides.
Predicted times (a size skipped over --hb_budget) are shown and never decide: a size the base
measured and the head skipped is run again, interleaved, without the budget, the head's runs
stopped after a time limit; a stopped run counts as at least that limit (a right-censored value,
ranked above every finite one).
"""

import math

import numpy as np

from .blocks import widened
from .rankstats import shift

ORDER = ["failed", "regressed", "accepted", "improved", "inconclusive", "same", "not-measured"]


def time_verdict(base, head, min_effect, conf=0.95, margin=0.0, widen=1.0):
    """{verdict, ratio, ci, p, n_base, n_head, base_s, head_s (the medians)} for two samples of
    positive seconds: regressed when the conf interval lies above 1 + margin and the estimate
    above 1 + min_effect (the other verdicts as the module says). widen: the factor the
    interval is widened by about the estimate (values aligned on their blocks: blocks.py)."""
    out = dict(n_base=len(base), n_head=len(head),
               base_s=float(np.median(base)) if len(base) else None,
               head_s=float(np.median(head)) if len(head) else None)
    if len(base) < 2 or len(head) < 2:
        out.update(verdict="inconclusive", ratio=None, ci=None, p=None,
                   why="fewer than 2 runs on a side")
        return out
    ratio, lo, hi, p = shift(base, head, conf)
    lo, hi = widened(ratio, lo, hi, widen)
    out.update(ratio=ratio, ci=[lo, hi], p=p)
    up = 1.0 + min_effect
    if lo > 1.0 + margin and ratio > up:
        out["verdict"] = "regressed"
    elif hi < 1.0 and ratio < 1.0 / up:
        out["verdict"] = "improved"
    elif lo >= 1.0 / up and hi <= up:
        out["verdict"] = "same"
    else:
        out["verdict"] = "inconclusive"
    return out


def instructions_verdict(base, head, tolerance):
    """{verdict, ratio, base, head} for instructions per iteration (None when either is
    missing)."""
    if not base or not head:
        return None
    ratio = head / base
    v = "regressed" if ratio > 1 + tolerance else \
        "improved" if ratio < 1 / (1 + tolerance) else "same"
    return dict(verdict=v, ratio=ratio, base=base, head=head)


def repeated(iv, base_again, head_again, tolerance, missing=None):
    """iv (instructions_verdict) when a second count of both arms agrees with it: each arm
    within a quarter of max(tolerance, the change) of its first count, and the second pair's
    verdict the same; else iv as inconclusive, with why naming both counts of each arm. A
    missing second count is no agreement (missing: why it is missing, for the text)."""
    again = instructions_verdict(base_again, head_again, tolerance)
    if again is not None:
        drift = max(abs(base_again / iv["base"] - 1), abs(head_again / iv["head"] - 1))
        if drift <= max(tolerance, abs(iv["ratio"] - 1)) / 4 and again["verdict"] == iv["verdict"]:
            return iv
    seen = "base %s, head %s" % tuple(
        "%.4g then %s" % (first, "%.4g" % second if second else "no count")
        for first, second in ((iv["base"], base_again), (iv["head"], head_again)))
    return dict(iv, verdict="inconclusive",
                why="; not repeated by a second count (%s%s): time decides"
                % (seen, ": " + missing if missing else ""))


def pct(ratio):
    return "%+.1f%%" % ((ratio - 1) * 100) if ratio is not None and math.isfinite(ratio) \
        else "n/a"


def describe_time(tv, stage):
    """The check's text: 'time (stage): +5.1% [+3.2%, +7.0%]'."""
    if tv.get("ratio") is None:
        return "time (%s): %s" % (stage, tv.get("why", "not measured"))
    lo, hi = tv["ci"]
    return "time (%s): %s [%s, %s], %d/%d runs" % (stage, pct(tv["ratio"]), pct(lo), pct(hi),
                                                  tv["n_base"], tv["n_head"])


def combine(row):
    """The row's verdict from its checks (row["checks"]: dicts kind, verdict, text): failed or
    regressed if any check says so, else improved if any, else what the time check says, else
    the first check's verdict; row["check"] names the checks that decided."""
    checks = row["checks"]
    for v in ("failed", "regressed", "improved"):
        hit = [c for c in checks if c["verdict"] == v]
        if hit:
            break
    else:
        hit = [c for c in checks if c["kind"] == "time"] or checks[:1]
    row["verdict"] = hit[0]["verdict"] if hit else "not-measured"
    row["check"] = "; ".join(c["text"] for c in hit) if hit else "not measured"
    return row

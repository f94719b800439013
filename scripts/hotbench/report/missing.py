"""missing - the sentence the report writes for whatever the run lacks: what, why (not run, or
skipped: the first skip message and, for a budget skip, a budget that measures it), and the
command that measures it."""

import numpy as np


def missing_sentence(what, filt, skipped):
    """One sentence: what is missing from the run, why (not run, or skipped: the first skip
    message), and the command that measures it."""
    budget = ""
    if skipped:
        why = "the run skipped all %d of its sizes (`%s`)" % (
            len(skipped), skipped[0]["message"][:110])
        ps = [r["predicted_s"] for r in skipped if r["predicted_s"]]
        if ps and max(ps) <= 3600:
            budget = " --hb_budget=%d" % int(np.ceil(max(ps) * 1.2))
    else:
        why = "this run has none"
    return ("**Missing: %s**: %s; measure it with `make bench`, or only this with "
            "`scripts/bench.py --parts in-process -- --benchmark_filter='%s'%s`." % (
                what, why, filt, budget))


def missing_note(run, what, family, filt, strategy=None, **fixed):
    """missing_sentence when the run has no timed row of family (and strategy) matching fixed,
    else None."""
    if run.select(family, strategy, **fixed):
        return None
    sk = [r for r in run.skipped if r["family"] == family and strategy in (None, r["strategy"])
          and all(r["params"].get(k) == v for k, v in fixed.items())]
    return missing_sentence(what, filt, sk)

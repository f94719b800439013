"""instructions - check 3, instructions per iteration of the small sizes under callgrind
(callgrind.py; the manifest's gate.ir_select chooses them).

Deterministic on one build and machine, so the threshold is tight: the larger of --ir-tolerance
(2%) and four times the largest difference between the baseline's callgrind runs. Beyond it
regressed or improved, else pass. Not available for sanitizer builds (valgrind cannot run them)
or without valgrind: the check then says so and decides nothing.
"""

import numpy as np

from ..runjson import parse_name


def baseline_spread(base):
    """The largest relative difference of a benchmark between the baseline's first two
    callgrind runs (0 with one)."""
    spread = 0.0
    if len(base.ir) >= 2:
        a, b = base.ir[0]["benchmarks"], base.ir[1]["benchmarks"]
        for k in a:
            if k in b and a[k]["per_iteration"] > 0:
                spread = max(spread, abs(b[k]["per_iteration"] / a[k]["per_iteration"] - 1))
    return spread


def ir_result(base, name, v, tol):
    family, strategy = parse_name(name)[:2]
    res = dict(check="instructions", name=name, family=family, strategy=strategy,
               now="%.4g Ir" % v["per_iteration"])
    bs = [i["benchmarks"].get(name) for i in base.ir]
    if any(b is None for b in bs):
        res.update(verdict="inconclusive", base="-", change="-", why="not in the baseline")
        return res
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
    return res


def check_instructions(base, cur, opt):
    """(results, a note on the tolerance or why the check did not run)."""
    if not cur.ir or not cur.ir[0].get("benchmarks"):
        why = (cur.ir[0].get("unavailable") if cur.ir else None) or "no instruction counts"
        return [], "not run: " + why
    if not base.ir or not base.ir[0].get("benchmarks"):
        return [], "not run: the baseline has no instruction counts"
    spread = baseline_spread(base)
    tol = max(opt.ir_tolerance, 4 * spread)
    out = [ir_result(base, name, v, tol) for name, v in cur.ir[0]["benchmarks"].items()]
    return out, "tolerance ±%.1f%% (--ir-tolerance %.1f%%, 4 x the baseline's run-to-run " \
                "spread %.3f%%)" % (100 * tol, 100 * opt.ir_tolerance, 100 * spread)

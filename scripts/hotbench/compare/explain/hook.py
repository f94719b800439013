"""hook - the compare's explanations (issue 32): after the verdicts, each strategy whose summary
(compare/strategies.py) is `regressed` or `improved` is profiled on its smallest size with that
verdict, in both builds (core.explain_benchmark): a table of the functions that changed most and
explain/<strategy>.svg in the compare's folder. Where time decided that size and perf works
here, perf samples of both too; where it does not, the entry says "callgrind only (perf
unavailable: <why>)". When no strategy is regressed or improved nothing runs at all (not even
the perf check); nor for a strategy whose case's object code is byte-identical in the two builds
(objcode.py: its profiles would be the same).

Cost: each arm's callgrind run of one iteration of one size, the two side by side, stopped after
profile.TIMEOUT_S; with perf, two runs of about perf.SECONDS more; at most CAP strategies.
"""

import os
import time

from . import core, perf

VERDICTS = ("regressed", "improved")
# At most this many strategies are explained (the regressed first, in the summary's order): a
# change of the harness that moves every strategy would otherwise add minutes to the compare.
CAP = 12


def size_key(row):
    """A row's order by size: the product of its numeric parameters, then its name."""
    prod = 1.0
    for v in (row.get("params") or {}).values():
        if isinstance(v, (int, float)):
            prod *= v
    return (prod, row["name"])


def decided_by(row):
    """The kind of the check that decided a row: "time", "instructions", "complexity", ...
    (the first word of its check)."""
    check = row.get("check") or ""
    return check.split(":", 1)[0].split(" (", 1)[0].strip() or None


def select(strategies, rows):
    """[(strategy summary, row)]: each strategy of the summary (strategies.summarize's dicts:
    family, verdict) that is regressed or improved, with the smallest of its rows (dicts: name,
    family, params, verdict, check) that has the same verdict, else (a strategy improved by its
    sizes pooled, strategies.improved_by) the smallest of its timed rows; strategies in the
    summary's order. A strategy with no such row is left out."""
    out = []
    for st in strategies:
        if st.get("verdict") not in VERDICTS:
            continue
        hit = [r for r in rows if r.get("family") == st["family"] and
               r.get("verdict") == st["verdict"]]
        if not hit and st["verdict"] == "improved":
            hit = [r for r in rows if r.get("family") == st["family"] and
                   r.get("n_base") and r.get("n_head")]
        if hit:
            out.append((st, min(hit, key=size_key)))
    return out


def same_code_left_out(chosen, unchanged, log):
    """chosen (select's list) without the strategies whose case's object code is byte-identical
    in the two builds: unchanged(family) -> (same, text) (objcode.Witness.unchanged of the
    family's case; True only when identical). Their callgrind profiles would be the same, so a
    time verdict there (noise, or a binary's placement: docs/compare.md) has no function to
    name; each left out is logged."""
    keep = []
    for st, row in chosen:
        same, text = unchanged(st["family"])
        if same is True:
            log("explain: %s not profiled: the same code in both builds (%s)" % (
                st["family"], text))
            continue
        keep.append((st, row))
    return keep


def witness_of(result):
    """unchanged(family) for result's two builds (objcode.Witness over the folders of their
    binaries, the case from the head's manifest), or None where it does not apply: arms that
    differ by their environment (one binary, the test hooks) or arms without binaries."""
    base, head = result.base, result.head
    if not getattr(base, "binary", None) or not getattr(head, "binary", None) or \
            base.env != head.env:
        return None
    from ...manifest import Manifest, ManifestError
    from ..objcode import Witness
    try:
        manifest = Manifest.from_binary(head.binary)
    except ManifestError:  # no case to ask about: profile as before, never stop the compare
        return None
    w = Witness(os.path.dirname(os.path.abspath(base.binary)),
                os.path.dirname(os.path.abspath(head.binary)))

    def unchanged(family):
        try:
            return w.unchanged(manifest.case_of(family.split("/")[0])["name"])
        except (KeyError, StopIteration):
            return None, "no case describes %s" % family
    return unchanged


def run(result, out_dir, log=print, use_perf=True, timeout_s=None):
    """The explanations of result (engine.Result after the verdicts): a list of
    core.explain_benchmark dicts, [] when no strategy is regressed or improved (nothing run)."""
    chosen = select(result.strategies, result.rows)
    if chosen:
        unchanged = witness_of(result)
        if unchanged is not None:
            chosen = same_code_left_out(chosen, unchanged, log)
    if not chosen:
        return []
    log("explain: profiling %d strateg%s that changed, base and head" % (
        len(chosen), "y" if len(chosen) == 1 else "ies"))
    if len(chosen) > CAP:
        log("explain: only the first %d (hook.CAP); not explained: %s" % (
            CAP, ", ".join(st["family"] for st, _ in chosen[CAP:])))
        chosen = chosen[:CAP]
    t0 = time.monotonic()
    perf_state = None
    entries = []
    for st, row in chosen:
        by = decided_by(row)
        state = None
        if by == "time" and use_perf:
            perf_state = perf_state or perf.available()
            state = perf_state
        kw = {} if timeout_s is None else dict(timeout_s=timeout_s)
        if row.get("base_s") and row.get("head_s"):  # the medians perf's samples scale to
            kw["times"] = dict(base=row["base_s"], head=row["head_s"])
        entries.append(core.explain_benchmark((result.base, result.head), st["family"],
                                              row["name"], result.settings, out_dir,
                                              verdict=st["verdict"], decided_by=by,
                                              perf_state=state, log=log, **kw))
    log("explain: %d strateg%s profiled in %.1f s" % (
        len(entries), "y" if len(entries) == 1 else "ies", time.monotonic() - t0))
    return entries

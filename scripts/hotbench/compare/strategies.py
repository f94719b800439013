"""strategies - the compare's summary, one line per strategy, and the copies' own spread.

A reviewer reads one line per strategy: regressed, improved, the same within +-e, or undecided
and why; the rows (one per size) stay below it. A strategy's sizes are pooled per process
(trials.Samples.pooled: the geometric mean over its sizes of each size's time over that size's
median), so its interval is narrower than any one size's (issue 31: 233-275 of 291 rows were
inconclusive in an unchanged compare; their strategies are fewer and better measured).

copy_floor: what base against base shows in the same compare. Each arm runs from several
copies of its binary (copies.py); the spread of one arm's copies (the largest over the smallest
of their medians, per benchmark) is the A/A of that run, the floor under which a head/base
difference is no evidence (random_effects.py makes the confirmation's interval clear it).
"""

import math
import statistics

from . import random_effects
from .blocks import widened
from .confirmation import ALPHA, spread_why
from .verdicts import ORDER, describe_time, pct, time_verdict

DECIDED = ("failed", "regressed", "accepted", "improved", "same")

# Undecided strategies that join the confirmation, the largest estimates first (to_confirm)
UNDECIDED_CAP = 6


def copy_medians(samples, label, name):
    """{copy: median seconds} of label's kept processes of name, by copy."""
    by = {}
    for c, v in samples.by_copy(label, name):
        by.setdefault(c, []).append(v)
    return {c: statistics.median(vs) for c, vs in sorted(by.items())}


def spread(medians):
    """The largest copy median over the smallest, minus 1; None for fewer than 2 copies."""
    vals = list(medians.values())
    return max(vals) / min(vals) - 1 if len(vals) >= 2 and min(vals) > 0 else None


def copy_floor(samples, rows):
    """The screening's copy spread (the A/A) over the timed rows: {copies, rows, base: {median,
    p90, max, max_row}, head: likewise} as fractions, or None with fewer than 2 copies; each
    timed row gets row["copies"] = {label: {copy: median seconds}}."""
    for r in rows:
        if r.get("n_base") and r.get("n_head"):
            r["copies"] = {lb: copy_medians(samples, lb, r["name"]) for lb in ("base", "head")}
    return floor_of(rows)


def floor_of(rows):
    """copy_floor's figures from the rows' "copies" (those without are left out)."""
    spreads = {"base": [], "head": []}
    for r in rows:
        if not r.get("copies"):
            continue
        for lb, m in r["copies"].items():
            sp = spread(m)
            if sp is not None:
                spreads[lb].append((sp, r["name"]))
    if not spreads["base"]:
        return None
    out = dict(copies=max(len((r.get("copies") or {}).get("base", {})) for r in rows),
               rows=len(spreads["base"]))
    for lb, sps in spreads.items():
        if not sps:
            out[lb] = dict(median=0.0, p90=0.0, max=0.0, max_row="none")
            continue
        vals = sorted(s for s, _ in sps)
        top = max(sps)
        out[lb] = dict(median=statistics.median(vals), p90=vals[int(0.9 * (len(vals) - 1))],
                       max=top[0], max_row=top[1])
    return out


def to_confirm(rows, samples, opts, cap=UNDECIDED_CAP):
    """The sizes of the undecided strategies to measure again in the confirmation: those with no
    suspect size whose sizes pooled are not the same within +-e (inconclusive, or faster: an
    improvement is confirmed by fresh processes, like a slowdown: improved_by), the largest
    estimates (either way) first, at most cap strategies (Pinpoint's rule: runs go where the
    answer is still open). rows: {name: row} of the screening; returns a sorted list of names."""
    fams = {}
    for name, r in rows.items():
        if r.get("family") and r.get("time") and r["time"].get("ratio"):
            fams.setdefault(r["family"], []).append(name)
    open_ = []
    for fam, names in fams.items():
        if any(rows[n].get("suspect") for n in names):
            continue
        tv = time_verdict(samples.pooled("base", names), samples.pooled("head", names),
                          opts.min_effect, widen=samples.widen(names))
        if tv["verdict"] in ("inconclusive", "improved") and tv.get("ratio"):
            open_.append((abs(math.log(tv["ratio"])), fam))
    chosen = [fam for _, fam in sorted(open_, reverse=True)[:cap]]
    return sorted(n for fam in chosen for n in fams[fam])


def summarize(rows, samples, opts, again=None):
    """One dict per strategy (family), in verdict order then name: family, verdict (a row
    verdict of ORDER, or "undecided"), sizes, ratio and ci (its sizes pooled over the
    screening's processes and, where it ran there, the confirmation's: again, 95%), runs (per
    side), why (what decided it or why nothing did). A strategy is improved by time only
    through the confirmation's own processes (improved_by)."""
    fams = {}
    for r in rows:
        if r.get("family"):
            fams.setdefault(r["family"], []).append(r)
    k = sum(1 for rs in fams.values() if confirmed_names(rs, again))
    return in_order([strategy_line(fam, rs, samples, opts, again, k)
                     for fam, rs in fams.items()])


def improved_level(k):
    """The confidence at which the confirmation's own processes say a strategy is `improved`,
    k the strategies it measured (Bonferroni's 1 - 0.05 / k). The screening's 95% alone gives
    about m / 40 false `improved` lines over m strategies in an unchanged compare (with any
    size's 95% interval deciding, the rule before 9fab5b3: 0 to 6 of 78 in the 5 unchanged
    compares at e3cd4d2, results/gate-power/default-idle-e3cd4d2-runs/0-*.json), and its 6
    processes a side cannot reach Bonferroni's level over the 78 (a rank interval of 6 against
    6 covers at most 1 - 2/924)."""
    return 1.0 - ALPHA / max(1, k)


def confirmed_names(rows, again):
    """The timed sizes of rows that the confirmation (again, a Samples or None) measured in
    both arms."""
    if again is None:
        return []
    timed = [r["name"] for r in rows if r.get("n_base") and r.get("n_head")]
    return [n for n in timed if again.values("base", n) and again.values("head", n)]


def confirmation_values(rows, again):
    """The confirmation's (again's) values of the strategy's sizes pooled, those it measured
    (confirmed_names): {"base": [[copy, value], ...], "head": [...], "widen": the blocks'
    factor}, a value one process's time over the sizes' medians (trials.Samples.pooled); None
    where it measured none. The line keeps them (pooled["confirmation"] in compare.json), so
    that a merge of shards tests them again at its own Bonferroni level (relined)."""
    names = confirmed_names(rows, again)
    if not names:
        return None
    out = {lb: [list(cv) for cv in again.pooled(lb, names, with_copy=True)]
           for lb in ("base", "head")}
    out["widen"] = again.widen(names)
    return out


def improved_by(values, opts, level):
    """The confirmation's time verdict of the strategy's sizes pooled at level, values
    confirmation_values' dict (None: not measured there), when its rank interval says
    `improved`, else None. The confirmation's processes are fresh, so the screening's choice of
    which strategies to send there does not bias it. As for a slowdown
    (confirmation.test_verdict), where an arm's copies differ the interval with the copy a
    random effect (random_effects.py) must lie below 1 too (a fast copy of the head is no
    improvement of the head): where it does not, the verdict is "inconclusive" and its why
    names that interval."""
    if not values:
        return None
    base, head = ([(c, v) for c, v in values[lb]] for lb in ("base", "head"))
    ctv = time_verdict([v for _, v in base], [v for _, v in head], opts.min_effect, conf=level,
                       widen=values["widen"])
    if ctv["verdict"] != "improved":
        return None
    re = random_effects.interval(base, head, level)
    if re is None or max(re["copy_sd"].values()) == 0:
        return ctv
    re["ci"] = list(widened(re["ratio"], re["ci"][0], re["ci"][1], values["widen"]))
    if re["ci"][1] < 1.0:
        return ctv
    return dict(ctv, verdict="inconclusive", why=spread_why(re))


def judge_improvement(tv, opts, k):
    """Sets tv["improved"] where the confirmation's processes (tv["confirmation"]:
    confirmation_values) say `improved` at improved_level(k), k the strategies it measured, or
    tv["alone"] where only their rank interval does (a note), the text of either; removes what
    an earlier judgement set."""
    tv.pop("improved", None)
    tv.pop("alone", None)
    level = improved_level(k)
    ctv = improved_by(tv.get("confirmation"), opts, level)
    if not ctv:
        return
    said = "%s, faster at %s (Bonferroni over the %d strateg%s it measured)" % (
        describe_time(ctv, "confirmation"), pct_level(level), k, "y" if k == 1 else "ies")
    if ctv["verdict"] == "improved":
        tv["improved"] = said
    else:
        tv["alone"] = "%s; %s" % (said, ctv["why"])


def relined(rows, recorded, opts):
    """The strategy lines made again (line) from rows whose verdicts changed after summarize
    (an accepted slowdown: accepted.py; a merge of shards: merge.py) and recorded, lines
    (summarize's dicts) that keep each strategy's pooled verdict; a strategy without one gets
    none. Where a line kept its confirmation's values (confirmation_values), its improvement
    is judged again at Bonferroni's level over every recorded line that has them: a merge's
    shards each confirmed their own strategies, and the family is all of them. A line recorded
    without them keeps its recorded judgement. In verdict order."""
    by_family = {st["family"]: st for st in recorded}
    k = sum(1 for st in recorded if (st.get("pooled") or {}).get("confirmation"))
    fams = {}
    for r in rows:
        if r.get("family"):
            fams.setdefault(r["family"], []).append(r)
    out = []
    for fam, rs in fams.items():
        st = by_family.get(fam) or {}
        tv = dict(st["pooled"], ratio=st.get("ratio"), ci=st.get("ci")) \
            if st.get("pooled") else None
        if tv and tv.get("confirmation"):
            judge_improvement(tv, opts, k)
        out.append(line(fam, rs, tv, opts))
    return in_order(out)


def in_order(lines):
    """Strategy lines sorted in verdict order, then by family."""
    rank = ORDER + ["undecided"]
    return sorted(lines, key=lambda s: (rank.index(s["verdict"]), s["family"]))


def strategy_line(family, rows, samples, opts, again=None, k=1):
    """The summary of one strategy from its rows (the module's rules); k: the strategies the
    confirmation measured. Where the confirmation's processes say `improved` at
    improved_level(k) (improved_by), the text is kept as tv["improved"] (line() makes the
    strategy improved only when its own estimate is below 1 too); where only their rank
    interval does, as tv["alone"], a note (judge_improvement)."""
    timed = [r["name"] for r in rows if r.get("n_base") and r.get("n_head")]
    tv = None
    if timed:
        conf = {lb: again.pooled(lb, timed) if again else [] for lb in ("base", "head")}
        pooled = {lb: samples.pooled(lb, timed) + conf[lb] for lb in ("base", "head")}
        widen = max(samples.widen(timed), again.widen(timed) if again else 1.0)
        tv = time_verdict(pooled["base"], pooled["head"], opts.min_effect, widen=widen)
        tv["stage"] = "screening and confirmation" if conf["base"] and conf["head"] \
            else "screening"
        tv["confirmation"] = confirmation_values(rows, again)
        judge_improvement(tv, opts, k)
    return line(family, rows, tv, opts)


def line(family, rows, tv, opts):
    """strategy_line's dict from its rows and tv, the time verdict of its sizes pooled (None
    when no size was timed); "pooled" keeps tv's verdict and runs (compare.json: a merge of
    shards makes the line again from it, merge.py). A strategy is improved by its confirmation
    (tv["improved"]) only when its line's estimate (ratio) is below 1 too: a line never reads
    `improved` over a slower estimate (one unchanged compare of 20 at ec5d069 had such a line,
    its one suspect size -2.4% at 99.76% in the confirmation, the strategy's sizes +1.2% in
    the screening: results/gate-power/default-idle-ec5d069-runs/0-019)."""
    timed = [r["name"] for r in rows if r.get("n_base") and r.get("n_head")]
    out = dict(family=family, sizes=len(rows), timed=len(timed),
               ratio=tv and tv.get("ratio"), ci=tv and tv.get("ci"),
               pooled=tv and {k: tv.get(k) for k in ("verdict", "n_base", "n_head", "why",
                                                     "improved", "alone", "stage",
                                                     "confirmation")})
    verdicts = [r["verdict"] for r in rows]
    for v in ("failed", "regressed", "accepted"):
        hit = [r for r in rows if r["verdict"] == v]
        if hit:
            out.update(verdict=v, why="%d of %d sizes %s: %s" % (
                len(hit), len(rows), v, ", ".join(sizes(hit))))
            return out
    counted = [r for r in rows if fewer_instructions(r)]
    if counted:
        out.update(verdict="improved", why="%d of %d sizes improved (instructions): %s" % (
            len(counted), len(rows), ", ".join(sizes(counted))))
        return out
    note = tv and tv.get("alone") and "the confirmation's processes: " + tv["alone"]
    if tv and tv.get("improved"):
        if tv.get("ratio") is not None and tv["ratio"] < 1.0:
            out.update(verdict="improved", why="sizes pooled: " + tv["improved"])
            return out
        note = "the confirmation's processes: %s; but not the line's estimate" % tv["improved"]
    stage = (tv or {}).get("stage") or "screening"
    if all(v == "not-measured" for v in verdicts):
        out.update(verdict="not-measured", why=rows[0]["check"])
    elif tv and tv["verdict"] == "same":
        out.update(verdict="same", why="sizes pooled: " + describe_time(tv, stage))
    else:
        out.update(verdict="undecided", why=undecided_why(rows, tv, opts))
    if note:
        out["why"] += "; " + note
    faster = [r for r in rows if r["verdict"] == "improved"]
    if faster:
        out["why"] += "; %d of %d sizes faster in the screening alone (not confirmed): %s" % (
            len(faster), len(rows), ", ".join(sizes(faster)))
    return out


def fewer_instructions(row):
    """Whether row is improved by its instruction count (callgrind: a second witness). A size
    improved by the screening's time alone does not make its strategy improved: the screening
    tests every size of the selection at 95%, and five unchanged compares of the default
    selection (291 sizes) showed 0 to 7 such sizes, in 0 to 6 strategies (results/gate-power/
    default-idle-e3cd4d2-runs/0-*)."""
    return row.get("verdict") == "improved" and any(
        c.get("kind") == "instructions" and c.get("verdict") == "improved"
        for c in row.get("checks") or [])


def pct_level(level):
    """A confidence as text, its complement to 100% rounded up to 2 significant digits (so the
    level is never overstated): 0.975 '97.5%', 0.99167 '99.16%', 0.95 '95%'."""
    c = (1.0 - level) * 100
    if c <= 0:
        return "100%"
    digits = max(0, 1 - math.floor(math.log10(c)))
    c = math.ceil(round(c * 10 ** digits, 6)) / 10 ** digits
    text = "%.*f" % (digits, 100 - c)
    return (text.rstrip("0").rstrip(".") if "." in text else text) + "%"


def sizes(rows):
    """The rows' parameters as short text ("rows:1000"), else their names."""
    out = []
    for r in rows:
        p = r.get("params") or {}
        out.append(",".join("%s:%s" % kv for kv in sorted(p.items())) or r["name"])
    return out


def undecided_why(rows, tv, opts):
    """Why a strategy is undecided: a suspect not confirmed (and why), else its pooled
    interval, wider than +-e."""
    for key in ("no code change", "copies' own spread", "not confirmed"):
        hit = [r for r in rows if key in (r.get("check") or "")]
        if hit:
            return "%s (%d of %d sizes): %s" % (
                {"no code change": "a slowdown in time only, with no code change",
                 "copies' own spread": "a slowdown not beyond the copies' own spread",
                 "not confirmed": "a suspect the confirmation did not repeat"}[key],
                len(hit), len(rows), hit[0]["name"])
    if not tv or tv.get("ratio") is None:
        return "fewer than 2 processes a side"
    lo, hi = tv["ci"]
    if tv.get("verdict") == "improved":
        return "sizes pooled %s [%s, %s]: faster at 95%% with the %s's processes; not " \
            "confirmed" % (pct(tv["ratio"]), pct(lo), pct(hi), tv.get("stage") or "screening")
    return "sizes pooled %s [%s, %s]: wider than +-%g%%" % (
        pct(tv["ratio"]), pct(lo), pct(hi), opts.min_effect * 100)

"""table - the compare's outputs: the table on the console (and compare.md), compare.json
(schema hotbench-compare/1, docs/compare.md), and through hotbench.exports bmf.json (Bencher
Metric Format: the head's CPU time, the ratio head/base with its interval, instructions) and
gab.json (github-action-benchmark's customSmallerIsBetter input; docs/ci.md)."""

import json
import math

from ..exports import write_compare_exports
from ..units import fmt_time
from . import toolchain
from .explain.report import markdown as explain_markdown
from .verdicts import pct

SCHEMA = "hotbench-compare/1"


def ci_text(ci):
    if not ci:
        return ""
    lo, hi = ci
    return "[%s, %s]" % (pct(lo), pct(hi))


def lines(result):
    """The table's lines: a header, one line per benchmark (REGRESSED/FAILED lines first, each
    naming the check that decided), the summary, and the REGRESSED/FAILED lines once more after
    it, so that the tail of a CI log names what failed the run."""
    out = ["compare: base %s vs head %s, CPU time per iteration (median of the runs), change "
           "= head/base - 1 with its interval (95%%; a confirmed suspect's at its Holm level, "
           "named in the check)" % (rev_text(result.base), rev_text(result.head))]
    out += toolchain.warning_lines(result.toolchain) + [""]
    out += strategy_lines(result) + [""]
    out.append("%-66s %9s %9s %7s %17s %7s  %-12s %s" % (
        "benchmark", "base", "head", "change", "interval", "instr", "verdict", "check"))
    decisive = []
    for r in result.rows:
        lead = {"regressed": "REGRESSED ", "failed": "FAILED "}.get(r["verdict"], "")
        if lead:
            decisive.append("%s%s [%s]" % (lead, r["name"], r["check"]))
            out.append(decisive[-1])
            continue
        note = ("  (%s)" % r["note"]) if r.get("note") else ""
        ir = r.get("instructions")
        out.append("%-66s %9s %9s %7s %17s %7s  %-12s %s%s" % (
            r["name"], fmt_s(r.get("base_s")), fmt_s(r.get("head_s")),
            pct(r["ratio"]) if r.get("ratio") else "", ci_text(r.get("ci")),
            pct(ir["ratio"]) if ir else "", r["verdict"], r["check"], note))
    out.append("")
    out.append("verdict: " + ", ".join("%d %s" % (result.summary.get(v, 0), v) for v in
                                       ("regressed", "failed", "accepted", "improved",
                                        "inconclusive", "same", "not-measured")
                                       if result.summary.get(v)) +
               " (%.1f minutes%s)" % (result.duration_s / 60, expected_text(result)))
    out.append(decided_text(result.strategies))
    if result.aa:
        out.append(aa_text(result.aa))
    if getattr(result, "phases", None):
        out.append(phases_text(result.phases))
    if decisive:
        out.append("what failed the compare:")
        out.extend("  " + d for d in decisive)
    return out


def phases_text(phases):
    """The line that says how the host's phases were corrected (engine.phase_record)."""
    sc = phases.get("screening")
    if not sc:
        return "phases: not corrected (no strategy known to be steady in both arms: phases.py)"
    th = sorted(sc["theta"].values())
    moved = sum(t > 0 for t in th)
    if not moved:
        return "phases: read from %d strategies of unchanged code; none corrected (every " \
               "theta 0: no phase showed above the noise; phases.py)" % len(sc["read"])
    return ("phases: times of %d of %d strategies corrected by the phase of the benchmarks run "
            "beside them, read from %d strategies of unchanged code; sensitivity theta median "
            "%.2f (%.2f-%.2f) (phases.py)" % (moved, len(th), len(sc["read"]), th[len(th) // 2],
                                              th[0], th[-1]))


def strategy_lines(result):
    """One line per strategy (strategies.summarize): its verdict, its sizes pooled with the
    interval, and why."""
    if not result.strategies:
        return []
    out = ["%-44s %-13s %7s %17s  %s" % ("strategy (its sizes pooled)", "verdict", "change",
                                          "interval", "why")]
    for st in result.strategies:
        out.append("%-44s %-13s %7s %17s  %s" % (
            st["family"], st["verdict"].upper() if st["verdict"] in ("regressed", "failed")
            else st["verdict"], pct(st["ratio"]) if st.get("ratio") else "",
            ci_text(st.get("ci")), st["why"]))
    return out


def decided_text(strategies):
    """'strategies: 12 of 30 decided (2 improved, 10 same), 18 undecided'."""
    from .strategies import DECIDED
    n = {}
    for st in strategies:
        n[st["verdict"]] = n.get(st["verdict"], 0) + 1
    decided = sum(n.get(v, 0) for v in DECIDED)
    return "strategies: %d of %d decided%s, %d undecided%s" % (
        decided, len(strategies), " (%s)" % ", ".join("%d %s" % (n[v], v) for v in DECIDED
                                                       if n.get(v)) if decided else "",
        n.get("undecided", 0), ", %d not measured" % n["not-measured"]
        if n.get("not-measured") else "")


def aa_text(aa):
    """The copies' own spread (strategies.copy_floor) as one line."""
    return ("copies: each arm ran from %d copies of its binary; their spread (largest over "
            "smallest median), the A/A of this run: base median %.1f%%, 90th percentile "
            "%.1f%%, largest %.1f%% (%s); head median %.1f%%, largest %.1f%% (%s)" % (
                aa["copies"], aa["base"]["median"] * 100, aa["base"]["p90"] * 100,
                aa["base"]["max"] * 100, aa["base"]["max_row"], aa["head"]["median"] * 100,
                aa["head"]["max"] * 100, aa["head"]["max_row"]))


def fmt_s(s):
    return fmt_time(s) if s else ""


def rev_text(arm):
    env = " ".join("%s=%s" % kv for kv in sorted(arm.env.items()))
    what = (arm.commit or "")[:12] if arm.commit and arm.commit != "worktree" else \
        (arm.commit or arm.binary)
    return "%s%s" % (what, " (%s)" % env if env else "")


def clean(x):
    """JSON without NaN or Infinity: non-finite floats become None."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    return x


def expected_text(result):
    """'; expected ~25 s, ~28 s after the probe' (the likely totals) or ''."""
    e = getattr(result, "estimate", None)
    if not e:
        return ""
    from .duration import span
    out = "; expected ~%s" % span(e["expected_s"])
    if e.get("expected_at_pace_s"):
        out += ", ~%s after the probe" % span(e["expected_at_pace_s"])
    return out


def to_json(result):
    """compare.json's document."""
    keep = ("name", "family", "params", "verdict", "check", "ratio", "ci", "p", "base_s",
            "head_s", "n_base", "n_head", "instructions", "note", "copies", "checks")
    doc = dict(schema=SCHEMA, base=result.base.describe(), head=result.head.describe(),
               settings=result.settings, duration_s=round(result.duration_s, 1),
               toolchain=result.toolchain, estimate=result.estimate,
               summary=result.summary, exit_code=result.exit_code,
               strategies=result.strategies, aa=result.aa,
               phases=getattr(result, "phases", None),
               explain=getattr(result, "explain", None),
               rows=[row_json(r, keep) for r in result.rows],
               processes=[process_json(p) for p in result.processes],
               confirmation=getattr(result, "confirmation", None))
    for key in ("shard", "shards", "verdict", "missing"):  # a shard's, a merge's (merge.py)
        if getattr(result, key, None) is not None:
            doc[key] = getattr(result, key)
    return clean(doc)


def row_json(row, keep):
    """A row's entry: the keys keep, and accepted and witness where set (accepted.mark,
    witness.mark)."""
    out = {k: row.get(k) for k in keep}
    out.update({k: row[k] for k in ("accepted", "witness") if row.get(k)})
    return out


def process_json(p):
    """A process's entry: label, tag, block, seconds, exit status, timed out, the CPU it was
    pinned to (None: not pinned) and the probe that chose it (cpus.py), its JSON's file name,
    and outlier (its factor) when it was left out."""
    out = {k: p.get(k) for k in ("label", "tag", "block", "copy", "seconds", "rc", "timed_out",
                                 "cpu")}
    if p.get("probe_ms"):
        out["probe_ms"] = {str(c): v for c, v in p["probe_ms"].items()}
    out["json"] = p["json"].rsplit("/", 1)[-1]
    for k in ("outlier", "shard"):  # shard: a merge's (merge.py)
        if k in p:
            out[k] = p[k]
    return out


def write(result, out_dir):
    """Writes compare.json, compare.md and the exports (bmf.json, gab.json) into out_dir."""
    import os
    with open(os.path.join(out_dir, "compare.json"), "w") as f:
        json.dump(to_json(result), f, indent=1, allow_nan=False)
    with open(os.path.join(out_dir, "compare.md"), "w") as f:
        f.write("```\n" + "\n".join(lines(result)) + "\n```\n")
        where = explain_markdown(getattr(result, "explain", None))
        if where:
            f.write("\n" + where)
    write_compare_exports(result.rows, out_dir)

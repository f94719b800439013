"""table - the compare's outputs: the table on the console (and compare.md), compare.json
(schema hotbench-compare/1, docs/compare.md), and through hotbench.exports bmf.json (Bencher
Metric Format: the head's CPU time, the ratio head/base with its interval, instructions) and
gab.json (github-action-benchmark's customSmallerIsBetter input; docs/ci.md)."""

import json
import math

from ..exports import write_compare_exports
from ..units import fmt_time
from . import toolchain
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
    if decisive:
        out.append("what failed the compare:")
        out.extend("  " + d for d in decisive)
    return out


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
            "head_s", "n_base", "n_head", "instructions", "note")
    return clean(dict(schema=SCHEMA, base=result.base.describe(), head=result.head.describe(),
                      settings=result.settings, duration_s=round(result.duration_s, 1),
                      toolchain=result.toolchain, estimate=result.estimate,
                      summary=result.summary, exit_code=result.exit_code,
                      rows=[{k: r.get(k) for k in keep} for r in result.rows],
                      processes=[process_json(p) for p in result.processes]))


def process_json(p):
    """A process's entry: label, tag, block, seconds, exit status, timed out, the CPU it was
    pinned to (None: not pinned) and the probe that chose it (cpus.py), its JSON's file name,
    and outlier (its factor) when it was left out."""
    out = {k: p.get(k) for k in ("label", "tag", "block", "seconds", "rc", "timed_out", "cpu")}
    if p.get("probe_ms"):
        out["probe_ms"] = {str(c): v for c, v in p["probe_ms"].items()}
    out["json"] = p["json"].rsplit("/", 1)[-1]
    if "outlier" in p:
        out["outlier"] = p["outlier"]
    return out


def write(result, out_dir):
    """Writes compare.json, compare.md and the exports (bmf.json, gab.json) into out_dir."""
    import os
    with open(os.path.join(out_dir, "compare.json"), "w") as f:
        json.dump(to_json(result), f, indent=1, allow_nan=False)
    with open(os.path.join(out_dir, "compare.md"), "w") as f:
        f.write("```\n" + "\n".join(lines(result)) + "\n```\n")
    write_compare_exports(result.rows, out_dir)

"""power - the compare's detection power (scripts/gate_power.py): which strategies to slow down,
how one compare is judged, the table per slowdown level and the goals it is judged against.

One strategy per case is slowed down by the test hook (harness/hb_testhook.h, HB_INJECT=
slowdown:<fraction>, HB_INJECT_SELECT=<ERE over the family name>), then the clean arm is compared
with the injected one again and again. A compare detected the slowdown when a row of an injected
family is "regressed"; any other "regressed" row is a false alarm. Nothing here names a case or a
strategy: the targets come from the manifest (docs/manifest.md).
"""

import datetime
import json
import os
import re
import statistics

from ..git import git
from ..machine import cpu_model
from ..selection import ere_escape

# The goals the table is judged against (printed under it with pass/fail).
GOAL_LEVEL = 0.05           # the slowdown that must be caught ...
GOAL_DETECTIONS = (9, 10)   # ... at least 9 times in 10
GOAL_MINUTES = 10.0         # the longest compare with the default options, in minutes: make
#                             bench-ci's goal (issue 31), its two builds aside


def family_regex(families):
    """The ERE matching exactly these family names ("<group>/<strategy>"), for HB_INJECT_SELECT."""
    return "^(" + "|".join(ere_escape(f) for f in families) + ")$"


def choose_targets(manifest, listed):
    """One family per case to slow down: in the case's first group, the first strategy whose role
    is "strategy", which is neither the group's reference nor its yardstick, and of which the
    selection measures a benchmark.
    manifest: a hotbench.manifest.Manifest; listed: the benchmark names the selection runs
    (hotbench --benchmark_list_tests with the compare's filter).
    Returns (targets, skipped): targets a list of {case, group, strategy, family}, skipped a list
    of (case, reason) for the cases without such a strategy."""
    targets, skipped = [], []
    for case in manifest.cases:
        if not case["groups"]:
            skipped.append((case["name"], "no group"))
            continue
        group = case["groups"][0]
        avoid = (group.get("reference"), group.get("yardstick"))
        for s in group["strategies"]:
            family = "%s/%s" % (group["name"], s["name"])
            if s["role"] == "strategy" and s["name"] not in avoid and \
                    any(n.startswith(family + "/") for n in listed):
                targets.append(dict(case=case["name"], group=group["name"], strategy=s["name"],
                                    family=family))
                break
        else:
            skipped.append((case["name"], "the selection measures no strategy of group %s other "
                            "than its reference and yardstick" % group["name"]))
    return targets, skipped


def injection_reach(trials_dir, injected, level):
    """Whether the injection reached the processes it was meant for, read from the compare's
    trial JSONs (trials_dir/<tag>-<n>-<arm>.json, google-benchmark's format): a row of an
    injected family carries the counter hb_injected_fraction (hb_shim.cc) when the test hook
    slowed it. Returns {head: processes of the head that ran an injected row, head_reached:
    those whose every injected row carries the counter at level, base_reached: base processes
    with the counter on any row (a leak; must be 0), paid: [least, median, most] over the head's
    injected rows of hb_injected_paid (the payment's CPU time over the timed work's estimated
    CPU time: the fraction injected in fact, not only asked for), or None}; None when
    trials_dir holds no trial."""
    out = dict(head=0, head_reached=0, base_reached=0, paid=None)
    paid = []
    names = sorted(n for n in os.listdir(trials_dir) if re.fullmatch(
        r"(screen|confirm)-\d+-(base|head)\.json", n)) if os.path.isdir(trials_dir) else []
    for n in names:
        with open(os.path.join(trials_dir, n)) as f:
            rows = json.load(f).get("benchmarks", [])
        mine = [b for b in rows if _family(b) in injected and b.get("iterations") and
                b.get("run_type", "iteration") == "iteration" and
                not (b.get("error_occurred") or b.get("skipped"))]
        if n.endswith("-head.json") and mine:
            out["head"] += 1
            out["head_reached"] += all(
                abs(b.get("hb_injected_fraction", 0) - level) < 1e-9 for b in mine)
            paid += [b["hb_injected_paid"] for b in mine if "hb_injected_paid" in b]
        elif n.endswith("-base.json"):
            out["base_reached"] += any("hb_injected_fraction" in b for b in rows)
    if paid:
        out["paid"] = [min(paid), statistics.median(paid), max(paid)]
    return out if names else None


def _checks(check):
    """The words of a row's check ("time", "instructions,time", ...), lower case."""
    return {w for w in re.split(r"[^a-z0-9_-]+", str(check or "").lower()) if w}


def _family(row):
    """The row's family; from its name ("<group>/<strategy>/...") when the row has none (a row
    only the instruction count measured)."""
    return row.get("family") or "/".join(str(row.get("name", "")).split("/")[:2])


def classify(rows, injected, level):
    """One compare judged. rows: run_compare's res.rows (dicts with name, family, verdict, check,
    ratio, ci); injected: the family names slowed down; level: the slowdown fraction (0 = none).
    Returns {detected, by_time, by_instructions, false_rows, injected_rows}: detected when a row
    of an injected family is "regressed" (never at level 0), by_time / by_instructions when such
    a row's check names the time / the instruction count; false_rows the other "regressed" rows'
    names with their check; injected_rows the injected families' rows as they were."""
    hit = [r for r in rows if level > 0 and _family(r) in injected]
    caught = [r for r in hit if r.get("verdict") == "regressed"]
    words = [_checks(r.get("check")) for r in caught]
    false = [r for r in rows if r.get("verdict") == "regressed" and r not in caught]
    keep = ("name", "family", "verdict", "check", "ratio", "ci")
    witnessed = [r for r in rows if "no code change" in str(r.get("check") or "")]
    return dict(detected=bool(caught), no_code_change=[r.get("name") for r in witnessed],
                by_time=any(w & {"time", "speed"} for w in words),
                by_instructions=any("instructions" in w for w in words),
                false_rows=["%s [%s]" % (r.get("name"), r.get("check")) for r in false],
                injected_rows=[{k: r.get(k) for k in keep} for r in hit])


def confirmation_of(record):
    """What a compare's confirmation did (compare.json's "confirmation", confirmation.record):
    {tests: Holm's count, second: the tests that went on to a second round (names), share: the
    part of the level the first round spent (1.0: no second round planned)}; None without one."""
    if not record or not record.get("tests"):
        return None
    held = [t for t in record["tests"] if t.get("counted", True)]
    return dict(tests=len(held), second=[t["name"] for t in held if t.get("second")],
                share=min([t.get("share", 1.0) for t in held] or [1.0]))


def summarize(level, records):
    """The table's line for one level. records: the compares' records (each with detected,
    by_time, by_instructions, false_rows, wall_s, injected_rows). Returns a dict of counts,
    rates, minutes and change_median: the median time change the compares measured on the
    injected rows (what the injection really did), None without one."""
    n = len(records)
    minutes = [r["wall_s"] / 60 for r in records]
    det = sum(r["detected"] for r in records)
    ratios = [x["ratio"] for r in records for x in r.get("injected_rows", [])
              if isinstance(x.get("ratio"), (int, float))]
    return dict(level=level, compares=n, detections=det,
                change_median=statistics.median(ratios) - 1 if ratios else None,
                rate=det / n if n and level > 0 else None,
                by_time=sum(r["by_time"] for r in records),
                by_instructions=sum(r["by_instructions"] for r in records),
                false_compares=sum(bool(r["false_rows"]) for r in records),
                false_rows=sum(len(r["false_rows"]) for r in records),
                no_code_change=sum(len(r.get("no_code_change", [])) for r in records),
                decided=decided_text(records),
                minutes_median=statistics.median(minutes) if minutes else None,
                minutes_max=max(minutes) if minutes else None)


def decided_text(records):
    """'12 of 78 (10-14)': the median number of strategies decided (regressed, improved, same,
    failed or accepted: strategies.DECIDED) of the compares that recorded their strategies, of
    how many, with the range; '-' when none did."""
    from .strategies import DECIDED
    counts = [(sum(n for v, n in r["strategies"].items() if v in DECIDED),
               sum(r["strategies"].values())) for r in records if r.get("strategies")]
    if not counts:
        return "-"
    d = sorted(c for c, _ in counts)
    return "%g of %d (%d-%d)" % (statistics.median(d), counts[0][1], d[0], d[-1])


def _off(line):
    """How the change measured on the injected rows misses the nominal slowdown by more than a
    quarter of it and more than 1 point (at 5%: outside +3.75% to +6.25%): 1 above, -1 below,
    0 within (or not measured)."""
    c = line.get("change_median")
    if c is None or abs(c - line["level"]) <= max(0.01, line["level"] / 4):
        return 0
    return 1 if c > line["level"] else -1


def goals(lines, default_options):
    """The goals judged on the table. lines: summarize()'s dicts; default_options: whether the
    compares ran with the default filter and rounds (the time goal is about those). Where the
    injection missed its size (_off), the detection goal is "not measured" when the miss
    favours its verdict (caught, but a larger slowdown; missed, but a smaller one), and keeps
    its verdict when it holds a fortiori (a larger slowdown missed is a fail, a smaller one
    caught a pass); the detail says the size measured. Returns a list of (goal, "pass" |
    "fail" | "not measured", detail)."""
    by = {line["level"]: line for line in lines if line["compares"]}
    out = []
    k, n = GOAL_DETECTIONS
    at = by.get(GOAL_LEVEL)
    verdict, detail = "not measured", "level not run"
    if at:
        verdict = "pass" if at["detections"] * n >= k * at["compares"] else "fail"
        detail = "%d/%d" % (at["detections"], at["compares"]) + (
            " compares: fewer than %d, indicative only" % n if at["compares"] < n else "")
        off = _off(at)
        if off:
            if off == (1 if verdict == "pass" else -1):
                verdict = "not measured"
            detail += "; but the slowed-down rows measured %+.1f%%, not %g%%: the injection " \
                "missed its size" % (at["change_median"] * 100, GOAL_LEVEL * 100)
    out.append(("detections at %g%% >= %d/%d" % (GOAL_LEVEL * 100, k, n), verdict, detail))
    zero = by.get(0.0)
    out.append(("0 false regressed in the unchanged compares",
                "not measured" if not zero else "pass" if not zero["false_rows"] else "fail",
                "%d rows in %d of %d compares" % (zero["false_rows"], zero["false_compares"],
                                                  zero["compares"]) if zero else "level 0 not run"))
    worst = max((line["minutes_max"] for line in by.values()), default=None)
    note = "" if default_options else " (not the default options: indicative only)"
    out.append(("<= %g minutes per default compare" % GOAL_MINUTES,
                "not measured" if worst is None else
                "pass" if worst <= GOAL_MINUTES else "fail",
                ("longest %.2f min%s" % (worst, note)) if worst is not None else "no compare"))
    return out


def machine(repo):
    """What the measurement ran on, now: {date, loadavg, nproc, cpu, git}. repo: the source tree
    (its git revision, "+dirty" when it has changes). Never fails: unknowns are None."""
    cpu = cpu_model() or None
    rev = git(repo, "rev-parse", "--short", "HEAD")
    if rev and git(repo, "status", "--porcelain", "-uno"):
        rev += "+dirty"
    return dict(date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                loadavg=[round(x, 2) for x in os.getloadavg()], nproc=os.cpu_count(), cpu=cpu,
                git=rev)


def _fmt(x, spec):
    return "-" if x is None else spec % x


def table(lines):
    """The Markdown table of summarize()'s lines, as a list of text lines."""
    out = ["| slowdown | measured change | compares | detected | rate | by time "
           "| by instructions | false-alarm compares | false rows | no code change rows "
           "| strategies decided | min/compare median | max |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in lines:
        lvl = "none" if s["level"] == 0 else "%g%%" % (s["level"] * 100)
        det = "-" if s["level"] == 0 else "%d/%d" % (s["detections"], s["compares"])
        change = s.get("change_median")
        change = None if change is None else change * 100
        out.append("| %s | %s | %d | %s | %s | %d | %d | %d | %d | %d | %s | %s | %s |" % (
            lvl, _fmt(change, "%+.1f%%"), s["compares"], det, _fmt(s["rate"], "%.2f"),
            s["by_time"], s["by_instructions"], s["false_compares"], s["false_rows"],
            s.get("no_code_change", 0), s.get("decided", "-"),
            _fmt(s["minutes_median"], "%.2f"), _fmt(s["minutes_max"], "%.2f")))
    return out


def render(doc):
    """The Markdown report of a measurement. doc: what gate_power.py writes as <label>.json
    (label, targets, options, machine_before, machine_after, lines, goals, compares)."""
    mb, ma = doc["machine_before"], doc.get("machine_after") or {}
    out = ["# Detection power of the interleaved compare: %s" % doc["label"], "",
           "Slowed down (HB_INJECT=slowdown:<fraction>, HB_INJECT_SELECT=`%s`): %s." % (
               doc["inject_select"], ", ".join(t["family"] for t in doc["targets"])), ""]
    out += table(doc["lines"])
    out += ["", "Goals:", ""]
    out += ["- %s: **%s** (%s)" % (g, verdict, detail) for g, verdict, detail in doc["goals"]]
    out += ["", "A compare detected the slowdown when a row of a slowed-down family was "
            "\"regressed\" (by time / by instructions: the check that said so); a false alarm is "
            "any other \"regressed\" row (every one when nothing was slowed down). Measured "
            "change: the median time change head/base - 1 of the slowed-down rows over the "
            "compares (what the injection did, against its nominal fraction). No code change "
            "rows: time regressions the second witness made inconclusive (byte-identical object "
            "code, instructions unmoved; docs/compare.md): what the time check alone would have "
            "failed. Strategies decided: the median over the compares of the strategies whose "
            "summary line (docs/compare.md) was regressed, improved, the same within 2%, failed "
            "or accepted, of all the compare's strategies, with the range. The unchanged compares' heads are fresh builds of the tree with one "
            "comment changed (unless the options say same_binary), with callgrind as in make "
            "bench-ci (unless instructions is false); the injected levels run without "
            "callgrind: the injection's calibrated loop is no faithful instruction count "
            "of a slowdown (valgrind slows it far less than the work it stands for), so every "
            "detection here is the time check's.", "",
            "Machine: %s, %s CPUs; load average %s before, %s after; background load: %d busy "
            "processes." % (mb.get("cpu"), mb.get("nproc"), mb.get("loadavg"), ma.get("loadavg"),
                            doc["options"].get("load", 0)),
            "Started %s, finished %s; git %s." % (mb.get("date"), ma.get("date"), mb.get("git")),
            "Options: `%s`." % json.dumps(doc["options"], sort_keys=True)]
    for case, why in doc.get("skipped", []):
        out.append("Case %s not measured: %s." % (case, why))
    return "\n".join(out + injection_lines(doc.get("compares", []))) + "\n"


def injection_lines(compares):
    """Markdown lines: per slowed-down compare, whether the injection reached every head process
    and none of the base's, and the fraction it paid in fact (injection_reach); [] when no
    compare recorded it."""
    rows = [c for c in compares if c.get("injection")]
    if not rows:
        return []
    out = ["", "The injection in fact (hb_injected_paid: the payment's CPU time over that of the "
           "timed work it paid for, least / median / most over the slowed-down rows of the "
           "head's processes):", "",
           "| compare | head processes reached | base processes reached | "
           "paid |", "|---|---:|---:|---|"]
    for c in rows:
        inj = c["injection"]
        paid = " / ".join("%.1f%%" % (x * 100) for x in inj["paid"]) if inj["paid"] else "-"
        out.append("| %g-%03d | %d of %d | %d | %s |" % (c["level"], c["index"],
                                                          inj["head_reached"], inj["head"],
                                                          inj["base_reached"], paid))
    return out

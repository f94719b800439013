"""verdict - one row per benchmark from every check, the table, the environment's warnings.

A strategy that fails verification (its answer differs from the reference's; hotbench does not
time it) is "regressed" by the check "verification". A benchmark is regressed when any check says
so, and the table names which; only "regressed" makes `ci` exit 1.

Instruction counts (glibc picks its memcpy by CPU) and time ratios (cache sizes) measured on
another CPU, toolchain or library build say nothing about the code: there a regression by those
two checks is only "inconclusive" until `make baseline` is re-run on this machine. Verification
failures and complexity (exponents, budgets) still decide.
"""

import sys

from .complexity import check_complexity
from .errors import die
from .instructions import check_instructions
from .speed import check_speed

VERDICT_ORDER = ["regressed", "improved", "inconclusive", "pass"]

# Fingerprint keys whose change makes instruction counts and time ratios incomparable: these,
# and a case's SIMD level (the code its dispatch runs), after num_cpus.
MACHINE = ("cpu_model", "caches", "num_cpus")
BUILD = ("hb_compiler", "hb_build_flags", "packages", "valgrind")
SIMD_LEVEL = "_simd_level"


def not_comparable_keys(*fingerprints):
    simd = sorted({k for fp in fingerprints for k in fp if k.endswith(SIMD_LEVEL)})
    return list(MACHINE) + simd + list(BUILD)


def fingerprint_warnings(base, cur):
    out = []
    a, b = base.fingerprint, cur.fingerprint
    for k in sorted(set(a) | set(b)):
        if k in ("date", "git_revision"):
            continue
        if a.get(k) != b.get(k):
            out.append("%s: baseline %r, now %r" % (k, a.get(k), b.get(k)))
    return out


def environment_warnings(base, cur, p):
    warns = fingerprint_warnings(base, cur)
    if warns:
        p("WARNING: the environment differs from the baseline's; differences below may be the "
          "environment's, not the code's:")
        for w in warns:
            p("  " + w)
    if base.settings and cur.settings and base.settings != cur.settings:
        p("WARNING: the selection differs from the baseline's settings (%s)" % ", ".join(
            k for k in base.settings if base.settings.get(k) != cur.settings.get(k)))


def not_comparable(base, cur, results, p):
    """Speed and instruction regressions made inconclusive when the machine or build moved."""
    moved = [k for k in not_comparable_keys(base.fingerprint, cur.fingerprint)
             if base.fingerprint.get(k) != cur.fingerprint.get(k)]
    if not moved:
        return
    p("WARNING: %s differ(s) from the baseline's: speed and instruction regressions are "
      "reported as inconclusive; record a baseline on this machine (make baseline)"
      % ", ".join(moved))
    for res in results:
        if res["verdict"] == "regressed":
            res["verdict"] = "inconclusive"
            res["why"] += " (not comparable: %s differ from the baseline's)" % ", ".join(moved)


def verification(cur):
    """A strategy whose answer differed from the reference was not timed: worse than slow."""
    out = []
    for r in cur.runs:
        for f in sorted(set(r["failed"])):
            name, msg = f.split(": ", 1)
            out.append(dict(check="verification", name=name, base="-", now="not timed",
                            change="-", verdict="regressed", why=msg))
    return out


def table_row(name, results):
    """The benchmark's row: the worst verdict of the checks that decided, and their reasons."""
    decided = [r for r in results if r["verdict"] != "reference"]
    verdict = next((v for v in VERDICT_ORDER if any(r["verdict"] == v for r in decided)), "pass")
    if not decided:
        verdict = "reference"
    first = next((r for r in decided if r["verdict"] == verdict), results[0])
    checks = ",".join(sorted({r["check"] for r in decided if r["verdict"] == verdict})) or \
        results[0]["check"]
    return dict(name=name, verdict=verdict, check=checks, base=first.get("base", "-"),
                now=first.get("now", "-"), change=first.get("change", "-"),
                why="; ".join("%s: %s" % (r["check"], r["why"]) for r in decided
                              if r["verdict"] == verdict) or first.get("why", ""))


def table(results):
    """One row per benchmark, regressions first."""
    by_name = {}
    for res in results:
        by_name.setdefault(res["name"], []).append(res)
    rows = [table_row(name, rs) for name, rs in by_name.items()]
    order = {v: i for i, v in enumerate(VERDICT_ORDER + ["reference"])}
    rows.sort(key=lambda r: (order[r["verdict"]], r["name"]))
    return rows


def print_table(rows, p):
    w = max([len(r["name"]) for r in rows] + [9])
    p("%-*s %13s %17s %9s  %-12s %s" % (w, "benchmark", "baseline", "now", "change", "verdict",
                                        "check: why"))
    for r in rows:
        p("%-*s %13s %17s %9s  %-12s %s" % (w, r["name"], r["base"], r["now"], r["change"],
                                            r["verdict"], r["why"] if r["verdict"] != "pass"
                                            else r["check"]))


def print_summary(rows, counts, opt, p):
    """counts: (runs of the baseline, speed results, complexity results, instruction results,
    the instruction check's note)."""
    runs, nspeed, ncplx, nir, ir_note = counts
    verdicts = {v: sum(1 for r in rows if r["verdict"] == v) for v in VERDICT_ORDER}
    p()
    p("checks: speed %d benchmarks (z = %g, min effect %g%%, resolution %g%%, %d baseline run%s);"
      % (nspeed, opt.z, 100 * opt.min_effect, 100 * opt.resolution, runs,
         "" if runs == 1 else "s"))
    p("        complexity %d fits/predictions; instructions %d benchmarks, %s" % (
        ncplx, nir, ir_note))
    p("verdict: %s" % ", ".join("%d %s" % (verdicts[v], v) for v in VERDICT_ORDER))
    regs = [r for r in rows if r["verdict"] == "regressed"]
    for r in regs:
        p("REGRESSED %s [%s]: %s" % (r["name"], r["check"], r["why"]))
    return len(regs)


def compare(base, cur, opt, out=sys.stdout):
    """Prints the table and returns the number of regressions."""
    def p(s=""):
        print(s, file=out)

    run_c = cur.runs[0]
    if not (run_c["rows"] or run_c["skipped"] or run_c["failed"]):
        die("%s holds no benchmark: nothing to compare (a gate that compares nothing does not "
            "pass)" % run_c["path"])
    environment_warnings(base, cur, p)
    ir, ir_note = check_instructions(base, cur, opt)
    speed = check_speed(base, cur, opt, {r["name"] for r in ir if r["verdict"] == "pass"})
    cplx = check_complexity(base, cur, opt)
    not_comparable(base, cur, speed + ir, p)
    rows = table(verification(cur) + speed + ir + cplx)
    print_table(rows, p)
    return print_summary(rows, (len(base.runs), len(speed), len(cplx), len(ir), ir_note), opt, p)

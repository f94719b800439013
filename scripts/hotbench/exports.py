"""exports - the files benchmark services accept, written beside hotbench's own results.

Two formats, each a plain JSON file with no NaN or Infinity (json.dump(allow_nan=False)):

gab.json   github-action-benchmark's input for `tool: customSmallerIsBetter`: a JSON array of
           {"name": str, "unit": str, "value": number, "range": str (optional),
            "extra": str (optional)}, one entry per benchmark, names unique. Source: the
           action's README ("Examples" / custom tools) and src/extract.ts, whose
           extractCustomBenchmarkResult keeps exactly name, value, unit, range, extra
           (https://github.com/benchmark-action/github-action-benchmark). The value is the
           median CPU time per iteration in ns, unit "ns/iter" (a unit of the action's own
           normalizeValueByUnit table, so a later change to "us/iter" would still chart).
bmf.json   Bencher Metric Format: {benchmark: {measure slug: {"value": number,
           "lower_value": number (optional), "upper_value": number (optional)}}}, with
           lower_value <= value <= upper_value where given. Source: "Bencher Metric Format"
           (https://bencher.dev/docs/reference/bencher-metric-format/) and its JSON schema
           https://bencher.dev/bmf.json. Measures (a slug that does not exist yet is created
           by Bencher on first use; docs "How to Track Custom Benchmarks"):
             latency       wall-clock (google-benchmark's real_time) per iteration, ns: median,
                           least and greatest repetition (Bencher's built-in measure)
             cpu-time      CPU time per iteration, ns, the figure the compare and the gate judge:
                           median, least and greatest repetition
             instructions  instructions per iteration counted under callgrind, where measured
             ratio         a compare's head/base CPU time (Hodges-Lehmann estimate) with its
                           interval as lower/upper (docs/compare.md); compare outputs only

What is left out: skipped and failed rows (google-benchmark's error_occurred), aggregate rows
(run_type "aggregate": mean/median/stddev/cv, _BigO, _RMS), and any non-finite figure. A
benchmark is named as in the run JSON (its run_name, e.g. "bufgrow/memcpy/size:65536/read:4096/
real_time") in both files, by every writer, so the services' series line up across runs.

Where they go (docs/ci.md, "Exports"):
  a recorded run results/runs/<UTC>-<sha>.json      -> results/runs/<UTC>-<sha>.exports/
  a compare's output folder results/runs/<UTC>-compare/ -> gab.json and bmf.json in it
  the gate's measurement folder                      -> bmf<suffix>.json (gate/export.py)
The run JSON itself stays exactly as google-benchmark wrote it (its tools read it).

    python3 -m hotbench.exports RUN.json [OUT_DIR]   (from scripts/) exports an existing run
"""

import math
import os
import statistics
import sys

from .files import write_json_atomic
from .runjson import Run

GAB_UNIT = "ns/iter"
LATENCY, CPU_TIME, INSTRUCTIONS, RATIO = "latency", "cpu-time", "instructions", "ratio"
EXPORTS_SUFFIX = ".exports"


class ExportError(Exception):
    """A run file that cannot be exported (unreadable, not google-benchmark JSON)."""


def _finite(values):
    """The finite numbers of an iterable (bools and non-numbers dropped)."""
    return [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v)]


def spread_metric(values):
    """A BMF metric of repeated measurements: {"value": median, "lower_value": least,
    "upper_value": greatest} of the finite values (same unit as given), or None when none is
    finite. lower_value <= value <= upper_value by construction."""
    v = _finite(values)
    if not v:
        return None
    return {"value": statistics.median(v), "lower_value": min(v), "upper_value": max(v)}


def run_figures(run):
    """{benchmark: {"cpu": [ns per iteration, one per repetition], "wall": [ns, the same]}} of
    a hotbench.runjson.Run: its iteration rows only (runjson already sets aside skipped and
    failed rows, aggregates, _BigO and _RMS). Non-finite times are dropped here."""
    out = {}
    for r in run.rows:
        f = out.setdefault(r["name"], {"cpu": [], "wall": []})
        f["cpu"] += _finite([r["cpu"] * 1e9])
        f["wall"] += _finite([r["t"] * 1e9])
    return out


def figures_bmf(figures, instructions=None):
    """The BMF document of one measured run: per benchmark `latency` and `cpu-time` (ns, from
    figures as run_figures returns) and `instructions` per iteration where instructions
    ({benchmark: number}, callgrind) has a finite value. A benchmark with no finite figure is
    left out."""
    doc = {}
    for name, f in figures.items():
        m = {}
        for slug, key in ((LATENCY, "wall"), (CPU_TIME, "cpu")):
            metric = spread_metric(f.get(key, []))
            if metric:
                m[slug] = metric
        if m:
            doc[name] = m
    for name, v in (instructions or {}).items():
        if _finite([v]):
            doc.setdefault(name, {})[INSTRUCTIONS] = {"value": float(v)}
    return doc


def figures_gab(figures):
    """The customSmallerIsBetter array of one measured run: per benchmark with a finite CPU
    time, {"name", "unit": "ns/iter", "value": median CPU time in ns, "range": "± x" (the
    largest distance from the median to a repetition), "extra": wall-clock median and the
    repetitions}, sorted by name."""
    out = []
    for name in sorted(figures):
        cpu = spread_metric(figures[name].get("cpu", []))
        if not cpu:
            continue
        med = cpu["value"]
        wall = spread_metric(figures[name].get("wall", []))
        extra = "repetitions: %d" % len(_finite(figures[name]["cpu"]))
        if wall:
            extra = "wall-clock median: %.6g ns/iter\n" % wall["value"] + extra
        out.append({"name": name, "unit": GAB_UNIT, "value": med,
                    "range": "± %.4g" % max(med - cpu["lower_value"], cpu["upper_value"] - med),
                    "extra": extra})
    return out


def compare_bmf(rows):
    """The BMF document of a compare (rows as hotbench.compare.engine.Result.rows): per
    benchmark `cpu-time` (the head's median CPU time per iteration, ns), `ratio` (head/base
    CPU time with its interval as lower/upper, only when the interval holds the estimate and
    all three are finite) and `instructions` (the head's per iteration). Rows without any of
    these (not measured, failed) are left out."""
    doc = {}
    for r in rows:
        m = {}
        head = _finite([r.get("head_s")])
        if head and head[0] > 0:
            m[CPU_TIME] = {"value": head[0] * 1e9}
        ratio, ci = _finite([r.get("ratio")]), _finite(r.get("ci") or [])
        if ratio and len(ci) == 2 and ci[0] <= ratio[0] <= ci[1]:
            m[RATIO] = {"value": ratio[0], "lower_value": ci[0], "upper_value": ci[1]}
        elif ratio:
            m[RATIO] = {"value": ratio[0]}
        ir = _finite([(r.get("instructions") or {}).get("head")])
        if ir:
            m[INSTRUCTIONS] = {"value": ir[0]}
        if m:
            doc[r["name"]] = m
    return doc


def compare_gab(rows):
    """The customSmallerIsBetter array of a compare: per row with a finite head CPU time,
    {"name", "unit": "ns/iter", "value": the head's median CPU time in ns, "extra": the
    change head/base with its interval, the verdict and the check that decided}."""
    out, seen = [], set()
    for r in rows:
        head = _finite([r.get("head_s")])
        if not head or head[0] <= 0 or r["name"] in seen:
            continue
        seen.add(r["name"])
        extra = "verdict: %s (%s)" % (r.get("verdict"), r.get("check"))
        ratio, ci = _finite([r.get("ratio")]), _finite(r.get("ci") or [])
        if ratio and len(ci) == 2:
            extra = "change: %+.1f%% [%+.1f%%, %+.1f%%]\n" % tuple(
                (x - 1) * 100 for x in (ratio[0], ci[0], ci[1])) + extra
        out.append({"name": r["name"], "unit": GAB_UNIT, "value": head[0] * 1e9,
                    "extra": extra})
    return out


def write_json(path, doc):
    """Writes doc to path atomically (a temporary file, then a rename), NaN refused: raises
    ValueError on a non-finite float, OSError when the folder is not writable."""
    return write_json_atomic(path, doc, indent=1, sort_keys=True, allow_nan=False)


def exports_dir(run_path):
    """Where a recorded run's exports go: results/runs/X.json -> results/runs/X.exports/."""
    base = run_path[:-len(".json")] if run_path.endswith(".json") else run_path
    return base + EXPORTS_SUFFIX


def export_run(run_path, out_dir=None, instructions=None):
    """Writes gab.json and bmf.json of the run JSON at run_path into out_dir (default
    exports_dir(run_path), created) and returns their two paths. Raises ExportError for an
    unreadable or non-google-benchmark file, ValueError/OSError from write_json."""
    try:
        run = Run(run_path)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ExportError("cannot export %s: %s" % (run_path, e)) from e
    figures = run_figures(run)
    out_dir = out_dir or exports_dir(run_path)
    os.makedirs(out_dir, exist_ok=True)
    return (write_json(os.path.join(out_dir, "gab.json"), figures_gab(figures)),
            write_json(os.path.join(out_dir, "bmf.json"), figures_bmf(figures, instructions)))


def write_run_exports(run_path, log=print):
    """The recording path's call (scripts/bench.py): export_run(run_path), logging where the
    files went, or why not. Never raises for a bad run or a full disk: the run stays recorded
    and only its exports are missing (said on log). Returns the out folder or None."""
    try:
        gab, bmf = export_run(run_path)
    except (ExportError, ValueError, OSError) as e:
        log("exports: none written: %s" % e)
        return None
    log("exports: %s (github-action-benchmark), %s (Bencher)" % (os.path.relpath(gab),
                                                                   os.path.relpath(bmf)))
    return os.path.dirname(gab)


def write_compare_exports(rows, out_dir):
    """The compare's call (compare/table.py): writes bmf.json (compare_bmf) and gab.json
    (compare_gab) of the compare's rows into its output folder out_dir; returns both paths.
    Raises ValueError/OSError from write_json (the compare's other outputs raise alike)."""
    return (write_json(os.path.join(out_dir, "bmf.json"), compare_bmf(rows)),
            write_json(os.path.join(out_dir, "gab.json"), compare_gab(rows)))


def main(argv):
    """python3 -m hotbench.exports RUN.json [OUT_DIR]: exit 0 written, 1 not exportable,
    2 usage."""
    if len(argv) not in (1, 2) or argv[0].startswith("-"):
        print("usage: python3 -m hotbench.exports RUN.json [OUT_DIR]  (from scripts/; default "
              "OUT_DIR: RUN.exports/)", file=sys.stderr)
        return 2
    try:
        for p in export_run(argv[0], argv[1] if len(argv) > 1 else None):
            print(p)
    except (ExportError, ValueError, OSError) as e:
        print("exports: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/python3
"""test_report_alloc.py - the report's allocator parts on small hand-made files: the Allocators
section (scripts/hotbench/report/allocators.py) from a made-up hotbench-alloc/1 JSON, the memory
counters beside the times and the case sentence (counters.py) from a made-up run, the manifest's
allocator fields (manifest.py). Numbers asserted, never timings measured. Prints one line per
check and 'N passed, M failed'."""

import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from test_report_util import check, done  # noqa: E402

from hotbench.manifest import Manifest, ManifestError  # noqa: E402
from hotbench.report import allocators, cli, counters  # noqa: E402
from hotbench.report.views import View  # noqa: E402
from hotbench.runjson import Run  # noqa: E402


def strategy(name, twin=None, role="strategy"):
    return {"name": name, "role": role, "complexity": 1, "model": "power",
            "custom_allocator_twin": twin}


VIEW = {"key": "grow", "title": "grow", "x": "n", "x_label": "n", "unit": "B", "fixed": {},
        "production": 2000000, "production_label": "2 MB", "items_per_x": 1, "per_label": "t",
        "per_scale": 1e9, "fit_from": "", "charts": ["table"]}
MANIFEST = {"schema": "hotbench-manifest/1", "cases": [
    {"name": "c", "title": "C", "incident": "i", "e2e": [], "peers": [], "peers_driver": None,
     "groups": [{"name": "grow", "title": "Growing", "about": "a", "reference": "b",
                 "yardstick": None, "views": [VIEW],
                 "strategies": [strategy("a", "b"), strategy("b"), strategy("c")],
                 "gate": {"select": None, "ir_select": None},
                 "alloc_select": "(a|b|c)/n:2000000/", "alloc_select_long": None}]}]}
MJSON = json.dumps(MANIFEST)


def row(s, n, ms, rep=0, **counters):
    name = "grow/%s/n:%d/real_time" % (s, n)
    return dict({"name": name, "run_name": name, "run_type": "iteration", "iterations": 1,
                 "repetition_index": rep, "real_time": ms, "cpu_time": ms, "time_unit": "ms"},
                **counters)


def alloc_run(name, times, faults):
    """A run of allocator name: strategies a, b, c at n=2e6, two repetitions each."""
    rows = []
    for s in "abc":
        for rep in (0, 1):
            rows.append(row(s, 2000000, times[s], rep, minor_faults_per_mb=faults[s],
                            minor_faults=faults[s] * 2, peak_rss_bytes=1e8))
    return {"context": {"hb_allocator": name, "hb_allocator_version": name + "-9",
                        "hb_allocator_library": "/lib/%s.so" % name,
                        "hb_syscall_counts": "tracepoints", "hb_manifest": MJSON,
                        "load_avg": [1.5, 1.0, 0.5]},
            "benchmarks": rows}


def alloc_doc():
    runs = [("glibc", {"a": 40.0, "b": 10.0, "c": 20.0}, {"a": 800, "b": 0, "c": 250}),
            ("jemalloc", {"a": 10.5, "b": 10.0, "c": 10.0}, {"a": 2, "b": 0, "c": 1})]
    return {"schema": "hotbench-alloc/1", "created": "2026-12-02T14:00:00Z", "revision": "abc",
            "filter": "^(grow/((a|b|c)/n:2000000/))", "long": False, "repetitions": 2,
            "rounds": 1, "allocators": ["glibc", "jemalloc", "mimalloc"],
            "skipped": [{"allocator": "mimalloc", "reason": "apt-get install libmimalloc-dev"}],
            "calibration": {"first_touch_gbps": 0.34, "warm_copy_gbps": 5.8},
            "order": [{"round": 0, "allocator": n, "seconds": 60.0, "exit_status": 0}
                      for n, _, _ in runs],
            "runs": [{"round": 0, "allocator": n, "seconds": 60.0, "exit_status": 0,
                      "run": alloc_run(n, t, f)} for n, t, f in runs],
            "seconds": 125.0, "context": {"hb_manifest": MJSON}}


def test_section(tmp):
    path = os.path.join(tmp, "m.alloc.json")
    with open(path, "w") as f:
        json.dump(alloc_doc(), f)
    peers = os.path.join(tmp, "peers.json")
    with open(peers, "w") as f:
        json.dump({"c": {"runs": [
            {"peer": "real", "size": 1000000, "seconds": [9.0]},
            {"peer": "real", "size": 1900000, "seconds": [3.0, 5.0],
             "additive_steps": 8, "additive_step_s": {"mean": 0.125}}]}}, f)
    md = "\n".join(allocators.section(path, peers))
    check("| `a` | n:2000000 | 40 ms | 10.5 ms (0.26x) |" in md,
          "time per allocator with the ratio to glibc (10.5 / 40 = 0.26)")
    check("| `c` | n:2000000 | 250 | 1 |" in md, "faults per MB per allocator")
    check("In 3 of 3 benchmarks the allocator with the fewest minor page faults per MB is also "
          "the fastest (faults explain the ranking); jemalloc has the fewest in 2 (0 to 2 per "
          "MB" in md,
          "the faults sentence: fewest faults vs fastest, counted")
    check("| mimalloc | skipped | apt-get install libmimalloc-dev | | | |" in md,
          "the skipped allocator listed with its package")
    check("| glibc | glibc-9 | `/lib/glibc.so` | tracepoints | 60 s | 1.5 |" in md,
          "each allocator's version, library, syscall counting and run time")
    check("| `grow` | `a` / `b` | n:2000000 | 4.00 | 1.05 |" in md,
          "the twin ratio a/b per allocator (40/10, 10.5/10)")
    check("jemalloc makes `a` behave like `b` (1.05) (glibc: 4.00). Times (`a` / `b`): glibc "
          "40 ms / 10 ms, jemalloc 10.5 ms / 10 ms." in md,
          "the verdict names the allocator that closes the gap")
    check("`real` 4 s at 1.9 MB (8 additive steps, additive 125 ms a step)" in md,
          "the real library beside it at the nearest size, with its per-step figure")
    check("0.34 GB/s" in md, "the machine's first-touch rate from the calibration")
    check("mremap" not in md, "no mremap table when no row has the counter")
    doc = alloc_doc()
    for r in doc["runs"]:
        r["run"]["benchmarks"] = [b for b in r["run"]["benchmarks"] if "/b/" not in b["name"]]
    with open(path, "w") as f:
        json.dump(doc, f)
    md = "\n".join(allocators.section(path, None))
    check("Not measured side by side in this matrix: `grow/a` / `b`" in md
          and "--long" in md, "a twin without its pair in the matrix is named, --long suggested")


def test_counters(tmp):
    rows = [row("a", 2000000, 30.0, minor_faults_per_mb=500, minor_faults=1000,
                peak_rss_bytes=3e6, mremap_calls=0),
            row("b", 2000000, 10.0, minor_faults_per_mb=0, minor_faults=0, peak_rss_bytes=2e6,
                mremap_calls=3),
            row("c", 2000000, 20.0, minor_faults_per_mb=250, minor_faults=500,
                peak_rss_bytes=2.5e6, mremap_calls=0)]
    path = os.path.join(tmp, "run.json")
    with open(path, "w") as f:
        json.dump({"context": {"hb_manifest": MJSON}, "benchmarks": rows}, f)
    run = Run(path)
    m = run.manifest
    v = View(m, m.group("grow"), VIEW)
    head, cells = counters.columns(run, v, ["a", "b", "c"])
    check(head == ["faults/MB", "peak RSS", "mremap calls"] and cells["a"] == ["500", "3 MB",
                                                                               "0"],
          "columns: faults/MB, peak RSS, and mremap where a row uses it (%s %s)" % (head,
                                                                                  cells["a"]))
    s = counters.case_sentence(run, [v])
    check(s is not None and "Pearson r = 1.00" in s and "slope 20 us per fault" in s
          and "`a` takes the most (500/MB, 30 ms)" in s and "`b` the fewest (0/MB, 10 ms)" in s,
          "the case sentence: correlation, slope, the extremes (%s)" % s)
    for r in rows:
        r["peak_rss_growth_bytes"] = r["peak_rss_bytes"] - 1e6
    with open(path, "w") as f:
        json.dump({"context": {"hb_manifest": MJSON}, "benchmarks": rows}, f)
    run = Run(path)
    head, cells = counters.columns(run, v, ["a", "b", "c"])
    s = counters.case_sentence(run, [v])
    check(head == ["faults/MB", "peak RSS growth", "mremap calls"] and cells["a"][1] == "2 MB"
          and s is not None and "peak RSS growth 1 MB to 2 MB" in s,
          "the loop's own peak growth replaces the whole-process peak where rows have it "
          "(%s %s; %s)" % (head, cells["a"], s))
    old = os.path.join(tmp, "old.json")
    with open(old, "w") as f:
        json.dump({"context": {"hb_manifest": MJSON}, "benchmarks": [
            row(x, 2000000, 10.0) for x in "abc"]}, f)
    run = Run(old)
    check(counters.columns(run, v, ["a", "b", "c"])[0] == []
          and counters.case_sentence(run, [v]) is None,
          "rows without the counters (older runs): no columns, no sentence")


def test_manifest():
    m = Manifest(MANIFEST, "t")
    check(m.twin("grow", "a") == "b" and m.twin("grow", "b") is None,
          "custom_allocator_twin read")
    check(m.alloc_selection() == [("grow", "(a|b|c)/n:2000000/")]
          and m.in_alloc_matrix("grow/c/n:2000000/real_time")
          and not m.in_alloc_matrix("grow/ac/n:2000000/real_time"),
          "alloc_select read, matched from the strategy's start")
    for bad, what in ((dict(strategy("a", "zz")), "names 'zz'"),
                      (dict(strategy("a", "a")), "names 'a'")):
        doc = json.loads(MJSON)
        doc["cases"][0]["groups"][0]["strategies"][0] = bad
        try:
            Manifest(doc, "t")
            check(False, "a bad twin refused")
        except ManifestError as e:
            check(what in str(e), "a twin that is not another strategy refused: %s" % e)
    doc = json.loads(MJSON)
    doc["cases"][0]["groups"][0]["alloc_select"] = "(a"
    try:
        Manifest(doc, "t")
        check(False, "a bad alloc_select refused")
    except ManifestError as e:
        check("alloc_select" in str(e), "an alloc_select that is no regex refused")
    doc = json.loads(MJSON)
    del doc["cases"][0]["groups"][0]["alloc_select"]
    del doc["cases"][0]["groups"][0]["strategies"][0]["custom_allocator_twin"]
    m = Manifest(doc, "t")
    check(m.alloc_selection() == [] and m.twin("grow", "a") is None,
          "a manifest older than the fields: no selection, no twin")


def test_report_alone(tmp):
    """report.py with an allocator matrix and no in-process run: the section alone."""
    path = os.path.join(tmp, "alone.alloc.json")
    with open(path, "w") as f:
        json.dump(alloc_doc(), f)
    out = os.path.join(tmp, "rep")
    cwd = os.getcwd()
    os.chdir(tmp)  # no results/bench-status.json here
    try:
        cli.main(["--run", os.path.join(tmp, "none.json"), "--alloc", path, "--e2e", "",
                  "--peers", "", "--out", out, "--chart-formats", "none"])
    finally:
        os.chdir(cwd)
    with open(os.path.join(out, "REPORT.md")) as f:
        md = f.read()
    check("## Allocators" in md and "10.5 ms (0.26x)" in md and "Missing: the in-process run"
          in md, "report.py --alloc without a run JSON: the Allocators section alone")


def test_cli(tmp):
    check("make bench-alloc" in cli.alloc_section(os.path.join(tmp, "none.json"), None)[0],
          "no matrix: one sentence naming make bench-alloc")
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"schema": "other"}')
    check("could not be read" in cli.alloc_section(bad, None)[0],
          "a foreign file: said, not fatal")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_section(tmp)
        test_counters(tmp)
        test_manifest()
        test_cli(tmp)
        test_report_alone(tmp)
    done()


if __name__ == "__main__":
    main()

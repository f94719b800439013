#!/usr/bin/python3
"""test_bench_alloc.py ROOT - scripts/bench_alloc.py (make bench-alloc) with a fake hotbench.

Checks: --help; the one --benchmark_filter built from a made-up manifest's alloc_select (and
alloc_select_long with --long), group names escaped; every allocator run with --hb_allocator,
--hb_profile=full and the repetitions; a missing allocator skipped with its package printed (not
a failure); none installed: exit 1 and no latest link; a run failing verification: exit 1, the
others kept; --rounds rotating the order; the combined JSON's schema, runs and order; bad
options: exit 2. Prints one line per check and 'N passed, M failed'."""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_report_util import check, done  # noqa: E402


def strategy(name, twin=None):
    return {"name": name, "role": "strategy", "complexity": 1, "model": "power",
            "custom_allocator_twin": twin}


def group(name, strategies, sel, long_sel=None):
    return {"name": name, "title": name, "about": "a", "reference": None, "yardstick": None,
            "strategies": strategies, "views": [], "gate": {"select": None, "ir_select": None},
            "alloc_select": sel, "alloc_select_long": long_sel}


MANIFEST = {"schema": "hotbench-manifest/1", "cases": [
    {"name": "c", "title": "C", "incident": "i", "e2e": [], "peers": [], "peers_driver": None,
     "groups": [group("grow", [strategy("a", "b"), strategy("b")], "(a|b)/n:(1|2)/",
                      "a/n:3/"),
                group("g.x", [strategy("p")], "p/"),
                group("none", [strategy("q")], None)]}]}

# The fake hotbench: FAKE_MISSING (comma-separated allocators reported missing), FAKE_FAIL (an
# allocator whose run exits 1), FAKE_LOG (argv of each run appended, one JSON line).
FAKE = r'''#!/usr/bin/python3
import json, os, sys
args = sys.argv[1:]
opt = dict(a[2:].split("=", 1) for a in args if a.startswith("--") and "=" in a)
manifest = %r
if "--hb_manifest" in args:
    print(json.dumps(manifest)); sys.exit(0)
if "--hb_calibrate" in args:
    print(json.dumps({"schema": "hotbench-calibration/1", "first_touch_gbps": 0.5,
                      "warm_copy_gbps": 6.0, "seconds": 0.1})); sys.exit(0)
name = opt.get("hb_allocator", "glibc")
if name in os.environ.get("FAKE_MISSING", "").split(","):
    print("hotbench: --hb_allocator=%%s: lib%%s.so not installed: apt-get install lib%%s-dev"
          %% (name, name, name), file=sys.stderr)
    sys.exit(2)
if "--benchmark_list_tests" in args:
    print("grow/a/n:1"); sys.exit(0)
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(json.dumps(args) + "\n")
rows = [{"name": "grow/a/n:1/real_time", "run_name": "grow/a/n:1/real_time",
         "run_type": "iteration", "repetition_index": 0, "iterations": 1,
         "real_time": 2.0, "cpu_time": 2.0, "time_unit": "ms", "minor_faults_per_mb": 10.0}]
with open(opt["benchmark_out"], "w") as f:
    json.dump({"context": {"hb_allocator": name, "hb_allocator_version": "1.0",
                           "hb_manifest": json.dumps(manifest)}, "benchmarks": rows}, f)
sys.exit(1 if name == os.environ.get("FAKE_FAIL") else 0)
''' % (MANIFEST,)


def run(root, tmp, args, **env):
    e = dict(os.environ, FAKE_LOG=os.path.join(tmp, "argv.log"), **env)
    if os.path.exists(e["FAKE_LOG"]):
        os.remove(e["FAKE_LOG"])
    p = subprocess.run(["/usr/bin/python3", os.path.join(root, "scripts", "bench_alloc.py"),
                        "--build", os.path.join(tmp, "build"), "--out-dir",
                        os.path.join(tmp, "runs"), "--latest",
                        os.path.join(tmp, "latest-alloc.json")] + args,
                       capture_output=True, text=True, env=e, cwd=tmp)
    runs = []
    if os.path.exists(e["FAKE_LOG"]):
        with open(e["FAKE_LOG"]) as f:
            runs = [json.loads(x) for x in f]
    return p, runs


def opt(argv, key):
    return next((a.split("=", 1)[1] for a in argv if a.startswith("--%s=" % key)), None)


def latest(tmp):
    path = os.path.join(tmp, "latest-alloc.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def main():
    root = os.path.abspath(sys.argv[1])
    p = subprocess.run(["/usr/bin/python3", os.path.join(root, "scripts", "bench_alloc.py"),
                        "--help"], capture_output=True, text=True)
    check(p.returncode == 0 and "hotbench-alloc/1" in p.stdout and "--long" in p.stdout,
          "--help exits 0 and documents the combined JSON and --long")
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "build"))
        fake = os.path.join(tmp, "build", "hotbench")
        with open(fake, "w") as f:
            f.write(FAKE)
        os.chmod(fake, 0o755)

        p, runs = run(root, tmp, ["--repetitions", "3"], FAKE_MISSING="mimalloc")
        check(p.returncode == 0, "one allocator missing: exit 0 (%d: %s)" % (
            p.returncode, p.stderr.strip()[-200:]))
        want = r"^(grow/((a|b)/n:(1|2)/)|g\.x/(p/))"
        check([opt(r, "benchmark_filter") for r in runs] == [want] * 3,
              "one filter from the alloc_selects, the group without one left out, '.' escaped")
        check([opt(r, "hb_allocator") for r in runs] == ["glibc", "jemalloc", "tcmalloc"],
              "every installed allocator run, glibc first, in the given order")
        check(all(opt(r, "hb_profile") == "full" and opt(r, "hb_repetitions") == "3"
                  and opt(r, "hb_budget") == "60" for r in runs),
              "each run with --hb_profile=full, --hb_repetitions=3 and --hb_budget=60")
        check("mimalloc skipped" in p.stdout and "apt-get install libmimalloc-dev" in p.stdout,
              "the missing allocator is named with its package")
        doc = latest(tmp)
        check(doc is not None and doc["schema"] == "hotbench-alloc/1"
              and [r["allocator"] for r in doc["runs"]] == ["glibc", "jemalloc", "tcmalloc"]
              and doc["runs"][1]["run"]["context"]["hb_allocator"] == "jemalloc"
              and doc["skipped"][0]["allocator"] == "mimalloc"
              and doc["calibration"]["first_touch_gbps"] == 0.5,
              "latest-alloc.json: schema, each run with its context, the skipped allocator")
        check("the whole matrix took" in p.stdout, "the total duration printed at the end")

        out = os.path.join(tmp, "named", "m-alloc.json")
        p, runs = run(root, tmp, ["--allocators", "glibc", "--out", out])
        check(p.returncode == 0 and os.path.isfile(out)
              and os.path.realpath(os.path.join(tmp, "latest-alloc.json")) == out,
              "--out FILE: the combined JSON written there (make bench names it), latest -> it")
        p, _ = run(root, tmp, ["--allocators", "glibc", "--ou", out])
        check(p.returncode == 2, "no abbreviated options: '--ou' is refused, not taken as --out")

        p, runs = run(root, tmp, ["--long", "--allocators", "glibc"])
        check(opt(runs[0], "benchmark_filter") == r"^(grow/((a|b)/n:(1|2)/)|grow/(a/n:3/)|"
              r"g\.x/(p/))", "--long adds the alloc_select_long selection")

        p, runs = run(root, tmp, ["--long", "--groups", "gr.*", "--allocators", "glibc"])
        check(opt(runs[0], "benchmark_filter") == r"^(grow/((a|b)/n:(1|2)/)|grow/(a/n:3/))",
              "--groups keeps the groups whose whole name matches")
        p, runs = run(root, tmp, ["--groups", "nothing"])
        check(p.returncode == 2 and "--groups" in p.stderr and not runs,
              "--groups matching no selection: exit 2, nothing run")

        p, runs = run(root, tmp, ["--rounds", "2", "--allocators", "glibc,jemalloc"])
        check([opt(r, "hb_allocator") for r in runs] == ["glibc", "jemalloc", "jemalloc",
                                                         "glibc"],
              "--rounds 2: the order rotated in the second round")

        p, runs = run(root, tmp, ["--allocators", "glibc,jemalloc"], FAKE_FAIL="jemalloc")
        doc = latest(tmp)
        check(p.returncode == 1 and "jemalloc FAILED" in p.stdout
              and [r["exit_status"] for r in doc["runs"]] == [0, 1],
              "a run failing verification: exit 1, recorded, the other run kept")

        os.remove(os.path.join(tmp, "latest-alloc.json"))
        p, runs = run(root, tmp, [], FAKE_MISSING="glibc,jemalloc,mimalloc,tcmalloc")
        check(p.returncode == 1 and not runs and latest(tmp) is None,
              "no allocator installed: exit 1, nothing run, no latest link")

        p, _ = run(root, tmp, ["--allocators", "glibc,ptmalloc"])
        check(p.returncode == 2 and "ptmalloc" in p.stderr, "an unknown allocator: exit 2")
        p, _ = run(root, tmp, ["--build", os.path.join(tmp, "nowhere")])
        check(p.returncode == 2 and "no hotbench" in p.stderr, "no hotbench in --build: exit 2")
    done()


if __name__ == "__main__":
    main()

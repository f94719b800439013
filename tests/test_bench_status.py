#!/usr/bin/python3
"""test_bench_status.py SRCDIR - scripts/bench.py's contract, with a fake hotbench and fake parts.

Each test copies bench.py, summary.py and its package hotbench/ into a scratch tree
beside a fake build/hotbench (a shell script: prints the calibration JSON, writes a minimal
google-benchmark JSON to --benchmark_out, sleeps or fails on demand) and fake e2e.sh, peers.py
and report.py, then checks what bench.py prints, writes to results/bench-status.json and
returns. No timing is asserted; the sleeps only make a part outlast the progress interval. Ends
with "N passed".
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), ".."))

FAKE_HOTBENCH = r"""#!/bin/sh
# fake hotbench: FAKE_CAL=missing|bad, FAKE_FT (first-touch GB/s), FAKE_CPU (CPU probe Msteps/s;
# unset: none), FAKE_SLEEP, FAKE_RC; FAKE_NAMES: the benchmarks it lists (unset: the listing
# fails) and, with --hb_progress, reports one by one, FAKE_ROW_SLEEP seconds apart
out=
prog=
for a; do
    case $a in
        --help) echo "  --hb_progress=FILE   (fake)"; exit 0 ;;
        --benchmark_list_tests*)
            [ -n "${FAKE_NAMES:-}" ] || exit 2
            printf '%s\n' $FAKE_NAMES; exit 0 ;;
        --hb_calibrate)
            case ${FAKE_CAL:-} in
                missing) echo "hotbench: unknown option '--hb_calibrate'" >&2; exit 2 ;;
                bad) echo "not json"; exit 0 ;;
            esac
            cpu=${FAKE_CPU:+, \"cpu_mops\": $FAKE_CPU}
            printf '{"schema": "hotbench-calibration/1", "first_touch_gbps": %s, %s%s}\n' \
                "${FAKE_FT:-1.0}" '"warm_copy_gbps": 6.5, "seconds": 0.1' "$cpu"
            exit 0 ;;
        --benchmark_out=*) out=${a#*=} ;;
        --hb_progress=*) prog=${a#*=} ;;
    esac
done
echo $$ > "$(dirname "$0")/hotbench.pid"  # the run's pid, not the calibration's
echo "fake hotbench running"
if [ -n "$prog" ]; then
    i=0
    for n in ${FAKE_NAMES:-}; do
        sleep "${FAKE_ROW_SLEEP:-0}"
        i=$((i + 1))
        echo "{\"row\": \"$n\", \"seconds\": $i}" >> "$prog"
    done
fi
sleep "${FAKE_SLEEP:-0}"
cat > "$out" <<'JSON'
{"context": {"date": "now", "hb_profile": "quick"}, "benchmarks": [
 {"name": "fam/one/size:10/real_time_median", "run_name": "fam/one/size:10/real_time",
  "run_type": "aggregate", "aggregate_name": "median", "real_time": 1.0, "time_unit": "ms"}]}
JSON
[ "${FAKE_RC:-0}" -eq 0 ] || echo "hotbench: 1 benchmark(s) FAILED and were not timed" >&2
exit "${FAKE_RC:-0}"
"""

FAKE_E2E = r"""#!/bin/sh
# fake e2e.sh: writes its JSON, then exits FAKE_E2E_RC
mkdir -p results/runs
echo '{}' > results/runs/20260101T000000Z-fake-e2e.json
echo "e2e: group dechunk FAILED: boom" >&2
exit "${FAKE_E2E_RC:-0}"
"""

FAKE_PEERS = r"""#!/usr/bin/python3
import os, sys
if "--check" in sys.argv:
    if os.environ.get("FAKE_PEERS_CHECK", "0") != "0":
        print("peers: runtimes not installed (missing: ruby)", file=sys.stderr)
        sys.exit(3)
    sys.exit(0)
os.makedirs("results/runs", exist_ok=True)
open("results/runs/20260101T000000Z-fake-peers.json", "w").write("{}")
"""

FAKE_REPORT = r"""#!/usr/bin/python3
import json, os, sys
if os.environ.get("FAKE_REPORT_OLD") and "--status" in sys.argv:
    print("report.py: error: unrecognized arguments: --status results/bench-status.json",
          file=sys.stderr)
    sys.exit(2)
if "--status" in sys.argv:
    json.load(open(sys.argv[sys.argv.index("--status") + 1]))  # readable while the run goes on
open("results/REPORT.md", "w").write(json.dumps(sys.argv[1:]))
"""


def make_tree():
    """A scratch top: scripts/ (bench.py, summary.py, hotbench/, fakes) and
    build/hotbench."""
    top = tempfile.mkdtemp(prefix="hb-bench-test-")
    os.makedirs(os.path.join(top, "scripts"))
    os.makedirs(os.path.join(top, "build"))
    for name in ("bench.py", "summary.py"):
        shutil.copy2(os.path.join(SRC, "scripts", name), os.path.join(top, "scripts", name))
    shutil.copytree(os.path.join(SRC, "scripts", "hotbench"),  # summary.py's package
                    os.path.join(top, "scripts", "hotbench"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    for rel, text in (("build/hotbench", FAKE_HOTBENCH), ("scripts/e2e.sh", FAKE_E2E),
                      ("scripts/peers.py", FAKE_PEERS), ("scripts/report.py", FAKE_REPORT)):
        path = os.path.join(top, rel)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    return top


def listing(top):
    return sorted(os.path.relpath(os.path.join(d, n), top) for d, ds, fs in os.walk(top)
                  for n in ds + fs if "__pycache__" not in d and n != "__pycache__")


def bench(top, args, env=None, script="bench.py"):
    """Runs the scratch tree's bench.py from its top; (exit code, stdout, stderr)."""
    out = subprocess.run([os.path.join(top, "scripts", script)] + args, cwd=top,
                         env=dict(os.environ, **(env or {})), capture_output=True, text=True,
                         timeout=60)
    return out.returncode, out.stdout, out.stderr


def status(top):
    with open(os.path.join(top, "results", "bench-status.json")) as f:
        return json.load(f)


def parts(doc):
    return {p["name"]: p for p in doc["parts"]}


def test_help_creates_nothing(top):
    before = listing(top)
    for script, args in (("bench.py", ["--help"]),
                         ("bench.py", ["--profile", "quick", "--help"]),
                         ("summary.py", ["--help"])):
        rc, out, err = bench(top, args, script=script)
        assert rc == 0 and "usage:" in out, (script, rc, out, err)
    rc, out, err = bench(top, ["--parts", "nonsense"])
    assert rc == 2 and "unknown part" in err, (rc, err)
    for every in ("0", "-1", "nan", "inf"):
        rc, out, err = bench(top, ["--progress-every", every])
        assert rc == 2 and "--progress-every must be" in err, (every, rc, err)
    assert listing(top) == before, set(listing(top)) ^ set(before)


def test_failed_part_keeps_the_others(top):
    rc, out, err = bench(top, ["--progress-every", "5"], {"FAKE_E2E_RC": "3"})
    assert rc == 1, (rc, err)
    doc = status(top)
    assert doc["schema"] == "hotbench-bench-status/1" and doc["profile"] == "full"
    assert doc["finished"] and doc["started"] and doc["host"] and doc["git_revision"]
    assert doc["calibration"]["first_touch_gbps"] == 1.0, doc["calibration"]
    names = ("in-process", "allocators", "limits", "e2e", "peers", "report")
    assert tuple(p["name"] for p in doc["parts"]) == names, doc
    p = parts(doc)
    assert [p[n]["status"] for n in names] == \
        ["ok", "skipped", "skipped", "failed", "ok", "ok"], doc
    assert "scripts/bench_alloc.py is not in this checkout" in p["allocators"]["error"], p
    assert "scripts/limits.py is not in this checkout" in p["limits"]["error"], p
    for skipped in ("allocators", "limits"):
        assert p[skipped]["expected_seconds"] == 0.0, p  # skipped: nothing to expect
    assert p["e2e"]["exit_code"] == 3 and "boom" in p["e2e"]["error"], p["e2e"]
    run = p["in-process"]["output"]
    assert run and os.path.exists(os.path.join(top, run)), p["in-process"]
    assert os.path.realpath(os.path.join(top, "results", "latest.json")) == \
        os.path.realpath(os.path.join(top, run))
    assert any("hb_calib_first_touch_gbps=1" in c and "hb_loadavg=" in c
               for c in p["in-process"]["command"]), p["in-process"]["command"]
    assert "hb_profile" not in " ".join(p["in-process"]["command"])  # full: hotbench's default
    assert p["e2e"]["output"].endswith("-e2e.json") and p["peers"]["output"].endswith("-peers.json")
    argv = json.load(open(os.path.join(top, "results", "REPORT.md")))
    assert argv[argv.index("--run") + 1] == run and "--status" in argv, argv
    assert argv[argv.index("--e2e") + 1] == p["e2e"]["output"], argv
    assert "--alloc" not in argv, argv  # skipped: and this report.py would not take it
    for part in doc["parts"]:
        if part["name"] not in ("allocators", "limits"):
            assert isinstance(part["seconds"], float) and part["expected_seconds"] is None, part
    assert isinstance(doc["seconds"], float) and doc["seconds"] >= sum(
        q["seconds"] or 0 for q in doc["parts"]), doc
    assert "duration: total " in err and "in-process " in err.split("duration: total")[1], err
    assert "expected duration: unknown (no reference record" in err, err
    assert "fam" in out and "one" in out, out  # summary.py's table of the run


def test_failed_verification_keeps_its_json(top):
    rc, out, err = bench(top, ["--profile", "quick"], {"FAKE_RC": "1"})
    assert rc == 1, (rc, err)
    p = parts(status(top))
    assert list(p) == ["in-process", "report"], p
    ip = p["in-process"]
    assert ip["status"] == "failed" and ip["exit_code"] == 1 and "FAILED" in ip["error"], ip
    assert os.path.exists(os.path.join(top, ip["output"])), ip
    assert not os.path.lexists(os.path.join(top, "results", "latest.json"))
    assert "--hb_profile=quick" in ip["command"], ip
    assert p["report"]["status"] == "ok" and ip["output"] in p["report"]["command"], p
    argv = json.load(open(os.path.join(top, "results", "REPORT.md")))
    # a quick run's report never shows an older run's e2e or peers results
    assert not os.path.exists(os.path.join(top, argv[argv.index("--e2e") + 1])), argv
    assert not os.path.exists(os.path.join(top, argv[argv.index("--peers") + 1])), argv


def write_reference(top, doc, name="bench-status-quick.json"):
    os.makedirs(os.path.join(top, "results", "reference"), exist_ok=True)
    with open(os.path.join(top, "results", "reference", name), "w") as f:
        json.dump(doc, f)


def test_progress_and_estimate(top):
    """No benchmark listing: the parts' recorded seconds, scaled by the CPU probes' ratio (2.0),
    and the in-process part's first-touch share (a half) by the first-touch ratio (4.0)."""
    write_reference(top, {
        "schema": "hotbench-bench-status/1", "profile": "quick",
        "calibration": {"schema": "hotbench-calibration/1", "first_touch_gbps": 4.0,
                        "warm_copy_gbps": 7.0, "cpu_mops": 200.0, "seconds": 1.0},
        "parts": [{"name": "in-process", "status": "ok", "seconds": 0.2,
                   "first_touch_share": 0.5},
                  {"name": "report", "status": "ok", "seconds": 0.25}]})
    rc, out, err = bench(top, ["--profile", "quick", "--progress-every", "0.3"],
                         {"FAKE_SLEEP": "1.6", "FAKE_FT": "1.0", "FAKE_CPU": "100"})
    assert rc == 0, (rc, err)
    doc = status(top)
    p = parts(doc)
    assert p["in-process"]["expected_seconds"] == 0.6, p  # 0.2 x (0.5 x 4.0 + 0.5 x 2.0)
    assert p["report"]["expected_seconds"] == 0.5, p  # 0.25 x 2.0
    assert "first touch 4 GB/s there, 1 here: x 4.00" in err, err
    assert "CPU probe 200 Msteps/s there, 100 here: x 2.00" in err, err
    assert "did not list its benchmarks" in err, err
    est = doc["estimate"]
    assert est["parts"] == {"s_ft": 4.0, "s_cpu": 2.0}, est
    assert est["expected_seconds"] >= 1.1 and est["actual_seconds"] == doc["seconds"], est
    assert est["actual_over_expected"] == round(doc["seconds"] / est["expected_seconds"], 3)
    lines = [l for l in err.splitlines() if l.startswith("[bench] in-process ") and "elapsed" in l]
    assert len(lines) >= 3, err
    assert "remaining of ~1 s expected; total ~" in lines[0], lines
    assert any("over the estimate of ~1 s by" in l for l in lines), lines
    assert not any("~-" in l for l in lines), lines


def test_estimate_per_benchmark_and_pace(top):
    """Listed benchmarks priced from the recorded run (one of them unrecorded: priced like its
    strategy's), and the remaining time recomputed from the pace hotbench streams."""
    names = ["g/a/size:1/real_time", "g/a/size:2/real_time", "g/b/size:1/real_time",
             "g/a/size:3/real_time"]
    rows = [("g/a/size:1/real_time", 1000, 0.2, "ms", 0),  # floor 0.2 s a repetition
            ("g/a/size:2/real_time", 1, 500.0, "ms", 0),   # one iteration over the floor
            ("g/b/size:1/real_time", 100, 4.0, "ms", 0)]   # floor 0.4 s
    run = {"context": {"hb_calib_first_touch_gbps": "1.0", "hb_calib_cpu_mops": "100"},
           "benchmarks": [{"name": n, "run_name": n, "run_type": "iteration", "iterations": it,
                           "real_time": t, "time_unit": u, "minor_faults": f}
                          for n, it, t, u, f in rows for _ in range(2)]}
    os.makedirs(os.path.join(top, "results", "reference"))
    with open(os.path.join(top, "results", "reference", "run.json"), "w") as f:
        json.dump(run, f)
    rc, out, err = bench(top, ["--profile", "quick", "--parts", "in-process",
                               "--progress-every", "0.3"],
                         {"FAKE_NAMES": " ".join(names), "FAKE_ROW_SLEEP": "0.4", "FAKE_SLEEP": "1",
                          "FAKE_FT": "1.0", "FAKE_CPU": "50"})
    assert rc == 0, (rc, err)
    doc = status(top)
    sys.path.insert(0, os.path.join(top, "scripts"))
    from hotbench import estimate as E
    c = E.C_ROW * 2.0  # CPU x 2.0: 100 Msteps/s there, 50 here
    a1 = 2 * 0.2 + c + E.C_ITER * 2 * 500 * 2.0 + E.C_T * 0.0004  # 500 iterations here
    a2 = 2 * 1.0 + c + E.C_ITER * 2 * 1 * 2.0 + E.C_T * 1.0  # 0.5 s x 2.0, one iteration
    b1 = 2 * 0.4 + c + E.C_ITER * 2 * 50 * 2.0 + E.C_T * 0.008
    want = a1 + a2 + b1 + (a1 + a2) / 2  # size:3 is unrecorded: the median of g/a's rows
    got = parts(doc)["in-process"]["expected_seconds"]
    assert abs(got - round(want, 1)) < 1e-9, (got, want)
    est = doc["estimate"]
    assert est["benchmarks"] == 4 and est["unrecorded"] == 1, est
    assert est["in_process"] == {"s_ft": 1.0, "s_cpu": 2.0}, est
    assert "4 benchmarks, each priced from results/reference/run.json" in err, err
    assert "1 not in the record, priced like their neighbours" in err, err
    lines = [l for l in err.splitlines() if l.startswith("[bench] in-process ") and "elapsed" in l]
    assert any("/4 benchmarks" in l and "at the measured pace (x" in l for l in lines), lines
    prog = [n for n in os.listdir(os.path.join(top, "results", "runs"))
            if n.endswith(".progress.jsonl")]
    assert len(prog) == 1 and not prog[0].startswith("."), prog
    kept = [n for n in os.listdir(os.path.join(top, "results", "runs"))
            if n.endswith("-bench-status.json")]
    assert len(kept) == 1, kept  # the finished record, kept beside the runs
    assert json.load(open(os.path.join(top, "results", "runs", kept[0]))) == doc


def test_no_calibration(top):
    rc, out, err = bench(top, ["--profile", "quick", "--progress-every", "0.3"],
                         {"FAKE_CAL": "missing", "FAKE_SLEEP": "0.7"})
    assert rc == 0, (rc, err)
    doc = status(top)
    assert doc["calibration"] is None, doc
    assert "calibration unavailable" in err and "unknown option" in err, err
    assert "(expected duration unknown)" in err, err
    cmd = " ".join(parts(doc)["in-process"]["command"])
    assert "hb_calib_" not in cmd and "hb_cpu_model=" in cmd, cmd
    rc, out, err = bench(top, ["--profile", "quick"], {"FAKE_CAL": "bad"})
    assert rc == 0 and "calibration unavailable: unreadable output" in err, (rc, err)
    # a reference record but no calibration here: its seconds, unscaled, and said so
    os.makedirs(os.path.join(top, "results", "reference"))
    with open(os.path.join(top, "results", "reference", "bench-status-quick.json"), "w") as f:
        json.dump({"profile": "quick", "calibration": {"first_touch_gbps": "x"},
                   "parts": [{"name": "in-process", "status": "ok", "seconds": 2.5},
                             {"name": "report", "status": "failed", "seconds": 1}]}, f)
    rc, out, err = bench(top, ["--profile", "quick"], {"FAKE_CAL": "missing"})
    assert rc == 0 and "unscaled: no calibration on this machine" in err, (rc, err)
    p = parts(status(top))
    assert p["in-process"]["expected_seconds"] == 2.5, p
    assert p["report"]["expected_seconds"] is None, p  # a failed part's seconds are no estimate
    rc, out, err = bench(top, ["--profile", "full", "--parts", "report"], {"FAKE_CAL": "missing"})
    assert "expected duration: unknown (no reference record" in err, err


def test_peers_skipped_and_old_report(top):
    rc, out, err = bench(top, ["--parts", "peers,report"],
                         {"FAKE_PEERS_CHECK": "3", "FAKE_REPORT_OLD": "1"})
    assert rc == 0, (rc, err)
    p = parts(status(top))
    assert p["peers"]["status"] == "skipped", p
    assert "missing: ruby" in p["peers"]["error"] and "scripts/deps.sh --peers" in \
        p["peers"]["error"], p
    assert p["report"]["status"] == "ok" and "--status" not in p["report"]["command"], p
    argv = json.load(open(os.path.join(top, "results", "REPORT.md")))
    assert "--run" not in argv, argv  # no in-process part: report.py's default


def test_interrupt_records_what_ran(top):
    proc = subprocess.Popen([os.path.join(top, "scripts", "bench.py"), "--profile", "quick"],
                            cwd=top, env=dict(os.environ, FAKE_SLEEP="30"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    pidfile = os.path.join(top, "build", "hotbench.pid")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not os.path.exists(pidfile):
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=30)[1]
    assert proc.returncode == 130, (proc.returncode, err)
    doc = status(top)
    p = parts(doc)
    assert p["in-process"]["status"] == "failed", p
    assert p["in-process"]["error"].startswith("interrupted"), p
    assert p["report"]["status"] == "skipped" and doc["finished"], p
    pid = int(open(pidfile).read())
    try:
        os.kill(pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    assert not alive, "fake hotbench %d still running" % pid


def test_reference_not_finite(top):
    """NaN and Infinity (which json reads) in the reference record: no estimate, no traceback."""
    os.makedirs(os.path.join(top, "results", "reference"))
    for ft, secs in (("NaN", "1"), ("Infinity", "1"), ("1", "Infinity"), ("1", "NaN"),
                     ("1", "-5"), ("1", "true")):
        with open(os.path.join(top, "results", "reference", "bench-status-quick.json"), "w") as f:
            f.write('{"profile": "quick", "calibration": {"first_touch_gbps": %s}, "parts": '
                    '[{"name": "in-process", "status": "ok", "seconds": %s}]}' % (ft, secs))
        rc, out, err = bench(top, ["--profile", "quick"])
        assert rc == 0 and "Traceback" not in err, (ft, secs, rc, err)
        p = parts(status(top))
        want = None if secs not in ("1",) else 1.0
        assert p["in-process"]["expected_seconds"] == want, (ft, secs, p)


def test_failed_part_not_reported_from_an_earlier_run(top):
    """A part of this run that wrote nothing is missing from the report, not read from the file
    an earlier run left (results/latest.json)."""
    rc, out, err = bench(top, ["--profile", "quick"])
    assert rc == 0 and os.path.lexists(os.path.join(top, "results", "latest.json")), (rc, err)
    rc, out, err = bench(top, ["--parts", "in-process,peers,report", "--build", "nowhere"],
                         {"FAKE_PEERS_CHECK": "3"})
    assert rc == 1, (rc, err)
    p = parts(status(top))
    assert p["in-process"]["status"] == "failed" and p["peers"]["status"] == "skipped", p
    argv = json.load(open(os.path.join(top, "results", "REPORT.md")))
    # --e2e: not in this run, and never an earlier run's e2e beside this run's parts
    for flag in ("--run", "--peers", "--e2e"):
        assert flag in argv and not os.path.exists(os.path.join(top, argv[argv.index(flag) + 1])), \
            (flag, argv)


def test_own_failure_keeps_the_others(top):
    """A results/latest.json.tmp left by a run killed while it moved the link, then a part that
    bench.py itself cannot complete: recorded as failed, the other parts still run."""
    os.makedirs(os.path.join(top, "results"))
    open(os.path.join(top, "results", "latest.json.tmp"), "w").close()
    rc, out, err = bench(top, ["--profile", "quick"])
    assert rc == 0 and "Traceback" not in err, (rc, err)
    assert os.path.realpath(os.path.join(top, "results", "latest.json")) == os.path.realpath(
        os.path.join(top, parts(status(top))["in-process"]["output"]))
    os.rename(os.path.join(top, "results", "runs"), os.path.join(top, "results", "old-runs"))
    open(os.path.join(top, "results", "runs"), "w").close()  # a file: no run JSON can go there
    rc, out, err = bench(top, ["--profile", "quick"])
    doc = status(top)
    p = parts(doc)
    assert rc == 1 and "Traceback" not in err and doc["finished"], (rc, err)
    assert p["in-process"]["status"] == "failed" and "bench.py failed" in \
        p["in-process"]["error"] and p["report"]["status"] == "ok", p


def test_partial_run_is_no_reference(top):
    """A run with hotbench arguments (a filter, another profile) records them and its profile as
    hotbench runs it; as a reference record its durations estimate nothing."""
    rc, out, err = bench(top, ["--parts", "in-process", "--", "--hb_profile=quick",
                               "--benchmark_filter=x"])
    assert rc == 0, (rc, err)
    doc = status(top)
    assert doc["profile"] == "quick" and doc["hotbench_args"] == [
        "--hb_profile=quick", "--benchmark_filter=x"], doc
    os.makedirs(os.path.join(top, "results", "reference"))
    shutil.copy(os.path.join(top, "results", "bench-status.json"),
                os.path.join(top, "results", "reference", "bench-status-quick.json"))
    rc, out, err = bench(top, ["--profile", "quick"])
    assert rc == 0 and "is of a partial run" in err, (rc, err)
    assert parts(status(top))["in-process"]["expected_seconds"] is None


FAKE_ALLOC = r"""#!/usr/bin/python3
import sys
out = sys.argv[sys.argv.index("--out") + 1]
assert sys.argv[sys.argv.index("--build") + 1] == "build", sys.argv
open(out, "w").write("{}")
"""

FAKE_REPORT_ALLOC = FAKE_REPORT.replace(
    "import json, os, sys\n",
    "import json, os, sys\nif '--help' in sys.argv:\n    print('usage:\\n  --alloc FILE')\n"
    "    sys.exit(0)\n")


def test_allocators_part(top):
    """With scripts/bench_alloc.py the part runs between in-process and e2e, and its file goes
    to report.py as --alloc when report.py lists --alloc in its help; its budget is expected."""
    for rel, text in (("scripts/bench_alloc.py", FAKE_ALLOC),
                      ("scripts/report.py", FAKE_REPORT_ALLOC)):
        with open(os.path.join(top, rel), "w") as f:
            f.write(text)
        os.chmod(os.path.join(top, rel), 0o755)
    rc, out, err = bench(top, [])
    assert rc == 0, (rc, err)
    doc = status(top)
    p = parts(doc)
    assert [q["name"] for q in doc["parts"]][:4] == ["in-process", "allocators", "limits",
                                                      "e2e"], doc
    alloc = p["allocators"]["output"]
    assert p["allocators"]["status"] == "ok" and alloc.endswith("-alloc.json") and \
        os.path.exists(os.path.join(top, alloc)), p["allocators"]
    argv = json.load(open(os.path.join(top, "results", "REPORT.md")))
    assert argv[argv.index("--alloc") + 1] == alloc, argv
    rc, out, err = bench(top, ["--parts", "allocators"])  # no reference record: unknown
    assert rc == 0 and parts(status(top))["allocators"]["expected_seconds"] is None, err
    os.makedirs(os.path.join(top, "results", "reference"))
    with open(os.path.join(top, "results", "reference", "bench-status.json"), "w") as f:
        json.dump({"profile": "full", "calibration": {"first_touch_gbps": 1.0},
                   "parts": [{"name": "in-process", "status": "ok", "seconds": 2.0}]}, f)
    rc, out, err = bench(top, ["--parts", "in-process,allocators"])  # a record without it
    p = parts(status(top))
    assert rc == 0 and p["allocators"]["expected_seconds"] == 300.0 and \
        p["in-process"]["expected_seconds"] == 2.0 and "at its budget" in err, (p, err)


FAKE_REPORT_LIMITS = FAKE_REPORT.replace(
    "import json, os, sys\n",
    "import json, os, sys\nif '--help' in sys.argv:\n    print('usage:\\n  --limits FILE')\n"
    "    sys.exit(0)\n")


def test_limits_part(top):
    """With scripts/limits.py the part runs after the allocators, its file is copied to
    results/limits.json and goes to report.py as --limits when report.py lists it; a failed
    limits.py leaves results/limits.json as it was."""
    for rel, text in (("scripts/limits.py", FAKE_ALLOC),
                      ("scripts/report.py", FAKE_REPORT_LIMITS)):
        with open(os.path.join(top, rel), "w") as f:
            f.write(text)
        os.chmod(os.path.join(top, rel), 0o755)
    rc, out, err = bench(top, ["--parts", "in-process,limits,report"])
    assert rc == 0, (rc, err)
    p = parts(status(top))
    out = p["limits"]["output"]
    assert p["limits"]["status"] == "ok" and out.endswith("-limits.json"), p["limits"]
    latest = os.path.join(top, "results", "limits.json")
    assert open(latest).read() == open(os.path.join(top, out)).read() == "{}", latest
    argv = json.load(open(os.path.join(top, "results", "REPORT.md")))
    assert argv[argv.index("--limits") + 1] == out, argv
    with open(os.path.join(top, "scripts/limits.py"), "w") as f:
        f.write("import sys\nsys.exit(3)\n")
    with open(latest, "w") as f:
        f.write("kept")
    rc, out, err = bench(top, ["--parts", "limits"])
    p = parts(status(top))
    assert rc == 1 and p["limits"]["status"] == "failed" and open(latest).read() == "kept", p


def main():
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_")]
    failed = 0
    for name, fn in tests:
        top = make_tree()
        try:
            fn(top)
            print("ok   %s" % name)
        except Exception as e:  # report every test, then fail
            failed += 1
            print("FAIL %s: %s: %s" % (name, type(e).__name__, str(e)[:3000]))
        finally:
            shutil.rmtree(top, ignore_errors=True)
    print("%d passed, %d failed" % (len(tests) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

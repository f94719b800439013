#!/usr/bin/python3
"""bench.py - one recorded run of the suite: calibrate, then run its parts, each as a subprocess.

The recording path of `make bench` (--profile full) and `make bench-quick` (--profile quick).
It first calibrates (`hotbench --hb_calibrate`: first-touch and warm-copy GB/s and a CPU probe),
prints the expected duration of each part, then runs the parts in order, streaming their output:

  in-process  hotbench (--hb_profile=quick for the quick profile) with --benchmark_out; the run
              goes to results/runs/<UTC time>-<git sha>.json through a temporary file and a
              rename, results/latest.json moves to it only when hotbench exited 0, then
              scripts/summary.py prints its table. The calibration figures and the machine
              (hb_calib_*, hb_cpu_model, hb_memory, hb_kernel, hb_loadavg) go into its context.
  allocators  scripts/bench_alloc.py --build BUILD --out results/runs/<UTC time>-<git sha>-
              alloc.json (the allocator matrix, `make bench-alloc`; full profile only); when
              this checkout has no scripts/bench_alloc.py the part is skipped with that reason
  limits      scripts/limits.py --build BUILD --out results/runs/<UTC time>-<git sha>-limits.json
              (`make limits`: the fast strategies and their ceilings under callgrind, full
              profile only), copied to results/limits.json when it succeeded; skipped with the
              reason when this checkout has no scripts/limits.py
  e2e         scripts/e2e.sh BUILD (hyperfine, whole processes)
  peers       scripts/peers.py --build BUILD, when `scripts/peers.py --check` finds the runtimes;
              else skipped, with the reason and the install command (scripts/deps.sh --peers)
  report      scripts/report.py --out results --status results/bench-status.json, given the
              JSON files this run wrote (--alloc FILE only when report.py takes it; without
              --status if report.py does not know it); a
              part this run ran without output is reported missing, never taken from an
              earlier run's file

Expected durations (scripts/hotbench/estimate.py has the model and where its constants come
from). Before the parts start, the expected seconds of each part and the total are printed,
with the model's figures; at the end, the actual total and actual/expected.
  in-process  hotbench --benchmark_list_tests (same profile and arguments: a filtered run is
              estimated for what it runs) gives the benchmarks; each is priced from its row in
              the recorded run --reference-run (default results/reference/run.json, matched by
              name, so the full run's rows serve the quick profile too): a benchmark faster
              than its minimum time takes that time on any machine, while a single iteration
              longer than it scales, its first-touch share (the row's minor faults at the
              recording machine's first-touch rate) by that machine's first touch / this one's,
              the rest by its CPU probe / this one's (the clock's MHz for records without a
              probe, else unscaled, said so). A benchmark the record lacks is priced like its
              neighbours (same strategy, else group).
  the others  their seconds in the reference record (results/reference/bench-status.json;
              bench-status-quick.json for the quick profile) scaled by the CPU factor, and by
              the first-touch factor for the share the record states ("first_touch_share" of
              a part; none is recorded yet). Without a calibration here the figures are used
              unscaled; without a reference record of the same profile they are "unknown". A
              part the record does not have is expected at its budget (allocators: 300 s,
              limits: 120 s), and at 0 when it will be skipped.

Progress: while a part runs, a line at least every --progress-every seconds (default 30) with
the time elapsed and remaining. For the in-process part hotbench streams each finished
benchmark (--hb_progress, kept as results/runs/<run>.progress.jsonl): once 5% of the expected
seconds are done, the remaining time is the expected seconds of the benchmarks left times the
measured pace (seconds taken / seconds expected for those done); the other parts have no such
signal and show the estimate. A failed part does not stop the later ones; the report is written
from the parts that succeeded. At the end, the total duration and each part's.

results/bench-status.json, rewritten atomically (temp + rename) at the start and after every
part, so a run that dies midway leaves a truthful record:
  {"schema": "hotbench-bench-status/1", "profile": "full"|"quick", "started": ISO-8601 UTC,
   "finished": ISO-8601 UTC or null, "seconds": wall seconds since the start (float; the
   whole run's once finished), "git_revision", "host",
   "calibration": {"schema": "hotbench-calibration/1", "first_touch_gbps", "warm_copy_gbps",
                   "seconds"} or null,
   "hotbench_args": [the arguments after --: a filtered run's durations estimate nothing],
   "estimate": {"model": [sentences], "expected_seconds": the whole run's, or null when a part
                is unknown, "actual_seconds" and "actual_over_expected" (null until finished),
                "reference", "reference_run": paths, "benchmarks": count listed,
                "unrecorded": count priced by neighbours, "in_process" and "parts":
                {"s_ft", "s_cpu"} the factors used} or null before the plan,
   "parts": [{"name", "status": "ok"|"failed"|"skipped", "exit_code": int|null,
              "error": str|null, "seconds": float|null, "expected_seconds": float|null,
              "output": path of the file it wrote or null, "command": [argv]}]}
"parts" lists the parts finished so far, in order (the report part sees the others). The
finished record is also kept as results/runs/<start, UTC>-bench-status.json: the runs keep each
estimate beside its actual.

Exit status: 0 every part ok or skipped, 1 a part failed, 2 usage, 130 interrupted (Ctrl-C
stops the running part and its children, records it as failed and the rest as skipped).
"""
import argparse
import collections
import datetime
import json
import math
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

from hotbench import estimate, files, machine
from hotbench.git import git as git_in
from hotbench.listing import list_benchmarks
from hotbench.exports import write_run_exports

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
PARTS = ("in-process", "allocators", "limits", "e2e", "peers", "report")
PROFILE_PARTS = {"full": PARTS, "quick": ("in-process", "report")}
RESULTS = "results"
STATUS = os.path.join(RESULTS, "bench-status.json")
CALIBRATION_SCHEMA = "hotbench-calibration/1"
STATUS_SCHEMA = "hotbench-bench-status/1"
INSTALL_PEERS = "scripts/deps.sh --peers"
ALLOC_SCRIPT = os.path.join("scripts", "bench_alloc.py")
LIMITS_SCRIPT = os.path.join("scripts", "limits.py")
LIMITS_LATEST = os.path.join(RESULTS, "limits.json")  # what report.py reads by default
# seconds a part is expected to take while the reference record has no figure for it
PART_BUDGET = {"allocators": 300.0, "limits": 120.0}


def log(msg):
    print("[bench] %s" % msg, file=sys.stderr, flush=True)


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fmt_span(seconds):
    """A duration for a reader: '45 s' below 90 s, else whole minutes."""
    return "%d s" % round(seconds) if seconds < 90 else "%d min" % round(seconds / 60)


def fmt_clock(seconds):
    return "%d:%02d" % divmod(int(seconds), 60)


def git(*args, default):
    """git's stdout in TOP (hotbench.git), or default when git fails or prints nothing."""
    return git_in(TOP, *args) or default


def write_json_atomic(path, doc):
    """The status record's write: hotbench.files, indented by 2."""
    files.write_json_atomic(path, doc, indent=2)


def parse_args(argv):
    """Options, and the hotbench arguments after `--`."""
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(
        prog="scripts/bench.py", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="%(prog)s [options] [-- HOTBENCH_ARGS...]")
    ap.add_argument("--profile", choices=sorted(PROFILE_PARTS), default="full",
                    help="full (default: every part, 1.7 GB inputs) or quick (hotbench's quick "
                    "sizes, then the report)")
    ap.add_argument("--parts", help="comma-separated parts to run, in the fixed order %s "
                    "(default: all for full; in-process,report for quick)" % ",".join(PARTS))
    ap.add_argument("--build", default="build", help="folder of hotbench (default build)")
    ap.add_argument("--e2e-args", default="", help="options for scripts/e2e.sh (E2E_ARGS)")
    ap.add_argument("--reference", help="the durations record the estimates scale (default "
                    "results/reference/bench-status.json, -quick.json for the quick profile)")
    ap.add_argument("--reference-run", metavar="PATH", help="the recorded run JSON whose "
                    "benchmarks price the in-process part one by one (default "
                    "results/reference/run.json; its benchmarks serve every profile: they are "
                    "matched by name)")
    ap.add_argument("--history", metavar="PATH", help="the history database the in-process "
                    "run is appended to (default $HB_HISTORY, else results/history.sqlite; "
                    "docs/history.md)")
    ap.add_argument("--no-history", action="store_true", help="do not record the run in the "
                    "history database")
    ap.add_argument("--progress-every", type=float, default=30.0, metavar="SECONDS",
                    help="a progress line at least this often while a part runs (default 30)")
    a = ap.parse_args(argv)
    parts = PROFILE_PARTS[a.profile] if a.parts is None else a.parts.split(",")
    unknown = [p for p in parts if p not in PARTS]
    if unknown or not parts:
        ap.error("--parts: unknown part(s) %s (parts: %s)" % (",".join(unknown), ",".join(PARTS)))
    a.parts = [p for p in PARTS if p in parts]
    if not 0 < a.progress_every < math.inf:  # nan and inf would mean no progress line at all
        ap.error("--progress-every must be a positive number of seconds")
    a.hotbench_args = extra
    # hotbench takes the last --hb_profile: the profile recorded and estimated is the one it runs
    for arg in extra:
        if arg.startswith("--hb_profile=") and arg.split("=", 1)[1] in PROFILE_PARTS:
            a.profile = arg.split("=", 1)[1]
    a.build = os.path.abspath(a.build)
    if a.build.startswith(TOP + os.sep):  # shown, and recorded, relative to the top
        a.build = os.path.relpath(a.build, TOP)
    if a.reference is None:
        name = "bench-status.json" if a.profile == "full" else "bench-status-%s.json" % a.profile
        a.reference = os.path.join(TOP, RESULTS, "reference", name)
    if a.reference_run is None:
        a.reference_run = os.path.join(TOP, RESULTS, "reference", "run.json")
    return a


def calibrate(hotbench, timeout=300):
    """(calibration dict or None, a sentence for the log)."""
    cmd = [hotbench, "--hb_calibrate"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "calibration unavailable (%s)" % e
    if out.returncode != 0:
        why = (out.stderr.strip().splitlines() or ["exit %d" % out.returncode])[-1]
        return None, "calibration unavailable: `%s` exited %d (%s)" % (
            " ".join(cmd), out.returncode, why)
    try:
        cal = json.loads(out.stdout)
        bad = ([] if cal.get("schema") == CALIBRATION_SCHEMA else ["schema"]) + [
            k for k in ("first_touch_gbps", "warm_copy_gbps", "seconds")
            if not seconds_or_rate(cal.get(k))]
        if "cpu_mops" in cal and not seconds_or_rate(cal["cpu_mops"]):
            bad.append("cpu_mops")
        if bad or cal["first_touch_gbps"] <= 0:
            raise ValueError("bad " + ", ".join(bad or ["first_touch_gbps"]))
    except (ValueError, AttributeError) as e:
        return None, "calibration unavailable: unreadable output of `%s` (%s)" % (
            " ".join(cmd), e)
    return cal, "calibration: first touch %.3g GB/s, warm copy %.3g GB/s%s (%.1f s)" % (
        cal["first_touch_gbps"], cal["warm_copy_gbps"],
        ", CPU probe %.4g Msteps/s" % cal["cpu_mops"] if "cpu_mops" in cal else "",
        cal["seconds"])


def seconds_or_rate(v):
    """True for a JSON number usable as seconds or GB/s: finite and >= 0 (json reads NaN and
    Infinity, which would make every printed duration fail)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


def listed(hotbench, profile, extra):
    """The benchmark names the in-process part will run, in order (hotbench
    --benchmark_list_tests with the profile and the hotbench arguments: nothing runs), or None
    when hotbench cannot list them."""
    got = list_benchmarks(hotbench, *((["--hb_profile=" + profile] if profile != "full" else [])
                                      + list(extra)))
    names = got.names
    return names if got.ok and names and all("/" in n for n in names) else None


def read_reference_run(path):
    """(rows, calibration dict) of the recorded run JSON at path (estimate.run_rows; the
    calibration from its context: hb_calib_first_touch_gbps, hb_calib_cpu_mops, mhz_per_cpu), or
    (None, a sentence why not)."""
    rel = os.path.relpath(path, TOP)
    try:
        with open(path) as f:
            doc = json.load(f)
        rows = estimate.run_rows(doc, rel)
    except (OSError, ValueError) as e:
        return None, "no per-benchmark record (%s: %s)" % (rel, e)
    ctx = doc.get("context") if isinstance(doc.get("context"), dict) else {}

    def num(key):
        try:
            v = float(ctx.get(key))
        except (TypeError, ValueError):
            return None
        return v if estimate.finite(v, True) else None

    return rows, {"first_touch_gbps": num("hb_calib_first_touch_gbps"),
                  "cpu_mops": num("hb_calib_cpu_mops"), "mhz": num("mhz_per_cpu")}


def read_reference(reference, profile):
    """(the reference durations record (dict) or None, a sentence why not)."""
    rel = os.path.relpath(reference, TOP)
    if not os.path.exists(reference):
        return None, "no reference record %s" % rel
    try:
        with open(reference) as f:
            ref = json.load(f)
        if not all(isinstance(p["name"], str) for p in ref["parts"]):
            raise ValueError("a part without a name")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        return None, "unreadable reference record %s: %s" % (rel, e)
    if ref.get("profile") != profile:
        return None, "the reference record %s is of profile %s" % (rel, ref.get("profile"))
    if ref.get("hotbench_args"):
        return None, "the reference record %s is of a partial run, hotbench arguments %s" % (
            rel, ref.get("hotbench_args"))
    return ref, None


def per_benchmark(names, reference_run, here):
    """The in-process part priced benchmark by benchmark (estimate.benchmarks): ({"names",
    "each": [seconds]} or None when the recorded run is unusable, a sentence of the model or of
    why not, the summary's fields). here: this machine's calibration with "mhz", or None."""
    rel = os.path.relpath(reference_run, TOP)
    rows, rcal = read_reference_run(reference_run)
    if rows is None:
        return None, "in-process: %s" % rcal, {}
    try:
        each, info = estimate.benchmarks(names, rows, rcal, here)
    except estimate.EstimateError as e:
        return None, "in-process: %s" % e, {}
    if here is None:
        info["notes"] = ["unscaled: no calibration on this machine"]
    more = {"reference_run": rel, "benchmarks": len(names), "unrecorded": info["unrecorded"],
            "in_process": {"s_ft": round(info["s_ft"], 4), "s_cpu": round(info["s_cpu"], 4)}}
    line = ("in-process: %d benchmarks, each priced from %s (%s%s): a benchmark faster than its "
            "minimum time takes that time on any machine, the rest and the untimed work scale"
            % (len(names), rel, "; ".join(info["notes"]),
               "; %d not in the record, priced like their neighbours" % info["unrecorded"]
               if info["unrecorded"] else ""))
    return {"names": names, "each": each}, line, more


def expected_durations(parts, reference, profile, cal, names=None, reference_run=None):
    """Each part's expected seconds on this machine (hotbench/estimate.py has the model).

    parts: the part names; reference: the durations record (bench-status.json of a run);
    cal: this machine's calibration (with "mhz") or None; names: the in-process benchmarks in
    run order (listed()) or None; reference_run: the recorded run JSON of those benchmarks.
    The in-process part is the sum of its benchmarks' predictions when names and the recorded
    run are there, else the record's in-process seconds scaled like the other parts: by the CPU
    factor, and by the first-touch factor for the share the record states ("first_touch_share"
    of the part, 0 when absent). Returns ({part: seconds or None}, [sentences of the model],
    {"names", "each": [seconds per benchmark]} or None, the estimate's summary dict)."""
    unknown = dict.fromkeys(parts)
    ref, why = read_reference(reference, profile)
    here = dict(cal or {}, mhz=machine.cpu_mhz())
    summary = {"reference": os.path.relpath(reference, TOP), "reference_run": None}
    rows_plan, lines = None, []
    if "in-process" in parts and names and reference_run:
        rows_plan, line, more = per_benchmark(names, reference_run, here if cal else None)
        lines.append(line)
        summary.update(more)
    if ref is None:
        out = dict(unknown)
        if rows_plan:
            out["in-process"] = sum(rows_plan["each"])
        lines.append("the other parts: unknown (%s)" % why if rows_plan else
                     "unknown (%s)" % why)
        return out, lines, rows_plan, summary
    s_ft, s_cpu, notes = estimate.scales(ref.get("calibration") or {}, here if cal else None)
    if not cal:
        notes = ["unscaled: no calibration on this machine"]
    summary["parts"] = {"s_ft": round(s_ft, 4), "s_cpu": round(s_cpu, 4)}
    ref_parts = {p["name"]: p for p in ref["parts"]}
    out = {}
    for p in parts:
        r = ref_parts.get(p)
        ok = r and r.get("status") == "ok" and seconds_or_rate(r.get("seconds"))
        share = r.get("first_touch_share") if ok and seconds_or_rate(
            r.get("first_touch_share")) else 0.0
        out[p] = (estimate.part_seconds(r["seconds"], s_ft, s_cpu, share) if ok else
                  None if r else PART_BUDGET.get(p))
    if rows_plan:
        out["in-process"] = sum(rows_plan["each"])
    others = [p for p in parts if p != "in-process" or not rows_plan]
    if others:
        lines.append("%s: the seconds of %s, scaled by the CPU factor (and the first-touch "
                     "factor for a share the record states): %s" % (
                         ", ".join(others), os.path.relpath(reference, TOP), "; ".join(notes)))
    return out, lines, rows_plan, summary


def progress_line(name, elapsed, expected, later, pace=None):
    """'in-process 12:30 elapsed, ~20 min remaining of ~33 expected; total ~45 min left'.
    pace: (benchmarks done, benchmarks, seconds remaining, actual/expected factor or None) from
    the part's measured pace (estimate.Pace), or None: the estimate alone."""
    head = "%s %s elapsed" % (name, fmt_clock(elapsed))
    if expected is None:
        return head + " (expected duration unknown)"
    if pace is not None:
        done, count, left, factor = pace
        head += ", %d/%d benchmarks" % (done, count)
        if factor is not None:
            line = "%s, ~%s remaining at the measured pace (x%.2f the estimate; ~%s expected " \
                   "at the start)" % (head, fmt_span(left), factor, fmt_span(expected))
            if later is None:
                return line + "; the later parts: unknown"
            return line + "; total ~%s left" % fmt_span(left + later)
    left = max(expected - elapsed, 0.0)
    if elapsed <= expected:
        line = "%s, ~%s remaining of ~%s expected" % (head, fmt_span(left), fmt_span(expected))
    else:
        line = "%s, over the estimate of ~%s by %s" % (head, fmt_span(expected),
                                                       fmt_span(elapsed - expected))
    if later is None:
        return line + "; the later parts: unknown"
    return line + "; total ~%s left" % fmt_span(left + later)


class ProgressFile:
    """Follows hotbench's --hb_progress file (one JSON line per benchmark done) into an
    estimate.Pace; lines not yet complete or not readable are left for the next poll."""

    def __init__(self, path, pace):
        self.path, self.pace, self.offset = path, pace, 0

    def poll(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1
        self.offset += end
        for line in data[:end].splitlines():
            try:
                d = json.loads(line)
                self.pace.done(d["row"], float(d["seconds"]))
            except (ValueError, KeyError, TypeError):
                continue


def copy_stderr(pipe, tail):
    """Passes the child's stderr through, keeping its last lines for the status record."""
    for raw in iter(pipe.readline, b""):
        sys.stderr.buffer.write(raw)
        sys.stderr.buffer.flush()
        tail.append(raw.decode(errors="replace").rstrip())
    pipe.close()


def stop(proc):
    """Ctrl-C: SIGINT to the child's process group, SIGKILL if it is still there after 10 s."""
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        for sig, grace in ((signal.SIGINT, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=grace)
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue
        try:  # what the child left running in its group
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    finally:
        signal.signal(signal.SIGINT, old)


def run_child(cmd, every, progress, env=None):
    """Runs cmd in its own process group from the top, stdout passed through, stderr copied.
    progress(elapsed) gives the line printed every `every` seconds while it runs.
    Returns (exit code or None when it did not start, last lines of stderr, seconds,
    interrupted)."""
    tail = collections.deque(maxlen=12)
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, cwd=TOP, env=env, stdin=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        return None, ["cannot run %s: %s" % (cmd[0], e)], 0.0, False
    reader = threading.Thread(target=copy_stderr, args=(proc.stderr, tail), daemon=True)
    reader.start()
    interrupted = False
    try:
        while True:
            try:
                proc.wait(timeout=every)
                break
            except subprocess.TimeoutExpired:
                log(progress(time.monotonic() - t0))
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted: stopping %s" % cmd[0])
        stop(proc)
    reader.join(timeout=5)  # a grandchild may still hold the pipe
    return proc.returncode, list(tail), time.monotonic() - t0, interrupted


def machine_context(cal):
    """--benchmark_context's value: the machine and the calibration. google-benchmark splits it
    on ',' and '=', so those are replaced in the values."""
    def clean(s):
        return " ".join(s.replace(",", ";").replace("=", ":").split()) or "unknown"

    cpu, mem = machine.cpu_model(), machine.memory_text() or ""
    load = machine.loadavg()
    ctx = [("hb_cpu_model", cpu), ("hb_memory", mem),
           ("hb_kernel", "%s %s" % (os.uname().sysname, machine.kernel())),
           ("hb_loadavg", " ".join("%.2f" % x for x in load) if load else "")]
    if cal:
        ctx += [("hb_calib_first_touch_gbps", "%.4g" % cal["first_touch_gbps"]),
                ("hb_calib_warm_copy_gbps", "%.4g" % cal["warm_copy_gbps"])]
        if seconds_or_rate(cal.get("cpu_mops")):
            ctx.append(("hb_calib_cpu_mops", "%.4g" % cal["cpu_mops"]))
    return ",".join("%s=%s" % (k, clean(v)) for k, v in ctx)


def record_history(a, run_json):
    """Appends the run JSON (path relative to TOP) to the history database as kind 'bench'
    ('bench-quick' for the quick profile) unless --no-history; a failure is a warning on stderr,
    never the run's failure (hotbench/history/live.py)."""
    try:
        from hotbench.history import live
        live.append(TOP, live.target(TOP, a), "bench" if a.profile == "full" else
                    "bench-" + a.profile, run_json=os.path.join(TOP, run_json))
    except Exception as e:  # the package itself missing or broken
        log("history: WARNING: the run was not recorded: %s: %s" % (type(e).__name__, e))


def absent(part):
    """A path that holds no file, for report.py's option of a part this run attempted without
    output (failed or skipped): the report then says the part is missing instead of reading
    the file an earlier run left behind (results/latest.json and the like)."""
    return os.path.join(RESULTS, "runs", "none: %s wrote nothing in this run" % part)


def run_files():
    folder = os.path.join(TOP, RESULTS, "runs")
    return set(os.listdir(folder)) if os.path.isdir(folder) else set()


def new_output(before):
    """The newest file a part added to results/runs/ (temporary dot-files aside), or None."""
    added = [os.path.join(RESULTS, "runs", n) for n in run_files() - before
             if not n.startswith(".")]
    return max(added, key=os.path.getmtime) if added else None


class Bench:
    """One run of the parts, and its status record."""

    def __init__(self, a):
        self.a = a
        self.hotbench = os.path.join(a.build, "hotbench")
        self.rev = git("describe", "--always", "--dirty", "--abbrev=12", default="unknown")
        self.expected = dict.fromkeys(a.parts)
        self.rows_plan = None  # {"names", "each"}: the in-process benchmarks' predictions
        self.interrupted = False
        self.t0 = time.monotonic()
        self.doc = {"schema": STATUS_SCHEMA, "profile": a.profile, "started": utc_now(),
                    "finished": None, "seconds": 0.0, "git_revision": self.rev,
                    "host": socket.gethostname(), "calibration": None,
                    "hotbench_args": a.hotbench_args, "estimate": None, "parts": []}

    def write_status(self, final=False):
        """Rewrites the status record; final: the seconds stay those already recorded."""
        if not final:
            self.doc["seconds"] = round(time.monotonic() - self.t0, 3)
        write_json_atomic(os.path.join(TOP, STATUS), self.doc)

    def durations(self):
        """'total 23 min: in-process 14 min, e2e 5 min, ...' from the parts recorded so far."""
        each = ["%s %s" % (p["name"], fmt_span(p["seconds"])) for p in self.doc["parts"]
                if p["seconds"] is not None]
        return "total %s%s" % (fmt_span(self.doc["seconds"]), ": " + ", ".join(each)
                               if each else "")

    def plan(self):
        """Calibrates, lists the in-process benchmarks, prints each part's expected duration and
        the model behind it, and records them (doc["estimate"])."""
        cal, msg = calibrate(self.hotbench)
        self.doc["calibration"] = cal
        log(msg)
        names = None
        if "in-process" in self.a.parts:
            names = listed(self.hotbench, self.a.profile, self.a.hotbench_args)
            if names is None:
                log("in-process: hotbench did not list its benchmarks "
                    "(--benchmark_list_tests): the part is estimated as a whole")
        self.expected, lines, self.rows_plan, summary = expected_durations(
            self.a.parts, self.a.reference, self.a.profile, cal, names, self.a.reference_run)
        log("expected duration: " + lines[0])
        for line in lines[1:]:
            log("  " + line)
        for part, script in (("allocators", ALLOC_SCRIPT), ("limits", LIMITS_SCRIPT)):
            if part in self.expected and not os.path.exists(os.path.join(TOP, script)):
                self.expected[part] = 0.0  # skipped: no script to run
        budgeted = [p for p in self.a.parts if p in PART_BUDGET and
                    self.expected[p] == PART_BUDGET[p]]
        if budgeted:
            log("  (%s: not in the reference record; expected at its budget)"
                % ", ".join(budgeted))
        for p in self.a.parts:
            e = self.expected[p]
            log("  %-10s %s" % (p, "~" + fmt_span(e) if e is not None else "unknown"))
        known = [e for e in self.expected.values() if e is not None]
        total = None
        if known and len(known) == len(self.expected):
            # the whole run's: the calibration and listing so far, then the parts
            total = time.monotonic() - self.t0 + sum(known)
            log("  %-10s ~%s (with the calibration's %s)" % (
                "total", fmt_span(total), fmt_span(time.monotonic() - self.t0)))
        if self.a.hotbench_args and not self.rows_plan and "in-process" in self.a.parts:
            log("hotbench arguments %s: the in-process estimate assumes the whole profile"
                % " ".join(self.a.hotbench_args))
        summary.update(model=lines, expected_seconds=round(total, 1) if total is not None
                       else None, actual_seconds=None, actual_over_expected=None)
        self.doc["estimate"] = summary
        self.write_status()

    def later(self, name):
        """Expected seconds of the parts after `name`, or None when one is unknown."""
        rest = list(self.a.parts)[list(self.a.parts).index(name) + 1:]
        vals = [self.expected[p] for p in rest]
        return None if None in vals else sum(vals)

    def run(self, name, cmd, env=None, follow=None):
        """Runs part name's command with progress lines; follow: a ProgressFile whose measured
        pace recomputes the remaining time (None: the estimate alone)."""
        log("%s: %s" % (name, " ".join(shlex.quote(c) for c in cmd)))
        expected, later = self.expected.get(name), self.later(name)

        def line(elapsed):
            pace = None
            if follow is not None and expected is not None:
                follow.poll()
                left, factor = follow.pace.remaining(elapsed)
                pace = (follow.pace.done_count, len(follow.pace.expected), left, factor)
            return progress_line(name, elapsed, expected, later, pace)

        rc, tail, secs, intr = run_child(cmd, self.a.progress_every, line, env)
        self.interrupted = self.interrupted or intr
        return rc, tail, secs

    def record(self, name, cmd, rc, tail, secs, output, status=None, error=None):
        if status is None:
            status = "ok" if rc == 0 and not self.interrupted else "failed"
        if status == "failed":
            if error is None:
                error = "\n".join(tail[-10:]) if tail else "exited with status %s" % rc
            if self.interrupted:
                error = "interrupted (Ctrl-C)\n" + error
        self.doc["parts"].append({
            "name": name, "status": status, "exit_code": rc, "error": error,
            "seconds": round(secs, 3) if secs is not None else None,
            "expected_seconds": (round(self.expected[name], 1)
                                 if self.expected.get(name) is not None else None),
            "output": output, "command": cmd})
        self.write_status()
        exp = self.expected.get(name)
        log("%s: %s%s%s" % (name, status, " in %s" % fmt_span(secs) if secs is not None else "",
                            " (expected ~%s: x%.2f)" % (fmt_span(exp), secs / exp)
                            if secs is not None and exp else ""))

    def outputs(self):
        return {p["name"]: p["output"] for p in self.doc["parts"] if p["output"]}

    def in_process(self):
        sha = git("rev-parse", "--short=12", "HEAD", default="nogit")
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        final = os.path.join(RESULTS, "runs", "%s-%s.json" % (stamp, sha))
        tmp = os.path.join(RESULTS, "runs", ".%s-%s.json.tmp" % (stamp, sha))
        os.makedirs(os.path.join(TOP, RESULTS, "runs"), exist_ok=True)
        cmd = [self.hotbench, "--benchmark_out=" + tmp, "--benchmark_out_format=json",
               "--benchmark_display_aggregates_only=true",
               "--benchmark_context=" + machine_context(self.doc["calibration"])]
        follow = None
        if self.rows_plan and hotbench_takes(self.hotbench, "--hb_progress"):
            pace_tmp = os.path.join(RESULTS, "runs", ".%s-%s.progress.jsonl" % (stamp, sha))
            cmd.append("--hb_progress=" + pace_tmp)
            follow = ProgressFile(os.path.join(TOP, pace_tmp), estimate.Pace(
                self.rows_plan["names"], self.rows_plan["each"]))
        if self.a.profile != "full":
            cmd.append("--hb_profile=" + self.a.profile)
        cmd += self.a.hotbench_args
        # the chunked bodies of the full profile's largest sizes are cached (cases/bufgrow,
        # BG_CACHE_MIN); the quick profile has none of those sizes, so nothing is written there
        log("in-process: writing %s%s" % (final, " (its largest inputs cached in data/)"
                                          if self.a.profile == "full" else ""))
        rc, tail, secs = self.run("in-process", cmd, dict(os.environ, HB_GIT_REV=self.rev),
                                  follow)
        if follow is not None and os.path.exists(follow.path):
            # each benchmark's finishing time, kept beside the run (the model's data)
            os.replace(follow.path, os.path.join(TOP, final[:-len(".json")] + ".progress.jsonl"))
        output = error = None
        if os.path.exists(tmp) and os.path.getsize(tmp) > 0:
            os.replace(tmp, final)
            output = final
            write_run_exports(os.path.join(TOP, final), log)  # <run>.exports/: docs/ci.md
            if rc == 0 and not self.interrupted:
                files.point_latest(os.path.join(RESULTS, "latest.json"),
                                   os.path.join(TOP, final))
                log("in-process: results in %s (results/latest.json points to it)" % final)
                record_history(self.a, final)
            else:
                log("in-process: results in %s; hotbench FAILED (see above), so "
                    "results/latest.json still points to the last complete run" % final)
                error = "hotbench exited %s; its run JSON is kept in %s" % (rc, final)
                error += ("\n" + "\n".join(tail[-10:])) if tail else ""
            if not self.interrupted:
                subprocess.run([PYTHON, os.path.join("scripts", "summary.py"), final], cwd=TOP)
        else:
            if os.path.exists(tmp):
                os.remove(tmp)
            log("in-process: the run wrote no results")
            if rc == 0:
                error = "hotbench exited 0 but wrote no run JSON"
        self.record("in-process", cmd, rc, tail, secs, output, error=error,
                    status="failed" if error else None)

    def script_part(self, name, script, suffix, missing):
        """Runs `script --build BUILD --out results/runs/<UTC>-<sha>-<suffix>.json` as part name;
        skipped, with "<script> is not in this checkout: <missing>", when the script is absent.
        Returns the output's path when the script exited 0 and wrote it, else None."""
        sha = git("rev-parse", "--short=12", "HEAD", default="nogit")
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        out = os.path.join(RESULTS, "runs", "%s-%s-%s.json" % (stamp, sha, suffix))
        cmd = [PYTHON, script, "--build", self.a.build, "--out", out]
        if not os.path.exists(os.path.join(TOP, script)):
            error = "%s is not in this checkout: %s" % (script, missing)
            log("%s: skipped: %s" % (name, error))
            self.record(name, cmd, None, [], None, None, status="skipped", error=error)
            return None
        os.makedirs(os.path.join(TOP, RESULTS, "runs"), exist_ok=True)
        rc, tail, secs = self.run(name, cmd)
        made = os.path.exists(os.path.join(TOP, out))
        self.record(name, cmd, rc, tail, secs, out if made else None)
        return out if rc == 0 and made else None

    def allocators(self):
        """The allocator matrix (scripts/bench_alloc.py, `make bench-alloc`), writing
        results/runs/<UTC>-<sha>-alloc.json."""
        self.script_part("allocators", ALLOC_SCRIPT, "alloc", "no allocator matrix")

    def limits(self):
        """The fast strategies' instruction counts under callgrind (scripts/limits.py, `make
        limits`) into results/runs/<UTC>-<sha>-limits.json, copied to results/limits.json when
        it succeeded."""
        out = self.script_part("limits", LIMITS_SCRIPT, "limits", "no instruction counts")
        if out:
            shutil.copyfile(os.path.join(TOP, out), os.path.join(TOP, LIMITS_LATEST))

    def e2e(self):
        cmd = [os.path.join("scripts", "e2e.sh")] + shlex.split(self.a.e2e_args) + [self.a.build]
        before = run_files()
        rc, tail, secs = self.run("e2e", cmd)
        self.record("e2e", cmd, rc, tail, secs, new_output(before))

    def peers(self):
        check = [PYTHON, os.path.join("scripts", "peers.py"), "--check", "--build", self.a.build]
        out = subprocess.run(check, cwd=TOP, capture_output=True, text=True)
        if out.returncode != 0:
            why = " ".join(out.stderr.split()) or "exit %d" % out.returncode
            error = "runtimes not installed: %s; install them with %s" % (why, INSTALL_PEERS)
            log("peers: skipped: " + error)
            self.record("peers", check, out.returncode, [], None, None, status="skipped",
                        error=error)
            return
        cmd = [PYTHON, os.path.join("scripts", "peers.py"), "--build", self.a.build]
        if self.a.profile == "quick":
            cmd.append("--quick")
        before = run_files()
        rc, tail, secs = self.run("peers", cmd)
        self.record("peers", cmd, rc, tail, secs, new_output(before))

    def report(self):
        """report.py on the JSON files this run wrote, with the status record (without --status
        if report.py predates it). A part this run attempted without output, and the e2e and
        peers parts when this run left them out, get a path that holds no file: the report says
        they are missing instead of showing an earlier run's; without an in-process part of its
        own the report takes the latest run."""
        flags = {"in-process": "--run", "e2e": "--e2e", "peers": "--peers"}
        cmd = [PYTHON, os.path.join("scripts", "report.py"), "--out", RESULTS]
        done = {p["name"]: p for p in self.doc["parts"]}
        if "limits" in done and report_takes(cmd[1], "--limits"):
            flags["limits"] = "--limits"
        if "allocators" in done and report_takes(cmd[1], "--alloc"):
            flags["allocators"] = "--alloc"
        elif "allocators" in done:
            log("report: report.py does not take --alloc yet: the allocator matrix is not in "
                "the report")
        for part, flag in flags.items():
            if part in done:
                cmd += [flag, done[part]["output"] or absent(part)]
            elif part != "in-process":
                cmd += [flag, absent(part)]
        started = time.time()
        rc, tail, secs = self.run("report", cmd + ["--status", STATUS])
        if rc == 2 and any("--status" in line for line in tail) and not self.interrupted:
            log("report: report.py does not take --status; again without it")
            rc, tail, more = self.run("report", cmd)
            secs += more
        else:
            cmd += ["--status", STATUS]
        md = os.path.join(RESULTS, "REPORT.md")
        fresh = os.path.exists(md) and os.path.getmtime(md) >= started - 1
        self.record("report", cmd, rc, tail, secs, md if fresh and rc == 0 else None)

    def skip_rest(self, name, why):
        self.record(name, [], None, [], None, None, status="skipped", error=why)


def hotbench_takes(hotbench, option):
    """True when `hotbench --help` lists option (a build older than it does not)."""
    try:
        out = subprocess.run([hotbench, "--help"], capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and option in out.stdout


def report_takes(script, option):
    """True when `script --help` (report.py) lists option."""
    try:
        out = subprocess.run([PYTHON, script, "--help"], cwd=TOP, capture_output=True,
                             text=True, timeout=120, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and option in out.stdout.split()


def keep_status(doc):
    """Copies the finished status record to results/runs/<start, UTC>-bench-status.json, so that
    the runs keep every estimate beside its actual (the record itself is rewritten by the next
    run). A failure is a warning: the run's results are written already."""
    stamp = doc["started"].replace("-", "").replace(":", "")
    path = os.path.join(TOP, RESULTS, "runs", "%s-bench-status.json" % stamp)
    try:
        write_json_atomic(path, doc)
    except OSError as e:
        log("WARNING: the status record was not kept in %s: %s" % (path, e))


def on_term(signum, frame):
    raise KeyboardInterrupt


def main(argv):
    a = parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):  # stop the children as Ctrl-C does
        signal.signal(sig, on_term)
    os.chdir(TOP)
    b = Bench(a)
    b.write_status()
    log("profile %s, parts %s; status in %s" % (a.profile, ",".join(a.parts), STATUS))
    steps = {"in-process": b.in_process, "allocators": b.allocators, "limits": b.limits,
             "e2e": b.e2e,
             "peers": b.peers, "report": b.report}
    try:
        b.plan()
    except KeyboardInterrupt:
        b.interrupted = True
    for name in a.parts:
        if b.interrupted:
            b.skip_rest(name, "not run: interrupted (Ctrl-C)")
            continue
        try:
            steps[name]()
        except KeyboardInterrupt:  # between children: the part is recorded as interrupted
            b.interrupted = True
            if name not in {p["name"] for p in b.doc["parts"]}:
                b.record(name, [], None, [], None, None, status="failed")
        except Exception as e:  # bench.py's own failure (a file it cannot write): this part only
            log("%s: internal error: %s: %s" % (name, type(e).__name__, e))
            if name not in {p["name"] for p in b.doc["parts"]}:
                b.record(name, [], None, [], None, None, status="failed",
                         error="scripts/bench.py failed: %s: %s" % (type(e).__name__, e))
    b.doc["finished"] = utc_now()
    b.write_status()
    est = b.doc.get("estimate") or {}
    if est.get("expected_seconds"):
        est["actual_seconds"] = b.doc["seconds"]
        est["actual_over_expected"] = round(b.doc["seconds"] / est["expected_seconds"], 3)
        b.write_status(final=True)
    keep_status(b.doc)
    failed = [p["name"] for p in b.doc["parts"] if p["status"] == "failed"]
    skipped = [p["name"] for p in b.doc["parts"] if p["status"] == "skipped"]
    log("done: %s; %s%s" % (
        "FAILED: " + ", ".join(failed) if failed else "every part ok",
        "skipped: %s; " % ", ".join(skipped) if skipped else "", "status in " + STATUS))
    log("duration: " + b.durations())
    if est.get("expected_seconds"):
        log("expected: ~%s; actual/expected x%.2f (both in %s, \"estimate\")" % (
            fmt_span(est["expected_seconds"]), est["actual_over_expected"], STATUS))
    if b.interrupted:
        return 130
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

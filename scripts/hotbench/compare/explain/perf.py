"""perf - sampled stacks of one benchmark with Linux perf, the second folded source of an
explanation where time, not instructions, decided the row (a memory-bound change callgrind's
instruction counts cannot see).

`perf record -e cpu-clock` (a software event: these VMs expose no hardware counters) samples the
process at SAMPLE_HZ with DWARF call graphs (the builds keep no frame pointers; 16 KiB of stack
a sample: with 8 KiB google-benchmark's frames cut every stack short of hb_main), while
hotbench runs the benchmark for about SECONDS (google-benchmark's estimate of the iterations
runs before: 1-3 s in all on the project's VM); `perf script` prints each sample's stack, leaf
first, one "<address> <symbol> (<object>)" line a frame and a blank line after each sample
(perf-script(1)), which fold() turns into folded stacks as Brendan Gregg's stackcollapse-perf.pl
does: frames root first, an unknown symbol named by its object ("[libbenchmark.so.1.7.1]"),
kernel frames marked "_[k]". Every sample of the process counts, its set-up and verification
included (22 of 1452 samples of a 1000-row parse at 1 s); each run's samples are scaled to the
CPU time per iteration google-benchmark measured in that run, so that a frame's cost reads as
nanoseconds per iteration and the two builds compare (a uniform slowdown shows, as it would not
in shares).

available() says whether perf works here at all: not installed, or the kernel refuses
(perf_event_paranoid, a container without the capability) — the reason then goes into the table.
"""

import os
import shutil
import subprocess
import tempfile
import time

from ...runjson import Run
from ..trials import names_filter
from .profile import environment, run_logged

SAMPLE_HZ = 999
SECONDS = 0.5
TIMEOUT_S = 40.0


class PerfError(Exception):
    """perf could not sample the benchmark; the message says why."""


def first_reason(text):
    """The line of perf's output that says why it failed (the paranoid setting, a missing
    permission), else its first non-empty line, at most 160 characters."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for key in ("perf_event_paranoid", "Permission", "permission", "not supported",
                "No such", "Error"):
        for l in lines:
            if key in l and l.rstrip(":") != "Error":
                return l[:160]
    return (lines[0] if lines else "no output")[:160]


def available():
    """(True, None) when `perf record -e cpu-clock -g -- true` works here, else (False, why)."""
    perf = shutil.which("perf")
    if not perf:
        return False, "perf is not installed (Debian package linux-perf)"
    work = tempfile.mkdtemp(prefix="hb-perf-")
    try:
        p = subprocess.run([perf, "record", "-q", "-e", "cpu-clock", "-g", "-o",
                            os.path.join(work, "p.data"), "--", "true"],
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            return False, "perf record failed: " + first_reason(p.stderr + p.stdout)
        return True, None
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, "perf record failed: %s" % e
    finally:
        shutil.rmtree(work, ignore_errors=True)


def frame_name(line):
    """The name of one frame line of perf script ("<addr> <sym> (<dso>)"), or None for the
    unwinder's end marker."""
    parts = line.strip().split(None, 1)
    if len(parts) < 2:
        return None
    addr, rest = parts
    sym, _, dso = rest.rpartition(" (")
    dso = dso.rstrip(")")
    if not sym:
        sym, dso = rest, ""
    if sym == "[unknown]":
        if dso in ("[unknown]", "") and addr.strip("f") == "":
            return None
        return "[%s]" % os.path.basename(dso) if dso and dso != "[unknown]" else "[unknown]"
    if "+0x" in sym:
        sym = sym.rsplit("+0x", 1)[0]
    return sym + "_[k]" if dso.startswith("[kernel") else sym


def fold(lines):
    """{(frame, ...): samples} of perf script's output lines (the module's format), root
    first."""
    out, stack = {}, []

    def flush():
        if stack:
            key = tuple(reversed(stack))
            out[key] = out.get(key, 0) + 1
        del stack[:]

    in_sample = False
    for line in lines:
        if not line.strip():
            flush()
            in_sample = False
        elif line[0] in " \t":
            if in_sample:
                name = frame_name(line)
                if name:
                    stack.append(name)
        else:
            flush()
            in_sample = True
    flush()
    return out


def record(binary, name, settings, arm_env, dest, seconds=SECONDS, timeout_s=TIMEOUT_S):
    """Samples benchmark name of binary for about seconds; returns (its folded stacks
    {(frame, ...): samples}, the run's CPU seconds per iteration). dest: a path prefix for the
    logs (dest + ".log", + ".script.log"); perf's data file is removed. perf record and perf
    script together are stopped after timeout_s. Errors: PerfError."""
    t0 = time.monotonic()
    work = tempfile.mkdtemp(prefix="hb-perf-")
    data = os.path.join(work, "perf.data")
    run_json = os.path.join(work, "run.json")
    try:
        cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(SAMPLE_HZ),
               "--call-graph", "dwarf,16384", "-o", data, "--", binary,
               "--hb_profile=" + settings["profile"], "--hb_budget=%g" % settings["budget_s"],
               "--hb_repetitions=1", "--benchmark_min_time=%g" % seconds,
               "--benchmark_filter=" + names_filter([name]), "--benchmark_out=" + run_json,
               "--benchmark_out_format=json"]
        rc = run_logged(cmd, environment(settings.get("env"), arm_env), dest + ".log",
                        timeout_s)
        if rc is None:
            raise PerfError("perf record stopped after %.0f s (%s.log)" % (timeout_s, dest))
        if rc not in (0, 1) or not os.path.exists(data) or not os.path.exists(run_json):
            raise PerfError("perf record failed (exit %s), see %s.log" % (rc, dest))
        p = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym,dso"],
                           capture_output=True, text=True,
                           timeout=max(1.0, timeout_s - (time.monotonic() - t0)))
        if p.returncode != 0:
            with open(dest + ".script.log", "w") as f:
                f.write(p.stderr)
            raise PerfError("perf script failed (exit %d), see %s.script.log" % (
                p.returncode, dest))
        stacks = fold(p.stdout.splitlines())
        try:
            times = [r["cpu"] for r in Run(run_json).rows if r["name"] == name] or [None]
        except (OSError, ValueError, KeyError) as e:
            raise PerfError("the run's JSON cannot be read: %s (%s.log)" % (e, dest))
        if not stacks or not times[0]:
            raise PerfError("perf recorded no sample, or the run no time (%s.log)" % dest)
        return stacks, times[0]
    except subprocess.TimeoutExpired:
        raise PerfError("perf record and script took over %.0f s" % timeout_s)
    finally:
        shutil.rmtree(work, ignore_errors=True)

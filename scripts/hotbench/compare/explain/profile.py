"""profile - one benchmark of one hotbench binary under callgrind, the way the compare's
instruction check counts it (compare/checks.py -> hotbench/callgrind.py measure_instructions):
--instr-atstart=no (harness/hb_shim.cc starts instrumentation at the timed loop's first
iteration and dumps at its end, labelled "hb:<family>|<args>|<iterations>"), one iteration
(--benchmark_min_time=1e-9, --hb_repetitions=1), the compare's profile, budget and environment
(glibc's malloc thresholds pinned) plus the arm's own (HB_INJECT, say), and the libraries' hash
salts fixed ($HB_HASH_SALT, hotbench/callgrind.py FIXED_SALT), so that two runs of one binary count
the same. --dump-instr=yes adds instruction addresses, from which callgrind.py takes each
function's first line.

The dump of the benchmark asked for (the one google-benchmark reported; its iteration-count
estimates dump too) is copied to a file the caller names and parsed (callgrind.py).
"""

import glob
import os
import shutil
import signal
import subprocess
import tempfile

from ...callgrind import FIXED_SALT, names_by_args, read_dump
from ..trials import names_filter
from . import callgrind

# Each arm's callgrind run is stopped after this many seconds (the compare runs both arms side
# by side; core.BUDGET_S leaves perf the rest of a strategy's minute).
TIMEOUT_S = 45.0


class ProfileError(Exception):
    """The profile could not be made: valgrind missing, the run failed or timed out, no dump of
    the benchmark. The message says which, naming the log."""


def environment(settings_env, arm_env):
    """The environment of a profiled run: this process's, the compare's settings (glibc's
    malloc thresholds), the arm's own, and the fixed hash salts last (they always win)."""
    env = dict(os.environ)
    env.update(settings_env or {})
    env.update(arm_env or {})
    env.update(FIXED_SALT)
    return env


def command(binary, name, settings, out_file, run_json):
    """valgrind's command line profiling benchmark name (one iteration) of binary; settings:
    profile and budget_s (the compare's Options.settings())."""
    return ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--dump-instr=yes",
            "--callgrind-out-file=" + out_file, binary,
            "--hb_profile=" + settings["profile"], "--hb_budget=%g" % settings["budget_s"],
            "--hb_repetitions=1", "--benchmark_min_time=1e-9",
            "--benchmark_filter=" + names_filter([name]),
            "--benchmark_out=" + run_json, "--benchmark_out_format=json"]


def run_logged(cmd, env, log_path, timeout_s):
    """Runs cmd (its own process group, killed whole after timeout_s) with its output into
    log_path; its exit status, or None when it was stopped."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
        try:
            return proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return None


def find_dump(work, run_json, name):
    """The path of the dump of benchmark name among work's cg.out.* (named through the run's
    JSON: hotbench/callgrind.py names_by_args), or None."""
    try:
        names = names_by_args(run_json)
    except (OSError, ValueError, KeyError):
        return None
    for path in sorted(glob.glob(os.path.join(work, "cg.out.*"))):
        desc, _ = read_dump(path)
        if desc is None:
            continue
        fam, args, _ = desc.split("|")
        key = (fam, tuple(int(a) for a in args.split(",")) if args else ())
        if names.get(key) == name:
            return path
    return None


def iterations(profile):
    """The timed loop's iterations from the dump's trigger ("...hb:<family>|<args>|<n>"), 1
    when it does not say."""
    trig = profile.desc.get("Trigger", "")
    try:
        return max(1, int(trig.rsplit("|", 1)[1]))
    except (IndexError, ValueError):
        return 1


def profile(binary, name, settings, arm_env, dest, timeout_s=TIMEOUT_S):
    """Benchmark name of binary under callgrind (the module's settings). dest: the path the
    benchmark's dump is copied to (its log beside it, dest + ".log"). Returns a
    callgrind.Profile with .iterations set (costs are for that many iterations). Errors:
    ProfileError (the reason, naming the log)."""
    if not shutil.which("valgrind"):
        raise ProfileError("valgrind is not installed (scripts/deps.sh installs it)")
    work = tempfile.mkdtemp(prefix="hb-explain-")
    log = dest + ".log"
    try:
        run_json = os.path.join(work, "run.json")
        cmd = command(binary, name, settings, os.path.join(work, "cg.out"), run_json)
        rc = run_logged(cmd, environment(settings.get("env"), arm_env), log, timeout_s)
        if rc is None:
            raise ProfileError("callgrind stopped after %.0f s (%s)" % (timeout_s, log))
        if rc not in (0, 1):
            raise ProfileError("callgrind run failed (exit %d), see %s" % (rc, log))
        path = find_dump(work, run_json, name)
        if path is None:
            raise ProfileError("no callgrind dump of %s (is hotbench built with "
                               "valgrind/callgrind.h? see %s)" % (name, log))
        shutil.copyfile(path, dest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    try:
        prof = callgrind.parse(dest)[0]
    except callgrind.ParseError as e:
        raise ProfileError(str(e))
    prof.iterations = iterations(prof)
    return prof

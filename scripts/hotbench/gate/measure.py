"""measure - one measurement: two runs of DIR/hotbench over the same selection of benchmarks
(settings.py: the manifest's gate.select and gate.ir_select, kept in settings.json so that CI
measures what the baseline measured), with glibc's malloc thresholds pinned (settings' env:
otherwise whether a buffer is fresh memory depends on which benchmarks ran before it):
  run.json           the timed run: google-benchmark's JSON, every repetition kept, so that
                     google-benchmark's compare.py and github-action-benchmark's `googlecpp` input
                     read it. Repetitions run back to back: with google-benchmark's random
                     interleaving, bufgrow's times turned bimodal (the malloc state left by the
                     benchmark before decides whether fresh memory page-faults);
  instructions.json  instructions per iteration of the small sizes under valgrind's callgrind
                     (callgrind.py);
  bmf.json           Bencher Metric Format (export.py);
  fingerprint.json   the environment: compiler, flags, build type, library versions (the run's
                     context and dpkg), CPU model, kernel, libc, valgrind. Comparing measurements
                     whose fingerprints differ prints a warning naming each difference.
"""

import json
import os
import platform
import re
import subprocess

from ..manifest import Manifest, ManifestError
from .callgrind import measure_instructions
from .errors import die
from .export import write_bmf
from .measurement import load_run
from .settings import ere_escape, resolve
from .stats import reference_name

# The context keys and Debian packages a measurement's environment is made of: these, and every
# library version and SIMD level a case adds to the context (CASE_KEYS).
CONTEXT_KEYS = ("hb_compiler", "hb_build_flags", "hb_build_type", "hb_benchmark_version",
                "library_build_type", "num_cpus")
CASE_KEYS = re.compile(r"_(version|simd_level)$")
PACKAGES = ("libbenchmark-dev", "zlib1g", "libexpat1", "libxml2", "libc6")


def run_cmd(cmd, log, settings):
    """Runs cmd with the settings' environment added, its output into the file log."""
    env = dict(os.environ)
    env.update(settings.get("env", {}))
    with open(log, "w") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    return rc


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            return m.group(1).strip() if m else platform.processor()
    except OSError:
        return platform.processor()


def fingerprint(ctx, valgrind):
    """The environment a measurement depends on."""
    fp = {k: ctx.get(k) for k in CONTEXT_KEYS}
    fp.update({k: v for k, v in ctx.items() if CASE_KEYS.search(k)})
    fp["caches"] = ";".join("L%d %s %d" % (c["level"], c["type"], c["size"])
                            for c in ctx.get("caches", []))
    fp["git_revision"] = ctx.get("hb_git_revision")
    fp["date"] = ctx.get("date")
    fp["cpu_model"] = cpu_model()
    fp["kernel"] = platform.release()
    fp["libc"] = " ".join(platform.libc_ver())
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}\\n"] + list(PACKAGES),
                             capture_output=True, text=True).stdout
        fp["packages"] = ", ".join(sorted(out.split("\n"))).strip(", ")
    except OSError:
        fp["packages"] = "unknown (no dpkg-query)"
    fp["valgrind"] = valgrind or "not installed"
    return fp


def hotbench_cmd(hotbench, s, out_json):
    """The timed run's command line for settings s."""
    return [hotbench, "--hb_profile=" + s["profile"], "--hb_budget=%g" % s["budget_s"],
            "--hb_repetitions=%d" % s["repetitions"], "--benchmark_min_time=%g" % s["min_time"],
            "--benchmark_filter=" + s["filter"], "--benchmark_out=" + out_json,
            "--benchmark_out_format=json"]


def executable(build):
    """build/hotbench, or stop saying how to build it."""
    hotbench = os.path.join(build, "hotbench")
    if not os.access(hotbench, os.X_OK):
        die("%s is not an executable (build it: cmake -S . -B %s && cmake --build %s)" % (
            hotbench, build, build))
    return hotbench


def timed_run(hotbench, run_json, logfile, settings, log):
    tmp = run_json + ".tmp"
    cmd = hotbench_cmd(hotbench, settings, tmp)
    if settings.get("interleave"):
        cmd.append("--benchmark_enable_random_interleaving=true")
    log("gate: timed run: " + " ".join(["%s=%s" % kv for kv in settings.get("env", {}).items()] +
                                        cmd))
    rc = run_cmd(cmd, logfile, settings)
    if rc not in (0, 1) or not os.path.exists(tmp):
        die("the timed run failed (exit %d); its output is in %s" % (rc, logfile))
    os.replace(tmp, run_json)
    return rc


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)


def measure(build, outdir, settings, suffix="", logdir=None, log=print):
    """Timed run + callgrind run of the selection; writes run<suffix>.json,
    instructions<suffix>.json, fingerprint.json, settings.json, bmf<suffix>.json into outdir and
    hotbench's console output into logdir (default outdir). The selection comes from the
    measured hotbench's manifest (settings.resolve)."""
    logdir = logdir or outdir
    hotbench = executable(build)
    try:
        settings = resolve(settings, Manifest.from_binary(hotbench))
    except ManifestError as e:
        die(str(e))
    if not settings.get("filter"):
        die("no group of %s's manifest selects anything for the gate (gate.select)" % hotbench)
    os.makedirs(outdir, exist_ok=True)
    os.makedirs(logdir, exist_ok=True)
    run_json = os.path.join(outdir, "run%s.json" % suffix)
    rc = timed_run(hotbench, run_json, os.path.join(logdir, "run%s.log" % suffix), settings, log)
    run = load_run(run_json)
    if run["failed"]:
        log("gate: %d benchmark(s) FAILED verification (see %s)" % (len(run["failed"]), run_json))
    ir = measure_instructions(hotbench, logdir, settings, run["context"], suffix, log, run_cmd)
    write_json(os.path.join(outdir, "instructions%s.json" % suffix), ir)
    write_json(os.path.join(outdir, "fingerprint.json"), fingerprint(run["context"],
                                                                     ir.get("valgrind")))
    write_json(os.path.join(outdir, "settings.json"), settings)
    write_bmf(run, ir, os.path.join(outdir, "bmf%s.json" % suffix))
    return rc


def confirm(build, out, settings, cur, names, log=print):
    """Re-measures the benchmarks the speed check would call regressed, with their reference
    rows, in a fresh process: confirm.json in out. A regression must show in both processes."""
    rows = cur.runs[0]["rows"]
    want = set(names) | {reference_name(cur.manifest, n, rows[n]) for n in names}
    s = dict(settings)
    s["filter"] = "^(%s)$" % "|".join(ere_escape(n) for n in sorted(n for n in want if n))
    tmp = os.path.join(out, "confirm.json.tmp")
    cmd = hotbench_cmd(os.path.join(build, "hotbench"), s, tmp)
    log("gate: %d suspected speed regression(s); confirming in a second process" % len(names))
    rc = run_cmd(cmd, os.path.join(out, "confirm.log"), s)
    if rc in (0, 1) and os.path.exists(tmp):
        os.replace(tmp, os.path.join(out, "confirm.json"))
    else:
        log("gate: the confirmation run failed (exit %d, see %s): the suspects stay regressed" % (
            rc, os.path.join(out, "confirm.log")))

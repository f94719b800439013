"""callgrind - instructions per iteration of benchmarks under valgrind's callgrind, one iteration
each: deterministic counts (the compare's instruction check, make limits).

harness/hb_shim.cc counts the timed loop alone (see HB_CALLGRIND there): each benchmark's dump is
described "hb:<group>/<strategy>|<args>|<iterations>". The runs fix the libraries' hash salts
($HB_HASH_SALT, harness/hb_seed.h): with expat's random salt one binary's count moved 5%. The
dump format read here is valgrind's "Callgrind Format Specification" (valgrind docs, callgrind
manual, section 3): the "desc:", "events:" and "summary:"/"totals:" lines.
"""

import glob
import os
import shutil
import subprocess
import tempfile

from .runjson import Run

DESC = "desc: Trigger: Client Request: hb:"
FIXED_SALT = {"HB_HASH_SALT": "0x5eed"}  # any fixed value: the counts repeat (hb_seed.h)


def run_logged(cmd, log, settings):
    """Runs cmd (argv list) with settings["env"] (dict, may be absent) added to this process's
    environment, stdout and stderr into the file log (path, overwritten); returns the exit
    status. Raises OSError when cmd cannot be started."""
    env = dict(os.environ)
    env.update(settings.get("env", {}))
    with open(log, "w") as f:
        return subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)


def names_by_args(run):
    """{(group/strategy, argument values tuple): benchmark name} of a run (runjson.Run or its
    path), so a dump's description finds its benchmark's name."""
    if not isinstance(run, Run):
        run = Run(run)
    names = {}
    for r in run.rows + run.failed + run.skipped:
        name = r["name"]
        fam = "/".join(p for p in name.split("/") if ":" not in p and p != "real_time")
        names[(fam, tuple(int(v) if isinstance(v, int) else v
                          for v in r["params"].values()))] = name
    return names


def read_dump(path):
    """(description, {event: total}) of one callgrind dump; (None, {}) when it has neither. The
    events are the dump's own ("Ir", and "Bc", "Bcm", ... with --branch-sim=yes)."""
    desc, events, totals = None, None, {}
    with open(path) as f:
        for line in f:
            if line.startswith(DESC):
                desc = line.split("hb:", 1)[1].strip()
            elif line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith(("summary:", "totals:")) and events:
                totals = dict(zip(events, (int(v) for v in line.split()[1:])))
                break
    return desc, totals


def dumps_by_name(work, names):
    """{benchmark name: {event: total, "iterations": n}} from the dumps work/cg.out.* (names:
    names_by_args); a dump of a run whose result was not reported (google-benchmark's estimate
    of the iterations) has no name and is left out."""
    out = {}
    for path in glob.glob(os.path.join(work, "cg.out.*")):
        desc, totals = read_dump(path)
        if desc is None or "Ir" not in totals:
            continue
        fam, args, iters = desc.split("|")
        name = names.get((fam, tuple(int(a) for a in args.split(",")) if args else ()))
        if name is not None:
            out[name] = dict(totals, iterations=int(iters))
    return out


def per_benchmark(work, names):
    """{name: {instructions, iterations, per_iteration}} from the dumps in work."""
    return {name: dict(instructions=d["Ir"], iterations=d["iterations"],
                       per_iteration=d["Ir"] / max(d["iterations"], 1))
            for name, d in dumps_by_name(work, names).items()}


def _unavailable(ctx, valgrind, settings):
    if "-fsanitize" in ctx.get("hb_build_flags", ""):
        return "a sanitizer build (%s): valgrind cannot run it" % ctx["hb_build_flags"].strip()
    if not valgrind:
        return "valgrind is not installed (scripts/deps.sh installs it)"
    if not settings.get("ir_filter"):
        return "no group of the manifest selects instruction counts (gate.ir_select)"
    return None


def measure_instructions(hotbench, logdir, settings, ctx, suffix, log, run_cmd=run_logged):
    """Instructions per iteration of each benchmark of settings["ir_filter"] (a
    --benchmark_filter) under callgrind, with settings' profile, budget_s and env and the fixed
    hash salt: {"valgrind": version, "command": str, "benchmarks": {name: {per_iteration,
    instructions, iterations}}} or {"unavailable": why}. ctx: the binary's run context (a
    sanitizer build is refused); the log goes to logdir/instructions<suffix>.log; log(line)
    prints the command; run_cmd(cmd, logfile, settings) runs it (a seam for tests)."""
    valgrind = shutil.which("valgrind")
    why = _unavailable(ctx, valgrind, settings)
    if why:
        return {"unavailable": why}
    version = subprocess.run([valgrind, "--version"], capture_output=True,
                             text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="hb-callgrind-")
    try:
        out_json = os.path.join(work, "run.json")
        cmd = [valgrind, "--tool=callgrind", "--instr-atstart=no",
               "--callgrind-out-file=" + os.path.join(work, "cg.out"), hotbench,
               "--hb_profile=" + settings["profile"], "--hb_budget=%g" % settings["budget_s"],
               "--hb_repetitions=1", "--benchmark_min_time=1e-9",
               "--benchmark_filter=" + settings["ir_filter"],
               "--benchmark_out=" + out_json, "--benchmark_out_format=json"]
        settings = dict(settings, env=dict(settings.get("env", {}), **FIXED_SALT))
        log("gate: instruction counts: " + " ".join(
            ["%s=%s" % kv for kv in settings.get("env", {}).items()] + cmd))
        logf = os.path.join(logdir, "instructions%s.log" % suffix)
        rc = run_cmd(cmd, logf, settings)
        if rc not in (0, 1) or not os.path.exists(out_json):
            return {"unavailable": "callgrind run failed (exit %d), see %s" % (rc, logf),
                    "valgrind": version}
        benches = per_benchmark(work, names_by_args(out_json))
        if not benches:
            return {"unavailable": "callgrind produced no per-benchmark counts (is hotbench "
                                   "built with valgrind/callgrind.h? see harness/hb_shim.cc)",
                    "valgrind": version}
        return {"valgrind": version, "command": " ".join(cmd), "benchmarks": benches}
    finally:
        shutil.rmtree(work, ignore_errors=True)

#!/usr/bin/python3
"""gate_power.py - how often the interleaved compare (scripts/compare.py) catches a slowdown.

    scripts/gate_power.py [--build DIR] [--levels F,F,...] [--compares N0,N] [--filter ERE]
                          [--rounds N] [--load N] [--label NAME] [--out DIR] [--fresh] [--keep]
                          [--same-binary] [--no-instructions]

One hooks build (default build-test, configured as `make test` does when absent) runs both arms.
In each case's first group the first strategy that is neither the group's reference nor its
yardstick and that the selection measures is slowed down by HB_INJECT=slowdown:<fraction>
(harness/hb_testhook.h); for every level (default 0, 0.03, 0.05, 0.10, 0.20) the clean arm is
compared with the injected one N times (default 20 at level 0, 10 at the others). At level 0
the head is, as in CI, another binary file: a build of a copy of the tree in which one comment
differs (a new comment line per compare; <out>/<label>-heads/, built as DIR was configured),
and callgrind counts instructions as make bench-ci does (--same-binary and --no-instructions
turn these off). The injected levels run without callgrind: the injection's loop is timed, and
under callgrind it runs far faster than the work it stands for. Writes
<out>/<label>.md (the table, the goals with pass/fail, the machine) and <label>.json (also every
compare's summary); each compare's record stays in <out>/<label>-runs/ so that a rerun resumes
(--fresh starts over). --load N keeps N busy processes running for the whole measurement.
Exit status: 0 every goal measured passed, 1 a goal failed, 2 usage or run error.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from hotbench.compare import heads, power, table  # noqa: E402
from hotbench.listing import list_benchmarks  # noqa: E402
from hotbench.manifest import Manifest, ManifestError  # noqa: E402

DEFAULT_LEVELS = "0,0.03,0.05,0.10,0.20"
INJECT_VARS = ("HB_INJECT", "HB_INJECT_SELECT")
# this script's option -> the engine's Options field (scripts/compare.py's --rounds too)
ENGINE_OPTION = {"rounds": "blocks"}


class Fail(Exception):
    """A usage or run error: the message says what to do; exit status 2."""


def parse_args(argv):
    """The command line checked. argv: the arguments after the program name.
    Returns the argparse namespace with levels (floats) and compares ((n0, n)); Fail on a bad
    option."""
    p = argparse.ArgumentParser(prog="gate_power.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(REPO, "build-test"),
                   help="a -DHB_TEST_HOOKS=ON build (default build-test; built when absent)")
    p.add_argument("--levels", default=DEFAULT_LEVELS,
                   help="slowdown fractions, comma-separated (default %(default)s)")
    p.add_argument("--compares", default="20,10",
                   help="compares at level 0 and at each other level: N0,N (or N for all, "
                   "or one count per level in --levels' order; default %(default)s)")
    p.add_argument("--filter", help="the compare's selection (ERE; default the manifest's gate "
                   "selection)")
    p.add_argument("--rounds", type=int, help="the compare's ABBA blocks of the screening "
                   "(scripts/compare.py --rounds; default the engine's)")
    p.add_argument("--load", type=int, default=0, help="busy background processes (default 0)")
    p.add_argument("--label", help="output name (default idle, or loaded with --load)")
    p.add_argument("--out", default=os.path.join(REPO, "results", "gate-power"),
                   help="where <label>.md, <label>.json and <label>-runs/ go (default "
                   "results/gate-power)")
    p.add_argument("--fresh", action="store_true", help="forget the compares already recorded")
    p.add_argument("--keep", action="store_true", help="keep each compare's output directory: "
                   "its trials, compare.json and compare.md (to judge them again offline)")
    p.add_argument("--same-binary", action="store_true", help="level 0: the head is the base's "
                   "binary (default: a fresh build of the tree with one comment changed)")
    p.add_argument("--no-instructions", action="store_true", help="level 0 without callgrind "
                   "(default: with, as make bench-ci)")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        raise SystemExit(2 if e.code else 0)
    a.levels = _levels(a.levels)
    a.compares = _compares(a.compares, a.levels)
    if a.rounds is not None and a.rounds < 1:
        raise Fail("--rounds %d: must be 1 or more" % a.rounds)
    if not 0 <= a.load <= 256:
        raise Fail("--load %d: must be 0 to 256" % a.load)
    a.label = a.label or ("loaded" if a.load else "idle")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", a.label):
        raise Fail("--label %r: letters, digits, '.', '_' and '-' only" % a.label)
    if a.filter is not None:
        try:
            re.compile(a.filter)
        except re.error as e:
            raise Fail("--filter %r is not a regex: %s" % (a.filter, e))
    return a


def _levels(text):
    try:
        out = [float(x) for x in text.split(",")]
    except ValueError:
        raise Fail("--levels %r: comma-separated fractions such as 0,0.05,0.1" % text)
    if not out or any(not 0 <= x <= 10 for x in out) or len(set(out)) != len(out):
        raise Fail("--levels %r: distinct fractions from 0 to 10" % text)
    return out


def _compares(text, levels):
    """The compares per level ([n] in levels' order) from N, N0,N or one count per level."""
    try:
        out = [int(x) for x in text.split(",")]
    except ValueError:
        out = []
    if len(out) == 1:
        out *= 2
    if len(out) == 2 and len(levels) != 2:
        out = [out[0] if lv == 0 else out[1] for lv in levels]
    if len(out) != len(levels) or min(out) < 1:
        raise Fail("--compares %r: N0,N (compares at level 0, at each other level) or one count "
                   "per level, each >= 1" % text)
    return out


def ensure_build(build):
    """DIR/hotbench, configured and built as `make test` does when absent. Returns its path;
    Fail when the build fails."""
    binary = os.path.join(build, "hotbench")
    if os.access(binary, os.X_OK):
        return binary
    print("gate_power: %s absent: building it (make test's configuration)" % binary, flush=True)
    jobs = str(os.cpu_count() or 2)
    for cmd in (["cmake", "-S", REPO, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-B", build,
                 "-DHB_WERROR=ON", "-DHB_TEST_HOOKS=ON"],
                ["cmake", "--build", build, "-j", jobs]):
        if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode != 0:
            raise Fail("%s failed" % " ".join(cmd))
    return binary


def listed(binary, filt):
    """The benchmark names the selection filt (an ERE) runs: hotbench --benchmark_list_tests.
    Fail when hotbench fails."""
    got = list_benchmarks(binary, "--benchmark_filter=" + filt)
    if not got.ok:
        raise Fail("%s --benchmark_list_tests failed: %s" % (binary, got.message))
    return got.names


def preflight(binary, families, select):
    """Fail unless binary is a hooks build whose slowdown injection reaches every family: one
    smoke run of those families with HB_INJECT=slowdown:0.1 and HB_INJECT_SELECT=select, every
    family with a row carrying the counter hb_injected_fraction."""
    filt = "^(" + "|".join(power.ere_escape(f) + "/" for f in families) + ")"
    env = dict(os.environ, HB_INJECT="slowdown:0.1", HB_INJECT_SELECT=select)
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([binary, "--hb_profile=smoke", "--benchmark_filter=" + filt,
                            "--benchmark_min_time=1e-9", "--benchmark_format=json",
                            "--hb_data=" + tmp], env=env, capture_output=True, text=True)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        raise Fail("%s (smoke run of %s) failed, status %d: %s" % (
            binary, ", ".join(families), r.returncode, r.stderr.strip()[-500:]))
    flags = doc.get("context", {}).get("hb_build_flags", "")
    if "HB_TEST_HOOKS" not in flags:
        raise Fail("%s has no test hooks (build flags: %s): configure it with "
                   "-DHB_TEST_HOOKS=ON, as make test does, or pass --build" % (binary, flags))
    reached = {"/".join(b["name"].split("/")[:2]) for b in doc.get("benchmarks", [])
               if "hb_injected_fraction" in b}
    missing = [f for f in families if f not in reached]
    if missing:
        raise Fail("HB_INJECT=slowdown:0.1 did not reach %s in %s (no hb_injected_fraction "
                   "counter): the build predates the slowdown injection? rebuild it "
                   "(cmake --build %s)" % (", ".join(missing), binary,
                                            os.path.dirname(binary)))


class Load:
    """N busy processes (yes > /dev/null) while the with-block runs; killed on the way out,
    exception or Ctrl-C included."""

    def __init__(self, n):
        self.n, self.procs = n, []

    def __enter__(self):
        for _ in range(self.n):
            self.procs.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL,
                                               stderr=subprocess.DEVNULL))
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()
        self.procs = []
        return False


def settings_key(binary, opts, select, load, same_binary=False, instructions=True):
    """What a recorded compare must share with this measurement to be reused: the binary (its
    path and content), the compare's options, the injection, the background load."""
    with open(binary, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return dict(binary=os.path.realpath(binary), sha256=digest, filter=opts.get("filter"),
                rounds=opts.get("rounds"), inject_select=select, load=load,
                same_binary=same_binary, instructions=instructions)


def recorded(path, key):
    """The record at path when it was measured with key, None when absent; Fail when it was
    measured with other settings."""
    try:
        with open(path) as f:
            rec = json.load(f)
    except (OSError, ValueError):
        return None
    old = rec.get("key") or {}
    if old != key:
        diff = ", ".join("%s %s, now %s" % (k, json.dumps(old.get(k)), json.dumps(key.get(k)))
                         for k in sorted(set(old) | set(key)) if old.get(k) != key.get(k))
        raise Fail("%s was measured with other settings (%s): pass --fresh, or another --label"
                   % (path, diff))
    return rec


def inject_envs(level, select):
    """(head, base) environments of a compare slowed down by level over the families the ERE
    select matches. Both arms parse the same slowdown word and compile a regex of the same
    length before their first benchmark (hb_testhook.c): the base's matches no family (a
    character after the end anchor), so only the slowdown differs between them, not the
    environment's size (which moves the stack: Mytkowicz et al., "Producing wrong data without
    doing anything obviously wrong!", ASPLOS 2009) nor the heap regcomp leaves behind (the false
    rows of results/gate-power/README.md, at the sizes that come from the recycled heap)."""
    word = "slowdown:%g" % level
    return (dict(HB_INJECT=word, HB_INJECT_SELECT="(" + select + ")"),
            dict(HB_INJECT=word, HB_INJECT_SELECT=select + "$x"))


def one_compare(ctx, level, index):
    """Runs one compare of the clean arm (base) with the arm slowed down by level (head; 0:
    nothing injected) and returns its record (also written to the runs directory). ctx: the
    measurement's settings (setup). Fail when the compare raises or exits."""
    from hotbench.compare.arms import Arm
    from hotbench.compare.engine import Options, run_compare
    name = "%g-%03d" % (level, index)
    out = os.path.join(ctx["runs"], name)
    head_env = base_env = {}
    if level > 0:
        head_env, base_env = inject_envs(level, ctx["select"])
    # The time check's power: the injection's calibrated loop runs far faster under callgrind
    # than the work it stands for (valgrind slows memory-bound code more), so its instruction
    # count is no measure of a 5% slowdown (+250% to +3300% measured): no callgrind here.
    opts = Options(instructions=level == 0 and ctx["instructions"],
                   **{ENGINE_OPTION.get(k, k): v for k, v in ctx["opts"].items()})
    try:
        head_binary = ctx["binary"] if level > 0 or ctx["same_binary"] else \
            heads.fresh_head(ctx, index)
    except (heads.HeadError, OSError) as e:
        raise Fail("the unchanged head %d: %s" % (index, e))
    load_before = os.getloadavg()[0]
    t0 = time.monotonic()
    log = os.path.join(ctx["runs"], name + ".log")
    with open(log, "w") as logf:
        try:
            res = run_compare(Arm("base", ctx["binary"], env=base_env),
                              Arm("head", head_binary, env=head_env),
                              opts, out, log=lambda *a, **k: print(*a, file=logf, flush=True))
        except (Exception, SystemExit) as e:
            raise Fail("compare %s failed: %s: %s (its log: %s)" % (name, type(e).__name__, e,
                                                                     log))
    rec = dict(key=ctx["key"], level=level, index=index, wall_s=time.monotonic() - t0,
               duration_s=getattr(res, "duration_s", None), exit_code=res.exit_code,
               summary=dict(res.summary), loadavg=[load_before, os.getloadavg()[0]])
    rec.update(power.classify(res.rows, ctx["families"], level))
    rec["injection"] = power.injection_reach(os.path.join(out, "trials"), ctx["families"],
                                             level) if level > 0 else None
    rec["confirmation"] = power.confirmation_of(getattr(res, "confirmation", None))
    rec["strategies"] = {}
    for st in getattr(res, "strategies", []):  # one verdict per strategy (strategies.py)
        rec["strategies"][st["verdict"]] = rec["strategies"].get(st["verdict"], 0) + 1
    if not ctx["keep"]:
        shutil.rmtree(out, ignore_errors=True)
    else:
        try:
            table.write(res, out)
        except OSError as e:
            print("gate_power: %s's compare.json not written: %s" % (name, e), file=sys.stderr)
    path = os.path.join(ctx["runs"], name + ".json")
    with open(path + ".tmp", "w") as f:
        json.dump(rec, f, indent=1)
    os.replace(path + ".tmp", path)
    return rec


def progress(rec, done, total, walls):
    """The one line printed after a compare: level, k/n, verdict counts, minutes, ETA (the
    median of walls times the total - done compares still to run)."""
    counts = ", ".join("%s %d" % kv for kv in sorted(rec["summary"].items()))
    what = "nothing injected" if rec["level"] == 0 else \
        "detected" if rec["detected"] else "missed"
    if rec["false_rows"]:
        what += ", FALSE ALARM %d rows" % len(rec["false_rows"])
    inj = rec.get("injection")
    if inj:
        what += "; injection reached %d of %d head processes%s%s" % (
            inj["head_reached"], inj["head"], ", paid %.1f%% (median)" % (
                inj["paid"][1] * 100) if inj["paid"] else "",
            ", LEAKED into %d base processes" % inj["base_reached"] if inj["base_reached"]
            else "")
    eta = statistics.median(walls) * (total - done) / 60 if walls else 0
    return "level %g%% %d/%d: %s; %s; %.2f min; ETA %.0f min" % (
        rec["level"] * 100, rec["index"] + 1, rec["planned"], counts, what,
        rec["wall_s"] / 60, eta)


def measure(ctx, plan, write):
    """Every compare of plan ([(level, n)]), skipping those recorded; write(records) after each.
    Returns {level: [record]}."""
    records = {level: [] for level, _ in plan}
    planned = [(level, n, i, recorded(os.path.join(ctx["runs"], "%g-%03d.json" % (level, i)),
                                      ctx["key"]))
               for level, n in plan for i in range(n)]
    # the ETA counts only the compares still to run (a resumed series skips its records)
    total = sum(1 for *_, rec in planned if rec is None)
    done, walls = 0, []
    for level, n, i, rec in planned:
        fresh = rec is None
        if fresh:
            rec = one_compare(ctx, level, i)
            walls.append(rec["wall_s"])
        rec["planned"] = n
        records[level].append(rec)
        if fresh:
            done += 1
            print(progress(rec, done, total, walls), flush=True)
            write(records)
    write(records)
    return records


def document(ctx, records, before):
    """The <label>.json document: options, targets, machine before and after, the table's lines,
    the goals and every compare's summary."""
    lines = [power.summarize(level, recs) for level, recs in records.items()]
    compares = [{k: v for k, v in r.items() if k not in ("key", "planned")}
                for recs in records.values() for r in recs]
    return dict(schema="hotbench-gate-power/1", label=ctx["label"], targets=ctx["targets"],
                skipped=ctx["skipped"], inject_select=ctx["select"], options=ctx["options"],
                machine_before=before, machine_after=power.machine(REPO), lines=lines,
                goals=power.goals(lines, ctx["default"]), compares=compares)


def writer(ctx, out_dir, before):
    """A function of the records that writes <out>/<label>.json and .md; returns the document."""
    def write(records):
        doc = document(ctx, records, before)
        for ext, text in (("json", json.dumps(doc, indent=1) + "\n"), ("md", power.render(doc))):
            path = os.path.join(out_dir, "%s.%s" % (ctx["label"], ext))
            with open(path + ".tmp", "w") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
        write.doc = doc
        return doc
    return write


def _on_signal(signum, _frame):
    raise SystemExit(128 + signum)


def setup(args):
    """The measurement's settings (ctx) from the checked options: the build, the targets, the
    injection, the runs directory. Fail when something is missing."""
    for var in INJECT_VARS:
        if os.environ.pop(var, None) is not None:
            print("gate_power: %s unset (the arms set it themselves)" % var, file=sys.stderr)
    binary = ensure_build(os.path.abspath(args.build))
    try:
        manifest = Manifest.from_binary(binary)
    except ManifestError as e:
        raise Fail(str(e))
    from hotbench.selection import selection_filter
    filt = args.filter if args.filter is not None else selection_filter(manifest, "select")
    targets, skipped = power.choose_targets(manifest, listed(binary, filt or "^$"))
    if not targets:
        raise Fail("the selection %r measures no strategy to slow down (%s)" % (
            filt, "; ".join("%s: %s" % s for s in skipped)))
    families = [t["family"] for t in targets]
    select = power.family_regex(families)
    preflight(binary, families, select)
    opts = {k: v for k, v in (("filter", args.filter), ("rounds", args.rounds)) if v is not None}
    runs = os.path.join(os.path.abspath(args.out), args.label + "-runs")
    if args.fresh:
        shutil.rmtree(runs, ignore_errors=True)
    os.makedirs(runs, exist_ok=True)
    options = dict(opts, levels=args.levels, compares=list(args.compares), load=args.load,
                   same_binary=args.same_binary, instructions=not args.no_instructions,
                   build=os.path.relpath(os.path.abspath(args.build), REPO))
    return dict(binary=binary, targets=targets, skipped=skipped, families=families,
                select=select, opts=opts, runs=runs, label=args.label, keep=args.keep,
                same_binary=args.same_binary, instructions=not args.no_instructions,
                heads=os.path.join(os.path.abspath(args.out), args.label + "-heads"),
                key=settings_key(binary, opts, select, args.load, args.same_binary,
                                 not args.no_instructions), options=options,
                default=not opts)


def main(argv):
    """The command: exit status 0 every goal measured passed, 1 a goal failed, 2 usage or run
    error (message on stderr)."""
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    try:
        args = parse_args(argv)
        ctx = setup(args)
    except Fail as e:
        print("gate_power: %s" % e, file=sys.stderr)
        return 2
    plan = list(zip(args.levels, args.compares))
    print("gate_power: slowing down %s; %d compares; records in %s" % (
        ", ".join(ctx["families"]), sum(n for _, n in plan), ctx["runs"]), flush=True)
    write = writer(ctx, os.path.abspath(args.out), power.machine(REPO))
    try:
        with Load(args.load):
            measure(ctx, plan, write)
    except Fail as e:
        print("gate_power: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gate_power: interrupted; the compares done are kept in %s (rerun to resume)"
              % ctx["runs"], file=sys.stderr)
        return 130
    doc = write.doc
    print("\n".join(power.table(doc["lines"])))
    print("\nGoals:")
    for goal, verdict, detail in doc["goals"]:
        print("  %-4s %s (%s)" % ("PASS" if verdict == "pass" else verdict.upper(), goal, detail))
    print("wrote %s.md and .json" % os.path.join(args.out, args.label))
    return 1 if any(v == "fail" for _, v, _ in doc["goals"]) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

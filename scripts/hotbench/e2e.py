"""e2e - whole-process benchmarks of hotbench's tools with hyperfine (scripts/e2e.sh runs this).

What runs comes from the manifest (build/hotbench --hb_manifest, docs/manifest.md): one hyperfine
group per e2e entry of every case (hotbench-decode on the entry's input, every strategy of its
group but the ceilings, the quadratic ones and its skips), and the generators' own groups (the
large entries' per generator command, the others together). Nothing here knows a case.

The JSON written (results/runs/<UTC>-<sha>-e2e.json, linked from results/e2e-latest.json after a
complete run) is hyperfine's of every group, plus a context block and, per command: case,
strategy, input, input_bytes, output, items, items_unit, inprocess, prepare.
"""

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import zlib

from . import machine
from .files import point_latest, write_json_atomic
from .git import git
from .manifest import Manifest, ManifestError

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROG = "scripts/e2e.sh"
DESCRIPTION = """\
Times whole processes of the tools in BUILD_DIR (default: build) with hyperfine: process
start-up, reading the input from the page cache, the work, writing the output. The
in-process figures of the same work come from `make bench` (google-benchmark); the report
sets the two side by side (scripts/hotbench/e2e_report.py).

What runs is the cases' description (BUILD_DIR/hotbench --hb_manifest, docs/manifest.md), one
hyperfine invocation per group (commands run without a shell, hyperfine -N):
  gen-<command>  hotbench-gen with the arguments of each large whole-process run (the 1.7 GB
                 kind), one group per generator command, written to a file on disk
                 (DATA/e2e-out/, removed and `sync`ed before each run, outside the timing; the
                 page-cache write is timed, the device writeback mostly is not)
  gen-small      the same for the other runs' generators
  <key>          per whole-process run of a case: hotbench-decode <its arguments> --strategy S
                 on its input, for every strategy of its group except the ceilings, the
                 quadratic ones (predicted hours at the production size) and those it skips;
                 one start-up run on an empty input where the run asks for it
Decoder output goes to /dev/null (hyperfine --output=null). `scripts/e2e.sh --list BUILD_DIR`
names the groups of this build.

Before timing, each decode command is run once with its output checked (also warming the
page cache), as the run's "check" says: against the reference strategy's output, or against
the size and crc32 in the sidecar of hotbench's own input cache. Each generator's last output
is compared with the cached input. A wrong answer or a non-zero exit fails the run (hyperfine
stops on a non-zero exit; -i is never used); a strategy that fails its check is not timed.

Inputs are generated if missing, deterministically, and cached in DATA: by hotbench-gen under
a name made of a hash of its arguments (gen-<command>-<hash>), or, for the "crc32-sidecar"
runs, by hotbench itself (its cache with the .info sidecar) in DATA/e2e-<hash>/."""
EPILOG = """\
Output: results/runs/<UTC time>-<git sha>-e2e.json (hyperfine's JSON of every group plus a
context block and, per command, case, strategy, input, input bytes, items and the
in-process benchmark it corresponds to), written through a temporary file and a rename;
results/e2e-latest.json points to it when every group succeeded.

Took 7 minutes in the reference run (fc5597e, a 2-vCPU VM at 0.294 GB/s of first touch), mostly
the 1.7 GB groups: no warm-up run there (the checked run reads the input), and the strategies a
case's run skips (its `skip`, with the reason) are not run.
Exit status: 0 every group ran and every check passed; 1 a command failed or gave a wrong
answer (the JSON is kept, results/e2e-latest.json is not moved); 2 usage or a missing
prerequisite (build, hyperfine, python3)."""
PYTHON = "/usr/bin/python3"
T0 = time.monotonic()


class Usage(Exception):
    """A usage error or a missing prerequisite: exit 2."""


def log(msg):
    print("[e2e %s +%4ds] %s" % (time.strftime("%H:%M:%S", time.gmtime()),
                                 time.monotonic() - T0, msg), file=sys.stderr, flush=True)


def _count(kind, minimum):
    def parse(text):
        try:
            v = int(text)
        except ValueError:
            v = minimum - 1
        if v < minimum:
            raise argparse.ArgumentTypeError("must be a %s integer" % kind)
        return v
    return parse


def parse_args(argv):
    ap = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", nargs="?", default="build", metavar="BUILD_DIR",
                    help="the tools' build folder (default build)")
    ap.add_argument("--runs", type=_count("positive", 1), default=3, metavar="N",
                    help="timed runs per command of the large groups (default 3)")
    ap.add_argument("--warmup", type=_count("non-negative", 0), default=0, metavar="N",
                    help="warm-up runs per command of the large groups (default 0: each "
                    "decoder's checked run has just read its input into the page cache, and a "
                    "generator's output is removed and synced before every run; a warm-up "
                    "measured at 64 MiB added 30%% to the groups' time and lowered no CV)")
    ap.add_argument("--small-runs", type=_count("positive", 1), default=30, metavar="N",
                    help="timed runs per command of the small groups (default 30)")
    ap.add_argument("--small-warmup", type=_count("non-negative", 0), default=3, metavar="N",
                    help="warm-up runs per command of the small groups (default 3)")
    ap.add_argument("--size", type=_count("positive", 1), default=None, metavar="N",
                    help="input size of the large runs (their size_option), e.g. 67108864 for a "
                    "quick try on a smaller body (default: each run's production size)")
    ap.add_argument("--only", default="", metavar="LIST",
                    help="comma-separated groups to run (default: all)")
    ap.add_argument("--data", default=os.environ.get("HB_DATA_DIR") or None, metavar="DIR",
                    help="the input cache (default $HB_DATA_DIR, else data)")
    ap.add_argument("--results", default=None, metavar="DIR",
                    help="where runs/ and e2e-latest.json go (default results)")
    ap.add_argument("--no-verify", dest="verify", action="store_false",
                    help="skip the output checks (the exit codes are still checked)")
    ap.add_argument("--list", action="store_true", help="name the groups and exit")
    return ap.parse_args(argv)


def here(path):
    """A path given relative to where we were called from, shown relative to the top when
    inside it."""
    p = os.path.realpath(path)
    return os.path.relpath(p, TOP) if p == TOP or p.startswith(TOP + os.sep) else p


def arg_hash(args):
    """A stable name for the input made by these generator arguments."""
    return hashlib.sha1("\0".join(args).encode()).hexdigest()[:12]


def filter_regex(name):
    """google-benchmark's --benchmark_filter for a benchmark name prefix, regex-escaped."""
    return "^" + re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", name)


# ---- the plan: what each group runs, from the manifest ------------------------------------

class Run:
    """One e2e entry of the manifest with the run's size applied."""

    def __init__(self, entry, case, manifest, size):
        self.e, self.case, self.key = entry, case, entry["key"]
        self.large = bool(entry.get("large"))
        self.items = entry["items"]
        self.gen_args = list(entry["gen_args"])
        self.inprocess = entry["in_process"]
        if size and entry.get("size_option") and size != self.items:
            self.gen_args += [entry["size_option"], str(size)]
            self.inprocess = self.inprocess.replace(":%d/" % self.items, ":%d/" % size)
            self.items = size
        self.check = entry.get("check") or "output"
        self.strategy_args = {}
        for s in entry.get("strategy_args", []):
            name, _, rest = s.partition(":")
            self.strategy_args[name.strip()] = rest.split()
        self.skips = dict((s.split(":", 1)[0].strip(), s.split(":", 1)[1].strip())
                          for s in entry.get("skip", []))
        self.group = manifest.group(entry["group"])
        if self.group is None:
            raise Usage("the manifest's e2e run %r names group %r, which no case describes"
                        % (self.key, entry["group"]))

    def strategies(self):
        """(timed strategies, notes of those left out), in registration order."""
        timed, notes = [], []
        for s in self.group["strategies"]:
            name = s["name"]
            if name in self.skips:
                notes.append("skipped %s: %s" % (name, self.skips[name]))
            elif s["role"] == "ceiling":
                continue
            elif s["complexity"] >= 2:
                notes.append("skipped %s: declared O(x^%d) (quadratic growth), predicted to take "
                             "hours at %s; the in-process run predicts it from its fitted model"
                             % (name, s["complexity"],
                                fmt_items(self.e["items"], self.e["item_unit"])))
            else:
                timed.append(name)
        return timed, notes

    def is_alt(self, strategy):
        sel = self.e.get("alt_select")
        return bool(sel and self.e.get("alt_gen_args") and re.search(sel, strategy))

    def decode_argv(self, tools, strategy, path):
        extra = [a.replace("{items}", str(self.items)) for a in self.strategy_args.get(strategy, [])]
        return [tools.dec] + self.e["decode_args"] + ["--strategy", strategy] + extra + [path]


def fmt_items(items, unit):
    if unit == "bytes":
        return "%d bytes (%.3g GB)" % (items, items / 1e9)
    return "{:,} {}".format(int(items), unit)


def plan(manifest, size):
    """Every e2e entry of the manifest as a Run, in the manifest's order."""
    return [Run(e, c["name"], manifest, size) for c in manifest.cases for e in c.get("e2e", [])]


def group_names(runs):
    names = []
    for r in runs:
        g = "gen-" + r.gen_args[0] if r.large else "gen-small"
        if g not in names:
            names.append(g)
    names.sort(key=lambda g: g == "gen-small")
    return names + [r.key for r in runs]


# ---- inputs ---------------------------------------------------------------------------------

class Tools:
    """The build's tools, the input cache and the scratch folder."""

    def __init__(self, build, data, work):
        self.build, self.data, self.work = build, data, work
        self.gen = os.path.join(build, "hotbench-gen")
        self.dec = os.path.join(build, "hotbench-decode")
        self.hb = os.path.join(build, "hotbench")
        for t in (self.gen, self.dec, self.hb):
            if not os.access(t, os.X_OK):
                raise Usage("%s not found: build the tools first with 'make' (or 'make BUILD=%s')"
                            % (t, build))

    def generate(self, args, path):
        """hotbench-gen ARGS -o PATH through a temporary file; its report kept in PATH.gen.txt."""
        tmp = "%s.tmp.%d" % (path, os.getpid())
        with open(tmp + ".gen.txt", "w") as report:
            rc = subprocess.run([self.gen] + args + ["-o", tmp], stderr=report).returncode
        if rc != 0:
            sys.stderr.write(open(tmp + ".gen.txt").read())
            for p in (tmp, tmp + ".gen.txt"):
                if os.path.exists(p):
                    os.remove(p)
            raise Usage("cannot generate %s (hotbench-gen %s: exit %d)" % (path, " ".join(args), rc))
        os.replace(tmp, path)
        os.replace(tmp + ".gen.txt", path + ".gen.txt")

    def gen_input(self, args):
        """The cached output of hotbench-gen ARGS, made when missing."""
        path = os.path.join(self.data, "gen-%s-%s" % (args[0], arg_hash(args)))
        if not (os.path.getsize(path) if os.path.exists(path) else 0):
            log("generating %s (hotbench-gen %s)" % (path, " ".join(args)))
            self.generate(args, path)
        return path

    def sidecar_input(self, run):
        """(body, sidecar fields or None) of a crc32-sidecar run: hotbench's own cache, filled
        by the in-process benchmark of the reference in a folder of its own (the only body
        there); a size hotbench does not register is made by hotbench-gen, without a sidecar."""
        folder = os.path.join(self.data, "e2e-" + arg_hash(run.gen_args))
        found = _cached_body(folder)
        if not found:
            name = run.inprocess.replace("%s", run.e["reference"])
            name = name[:-len("/real_time")] if name.endswith("/real_time") else name
            log("%s: filling hotbench's cache in %s/ (once): %s" % (run.key, folder, name))
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(self.work, "fill.log"), "w") as out:
                subprocess.run([self.hb, "--hb_data=" + folder, "--hb_repetitions=1",
                                "--benchmark_min_time=0.000001",
                                "--benchmark_filter=" + filter_regex(name + "/")],
                               stdout=out, stderr=subprocess.STDOUT)
            found = _cached_body(folder)
        if found:
            _share(found, self.data)
            return found, read_sidecar(found[:-len(".body")] + ".info")
        body = os.path.join(folder, "gen.body")
        if not os.path.exists(body):
            log("%s: not a size hotbench registers: hotbench-gen %s" % (run.key, " ".join(run.gen_args)))
            self.generate(run.gen_args, body)
        return body, None

    def counted_items(self, run, path):
        """The items of run's input, from the counter items_counter of the in-process row."""
        name = run.inprocess.replace("%s", run.e["reference"])
        out = subprocess.run([self.hb, "--hb_data=" + self.data, "--hb_repetitions=1",
                              "--benchmark_min_time=0.000001", "--benchmark_format=json",
                              "--benchmark_filter=" + filter_regex(name)],
                             capture_output=True, text=True)
        counter = run.e["items_counter"]
        try:
            for b in json.loads(out.stdout).get("benchmarks", []):
                if not b.get("error_occurred") and counter in b:
                    return int(b[counter])
        except ValueError:
            pass
        raise Usage("%s: the in-process benchmark %s gave no counter %r (hotbench exit %d): %s"
                    % (run.key, name, counter, out.returncode, out.stderr.strip()[-300:]))


def _cached_body(folder):
    """The one <name>.body with a <name>.info sidecar in folder whose size matches it, or None."""
    if not os.path.isdir(folder):
        return None
    bodies = sorted(f for f in os.listdir(folder) if f.endswith(".body")
                    and os.path.exists(os.path.join(folder, f[:-5] + ".info")))
    for f in bodies:
        path = os.path.join(folder, f)
        info = read_sidecar(path[:-5] + ".info")
        if str(os.path.getsize(path)) == info.get("body_size"):
            return path
    return None


def _share(body, data):
    """hotbench's cache file in data/ and in the run's folder made one file (a hard link): the
    body `make bench` generated is used by the whole-process run and the other way round."""
    for ext in (".body", ".info"):
        mine = body[:-5] + ext
        shared = os.path.join(data, os.path.basename(mine))
        try:
            if not os.path.exists(shared):
                os.link(mine, shared)
            elif not os.path.samefile(mine, shared) and _same_info(body, shared, ext):
                tmp = mine + ".link.%d" % os.getpid()
                os.link(shared, tmp)
                os.replace(tmp, mine)
        except OSError:
            return  # another file system: two copies, still correct


def _same_info(body, shared, ext):
    if ext == ".info":
        return open(body[:-5] + ".info").read() == open(shared).read()
    return read_sidecar(body[:-5] + ".info") == read_sidecar(shared[:-5] + ".info") and \
        os.path.getsize(body) == os.path.getsize(shared)


def read_sidecar(path):
    """hotbench's cache sidecar: "key value" lines (data-gen/hb_gen.h)."""
    out = {}
    try:
        for line in open(path):
            k, _, v = line.strip().partition(" ")
            out[k] = v
    except OSError:
        pass
    return out


# ---- checks ---------------------------------------------------------------------------------

def crc_of(argv):
    """(crc32 as 8 hex digits, size) of argv's standard output, or (None, exit status)."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE)
    crc = n = 0
    for block in iter(lambda: p.stdout.read(1 << 20), b""):
        crc = zlib.crc32(block, crc)
        n += len(block)
    rc = p.wait()
    return ("%08x" % crc, n) if rc == 0 else (None, rc)


def output_to(argv, path):
    """Runs argv with its standard output in path; returns its exit status."""
    with open(path, "wb") as out:
        return subprocess.run(argv, stdout=out).returncode


def same_file(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def ms_rounded(src, dst):
    """The check output-ms: '<s> <ns>' lines with ns rounded down to milliseconds."""
    with open(src) as f, open(dst, "w") as out:
        for line in f:
            s, ns = line.split()
            out.write("%s %d\n" % (s, int(ns) - int(ns) % 1000000))


# ---- the session: groups timed, the JSON --------------------------------------------------

class Session:
    def __init__(self, a, tools, manifest):
        self.a, self.tools, self.manifest = a, tools, manifest
        self.failed = False
        self.groups = []
        self._inputs, self._items = {}, {}
        self.style = "full" if sys.stdout.isatty() else "basic"

    def check_failed(self, what):
        log("CHECK FAILED: " + what)
        self.failed = True

    def input(self, run):
        """(path, sidecar or None) of run's input, made once."""
        if run.key not in self._inputs:
            if run.check == "crc32-sidecar":
                self._inputs[run.key] = self.tools.sidecar_input(run)
            else:
                self._inputs[run.key] = (self.tools.gen_input(run.gen_args), None)
        return self._inputs[run.key]

    def items(self, run):
        if run.key not in self._items:
            self._items[run.key] = run.items or self.tools.counted_items(run, self.input(run)[0])
        return self._items[run.key]

    def time_group(self, name, title, large, cmds, notes):
        """Times cmds (dicts: argv, prepare, meta) in one hyperfine invocation."""
        runs, warmup = ((self.a.runs, self.a.warmup) if large
                        else (self.a.small_runs, self.a.small_warmup))
        t, rc, results = time.monotonic(), 1, []
        out = os.path.join(self.tools.work, name + ".json")
        if not cmds:
            log("group %s: nothing left to time" % name)
        else:
            log("group %s: %s: %d commands x (%d warm-up + %d runs)"
                % (name, title, len(cmds), warmup, runs))
            preps = [x for c in cmds if c["prepare"] for x in ("--prepare", c["prepare"])]
            rc = subprocess.run(["hyperfine", "-N", "--style", self.style, "--output=null",
                                 "--warmup", str(warmup), "--runs", str(runs), "--export-json",
                                 out] + preps + [" ".join(c["argv"]) for c in cmds]).returncode
            if rc != 0:
                log("group %s FAILED (hyperfine exit %d): a command exited non-zero; see above"
                    % (name, rc))
            try:
                results = json.load(open(out))["results"]
            except (OSError, ValueError, KeyError):
                results = []
        self.failed |= rc != 0
        for r, c in zip(results, cmds):
            r.update(c["meta"], prepare=c["prepare"])
        secs = int(time.monotonic() - t)
        self.groups.append({"name": name, "title": title, "runs": runs, "warmup": warmup,
                            "hyperfine_exit": rc, "ok": rc == 0, "seconds": secs,
                            "large": large, "notes": notes,
                            "commands": [" ".join(c["argv"]) for c in cmds], "results": results})
        log("group %s done in %d s" % (name, secs))


def command(argv, case, strategy, inp, items, unit, inprocess=None, output="/dev/null",
            prepare=None):
    size = os.path.getsize(inp) if inp and inp != "/dev/null" and os.path.exists(inp) else 0
    return {"argv": argv, "prepare": prepare,
            "meta": {"case": case, "strategy": strategy, "input": inp, "input_bytes": size,
                     "output": output, "items": items, "items_unit": unit,
                     "inprocess": inprocess}}


# ---- the groups -------------------------------------------------------------------------------

def gen_group(s, name, runs):
    """The generators of runs, each writing a file; the last output compared with the input."""
    outdir = os.path.join(s.tools.data, "e2e-out")
    os.makedirs(outdir, exist_ok=True)
    cmds, seen, checks = [], [], []
    for r in runs:
        if r.gen_args in seen:
            continue
        seen.append(r.gen_args)
        out = os.path.join(outdir, "%s-%d" % (r.gen_args[0], len(seen)))
        cmds.append(command([s.tools.gen] + r.gen_args + ["-o", out], "gen", " ".join(r.gen_args),
                            None, s.items(r), r.e["item_unit"], output=out,
                            prepare="sh -c 'rm -f %s; sync'" % out))
        checks.append((out, s.input(r)[0], r.gen_args))
    large = any(r.large for r in runs)
    what = "; ".join("%s (%s)" % (c["meta"]["strategy"],
                                  fmt_items(c["meta"]["items"], c["meta"]["items_unit"]))
                     for c in cmds)
    s.time_group(name, "hotbench-gen %s, to a file" % what, large, cmds, [])
    for out, cached, args in checks:
        if s.a.verify and (not os.path.exists(out) or not same_file(out, cached)):
            s.check_failed("hotbench-gen %s: %s differs from %s" % (" ".join(args), out, cached))
        if os.path.exists(out):
            os.remove(out)


def reference_outputs(s, r, path):
    """{'main': expected output file or (crc32, size), 'alt': file} for r's checks, or None
    when the reference itself fails."""
    ref = r.e["reference"]
    work = s.tools.work
    if r.check == "crc32-sidecar":
        info = s.input(r)[1] or {}
        if info.get("crc32"):
            return {"main": (info["crc32"], int(info["size"]))}
        log("%s: no sidecar beside %s: taking the reference decoder's crc32 (%s)" % (r.key, path, ref))
        got = crc_of(r.decode_argv(s.tools, ref, path))
        return {"main": got} if got[0] else None
    main = os.path.join(work, r.key + "-ref.out")
    if output_to(r.decode_argv(s.tools, ref, path), main) != 0:
        return None
    out = {"main": main}
    if r.e.get("alt_gen_args"):
        out["alt"] = os.path.join(work, r.key + "-ref-alt.out")
        if r.e.get("alt_check") != "output-ms":
            raise Usage("%s: alt_check %r unknown (docs/manifest.md)" % (r.key, r.e.get("alt_check")))
        ms_rounded(main, out["alt"])
    return out


def check_strategy(s, r, strategy, path, expected):
    """None when strategy's output on path is the expected one, else what went wrong."""
    argv = r.decode_argv(s.tools, strategy, path)
    if isinstance(expected, tuple):
        log("%s: checking %s (one run, its output's crc32)" % (r.key, strategy))
        got = crc_of(argv)
        if got[0] is None:
            return "%s: exit %d" % (" ".join(argv), got[1])
        if got != expected:
            return "%s: crc32 and size '%s %d', expected '%s %d'" % ((" ".join(argv),) + got + expected)
        return None
    out = os.path.join(s.tools.work, "out")
    rc = output_to(argv, out)
    if rc != 0:
        return "%s: non-zero exit (%d)" % (" ".join(argv), rc)
    if not same_file(out, expected):
        return "%s: output differs from the reference's (%s)" % (" ".join(argv), r.e["reference"])
    return None


def decode_group(s, r):
    """hotbench-decode on r's input, every strategy checked first, then timed."""
    path = s.input(r)[0]
    items, unit = s.items(r), r.e["item_unit"]
    alt = s.tools.gen_input(r.e["alt_gen_args"]) if r.e.get("alt_gen_args") else None
    timed, notes = r.strategies()
    for n in notes:
        log("%s: %s" % (r.key, n))
    expected = reference_outputs(s, r, path) if s.a.verify else {}
    if expected is None:
        s.check_failed("the reference (%s) fails on %s" % (r.e["reference"], path))
        expected = {}
    cmds = []
    for st in timed:
        inp = alt if r.is_alt(st) else path
        want = expected.get("alt" if r.is_alt(st) else "main")
        why = check_strategy(s, r, st, inp, want) if s.a.verify and want else None
        if s.a.verify and not want:
            why = "no reference output to compare with"
        if why:
            s.check_failed(why)
            notes.append("not timed: %s exited non-zero or gave a wrong answer (see the log)" % st)
            continue
        cmds.append(command(r.decode_argv(s.tools, st, inp), r.key, st, inp, items, unit,
                            r.inprocess.replace("%s", st)))
    if r.e.get("startup"):
        cmds.append(command(r.decode_argv(s.tools, r.e["reference"], "/dev/null"), "startup",
                            "start-up (empty input)", "/dev/null", 0, unit))
    title = "hotbench-decode %s, %s, to /dev/null" % (" ".join(r.e["decode_args"]),
                                                     fmt_items(items, unit))
    s.time_group(r.key, title, r.large, cmds, notes)


# ---- the JSON ---------------------------------------------------------------------------------

def _first_line(path, prefix):
    try:
        for line in open(path):
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _cmake_cache(build, key):
    v = _first_line(os.path.join(build, "CMakeCache.txt"), key + ":")
    return v.split("=", 1)[1].strip() if v and "=" in v else None


def context(s, info):
    return {
        "date": info["date"], "stamp": info["stamp"],
        "git_revision": info["rev"], "git_sha": info["sha"],
        "hyperfine_version": info["hf"], "host": socket.gethostname(),
        "kernel": machine.kernel(),
        "cpu": machine.cpu_model(),
        "num_cpus": os.cpu_count(),
        "mem_total_bytes": machine.memory_bytes(),
        "load_avg_start": info["load"], "load_avg_end": list(os.getloadavg()),
        "build_dir": s.tools.build, "build_type": _cmake_cache(s.tools.build, "CMAKE_BUILD_TYPE"),
        "sanitize": _cmake_cache(s.tools.build, "HB_SANITIZE"),
        "c_compiler": _cmake_cache(s.tools.build, "CMAKE_C_COMPILER"),
        "data_dir": s.tools.data, "verified": s.a.verify, "shell": "none (hyperfine -N)",
        "output": "decoders: /dev/null (hyperfine --output=null); generators: a file in "
                  + s.tools.data + "/e2e-out/, removed and synced before each run",
        "seconds": int(time.monotonic() - T0), "failed": s.failed,
        "hb_manifest": json.dumps(s.manifest.doc, separators=(",", ":")),
    }


def write_json(s, final, info):
    doc = {"context": context(s, info), "groups": s.groups}
    write_json_atomic(final, doc)


def print_medians(groups):
    for g in groups:
        print("\n%s: %s%s" % (g["name"], g["title"], "" if g["ok"] else "  ** FAILED **"))
        for r in g["results"]:
            med = r["median"]
            t = "%8.3f s " % med if med >= 1 else "%8.2f ms" % (med * 1e3)
            print("  %-28s median %s  (min %.4g s, max %.4g s, %d runs)"
                  % (r.get("strategy", r["command"]), t, r["min"], r["max"], len(r["times"])))
        for n in g["notes"]:
            print("  note: " + n)
    sys.stdout.flush()


# ---- main -------------------------------------------------------------------------------------

def setup(a):
    """(tools, manifest, runs, wanted group names) after the prerequisites' checks."""
    build = here(a.build)
    data = here(a.data) if a.data else "data"
    results = here(a.results) if a.results else "results"
    os.chdir(TOP)
    if not a.list and shutil.which("hyperfine") is None:
        raise Usage("hyperfine not found: run scripts/deps.sh (Debian package hyperfine)")
    if re.search(r"\s", data):
        raise Usage("--data: a path without white space, please (hyperfine -N splits words)")
    try:
        manifest = Manifest.from_binary(os.path.join(build, "hotbench"))
    except ManifestError as e:
        raise Usage(str(e))
    runs = plan(manifest, a.size)
    names = group_names(runs)
    only = [g for g in a.only.split(",") if g]
    bad = [g for g in only if g not in names]
    if bad:
        raise Usage("--only: unknown group '%s' (groups: %s)" % (bad[0], " ".join(names)))
    if a.list:
        return None, manifest, runs, names
    os.makedirs(data, exist_ok=True)
    os.makedirs(os.path.join(results, "runs"), exist_ok=True)
    a.results_dir = results
    return Tools(build, data, None), manifest, runs, only or names


def run_all(s, runs, wanted):
    for name in group_names(runs):
        if name not in wanted:
            continue
        gens = [r for r in runs if (r.large and name == "gen-" + r.gen_args[0])
                or (not r.large and name == "gen-small")]
        if name.startswith("gen-") and gens and name not in [r.key for r in runs]:
            gen_group(s, name, gens)
        else:
            decode_group(s, next(r for r in runs if r.key == name))


def finish(s, final, partial):
    link = os.path.join(s.a.results_dir, "e2e-latest.json")
    secs = int(time.monotonic() - T0)
    if not s.failed and partial:
        log("done in %d s: %s (a partial or unverified run: --only, --size or --no-verify; %s "
            "still points to the last complete run)" % (secs, final, link))
    elif not s.failed:
        point_latest(link, final)
        log("done in %d s: %s (%s points to it)" % (secs, final, link))
    else:
        log("done in %d s: %s; a command FAILED (see above), so %s still points to the last "
            "complete run" % (secs, final, link))
    return 1 if s.failed else 0


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        tools, manifest, runs, wanted = setup(a)
    except Usage as e:
        print("e2e: %s" % e, file=sys.stderr)
        return 2
    if a.list:
        print("\n".join(wanted))
        return 0
    if (_cmake_cache(tools.build, "HB_SANITIZE") or "").lower() in ("on", "1", "true", "yes"):
        log("WARNING: %s/ is a sanitizer build (HB_SANITIZE=ON): its times are not hotbench's"
            % tools.build)
    sha = git(TOP, "rev-parse", "--short=12", "HEAD") or "nogit"
    now = datetime.datetime.now(datetime.timezone.utc)
    info = {"sha": sha, "rev": git(TOP, "describe", "--always", "--dirty", "--abbrev=12") or "unknown",
            "stamp": now.strftime("%Y%m%dT%H%M%SZ"), "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "load": list(os.getloadavg()),
            "hf": subprocess.run(["hyperfine", "--version"], capture_output=True,
                                 text=True).stdout.split()[-1]}
    final = os.path.join(a.results_dir, "runs", "%s-%s-e2e.json" % (info["stamp"], sha))
    log("hyperfine %s, tools from %s/, inputs in %s/, results to %s"
        % (info["hf"], tools.build, tools.data, final))
    log("load average %s on %d CPUs" % (" ".join("%.2f" % x for x in info["load"]), os.cpu_count()))
    if info["load"][0] > 0.5:
        log("WARNING: something else is using the CPU (load %.2f); the figures will be noisy"
            % info["load"][0])
    s = Session(a, tools, manifest)
    with tempfile.TemporaryDirectory(prefix="hotbench-e2e.") as work:
        tools.work = work
        try:
            run_all(s, runs, wanted)
        except Usage as e:
            print("e2e: %s" % e, file=sys.stderr)
            return 2
        finally:
            shutil.rmtree(os.path.join(tools.data, "e2e-out"), ignore_errors=True)
    write_json(s, final, info)
    print_medians(s.groups)
    partial = (len(wanted) < len(group_names(runs)) or not a.verify
               or any(r.items != r.e["items"] for r in runs))
    return finish(s, final, partial)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("e2e: interrupted", file=sys.stderr)
        sys.exit(130)

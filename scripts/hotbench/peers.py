"""peers - the real libraries of the incidents, run on the inputs the C models use, checked against
the C references, timed, and recorded in one JSON file (scripts/peers.py runs this).

Which cases have peers, and the code that runs them, come from the manifest: each case's
peers_driver (cases/<case>/peers/driver.py), a module with the small interface of
docs/manifest.md ("Peers drivers"). Nothing here knows a case; this module gives the drivers
what they share: the tools (Env), running a command (run, run_json), errors (PeerError), the
log, and whole-process timing (Hyperfine).

Output: results/runs/<UTC>-<sha>-peers.json (written to a temporary file and renamed) and, for a
complete run (every case with peers, not --quick), the link results/peers-latest.json. Schema
"hotbench-peers/1": {"schema", "context": {"date", "git_revision", "host", "nproc", "python",
"hyperfine", "quick", "hb_manifest", and what each driver's context() adds}, <case>: what the
case's driver measured, "hyperfine": [{"name", "case", "command": [argv], "warmup", "mean_s",
"stddev_s", "median_s", "min_s", "max_s", "times_s"}], "skipped_cases": {case: {"missing":
[package], "install": command}} (only when some were skipped)}.
"""

import argparse
import datetime
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys

from .files import point_latest, write_json_atomic
from .git import git, short_revision
from .manifest import Manifest, ManifestError

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INSTALL = "scripts/deps.sh --peers"
JAVA_RELEASE = 17  # the Java SE release the peers are written for: javac --release, the least JDK
JDK_PACKAGE = "default-jdk-headless"  # the release's own JDK (scripts/deps.sh --peers, need "JDK")
SKIP = 77  # ctest's SKIP_RETURN_CODE
USAGE = """\
usage: scripts/peers.py [--build DIR] [--quick]   run everything, write the results
       scripts/peers.py --check                   exit 0 if some case's runtimes are installed
                                                  (the others are named on stderr), else 3
       scripts/peers.py --verify [CASE] --work DIR [--build DIR]
                                                  tiny inputs and the real fixtures only: every
                                                  peer checked against the C reference, nothing
                                                  timed or written (ctest); exit 77 without
                                                  runtimes"""


class PeerError(Exception):
    """A peer failed or disagreed with the C reference (exit 1, nothing written)."""


def log(msg):
    print("peers: " + msg, file=sys.stderr, flush=True)


def run(argv, what, stdin=None):
    """Runs argv; returns stdout (bytes). A failure is a PeerError naming what."""
    p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PeerError("%s failed (exit %d): %s" % (what, p.returncode,
                                                      err[-1] if err else "(no message)"))
    return p.stdout


def run_json(argv, what):
    """argv's standard output as JSON, one object a line."""
    return [json.loads(line) for line in run(argv, what).decode().splitlines() if line.strip()]


def first_line(argv):
    """The first line a command prints (stdout, else stderr): a version, or 'unknown'."""
    try:
        p = subprocess.run(argv, capture_output=True, text=True)
        return (p.stdout + p.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return "unknown"


def _javac_feature(javac):
    """The feature release of a javac ("javac 21.0.13" -> 21), or None when it does not run."""
    try:
        p = subprocess.run([javac, "-version"], capture_output=True, text=True, timeout=60)
        word = (p.stdout + p.stderr).split()[1]
        return int(word.split(".")[0].split("-")[0].split("+")[0])
    except (OSError, IndexError, ValueError, subprocess.TimeoutExpired):
        return None


_JDK = []


def find_jdk():
    """The JDK the Java peers use, {"javac": path, "java": path, "feature": int}, or None when
    no JDK of release JAVA_RELEASE or later is installed. javac on PATH when it is recent
    enough, else the newest javac the alternatives system knows (update-alternatives --list
    javac); java is the one beside that javac, so both are of one JDK. Looked up once."""
    if _JDK:
        return _JDK[0]
    found = []
    if shutil.which("javac"):
        found.append(os.path.realpath(shutil.which("javac")))
    try:
        alts = subprocess.run(["update-alternatives", "--list", "javac"], capture_output=True,
                              text=True).stdout.split()
    except OSError:
        alts = []
    best = None
    for i, javac in enumerate(found + sorted(alts)):
        feature = _javac_feature(javac)
        java = os.path.join(os.path.dirname(javac), "java")
        if feature is None or feature < JAVA_RELEASE or not os.access(java, os.X_OK):
            continue
        if i < len(found):  # the PATH's own choice wins when it is recent enough
            best = {"javac": javac, "java": java, "feature": feature}
            break
        if best is None or feature > best["feature"]:
            best = {"javac": javac, "java": java, "feature": feature}
    _JDK.append(best)
    return best


def missing_jdk():
    """[JDK_PACKAGE] when no JDK of release JAVA_RELEASE or later is installed, else []."""
    return [] if find_jdk() else [JDK_PACKAGE]


def java_version():
    """The first line of `java -version` of find_jdk()'s JDK, or "unknown"."""
    jdk = find_jdk()
    return first_line([jdk["java"], "-version"]) if jdk else "unknown"


class Env:
    """What a driver runs with: the tools of the build, its scratch folder (inputs, classes)."""

    def __init__(self, build, work):
        self.top = TOP
        self.gen = os.path.join(build, "hotbench-gen")
        self.decode = os.path.join(build, "hotbench-decode")
        for t in (self.gen, self.decode):
            if not os.access(t, os.X_OK):
                raise PeerError("%s not found: build the tools first (make)" % t)
        self.work = work
        self.classes = os.path.join(work, "classes")
        os.makedirs(work, exist_ok=True)

    def compile_java(self, src, classpath=()):
        """Compiles one Java source into classes/ (once per change of the source) with
        find_jdk()'s javac for Java SE JAVA_RELEASE (--release: the same API and class files
        on any later JDK). javac -Werror turns a missing class-path element into an error:
        give a peer only the class path it needs. PeerError without a JDK."""
        stamp = os.path.join(self.classes, ".stamp-" + os.path.basename(src))
        if os.path.exists(stamp) and os.path.getmtime(src) <= os.path.getmtime(stamp):
            return
        os.makedirs(self.classes, exist_ok=True)
        cp = ["-cp", ":".join(classpath)] if classpath else []
        jdk = find_jdk()
        if not jdk:
            raise PeerError("no JDK %d or later: install %s (%s)" % (JAVA_RELEASE, JDK_PACKAGE,
                                                                    INSTALL))
        run([jdk["javac"], "--release", str(JAVA_RELEASE), "-Xlint:all", "-Werror", "-d",
             self.classes] + cp + [src], "javac " + os.path.basename(src))
        open(stamp, "w").close()

    def java(self, cls, *args, jvm=(), classpath=()):
        """The java command line of a class compiled by compile_java (find_jdk()'s java)."""
        jdk = find_jdk()
        return ([jdk["java"] if jdk else "java"] + list(jvm) + ["-cp", ":".join(list(classpath) + [self.classes]), cls]
                + list(args))


class Hyperfine:
    """Whole-process timings of commands already verified in-process."""

    def __init__(self, work, enabled=True):
        self.work, self.enabled, self.results = work, enabled, []

    def add(self, case, name, argv, runs):
        if not self.enabled:
            return
        out = os.path.join(self.work, "hyperfine.json")
        log("hyperfine: %s (%d runs after 1 warm-up)" % (name, runs))
        run(["hyperfine", "-N", "--style", "none", "--warmup", "1", "--runs", str(runs),
             "--export-json", out, " ".join(_quote(a) for a in argv)], "hyperfine " + name)
        r = json.load(open(out))["results"][0]
        self.results.append({"name": name, "case": case, "command": argv, "warmup": 1,
                             "mean_s": r["mean"], "stddev_s": r["stddev"],
                             "median_s": r["median"], "min_s": r["min"], "max_s": r["max"],
                             "times_s": r["times"]})


def _quote(a):
    return "'%s'" % a if any(c in a for c in " \"\\") else a


# --- the drivers ---------------------------------------------------------------------------------

def load_driver(case, path):
    """The driver module at path (relative to the top), loaded once."""
    name = "hb_peers_driver_" + case.replace("-", "_")
    if name in sys.modules:
        return sys.modules[name]
    full = os.path.join(TOP, path)
    if not os.path.exists(full):
        raise ManifestError("case %s: its peers_driver %s does not exist" % (case, path))
    spec = importlib.util.spec_from_file_location(name, full)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def drivers(manifest):
    """{case: driver module} of every case with a peers driver, in the manifest's order."""
    return {c["name"]: load_driver(c["name"], c["peers_driver"]) for c in manifest.cases
            if c.get("peers_driver")}


def find_manifest(build, *run_paths):
    """The manifest of BUILD/hotbench, else of the first run JSON that carries one."""
    try:
        return Manifest.from_binary(os.path.join(build, "hotbench"))
    except (ManifestError, ValueError) as first:
        for p in run_paths:
            try:
                with open(p) as f:
                    return Manifest.from_context(json.load(f).get("context"), p)
            except (OSError, ValueError, ManifestError):
                continue
        raise first


def missing(driver, timing):
    """What a case's peers need and is missing, as Debian packages (hyperfine when timing)."""
    miss = list(driver.missing_runtimes(timing))
    if timing and shutil.which("hyperfine") is None:
        miss.append("hyperfine")
    return miss


# --- the run -------------------------------------------------------------------------------------

def context(quick, manifest, active):
    """The JSON's context: the machine, the tools, and each running driver's own context()."""
    ctx = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "git_revision": git(TOP, "describe", "--always", "--dirty", "--abbrev=12"),
           "host": platform.node(), "nproc": os.cpu_count(),
           "python": platform.python_version(),
           "hyperfine": first_line(["hyperfine", "--version"]), "quick": quick}
    for d in active.values():
        if hasattr(d, "context"):
            for k, v in d.context().items():
                if isinstance(v, dict) and isinstance(ctx.get(k), dict):
                    ctx[k].update(v)
                else:
                    ctx[k] = v
    ctx["hb_manifest"] = json.dumps(manifest.doc, separators=(",", ":"))
    return ctx


def write_results(doc, link):
    runs = os.path.join(TOP, "results", "runs")
    os.makedirs(runs, exist_ok=True)
    sha = short_revision(TOP)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    final = os.path.join(runs, "%s-%s-peers.json" % (stamp, sha))
    write_json_atomic(final, doc)
    if link:
        point_latest(os.path.join(TOP, "results", "peers-latest.json"), final)
    return final


def measure(env, active, quick, manifest):
    """Times the peers of the active cases; returns the results document."""
    hf = Hyperfine(env.work)
    doc = {"schema": "hotbench-peers/1", "context": context(quick, manifest, active)}
    for case, d in active.items():
        doc[case] = d.measure(env, quick, hf)
    doc["hyperfine"] = hf.results
    return doc


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="scripts/peers.py", usage=USAGE.split("usage: ", 1)[1],
        description="The real libraries of the incidents (each case's peers driver, named by "
        "the manifest) run on the inputs the C models use, checked against the C references, "
        "timed, and recorded in results/runs/<UTC>-<sha>-peers.json (and "
        "results/peers-latest.json after a complete run).",
        epilog="A case whose runtime is missing or partial is skipped and named with the "
        "packages to install, and recorded under \"skipped_cases\"; the other cases run. "
        "HB_HTTPCORE_JAR and similar overrides are the drivers' (docs/manifest.md). Every "
        "peer's answer is compared with the C reference (hotbench-decode) before its timings "
        "are recorded; a mismatch is an error (exit 1) and nothing is written. Run under "
        "Debian's /usr/bin/python3.")
    ap.add_argument("--build", default=os.path.join(TOP, "build"),
                    help="folder of hotbench, hotbench-gen and hotbench-decode (default build/)")
    ap.add_argument("--work", default=os.path.join(TOP, "data", "peers"),
                    help="inputs and compiled classes (default data/peers)")
    ap.add_argument("--check", action="store_true", help="only check that the runtimes exist")
    ap.add_argument("--verify", nargs="?", const="all", default=None, metavar="CASE",
                    help="tiny inputs, verification only (of CASE, default every case)")
    ap.add_argument("--case", default=None, help="one case only (default all)")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes only (no 1 GiB bodies, no slow engines at large sizes): "
                    "minutes")
    return ap.parse_args(argv)


def select(a, all_drivers):
    """The cases asked for (--case, or --verify CASE), or a usage error."""
    case = a.case or (a.verify if a.verify not in (None, "all") else None) or "all"
    if case != "all" and case not in all_drivers:
        raise ManifestError("no case %r with peers (cases with peers: %s)"
                            % (case, ", ".join(all_drivers) or "none"))
    return dict(all_drivers) if case == "all" else {case: all_drivers[case]}


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        manifest = find_manifest(a.build, os.path.join(TOP, "results", "latest.json"))
        all_drivers = drivers(manifest)
        wanted = select(a, all_drivers)
    except ManifestError as e:
        print("peers: %s" % e, file=sys.stderr)
        return 2
    verify = a.verify is not None
    skipped = {c: m for c, d in wanted.items() for m in [missing(d, not verify)] if m}
    for c, m in skipped.items():
        print("peers: %s skipped: missing %s (install: %s)" % (c, " ".join(m), INSTALL),
              file=sys.stderr)
    active = {c: d for c, d in wanted.items() if c not in skipped}
    if not active:
        print("peers: runtimes not installed, run " + INSTALL, file=sys.stderr)
        return SKIP if verify else 3
    if a.check:
        return 0
    try:
        env = Env(os.path.abspath(a.build), os.path.abspath(a.work))
        for d in active.values():
            if hasattr(d, "prepare"):
                d.prepare(env)
        if verify:
            for c, d in active.items():
                d.verify(env)
                log("verify %s: every peer agrees with the C reference" % c)
            return 0
        doc = measure(env, active, a.quick, manifest)
        if skipped:
            doc["skipped_cases"] = {c: {"missing": m, "install": INSTALL}
                                    for c, m in skipped.items()}
    except PeerError as e:
        print("peers: error: %s" % e, file=sys.stderr)
        return 1
    complete = len(active) == len(all_drivers) and not a.quick  # only then the link moves
    final = write_results(doc, complete)
    log("results in %s%s" % (os.path.relpath(final, TOP), " (results/peers-latest.json points "
                             "to it)" if complete else ""))
    return 0

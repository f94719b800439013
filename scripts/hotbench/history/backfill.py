"""backfill - `make history-run REVS=A..B`: build each commit (compare/revisions.py: a git
worktree, cached in build-rev/<commit>/), run its hotbench on a selection and record it (kind
'backfill'), like `asv run A..B`.

A commit already recorded for this machine with the same selection (runs.selection, e.g.
"filter=gate.select repetitions=3 min_time=0.01 budget=0.25") is skipped, and said so: a run
interrupted (Ctrl-C) resumes where it stopped. A commit that does not build is reported `not
built` with its first compiler error (nothing of it goes into the database, so a later run
tries it again); one whose hotbench fails or lacks what the selection needs is reported
`failed`; the others go on.

Seams (for tests): Backfill(..., build=, run=, help_text=) replace building a commit, running
its hotbench and reading its --help; record() is store.write on the parsed run JSON.
"""

import os
import subprocess
import time

from ..compare import revisions
from ..selection import BUDGET_S, MALLOC_ENV, selection_filter
from ..manifest import Manifest, ManifestError
from . import store
from .machine import local_context, machine_of
from .record import RecordError, current_branch, from_run_json, git

DEFAULT_REPETITIONS = 3
DEFAULT_MIN_TIME = 0.01
DEFAULT_BUDGET = BUDGET_S
GATE = "gate.select"
# the hotbench options the run uses, each with what replaces it in an older hotbench (None: left
# out); --hb_manifest is only needed for the default selection
OPTIONAL = (("--hb_profile", None), ("--hb_budget", None),
            ("--hb_repetitions", "--benchmark_repetitions"))


class RangeError(Exception):
    """REVS names no commit; the message says why."""


def expand(root, revs):
    """[(sha, subject)] oldest first for revs (str): 'A..B' is the commits reachable from B
    and not from A along first parents (the main line, as `git log --first-parent A..B`); a
    single revision is that commit. Raises RangeError naming revs when git knows none."""
    if ".." in revs:
        a, b = revs.split("..", 1)
        if not b or not a:
            raise RangeError("REVS=%s: give both ends, A..B" % revs)
        for end in (a, b):
            if not git(root, "rev-parse", "--verify", "--quiet", end + "^{commit}"):
                raise RangeError("REVS=%s: git knows no commit %r" % (revs, end))
        out = git(root, "log", "--reverse", "--first-parent", "--format=%H %s", revs)
        if not out:
            raise RangeError("REVS=%s: no commit in that range (is %s an ancestor of %s?)" % (
                revs, a, b))
    else:
        sha = git(root, "rev-parse", "--verify", "--quiet", revs + "^{commit}")
        if not sha:
            raise RangeError("REVS=%s: git knows no such commit" % revs)
        out = git(root, "log", "-1", "--format=%H %s", sha)
    return [tuple((line.split(" ", 1) + [""])[:2]) for line in out.splitlines()]


def selection_label(filt, repetitions, min_time, budget):
    """The runs.selection of a backfill: what decides which figures a run holds."""
    return "filter=%s repetitions=%d min_time=%g budget=%g" % (
        filt or GATE, repetitions, min_time, budget)


def recorded(con, sha, machine, selection):
    """The id of a backfill run of commit sha (full) on machine with selection, or None."""
    row = con.execute("SELECT id FROM runs WHERE kind='backfill' AND revision=? AND machine=? "
                      "AND selection=? LIMIT 1", (sha, machine, selection)).fetchone()
    return row[0] if row else None


def hotbench_help(binary):
    """hotbench --help's text (stdout and stderr), '' when it cannot run."""
    try:
        p = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return p.stdout + p.stderr


def run_hotbench(cmd, env, log_path):
    """Runs cmd with env added, its output into log_path; its exit status."""
    with open(log_path, "w") as f:
        return subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT,
                               env=dict(os.environ, **env))


def fmt(seconds):
    """Seconds as m:ss for the progress lines."""
    return "%d:%02d" % divmod(int(round(seconds)), 60)


NOT_BUILT = "not built"


class Outcome:
    """What happened to one commit: status 'recorded', 'skipped' (already recorded), NOT_BUILT
    (the build failed: why is its first compiler error and its log) or 'failed' (hotbench
    failed, the selection cannot run), with a sentence; error: a build's first compiler error
    (one line, its message joined on; "" unless NOT_BUILT)."""

    def __init__(self, status, why, seconds=0.0, error=""):
        self.status, self.why, self.seconds, self.error = status, why, seconds, error


class Backfill:
    """One history-run over commits [(sha, subject)] into the database at db_path.

    root: the repository (builds in root/build-rev/); filt: a --benchmark_filter or None (the
    commit's manifest gate.select); repetitions, min_time (s), budget (s): the run's; log:
    prints a line. build(sha) -> hotbench path (raises revisions.BuildError), run(cmd, env,
    log_path) -> exit status and help_text(binary) -> str are the seams tests replace."""

    def __init__(self, root, db_path, filt=None, repetitions=DEFAULT_REPETITIONS,
                 min_time=DEFAULT_MIN_TIME, budget=DEFAULT_BUDGET, log=print,
                 build=None, run=None, help_text=None):
        self.root, self.db_path, self.filt, self.log = root, db_path, filt, log
        self.repetitions, self.min_time, self.budget = repetitions, min_time, budget
        self.selection = selection_label(filt, repetitions, min_time, budget)
        self.build = build or self._build
        self.run = run or run_hotbench
        self.help_text = help_text or hotbench_help
        self.out_dir = os.path.join(root, "results", "runs", "backfill")
        self.built_s = 0.0  # seconds the last commit's build (or cache look-up) took
        self.not_built = []  # (sha, subject, first error line) of the commits not built

    def _build(self, sha):
        """The compare's cached build of sha (revisions.build), its lines indented."""
        return revisions.build(self.root, sha, False,
                               lambda m: self.log("  " + m.replace("compare: ", "", 1)))

    def command(self, binary, sha, out_json):
        """(argv, notes): the run of binary; notes name the options this hotbench lacks (left
        out or replaced) and None for argv when the selection cannot run."""
        text, notes = self.help_text(binary), []
        filt = self.filt
        if filt is None:
            try:
                filt = selection_filter(Manifest.from_binary(binary)) if "--hb_manifest" in \
                    text else None
            except (ManifestError, OSError, ValueError) as e:
                notes.append("its manifest is unreadable (%s)" % e)
            if filt is None:
                notes.append("no manifest with a gate.select (older hotbench): give FILTER=")
                return None, notes
        values = {"--hb_profile": "full", "--hb_budget": "%g" % self.budget,
                  "--hb_repetitions": "%d" % self.repetitions}
        argv = [binary]
        for opt, instead in OPTIONAL:
            if opt in text:
                argv.append("%s=%s" % (opt, values[opt]))
            elif instead:
                argv.append("%s=%s" % (instead, values[opt]))
                notes.append("no %s: %s instead" % (opt, instead))
            else:
                notes.append("no %s: left out" % opt)
        argv += ["--benchmark_min_time=%g" % self.min_time, "--benchmark_filter=" + filt,
                 "--benchmark_out=" + out_json, "--benchmark_out_format=json"]
        return argv, notes

    def one(self, con, machine, sha):
        """Builds, runs and records commit sha; an Outcome. Raises only KeyboardInterrupt
        (after removing its partial output) and sqlite3 errors of the database."""
        started = time.time()
        if recorded(con, sha, machine, self.selection):
            return Outcome("skipped", "already recorded for this machine and selection")
        try:
            binary = self.build(sha)
        except revisions.BuildError as e:
            why = " ".join(e.error) or "no compiler error in its log"
            return Outcome(NOT_BUILT, "%s; its build log: %s" % (why, e.log),
                           time.time() - started, error=why)
        self.built_s = time.time() - started
        os.makedirs(self.out_dir, exist_ok=True)
        final = os.path.join(self.out_dir, "%s-%s.json" % (
            sha[:12], time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())))
        tmp, logp = final + ".tmp", final[:-5] + ".log"
        argv, notes = self.command(binary, sha, tmp)
        for n in notes:
            self.log("  note: this commit's hotbench: %s" % n)
        if argv is None:
            return Outcome("failed", "cannot run the selection", time.time() - started)
        try:
            rc = self.run(argv, dict(MALLOC_ENV), logp)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        return self._record(con, sha, rc, tmp, final, logp, started)

    def _record(self, con, sha, rc, tmp, final, logp, started):
        if rc not in (0, 1) or not os.path.exists(tmp):
            if os.path.exists(tmp):
                os.remove(tmp)
            return Outcome("failed", "hotbench exited %s; its log: %s" % (rc, logp),
                           time.time() - started)
        os.replace(tmp, final)
        try:
            rec = from_run_json(final, "backfill", self.root, current_branch(self.root),
                                self.selection)
        except RecordError as e:
            return Outcome("failed", str(e), time.time() - started)
        rec.run["revision"] = sha  # the built commit, whatever its hotbench reports
        run_id, new = store.write(con, rec)
        if not new:
            return Outcome("skipped", "%s is recorded already (run %d)" % (final, run_id),
                           time.time() - started)
        ran_s = time.time() - started - self.built_s
        why = "run %d, %d measurements; build %s, run %s" % (
            run_id, len(rec.measurements), fmt(self.built_s), fmt(ran_s))
        if rc == 1:
            why += "; a strategy failed verification (log: %s)" % logp
        return Outcome("recorded", why, time.time() - started)

    def run_all(self, commits):
        """Runs every commit [(sha, subject)] oldest first, a progress line for each; returns
        {status: count} (recorded, skipped, not built, failed); self.not_built lists (sha,
        subject, first error line) of those that did not build. Ctrl-C propagates as
        KeyboardInterrupt after saying where it stopped
        (the commits recorded so far stay; the interrupted one left nothing)."""
        con = store.open_db(self.db_path)
        machine = machine_of(local_context())[0]
        counts = {"recorded": 0, "skipped": 0, NOT_BUILT: 0, "failed": 0}
        t0, run_secs, i = time.time(), [], 0
        try:
            for i, (sha, subject) in enumerate(commits, 1):
                self.log("commit %d/%d %s %s" % (i, len(commits), sha[:12], subject[:60]))
                o = self.one(con, machine, sha)
                counts[o.status] += 1
                if o.status == NOT_BUILT:
                    self.not_built.append((sha, subject, o.error))
                if o.status != "skipped":
                    run_secs.append(o.seconds)
                left = len(commits) - i
                est = (sum(run_secs) / len(run_secs) * left) if run_secs else 0.0
                self.log("  %s: %s (%s); elapsed %s, remaining ~%s" % (
                    o.status, o.why, fmt(o.seconds), fmt(time.time() - t0), fmt(est)))
        except KeyboardInterrupt:
            self.log("history-run: interrupted at commit %d/%d: nothing of it recorded; the "
                     "same command resumes (recorded commits are skipped)" % (i, len(commits)))
            raise
        finally:
            con.close()
        return counts

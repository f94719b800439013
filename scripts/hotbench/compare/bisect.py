"""bisect - the first commit that made a benchmark slower: git bisect driven by scripts/compare.py.

    scripts/perf_bisect.py --good REV --bad REV --filter ERE [--hooks] [--rounds N] [--out DIR]
                      [-- COMPARE-OPTIONS]

GOOD and BAD must resolve to commits, GOOD an ancestor of BAD. BAD is first compared with GOOD
(scripts/compare.py --base GOOD --head BAD): when it does not regress, there is nothing to bisect
(exit 1). Otherwise `git bisect start --no-checkout` (the working tree is never touched: a step's
commit is BISECT_HEAD) and `git bisect run` with a step that compares that commit with GOOD:
compare.py's exit 0 (no confirmed regression) marks it good, 1 (a confirmed regression) bad, 3
(the commit does not build: `not built`) skips it (`git bisect skip`), anything else aborts the
bisection with compare's message. Each skipped commit is listed with its subject and its first
compiler error; when skipped commits sit next to the first bad one, the answer is the list of
commits it could be, as git gives it. The first bad commit is then explained against GOOD, per
function (make explain's table and flame graphs, OUT/explain/; the steps' compares skip theirs).
Options after `--` go to every compare.py (e.g. -- --no-complexity). Every compare's folder
(compare.json, compare.log) is kept in OUT/<commit>/; OUT/bisect.json records the steps and the
answer. The bisect state is reset at the end, on an error, on Ctrl-C and on SIGTERM.
"""

import argparse
import datetime
import json
import os
import shlex
import signal
import subprocess
import sys
import time

from ..git import is_ancestor, run as git_run
from .copies import COPIES
from .notbuilt import not_built_of, rel

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
PROG = "bisect"
# compare.py's exit status -> git bisect run's: good, bad, skip (anything else aborts)
GIT_STATUS = {0: 0, 1: 1, 3: 125}
ABORT = 128
EPILOG = """\
Exit status: 0 the first bad commit found; 1 BAD does not regress against GOOD (nothing to
bisect); 2 a usage error (unknown revision, GOOD not an ancestor of BAD, no --filter, a
bisection already in progress) or a run error (compare.py failed on a step: the bisection is
aborted); 3 undecided because of commits that do not build (GOOD or BAD does not build, or the
first bad commit is among skipped commits: the candidates are listed); 130 interrupted.
`make bisect GOOD=<rev> BAD=<rev> FILTER=<regex> [HOOKS=1] [ROUNDS=N]` runs this."""


class BisectError(Exception):
    """A usage or run error: its message is printed, the exit status is `code`."""

    def __init__(self, msg, code=2):
        super().__init__(msg)
        self.code = code


class Stop(Exception):
    """Raised by the SIGTERM handler so that the bisect state is reset as on Ctrl-C."""


def say(msg, stream=None):
    """Prints one line prefixed with 'bisect: ' (to stdout unless stream), flushed at once."""
    print("%s: %s" % (PROG, msg), file=stream or sys.stdout, flush=True)


def git(*args, check=True):
    """Runs git in the repository (ROOT) and returns its stdout stripped. Errors: BisectError
    with git's message when it fails and check is true; with check false, None on failure."""
    rc, out, err = git_run(ROOT, *args)
    if rc != 0:
        if not check:
            return None
        raise BisectError("git %s failed: %s" % (" ".join(args), err.strip()))
    return out.strip()


def resolve(name, rev):
    """The commit id of rev (name is GOOD or BAD, for the message). Errors: BisectError when
    rev is empty or names no commit."""
    if not rev:
        raise BisectError("no %s revision given (--%s REV; make bisect %s=<rev>)"
                          % (name, name.lower(), name))
    commit = git("rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}",
                 check=False)
    if not commit:
        raise BisectError("%s=%s is not a commit of this repository (%s)" % (name, rev, ROOT))
    return commit


def subject(commit):
    """The first line of commit's message."""
    return git("log", "-1", "--format=%s", commit)


def check_range(good, bad, args):
    """Refuses (BisectError) GOOD equal to BAD or GOOD not an ancestor of BAD."""
    if good == bad:
        raise BisectError("GOOD=%s and BAD=%s are the same commit %s"
                          % (args.good, args.bad, good[:12]))
    if not is_ancestor(ROOT, good, bad):
        raise BisectError("GOOD=%s (%s) is not an ancestor of BAD=%s (%s): git bisect needs "
                          "GOOD in BAD's history" % (args.good, good[:12], args.bad, bad[:12]))


def bisect_start_path():
    """The path of git's BISECT_START file, which exists while a bisection is in progress."""
    start = git("rev-parse", "--git-path", "BISECT_START")
    return start if os.path.isabs(start) else os.path.join(ROOT, start)


def check_idle():
    """Refuses (BisectError) to start while a bisection is in progress in this repository (or
    this worktree), saying how to end it."""
    start = bisect_start_path()
    if os.path.exists(start):
        raise BisectError("a bisection is already in progress in %s (%s): end it with "
                          "`git -C %s bisect reset` (`git bisect log` shows it first)"
                          % (ROOT, start, shlex.quote(ROOT)))


def compare_cmd(settings, commit, out):
    """The compare.py command line comparing commit with settings' GOOD, writing to out."""
    cmd = [sys.executable, settings["compare"], "--base", settings["good"], "--head", commit,
           "--filter", settings["filter"], "--out", out, "--no-explain"]
    if settings.get("rounds"):
        cmd += ["--rounds", str(settings["rounds"])]
    if settings.get("hooks"):
        cmd.append("--hooks")
    return cmd + settings.get("compare_args", [])


def run_compare(settings, commit):
    """Compares commit with GOOD (settings: good, filter, rounds, hooks, compare, out); the
    compare's folder is OUT/<commit>/ with compare.log (its stdout and stderr). Returns a dict:
    commit, status (compare.py's exit), elapsed (s), result (compare.json or None), message
    (the last lines compare wrote on stderr, or of its log)."""
    out = os.path.join(settings["out"], commit)
    os.makedirs(out, exist_ok=True)
    log, err = os.path.join(out, "compare.log"), os.path.join(out, "compare.err")
    t0 = time.monotonic()
    with open(log, "w") as fo, open(err, "w") as fe:
        fo.write("$ %s\n" % " ".join(shlex.quote(a) for a in compare_cmd(settings, commit, out)))
        fo.flush()
        # its own process group, stopped whole (the build, hotbench) on Ctrl-C or SIGTERM
        proc = subprocess.Popen(compare_cmd(settings, commit, out), stdout=fo, stderr=fe,
                                cwd=ROOT, start_new_session=True)
        try:
            status = proc.wait()
        except BaseException:
            stop_group(proc)
            raise
    step = dict(commit=commit, status=status, elapsed=round(time.monotonic() - t0, 1),
                result=read_json(os.path.join(out, "compare.json")))
    step["message"] = tail(err) or tail(log)
    return step


def read_json(path):
    """The JSON document at path, or None when it is missing or unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def tail(path, lines=5):
    """The last `lines` non-empty lines of the text file at path, joined ('' when none)."""
    try:
        with open(path, errors="replace") as f:
            text = [l.rstrip() for l in f if l.strip()]
    except OSError:
        return ""
    return "\n".join(text[-lines:])


def regressed_rows(result):
    """The rows of a compare.json that made it exit 1: regressed, or failed (a verification
    failure in the head); empty when result is None."""
    return [r for r in (result or {}).get("rows", [])
            if r.get("verdict") in ("regressed", "failed")]


def worst_row(result):
    """The row to show for a compare: the regressed (or failed) row with the largest ratio,
    else the measured row with the largest ratio; None when there is no such row."""
    rows = regressed_rows(result)
    if not rows:
        rows = [r for r in (result or {}).get("rows", [])
                if isinstance(r.get("ratio"), (int, float))]
    return max(rows, key=lambda r: r.get("ratio") or 0) if rows else None


def unconfirmed_note(result):
    """'; slower but not confirmed: <row> (<its time check>); <how to decide it>' for the
    inconclusive row of a compare.json with the largest ratio above 1 (a slowdown the noise of
    this machine, or the spread of its binary's copies, left undecided), '' when there is none.
    Where the copies' spread left it undecided (confirmation.test_verdict: the interval with the
    copy a random effect has about copies - 1 degrees of freedom), more copies decide it; else
    more ABBA blocks."""
    rows = [r for r in (result or {}).get("rows", []) if r.get("verdict") == "inconclusive"
            and isinstance(r.get("ratio"), (int, float)) and r["ratio"] > 1]
    if not rows:
        return ""
    row = max(rows, key=lambda r: r["ratio"])
    if "copies' own spread" in (row.get("check") or ""):
        how = "more copies of each binary (-- --copies N; make bisect: COMPARE_ARGS='--copies " \
            "N', N above the default %d) or a quieter machine may decide it" % COPIES
    else:
        how = "more ABBA blocks (-- --confirm-rounds N; make bisect: COMPARE_ARGS=" \
            "'--confirm-rounds N') or a quieter machine may decide it"
    return "; slower but not confirmed: %s; %s" % (fmt_row(row), how)


def verdict_of(step):
    """A compare's verdict in one word: regressed, no-regression, not-built or error."""
    return {0: "no-regression", 1: "regressed", 3: "not-built"}.get(step["status"], "error")


def build_error(step):
    """The first compiler error line of a not-built step's compare.json ('' when none): the
    head's (the step's commit) when it is the side not built, else the first side's."""
    sides = not_built_of(step.get("result"))
    if not sides:
        return ""
    label, _, _, error = ([s for s in sides if s[0] == "head"] or sides)[0]
    line = error[0] if error else "(no error line in its build log)"
    return line if label == "head" else "GOOD: " + line


def fmt_row(row, short=False):
    """'ratio 1.153 CI [1.120, 1.190] NAME (check)' for a compare.json row ('' for None); short:
    the check's first words only (up to its first ':'). A row without a ratio shows its
    verdict."""
    if not row:
        return ""
    ci = row.get("ci") or []
    ci_s = " CI [%.3f, %.3f]" % tuple(ci[:2]) if len(ci) >= 2 and None not in ci[:2] else ""
    check = row.get("check") or ""
    check = " (%s)" % (check.split(":")[0] if short else check) if check else ""
    ratio = row.get("ratio")
    ratio_s = "ratio %.3f" % ratio if isinstance(ratio, (int, float)) else row.get("verdict", "?")
    return "%s%s %s%s" % (ratio_s, ci_s, row.get("name", "?"), check)


def progress_line(step, label):
    """One line per step: label, commit, verdict (and what git makes of it), ratio, elapsed."""
    git_word = {0: "good", 1: "bad", 125: "skip"}.get(GIT_STATUS.get(step["status"]), "abort")
    what = build_error(step) if step["status"] == 3 else \
        fmt_row(worst_row(step["result"]), short=True)
    return "%-8s %s %-13s -> %-5s %s  %.0f s" % (
        label, step["commit"][:12], verdict_of(step), git_word, what or "-", step["elapsed"])


def record_step(settings, step):
    """Appends step (without its compare.json) to OUT/steps.jsonl, which bisect.json gathers;
    returns the number of steps recorded so far."""
    keep = {k: step[k] for k in ("commit", "status", "elapsed")}
    keep["verdict"] = verdict_of(step)
    if step["status"] == 3:
        keep["subject"] = subject(step["commit"])
        keep["error"] = build_error(step)
    path = os.path.join(settings["out"], "steps.jsonl")
    with open(path, "a") as f:
        f.write(json.dumps(keep) + "\n")
    with open(path) as f:
        return sum(1 for _ in f)


def step_main(settings_path):
    """git bisect run's command: compares BISECT_HEAD with GOOD (settings from the JSON file
    the driver wrote) and returns git's status: 0 good, 1 bad, 125 skip, 128 abort (compare's
    message then goes to OUT/abort.txt and stderr). Never raises."""
    try:
        with open(settings_path) as f:
            settings = json.load(f)
        commit = git("rev-parse", "--verify", "BISECT_HEAD")
        step = run_compare(settings, commit)
        n = record_step(settings, step)
        say(progress_line(step, "step %d" % n))
        status = GIT_STATUS.get(step["status"])
        if status is None:
            with open(os.path.join(settings["out"], "abort.txt"), "w") as f:
                f.write("%s\ncompare.py exited %d:\n%s\n" % (commit, step["status"],
                                                             step["message"]))
            say("compare.py exited %d on %s: %s" % (step["status"], commit[:12],
                                                  step["message"]), sys.stderr)
            return ABORT
        return status
    except BaseException as e:  # noqa: B902 - git must never read a crash as "bad"
        say("step failed: %s: %s" % (type(e).__name__, e), sys.stderr)
        return ABORT


def on_sigterm(signum, frame):
    """SIGTERM handler: raises Stop, so the bisect state is reset as on Ctrl-C."""
    raise Stop()


def git_bisect_run(settings, log_path):
    """git bisect run with the step command (this script, --step OUT/settings.json); its
    output goes to log_path, the steps' progress lines (and errors) to the console as they
    come. Returns git's exit status."""
    step = [sys.executable, os.path.join(ROOT, "scripts", "perf_bisect.py"), "--step",
            os.path.join(settings["out"], "settings.json")]
    # git quotes each word before it hands the command to the shell: passed as they are
    cmd = ["git", "-C", ROOT, "bisect", "run"] + step
    with open(log_path, "a") as log:
        # its own process group: on Ctrl-C or SIGTERM the driver stops the whole step (git,
        # compare.py, the build, hotbench) before it resets the bisect state
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True, errors="replace",
                                start_new_session=True)
        try:
            for line in proc.stdout:
                log.write(line)
                log.flush()
                if line.startswith(PROG + ": "):
                    sys.stdout.write(line)
                    sys.stdout.flush()
            proc.wait()
        except BaseException:
            stop_group(proc)
            raise
    return proc.returncode


def stop_group(proc):
    """Interrupts proc's process group (SIGINT, as Ctrl-C would), then kills it (SIGKILL)
    when it has not ended within 10 s; waits for proc."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig, wait in ((signal.SIGINT, 10), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue


def first_bad():
    """After git bisect run: (first bad commit, None) when git found it, (None, candidates)
    when only commits that were skipped (failed to build) are left, with the candidates' ids;
    (None, None) otherwise (aborted)."""
    bad = git("rev-parse", "--verify", "--quiet", "refs/bisect/bad", check=False)
    if not bad:
        return None, None
    goods = git("for-each-ref", "--format=%(objectname)", "refs/bisect/good-*").split()
    left = git("rev-list", bad, "--not", *goods).split()
    if len(left) == 1:
        return bad, None
    skipped = set(git("for-each-ref", "--format=%(objectname)", "refs/bisect/skip-*").split())
    if all(c in skipped for c in left if c != bad):
        return None, left
    return None, None


def bisect(settings, good, bad):
    """Runs the bisection between the commits good and bad and always resets the bisect state
    (also on an error, Ctrl-C or SIGTERM). Returns (first bad commit, candidates) as
    first_bad does. Errors: BisectError when git bisect fails to start or is aborted."""
    log_path = os.path.join(settings["out"], "git-bisect.log")
    try:
        git("bisect", "start", "--no-checkout", bad, good)
        status = git_bisect_run(settings, log_path)
        found, candidates = first_bad()
        if found or candidates:
            return found, candidates
        abort = os.path.join(settings["out"], "abort.txt")
        if os.path.exists(abort):
            with open(abort) as f:
                raise BisectError("the bisection was aborted at %s" % f.read().strip())
        raise BisectError("git bisect run ended with status %d and no answer: see %s"
                          % (status, log_path))
    finally:
        # check_idle made sure that any bisect state is this run's
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if os.path.exists(bisect_start_path()):
            git("bisect", "reset", check=False)
        signal.signal(signal.SIGINT, signal.default_int_handler)


def utc_stamp():
    """The current UTC time as 20261202T031500Z (the results/runs/ folder names)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def parser():
    """The command line (--help)."""
    doc = __doc__.split("\n\n")
    ap = argparse.ArgumentParser(
        prog="perf_bisect.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=doc[0] + "\n\n" + "\n\n".join(doc[2:]).strip(), epilog=EPILOG,
        usage="%(prog)s --good REV --bad REV --filter ERE [--hooks] [--rounds N] [--out DIR]\n"
              "                 [-- COMPARE-OPTIONS]")
    ap.add_argument("--good", metavar="REV",
                    help="a revision without the regression (an ancestor of BAD)")
    ap.add_argument("--bad", metavar="REV", help="a revision with the regression")
    ap.add_argument("--filter", metavar="ERE",
                    help="the benchmarks compared: a google-benchmark regex, e.g. "
                         "'^<group>/<strategy>/<arg>:<value>/' (one to a few benchmarks: "
                         "every step compares them)")
    ap.add_argument("--rounds", type=int, metavar="N",
                    help="compare.py's ABBA rounds (default: its own)")
    ap.add_argument("--hooks", action="store_true",
                    help="build with -DHB_TEST_HOOKS=ON (compare.py --hooks: test injections)")
    ap.add_argument("--out", metavar="DIR",
                    help="where each compare goes, in DIR/<commit>/, and bisect.json "
                         "(default results/runs/<UTC>-bisect/)")
    ap.add_argument("--compare", metavar="PATH",
                    default=os.path.join(ROOT, "scripts", "compare.py"),
                    help="the compare script (default: scripts/compare.py of this tree)")
    ap.add_argument("--step", metavar="SETTINGS", help=argparse.SUPPRESS)
    return ap


def settings_from(args, good):
    """The settings a step needs (good commit, filter, rounds, hooks, compare, compare_args,
    out), written to OUT/settings.json. Errors: BisectError for a missing filter, a bad --rounds
    or a missing compare script."""
    if not args.filter:
        raise BisectError("no benchmark filter given (--filter ERE; make bisect FILTER=<regex>, "
                          "e.g. FILTER='^<group>/<strategy>/<arg>:<value>/'; hotbench "
                          "--benchmark_list_tests lists the names)")
    if args.rounds is not None and args.rounds < 1:
        raise BisectError("--rounds wants at least 1 (ROUNDS=%d)" % args.rounds)
    if not os.path.exists(args.compare):
        raise BisectError("no compare script at %s (scripts/compare.py)" % args.compare)
    out = os.path.abspath(args.out or os.path.join(ROOT, "results", "runs",
                                                   utc_stamp() + "-bisect"))
    settings = dict(good=good, filter=args.filter, rounds=args.rounds, hooks=args.hooks,
                    compare=os.path.abspath(args.compare), compare_args=args.compare_args,
                    out=out)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "settings.json"), "w") as f:
        json.dump(settings, f, indent=1)
    return settings


def check_bad(settings, good, bad):
    """Compares BAD with GOOD before bisecting and returns that step. Errors: BisectError with
    exit 1 when BAD does not regress, 3 when a revision failed to build, 2 otherwise."""
    say("comparing BAD %s with GOOD %s first" % (bad[:12], good[:12]))
    step = run_compare(settings, bad)
    say(progress_line(step, "BAD"))
    if step["status"] == 0:
        raise BisectError("BAD %s does not regress against GOOD %s on %s (compare: %s/%s/): "
                          "nothing to bisect%s" % (bad[:12], good[:12], settings["filter"],
                                                   rel(settings["out"]), bad,
                                                   unconfirmed_note(step["result"])), code=1)
    if step["status"] == 3:
        which = {"base": "GOOD", "head": "BAD"}
        sides = not_built_of(step["result"]) or [("head", bad, subject(bad), [])]
        said = ["%s %s (%s) does not build: %s" % (
            which.get(label, label), (commit or "?")[:12], subj,
            error[0] if error else step["message"]) for label, commit, subj, error in sides]
        raise BisectError("%s; nothing to bisect (its compare: %s/%s/)" % (
            "; ".join(said), rel(settings["out"]), bad), code=3)
    if step["status"] != 1:
        raise BisectError("compare.py exited %d comparing BAD with GOOD: %s"
                          % (step["status"], step["message"]))
    return step


def skipped_steps(settings):
    """The steps recorded as not built (OUT/steps.jsonl), oldest step first: dicts with commit,
    subject and error."""
    path = os.path.join(settings["out"], "steps.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        steps = [json.loads(l) for l in f if l.strip()]
    return [dict(commit=s["commit"], subject=s.get("subject", ""), error=s.get("error", ""))
            for s in steps if s.get("status") == 3]


def report(settings, found, candidates):
    """Prints the answer: the commits skipped because they do not build (id, subject, first
    compiler error), then the first bad commit (id, subject) and its regressed benchmarks with
    their ratio and CI from its compare with GOOD; or the candidates when skipped commits left
    several. Returns the answer as recorded in bisect.json (first_bad, candidates, skipped)."""
    skipped = skipped_steps(settings)
    if skipped:
        say("skipped %d commit%s that do%s not build (git bisect skip):" % (
            len(skipped), "" if len(skipped) == 1 else "s", "es" if len(skipped) == 1 else ""))
    for s in skipped:
        say("  skipped %s %s: %s" % (s["commit"][:12], s["subject"], s["error"]))
    if not found:
        say("the first bad commit could not be decided because of the skipped commits: it is "
            "one of these, oldest first (their compare.log in OUT/<commit>/):")
        not_built = {s["commit"] for s in skipped}
        for c in reversed(candidates):
            say("  %s %s%s" % (c, subject(c), "  (not built)" if c in not_built else ""))
        return dict(first_bad=None, candidates=candidates, skipped=skipped)
    result = read_json(os.path.join(settings["out"], found, "compare.json"))
    rows = regressed_rows(result)
    say("first bad commit %s %s" % (found, subject(found)))
    for row in rows:
        say("  regressed: %s" % fmt_row(row))
    if not rows:
        say("  (no compare.json with regressed rows in %s/%s/)" % (rel(settings["out"]), found))
    return dict(first_bad=dict(commit=found, subject=subject(found), rows=rows), candidates=None,
                skipped=skipped, explain=explain_first_bad(settings, found))


def explain_first_bad(settings, found):
    """Where the first bad commit differs from GOOD, per function: make explain's table of the
    filter's strategies (compare/explain/cli.py, into OUT/explain/), printed with the bisect
    prefix. Returns its entries, or None when it could not run (the reason printed). The
    steps' compares run with --no-explain: this is the one explanation of a bisection."""
    from .explain import cli as explain_cli, report as explain_report
    out = os.path.join(settings["out"], "explain")
    os.makedirs(out, exist_ok=True)
    quiet = lambda m: None  # noqa: E731
    try:
        arms = explain_cli.build_arms(settings["good"], found, settings["hooks"], quiet)
        entries = explain_cli.explain(arms, settings["filter"], out, log=quiet)
    except SystemExit:  # explain_cli.die: its reason is on stderr
        say("no explain table of the first bad commit (above)")
        return None
    for line in explain_report.text_lines(entries):
        say(line)
    say("explain: %s/explain.md, flame graphs in %s/explain/" % (rel(out), rel(out)))
    return entries


def write_summary(settings, args, check, answer, t0):
    """Writes OUT/bisect.json: the settings, GOOD and BAD, every compare (commit, compare.py's
    status, verdict, elapsed s), the answer; prints where the compares are."""
    path = os.path.join(settings["out"], "steps.jsonl")
    steps = []
    if os.path.exists(path):
        with open(path) as f:
            steps = [json.loads(l) for l in f if l.strip()]
    doc = dict(schema="hotbench-bisect/1", filter=settings["filter"], hooks=settings["hooks"],
               rounds=settings["rounds"],
               good=dict(rev=args.good, commit=settings["good"]),
               bad=dict(rev=args.bad, commit=check["commit"]),
               check=dict(commit=check["commit"], status=check["status"],
                          verdict=verdict_of(check), elapsed=check["elapsed"]),
               steps=steps, elapsed=round(time.monotonic() - t0, 1), **answer)
    with open(os.path.join(settings["out"], "bisect.json"), "w") as f:
        json.dump(doc, f, indent=1)
    say("%d steps in %.0f s; each compare in %s/<commit>/, the summary in bisect.json"
        % (len(steps), doc["elapsed"], rel(settings["out"])))


def run(args):
    """The driver: checks the input, compares BAD with GOOD, bisects, reports. Returns the
    exit status (EPILOG). Errors: BisectError."""
    t0 = time.monotonic()
    good, bad = resolve("GOOD", args.good), resolve("BAD", args.bad)
    check_range(good, bad, args)
    check_idle()
    settings = settings_from(args, good)
    check = check_bad(settings, good, bad)
    found, candidates = bisect(settings, good, bad)
    answer = report(settings, found, candidates)
    write_summary(settings, args, check, answer, t0)
    return 0 if found else 3


def main(argv=None):
    """scripts/perf_bisect.py's entry point: the driver, or with --step (git bisect run's command)
    one step. Returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--step"]:
        # git bisect run reads any status from 1 to 127 as "bad": no argparse exit here
        return step_main(argv[1]) if len(argv) == 2 else ABORT
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser().parse_args(argv[:split])
    args.compare_args = argv[split + 1:]
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        return run(args)
    except BisectError as e:
        say(str(e), sys.stderr)
        return e.code
    except (KeyboardInterrupt, Stop):
        say("interrupted (no bisection is left in progress)", sys.stderr)
        return 130

#!/usr/bin/env python3
"""test_revisions.py - a revision that does not build (scripts/hotbench/compare/revisions.py,
notbuilt.py; docs/compare.md, "A revision that does not build"): the first error of a build log
(gcc, clang, ld, cmake), then in a throwaway repository of this tree's scripts/ and a one-file C
project (builds in a second, so each failure is a real cmake + cc failure, never this project's
history):
  make compare / make bench-ci (scripts/compare.py, --ci): the revision, its first compiler
    error, a `not built` verdict in compare.json and compare.md, exit 3, no traceback;
  make history-run (scripts/history.py run): the commit reported not built, exit 3, nothing
    recorded; make history-import passes the not-built compare over;
  make bisect (scripts/perf_bisect.py) with a stand-in compare that hands the broken commits
    to the real one: a broken commit away from the first bad one is skipped and listed and the
    first bad commit found; next to it, the answer is the candidates (exit 3), as git gives it.
Correctness only, never timings. Needs git, cmake and cc; skipped (77) without them."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "scripts"))

from hotbench.compare.bisect import unconfirmed_note  # noqa: E402
from hotbench.compare.copies import COPIES  # noqa: E402
from hotbench.compare.revisions import first_error  # noqa: E402

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
CMAKE = "cmake_minimum_required(VERSION 3.13)\nproject(tiny C)\nadd_executable(hotbench main.c)\n"
GOOD_C = "int main(void)\n{\n    return 0;\n}\n"
BROKEN_C = "int main(void)\n{\n    return 0\n}\n"  # gcc/clang: main.c:3:13: error: expected ';'
ERROR_LINE = r"main\.c:\d+:\d+: error: "


class FirstError(unittest.TestCase):
    ROWS = (  # (log text, src, expected lines, why)
        ("[ 10%] Building C object x.o\n/s/rev/cases/a/b.c:12:5: error: expected ';' before "
         "'}' token\n   12 |     x\nmake[2]: *** [b.o] Error 1\n", "/s/rev",
         ["cases/a/b.c:12:5: error: expected ';' before '}' token"], "gcc, path made relative"),
        ("In file included from a.c:1:\nh.h:3:10: fatal error: nope.h: No such file or "
         "directory\n", None, ["h.h:3:10: fatal error: nope.h: No such file or directory"],
         "fatal error"),
        ("\x1b[1ma.c:2:3: \x1b[0;1;31merror: \x1b[0muse of undeclared identifier 'y'\x1b[0m\n",
         None, ["a.c:2:3: error: use of undeclared identifier 'y'"], "clang's colours"),
        ("-- Configuring\nCMake Error at CMakeLists.txt:40 (find_package):\n\n  Could not find "
         "benchmark\n\n-- Configuring incomplete\n", None,
         ["CMake Error at CMakeLists.txt:40 (find_package):", "Could not find benchmark"],
         "cmake: the message line too"),
        ("/usr/bin/ld: a.o: in function `main': a.c:(.text+0x5): undefined reference to `f'\n"
         "collect2: error: ld returned 1 exit status\n", None,
         ["/usr/bin/ld: a.o: in function `main': a.c:(.text+0x5): undefined reference to `f'",
          "collect2: error: ld returned 1 exit status"], "the linker's line first"),
        ("/usr/bin/ld: a.o: in function `main': a.c:(.text+0x5): undefined reference to `f'\n"
         "clang: error: linker command failed with exit code 1 (use -v to see invocation)\n",
         None,
         ["/usr/bin/ld: a.o: in function `main': a.c:(.text+0x5): undefined reference to `f'",
          "clang: error: linker command failed with exit code 1 (use -v to see invocation)"],
         "clang's link failure: the linker's line first too"),
        ("a.c:1:1: warning: unused\nmake[2]: *** [a.o] Error 1\n", None, [],
         "a warning and make's 'Error 1' are not compiler errors"),
    )

    def test_table(self):
        d = tempfile.mkdtemp(prefix="hb-firsterr-")
        try:
            log = os.path.join(d, "build.log")
            for text, src, want, why in self.ROWS:
                with open(log, "w") as f:
                    f.write(text)
                self.assertEqual(first_error(log, src), want, why)
            self.assertEqual(first_error(os.path.join(d, "missing.log")), [], "no log")
        finally:
            shutil.rmtree(d)


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, "-c", "commit.gpgsign=false"] + list(args),
                          check=True, capture_output=True, text=True).stdout.strip()


def make_repo(path, commits):
    """A repository at path: this tree's scripts/, the tiny C project, one commit per entry of
    commits [(subject, main.c text, state)] (state: a file the stand-in compare reads).
    Returns the commit ids, oldest first."""
    shutil.copytree(os.path.join(SRC, "scripts"), os.path.join(path, "scripts"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    os.makedirs(os.path.join(path, "results"))
    with open(os.path.join(path, "CMakeLists.txt"), "w") as f:
        f.write(CMAKE)
    with open(os.path.join(path, ".gitignore"), "w") as f:
        f.write("/build-*/\n/results/runs/\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "t@example.org")
    git(path, "config", "user.name", "t")
    shas = []
    for subject, main_c, state in commits:
        for name, text in (("main.c", main_c), ("state", state + "\n")):
            with open(os.path.join(path, name), "w") as f:
                f.write(text)
        git(path, "add", "-A")
        git(path, "commit", "-q", "--allow-empty", "-m", subject)
        shas.append(git(path, "rev-parse", "HEAD"))
    return shas


def run(argv, env=None, cwd=None):
    e = {k: v for k, v in os.environ.items() if k not in ("HB_BASE", "MAKEFLAGS")}
    e.update(env or {})
    return subprocess.run(argv, capture_output=True, text=True, env=e, cwd=cwd)


class NotBuilt(unittest.TestCase):
    """compare, bench-ci, history-run and history-import on commit 2, whose main.c has a
    syntax error; commits 1 and 3 build."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hb-notbuilt-")
        cls.repo = os.path.join(cls.tmp, "repo")
        cls.c = make_repo(cls.repo, [("1: builds", GOOD_C, "good"),
                                     ("2: main.c misses a semicolon", BROKEN_C, "good"),
                                     ("3: builds again", GOOD_C, "good")])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def compare(self, name, *args, env=None):
        out = os.path.join(self.tmp, name)
        p = run([PY, os.path.join(self.repo, "scripts", "compare.py"), "--filter", "^x/",
                 "--no-history", "--out", out] + list(args), env=env)
        self.assertNotIn("Traceback", p.stderr + p.stdout)
        with open(os.path.join(out, "compare.json")) as f:
            doc = json.load(f)
        with open(os.path.join(out, "compare.md")) as f:
            md = f.read()
        return p, doc, md, out

    def assert_not_built(self, p, doc, md, out, side, other_text):
        c2 = self.c[1]
        self.assertEqual(p.returncode, 3, p.stderr)
        err = p.stderr
        self.assertIn("compare: %s %s (2: main.c misses a semicolon): not built" % (side, c2[:12]),
                      err)
        self.assertRegex(err, r"(?m)^compare:   %s" % ERROR_LINE)
        self.assertIn("compare: %s" % other_text, err)
        self.assertIn("compare: verdict: not built (%s)" % side, err)
        self.assertEqual(doc["schema"], "hotbench-compare/1")
        self.assertEqual((doc["verdict"], doc["not_built"], doc["exit_code"], doc["rows"]),
                         ("not built", [side], 3, []))
        arm = doc[side]
        self.assertEqual((arm["built"], arm["verdict"], arm["commit"], arm["subject"]),
                         (False, "not built", c2, "2: main.c misses a semicolon"))
        self.assertRegex(arm["build_error"][0], "^" + ERROR_LINE)
        self.assertTrue(os.path.exists(os.path.join(out, arm["build_log"])))
        self.assertTrue(doc["head" if side == "base" else "base"]["built"])
        self.assertIn("not built", md)
        self.assertRegex(md, ERROR_LINE)

    def test_compare_names_the_side_and_its_error(self):
        p, doc, md, out = self.compare("head-broken", "--base", self.c[0], "--head", self.c[1])
        self.assert_not_built(p, doc, md, out, "head",
                              "base %s (1: builds): built" % self.c[0][:12])
        # make bench-ci: the base from $HB_BASE (here the one not built), the working tree's
        # build given (make bench-ci's build-ci)
        head_build = os.path.join(self.repo, "build-rev", self.c[0])
        p, doc, md, out = self.compare("ci", "--ci", "--head-build", head_build,
                                       env={"HB_BASE": self.c[1]})
        self.assert_not_built(p, doc, md, out, "base", "head the working tree: built")
        # make history-import passes such a compare over: nothing measured, nothing refused
        db = os.path.join(self.tmp, "import.sqlite")
        p = run([PY, os.path.join(self.repo, "scripts", "history.py"), "import", "--history",
                 db, out])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("passed over %s" % out, p.stdout)

    def test_history_run_reports_the_commit_not_built(self):
        db = os.path.join(self.tmp, "run.sqlite")
        p = run([PY, os.path.join(self.repo, "scripts", "history.py"), "run", "--history", db,
                 "--filter", "^x/", "%s..%s" % (self.c[0], self.c[1])])
        self.assertNotIn("Traceback", p.stderr + p.stdout)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"(?m)^  not built: %s.*; its build log: .*build\.log" %
                         ERROR_LINE)
        self.assertIn("history run: 0 recorded, 0 already recorded, 1 not built, 0 failed",
                      p.stdout)
        self.assertRegex(p.stdout, r"(?m)^history run: not built: %s \(2: main.c misses a "
                         r"semicolon\): %s" % (self.c[1][:12], ERROR_LINE))


# The stand-in compare of the bisection: a commit whose `state` is broken goes to the real
# compare.py (its build fails for real); otherwise a compare.json row and exit 1 (bad) or 0.
FAKE_COMPARE = textwrap.dedent("""\
    import json, os, subprocess, sys
    argv = sys.argv[1:]
    head, out = argv[argv.index("--head") + 1], argv[argv.index("--out") + 1]
    repo = os.path.dirname(os.path.dirname(os.path.abspath(os.environ["HB_REAL_COMPARE"])))
    state = subprocess.run(["git", "-C", repo, "show", head + ":state"], capture_output=True,
                           text=True).stdout.strip()
    if state == "broken":
        os.execv(sys.executable, [sys.executable, os.environ["HB_REAL_COMPARE"]] + argv)
    bad = state == "bad"
    row = dict(name="x/y/n:1", verdict="regressed" if bad else "same", check="time",
               ratio=1.2 if bad else 1.0, ci=[1.1, 1.3] if bad else [0.99, 1.01])
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump(dict(schema="hotbench-compare/1", rows=[row]), f)
    sys.exit(1 if bad else 0)
    """)


class Bisect(unittest.TestCase):
    """Commits 1 (GOOD) to 8 (BAD); git bisect visits 4, then 6, then 5 (good, bad, good)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hb-bisect-skip-")
        self.fake = os.path.join(self.tmp, "fake_compare.py")
        with open(self.fake, "w") as f:
            f.write(FAKE_COMPARE)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def bisect(self, broken, first_bad):
        repo = os.path.join(self.tmp, "repo")
        c = make_repo(repo, [("%d: %s" % (i, "broken" if i == broken else "a commit"),
                              BROKEN_C if i == broken else GOOD_C,
                              "broken" if i == broken else "bad" if i >= first_bad else "good")
                             for i in range(1, 9)])
        out = os.path.join(self.tmp, "out")
        p = run([PY, os.path.join(repo, "scripts", "perf_bisect.py"), "--good", c[0], "--bad",
                 c[7], "--filter", "^x/", "--compare", self.fake, "--out", out, "--",
                 "--no-history"],
                env={"HB_REAL_COMPARE": os.path.join(repo, "scripts", "compare.py")})
        self.assertNotIn("Traceback", p.stdout + p.stderr)
        with open(os.path.join(out, "bisect.json")) as f:
            doc = json.load(f)
        self.assertFalse(os.path.exists(os.path.join(repo, ".git", "BISECT_START")))
        return c, p, doc

    def test_a_broken_commit_away_from_the_answer_is_skipped(self):
        c, p, doc = self.bisect(broken=4, first_bad=6)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"(?m)^bisect: step \d+ +%s not-built +-> skip +%s"
                         % (c[3][:12], ERROR_LINE))
        self.assertIn("bisect: skipped 1 commit that does not build (git bisect skip):", p.stdout)
        self.assertRegex(p.stdout, r"(?m)^bisect:   skipped %s 4: broken: %s"
                         % (c[3][:12], ERROR_LINE))
        self.assertIn("bisect: first bad commit %s 6: a commit" % c[5], p.stdout)
        self.assertEqual(doc["first_bad"]["commit"], c[5])
        self.assertEqual([s["commit"] for s in doc["skipped"]], [c[3]])
        self.assertRegex(doc["skipped"][0]["error"], "^" + ERROR_LINE)

    def test_a_broken_commit_next_to_the_answer_leaves_candidates(self):
        c, p, doc = self.bisect(broken=5, first_bad=6)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertIn("the first bad commit could not be decided", p.stdout)
        self.assertIn("bisect:   %s 5: broken  (not built)" % c[4], p.stdout)
        self.assertIn("bisect:   %s 6: a commit" % c[5], p.stdout)
        self.assertIsNone(doc["first_bad"])
        self.assertEqual(sorted(doc["candidates"]), sorted([c[4], c[5]]))

    def test_a_bad_that_does_not_build_is_said(self):
        repo = os.path.join(self.tmp, "repo")
        c = make_repo(repo, [("1: good", GOOD_C, "good"), ("2: broken", BROKEN_C, "broken")])
        p = run([PY, os.path.join(repo, "scripts", "perf_bisect.py"), "--good", c[0], "--bad",
                 c[1], "--filter", "^x/", "--compare", self.fake, "--out",
                 os.path.join(self.tmp, "out"), "--", "--no-history"],
                env={"HB_REAL_COMPARE": os.path.join(repo, "scripts", "compare.py")})
        self.assertNotIn("Traceback", p.stdout + p.stderr)
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertRegex(p.stderr, r"bisect: BAD %s \(2: broken\) does not build: %s"
                         % (c[1][:12], ERROR_LINE))


def tools_missing():
    for tool in ("git", "cmake", "cc"):
        if shutil.which(tool) is None:
            return tool
    return None


class UnconfirmedNote(unittest.TestCase):
    """BAD not confirmed slower than GOOD: the message names the slower inconclusive row."""

    def row(self, name, verdict, ratio):
        return dict(name=name, verdict=verdict, ratio=ratio, ci=[ratio - 0.4, ratio + 0.6],
                    check="time: +%.0f%% in the screening, not confirmed" % (ratio * 100 - 100))

    def test_the_slowest_inconclusive_row_is_named(self):
        note = unconfirmed_note(dict(rows=[self.row("a/x/n:1", "inconclusive", 1.3),
                                           self.row("a/y/n:1", "inconclusive", 2.089),
                                           self.row("a/z/n:1", "same", 3.0)]))
        self.assertTrue(note.startswith("; slower but not confirmed: ratio 2.089 CI "
                                        "[1.689, 2.689] a/y/n:1 (time: +109% in the screening"),
                        note)
        self.assertIn("--confirm-rounds N", note)
        self.assertNotIn("--copies", note)

    def test_left_by_the_copies_spread_asks_for_more_copies(self):
        row = self.row("a/y/n:1", "inconclusive", 1.5)
        row["check"] += " (not beyond the copies' own spread: +50% [-3%, +130%] with the " \
            "copy a random effect)"
        note = unconfirmed_note(dict(rows=[row]))
        self.assertIn("a/y/n:1", note)
        self.assertIn("--copies N', N above the default %d" % COPIES, note)
        self.assertNotIn("--confirm-rounds", note)

    def test_nothing_slower_and_undecided_says_nothing(self):
        self.assertEqual(unconfirmed_note(dict(rows=[self.row("a/x/n:1", "inconclusive", 0.9),
                                                     self.row("a/y/n:1", "same", 1.5)])), "")
        self.assertEqual(unconfirmed_note(None), "")


if __name__ == "__main__":
    missing = tools_missing()
    if missing:
        print("test_revisions: skipped: %s is not installed" % missing)
        sys.exit(77)
    unittest.main(verbosity=1)

#!/usr/bin/python3
"""test_docs.py [SRCDIR] - the README is a map (issue 34): at most 150 lines, no commit hashes,
dates or load figures in it; it links every file of docs/ and fuzz/README.md, every relative link
of it and of docs/ resolves to a file, and every `make <target>` it names is a target the
Makefile defines (read from make's own database, as tests/test_workflows.py does). The LICENSE
it names exists. Correctness only."""

import glob
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 and os.path.isdir(sys.argv[1]) \
    else os.path.dirname(HERE)
README = os.path.join(SRC, "README.md")
MAX_LINES = 150

# A commit hash: 7 to 40 hex digits with at least one letter and one digit (so neither
# "1700000000" nor a word such as "decade" counts).
HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
DATE = re.compile(r"\b(19|20)\d\d-\d\d-\d\d\b|\b\d{1,2} (%s) (19|20)\d\d\b|\b(%s) \d{1,2},? "
                  r"(19|20)\d\d\b" % (MONTHS, MONTHS))
LOAD = re.compile(r"\bload (average )?\d|\bload average", re.IGNORECASE)
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)]*)?\)")
MAKE = re.compile(r"(?:^|[`\s(;])make ((?:[A-Z_]+=\S+ )*)([a-z][a-z0-9-]*)")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def make_targets(src):
    """The targets the Makefile in src defines, from `make -pRrq` (nothing is run)."""
    p = subprocess.run(["make", "-C", src, "-pRrq", "--no-print-directory",
                        "__hb_no_such_target__"], capture_output=True, text=True)
    targets, not_target = set(), False
    for line in p.stdout.splitlines():
        if line.startswith("# Not a target:"):
            not_target = True
            continue
        m = re.match(r"^([^\s#:=%][^:=]*?):(?![:=])", line)
        if m and not not_target:
            targets.update(n for n in m.group(1).split() if not n.startswith("."))
        not_target = False
    return targets


def relative_links(path):
    """(line number, target) of every relative link of a Markdown file, anchors dropped."""
    out = []
    for n, line in enumerate(read(path).splitlines(), 1):
        for m in LINK.finditer(line):
            if not re.match(r"[a-z]+:", m.group(1)):
                out.append((n, m.group(1)))
    return out


class Readme(unittest.TestCase):
    def setUp(self):
        self.text = read(README)
        self.lines = self.text.splitlines()

    def test_short(self):
        self.assertLessEqual(len(self.lines), MAX_LINES, "README.md has %d lines" % len(self.lines))

    def test_no_diary(self):
        for n, line in enumerate(self.lines, 1):
            for what, rx in (("a commit hash", HASH), ("a date", DATE), ("a load figure", LOAD)):
                m = rx.search(line)
                self.assertIsNone(m, "README.md:%d has %s (%r): dated figures go to results/"
                                  % (n, what, m and m.group(0)))

    def test_links_every_doc(self):
        linked = {os.path.normpath(os.path.join(SRC, t)) for _, t in relative_links(README)}
        docs = glob.glob(os.path.join(SRC, "docs", "**", "*.md"), recursive=True)
        docs.append(os.path.join(SRC, "fuzz", "README.md"))
        for d in sorted(docs):
            self.assertIn(os.path.normpath(d), linked,
                          "README.md does not link %s" % os.path.relpath(d, SRC))

    def test_links_resolve(self):
        files = [README] + glob.glob(os.path.join(SRC, "docs", "**", "*.md"), recursive=True)
        for path in files:
            for n, target in relative_links(path):
                full = os.path.join(os.path.dirname(path), target)
                self.assertTrue(os.path.exists(full), "%s:%d links %s, which does not exist"
                                % (os.path.relpath(path, SRC), n, target))

    def test_make_targets_exist(self):
        targets = make_targets(SRC)
        self.assertIn("test", targets, "make -pRrq read no targets")
        named = {m.group(2) for m in MAKE.finditer(self.text)}
        self.assertIn("bench-quick", named, "the README's make commands were not found")
        for t in sorted(named):
            self.assertIn(t, targets, "README.md names `make %s`, which the Makefile lacks" % t)

    def test_license(self):
        self.assertIn("LICENSE", self.text)
        self.assertTrue(os.path.exists(os.path.join(SRC, "LICENSE")))


class Patterns(unittest.TestCase):
    """The checks above can fail: their patterns on lines that must and must not match."""

    def test_hash(self):
        self.assertTrue(HASH.search("at 3930cd7 on"))
        self.assertFalse(HASH.search("size:1700000000 decade faded"))

    def test_date_and_load(self):
        self.assertTrue(DATE.search("on 2 December 2026"))
        self.assertTrue(DATE.search("measured 2026-12-05"))
        self.assertFalse(DATE.search("100,000 rows, 300 volumes"))
        self.assertTrue(LOAD.search("(load 0.9)"))
        self.assertFalse(LOAD.search("the page loads fast"))

    def test_make(self):
        found = [m.group(2) for m in MAKE.finditer("`make bench` and make FILTER=x compare; "
                                                  "make, then (make report)")]
        self.assertEqual(found, ["bench", "compare", "report"])


if __name__ == "__main__":
    unittest.main(verbosity=1)

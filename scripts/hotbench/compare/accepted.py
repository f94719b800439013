"""accepted - intended slowdowns, accepted by a reviewed line in a committed file rather than
by switching the gate off. results/accepted-slowdowns.tsv (read from the head's tree) holds
lines of three tab-separated fields:
    <regex searched in the benchmark name>  <revision>  <reason>
A line applies to a compare whose head contains the revision and whose base does not (the
revision is in base..head): there a regressed benchmark it matches becomes "accepted", its
reason shown. Once the base contains the revision, the line no longer applies. Lines starting
with # and blank lines are ignored. A malformed line or an unknown revision stops the compare
(exit 2) naming the file and line: a typo must not accept a regression silently.
"""

import os
import re

from .errors import die
from ..git import is_ancestor, show
from .revisions import WORKTREE, git

PATH = "results/accepted-slowdowns.tsv"


def read_lines(root, head_commit):
    """[(line number, text)] of the file in the head's tree (the working tree's file for
    WORKTREE), [] when there is none."""
    if head_commit in (None, WORKTREE):
        path = os.path.join(root, PATH)
        if not os.path.exists(path):
            return []
        with open(path) as f:
            text = f.read()
    else:
        text = show(root, head_commit, PATH)
        if text is None:
            return []
    return list(enumerate(text.splitlines(), 1))


def applicable(root, base_commit, head_commit):
    """[(compiled regex, revision, reason, 'file:line')] of the lines that apply to base..head."""
    if base_commit in (None, WORKTREE):
        return []
    head = "HEAD" if head_commit in (None, WORKTREE) else head_commit
    out = []
    for n, line in read_lines(root, head_commit):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = "%s:%d" % (PATH, n)
        fields = line.split("\t")
        if len(fields) != 3 or not all(f.strip() for f in fields):
            die("%s: want three tab-separated fields (benchmark regex, revision, reason): %r" % (
                where, line))
        try:
            rx = re.compile(fields[0].strip())
        except re.error as e:
            die("%s: bad regex %r: %s" % (where, fields[0], e))
        sha = git(root, "rev-parse", "--verify", "--quiet", fields[1].strip() + "^{commit}")
        if not sha:
            die("%s: unknown revision %r" % (where, fields[1].strip()))
        if is_ancestor(root, sha, head) and not is_ancestor(root, sha, base_commit):
            out.append((rx, sha, fields[2].strip(), where))
    return out


def apply(rows, lines):
    """Marks each regressed row a line matches as accepted (its check names the line)."""
    for r in rows:
        if r["verdict"] != "regressed":
            continue
        for rx, sha, reason, where in lines:
            if rx.search(r["name"]):
                mark(r, "accepted by %s (%s): %s" % (where, sha[:12], reason))
                break


def mark(row, text):
    """Makes a regressed row accepted, text (which line accepts it) added to its check and kept
    in row["accepted"] (compare.json: a merge of shards marks the row again, merge.py)."""
    row["verdict"] = "accepted"
    row["accepted"] = text
    row["check"] += "; " + text

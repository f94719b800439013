"""notbuilt - the outputs of a compare one of whose revisions does not build (docs/compare.md,
"A revision that does not build"): each side's revision (short sha and subject), the first error
lines of its build log and a `not built` verdict, on stderr and in compare.json / compare.md;
the logs copied beside them as base-build.log / head-build.log. Nothing is measured; compare.py
exits NOT_BUILT (3), which `git bisect run` reads as "skip this commit"."""

import json
import os
import shutil
import sys

from .revisions import WORKTREE, describe

NOT_BUILT = 3  # compare.py's exit status when a side does not build
VERDICT = "not built"


class Side:
    """One arm's build: label ('base' or 'head'), rev (as the user named it), commit (full sha
    or WORKTREE), subject (the commit's first line, '' for the working tree) and either binary
    (the built hotbench's path) or error (the BuildError)."""

    def __init__(self, label, rev, commit, subject, binary=None, error=None):
        self.label, self.rev, self.commit, self.subject = label, rev, commit, subject
        self.binary, self.error = binary, error

    def built(self):
        return self.error is None


def side_json(side, out):
    """compare.json's arm of side; a side not built gets build_error (list of str) and
    build_log (the copy in out, relative to it, or null), and its log is copied there."""
    doc = dict(label=side.label, rev=side.rev, commit=side.commit, subject=side.subject,
               built=side.built(), binary=side.binary, env={})
    if side.error is not None:
        doc["verdict"] = VERDICT
        doc["build_error"] = side.error.error
        doc["build_log"] = None
        if side.error.log and os.path.exists(side.error.log):
            name = "%s-build.log" % side.label
            shutil.copyfile(side.error.log, os.path.join(out, name))
            doc["build_log"] = name
    return doc


def lines(doc, out):
    """The report's lines (without the 'compare: ' prefix): each side, built or not built
    with its first error lines and its log, then the verdict."""
    res = []
    for label in ("base", "head"):
        arm = doc[label]
        name = "the working tree" if arm["commit"] == WORKTREE else \
            describe(arm["commit"], arm["subject"])
        if arm["built"]:
            res.append("%s %s: built" % (label, name))
            continue
        res.append("%s %s: %s" % (label, name, VERDICT))
        res += ["  " + e for e in arm["build_error"] or ["(no error line found in its log)"]]
        if arm["build_log"]:
            res.append("  its build log: %s" % os.path.join(rel(out), arm["build_log"]))
    res.append("verdict: %s (%s); nothing was measured; exit %d" % (
        VERDICT, " and ".join(doc["not_built"]), NOT_BUILT))
    return res


def rel(path):
    """path relative to the current directory when below it, else as is."""
    r = os.path.relpath(path)
    return path if r.startswith("..") else r


def report(sides, settings, out):
    """Writes compare.json and compare.md of a compare whose sides (list of two Side, base
    first) are not all built into out (an existing folder), prints the report on stderr and
    returns NOT_BUILT. compare.json keeps schema hotbench-compare/1 with verdict 'not built',
    not_built (the labels), the arms (above), settings, exit_code, and empty rows."""
    from .table import SCHEMA  # here: bisect.py reads not_built_of without table's numpy
    arms = {s.label: side_json(s, out) for s in sides}
    doc = dict(schema=SCHEMA, verdict=VERDICT,
               not_built=[s.label for s in sides if not s.built()],
               base=arms["base"], head=arms["head"], settings=settings, duration_s=0.0,
               summary={VERDICT: sum(1 for s in sides if not s.built())},
               exit_code=NOT_BUILT, rows=[], processes=[])
    text = lines(doc, out)
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)
    with open(os.path.join(out, "compare.md"), "w") as f:
        f.write("```\n" + "\n".join(text) + "\n```\n")
    for line in text + ["wrote %s/: compare.json, compare.md" % rel(out)]:
        print("compare: " + line, file=sys.stderr, flush=True)
    return NOT_BUILT


def not_built_of(doc):
    """[(label, commit, subject, first error lines)] of a compare.json document (dict or None)
    whose verdict is 'not built'; [] for any other."""
    if not isinstance(doc, dict) or doc.get("verdict") != VERDICT:
        return []
    return [(label, (doc.get(label) or {}).get("commit"), (doc.get(label) or {}).get("subject"),
             (doc.get(label) or {}).get("build_error") or [])
            for label in doc.get("not_built") or []]


"""git - the one way the scripts ask git (the compare's builds, the bisection, the history, the
runs' file names and contexts). Every function runs `git -C root ...`, captures its output and
never raises for a failing or missing git: callers say what a None means for them.
"""

import subprocess


def run(root, *args):
    """(exit status, stdout, stderr) of `git -C root args...`, text; (127, "", why) when git
    cannot be started."""
    try:
        p = subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True)
    except OSError as e:
        return 127, "", str(e)
    return p.returncode, p.stdout, p.stderr


def git(root, *args):
    """git's stdout, stripped ("" when it printed nothing), or None when git is missing or
    fails."""
    rc, out, _ = run(root, *args)
    return out.strip() if rc == 0 else None


def is_ancestor(root, a, b):
    """Whether commit a is an ancestor of (or is) commit b in root's repository."""
    return run(root, "merge-base", "--is-ancestor", a, b)[0] == 0


def short_revision(root, default="nogit"):
    """HEAD's commit id to 12 digits, as the runs' file names carry it, else default."""
    return git(root, "rev-parse", "--short=12", "HEAD") or default


def show(root, commit, path):
    """The text of path at commit in root's repository, or None when it has none."""
    rc, out, _ = run(root, "show", "%s:%s" % (commit, path))
    return out if rc == 0 else None

"""revisions - a revision's hotbench, built once: `git worktree add` of the commit into
build-rev/src-<commit>/, configured and built into build-rev/<commit>[-hooks]/ (release flags,
the same as build-ci), the source worktree removed afterwards. A later compare of the same
commit reuses the binary. The working tree (uncommitted changes included) builds into
build-rev/worktree[-hooks]/ and is rebuilt every time (make decides what changed).

build-rev/ is git-ignored (/build-*/). Errors: an unknown revision is a usage error (exit 2);
a revision that does not configure or compile raises BuildError (compare.py exits 3, so that
`git bisect run` skips the commit).
"""

import os
import shutil
import subprocess

from .errors import die

WORKTREE = "worktree"


class BuildError(Exception):
    """A revision failed to configure or build; the message names it and its log."""


def git(root, *args):
    """git's stdout (stripped) run in root, or None when git fails."""
    p = subprocess.run(["git", "-C", root] + list(args), capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else None


def resolve(root, rev):
    """The full commit id of rev (any git revision), WORKTREE for None or "worktree"; exits 2
    naming rev when git does not know it."""
    if rev in (None, "", WORKTREE):
        return WORKTREE
    sha = git(root, "rev-parse", "--verify", "--quiet", rev + "^{commit}")
    if not sha:
        die("unknown revision %r (git rev-parse in %s found no commit)" % (rev, root), code=2)
    return sha


def cmake_args(hooks):
    """The configure options: build-ci's (release flags, no tests), hooks on request."""
    return ["-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DHB_TESTS=OFF", "-DHB_SANITIZE=OFF",
            "-DHB_TEST_HOOKS=" + ("ON" if hooks else "OFF")]


def run_logged(cmd, log_path, cwd=None):
    """Runs cmd with its output appended to log_path; its exit status."""
    with open(log_path, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        return subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd)


def compile_tree(src, bdir, hooks, label, log):
    """Configures and builds src's hotbench into bdir; raises BuildError."""
    os.makedirs(bdir, exist_ok=True)
    logf = os.path.join(bdir, "build.log")
    jobs = str(os.cpu_count() or 2)
    if run_logged(["cmake", "-S", src, "-B", bdir] + cmake_args(hooks), logf) != 0 or \
            run_logged(["cmake", "--build", bdir, "-j", jobs, "--target", "hotbench"], logf) != 0:
        raise BuildError("%s failed to build; its log: %s" % (label, logf))
    return os.path.join(bdir, "hotbench")


def build(root, commit, hooks=False, log=print):
    """The path of commit's hotbench (commit from resolve()), building it when not cached.
    root is the repository; builds go to root/build-rev/."""
    cache = os.path.join(root, "build-rev")
    suffix = "-hooks" if hooks else ""
    if commit == WORKTREE:
        log("compare: building the working tree (build-rev/worktree%s/)" % suffix)
        return compile_tree(root, os.path.join(cache, WORKTREE + suffix), hooks,
                            "the working tree", log)
    bdir = os.path.join(cache, commit + suffix)
    binary = os.path.join(bdir, "hotbench")
    if os.path.exists(os.path.join(bdir, "built")) and os.access(binary, os.X_OK):
        log("compare: %s: cached build (build-rev/%s/)" % (commit[:12], commit + suffix))
        return binary
    src = os.path.join(cache, "src-" + commit + suffix)
    log("compare: %s: building in a git worktree (build-rev/%s/, about 20 s on 2 cores)" % (
        commit[:12], commit + suffix))
    if os.path.exists(src):
        git(root, "worktree", "remove", "--force", src)
        shutil.rmtree(src, ignore_errors=True)
    git(root, "worktree", "prune")
    if git(root, "worktree", "add", "--detach", "--force", src, commit) is None:
        raise BuildError("git worktree add of %s into %s failed" % (commit, src))
    try:
        compile_tree(src, bdir, hooks, "revision " + commit[:12], log)
    finally:
        git(root, "worktree", "remove", "--force", src)
        shutil.rmtree(src, ignore_errors=True)
    open(os.path.join(bdir, "built"), "w").close()
    return binary

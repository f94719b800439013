"""revisions - a revision's hotbench, built once: `git worktree add` of the commit into
build-rev/src-<commit>/, configured and built into build-rev/<commit>[-hooks]/ (release flags,
the same as build-ci), the source worktree removed afterwards. A later compare of the same
commit reuses the binary if it was configured with today's options (the stamp file `built`
holds them). The working tree (uncommitted changes included) builds into
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
STAMP = "built"  # a finished build's stamp file: the configure options it was made with


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


# The code-layout flag of CMakeLists.txt (every function on a 64-byte line, so that an edit of
# one function does not move the others' loops), passed to every revision: one older than that
# line is built the same way as the head, or the compare would time the flag, not the change.
HB_LAYOUT_FLAGS = "-falign-functions=64"


def cmake_args(hooks):
    """The configure options: build-ci's (release flags, no tests, the layout flag), hooks on
    request."""
    return ["-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DHB_TESTS=OFF", "-DHB_SANITIZE=OFF",
            "-DCMAKE_C_FLAGS=" + HB_LAYOUT_FLAGS, "-DCMAKE_CXX_FLAGS=" + HB_LAYOUT_FLAGS,
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
    if cached_binary(bdir, hooks):
        log("compare: %s: cached build (build-rev/%s/)" % (commit[:12], commit + suffix))
        return cached_binary(bdir, hooks)
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
    with open(os.path.join(bdir, STAMP), "w") as f:
        f.write(" ".join(cmake_args(hooks)))
    return os.path.join(bdir, "hotbench")


def cached_binary(bdir, hooks):
    """bdir's hotbench if a finished build made with today's configure options (cmake_args) is
    there, else None: a build from before a change of the options is not reused."""
    binary = os.path.join(bdir, "hotbench")
    if read_text(os.path.join(bdir, STAMP)) == " ".join(cmake_args(hooks)) and \
            os.access(binary, os.X_OK):
        return binary
    return None


def read_text(path):
    """path's text, or None when it cannot be read."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None

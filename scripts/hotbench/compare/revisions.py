"""revisions - a revision's hotbench, built once: `git worktree add` of the commit into
build-rev/.src/ (one path for every commit, one build at a time: build-rev/.src.lock),
configured and built into build-rev/<commit>[-hooks]/ (release flags, the same as build-ci), the
source worktree removed afterwards. With ccache installed, the compiler runs under it
(CCACHE_DIR build-rev/.ccache unless set, CCACHE_NOHASHDIR, CCACHE_NODIRECT): the commits of a bisection or a
compare share every file they do not change, as their sources sit at the same path; the
objects are the compiler's own, so the binary is the same as without it. A later compare of the same
commit reuses the binary if it was configured with today's options (the stamp file `built`
holds them). The working tree (uncommitted changes included) builds into
build-rev/worktree[-hooks]/ and is rebuilt every time (make decides what changed).

build-rev/ is git-ignored (/build-*/). Errors: an unknown revision is a usage error (exit 2);
a revision that does not configure or compile raises BuildError, which names the revision (short
sha and subject), the first error lines of its build log (first_error) and the log: compare.py
then writes a `not built` verdict and exits 3, so that `git bisect run` skips the commit, and
`make history-run` goes on with the next commit (docs/compare.md, "A revision that does not
build").
"""

import fcntl
import os
import re
import shutil
import subprocess

from ..git import git
from .errors import die

WORKTREE = "worktree"
STAMP = "built"  # a finished build's stamp file: the configure options it was made with


class BuildError(Exception):
    """A revision failed to configure or build. commit: the full sha (WORKTREE for the working
    tree); subject: its commit's first line ('' for the working tree); error: the first error
    lines of the build log (first_error: a list of str, empty when none was found, e.g. a
    failed `git worktree add`); log: the build log's path (None when nothing was built).
    str(e) is one line: '<short sha> (<subject>) does not build: <first error line>'."""

    def __init__(self, commit, subject, error, log):
        self.commit, self.subject, self.error, self.log = commit, subject, list(error), log
        first = self.error[0] if self.error else "no compiler error in its log (%s)" % log
        super().__init__("%s does not build: %s" % (describe(commit, subject), first))


def describe(commit, subject):
    """'1a2b3c4d5e6f (its subject)' for a commit, 'the working tree' for WORKTREE."""
    if commit == WORKTREE:
        return "the working tree"
    return "%s (%s)" % (commit[:12], subject) if subject else commit[:12]


def subject_of(root, commit):
    """commit's subject line in root's repository ('' for WORKTREE or when git fails)."""
    if commit == WORKTREE:
        return ""
    return git(root, "log", "-1", "--format=%s", commit) or ""


# A diagnostic of gcc, clang, ld (through collect2) or cmake: `file:line:col: error: ...`,
# `fatal error:`, `CMake Error at file:line (...):` or `CMake Error: ...`; colours stripped.
ERROR_RE = re.compile(r"\berror:|^CMake Error\b", re.IGNORECASE)
LINKER_RE = re.compile(r"undefined reference|(^|/)ld(\.[a-z]+)?: ")
ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def first_error(log_path, src=None, limit=2):
    """The first error of a build log (str path) as at most `limit` lines (list of str, [] when
    the log has none or cannot be read): the first line matching ERROR_RE, with a path under
    src (the source tree that was built, str or None) made relative to it, so the line reads
    `cases/x/y.c:12:5: error: ...`. A `CMake Error` brings the next non-empty line (its
    message); collect2's `ld returned 1` (gcc) and clang's `linker command failed` are preceded
    by the linker's first line before them."""
    try:
        with open(log_path, errors="replace") as f:
            text = [ANSI_RE.sub("", line.rstrip("\n")) for line in f]
    except OSError:
        return []
    if src:
        prefix = os.path.join(os.path.realpath(src), "")
        text = [t.replace(prefix, "").replace(os.path.join(src, ""), "") for t in text]
    for i, line in enumerate(text):
        if not ERROR_RE.search(line):
            continue
        out = [line.strip()]
        if line.startswith("CMake Error"):
            out += [t.strip() for t in text[i + 1:] if t.strip()][:1]
        elif "collect2" in line or "linker command failed" in line:
            out[:0] = [t.strip() for t in text[:i] if LINKER_RE.search(t)][:1]
        return out[:limit]
    return []


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


def run_logged(cmd, log_path, cwd=None, env=None):
    """Runs cmd with its output appended to log_path; its exit status."""
    with open(log_path, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        return subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd, env=env)


def compiler_cache(cache):
    """(extra configure options, environment) that put the compiler under ccache when it is
    installed and the user's environment names no launcher of its own; ([], None) otherwise.
    cache: build-rev/, whose .ccache/ holds the objects unless CCACHE_DIR is set. The cwd of a
    compile (build-rev/<commit>/...) is left out of the hash (CCACHE_NOHASHDIR): only the
    sources' path, the same for every commit, and their contents count."""
    if not shutil.which("ccache") or os.environ.get("CMAKE_C_COMPILER_LAUNCHER") or \
            os.environ.get("CMAKE_CXX_COMPILER_LAUNCHER"):
        return [], None
    # CCACHE_NODIRECT: the preprocessor's output is hashed, never ccache's list of the headers
    # a file included: that list misses a header that __has_include did not find then and
    # finds now (harness/hb_testhook_builtin.h), and would reuse the object compiled without it
    env = dict(os.environ, CCACHE_NOHASHDIR="1", CCACHE_NODIRECT="1")
    env.setdefault("CCACHE_DIR", os.path.join(cache, ".ccache"))
    return ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"], env


def compile_tree(src, bdir, hooks, commit, subject, launcher=([], None)):
    """Configures and builds src's hotbench into bdir (its log, bdir/build.log, started afresh);
    returns the binary's path. launcher: compiler_cache()'s answer. Raises BuildError(commit,
    subject, first error, log)."""
    os.makedirs(bdir, exist_ok=True)
    logf = os.path.join(bdir, "build.log")
    open(logf, "w").close()  # one attempt per log: its first error is this build's
    jobs = str(os.cpu_count() or 2)
    extra, env = launcher
    if run_logged(["cmake", "-S", src, "-B", bdir] + cmake_args(hooks) + extra, logf,
                  env=env) != 0 or \
            run_logged(["cmake", "--build", bdir, "-j", jobs, "--target", "hotbench"], logf,
                       env=env) != 0:
        raise BuildError(commit, subject, first_error(logf, src), logf)
    return os.path.join(bdir, "hotbench")


def build(root, commit, hooks=False, log=print):
    """The path of commit's hotbench (commit from resolve()), building it when not cached.
    root is the repository; builds go to root/build-rev/. Raises BuildError when it does not
    build (its log stays in build-rev/<commit>[-hooks]/build.log)."""
    cache = os.path.join(root, "build-rev")
    suffix = "-hooks" if hooks else ""
    if commit == WORKTREE:
        log("compare: building the working tree (build-rev/worktree%s/)" % suffix)
        return compile_tree(root, os.path.join(cache, WORKTREE + suffix), hooks, WORKTREE, "")
    bdir = os.path.join(cache, commit + suffix)
    if cached_binary(bdir, hooks):
        log("compare: %s: cached build (build-rev/%s/)" % (commit[:12], commit + suffix))
        return cached_binary(bdir, hooks)
    log("compare: %s: building in a git worktree (build-rev/%s/, about 20 s on 2 cores)" % (
        commit[:12], commit + suffix))
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, ".src.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # build-rev/.src/ is one commit's at a time
        if cached_binary(bdir, hooks):  # built by another compare while this one waited
            return cached_binary(bdir, hooks)
        compile_commit(root, cache, commit, bdir, hooks)
    with open(os.path.join(bdir, STAMP), "w") as f:
        f.write(" ".join(cmake_args(hooks)))
    return os.path.join(bdir, "hotbench")


def compile_commit(root, cache, commit, bdir, hooks):
    """`git worktree add` of commit at cache/.src/, compile_tree into bdir, the worktree
    removed whatever happens. Raises BuildError."""
    src = os.path.join(cache, ".src")
    if os.path.exists(src):
        git(root, "worktree", "remove", "--force", src)
        shutil.rmtree(src, ignore_errors=True)
    git(root, "worktree", "prune")
    subject = subject_of(root, commit)
    if git(root, "worktree", "add", "--detach", "--force", src, commit) is None:
        raise BuildError(commit, subject, ["git worktree add of it into %s failed" % src], None)
    try:
        compile_tree(src, bdir, hooks, commit, subject, compiler_cache(cache))
    finally:
        git(root, "worktree", "remove", "--force", src)
        shutil.rmtree(src, ignore_errors=True)


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

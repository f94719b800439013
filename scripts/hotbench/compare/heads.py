"""heads - gate_power's unchanged heads: the tree built again with one comment changed.

In CI the base and the head of a compare are always two binary files, built apart, and an
unchanged pull request (a comment, a README) must pass. So make gate-power's unchanged compares
do the same: a copy of the working tree's files (git ls-files: tracked and untracked, not the
ignored data/ and build trees) in <heads>/src/, one comment line appended to the first C file of
the harness (harness/hb_err.c) naming the compare, and an incremental build in <heads>/build/,
configured as the base's build directory was (its CMakeCache.txt). Each compare's head is then
a fresh link of freshly compiled code that is the same C as the base's.
"""

import os
import shutil
import subprocess

from .revisions import git

# the file whose comment changes, and the CMake cache entries copied from the base's build
COMMENTED = os.path.join("harness", "hb_err.c")
CACHE_KEYS = ("CMAKE_BUILD_TYPE", "CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER", "CMAKE_C_FLAGS",
              "CMAKE_CXX_FLAGS", "HB_TEST_HOOKS", "HB_WERROR")


class HeadError(Exception):
    """The head could not be copied or built; the message says which command failed."""


def cache_options(build_dir):
    """-D options of CACHE_KEYS as build_dir/CMakeCache.txt sets them ([] when absent)."""
    out = []
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in CACHE_KEYS and "=" in rest:
                    out.append("-D%s=%s" % (key, rest.split("=", 1)[1].rstrip("\n")))
    except OSError:
        pass
    return out


def copy_tree(repo, dest):
    """Copies repo's working-tree files (git ls-files --cached --others --exclude-standard,
    without data/ and build*/) into dest, once; raises HeadError when git fails."""
    if os.path.exists(os.path.join(dest, COMMENTED)):
        return
    listing = git(repo, "ls-files", "--cached", "--others", "--exclude-standard")
    if listing is None:
        raise HeadError("git ls-files failed in %s" % repo)
    for rel in listing.splitlines():
        if rel.startswith(("data/", "build")) or not os.path.isfile(os.path.join(repo, rel)):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, rel)) or dest, exist_ok=True)
        shutil.copy2(os.path.join(repo, rel), os.path.join(dest, rel))


def fresh_head(ctx, index, repo=None):
    """The path of a hotbench built afresh for unchanged compare index: ctx["heads"] the
    folder, ctx["binary"] the base (whose build directory's configuration is copied). Raises
    HeadError when the copy, the configure or the build fails (its output's tail named)."""
    repo = repo or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    src, bdir = os.path.join(ctx["heads"], "src"), os.path.join(ctx["heads"], "build")
    copy_tree(repo, src)
    with open(os.path.join(repo, COMMENTED)) as f:
        text = f.read()
    with open(os.path.join(src, COMMENTED), "w") as f:
        f.write(text + "/* gate_power: unchanged head %d */\n" % index)
    cmds = [["cmake", "--build", bdir, "-j", "2"]]
    if not os.path.exists(os.path.join(bdir, "CMakeCache.txt")):
        cmds.insert(0, ["cmake", "-S", src, "-B", bdir] +
                    cache_options(os.path.dirname(ctx["binary"])))
    for cmd in cmds:
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise HeadError("%s failed: %s" % (" ".join(cmd), (p.stdout + p.stderr)[-800:]))
    return os.path.join(bdir, "hotbench")

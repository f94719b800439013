#!/usr/bin/env bash
# test_bisect.sh BINDIR SRCDIR - make bisect (scripts/perf_bisect.py) finds the commit that made a
# benchmark slower. In a throwaway git repository holding a copy of SRCDIR's tree (its tracked
# and untracked files, not the git-ignored data/ and build trees), 8 commits: 1 the tree, 2-8 a
# line each in a scratch file, and from 5 on harness/hb_testhook_builtin.h, which makes a
# -DHB_TEST_HOOKS=ON build of rfc3339/swar 15% slower (the builtin injection, HB_INJECT unset).
# `make bisect GOOD=<1> BAD=<8> FILTER=<two rfc3339/swar sizes> HOOKS=1` must name commit 5 as
# the first bad commit, leave no bisect state and the working tree as it was. Before that, the
# refusals (no builds): an unknown revision, GOOD not an ancestor of BAD, no FILTER, a
# bisection already in progress: exit 2 naming the problem.
# About 5 builds of the tree (GOOD, BAD and ~3 steps, ~30 s each on 2 cores) and short compares:
# 2.5 to 5 minutes (145-276 s seen on 2 shared cores). Exits 77 (ctest: skipped) with the reason
# when git is missing, SRCDIR is not a git checkout or BINDIR's hotbench is a sanitizer build
# (make test runs this test in the normal build). Ends with "N passed, M failed".
set -u
bindir=$1
src=$2
t0=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! command -v git >/dev/null; then
    echo "test_bisect: skipped: git is not installed"
    exit 77
fi
if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    echo "test_bisect: skipped: $src is not a git checkout (the tree is copied from git ls-files)"
    exit 77
fi
ctx=$(HB_DATA_DIR=$work/data "$bindir/hotbench" --hb_profile=smoke \
      --benchmark_filter='^bufgrow/memcpy/size:65536/' --benchmark_min_time=1e-9 \
      --benchmark_format=json 2>/dev/null |
      /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["context"]
                           ["hb_build_flags"])')
case "$ctx" in
*-fsanitize*)
    echo "test_bisect: skipped: a sanitizer build; the bisection builds its own trees with" \
         "release flags, once per make test: the normal build runs this test"
    exit 77 ;;
esac

repo=$work/repo
mkdir "$repo"
# the working tree's files as the developer has them (not the ignored data/, build*/, results/runs/)
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
    grep -zv -E '^(data|build[^/]*)/' | tar -c --null -T - --ignore-failed-read 2>/dev/null) |
    tar -x -C "$repo"
export GIT_AUTHOR_NAME=hotbench GIT_AUTHOR_EMAIL=hotbench@example.invalid
export GIT_COMMITTER_NAME=hotbench GIT_COMMITTER_EMAIL=hotbench@example.invalid
unset HB_INJECT HB_INJECT_SELECT MAKEFLAGS MFLAGS MAKELEVEL
g() {
    git -C "$repo" -c commit.gpgsign=false "$@"
}
g init -q -b main
g add -A
g commit -q -m "1: the tree"
for i in 2 3 4 5 6 7 8; do
    echo "line $i" >>"$repo/scratch.txt"
    msg="$i: a line in scratch.txt"
    if [ "$i" -eq 5 ]; then
        cat >"$repo/harness/hb_testhook_builtin.h" <<'EOF'
/* test_bisect.sh: a 15% slowdown of rfc3339/swar in -DHB_TEST_HOOKS=ON builds */
#define HB_INJECT_BUILTIN "slowdown:0.15"
#define HB_INJECT_SELECT_BUILTIN "^rfc3339/swar$"
EOF
        msg="5: rfc3339/swar 15% slower (harness/hb_testhook_builtin.h)"
    fi
    g add -A
    g commit -q -m "$msg"
done
mapfile -t c < <(g rev-list --reverse HEAD)
c=("" "${c[@]}") # c[1] .. c[8]

source "$(dirname "$0")/testlib.sh"
bisect() { # name, make's arguments: runs make bisect in the repository, output in $work/<name>.out
    local name=$1
    shift
    local t
    t=$(date +%s)
    make -C "$repo" --no-print-directory bisect "$@" >"$work/$name.out" 2>&1
    status=$?
    echo "test_bisect: make bisect $name: exit $status, $(($(date +%s) - t)) s"
}
has() { # name, ERE: the output of that run has a line matching
    grep -Eq "$2" "$work/$1.out"
}
# one benchmark (its time and its instruction count) keeps each compare short
filter='^rfc3339/swar/rows:1000/'

bisect unknown GOOD=no-such-rev BAD="${c[8]}" FILTER="$filter"
check "unknown revision: exit 2" test "$status" -eq 2
check "unknown revision: named" has unknown 'GOOD=no-such-rev is not a commit'
bisect reversed GOOD="${c[8]}" BAD="${c[1]}" FILTER="$filter"
check "GOOD not an ancestor of BAD: exit 2" test "$status" -eq 2
check "GOOD not an ancestor of BAD: said" has reversed 'is not an ancestor of BAD'
bisect nofilter GOOD="${c[1]}" BAD="${c[8]}"
check "no FILTER: exit 2" test "$status" -eq 2
check "no FILTER: said" has nofilter 'no benchmark filter given'
g bisect start --no-checkout "${c[8]}" "${c[1]}" >/dev/null 2>&1
bisect busy GOOD="${c[1]}" BAD="${c[8]}" FILTER="$filter"
check "a bisection in progress: exit 2" test "$status" -eq 2
check "a bisection in progress: says how to end it" has busy 'already in progress.*bisect reset'
check "a bisection in progress: left as it was" test -n "$(g rev-parse -q --verify BISECT_HEAD)"
g bisect reset >/dev/null 2>&1
check "the refusals wrote nothing" test ! -e "$repo/results/runs"

bisect found GOOD="${c[1]}" BAD="${c[8]}" FILTER="$filter" HOOKS=1 ROUNDS=2
check "bisection: exit 0" test "$status" -eq 0
check "bisection: the first bad commit is commit 5" has found "^bisect: first bad commit ${c[5]} "
check "bisection: rfc3339/swar regressed, with its ratio and CI" \
    has found '^bisect: +regressed: ratio [0-9.]+ CI \[[0-9.]+, [0-9.]+\] rfc3339/swar/'
check "bisection: no bisect state left" \
    test ! -e "$(cd "$repo" && realpath -m "$(git rev-parse --git-path BISECT_START)")"
check "bisection: the working tree untouched" test -z "$(g status --porcelain)"
check "bisection: HEAD untouched" test "$(g rev-parse HEAD)" = "${c[8]}"
record=$(find "$repo/results/runs" -path '*-bisect/bisect.json' 2>/dev/null | sort | tail -n 1)
check "bisection: bisect.json names commit 5" test -n "$record" -a "$(/usr/bin/python3 -c \
    'import json, sys; print(json.load(open(sys.argv[1]))["first_bad"]["commit"])' \
    "$record" 2>/dev/null)" = "${c[5]}"

# the bisection's own lines: its steps and the answer
grep '^bisect:' "$work/found.out"
if [ "$fail" -gt 0 ]; then
    for f in "$work"/*.out; do
        echo "--- $(basename "$f")" >&2
        cat "$f" >&2
    done
fi
echo "test_bisect: $(($(date +%s) - t0)) s"
summary

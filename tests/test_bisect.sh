#!/usr/bin/env bash
# test_bisect.sh BINDIR SRCDIR - make bisect (scripts/perf_bisect.py) finds the commit that made a
# benchmark slower, and every command that builds a revision says so when one does not build.
# Every revision built is a commit of a throwaway git repository holding a copy of SRCDIR's tree
# (its tracked and untracked files, not the git-ignored data/ and build trees; its
# results/accepted-slowdowns.tsv emptied, as its lines name commits of the real history): never
# a commit of the project's own history, which may not build on this machine. 8 commits: 1 the
# tree, 2-8 a line each in a scratch file; 4 also breaks the C build (a syntax error appended to
# harness/hb_err.c, the first file compiled, so it fails fast), 5 repairs it; from 6 on
# harness/hb_testhook_builtin.h makes a -DHB_TEST_HOOKS=ON build of rfc3339/swar 50% slower
# (the builtin injection, HB_INJECT unset). Every make here runs with -o deps: make test has
# installed the packages, and a test must not run apt-get (root's deps would).
# `make bisect GOOD=<1> BAD=<8> FILTER=<one rfc3339/swar size> HOOKS=1` must skip commit 4 (git
# visits it first), list it with its compiler error, name commit 6 as the first bad commit,
# leave no bisect state and the working tree as it was, and explain commit 6 against GOOD per
# function (the injected busy loop first, new; its flame graph written). Before that, the refusals (no builds):
# an unknown revision, GOOD not an ancestor of BAD, no FILTER, a bisection already in progress:
# exit 2 naming the problem. After it, commit 4 as a side of `make compare` (BASE=4 HEAD=5),
# `make bench-ci` (HB_BASE=4, the head build the bisection's commit 8: make -o build-ci) and
# `make history-run REVS=3..4`: each names the revision, its first compiler error
# (harness/hb_err.c:<line>) and `not built`, exits 3 (make: "Error 3"), no traceback.
# The compares are short (no callgrind and no fits) and the slowdown large: the bisection's
# logic, not the compare's power, is tested. So they run from one file per arm (--copies 0) and
# call only 20% or more a regression (--min-effect 0.2): a CI run of make test (both trees at
# once) measured BAD at 2.09 [1.67, 2.73] and left it inconclusive, the copies' random-effect
# interval (3 copies: about 2 degrees of freedom) reaching below +1% once one copy stood out;
# with one file per arm, a file drawn 6% slow (issue 31) stays far below 20%. (At 15% and 2 ABBA blocks a CI run under load
# measured commit 7 at 1.54 [0.89, 1.77] and called it good: 4 runs a side have no 80% interval
# above 1 when one process is an outlier. So: 50%, and the default 3 blocks.) About 5 builds of the tree (GOOD, BAD and the steps: the first
# ~25 s on 2 cores, the others ~12 s, as ccache gives them every unchanged file), 4 failing ones
# (a configure and one file: 5-10 s each) and short compares: 95 s alone on the idle 2-vCPU VM,
# 116 s at load 3.5, 158 s inside make test beside two busy processes. Exits 77 (ctest: skipped)
# with the reason
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
# HB_HISTORY unset: the compares record into the throwaway repository's results/, not the user's
unset HB_INJECT HB_INJECT_SELECT MAKEFLAGS MFLAGS MAKELEVEL HB_BASE HB_HISTORY
g() {
    git -C "$repo" -c commit.gpgsign=false "$@"
}
broken=harness/hb_err.c
if [ ! -f "$repo/$broken" ]; then
    echo "test_bisect: $broken is not in the tree: name another C file compiled first" >&2
    exit 1
fi
echo "# test_bisect.sh: none (the real file's lines name commits of the real history)" \
    >"$repo/results/accepted-slowdowns.tsv"
g init -q -b main
g add -A
g commit -q -m "1: the tree"
for i in 2 3 4 5 6 7 8; do
    echo "line $i" >>"$repo/scratch.txt"
    msg="$i: a line in scratch.txt"
    if [ "$i" -eq 4 ]; then
        echo "int hb_test_bisect_broken(void) { return 0 }" >>"$repo/$broken"
        broken_line=$(wc -l <"$repo/$broken")
        msg="4: $broken does not compile"
    elif [ "$i" -eq 5 ]; then
        g checkout -q HEAD~1 -- "$broken"
        msg="5: $broken compiles again"
    elif [ "$i" -eq 6 ]; then
        cat >"$repo/harness/hb_testhook_builtin.h" <<'EOF'
/* test_bisect.sh: a 50% slowdown of rfc3339/swar in -DHB_TEST_HOOKS=ON builds */
#define HB_INJECT_BUILTIN "slowdown:0.5"
#define HB_INJECT_SELECT_BUILTIN "^rfc3339/swar$"
EOF
        msg="6: rfc3339/swar 50% slower (harness/hb_testhook_builtin.h)"
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
    make -C "$repo" --no-print-directory -o deps bisect "$@" >"$work/$name.out" 2>&1
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

# the compiler's first error in commit 4, as every command must show it
error="$broken:$broken_line:[0-9]+: error: "
bisect found GOOD="${c[1]}" BAD="${c[8]}" FILTER="$filter" HOOKS=1 \
    COMPARE_ARGS="--no-instructions --no-complexity --copies 0 --min-effect 0.2"
check "bisection: exit 0" test "$status" -eq 0
check "bisection: commit 4 skipped at its step, with its compiler error" \
    has found "^bisect: step [0-9]+ +${c[4]:0:12} not-built +-> skip +$error"
check "bisection: the skipped commit listed with its subject and error" \
    has found "^bisect:   skipped ${c[4]:0:12} 4: $broken does not compile: $error"
check "bisection: the first bad commit is commit 6" has found "^bisect: first bad commit ${c[6]} "
check "bisection: rfc3339/swar regressed, with its ratio and CI" \
    has found '^bisect: +regressed: ratio [0-9.]+ CI \[[0-9.]+, [0-9.]+\] rfc3339/swar/'
# where (issue 32): the first bad commit explained against GOOD, per function; the injected
# busy loop of the shim (the slowdown hook) heads the table, new
check "bisection: the first bad commit's explain table, the injected loop first" \
    has found '^bisect:     .*slowdown.* new$'
check "bisection: its explain.md and flame graph" test -n "$(find "$repo/results/runs" \
    -path '*-bisect/explain/explain/rfc3339/swar.svg' 2>/dev/null)"
check "bisection: no bisect state left" \
    test ! -e "$(cd "$repo" && realpath -m "$(git rev-parse --git-path BISECT_START)")"
check "bisection: the working tree untouched" test -z "$(g status --porcelain)"
check "bisection: HEAD untouched" test "$(g rev-parse HEAD)" = "${c[8]}"
record=$(find "$repo/results/runs" -path '*-bisect/bisect.json' 2>/dev/null | sort | tail -n 1)
check "bisection: bisect.json names commit 6, and commit 4 skipped" \
    test -n "$record" -a "$(/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["first_bad"]["commit"], *[s["commit"] for s in d["skipped"]])' "$record" 2>/dev/null)" \
    = "${c[6]} ${c[4]}"

# commit 4 on one side of each command that builds revisions (the other side cached above)
run() { # name, command...: output in $work/<name>.out, status in $status
    local name=$1
    shift
    "$@" >"$work/$name.out" 2>&1
    status=$?
    echo "test_bisect: $name: exit $status"
}
notbuilt() { # name, side, what the other side says, make's target
    check "$4: exit 3" has "$1" "^make: \*\*\* .*$4\] Error 3$"
    check "$4: the $2 named, not built" \
        has "$1" "^compare: $2 ${c[4]:0:12} \(4: $broken does not compile\): not built$"
    check "$4: its first compiler error" has "$1" "^compare:   $error"
    check "$4: the other side built" has "$1" "^compare: $3: built$"
    check "$4: the verdict" has "$1" "^compare: verdict: not built \($2\); nothing was measured"
    check "$4: no traceback" bash -c "! grep -q Traceback '$work/$1.out'"
    check "$4: compare.json says not built" /usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1] + "/compare.json"))
sys.exit(not (d["verdict"] == "not built" and d["not_built"] == [sys.argv[2]] and
              d[sys.argv[2]]["commit"] == sys.argv[3] and d["exit_code"] == 3))' \
        "$work/$1" "$2" "${c[4]}"
}
run compare make -C "$repo" --no-print-directory -o deps compare BASE="${c[4]}" HEAD="${c[5]}" \
    FILTER="$filter" COMPARE_ARGS="--hooks --out $work/compare"
notbuilt compare base "head ${c[5]:0:12} \\(5: $broken compiles again\\)" compare
head8=$repo/build-rev/${c[8]}-hooks
run bench-ci env HB_BASE="${c[4]}" make -C "$repo" --no-print-directory -o deps -o build-ci \
    bench-ci CI_BUILD="$head8" COMPARE_ARGS="--hooks --filter $filter --out $work/bench-ci"
notbuilt bench-ci base "head the working tree" bench-ci
run history-run make -C "$repo" --no-print-directory -o deps history-run REVS="${c[3]}..${c[4]}" \
    FILTER="$filter" HISTORY_ARGS="--history $work/history.sqlite"
check "history-run: exit 3" has history-run '^make: \*\*\* .*history-run\] Error 3$'
check "history-run: the commit's line, then not built with its compiler error" \
    has history-run "^  not built: $error"
check "history-run: the summary names it" has history-run \
    "^history run: not built: ${c[4]:0:12} \(4: $broken does not compile\): $error"
check "history-run: counted, nothing recorded" \
    has history-run '^history run: 0 recorded, 0 already recorded, 1 not built, 0 failed$'
check "history-run: no traceback" bash -c "! grep -q Traceback '$work/history-run.out'"

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

#!/bin/bash
# test_benchmark_names.sh - the benchmark names users and the history depend on do not change:
# `hotbench --benchmark_list_tests --hb_profile=P` equals tests/golden/benchmark-names-P.txt for
# each profile, line for line (issue 12 item 7). Then a run without --benchmark_min_time, where a
# family's own minimum time (hb_family.min_time_s) is in force, writes rows under those names:
# google-benchmark's "min_time:" part is left out (issue 16).
#
# A golden line may end in an architecture condition, " [ARCH ...]": the name is registered only
# on a build for one of those architectures (CMake's CMAKE_SYSTEM_PROCESSOR, as `uname -m` spells
# it: x86_64, aarch64, ...; AMD64/amd64 count as x86_64, arm64 as aarch64). On other builds the
# line is left out of the expected list; a line without a condition is expected everywhere.
# Usage: test_benchmark_names.sh <folder holding hotbench> <source tree> [<target architecture>]
# (default: `uname -m`)
set -u
bin="$1/hotbench"
src="$2"
arch=${3:-$(uname -m)}
case $arch in
AMD64 | amd64) arch=x86_64 ;;
arm64 | ARM64) arch=aarch64 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# expected GOLDEN: the golden list for $arch, conditions applied and removed
expected() {
    awk -v arch="$arch" '
        match($0, / \[[^][]*\]$/) {
            n = split(substr($0, RSTART + 2, RLENGTH - 3), on, " ")
            for (i = 1; i <= n; i++)
                if (on[i] == arch) {
                    print substr($0, 1, RSTART - 1)
                    break
                }
            next
        }
        { print }' "$1"
}

for p in full quick smoke; do
    golden="$src/tests/golden/benchmark-names-$p.txt"
    expected "$golden" >"$work/$p.want"
    if ! "$bin" --benchmark_list_tests --hb_profile="$p" >"$work/$p.txt" 2>"$work/$p.err"; then
        echo "FAIL $p: hotbench --benchmark_list_tests exited non-zero:"
        cat "$work/$p.err"
        fail=1
    elif ! diff -u --label "tests/golden/benchmark-names-$p.txt ($arch)" "$work/$p.want" \
        --label "hotbench --hb_profile=$p" "$work/$p.txt"; then
        echo "FAIL $p: the names differ from tests/golden/benchmark-names-$p.txt for $arch (above)"
        fail=1
    else
        echo "ok   $p: $(wc -l <"$work/$p.txt") names"
    fi
done
# the smoke volumes and timestamp rows, once each: 0.1 s a repetition
filter='^(volumes/fast/volumes:3/tags:2/compact:0/piece:0|rfc3339/simd/rows:100)/'
if ! "$bin" --hb_profile=smoke --benchmark_filter="$filter" --benchmark_out="$work/run.json" \
    --benchmark_out_format=json >"$work/run.out" 2>&1; then
    echo "FAIL a run of $filter exited non-zero:"
    cat "$work/run.out"
    fail=1
else
    grep -o '"name": "[^"]*"' "$work/run.json" | sed 's/"name": "//; s/"$//' | sort -u \
        >"$work/run-names.txt"
    grep -E "$filter" "$work/smoke.txt" | sort >"$work/want-names.txt"
    if grep -q 'min_time' "$work/run-names.txt" "$work/run.out" ||
        ! diff -u "$work/want-names.txt" "$work/run-names.txt"; then
        echo "FAIL a run with the families' own minimum time: names differ from the listing"
        grep 'min_time' "$work/run-names.txt" "$work/run.out"
        fail=1
    else
        echo "ok   a run with the families' own minimum time keeps the listed names"
    fi
fi
exit $fail

#!/bin/bash
# test_benchmark_names.sh - the benchmark names users and the history depend on do not change:
# `hotbench --benchmark_list_tests --hb_profile=P` equals tests/golden/benchmark-names-P.txt for
# each profile, line for line (issue 12 item 7). Then a run without --benchmark_min_time, where a
# family's own minimum time (hb_family.min_time_s) is in force, writes rows under those names:
# google-benchmark's "min_time:" part is left out (issue 16).
# Usage: test_benchmark_names.sh <folder holding hotbench> <source tree>
set -u
bin="$1/hotbench"
src="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
for p in full quick smoke; do
    if ! "$bin" --benchmark_list_tests --hb_profile="$p" >"$work/$p.txt" 2>"$work/$p.err"; then
        echo "FAIL $p: hotbench --benchmark_list_tests exited non-zero:"
        cat "$work/$p.err"
        fail=1
    elif ! diff -u "$src/tests/golden/benchmark-names-$p.txt" "$work/$p.txt"; then
        echo "FAIL $p: the names differ from tests/golden/benchmark-names-$p.txt (above)"
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

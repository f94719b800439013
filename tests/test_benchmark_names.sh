#!/bin/bash
# test_benchmark_names.sh - the benchmark names users and the history depend on do not change:
# `hotbench --benchmark_list_tests --hb_profile=P` equals tests/golden/benchmark-names-P.txt for
# each profile, line for line (issue 12 item 7).
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
exit $fail

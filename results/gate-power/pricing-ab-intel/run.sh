#!/bin/bash
# run.sh OLD NEW OUT TAG N: the slowdown hook's pricing A/B (results/gate-power/README.md). N rounds
# of 4 processes, in a shuffled order each round: the binaries OLD and NEW (build-test/hotbench of
# two revisions, -DHB_TEST_HOOKS=ON), each as base (nothing injected) and as head (5% injected
# into the three strategies gate_power slows), at the compare's settings; JSON into OUT/TAG-*.
# Run at 2026-12-07 00:17 UTC with OLD = 90df788's, NEW = e7a7881's code, TAG idle, N 12, idle
# (summary.txt: python3 summ.py OUT idle; the JSONs: idle-json.tar.gz).
set -u
OLD=$1; NEW=$2; OUT=$3; TAG=$4; N=$5
mkdir -p "$OUT"
F='^(bufgrow/httpcore|rfc3339/millis-strtoll|volumes/expat-tree)/'
SEL='^(bufgrow/httpcore|rfc3339/millis-strtoll|volumes/expat-tree)$'
export GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=4294967295
for i in $(seq "$N"); do
    for arm in $(printf "old-base\nold-head\nnew-base\nnew-head\n" | shuf); do
        bin=$OLD; [ "${arm%-*}" = new ] && bin=$NEW
        inj=slowdown:0.05; [ "${arm#*-}" = base ] && inj=
        HB_INJECT=$inj HB_INJECT_SELECT=$SEL "$bin" --hb_profile=full --hb_budget=0.25 \
            --hb_repetitions=2 --benchmark_min_time=0.01 --benchmark_filter="$F" \
            --benchmark_format=json >"$OUT/$TAG-$arm-$i.json" 2>/dev/null || echo "fail $arm $i"
    done
done

#!/usr/bin/env bash
# run.sh - `make fuzz`: builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan, every
# decoder file instrumented) in build-fuzz/ and runs them one after the other, each for
# FUZZ_SECONDS seconds; then prints per target the executions, libFuzzer's coverage (cov: edges
# covered, ft: features) and corpus size, and any finding with the path of its crash file.
# The grown corpus is kept in build-fuzz/corpus/<target>/ (seeded from fuzz/corpus/<target>/ and
# fuzz/regressions/<target>/), crash files go to build-fuzz/findings/<target>/, each target's
# log to build-fuzz/logs/<target>.log. Exit status: 0 no finding, 1 a finding, 2 usage or setup
# error (clang or libFuzzer missing: the message names the Debian packages).
# usage: [FUZZ_SECONDS=N] [FUZZ_TARGETS='a b'] fuzz/run.sh   (or: make fuzz FUZZ_SECONDS=N ...)
#   FUZZ_SECONDS=N          seconds per target (default 300)
#   FUZZ_TARGETS='a b'      targets to run (default: rfc3339 dechunk body_reader volumes)
#   FUZZ_BUILD=DIR          the build tree (default build-fuzz)
#   FUZZ_ARGS='...'         more libFuzzer flags, e.g. FUZZ_ARGS='-jobs=2 -workers=2'
#   JOBS=N                  parallel compile jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
elif [ $# -gt 0 ]; then
    echo "usage: [FUZZ_SECONDS=N] [FUZZ_TARGETS='...'] fuzz/run.sh (see --help)" >&2
    exit 2
fi
seconds=${FUZZ_SECONDS:-300}
targets=${FUZZ_TARGETS:-rfc3339 dechunk body_reader volumes}
build=${FUZZ_BUILD:-build-fuzz}
jobs=${JOBS:-2}
case $seconds in '' | *[!0-9]*) echo "make fuzz: FUZZ_SECONDS must be a whole number of seconds, not '$seconds'" >&2; exit 2 ;; esac

# per target: libFuzzer's -max_len (bytes) and dictionary
declare -A max_len=([rfc3339]=512 [dechunk]=8192 [body_reader]=8192 [volumes]=4096)
declare -A dict=([rfc3339]=rfc3339 [dechunk]=chunked [body_reader]=chunked [volumes]=volumes)
for t in $targets; do
    [ -n "${max_len[$t]:-}" ] || { echo "make fuzz: no target '$t' (targets: ${!max_len[*]})" >&2; exit 2; }
done

# clang with libFuzzer's runtime: a one-line target must link
# shellcheck source=fuzz/clang.sh
. fuzz/clang.sh
hb_find_clang
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; return (int)(n & 0); }' >"$probe/t.c"
if [ -z "$cc" ] || [ -z "$cxx" ] || ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/t.c" -o "$probe/t" 2>"$probe/err"; then
    echo "make fuzz: clang with libFuzzer is missing${cc:+ ($cc cannot link -fsanitize=fuzzer: $(head -c 300 "$probe/err"))}" >&2
    echo "  install clang and its libFuzzer runtime: scripts/deps.sh --fuzz (as root; its needs: scripts/deps.sh --help)" >&2
    exit 2
fi

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_CXX_COMPILER="$cxx" -DHB_FUZZ=ON -DHB_TESTS=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target $(printf 'hb_fuzz_%s ' $targets) >"$build/build.log" 2>&1 ||
    { cat "$build/build.log" >&2; echo "make fuzz: the build failed" >&2; exit 2; }

mkdir -p "$build/logs"
summary=()
found=0
for t in $targets; do
    mkdir -p "$build/corpus/$t" "$build/findings/$t"
    log=$build/logs/$t.log
    stamp=$build/logs/$t.start
    touch "$stamp"
    echo "fuzz $t: ${seconds} s ..." >&2
    rc=0
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
    "$build/fuzz/hb_fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 \
        -max_len="${max_len[$t]}" -dict="fuzz/dict/${dict[$t]}.dict" -timeout=25 \
        -rss_limit_mb=2560 -artifact_prefix="$build/findings/$t/" ${FUZZ_ARGS:-} \
        "$build/corpus/$t" "fuzz/corpus/$t" "fuzz/regressions/$t" >"$log" 2>&1 || rc=$?
    # "#N ... cov: C ft: F corp: K/B" is libFuzzer's status line (fork mode: "#N: cov: ...")
    last=$(grep -E '^#[0-9]+:?[[:space:]].*cov: ' "$log" | tail -1 || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$last")
    line=$(printf '%-12s %4ss  %10s execs  %7s/s  cov %5s  ft %6s  corpus %s' "$t" "$seconds" \
        "${execs:-?}" "$(( ${execs:-0} / (seconds > 0 ? seconds : 1) ))" "${cov:-?}" "${ft:-?}" "${corp:-?}")
    # a finding: a non-zero exit, or crash files written (fork mode with -ignore_crashes=1 goes on)
    mapfile -t crashes < <(find "$build/findings/$t" -type f -newer "$stamp" | sort)
    if [ "$rc" -ne 0 ] || [ ${#crashes[@]} -gt 0 ]; then
        found=1
        what=$(grep -m1 -E '^hotbench fuzz|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY:' "$log" || true)
        line="$line"$'\n'"    FINDING (exit $rc): ${what:-see $log}"
        line="$line"$'\n'"    crash files: ${crashes[*]:-none written; see $log}"
    fi
    summary+=("$line")
done

echo
echo "make fuzz: $seconds s per target, build $build (logs in $build/logs/)"
printf '%s\n' "${summary[@]}"
if [ "$found" -ne 0 ]; then
    echo "make fuzz: FINDINGS above. Replay one with: $build/fuzz/hb_fuzz_<target> <crash file>;" \
        "keep it as fuzz/regressions/<target>/<name> once understood" >&2
    exit 1
fi
echo "make fuzz: no finding"

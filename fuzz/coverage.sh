#!/usr/bin/env bash
# coverage.sh - `make fuzz-coverage`: line coverage of each decoder file by the fuzz targets'
# corpora. Builds the replay drivers (fuzz/replay.c, no libFuzzer) with clang's source-based
# coverage (-fprofile-instr-generate -fcoverage-mapping) in build-fuzz-cov/, replays
# fuzz/corpus/<target>/, fuzz/regressions/<target>/ and, when `make fuzz` has run, the corpus it
# grew (build-fuzz/corpus/<target>/), merges the profiles with llvm-profdata and prints
# llvm-cov's per-file table (regions, functions, lines) for the decoder sources under cases/.
# The table is also written to build-fuzz-cov/coverage.txt; `llvm-cov show` of one file gives
# the uncovered lines (the command is printed at the end).
# usage: [FUZZ_TARGETS='a b'] fuzz/coverage.sh   (or: make fuzz-coverage)
#   FUZZ_TARGETS='a b'   targets (default: rfc3339 dechunk body_reader volumes)
#   FUZZ_BUILD=DIR       where `make fuzz` grew its corpus (default build-fuzz)
# Exit status: 0, or 2 when clang or llvm-cov is missing (the message names the Debian packages).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
fi
targets=${FUZZ_TARGETS:-rfc3339 dechunk body_reader volumes}
grown=${FUZZ_BUILD:-build-fuzz}
build=build-fuzz-cov
# shellcheck source=fuzz/clang.sh
. fuzz/clang.sh
hb_find_clang
profdata=$(hb_llvm_tool llvm-profdata)
llvmcov=$(hb_llvm_tool llvm-cov)
if [ -z "$cc" ] || [ -z "$cxx" ] || [ -z "$profdata" ] || [ -z "$llvmcov" ]; then
    echo "make fuzz-coverage: needs clang, and llvm-profdata and llvm-cov of its version" \
        "(found: ${cc:-no clang}, ${profdata:-no llvm-profdata}, ${llvmcov:-no llvm-cov}):" \
        "install them with scripts/deps.sh --fuzz (as root)" >&2
    exit 2
fi

flags="-fprofile-instr-generate -fcoverage-mapping"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
    -DHB_TESTS=OFF >/dev/null
cmake --build "$build" -j "${JOBS:-2}" --target $(printf 'hb_fuzz_replay_%s ' $targets) \
    >"$build/build.log" 2>&1 || { cat "$build/build.log" >&2; exit 2; }

rm -rf "$build/profiles"
mkdir -p "$build/profiles"
objects=()
for t in $targets; do
    dirs=("fuzz/corpus/$t" "fuzz/regressions/$t")
    [ -d "$grown/corpus/$t" ] && dirs+=("$grown/corpus/$t")
    LLVM_PROFILE_FILE="$build/profiles/$t-%p.profraw" "$build/fuzz/hb_fuzz_replay_$t" "${dirs[@]}" |
        grep -v ' passed, ' >&2
    objects+=(-object "$build/fuzz/hb_fuzz_replay_$t")
done
"$profdata" merge -sparse -o "$build/fuzz.profdata" "$build"/profiles/*.profraw
# the decoders: every source of the cases' libraries but the benchmark registrations
mapfile -t sources < <(ls cases/rfc3339/rfc3339*.c cases/rfc3339/*.h cases/bufgrow/dechunk.c \
    cases/bufgrow/body_reader.c cases/bufgrow/bufgrow.c cases/volumes/vol_*.c cases/volumes/volumes.c)
"$llvmcov" report -instr-profile="$build/fuzz.profdata" "${objects[@]:1}" "${sources[@]}" |
    tee "$build/coverage.txt"
echo "uncovered lines of one file: $llvmcov show -instr-profile=$build/fuzz.profdata ${objects[*]:1} -show-line-counts-or-regions FILE"

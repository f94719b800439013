#!/bin/bash
# test_new_case.sh - `make new-case NAME=demo_case` in a scratch copy of the source tree: bad and
# existing names are refused and change nothing; the new case touches only cases/demo_case/ and
# cases/cases.def; it builds (-Werror), its unit test passes, and hotbench lists it, describes it
# in --hb_manifest and runs its smoke profile with every strategy verified (issue 12 item 6).
# Usage: test_new_case.sh <source tree>. Builds a second tree: a few minutes on 2 cores.
set -u
src=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
check() { # check <what> <command...>
    local what=$1
    shift
    if "$@"; then
        echo "ok   $what"
    else
        echo "FAIL $what"
        fails=$((fails + 1))
    fi
}

# The scratch copy: the working tree's files (tracked and untracked, not ignored), committed
# there so that git status shows what make new-case changed.
copy=$work/src
mkdir -p "$copy"
(cd "$src" && git ls-files -z --cached --others --exclude-standard) |
    while IFS= read -r -d '' f; do [ -e "$src/$f" ] && printf '%s\0' "$f"; done |
    (cd "$src" && tar --null -T - -cf -) | (cd "$copy" && tar -xf -)
git -C "$copy" init -q && git -C "$copy" add -A &&
    git -C "$copy" -c user.name=test -c user.email=test@localhost commit -qm scratch ||
    { echo "FAIL cannot make the scratch copy"; exit 1; }

changes() { git -C "$copy" status --porcelain --untracked-files=all; }
refused() { # refused <name> <message part>: non-zero exit, the message, nothing changed
    make -C "$copy" --no-print-directory new-case NAME="$1" >"$work/out" 2>&1 && return 1
    grep -q -- "$2" "$work/out" && [ -z "$(changes)" ]
}
check "a bad name is refused" refused Bad-Name "is not a case name"
check "a name starting with a digit is refused" refused 9lives "is not a case name"
check "a name with a quote is refused, not a shell error" refused "a'b" "is not a case name"
check "an empty name is refused" refused "" "NAME is empty"
check "an existing case is refused" refused bufgrow "cases/bufgrow already exists"
# names whose files would shadow the tree's: harness/hb_case.h (and hb_case_register), the unit
# test target test_dechunk (cmake refuses a second one), data-gen/hb_prng.h
check "NAME=case is refused (harness/hb_case.h)" refused case "would shadow harness/hb_case.h"
check "NAME=dechunk is refused (test_dechunk)" refused dechunk "would shadow"
check "NAME=prng is refused (data-gen/hb_prng.h)" refused prng "would shadow data-gen/hb_prng.h"

check "make new-case NAME=demo_case exits 0" make -C "$copy" --no-print-directory new-case NAME=demo_case
changes >"$work/changes"
check "changes only in cases/demo_case/ and cases/cases.def" \
    bash -c "! grep -vE '^(\\?\\? cases/demo_case/| M cases/cases.def$)' '$work/changes'"
check "cases/cases.def gains one line" bash -c \
    "[ \"\$(git -C '$copy' diff cases/cases.def | grep -c '^+[^+]')\" = 1 ] && tail -1 '$copy/cases/cases.def' | grep -qx 'HB_CASE(demo_case)'"
check "a second make new-case NAME=demo_case is refused" \
    bash -c "! make -C '$copy' --no-print-directory new-case NAME=demo_case >/dev/null 2>&1"

build=$work/build
if ! cmake -S "$copy" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHB_WERROR=ON \
        -DHB_TESTS=ON >"$work/cmake.log" 2>&1 ||
    ! cmake --build "$build" -j2 --target hotbench test_demo_case >>"$work/cmake.log" 2>&1; then
    tail -40 "$work/cmake.log"
    echo "FAIL the scratch copy with demo_case does not build"
    exit 1
fi
echo "ok   builds with -Werror"
check "its unit test passes (ctest -R test_demo_case)" \
    bash -c "cd '$build' && ctest -R '^test_demo_case\$' --output-on-failure >'$work/ctest.log' 2>&1 && grep -q '1 tests passed\\|100% tests passed' '$work/ctest.log'"
# ... and checks something: a strategy that skips a byte after each '\n' fails it
mutant() {
    local c=$copy/cases/demo_case/demo_case.c
    cp "$c" "$work/demo_case.c.orig" && sed -i 's/p = q + 1;/p = q + 2;/' "$c" &&
        ! cmp -s "$c" "$work/demo_case.c.orig" &&
        cmake --build "$build" -j2 --target test_demo_case >>"$work/cmake.log" 2>&1 &&
        ! (cd "$build" && ctest -R '^test_demo_case$' >"$work/mutant.log" 2>&1)
    local rc=$?
    cp "$work/demo_case.c.orig" "$c" && cmake --build "$build" -j2 --target test_demo_case \
        >>"$work/cmake.log" 2>&1
    return $rc
}
check "its unit test fails on a mutated strategy" mutant

hb=$build/hotbench
check "listed by --benchmark_list_tests" bash -c \
    "'$hb' --benchmark_list_tests --hb_profile=smoke | grep -qx 'demo_case/memchr/size:4096/real_time'"
check "described by --hb_manifest" /usr/bin/python3 -c '
import json, subprocess, sys
m = json.loads(subprocess.run([sys.argv[1], "--hb_manifest"], check=True, capture_output=True).stdout)
c = [c for c in m["cases"] if c["name"] == "demo_case"]
assert len(c) == 1, m["cases"]
g = c[0]["groups"][0]
assert g["name"] == "demo_case" and g["reference"] == "reference", g
assert [s["name"] for s in g["strategies"]] == ["reference", "memchr"], g
assert g["views"][0]["charts"] == ["table", "scaling"], g
' "$hb"
"$hb" --hb_profile=smoke --benchmark_filter='^demo_case' --benchmark_min_time=0.001 \
    --benchmark_out="$work/run.json" >"$work/smoke.out" 2>&1
status=$?
check "the smoke profile runs it: exit 0" test "$status" -eq 0
check "every strategy verified and timed" /usr/bin/python3 -c '
import json, sys
rows = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["run_type"] == "iteration"]
assert sorted(b["name"] for b in rows) == ["demo_case/memchr/size:4096/real_time",
    "demo_case/reference/size:4096/real_time"], rows
assert all(not b.get("error_occurred") and b["bytes_per_second"] > 0 for b in rows), rows
' "$work/run.json"

# ---- the report and the gate (issue 12 item 6: the new case in the report and the gate's table,
# learnt from the manifest the run carries: no script changed)
report_and_gate() {
    /usr/bin/python3 "$copy/scripts/report.py" --run "$work/run.json" --out "$work/report" \
        >"$work/report.log" 2>&1 &&
        grep -q '^| `memchr` |' "$work/report/REPORT.md" &&
        [ -s "$work/report/charts/demo_case-scaling.png" ] ||
        { echo "report.py on the smoke run:"; tail -20 "$work/report.log"; return 1; }
    echo "ok   report.py gives demo_case its table and scaling chart"
    # The gate: its selection, made from the smoke run's manifest as the compare makes it,
    # picks the new case's rows (the compare measures what the selection picks).
    PYTHONPATH="$copy/scripts" /usr/bin/python3 - "$work/run.json" >"$work/gate.log" 2>&1 <<'PY' ||
import re, sys
from hotbench.runjson import Run
from hotbench.selection import selection_filter
run = Run(sys.argv[1])
sel = selection_filter(run.manifest)
picked = [r["name"] for r in run.rows if sel and re.search(sel, r["name"])]
print("\n".join(picked))
sys.exit(0 if any(n.startswith("demo_case/") for n in picked) else 1)
PY
        { echo "the gate's selection on the smoke run:"; tail -20 "$work/gate.log"; return 1; }
    echo "ok   the gate's selection picks demo_case's rows"
    return 0
}

report_and_gate || { echo "FAIL the report or the gate misses the new case"; fails=$((fails + 1)); }

[ "$fails" -eq 0 ] && echo "test_new_case: all passed" || echo "test_new_case: $fails failed"
exit $((fails != 0))

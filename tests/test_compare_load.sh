#!/usr/bin/env bash
# test_compare_load.sh BINDIR SRCDIR - the compare (scripts/compare.py) of one hotbench against
# itself while two busy processes compete for the CPUs (issue 13: robust under load by design):
# it must exit 0 and call nothing "regressed" (noise may make rows inconclusive, never a failure).
# Correctness, not timing: a small selection, two ABBA blocks. Skips (77) in sanitizer builds.
set -u
bindir=$1
src=$2
flags=$("$bindir/hotbench" --hb_profile=smoke --benchmark_filter='^bufgrow/memcpy/size:65536/' \
        --benchmark_min_time=1e-9 --benchmark_format=json 2>/dev/null |
        /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["context"]
                             ["hb_build_flags"])')
case "$flags" in
*-fsanitize*) echo "test_compare_load: skipped: a sanitizer build (the normal build runs it)"
              exit 77 ;;
esac
work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
for _ in 1 2; do
    yes >/dev/null &
    pids+=($!)
done
export HB_DATA_DIR=$work/data
/usr/bin/python3 "$src/scripts/compare.py" --build "$bindir" --rounds 2 --confirm-rounds 2 \
    --filter '^(rfc3339/(swar|scalar|strptime)/rows:(1000|10000)/|bufgrow/(memcpy|doubling|exact)/size:(65536|262144)/|volumes/(fast|expat-typed)/volumes:30/tags:20/compact:0/piece:0/)' \
    --ir-filter '^rfc3339/swar/rows:1000/' --out "$work/out" >"$work/compare.out" 2>&1
status=$?
pass=0
fail=0
if [ "$status" -eq 0 ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: exit $status, want 0" >&2; fi
if grep -q '^REGRESSED\|^FAILED' "$work/compare.out"; then
    fail=$((fail + 1)); echo "FAIL: a regressed verdict on unchanged code" >&2
else pass=$((pass + 1)); fi
if grep -q '^verdict: ' "$work/compare.out" &&
   /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["schema"] == "hotbench-compare/1" and len(d["rows"]) >= 10, d["summary"]' \
       "$work/out/compare.json"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: no verdict line or compare.json" >&2; fi
[ "$fail" -gt 0 ] && cat "$work/compare.out" >&2
grep '^verdict: ' "$work/compare.out"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

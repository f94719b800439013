#!/usr/bin/env bash
# test_compare_load.sh BINDIR SRCDIR - the compare (scripts/compare.py) of one hotbench against
# itself while two busy processes compete for the CPUs (issue 13: robust under load by design):
# it must exit 0 and call nothing "regressed" (noise may make rows inconclusive, never a failure).
# Correctness, not timing: a small selection, two ABBA blocks. Skips (77) in sanitizer builds.
set -u
bindir=$1
src=$2
source "$(dirname "$0")/testlib.sh"
flags=$(build_flags "$bindir")
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
check "unchanged code under load: exit 0 (got $status)" test "$status" -eq 0
check "no regressed or failed verdict" bash -c "! grep -q '^REGRESSED\|^FAILED' '$work/compare.out'"
check "a verdict line and compare.json with every row" /usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "hotbench-compare/1" and len(d["rows"]) >= 10, d["summary"]
assert any(l.startswith("verdict: ") for l in open(sys.argv[2]))' \
    "$work/out/compare.json" "$work/compare.out"
[ "$fail" -gt 0 ] && cat "$work/compare.out" >&2
grep '^verdict: ' "$work/compare.out"
summary

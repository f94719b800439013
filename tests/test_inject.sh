#!/usr/bin/env bash
# test_inject.sh BINDIR SRCDIR - HB_INJECT=slowdown:<fraction> (harness/hb_testhook.h): the rows
# of the families HB_INJECT_SELECT matches carry the counter hb_injected_fraction, the others and
# a run without HB_INJECT carry none; a bad fraction, a missing or invalid HB_INJECT_SELECT exit
# non-zero naming the variable. Correctness only, never timings (a shared machine). On rfc3339's
# smallest smoke rows: a second or two.
# Needs a build with -DHB_TEST_HOOKS=ON (make test's build-test); exits 77 (ctest: skipped) with
# the reason otherwise. Ends with "N passed, M failed".
set -u
bindir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HB_DATA_DIR=$work/data
unset HB_INJECT HB_INJECT_SELECT

source "$(dirname "$0")/testlib.sh"
ctx=$(build_flags "$bindir")
case "$ctx" in
*HB_TEST_HOOKS*) ;;
*)
    echo "test_inject: skipped: $bindir/hotbench has no regression injections (configure with" \
         "-DHB_TEST_HOOKS=ON, as make test does; build flags: $ctx)"
    exit 77 ;;
esac

# Runs hotbench on rfc3339's swar and scalar smoke rows into $work/$1.json (stderr $1.err).
run() {
    "$bindir/hotbench" --hb_profile=smoke --benchmark_filter='^rfc3339/(swar|scalar)/' \
        --benchmark_min_time=0.001 --benchmark_format=json >"$work/$1.json" 2>"$work/$1.err"
}

# fractions FILE STRATEGY: the hb_injected_fraction of each row of that strategy, one a line
# ("none" for a row without it); nothing when the file has no such row.
fractions() {
    /usr/bin/python3 -c '
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["name"].startswith("rfc3339/" + sys.argv[2] + "/"):
        print(b.get("hb_injected_fraction", "none"))' "$1" "$2"
}

# all_are FILE STRATEGY VALUE: every row of that strategy says VALUE, and there is one at least.
all_are() {
    local got
    got=$(fractions "$1" "$2") || return 1
    [ -n "$got" ] && [ -z "$(grep -vx -- "$3" <<<"$got")" ] ||
        { echo "  $2 rows of $1: $(tr '\n' ' ' <<<"$got") (want $3)"; return 1; }
}

# paid_within FILE STRATEGY LO HI: every row of that strategy (one at least) carries
# hb_injected_paid (the payment's CPU time over the timed work's estimated CPU time) within
# [LO, HI]: the debt was paid, by a burn calibrated within a factor of two. It cannot see a
# wrong estimate of the work (the burn is sized from it); a wide band, as a run of a few
# iterations preempted on a loaded machine bills a clock read or a context switch to its burn.
paid_within() {
    /usr/bin/python3 -c '
import json, sys
rows = [b for b in json.load(open(sys.argv[1]))["benchmarks"]
        if b["name"].startswith("rfc3339/" + sys.argv[2] + "/")]
got = [b.get("hb_injected_paid") for b in rows]
ok = rows and all(p is not None and float(sys.argv[3]) <= p <= float(sys.argv[4]) for p in got)
if not ok:
    print("  %s rows of %s paid %s (want %s to %s)"
          % (sys.argv[2], sys.argv[1], got, *sys.argv[3:]))
sys.exit(0 if ok else 1)' "$@"
}

# not_in FILE TEXT: FILE does not contain TEXT.
not_in() {
    ! grep -qF -- "$2" "$1"
}

# Selected rows carry the fraction, the others none.
HB_INJECT=slowdown:0.5 HB_INJECT_SELECT='^rfc3339/swar$' run sel
check "slowdown:0.5: exit 0" test $? -eq 0
check "slowdown:0.5: swar rows carry 0.5" all_are "$work/sel.json" swar 0.5
check "slowdown:0.5: scalar rows carry none" all_are "$work/sel.json" scalar none
check "slowdown:0.5: swar rows paid 0.25 to 2" paid_within "$work/sel.json" swar 0.25 2

# Combined with another word; the regex is extended (alternation).
HB_INJECT=parser,slowdown:2 HB_INJECT_SELECT='^rfc3339/(scalar|nothing)$' run comb
check "parser,slowdown:2: exit 0" test $? -eq 0
check "parser,slowdown:2: scalar rows carry 2" all_are "$work/comb.json" scalar 2.0
check "parser,slowdown:2: swar rows carry none" all_are "$work/comb.json" swar none

# Without HB_INJECT (even with a selection) nothing is injected.
HB_INJECT_SELECT='^rfc3339/swar$' run none
check "no HB_INJECT: exit 0" test $? -eq 0
check "no HB_INJECT: swar rows carry none" all_are "$work/none.json" swar none
check "no HB_INJECT: scalar rows carry none" all_are "$work/none.json" scalar none

# Bad values: refused with exit 2 and a message naming the variable: {HB_INJECT, HB_INJECT_SELECT
# ("-" = unset), the variable named, why}.
while IFS='|' read -r inject select var why; do
    setting=(HB_INJECT_SELECT="$select")
    [ "$select" = - ] && setting=(-u HB_INJECT_SELECT)
    env "${setting[@]}" HB_INJECT="$inject" "$bindir/hotbench" --hb_profile=smoke \
        --benchmark_filter='^rfc3339/swar/' --benchmark_min_time=0.001 \
        >"$work/bad.out" 2>"$work/bad.err"
    status=$?
    check "$why: exit 2 (got $status)" test "$status" -eq 2
    check "$why: the message names $var" grep -q "$var" "$work/bad.err"
    check "$why: nothing timed" not_in "$work/bad.out" 'rfc3339/swar/rows'
    [ "$status" -eq 2 ] || sed 's/^/  stderr: /' "$work/bad.err"
done <<'ROWS'
slowdown:abc|^rfc3339/swar$|HB_INJECT|a fraction that is not a number
slowdown:-1|^rfc3339/swar$|HB_INJECT|a negative fraction
slowdown:0|^rfc3339/swar$|HB_INJECT|a fraction of zero
slowdown:10.5|^rfc3339/swar$|HB_INJECT|a fraction over 10
slowdown|^rfc3339/swar$|HB_INJECT|slowdown without a fraction
slowdown:0.5|-|HB_INJECT_SELECT|slowdown without HB_INJECT_SELECT
slowdown:0.5||HB_INJECT_SELECT|an empty HB_INJECT_SELECT
slowdown:0.5|^rfc3339/(swar$|HB_INJECT_SELECT|an invalid regex
ROWS

summary

#!/usr/bin/env bash
# test_cli_rfc3339.sh - the command-line contract of `hotbench-decode rfc3339` and
# `hotbench-gen timestamps`: output per line, messages, exit statuses, determinism, round trip.
#
# Usage: test_cli_rfc3339.sh TOOLS_DIR SOURCE_DIR
# Ends with "N passed, M failed"; exit status 0 only when nothing failed.
set -u

tools=${1:?usage: test_cli_rfc3339.sh TOOLS_DIR SOURCE_DIR}
src=${2:?usage: test_cli_rfc3339.sh TOOLS_DIR SOURCE_DIR}
dec="$tools/hotbench-decode"
gen="$tools/hotbench-gen"
[ -x "$dec" ] || { echo "no executable $dec"; exit 1; }
[ -x "$gen" ] || { echo "no executable $gen"; exit 1; }
[ -d "$src/cases/rfc3339" ] || { echo "not a hotbench source tree: $src"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hb_cli_rfc3339.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }

# run TOOL ARGS... < stdin: leaves $rc, $out (stdout) and $err (stderr)
run() {
    "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    out=$(cat "$tmp/stdout")
    err=$(cat "$tmp/stderr")
}

# expect RC PATTERN WHY -- TOOL ARGS...: exit status RC and PATTERN (grep -E) in stdout or stderr
expect() {
    local want=$1 pattern=$2 why=$3
    shift 4
    run "$@" </dev/null
    if [ "$rc" -ne "$want" ]; then
        ko "$why: exit $rc, want $want ($*): $err"
    elif ! printf '%s\n%s\n' "$out" "$err" | grep -Eq -- "$pattern"; then
        ko "$why: no /$pattern/ in output ($*): $out $err"
    else
        ok
    fi
}

# decodes WHY STATUS INPUT EXPECTED [ARGS...]: stdin INPUT (printf format), stdout EXPECTED exactly
decodes() {
    local why=$1 want=$2 input=$3 expected=$4
    shift 4
    printf "$input" >"$tmp/in"
    "$dec" rfc3339 "$@" <"$tmp/in" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        ko "$why: exit $rc, want $want: $(cat "$tmp/stderr")"
    elif [ "$(cat "$tmp/stdout")" != "$expected" ]; then
        ko "$why: output '$(cat "$tmp/stdout")', want '$expected'"
    elif [ -s "$tmp/stderr" ]; then
        ko "$why: unexpected stderr '$(cat "$tmp/stderr")'"
    else
        ok
    fi
}

# ---- hotbench-decode rfc3339: help and usage -----------------------------------------------------
expect 0 'rfc3339' 'top-level help lists rfc3339' -- "$dec" --help
if printf '%s\n' "$out" | grep -q 'rfc3339.*not built'; then ko "rfc3339 still says not built"; else ok; fi
expect 0 'error: <reason> at byte' 'rfc3339 --help' -- "$dec" rfc3339 --help
expect 0 'simd' 'help lists the strategies' -- "$dec" rfc3339 -h
expect 2 "unknown strategy 'nope'.*scalar" 'unknown strategy' -- "$dec" rfc3339 --strategy nope
expect 2 "unknown strategy 'int64-binary'" 'binary strategy refused' -- "$dec" rfc3339 --strategy int64-binary
expect 2 "unknown option '--frob'" 'unknown option' -- "$dec" rfc3339 --frob
expect 2 'needs a value' 'missing value' -- "$dec" rfc3339 --strategy
expect 2 'one FILE at most' 'two files' -- "$dec" rfc3339 a b
expect 1 'cannot open .*does-not-exist' 'missing file' -- "$dec" rfc3339 "$tmp/does-not-exist"

# ---- decoding ------------------------------------------------------------------------------------
decodes 'the wire example' 0 '2021-03-04T05:06:07.123456789Z\n' '1614834367 123456789'
decodes 'no final newline' 0 '2021-03-04T05:06:07Z' '1614834367 0'
decodes 'empty input' 0 '' ''
decodes 'pre-epoch fraction' 0 '1969-12-31T23:59:59.5Z\n' '-1 500000000'
decodes 'limits' 0 '0001-01-01T00:00:00Z\n9999-12-31T23:59:59.999999999Z\n' \
    "$(printf -- '-62135596800 0\n253402300799 999999999')"
decodes 'offsets' 0 '2021-03-04T05:06:07+05:30\n2021-03-04T05:06:07-00:00\n' \
    "$(printf '1614814567 0\n1614834367 0')"
decodes 'lower case' 0 '2021-03-04t05:06:07z\n' '1614834367 0'
decodes 'space separator' 1 '2021-03-04 05:06:07Z\n' \
    "error: date-time: expected 'T' between date and time at byte 10"
decodes 'leap second' 1 '2016-12-31T23:59:60Z\n' \
    'error: time-second: expected 00 to 59 (no leap second) at byte 17'
decodes 'missing offset' 1 '2021-03-04T05:06:07\n' \
    "error: time-offset: expected 'Z', '+' or '-' at byte 19"
decodes 'CRLF line ends' 0 '2021-03-04T05:06:07Z\r\n1970-01-01T00:00:00Z\r\n' \
    "$(printf '1614834367 0\n0 0')"
decodes 'a CR not before the newline belongs to the line' 1 '2021-03-04T05:06:07Z\r \n' \
    'error: unexpected byte after time-offset at byte 20'
decodes 'an empty line' 1 '\n' 'error: date-fullyear: expected 4 digits at byte 0'
decodes 'pushed out of range' 1 '9999-12-31T23:59:59-00:01\n' \
    'error: instant outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z at byte 19'
decodes 'good and bad lines keep their order' 1 \
    '1970-01-01T00:00:00Z\n2021-02-29T00:00:00Z\n1970-01-01T00:00:01Z\n' \
    "$(printf '0 0\nerror: date-mday: no such day in that month at byte 8\n1 0')"
for s in swar simd scalar sscanf strptime; do
    decodes "strategy $s" 0 '2021-03-04T05:06:07.123456789Z\n' '1614834367 123456789' --strategy "$s"
done
decodes 'a fast strategy reports the reference diagnosis' 1 '2021-03-04T05:06:07.Z\n' \
    "error: time-secfrac: expected a digit after '.' at byte 20" --strategy simd
decodes 'millis-parse' 0 '1614834367123\n-1\n' "$(printf '1614834367 123000000\n-1 999000000')" \
    --strategy millis-parse
decodes 'millis-parse rejects' 1 '12a\n' \
    'error: not a decimal millisecond count in 0001-01-01 to 9999-12-31 at byte 0' \
    --strategy millis-parse

printf '2021-03-04T05:06:07Z\n' >"$tmp/one"
expect 0 '^1614834367 0$' 'FILE argument' -- "$dec" rfc3339 "$tmp/one"
run "$dec" rfc3339 - <"$tmp/one"
if [ "$rc" -eq 0 ] && [ "$out" = "1614834367 0" ]; then ok; else ko "- as stdin: exit $rc '$out'"; fi

if [ -w /dev/full ]; then
    "$dec" rfc3339 "$tmp/one" >/dev/full 2>"$tmp/stderr"
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q 'writing standard output' "$tmp/stderr"; then ok; else
        ko "stdout full: exit $rc '$(cat "$tmp/stderr")'"
    fi
fi

# ---- hotbench-gen timestamps ---------------------------------------------------------------------
expect 0 'UNIX_MILLIS' 'timestamps --help' -- "$gen" timestamps --help
expect 2 '--rows' 'rows: letters' -- "$gen" timestamps --rows abc -o "$tmp/never"
expect 2 '--columns' 'columns 0' -- "$gen" timestamps --columns 0 -o "$tmp/never"
expect 2 '--columns' 'columns 65' -- "$gen" timestamps --columns 65 -o "$tmp/never"
expect 2 '--encoding' 'bad encoding' -- "$gen" timestamps --encoding json -o "$tmp/never"
expect 2 '--fraction' 'bad fraction' -- "$gen" timestamps --fraction 4 -o "$tmp/never"
expect 2 '--offsets' 'bad offsets' -- "$gen" timestamps --offsets west -o "$tmp/never"
expect 2 '--seed' 'bad seed' -- "$gen" timestamps --seed x -o "$tmp/never"
expect 2 '-o FILE' 'no output' -- "$gen" timestamps --rows 10
expect 2 "unexpected argument 'extra'" 'stray argument' -- "$gen" timestamps -o "$tmp/never" extra
if [ -e "$tmp/never" ]; then ko "a usage error created the output file"; else ok; fi
expect 1 'No such file or directory' 'unwritable path' -- "$gen" timestamps --rows 10 -o "$tmp/no/dir/x"

expect 0 'crc32 +[0-9a-f]{8}' 'generate 10k rows' -- "$gen" timestamps --rows 10K -o "$tmp/a"
crc_a=$(printf '%s\n' "$err" | sed -n 's/^ *crc32 *\([0-9a-f]\{8\}\).*/\1/p')
for what in 'rows +10000 of 1 column \(rfc3339\)' 'values +10000' 'seed +20210304' 'bytes +[0-9]+'; do
    if printf '%s\n' "$err" | grep -Eq -- "$what"; then ok; else ko "summary lacks /$what/"; fi
done
if [ "$(wc -l <"$tmp/a")" -eq 10000 ]; then ok; else ko "not 10000 lines"; fi
bytes=$(printf '%s\n' "$err" | sed -n 's/^ *bytes *\([0-9]*\).*/\1/p')
if [ "$(stat -c %s "$tmp/a")" = "$bytes" ]; then ok; else ko "file size differs from the printed bytes"; fi
expect 0 "crc32 +$crc_a" 'same options, same crc32' -- "$gen" timestamps --rows 10K -o "$tmp/b"
if cmp -s "$tmp/a" "$tmp/b"; then ok; else ko "two runs differ"; fi
expect 0 'seed +5' 'another seed' -- "$gen" timestamps --rows 10K --seed 5 -o "$tmp/c"
if cmp -s "$tmp/a" "$tmp/c"; then ko "another seed gave the same rows"; else ok; fi
run "$gen" timestamps --rows 10K -o -
if [ "$rc" -eq 0 ] && cmp -s "$tmp/a" "$tmp/stdout"; then ok; else ko "-o - differs from the file"; fi

# every generated row parses, with every text strategy giving the same output
run "$dec" rfc3339 "$tmp/a"
if [ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 10000 ]; then ok; else
    ko "generated rows do not all parse (exit $rc): $(printf '%s\n' "$out" | grep error | head -3)"
fi
cp "$tmp/stdout" "$tmp/ref.out"
for s in swar simd strptime sscanf; do
    run "$dec" rfc3339 --strategy "$s" "$tmp/a"
    if [ "$rc" -eq 0 ] && cmp -s "$tmp/stdout" "$tmp/ref.out"; then ok; else ko "strategy $s differs on the set"; fi
done

# ---- over-long lines: rejected at once, the rest skipped unread into memory (issue 15 section 3) --
# A text line longer than the 64 bytes kept gets the reference's diagnosis of the whole line: the
# same as the same line cut to 36 bytes (no valid timestamp has more than 35), which the parser
# sees whole. Lengths around the 64 kept bytes, with LF and CRLF ends, and a following line parsed.
ts='2021-03-04T05:06:07.123456789+05:30'
long() { printf '%s' "$1"; head -c "$2" /dev/zero | tr '\0' "$3"; }
long "$ts" 1 x >"$tmp/l36"
printf '\n' >>"$tmp/l36"
want=$("$dec" rfc3339 "$tmp/l36")
case $want in "error: "*" at byte 35") ok ;; *) ko "36-byte line: '$want'" ;; esac
for n in 29 30 31 100 70000; do
    for end in '\n' '\r\n'; do
        { long "$ts" $n x; printf "$end"'2021-03-04T05:06:07Z\n'; } >"$tmp/long"
        run "$dec" rfc3339 "$tmp/long"
        if [ "$rc" -eq 1 ] && [ "$out" = "$want"$'\n''1614834367 0' ] && [ -z "$err" ]; then ok; else
            ko "line of $((35 + n)) bytes ($end): exit $rc, '$out' '$err'"
        fi
    done
done
# An endless line seen through a bounded stream (zeros, as from /dev/zero): its error is printed at
# once, the rest read in blocks and skipped; memory stays bounded (tests/maxrss.py: the child's
# max RSS; ASan adds shadow memory and quarantine: 150 MB, measured 21 MB).
run "$dec" rfc3339 < <(head -c 1000000 /dev/zero)
if [ "$rc" -eq 1 ] && [ "$out" = 'error: date-fullyear: expected 4 digits at byte 0' ]; then ok; else
    ko "a line of a million zeros: exit $rc, '$out'"
fi
rss_mb=100
grep -q __asan_init "$dec" && rss_mb=150
head -c 200000000 /dev/zero | /usr/bin/python3 "$src/tests/maxrss.py" --max-mb $rss_mb --status 1 \
    -- "$dec" rfc3339 && ok || ko "200 MB of zeros: memory"
# The error of an endless line comes out before the line ends: read here while its input is still
# open (the 20 s are a guard against a hang, not a measurement: it arrives at once or never).
mkfifo "$tmp/flush.in" "$tmp/flush.out"
"$dec" rfc3339 <"$tmp/flush.in" >"$tmp/flush.out" &
dec_pid=$!
exec {flush_w}>"$tmp/flush.in"
head -c 1000 /dev/zero >&$flush_w # a line already over-long, and the input stays open
first=
read -r -t 20 first <"$tmp/flush.out"
exec {flush_w}>&-
wait "$dec_pid"
[ "$first" = 'error: date-fullyear: expected 4 digits at byte 0' ] && ok || ko "error not flushed: '$first'"
# millis: a count in range has at most 15 digits and a sign; past 64 bytes the line is refused
zeros_then_1() { head -c "$1" /dev/zero | tr '\0' 0; printf '1\n'; }
zeros_then_1 60 >"$tmp/m61"
run "$dec" rfc3339 --strategy millis-parse "$tmp/m61"
[ "$rc" -eq 0 ] && [ "$out" = '0 1000000' ] && ok || ko "millis with 60 leading zeros: $rc '$out'"
zeros_then_1 100 >"$tmp/m101"
run "$dec" rfc3339 --strategy millis-parse "$tmp/m101"
[ "$rc" -eq 1 ] && [ "$out" = 'error: line longer than 64 bytes, more than a millisecond count in range has, at byte 64' ] &&
    ok || ko "millis line of 101 bytes: $rc '$out'"
expect 0 'at most 64 bytes of a line are kept' 'rfc3339 --help: the line limit' -- "$dec" rfc3339 --help

# the millis column is the RFC 3339 column rounded down to milliseconds
expect 0 'both' 'encoding both' -- "$gen" timestamps --rows 2000 --columns 1 --encoding both -o "$tmp/both"
cut -f1 "$tmp/both" >"$tmp/rfc"
cut -f2 "$tmp/both" >"$tmp/millis"
"$dec" rfc3339 "$tmp/rfc" | awk '{ ns = $2; ms = int(ns / 1000000); printf "%s %d\n", $1, ms * 1000000 }' >"$tmp/rfc.ms"
"$dec" rfc3339 --strategy millis-parse "$tmp/millis" >"$tmp/millis.out"
if cmp -s "$tmp/rfc.ms" "$tmp/millis.out"; then ok; else ko "millis column disagrees with the RFC 3339 column"; fi
expect 0 'millis' 'encoding millis' -- "$gen" timestamps --rows 100 --encoding millis -o "$tmp/m"
if grep -q T "$tmp/m"; then ko "millis encoding contains RFC 3339"; else ok; fi
expect 0 'values +500' 'five columns' -- "$gen" timestamps --rows 100 --columns 5 -o "$tmp/five"
if [ "$(awk -F'\t' 'NF != 5' "$tmp/five" | wc -l)" -eq 0 ]; then ok; else ko "rows without 5 columns"; fi
expect 0 'rows' 'fixed fraction and offsets' -- "$gen" timestamps --rows 500 --fraction 9 --offsets numeric -o "$tmp/f9"
if [ "$(grep -Evc '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}([+-][0-9]{2}:[0-9]{2}|Z)$' "$tmp/f9")" -eq 0 ]; then
    ok
else
    ko "--fraction 9 --offsets numeric rows of another shape"
fi
if [ "$(grep -c 'Z$' "$tmp/f9")" -lt 25 ]; then ok; else ko "--offsets numeric: too many Z"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

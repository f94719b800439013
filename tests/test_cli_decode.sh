#!/usr/bin/env bash
# test_cli_decode.sh - hotbench-decode's exit statuses, messages and output.
# usage: test_cli_decode.sh TOOLS_DIR SOURCE_DIR
#   TOOLS_DIR  the folder holding the built hotbench-decode
#   SOURCE_DIR the source tree (for tests/fixtures)
set -u

tools=${1:?usage: test_cli_decode.sh TOOLS_DIR SOURCE_DIR}
src=${2:?usage: test_cli_decode.sh TOOLS_DIR SOURCE_DIR}
dec="$tools/hotbench-decode"
fix="$src/tests/fixtures"
body="$fix/nginx-small.gzip.chunked"
tsv="$fix/nginx-small.tsv"
tsv_size=$(wc -c <"$tsv")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

ok() {
    passed=$((passed + 1))
}

bad() {
    failed=$((failed + 1))
    echo "FAIL: $*" >&2
}

# run NAME -- CMD...: runs CMD with stdout in $tmp/out, stderr in $tmp/err, status in $status.
run() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
}

# expect_status WHY WANT: checks $status.
expect_status() {
    if [ "$status" -eq "$2" ]; then ok; else bad "$1: exit status $status, expected $2 ($(head -c 300 "$tmp/err"))"; fi
}

# expect_err_line WHY LINE: stderr is exactly that one line.
expect_err_line() {
    if [ "$(cat "$tmp/err")" = "$2" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
        ok
    else
        bad "$1: stderr was '$(cat "$tmp/err")', expected '$2'"
    fi
}

# expect_out_file WHY FILE: stdout equals FILE byte for byte.
expect_out_file() {
    if cmp -s "$tmp/out" "$2"; then ok; else bad "$1: stdout differs from $2"; fi
}

expect_out_empty() {
    if [ ! -s "$tmp/out" ]; then ok; else bad "$1: stdout not empty"; fi
}

[ -x "$dec" ] || { echo "FAIL: $dec not built" >&2; exit 1; }

# --- the nginx fixture decodes to the file nginx was serving ----------------------------------
run "$dec" dechunk --gunzip "$body"
expect_status "fixture via FILE" 0
expect_out_file "fixture via FILE" "$tsv"
[ -s "$tmp/err" ] && bad "fixture via FILE: stderr not empty" || ok

run "$dec" dechunk --gunzip <"$body"
expect_status "fixture via stdin" 0
expect_out_file "fixture via stdin" "$tsv"

run "$dec" dechunk --gunzip - <"$body"
expect_status "fixture via -" 0
expect_out_file "fixture via -" "$tsv"

cat "$body" | "$dec" dechunk --gunzip >"$tmp/out" 2>"$tmp/err"
status=$?
expect_status "fixture via a pipe" 0
expect_out_file "fixture via a pipe" "$tsv"

# Without --gunzip: the gzip stream itself, which gzip -dc inflates to the same file.
run "$dec" dechunk "$body"
expect_status "fixture without --gunzip" 0
if gzip -dc <"$tmp/out" | cmp -s - "$tsv"; then ok; else bad "fixture without --gunzip: not the gzip stream"; fi

# --- every strategy and a few read sizes give the same bytes ----------------------------------
strategies=$("$dec" dechunk --help | sed -n '/^strategies:/,/^$/p' | awk 'NF && !/^strategies:/ {print $1}')
[ -n "$strategies" ] && ok || bad "--help lists no strategies"
for s in $strategies; do
    for r in 1 7 4096 65536; do
        # additive copies the whole buffer on every read: quadratic, slow with tiny reads.
        [ "$s" = additive ] && [ "$r" -lt 4096 ] && continue
        run "$dec" dechunk --gunzip --strategy "$s" --read-size "$r" --size-hint "$tsv_size" "$body"
        expect_status "strategy $s, read size $r" 0
        expect_out_file "strategy $s, read size $r" "$tsv"
    done
done

# --- an identity body, made here -----------------------------------------------------------
printf '5\r\nhello\r\n1;ext="a \\"b\\""\r\n \r\nA\r\n0123456789\r\n0\r\nX-Trailer: yes\r\n\r\n' >"$tmp/id.chunked"
printf 'hello 0123456789' >"$tmp/id.want"
run "$dec" dechunk "$tmp/id.chunked"
expect_status "identity body" 0
expect_out_file "identity body" "$tmp/id.want"

printf '0\r\n\r\n' | "$dec" dechunk >"$tmp/out" 2>"$tmp/err"
status=$?
expect_status "empty body" 0
expect_out_empty "empty body"

# --- malformed input: exactly one line, exit status 1 ----------------------------------------
# check_malformed WHY INPUT(printf format) LINE [OPTIONS...]
check_malformed() {
    local why=$1 input=$2 line=$3
    shift 3
    printf "$input" >"$tmp/bad"
    run "$dec" dechunk "$@" "$tmp/bad"
    expect_status "$why" 1
    expect_err_line "$why" "hotbench-decode: dechunk: $line"
    expect_out_empty "$why"
    # The same through stdin.
    run "$dec" dechunk "$@" <"$tmp/bad"
    expect_status "$why (stdin)" 1
    expect_err_line "$why (stdin)" "hotbench-decode: dechunk: $line"
}

check_malformed "non-hex digit" 'g\r\nhello\r\n0\r\n\r\n' "non-hex digit in chunk-size at byte 0"
check_malformed "0x prefix" '0x5\r\nhello\r\n0\r\n\r\n' "non-hex digit in chunk-size at byte 1"
check_malformed "bare LF" '5\nhello\r\n0\r\n\r\n' "bare LF in chunk line at byte 1"
check_malformed "bare CR" '5\rhello\r\n0\r\n\r\n' "bare CR in chunk line at byte 1"
check_malformed "data too long" '5\r\nhelloX\r\n0\r\n\r\n' "missing CRLF after chunk-data at byte 8"
check_malformed "overflow" '11111111111111111\r\n' "chunk-size above 2^63 - 1 at byte 16"
check_malformed "data after the last chunk" '0\r\n\r\nX' "data after the last chunk at byte 5"
check_malformed "truncated" '5\r\nhello\r\n0\r\n' \
    "premature end of chunk-coded message body at byte 13"
check_malformed "empty input" '' "premature end of chunk-coded message body at byte 0"
check_malformed "not gzip" '5\r\nhello\r\n0\r\n\r\n' \
    "not a gzip stream (incorrect header check) at byte 0" --gunzip

# The fixture cut short, inside chunk-data and inside the gzip stream's last chunk.
size=$(wc -c <"$body")
for cut in 1000 $((size - 7)) $((size - 1)); do
    head -c "$cut" "$body" >"$tmp/cut"
    run "$dec" dechunk --gunzip "$tmp/cut"
    expect_status "fixture cut at $cut" 1
    expect_err_line "fixture cut at $cut" \
        "hotbench-decode: dechunk: premature end of chunk-coded message body at byte $cut"
done

# --- usage ---------------------------------------------------------------------------------
run "$dec" dechunk --help
expect_status "dechunk --help" 0
grep -q -- '--strategy' "$tmp/out" && grep -q 'block-list' "$tmp/out" && ok || bad "dechunk --help text"

run "$dec" --help
expect_status "--help" 0
grep -q 'dechunk' "$tmp/out" && ok || bad "--help lists no subcommands"

run "$dec"
expect_status "no subcommand" 2

run "$dec" frobnicate
expect_status "unknown subcommand" 2

run "$dec" dechunk --bogus "$body"
expect_status "unknown option" 2
expect_err_line "unknown option" "hotbench-decode: dechunk: unknown option '--bogus' (see --help)"

# Unknown short options are named by their own letter, also inside a cluster.
for args in '-xy' '--gunzip -xy' '-q'; do
    # shellcheck disable=SC2086 # the options are meant to split
    run "$dec" dechunk $args "$body"
    expect_status "unknown option in '$args'" 2
    c=$(printf '%s' "${args##* }" | cut -c2)
    expect_err_line "unknown option in '$args'" "hotbench-decode: dechunk: unknown option '-$c' (see --help)"
done
run "$dec" dechunk --gunzip=1 "$body"
expect_err_line "value for a flag" "hotbench-decode: dechunk: unknown option '--gunzip=1' (see --help)"
run "$dec" dechunk --read-size
expect_err_line "missing value" "hotbench-decode: dechunk: option '--read-size' needs a value (see --help)"

run "$dec" dechunk --strategy nope "$body"
expect_status "unknown strategy" 2
grep -q "unknown strategy 'nope'; valid strategies: .*block-list" "$tmp/err" && ok ||
    bad "unknown strategy: message '$(cat "$tmp/err")'"

run "$dec" dechunk --read-size 0 "$body"
expect_status "read size 0" 2
run "$dec" dechunk --read-size x "$body"
expect_status "read size x" 2
run "$dec" dechunk --strategy exact "$body"
expect_status "exact without --size-hint" 2
run "$dec" dechunk "$body" "$body"
expect_status "two files" 2
printf '5\r\nhello\r\n0\r\n\r\n' >"$tmp/five.chunked"
run "$dec" dechunk --strategy exact --size-hint 99 "$tmp/five.chunked"
expect_status "exact with a size hint the body does not fill" 1
grep -q "the body decodes to 5 bytes, --size-hint said 99" "$tmp/err" && ok ||
    bad "size hint too large: message '$(cat "$tmp/err")'"
expect_out_empty "size hint too large"

# --- sizes: one parser (4096, 64K, 10M, 1.7G) for every size option ----------------------------
head -c 1000 /dev/zero | tr '\0' x >"$tmp/k.raw"
{ printf '3e8\r\n'; cat "$tmp/k.raw"; printf '\r\n0\r\n\r\n'; } >"$tmp/k.chunked"
# args | expected status | expected stderr fragment (empty: none) | why
while IFS='|' read -r args want frag why; do
    # shellcheck disable=SC2086 # the options are meant to split
    run "$dec" dechunk $args "$tmp/k.chunked"
    expect_status "$why" "$want"
    if [ -n "$frag" ]; then
        grep -q -- "$frag" "$tmp/err" && ok || bad "$why: message '$(cat "$tmp/err")'"
    fi
done <<'ROWS'
--strategy exact --size-hint 1K|0||size hint with a suffix, as hotbench-gen --size
--strategy exact --size-hint 1.0K|0||size hint with a fraction
--read-size 4K|0||read size with a suffix
--size-hint 1x|2|--size-hint wants a byte count|size hint: bad suffix
--size-hint 99999999999999999999|2|--size-hint wants a byte count.*number too large|size hint: overflow
--size-hint -1|2|--size-hint wants a byte count|size hint: negative
--read-size 2G|2|--read-size wants a byte count from 1 to 1073741824.*too large|read size: over 1 GiB
--read-size 0|2|--read-size wants.*too small|read size: zero
--strategy exact --size-hint 999|1|(--size-hint 999 is too small)|size hint too small names the flag
ROWS
run "$dec" dechunk --strategy exact --size-hint 1K "$tmp/k.chunked"
expect_out_file "size hint 1K" "$tmp/k.raw"

# --- quadratic strategies: marked in --help, a warning before a long decode --------------------
printf '14\r\nabcdefghijklmnop\377\377\377\377\r\n0\r\n\r\n' >"$tmp/fake-isize.chunked"
run "$dec" dechunk --help
for s in httpcore additive httpcore-heap; do
    grep -qE "^  $s +QUADRATIC: " "$tmp/out" && ok || bad "--help does not mark $s quadratic"
done
grep -qE "^  (doubling|block-list|exact) +QUADRATIC" "$tmp/out" && bad "--help marks a linear strategy" || ok
# strategy | size hint | warns (1) or not (0) | why; a size hint the body does not fill exits 1
# after the decode, which is quick: the tiny body, whatever the hint predicted
while IFS='|' read -r s hint warns why; do
    run "$dec" dechunk --strategy "$s" ${hint:+--size-hint "$hint"} "$tmp/k.chunked"
    if grep -q "warning: $s is quadratic: predicted >= [0-9]* s for this body" "$tmp/err"; then
        [ "$warns" = 1 ] && ok || bad "$why: unexpected warning '$(cat "$tmp/err")'"
    else
        [ "$warns" = 0 ] && ok || bad "$why: no warning ('$(cat "$tmp/err")')"
    fi
done <<'ROWS'
additive|100M|1|additive predicted from a 100 MB size hint
httpcore-heap|100M|0|httpcore doubles below 2^30: linear there
doubling|100M|0|a linear strategy never warns
additive||0|a 1000-byte body is quick
ROWS
# --gunzip without a size hint: the trailer's ISIZE only when the body is a gzip stream. The
# real nginx body is small (no warning); a body whose last 4 bytes say 4 GiB but that does not
# start with gzip's 1f 8b is no gzip stream: the decode says so, with no warning before it.
while IFS='|' read -r file warns why; do
    run "$dec" dechunk --gunzip --strategy additive "$file"
    n=$(grep -c "warning: additive is quadratic" "$tmp/err")
    [ "$n" = "$warns" ] && ok || bad "$why: $n warnings ('$(cat "$tmp/err")')"
done <<ROWS
$body|0|a small gzip body: its ISIZE predicts a quick decode
$tmp/fake-isize.chunked|0|not a gzip stream: its last 4 bytes are no ISIZE
ROWS
# A pipe without --size-hint: the size is unknown, so the warning comes while decoding, once the
# payload decoded so far predicts the time (90 KB read byte by byte: ~4e9 bytes copied).
"$tools/hotbench-gen" chunked --size 90K -o "$tmp/90k.chunked" 2>/dev/null
# file | strategy | options | warnings | what the one warning says | why
while IFS='|' read -r file s args warns says why; do
    # shellcheck disable=SC2086 # args are words
    cat "$file" | "$dec" dechunk --strategy "$s" $args >/dev/null 2>"$tmp/err"
    n=$(grep -c "warning: $s is quadratic: .*$says" "$tmp/err")
    all=$(grep -c "warning:" "$tmp/err")
    [ "$n" = "$warns" ] && [ "$all" = "$warns" ] && ok || bad "$why: $all warnings ('$(cat "$tmp/err")')"
done <<ROWS
$tmp/90k.chunked|additive|--read-size 1|1|decoded so far, the body's size unknown|a pipe: warned while decoding
$tmp/90k.chunked|doubling|--read-size 1|0||a pipe, a linear strategy: no warning
$tmp/k.chunked|additive||0||a pipe, a tiny body: no warning
$tmp/90k.chunked|additive|--read-size 1 --size-hint 90000|1|the --size-hint|a pipe with --size-hint: warned once, before
ROWS
run "$dec" dechunk "$tmp/does-not-exist"
expect_status "missing file" 1
grep -q "cannot open" "$tmp/err" && ok || bad "missing file: message '$(cat "$tmp/err")'"

# rfc3339 and volumes have their own scripts: test_cli_rfc3339.sh, test_cli_volumes.sh.

# --- verdicts that depend neither on the read size nor on how the input arrives -----------------
# A corrupt gzip stream whose error zlib finds only after output it held back: corrupt at every
# read size, never "truncated".
printf '\061\145\015\012\037\213\010\000\027\065\015\153\002\377\313\110\315\311\311\127\345\036\020\312\030\015\012\061\115\015\044\060\015\012\015\012\060\015\012\015\012' \
    >"$tmp/corrupt.gz.chunked"
for r in 1 2 3 4 7 4096; do
    run "$dec" dechunk --gunzip --read-size "$r" "$tmp/corrupt.gz.chunked"
    expect_status "corrupt gzip, read size $r" 1
    expect_err_line "corrupt gzip, read size $r" \
        "hotbench-decode: dechunk: invalid distance too far back in the gzip stream at byte 29"
done
# A sink error and the first error after it: the same from a file and from a pipe that delivers
# the body in two writes.
printf '4\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n' >"$tmp/over.chunked"
printf '4\r\nabcd\r\n4\r\nefgh\r\nZ\r\n' >"$tmp/over-bad.chunked"
sink_err="hotbench-decode: dechunk: sink limit exceeded (the body is larger than the strategy allows) at byte 16 (--size-hint 4 is too small)"
for f in over over-bad; do
    run "$dec" dechunk --strategy exact --size-hint 4 --read-size 4 "$tmp/$f.chunked"
    expect_status "$f from a file" 1
    expect_err_line "$f from a file" "$sink_err"
    { head -c 16 "$tmp/$f.chunked"; sleep 0.2; tail -c +17 "$tmp/$f.chunked"; } |
        "$dec" dechunk --strategy exact --size-hint 4 --read-size 4 >"$tmp/out" 2>"$tmp/err"
    status=$?
    expect_status "$f from a split pipe" 1
    expect_err_line "$f from a split pipe" "$sink_err"
done

# --- --max-size: the decoded body is bounded (issue 15 section 3) ---------------------------
run "$dec" dechunk --help
grep -q -- '--max-size N' "$tmp/out" && grep -q 'default a quarter of physical memory, here [0-9]' \
    "$tmp/out" && ok || bad "dechunk --help lacks --max-size and its default"
pfx='4\r\nabcd\r\n4\r\n' # the body up to the fifth data byte, 'e'
printf "${pfx}efgh\r\n0\r\n\r\n" >"$tmp/two.chunked"
e_off=$(printf "$pfx" | wc -c)
run "$dec" dechunk --max-size 8 "$tmp/two.chunked"
expect_status "--max-size: exactly the body" 0
[ "$(cat "$tmp/out")" = abcdefgh ] && ok || bad "--max-size 8: stdout '$(cat "$tmp/out")'"
for how in file stdin; do
    if [ $how = file ]; then
        run "$dec" dechunk --max-size 4 "$tmp/two.chunked"
    else
        run "$dec" dechunk --max-size 4 <"$tmp/two.chunked"
    fi
    expect_status "--max-size one byte under the body ($how)" 1
    expect_err_line "--max-size one byte under the body ($how)" \
        "hotbench-decode: dechunk: decoded body exceeds --max-size 4 bytes at byte $e_off; raise --max-size"
    expect_out_empty "--max-size one byte under the body ($how)"
done
run "$dec" dechunk --gunzip --max-size "$tsv_size" "$body"
expect_status "--gunzip --max-size: exactly the payload" 0
expect_out_file "--gunzip --max-size: exactly the payload" "$tsv"
run "$dec" dechunk --gunzip --max-size $((tsv_size - 1)) "$body"
expect_status "--gunzip --max-size: one byte under the payload" 1
grep -Eq "^hotbench-decode: dechunk: decoded body exceeds --max-size $((tsv_size - 1)) bytes at byte [0-9]+; raise --max-size\$" \
    "$tmp/err" && ok || bad "--gunzip --max-size: stderr '$(cat "$tmp/err")'"
for v in -1 10Q 99999999999999999999 '' 1.5 ' 5'; do
    run "$dec" dechunk --max-size "$v" "$tmp/two.chunked"
    expect_status "--max-size '$v'" 2
    grep -q -- "dechunk: --max-size wants a byte count" "$tmp/err" && ok ||
        bad "--max-size '$v': stderr '$(cat "$tmp/err")'"
done
run "$dec" dechunk --max-size 4 --size-hint 8 "$tmp/two.chunked"
expect_status "--size-hint over --max-size" 2
expect_err_line "--size-hint over --max-size" \
    "hotbench-decode: dechunk: --size-hint 8 is over --max-size 4; raise --max-size"

# Memory stays bounded (tests/maxrss.py reads the child's max RSS): a gzip bomb, 200 MB of zeros
# in about 0.2 MB, and an endless valid chunked stream ("2" CRLF "a" LF CRLF over and over, cut at
# 200 MB), with --max-size 10M: exit 1 under 100 MB (ASan: shadow memory and quarantine, 150 MB;
# measured 14 and 36 MB).
rss_mb=100
grep -q __asan_init "$dec" && rss_mb=150
head -c 200000000 /dev/zero | gzip -1 | /usr/bin/python3 -c '
import sys
z = sys.stdin.buffer.read()
out = sys.stdout.buffer
for i in range(0, len(z), 16384):
    out.write(b"%x\r\n" % len(z[i:i + 16384]) + z[i:i + 16384] + b"\r\n")
out.write(b"0\r\n\r\n")' >"$tmp/bomb.chunked"
/usr/bin/python3 "$src/tests/maxrss.py" --max-mb $rss_mb --status 1 \
    --stderr-re '^hotbench-decode: dechunk: decoded body exceeds --max-size 10000000 bytes at byte [0-9]+; raise --max-size$' \
    -- "$dec" dechunk --gunzip --max-size 10M "$tmp/bomb.chunked" && ok || bad "gzip bomb: memory or message"
# 7-byte chunks of 2 data bytes: the byte past 10M is the first data byte (at 3) of chunk 5M + 1
yes $'2\r\na\n\r' | head -c 200000000 |
    /usr/bin/python3 "$src/tests/maxrss.py" --max-mb $rss_mb --status 1 \
        --stderr-re "decoded body exceeds --max-size 10000000 bytes at byte $((10000000 / 2 * 7 + 3));" \
        -- "$dec" dechunk --max-size 10M && ok || bad "endless chunked stream: memory or message"

# --- write errors --------------------------------------------------------------------------
if [ -w /dev/full ]; then
    "$dec" dechunk --gunzip "$body" >/dev/full 2>"$tmp/err"
    status=$?
    expect_status "stdout full" 1
    grep -q "writing standard output" "$tmp/err" && ok || bad "stdout full: message '$(cat "$tmp/err")'"
fi
# A reader that goes away: no crash by SIGPIPE, status 1, no message.
"$dec" dechunk --gunzip "$body" 2>"$tmp/err" | head -c 1 >/dev/null
status=${PIPESTATUS[0]}
expect_status "closed pipe" 1
[ -s "$tmp/err" ] && bad "closed pipe: stderr '$(cat "$tmp/err")'" || ok

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# test_cli_volumes.sh - hotbench-decode volumes and hotbench-gen volumes: exit statuses, messages,
# output (golden files), determinism.
# usage: test_cli_volumes.sh TOOLS_DIR SOURCE_DIR
#   TOOLS_DIR  the folder holding the built hotbench-decode and hotbench-gen
#   SOURCE_DIR the source tree (for tests/fixtures and tests/golden)
# Ends with "N passed, M failed"; exit status 0 only when nothing failed.
set -u

tools=${1:?usage: test_cli_volumes.sh TOOLS_DIR SOURCE_DIR}
src=${2:?usage: test_cli_volumes.sh TOOLS_DIR SOURCE_DIR}
dec="$tools/hotbench-decode"
gen="$tools/hotbench-gen"
fixture="$src/tests/fixtures/botocore-ec2-describe-volumes.xml"
golden="$src/tests/golden"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hb_cli_volumes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# run CMD...: stdout in $tmp/out, stderr in $tmp/err, status in $status.
run() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
}
expect_status() {
    if [ "$status" -eq "$2" ]; then ok; else bad "$1: exit status $status, expected $2 ($(head -c 300 "$tmp/err"))"; fi
}
expect_err_line() {
    if [ "$(cat "$tmp/err")" = "$2" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then ok; else
        bad "$1: stderr was '$(cat "$tmp/err")', expected '$2'"
    fi
}
expect_err_match() {
    if grep -Eq -- "$2" "$tmp/err"; then ok; else bad "$1: stderr '$(cat "$tmp/err")' lacks /$2/"; fi
}
expect_out_file() {
    if cmp -s "$tmp/out" "$2"; then ok; else bad "$1: stdout differs from $2"; fi
}
expect_out_empty() {
    if [ ! -s "$tmp/out" ]; then ok; else bad "$1: stdout not empty"; fi
}

[ -x "$dec" ] || { echo "FAIL: $dec not built" >&2; exit 1; }
[ -x "$gen" ] || { echo "FAIL: $gen not built" >&2; exit 1; }

# --- decoding: the fixture and the golden response, by every decoder, file and stdin --------
for s in expat-typed expat-typed-arena expat-tree libxml2-dom fast; do
    run "$dec" volumes --strategy "$s" "$fixture"
    expect_status "fixture $s" 0
    expect_out_file "fixture $s" "$golden/volumes-botocore.json"
    run "$dec" volumes --strategy "$s" "$golden/volumes-gen-4x3.xml"
    expect_out_file "generated 4x3 $s" "$golden/volumes-gen-4x3.json"
done
run "$dec" volumes <"$fixture"
expect_status "stdin" 0
expect_out_file "stdin" "$golden/volumes-botocore.json"
run "$dec" volumes - <"$fixture"
expect_out_file "stdin as -" "$golden/volumes-botocore.json"
run "$dec" volumes --piece 1 "$fixture"
expect_out_file "fed byte by byte" "$golden/volumes-botocore.json"
printf '<R/>' >"$tmp/empty.xml"
run "$dec" volumes "$tmp/empty.xml"
expect_status "no volumes" 0
if [ "$(cat "$tmp/out")" = "[]" ]; then ok; else bad "no volumes: '$(cat "$tmp/out")'"; fi

# --- generate, then decode with every strategy: the same JSON --------------------------------
run "$gen" volumes --volumes 30 --tags 20 -o "$tmp/v.xml"
expect_status "gen 30x20" 0
expect_err_match "gen summary" 'elements +[0-9]+'
expect_err_match "gen seed" 'seed +20161115'
run "$gen" volumes --volumes 30 --tags 20 -o "$tmp/v2.xml"
if cmp -s "$tmp/v.xml" "$tmp/v2.xml"; then ok; else bad "two runs with the same options differ"; fi
run "$gen" volumes --volumes 30 --tags 20 --seed 7 -o "$tmp/v3.xml"
if cmp -s "$tmp/v.xml" "$tmp/v3.xml"; then bad "another seed gave the same bytes"; else ok; fi
run "$gen" volumes --volumes 30 --tags 20 --compact -o "$tmp/c.xml"
if [ "$(wc -c <"$tmp/c.xml")" -lt "$(wc -c <"$tmp/v.xml")" ]; then ok; else bad "compact is not smaller"; fi
run "$gen" volumes --volumes 4 --tags 3 --next-token -o -
expect_out_file "gen to stdout equals the golden XML" "$golden/volumes-gen-4x3.xml"
"$dec" volumes "$tmp/v.xml" >"$tmp/ref.json"
"$dec" volumes "$tmp/c.xml" >"$tmp/cref.json"
if cmp -s "$tmp/ref.json" "$tmp/cref.json"; then ok; else bad "compact decodes differently from indented"; fi
for s in expat-typed-arena expat-tree libxml2-dom fast; do
    run "$dec" volumes --strategy "$s" "$tmp/v.xml"
    expect_out_file "30x20 $s" "$tmp/ref.json"
done
run "$dec" volumes --strategy expat-tree --piece 4096 "$tmp/c.xml"
expect_out_file "compact in 4096-byte pieces" "$tmp/ref.json"
n=$(grep -c '"volumeId": "vol-' "$tmp/ref.json")
if [ "$n" -eq 30 ]; then ok; else bad "30 volumes expected, $n lines"; fi

# --- malformed input: one line "<reason> at line L, column C", exit 1, nothing on stdout --------
printf '<R>\n  <volumeSet>\n    <item><volumeId>x</volumeid>' >"$tmp/bad.xml"
run "$dec" volumes "$tmp/bad.xml"
expect_status "mismatched tag" 1
# expat's words change between its versions: its error code is test_volumes.c's to check; here
# the position and the one line
expect_err_match "mismatched tag" '^hotbench-decode: volumes: [^:]+ at line 3, column 24$'
expect_out_empty "mismatched tag"
head -c 700 "$tmp/v.xml" >"$tmp/trunc.xml"
run "$dec" volumes "$tmp/trunc.xml"
expect_status "truncated" 1
expect_err_match "truncated" '^hotbench-decode: volumes: .* at line [0-9]+, column [0-9]+$'
for s in expat-typed-arena expat-tree libxml2-dom fast; do
    run "$dec" volumes --strategy "$s" "$tmp/trunc.xml"
    expect_status "truncated $s" 1
    expect_err_match "truncated $s" '^hotbench-decode: volumes: .* at line [0-9]+, column [0-9]+$'
done
printf '<!DOCTYPE R [<!ENTITY a "b">]>\n<R/>' >"$tmp/dtd.xml"
for s in expat-typed fast libxml2-dom; do
    run "$dec" volumes --strategy "$s" "$tmp/dtd.xml"
    expect_status "DOCTYPE $s" 1
    expect_err_match "DOCTYPE $s" 'DOCTYPE.* at line 1, column'
done
printf '<R><volumeSet><item><size>8 GiB</size></item></volumeSet></R>' >"$tmp/int.xml"
run "$dec" volumes "$tmp/int.xml"
expect_status "bad integer" 1
expect_err_match "bad integer" "size: not an integer: '8 GiB' at line 1"
# a bad value with a line end, a CR and a cut UTF-8 character stays one line, escaped
printf '<R><volumeSet><item><size>1\n2</size></item></volumeSet></R>' >"$tmp/nl.xml"
printf '<R><volumeSet><item><iops>1&#13;2</iops></item></volumeSet></R>' >"$tmp/cr.xml"
printf '<R><volumeSet><item><size>%s\303\251</size></item></volumeSet></R>' \
    111111111111111111111111111111111111111 >"$tmp/cut.xml"
for s in expat-typed expat-typed-arena expat-tree libxml2-dom fast; do
    run "$dec" volumes --strategy "$s" "$tmp/nl.xml"
    expect_status "LF in a value $s" 1
    expect_err_line "LF in a value $s" "$(head -n1 "$tmp/err")"
    expect_err_match "LF in a value $s" "size: not an integer: '1\\\\n2' at line [0-9]+, column [0-9]+\$"
    run "$dec" volumes --strategy "$s" "$tmp/cr.xml"
    expect_err_match "CR in a value $s" "iops: not an integer: '1\\\\r2' at line 1"
    run "$dec" volumes --strategy "$s" "$tmp/cut.xml"
    expect_err_match "cut value $s" "size: not an integer: '1{39}\\.\\.\\.' at line 1"
done
# libxml2 is held to expat's rules: NUL after the root, an encoding expat does not know, XML 2.0
# (1.x is read as 1.0: XML 1.0 Fifth Edition section 2.8; tests/test_volumes.c has those rows)
printf '<R><volumeSet><item><volumeId>a</volumeId></item></volumeSet></R>\0<garbage' >"$tmp/nul.xml"
printf '<?xml version="1.0" encoding="UTF-7"?><R/>' >"$tmp/utf7.xml"
printf '<?xml version="2.0"?><R/>' >"$tmp/v20.xml"
for s in expat-typed libxml2-dom fast; do
    run "$dec" volumes --strategy "$s" "$tmp/nul.xml"
    expect_status "NUL after the root $s" 1
    expect_err_match "NUL after the root $s" '^hotbench-decode: volumes: .* at line 1, column 66$'
    run "$dec" volumes --strategy "$s" "$tmp/utf7.xml"
    expect_status "UTF-7 $s" 1
    expect_err_line "UTF-7 $s" "$(head -n1 "$tmp/err")"
    run "$dec" volumes --strategy "$s" "$tmp/v20.xml"
    expect_status "XML 2.0 $s" 1
    # hotbench's version rule, or the library's own refusal of the declaration (newer expat):
    # its words are not checked (test_volumes.c checks its error code)
    expect_err_match "XML 2.0 $s" '^hotbench-decode: volumes: .* at line 1, column [0-9]+$'
done
run "$dec" volumes --strategy fast "$tmp/v20.xml"
expect_err_match "XML 2.0 fast" 'an XML version other than 1.x .* at line 1'


# --- usage errors: exit 2 ---------------------------------------------------------------------
run "$dec" volumes --strategy nope "$fixture"
expect_status "unknown strategy" 2
expect_err_match "unknown strategy" "unknown strategy 'nope'; decoders: expat-tree"
run "$dec" volumes --strategy memchr-scan "$fixture"
expect_status "baseline strategy" 2
run "$dec" volumes --strategy fast --piece 7 "$fixture"
expect_status "pieces for fast" 2
run "$dec" volumes --piece 0 "$fixture"
expect_status "piece 0" 2
run "$dec" volumes --frob
expect_status "unknown option" 2
run "$dec" volumes "$fixture" "$fixture"
expect_status "two files" 2
run "$dec" volumes --help
expect_status "help" 0
grep -q "libxml2-dom" "$tmp/out" && ok || bad "help lacks the strategies"
run "$dec" volumes "$tmp/does-not-exist"
expect_status "missing file" 1
expect_err_match "missing file" "cannot open"
run "$gen" volumes --volumes x -o "$tmp/never"
expect_status "gen bad volumes" 2
run "$gen" volumes --tags 10001 -o "$tmp/never"
expect_status "gen too many tags" 2
run "$gen" volumes --volumes 3
expect_status "gen without -o" 2
run "$gen" volumes --help
expect_status "gen help" 0
grep -q "0x-prefixed hexadecimal" "$tmp/out" && ok || bad "gen help does not say N may be hex"
run "$gen" volumes --volumes 0x3 --tags 0x2 -o "$tmp/hex.xml"
expect_status "gen hex counts" 0
run "$gen" volumes --volumes 3 --tags 2 -o "$tmp/dec.xml"
cmp -s "$tmp/hex.xml" "$tmp/dec.xml" && ok || bad "--volumes 0x3 --tags 0x2 differs from 3 and 2"
run "$gen" volumes --volumes -3 -o "$tmp/never"
expect_status "gen negative volumes" 2
if [ -e "$tmp/never" ]; then bad "a usage error created the output file"; else ok; fi

# --- --max-size: the document is bounded (issue 15 section 3) ---------------------------------
run "$dec" volumes --help
grep -q -- '--max-size N' "$tmp/out" && grep -q 'default 100M' "$tmp/out" && ok ||
    bad "volumes --help lacks --max-size and its default"
fsize=$(wc -c <"$fixture")
run "$dec" volumes --max-size "$fsize" "$fixture"
expect_status "--max-size: exactly the document" 0
expect_out_file "--max-size: exactly the document" "$golden/volumes-botocore.json"
for how in file stdin; do
    if [ $how = file ]; then
        run "$dec" volumes --max-size $((fsize - 1)) "$fixture"
    else
        run "$dec" volumes --max-size $((fsize - 1)) <"$fixture"
    fi
    expect_status "--max-size one byte under the document ($how)" 1
    expect_err_line "--max-size one byte under the document ($how)" \
        "hotbench-decode: volumes: document exceeds --max-size $((fsize - 1)) bytes at byte $((fsize - 1)); raise --max-size"
    expect_out_empty "--max-size one byte under the document ($how)"
done
for v in -1 10Q 99999999999999999999 ''; do
    run "$dec" volumes --max-size "$v" "$fixture"
    expect_status "--max-size '$v'" 2
    expect_err_match "--max-size '$v'" "^hotbench-decode: volumes: --max-size wants a byte count"
done
# An element that never ends, through a bounded stream (200 MB): exit 1 with memory bounded
# (tests/maxrss.py reads the child's max RSS): under 100 MB with --max-size 10M, under 300 MB with
# the default 100M (ASan: shadow memory and quarantine, 150 and 450 MB; measured 51 and 284 MB).
rss_mb=100
grep -q __asan_init "$dec" && rss_mb=150
endless() { printf '<DescribeVolumesResponse><volumeSet><item><volumeId>'; head -c 200000000 /dev/zero | tr '\0' a; }
endless | /usr/bin/python3 "$src/tests/maxrss.py" --max-mb $rss_mb --status 1 \
    --stderr-re '^hotbench-decode: volumes: document exceeds --max-size 10000000 bytes at byte 10000000; raise --max-size$' \
    -- "$dec" volumes --max-size 10M && ok || bad "endless element, --max-size 10M: memory or message"
endless | /usr/bin/python3 "$src/tests/maxrss.py" --max-mb $((rss_mb * 3)) --status 1 \
    --stderr-re 'document exceeds --max-size 100000000 bytes' \
    -- "$dec" volumes && ok || bad "endless element, default --max-size: memory or message"

# --- write errors -----------------------------------------------------------------------------
if [ -w /dev/full ]; then
    "$dec" volumes "$tmp/v.xml" >/dev/full 2>"$tmp/err"
    status=$?
    expect_status "stdout full" 1
    expect_err_match "stdout full" "writing standard output"
fi
"$gen" volumes --volumes 1000 -o "$tmp/big.xml" 2>/dev/null # ~4 MB of JSON: more than a pipe holds
"$dec" volumes "$tmp/big.xml" 2>"$tmp/err" | head -c 1 >/dev/null
status=${PIPESTATUS[0]}
expect_status "closed pipe" 1
[ -s "$tmp/err" ] && bad "closed pipe: stderr '$(cat "$tmp/err")'" || ok

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

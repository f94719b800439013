#!/usr/bin/env bash
# test_cli_gen.sh - the command-line contract of hotbench-gen: exit codes, messages, determinism.
#
# Usage: test_cli_gen.sh TOOLS_DIR SOURCE_DIR
# Ends with "N passed, M failed"; exit status 0 only when nothing failed.
set -u

tools=${1:?usage: test_cli_gen.sh TOOLS_DIR SOURCE_DIR}
src=${2:?usage: test_cli_gen.sh TOOLS_DIR SOURCE_DIR}
gen="$tools/hotbench-gen"
[ -x "$gen" ] || { echo "no executable $gen"; exit 1; }
[ -d "$src/data-gen" ] || { echo "not a hotbench source tree: $src"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hb_cli_gen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }

# run ARGS...: runs hotbench-gen, leaving $rc, $out (stdout) and $err (stderr)
run() {
    "$gen" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    out=$(cat "$tmp/stdout")
    err=$(cat "$tmp/stderr")
}

# expect RC PATTERN WHY -- ARGS...: exit status RC and PATTERN (grep -E) in stdout or stderr
expect() {
    local want=$1 pattern=$2 why=$3
    shift 4
    run "$@"
    if [ "$rc" -ne "$want" ]; then
        ko "$why: exit $rc, want $want (hotbench-gen $*): $err"
    elif ! printf '%s\n%s\n' "$out" "$err" | grep -Eq -- "$pattern"; then
        ko "$why: no /$pattern/ in output (hotbench-gen $*): $out $err"
    else
        ok
    fi
}

# ---- help and subcommands -------------------------------------------------------------------------
expect 0 'chunked' 'top-level --help' -- --help
expect 0 'gzip_comp_level' 'chunked --help names nginx default' -- chunked --help
expect 0 '--chunk-size' 'chunked -h' -- chunked -h
expect 2 'Usage' 'no command' --
expect 2 "unknown command 'frobnicate'" 'unknown command' -- frobnicate
expect 2 'timestamps: no output' 'timestamps needs -o FILE' -- timestamps
expect 2 'volumes: no output' 'volumes needs -o FILE' -- volumes

# ---- usage errors: exit 2 and a message naming the option -----------------------------------------
o="$tmp/never"
expect 2 '--size' 'size: letters' -- chunked --size abc -o "$o"
expect 2 '--size' 'size: bad suffix' -- chunked --size 1.7x -o "$o"
expect 2 '--size' 'size: negative' -- chunked --size -5 -o "$o"
expect 2 '--size' 'size: empty' -- chunked --size '' -o "$o"
expect 2 '--size.*too large' 'size: overflow' -- chunked --size 99999999999999999999 -o "$o"
expect 2 '--size.*too large' 'size: overflow by suffix' -- chunked --size 20000000000G -o "$o"
expect 2 '--size.*whole' 'size: fraction of a byte' -- chunked --size 1.0001K -o "$o"
expect 2 '--chunk-size.*at least 1' 'chunk size 0' -- chunked --chunk-size 0 -o "$o"
expect 2 '--chunk-size.*at least 1' 'chunk size 0-10' -- chunked --chunk-size 0-10 -o "$o"
expect 2 '--chunk-size' 'chunk size: MIN above MAX' -- chunked --chunk-size 5-4 -o "$o"
expect 2 '--chunk-size.*16777216' 'chunk size past 2^24' -- chunked --chunk-size 16777217 -o "$o"
expect 2 '--chunk-size' 'chunk size: garbage' -- chunked --chunk-size x-y -o "$o"
expect 2 '--chunk-size' 'chunk size: open range' -- chunked --chunk-size 4096- -o "$o"
expect 2 '--gzip' 'gzip level 10' -- chunked --gzip=10 -o "$o"
expect 2 '--gzip' 'gzip level garbage' -- chunked --gzip=fast -o "$o"
expect 2 '--seed' 'seed: garbage' -- chunked --seed 12ab -o "$o"
expect 2 '--seed' 'seed: negative' -- chunked --seed -1 -o "$o"
expect 2 '-o FILE' 'no output' -- chunked --size 1K
expect 2 "unknown option '--frob'" 'unknown option' -- chunked --frob -o "$o"
expect 2 "needs a value" 'missing value' -- chunked -o "$o" --size
expect 2 "unexpected argument 'extra'" 'stray argument' -- chunked -o "$o" extra
expect 2 "unknown option '-x'" 'unknown short option in a cluster names it' -- chunked -xy -o "$o"
expect 2 "unknown option '-x'" 'cluster after a long option' -- chunked --trailer -xy -o "$o"
expect 2 "unknown option '-q'" 'unknown short option' -- chunked -q -o "$o"
expect 2 "unknown option '--trailer=1'" 'a value for a flag' -- chunked --trailer=1 -o "$o"
expect 2 "option '-o' needs a value" 'short option without value' -- chunked --size 1K -o
expect 2 "option '--seed' needs a value" 'long option without value' -- chunked -o "$o" --seed
expect 2 '--seed' 'seed: 0x alone' -- chunked --seed 0x -o "$o"
expect 2 '--seed' 'seed: two 0x prefixes' -- chunked --seed 0x0x1 -o "$o"
expect 2 '--seed' 'seed: plus sign' -- chunked --seed +1 -o "$o"
expect 2 '--seed' 'seed: past 2^64 - 1' -- chunked --seed 18446744073709551616 -o "$o"
if [ -e "$o" ]; then ko "a usage error created the output file"; else ok; fi

# ---- I/O errors: exit 1 naming the file --------------------------------------------------------------
expect 1 "$tmp/no/such/dir/x: No such file or directory" 'unwritable path' -- \
    chunked --size 1K -o "$tmp/no/such/dir/x"
if [ -w /dev/full ]; then
    expect 1 '/dev/full: No space left on device' 'full device' -- chunked --size 1M -o /dev/full
fi

# A reader that goes away: exit 1 without a message (SIGPIPE ignored, EPIPE is quiet).
"$gen" chunked --size 10M -o - 2>"$tmp/stderr" | head -c 1 >/dev/null
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 1 ]; then ko "closed pipe: exit $rc, want 1"; else ok; fi
if [ -s "$tmp/stderr" ]; then ko "closed pipe: stderr '$(cat "$tmp/stderr")'"; else ok; fi

# ---- seeds: decimal, or hex with 0x; never octal ----------------------------------------------------
for row in '010:10' '08:8' '0x10:16' '0X1f:31' '18446744073709551615:18446744073709551615' \
    '0xffffffffffffffff:18446744073709551615'; do
    expect 0 "seed +${row#*:}\$" "seed ${row%%:*}" -- chunked --size 1K --seed "${row%%:*}" -o "$tmp/s"
done

# ---- generation -----------------------------------------------------------------------------------
expect 0 'crc32 +[0-9a-f]{8}' 'small generation prints crc32' -- chunked --size 100K -o "$tmp/a"
crc_a=$(printf '%s\n' "$err" | sed -n 's/^ *crc32 *\([0-9a-f]\{8\}\).*/\1/p')
body_a=$(printf '%s\n' "$err" | sed -n 's/^ *body size *\([0-9]*\) bytes.*/\1/p')
if [ -s "$tmp/a" ] && [ "$(stat -c %s "$tmp/a")" = "$body_a" ]; then ok; else
    ko "file size $(stat -c %s "$tmp/a" 2>/dev/null) differs from the printed body size $body_a"
fi
for what in 'decoded size +100000 bytes' 'chunks +[0-9]+' 'seed +20210304' 'throughput +[0-9.]+ MB/s'; do
    if printf '%s\n' "$err" | grep -Eq -- "$what"; then ok; else ko "summary lacks /$what/"; fi
done
if [ -z "$out" ]; then ok; else ko "-o FILE wrote to stdout"; fi

expect 0 "crc32 +$crc_a" 'second run, same crc32' -- chunked --size 100K -o "$tmp/b"
if cmp -s "$tmp/a" "$tmp/b"; then ok; else ko "two runs with the same options differ"; fi

run chunked --size 100K -o -
if [ "$rc" -eq 0 ] && cmp -s "$tmp/a" "$tmp/stdout"; then ok; else
    ko "-o - did not write the same body to stdout (exit $rc)"
fi
if printf '%s\n' "$err" | grep -q "crc32 *$crc_a"; then ok; else ko "-o - summary not on stderr"; fi

expect 0 'seed +7' 'another seed' -- chunked --size 100K --seed 7 -o "$tmp/c"
if cmp -s "$tmp/a" "$tmp/c"; then ko "another seed gave the same body"; else ok; fi
if printf '%s\n' "$err" | grep -q "crc32 *$crc_a"; then ko "another seed gave the same crc32"; else ok; fi

expect 0 'crc32' 'other chunk sizes' -- chunked --size 100K --chunk-size 100-200 -o "$tmp/d"
if printf '%s\n' "$err" | grep -q "crc32 *$crc_a"; then ok; else
    ko "chunk sizes changed the decoded payload's crc32"
fi
if cmp -s "$tmp/a" "$tmp/d"; then ko "--chunk-size did not change the body"; else ok; fi

expect 0 'decoded size +1500 bytes' 'decimal fraction and suffix' -- chunked --size 1.5K -o "$tmp/e"
expect 0 'decoded size +0 bytes' 'empty payload' -- chunked --size 0 -o "$tmp/f"
if [ "$(cat "$tmp/f")" = "$(printf '0\r\n\r')" ]; then ok; else ko "empty body is not 0 CRLF CRLF"; fi
expect 0 'chunks +100 ' 'fixed chunk size' -- chunked --size 1M --chunk-size 10K -o "$tmp/g"

# gzip with a trailer: the body ends with the trailer fields; it dechunks and gunzips to a
# payload with the printed crc32 (checked with Python's zlib when Debian's python3 is there).
expect 0 'gzip level 1' '--gzip defaults to level 1' -- chunked --size 300K --gzip --trailer -o "$tmp/z"
crc_z=$(printf '%s\n' "$err" | sed -n 's/^ *crc32 *\([0-9a-f]\{8\}\).*/\1/p')
if tail -c 64 "$tmp/z" | grep -aq "X-Checksum-Crc32: $crc_z"; then ok; else ko "trailer lacks the crc32"; fi
if tail -c 64 "$tmp/z" | grep -aq "X-Rows: [0-9]"; then ok; else ko "trailer lacks X-Rows"; fi
py=/usr/bin/python3
if [ -x "$py" ]; then
    got=$("$py" - "$tmp/z" <<'EOF'
import sys, zlib
b = open(sys.argv[1], "rb").read()
i, data = 0, bytearray()
while True:
    j = b.index(b"\r\n", i)
    n = int(b[i:j], 16)
    if n == 0:
        break
    data += b[j + 2 : j + 2 + n]
    assert b[j + 2 + n : j + 4 + n] == b"\r\n"
    i = j + 4 + n
plain = zlib.decompress(bytes(data), 16 + 15)
print("%08x %d" % (zlib.crc32(plain), len(plain)))
EOF
)
    if [ "$got" = "$crc_z 300000" ]; then ok; else ko "gzip body decodes to '$got', want '$crc_z 300000'"; fi
fi
expect 0 'gzip level 9' 'explicit gzip level' -- chunked --size 300K --gzip=9 -o "$tmp/z9"
if printf '%s\n' "$err" | grep -q "crc32 *$crc_z"; then ok; else ko "gzip level changed the payload"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

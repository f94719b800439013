#!/usr/bin/env bash
# test_gen_bytes.sh - hotbench-gen's output bytes are pinned: the SHA-256 of each generator's
# default input (and of some other seeds, sizes and options) equals the value committed below, on
# every compiler and architecture (DESIGN.md, measurement rule 11). A generator that comes to
# depend on unspecified behaviour (two PRNG draws in one call's arguments, char signedness, hash
# order) fails here on the build that evaluates it the other way; so does any change of a draw or
# its order. Every command `hotbench-gen --help` lists must have a row with its defaults.
#
# Usage: test_gen_bytes.sh TOOLS_DIR SOURCE_DIR
# Ends with "N passed, M failed"; exit status 0 only when nothing failed. About a second.
#
# An intended change of a generator's bytes changes the rows below in the same commit (print the
# new values with HB_GEN_BYTES_PRINT=1), and bumps HB_GEN_FORMAT_VERSION where the chunked cache
# would otherwise serve the old bytes.
set -u

tools=${1:?usage: test_gen_bytes.sh TOOLS_DIR SOURCE_DIR}
src=${2:?usage: test_gen_bytes.sh TOOLS_DIR SOURCE_DIR}
gen="$tools/hotbench-gen"
[ -x "$gen" ] || { echo "no executable $gen"; exit 1; }
[ -d "$src/data-gen" ] || { echo "not a hotbench source tree: $src"; exit 1; }
command -v sha256sum >/dev/null || { echo "no sha256sum (coreutils)"; exit 1; }
. "$src/tests/testlib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hb_gen_bytes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The table: SHA-256 | bytes hashed ("all", or the first N bytes of the output) | the arguments of
# hotbench-gen | why the row is there. Made by gcc 12 on x86-64 (Debian 12); the same with clang 14
# on x86-64, gcc 12 and clang 14 for aarch64 (run under qemu-user), gcc 14 and clang 19 (Debian 13,
# zlib 1.3.1). The gzip rows hold zlib's deflate output too (its level, window and memLevel are
# fixed by the generator).
rows=$(cat <<'EOF'
50d230e03f166e69097bfdf53a065a8657d11cdda58c9209700aac51004180c9 | 4000000 | chunked | the default body (1.7 GB) is too big to hash in a test: its first 4 MB
d3430fbc538c821862c59bd939599fc88a5b0c503a5e00ca976c62a8288361c7 | all | chunked --size 1M | a whole body at the default chunk sizes and seed
0ddc5fbb658aff29170dd889bb83dbc6ae36e0a76e234df62fc2d0588d94c861 | all | chunked --size 1M --gzip --trailer | gzip level 1 and the trailer section
18ce084dd1e8f13de3b8916f6a7347de85f3fd0e6c9dc94a8922d8359fd72b5d | all | chunked --size 300K --seed 7 --chunk-size 100-5000 --gzip=6 | another seed, chunk range and level
2dd590f778f86aef2a37d366a21b94b237ecd1d5ce41e11b85a58ac8383590ef | all | chunked --size 200K --seed 0xffffffffffffffff --chunk-size 4096 --trailer | the largest seed, fixed chunks, identity trailer
7a7036eb5a532dd3076def8128c17ec7b0d89d8fa70b076c01a91c248d3a82e2 | all | timestamps | the default set (100,000 rows)
3f636db2c0861381e83ebf3189f0ae1193a95c7983ebc0479414312f9b7c6a73 | all | timestamps --seed 42 --rows 10K --columns 3 --encoding both --fraction 9 --offsets numeric | another seed; both encodings, nanoseconds, numeric offsets
ad1eeceae7ed97655741e1efc898966084c978934fe13752f2f795106d5f9924 | all | timestamps --seed 0xdeadbeef --rows 5K --fraction 1 --encoding millis | another seed; millis
094e2560e35056ead9d7ef6ab2eda5cf4e5a6e30084e50b7e5f6771947af9e72 | all | volumes | the default response (300 volumes x 20 tags)
7f2ddd3106959522804233e8b1b0931e1284ef4ce5db8e8ac2d316a0fe2db1d5 | all | volumes --volumes 4 --tags 3 --next-token | tests/golden/volumes-gen-4x3.xml
18a4f7d132114ff999e6f2e7c854bc0da59b62510d6b68a94e6b28f583d0ba29 | all | volumes --seed 0x1234 --volumes 50 --tags 37 --compact --next-token | another seed; compact, past the named tag keys
1670585c955c1f741e8f3e41e65b35f431379ebc6b4b40f68f87816e285b37c4 | all | volumes --seed 99 --volumes 1000 --tags 0 | another seed; no tagSet
EOF
)

# gen_hash BYTES ARGS...: the SHA-256 of hotbench-gen ARGS' output, all of it or its first BYTES
# (read from a pipe: the generator stops at the closed pipe, EPIPE, without writing the rest)
gen_hash() {
    local bytes=$1
    shift
    if [ "$bytes" = all ]; then
        "$gen" "$@" -o "$tmp/out" 2>"$tmp/err" || {
            echo "hotbench-gen $* failed: $(cat "$tmp/err")" >&2
            return 1
        }
        sha256sum <"$tmp/out"
    else
        "$gen" "$@" -o - 2>/dev/null | head -c "$bytes" | sha256sum
    fi | cut -d' ' -f1
}

# pinned WANT BYTES WHY ARGS...: the output's hash is WANT
pinned() {
    local want=$1 bytes=$2 why=$3
    shift 3
    local got
    got=$(gen_hash "$bytes" "$@") || return 1
    if [ -n "${HB_GEN_BYTES_PRINT:-}" ]; then
        echo "$got | $bytes | $* | $why"
        return 0
    fi
    [ "$got" = "$want" ] && return 0
    echo "hotbench-gen $* ($why): sha256 $got, want $want" >&2
    return 1
}

declare -A seen
while IFS='|' read -r want bytes args why; do
    read -r -a argv <<<"$args"
    want=${want// /}
    bytes=${bytes// /}
    why=${why# }
    check "${argv[*]}" pinned "$want" "$bytes" "$why" "${argv[@]}"
    # a row of the command's defaults: the command alone
    [ "${#argv[@]}" -eq 1 ] && seen[${argv[0]}]=1
done <<<"$rows"

# Every generator is pinned at its defaults: the commands of --help's "Commands:" section.
commands=$("$gen" --help | sed -n '/^Commands:/,/^$/{s/^  \([a-z0-9_-]*\) .*/\1/p}')
check "--help lists commands" test -n "$commands"
for c in $commands; do
    check "$c pinned at its defaults" test -n "${seen[$c]:-}"
done

if [ -n "${HB_GEN_BYTES_PRINT:-}" ]; then
    echo "test_gen_bytes: HB_GEN_BYTES_PRINT set: rows printed, nothing compared (exit 1)" >&2
    exit 1
fi
summary

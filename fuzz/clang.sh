# shellcheck shell=bash disable=SC2034 # cc and cxx are the caller's
# clang.sh - sourced by fuzz/run.sh and fuzz/coverage.sh: clang and the LLVM tools of its version,
# whatever version the distribution ships (no version in a name here).
#   hb_find_clang        sets cc and cxx: `clang` and `clang++` on PATH (Debian's package clang,
#                        the release's default LLVM), else the highest clang-N on PATH with its
#                        clang++; both empty when there is none
#   hb_llvm_tool NAME    prints the path of the LLVM tool NAME (llvm-cov, llvm-profdata) of cc's
#                        version: beside cc's real file (Debian: /usr/lib/llvm-N/bin/), else NAME
#                        on PATH; nothing when there is none. A profile written by one LLVM
#                        version is read by llvm-profdata of the same version only.

hb_find_clang() {
    cc=$(command -v clang || true)
    if [ -z "$cc" ]; then
        local n
        n=$(compgen -c clang- | sed -n 's/^clang-\([0-9][0-9]*\)$/\1/p' | sort -n | tail -1)
        [ -n "$n" ] && cc=$(command -v "clang-$n")
    fi
    cxx=
    [ -n "$cc" ] || return 0
    local bin
    bin=$(dirname "$(readlink -f "$cc")")
    if [ -x "$bin/clang++" ]; then
        cxx=$bin/clang++
    else
        cxx=$(command -v "${cc/clang/clang++}" || command -v clang++ || true)
    fi
}

hb_llvm_tool() {
    local bin
    if [ -n "${cc:-}" ]; then
        bin=$(dirname "$(readlink -f "$cc")")
        [ -x "$bin/$1" ] && { echo "$bin/$1"; return 0; }
    fi
    command -v "$1" || true
}

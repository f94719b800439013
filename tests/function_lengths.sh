#!/usr/bin/env bash
# function_lengths.sh - the length in lines of every C and C++ function of hotbench, longest first.
#
# Usage: tests/function_lengths.sh [--over N] [SOURCE_DIR]
#   --over N     only the functions longer than N lines (default 0: every function)
#   SOURCE_DIR   the source tree (default: the one holding this script)
# Prints one line per function: LINES <tab> FILE:LINE <tab> NAME, FILE relative to SOURCE_DIR,
# LINE the line of the function's name. LINES counts from that line to the closing brace, both
# included (the return type on a line of its own before the name is not counted), as Universal
# Ctags reports them (its end: field; Debian package universal-ctags). Files: every *.c, *.h and
# *.cc under harness/ cases/ tools/ data-gen/ fuzz/ tests/ (templates/ holds *.in files, which
# become C only in a new case's folder, where they are counted).
# pmccabe (Debian's function-length counter) was the first choice, but version 2.8 stops on
# harness/hb_shim.cc's lambdas ("too many }'s") and cases/bufgrow/bench.c, and takes a
# macro-built array (HB_STR) for a function.
# Exit status: 0; 2 usage; 3 no Universal Ctags with the end field (the message names the
# package).
set -euo pipefail

usage() {
    sed -n '3,4p' "$0" | sed 's/^# //' >&2
    exit 2
}

over=0
src=
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --over) [ $# -ge 2 ] || usage; over=$2; shift ;;
    --over=*) over=${1#--over=} ;;
    -*) usage ;;
    *) [ -z "$src" ] || usage; src=$1 ;;
    esac
    shift
done
case $over in '' | *[!0-9]*) echo "function_lengths.sh: --over wants a count of lines, not '$over'" >&2; exit 2 ;; esac
src=${src:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$src" ] || { echo "function_lengths.sh: no directory $src" >&2; exit 2; }

# Universal Ctags under any of its names, chosen by what it can do: the end: field.
ctags=
for c in ctags-universal universal-ctags ctags; do
    # the list whole first: grep -q quitting early would fail the pipe (pipefail)
    if command -v "$c" >/dev/null && fields=$("$c" --list-fields 2>/dev/null) &&
        grep -qw 'end' <<<"$fields"; then
        ctags=$c
        break
    fi
done
if [ -z "$ctags" ]; then
    echo "function_lengths.sh: no Universal Ctags with the end: field (Debian package" \
        "universal-ctags; scripts/deps.sh installs it)" >&2
    exit 3
fi

cd "$src"
dirs=()
for d in harness cases tools data-gen fuzz tests; do [ -d "$d" ] && dirs+=("$d"); done
[ ${#dirs[@]} -gt 0 ] || { echo "function_lengths.sh: no C source folders in $src" >&2; exit 2; }
find "${dirs[@]}" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -print | LC_ALL=C sort |
    "$ctags" -L - --sort=no --languages=C,C++ --kinds-C=f --kinds-C++=f --fields=+ne -o - |
    awk -F'\t' -v over="$over" '
        {
            line = ""; end = ""
            for (i = 4; i <= NF; i++) {
                if ($i ~ /^line:/) line = substr($i, 6)
                if ($i ~ /^end:/) end = substr($i, 5)
            }
            if (line != "" && end != "" && end - line + 1 > over)
                printf "%d\t%s:%d\t%s\n", end - line + 1, $2, line, $1
        }' |
    LC_ALL=C sort -t$'\t' -k1,1nr -k2,2

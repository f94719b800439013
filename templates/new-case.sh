#!/bin/bash
# new-case.sh - `make new-case NAME=<name>`: a minimal working case from templates/case/.
#
# Creates cases/<name>/ (the contract header hb_<name>.h, the strategies and generator <name>.c,
# the description case.c, bench.c over harness/hb_case_run.h, CMakeLists.txt and the unit test
# test_<name>.c) and appends HB_CASE(<name>) to cases/cases.def; touches nothing else. <name> is
# a C identifier in lower case: a letter, then letters, digits or '_', at most 32 characters.
# Exit status: 0 created; 1 refused (a bad or existing name: nothing is changed); 2 usage.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tpl="$top/templates/case"
die() {
    echo "make new-case: $*" >&2
    exit 1
}
if [ $# -ne 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    echo "usage: make new-case NAME=<name>   (<name>: [a-z][a-z0-9_]*, at most 32 characters)" >&2
    exit 2
fi
name=$1
[ -n "$name" ] || die "NAME is empty: make new-case NAME=<name>"
[[ "$name" =~ ^[a-z][a-z0-9_]{0,31}$ ]] ||
    die "'$name' is not a case name: a lower-case letter, then lower-case letters, digits or '_' (at most 32 characters): it names the folder, the benchmark group and the C symbols hb_<name>_*"
[ ! -e "$top/cases/$name" ] || die "cases/$name already exists: choose another name"
if grep -q "^HB_CASE($name)" "$top/cases/cases.def"; then
    die "cases/cases.def already lists HB_CASE($name)"
fi
uname=$(printf '%s' "$name" | tr 'a-z' 'A-Z')

mkdir "$top/cases/$name"
for f in "$tpl"/*.in; do
    base=$(basename "$f" .in)
    out="$top/cases/$name/${base//NAME/$name}"
    sed -e "s/@NAME@/$name/g" -e "s/@UNAME@/$uname/g" "$f" >"$out"
done
echo "HB_CASE($name)" >>"$top/cases/cases.def"
echo "make new-case: created cases/$name/ ($(cd "$top/cases/$name" && ls | tr '\n' ' '))"
echo "make new-case: added HB_CASE($name) to cases/cases.def"
echo "make new-case: next: make test; then replace the example (README.md, \"Adding a case\")"

#!/bin/bash
# new-case.sh - `make new-case NAME=<name>`: a minimal working case from templates/case/.
#
# Creates cases/<name>/ (the contract header hb_<name>.h, the strategies and generator <name>.c,
# the description case.c, bench.c over harness/hb_case_run.h, CMakeLists.txt and the unit test
# test_<name>.c) and appends HB_CASE(<name>) to cases/cases.def; touches nothing else. <name> is
# a C identifier in lower case: a letter, then letters, digits or '_', at most 32 characters.
# A name whose files or C names the tree already uses (hb_<name>.h, test_<name>, hb_<name>_*) is
# refused. Exit status: 0 created; 1 refused (a bad or existing name: nothing is changed); 2 usage.
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
# The generated files and names must not shadow the tree's: its headers hb_<name>.h (quoted
# includes find the case's own first), its C prefix hb_<name>_ (NAME=case would define
# hb_case_register) and its CMake targets test_<name>, hb_case_<name> (NAME=dechunk would add a
# second test_dechunk: cmake refuses the whole tree).
taken=$(cd "$top" && git ls-files --cached --others --exclude-standard -- harness data-gen tools \
    cases tests CMakeLists.txt 2>/dev/null) || taken=$(cd "$top" && find harness data-gen tools \
    cases tests CMakeLists.txt -type f 2>/dev/null)
for f in $taken; do
    case "$(basename "$f")" in
    "hb_$name.h" | "test_$name".*) die "'$name' would shadow $f: choose another name" ;;
    esac
done
clash=$(cd "$top" && printf '%s\n' $taken | grep -E '\.(c|h|cc|txt)$' |
    xargs -r grep -l -E "\<(hb_${name}_|HB_$(printf '%s' "$name" | tr 'a-z' 'A-Z')_|hb_case_${name}\>|test_${name}\>)" 2>/dev/null | head -1)
[ -z "$clash" ] ||
    die "'$name' would clash with names already used in $clash (hb_${name}_*, test_$name, hb_case_$name): choose another name"
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

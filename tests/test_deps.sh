#!/usr/bin/env bash
# test_deps.sh SRCDIR - scripts/deps.sh's choice of a package per need (issue 29), without
# installing anything: fake dpkg-query, dpkg, apt-cache, apt-get and id on PATH play a machine
# whose dpkg status and package lists each row sets. Checked: an installed alternative meets the
# need, a package installed for two architectures (dpkg-query's "installedinstalled") counts as
# installed, one installed only for a foreign architecture does not, the first alternative with a
# candidate is chosen, a need without any candidate is an error naming it and what was tried,
# an optional need without one is skipped with a note (no error, no apt-get update), and as
# root the chosen packages (only they) reach apt-get install. Ends with "N passed, M failed".
set -u
src=$1
# shellcheck source=tests/testlib.sh
. "$src/tests/testlib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fake=$work/bin
mkdir -p "$fake"

# dpkg-query -W -f=FORMAT PKG...: per package of $FAKE_DPKG ("package arch status" lines), FORMAT
# with ${Package}, ${Architecture}, ${db:Status-Status} and \n expanded, as dpkg-query does: one
# copy per installed architecture, so a format without \n runs two statuses together.
cat >"$fake/dpkg-query" <<'EOF'
#!/usr/bin/env bash
fmt= rc=0
for a in "$@"; do
    case $a in
    -W) ;;
    -f=*) fmt=${a#-f=} ;;
    *)  hit=0
        while read -r p arch st; do
            [ "$p" = "${a%%:*}" ] || continue
            case $a in *:*) [ "${a#*:}" = "$arch" ] || continue ;; esac
            hit=1
            out=${fmt//'${Package}'/$p}
            out=${out//'${Architecture}'/$arch}
            out=${out//'${db:Status-Status}'/$st}
            printf '%b' "$out"
        done <"$FAKE_DPKG"
        [ $hit = 1 ] || { echo "dpkg-query: no packages found matching $a" >&2; rc=1; } ;;
    esac
done
exit $rc
EOF
# apt-cache policy PKG...: a block per package of $FAKE_APT ("package candidate" lines; the
# candidate may be "(none)"); an unknown package prints nothing, as apt-cache does. Its words
# are translated unless LC_ALL=C, as apt-cache's are under de_DE.UTF-8 (every row below then
# checks that deps.sh reads them in the C locale).
cat >"$fake/apt-cache" <<'EOF'
#!/usr/bin/env bash
[ "$1" = policy ] || exit 100
shift
label=Installationskandidat
[ "${LC_ALL:-}" = C ] && label=Candidate
for a in "$@"; do
    while read -r p c; do
        [ "$p" = "$a" ] && printf '%s:\n  Installed: (none)\n  %s: %s\n  Version table:\n' "$p" "$label" "$c"
    done <"$FAKE_APT"
done
EOF
cat >"$fake/dpkg" <<'EOF'
#!/usr/bin/env bash
[ "$1" = --print-architecture ] && echo amd64
EOF
cat >"$fake/apt-get" <<'EOF'
#!/usr/bin/env bash
echo "apt-get $*" >>"$FAKE_LOG"
EOF
cat >"$fake/id" <<'EOF'
#!/usr/bin/env bash
echo "$FAKE_UID"
EOF
chmod +x "$fake"/*
export FAKE_DPKG=$work/dpkg FAKE_APT=$work/apt FAKE_LOG=$work/log FAKE_UID=0
deps() {
    : >"$FAKE_LOG"
    PATH=$fake:$PATH bash "$src/scripts/deps.sh" "$@" >"$work/out" 2>"$work/err"
}
has() { grep -qF -- "$1" "$2"; }

# Every core package installed for amd64 or all; mimalloc and tcmalloc by their second names,
# python3-yaml for amd64 and i386 (multiarch).
core=(cmake make gcc g++ libbenchmark-dev zlib1g-dev libexpat1-dev libxml2-dev libcmocka-dev
      hyperfine python3-matplotlib python3-numpy python3-scipy valgrind ccache libbenchmark-tools
      libjemalloc2 libmimalloc2.0 libtcmalloc-minimal4 universal-ctags)
{
    for p in "${core[@]}"; do echo "$p amd64 installed"; done
    echo "python3-yaml amd64 installed"
    echo "python3-yaml i386 installed"
} >"$FAKE_DPKG"
printf '%s\n' "libmimalloc3 3.0.1" "libmimalloc2.0 (none)" >"$FAKE_APT"

deps --plan
check "plan: all met exits 0" test $? -eq 0
check "plan: an installed second alternative meets the need" has "mimalloc: libmimalloc2.0 (installed)" "$work/out"
check "plan: installed for two architectures counts" has "PyYAML: python3-yaml (installed)" "$work/out"
check "plan: nothing to install" test "$(grep -c 'to install' "$work/out")" -eq 0
deps
check "all met: exits 0" test $? -eq 0
check "all met: says nothing is missing" has "nothing missing" "$work/err"
check "all met: no apt-get" test ! -s "$FAKE_LOG"

# mimalloc missing: the first alternative with a candidate (libmimalloc3; libmimalloc2.0 has
# none); python3-yaml only for i386: missing, its only alternative has a candidate.
sed -i '/^libmimalloc2.0 /d; /^python3-yaml amd64/d' "$FAKE_DPKG"
printf '%s\n' "libmimalloc3 3.0.1" "libmimalloc2.0 (none)" "python3-yaml 6.0" >"$FAKE_APT"
deps --plan
check "plan: missing needs exit 0 (they can be met)" test $? -eq 0
check "plan: first alternative with a candidate" has "mimalloc: libmimalloc3 (to install" "$work/out"
check "plan: a foreign-architecture package does not count" has "PyYAML: python3-yaml (to install" "$work/out"
check "plan: installs nothing" test ! -s "$FAKE_LOG"
deps
check "root: exits 0" test $? -eq 0
check "root: apt-get update, then only the chosen packages" test "$(cat "$FAKE_LOG")" = \
    "apt-get update -q
apt-get install -y -q --no-install-recommends python3-yaml libmimalloc3"
check "root: prints the choice" has "mimalloc: libmimalloc3 (to install" "$work/err"
FAKE_UID=1000 deps
check "not root: exits 1" test $? -eq 1
check "not root: the apt-get line" has "sudo apt-get install -y python3-yaml libmimalloc3" "$work/err"
check "not root: runs no apt-get" test ! -s "$FAKE_LOG"

# The candidate order is the need's, not the lists': only the second alternative has one.
printf '%s\n' "libmimalloc2.0 2.0.9" "python3-yaml 6.0" >"$FAKE_APT"
deps --plan
check "plan: second alternative when the first has no entry" has "mimalloc: libmimalloc2.0 (to install" "$work/out"

# No candidate for any alternative: the need and the packages tried named, exit 1, no install.
printf '%s\n' "libmimalloc3 (none)" "python3-yaml 6.0" >"$FAKE_APT"
deps --plan
check "plan: no candidate exits 1" test $? -eq 1
check "plan: no candidate names the need and the packages" has \
    "no package for the need 'mimalloc' (--hb_allocator=mimalloc (libmimalloc.so.*)): none of libmimalloc3 | libmimalloc2.0 has an install candidate" \
    "$work/err"
deps
check "root: no candidate exits 1" test $? -eq 1
check "root: no candidate installs nothing" test "$(cat "$FAKE_LOG")" = "apt-get update -q"

# Optional needs (headless Chromium, perf): every required need installed and no candidate for
# them: a note naming them, exit 0, no apt-get at all (not even an update); --plan says none.
{ for p in "${core[@]}"; do echo "$p amd64 installed"; done; echo "python3-yaml amd64 installed"
} >"$FAKE_DPKG"
: >"$FAKE_APT"
deps
check "optional, no candidate: exits 0" test $? -eq 0
check "optional, no candidate: named as skipped" has "optional, no package here: headless Chromium perf" "$work/err"
check "optional, no candidate: no apt-get, not even an update" test ! -s "$FAKE_LOG"
deps --plan
check "plan: optional, no candidate: exits 0" test $? -eq 0
check "plan: optional, no candidate: says so" has "headless Chromium: none (optional: none of chromium-headless-shell | chromium has an install candidate here; skipped)" "$work/out"
# ... with a candidate (the second alternative only): installed as root, still no update
echo "chromium 120.0" >"$FAKE_APT"
deps
check "optional with a candidate: exits 0" test $? -eq 0
check "optional with a candidate: installed, no update" test "$(cat "$FAKE_LOG")" = \
    "apt-get install -y -q --no-install-recommends chromium"
# ... and a required need missing beside it: the update runs, both are installed
sed -i '/^valgrind /d' "$FAKE_DPKG"
printf '%s\n' "chromium 120.0" "valgrind 3.19" >"$FAKE_APT"
deps
check "optional and required missing: update, then both" test "$(cat "$FAKE_LOG")" = \
    "apt-get update -q
apt-get install -y -q --no-install-recommends valgrind chromium"

# --fuzz and --peers have their own needs; --help lists them and exits 0; a bad option exits 2.
: >"$FAKE_DPKG"
printf '%s\n' clang libclang-rt-dev llvm | sed 's/$/ 1:19.0-63/' >"$FAKE_APT"
deps --fuzz --plan
check "fuzz plan: the unversioned LLVM packages" test "$(grep -c 'to install' "$work/out")" -eq 3
echo "openjdk-17-jdk-headless amd64 installed" >"$FAKE_DPKG"
deps --peers --plan
check "peers plan: an installed JDK meets the need" has "JDK >= 17: openjdk-17-jdk-headless (installed)" "$work/out"
deps --help
check "--help exits 0" test $? -eq 0
check "--help lists the needs" has "mimalloc: libmimalloc3 | libmimalloc2.0" "$work/out"
check "--help lists the peers' needs" has "JDK >= 17:" "$work/out"
deps --nonsense
check "bad option exits 2" test $? -eq 2

summary

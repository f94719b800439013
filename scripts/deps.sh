#!/usr/bin/env bash
# deps.sh - make sure the Debian packages hotbench needs are installed.
# Each need lists the packages that satisfy it, in order of preference: the need is met when any
# of them is installed for this machine's architecture (or "all"); otherwise the first one with
# an install candidate (apt-cache policy) is chosen, and the script prints which.
# As root: installs what is missing (apt-get update first, once). Otherwise: prints the exact
# apt-get line and exits 1. A need that no package can satisfy: its name and the packages tried,
# exit 1. Takes well under a second when everything is present (one dpkg-query, no apt).
# usage: scripts/deps.sh [--peers | --fuzz] [--plan]
#   (none)    the build, the tests, the reports and the allocators of --hb_allocator
#   --peers   the runtimes of the peers instead (scripts/peers.py, issue 7)
#   --fuzz    clang with libFuzzer, llvm-cov and llvm-profdata (make fuzz, make fuzz-coverage)
#   --plan    print the package chosen for each need (installed, or to install) and change
#             nothing: no apt-get update, no install, as root or not (exit 1: a need has no
#             candidate in this machine's package lists)
# Exit status: 0 every need met (--plan: every need can be met), 1 missing or unsatisfiable,
# 2 usage.
set -euo pipefail

# One need a row: "need|packages, most preferred first|what needs it[|optional]". Most needs
# have one package; a need whose library is renamed between Debian releases (a new soname, a
# time_t ABI rename) lists the names it has had, newest first. An optional need is installed
# where this machine's package lists have a candidate and is otherwise skipped, said once, never
# an error (nor a reason for apt-get update): what uses it says so when it is missing.
# shellcheck disable=SC2034 # read through the nameref rows
core_needs=(
    "cmake|cmake|the build"
    "make|make|the front door (Makefile)"
    "C compiler|gcc|the C11 cases"
    "C++ compiler|g++|the google-benchmark shim"
    "google-benchmark|libbenchmark-dev|timing"
    "zlib|zlib1g-dev|gzip bodies"
    "expat|libexpat1-dev|the XML case"
    "libxml2|libxml2-dev|the XML case"
    "cmocka|libcmocka-dev|unit tests"
    "hyperfine|hyperfine|process timings (make bench-e2e)"
    "matplotlib|python3-matplotlib|charts"
    "numpy|python3-numpy|fits"
    "scipy|python3-scipy|fits"
    "valgrind|valgrind|instruction counts (gate, limits)"
    "ccache|ccache|revision builds sharing unchanged files (compare, bisect, their tests)"
    "google-benchmark tools|libbenchmark-tools|compare.py (tests/test_exports.py)"
    "PyYAML|python3-yaml|tests/test_workflows.py"
    "Universal Ctags|universal-ctags|function lengths (tests/function_lengths.sh)"
    "jemalloc|libjemalloc2|--hb_allocator=jemalloc (libjemalloc.so.*)"
    "mimalloc|libmimalloc3 libmimalloc2.0|--hb_allocator=mimalloc (libmimalloc.so.*)"
    "tcmalloc|libtcmalloc-minimal4t64 libtcmalloc-minimal4|--hb_allocator=tcmalloc (libtcmalloc_minimal.so.*)"
    "headless Chromium|chromium-headless-shell chromium|the flame graph's render test (tests/test_explain_render.py)|optional"
    "perf|linux-perf|perf samples in the compare's explanation, where the kernel allows them|optional"
)
# default-jdk-headless is the release's own JDK (17 or later on every release with httpcore 4.4);
# the versioned JDKs count when installed without it.
# shellcheck disable=SC2034 # read through the nameref rows
peers_needs=(
    "JDK >= 17|default-jdk-headless openjdk-21-jdk-headless openjdk-17-jdk-headless|javac and java: httpcore and java.time peers"
    "httpcore 4.4|libhttpcore-java|the httpcore peer (httpcore.jar)"
    "Ruby|ruby|the Ruby XML peers"
    "Nokogiri|ruby-nokogiri|a Ruby XML peer"
    "Ox|ruby-ox|a Ruby XML peer"
    "LibXML (Ruby)|ruby-libxml|a Ruby XML peer"
    "dateutil|python3-dateutil|botocore's timestamp parser"
    "hyperfine|hyperfine|process timings"
)
# The unversioned packages follow the release's default LLVM: clang, its libFuzzer runtime and
# llvm-cov/llvm-profdata are then of one version (fuzz/clang.sh finds the tools beside clang).
# shellcheck disable=SC2034 # read through the nameref rows
fuzz_needs=(
    "clang|clang|the fuzz targets' compiler"
    "libFuzzer|libclang-rt-dev|-fsanitize=fuzzer (libclang_rt.fuzzer)"
    "llvm-cov and llvm-profdata|llvm|make fuzz-coverage"
)

usage() {
    echo "usage: scripts/deps.sh [--peers | --fuzz] [--plan]   (--help: the needs)" >&2
    exit 2
}

# --help: the header, then every need with its packages.
help() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    local set row
    for set in core peers fuzz; do
        echo
        echo "needs ($([ $set = core ] && echo default || echo "--$set")): need: packages (most preferred first) - what needs it"
        local -n rows=${set}_needs
        for row in "${rows[@]}"; do
            IFS='|' read -r need alts why opt <<<"$row"
            echo "  $need: ${alts// / | } - $why${opt:+ ($opt)}"
        done
    done
}

# installed_set PKG...: prints the packages of PKG... installed for this architecture or "all",
# one a line. One dpkg-query call; a package installed for two architectures prints one line
# each (a format without a newline would run them together, "installedinstalled").
installed_set() {
    local arch
    arch=$(dpkg --print-architecture)
    dpkg-query -W -f='${Package} ${Architecture} ${db:Status-Status}\n' "$@" 2>/dev/null |
        awk -v arch="$arch" '$3 == "installed" && ($2 == arch || $2 == "all") { print $1 }' || true
}

# candidates PKG...: prints the packages of PKG... that have an install candidate in this
# machine's package lists (apt-cache policy: "Candidate: (none)" or no entry at all: none).
candidates() {
    # LC_ALL=C: apt-cache translates "Candidate:" (Installationskandidat: under de_DE)
    LC_ALL=C apt-cache policy "$@" 2>/dev/null | awk '
        /^[^ ].*:$/ { pkg = substr($0, 1, length($0) - 1); sub(/:.*/, "", pkg) }
        /^  Candidate: / && $2 != "(none)" && pkg != "" { print pkg; pkg = "" }'
}

# resolve: fills chosen[need] for every need of rows: "installed PKG" (an alternative is
# installed), "install PKG" (the first with a candidate) or "none" (no candidate). The apt
# lookup runs only when something is missing.
resolve() {
    local row need alts why opt p ps all=()
    for row in "${rows[@]}"; do
        IFS='|' read -r need alts why opt <<<"$row"
        read -ra ps <<<"$alts"
        all+=("${ps[@]}")
    done
    declare -A inst=() cand=()
    for p in $(installed_set "${all[@]}"); do inst[$p]=1; done
    missing=()
    for row in "${rows[@]}"; do
        IFS='|' read -r need alts why opt <<<"$row"
        chosen[$need]=""
        for p in $alts; do
            [ -n "${inst[$p]:-}" ] && { chosen[$need]="installed $p"; break; }
        done
        [ -n "${chosen[$need]}" ] || missing+=("$row")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local required=0
    for row in "${missing[@]}"; do
        IFS='|' read -r need alts why opt <<<"$row"
        [ "$opt" = optional ] || required=1
    done
    [ "$plan" = 0 ] && [ "$required" = 1 ] && [ "$(id -u)" -eq 0 ] && apt_update
    all=()
    for row in "${missing[@]}"; do
        IFS='|' read -r need alts why opt <<<"$row"
        read -ra ps <<<"$alts"
        all+=("${ps[@]}")
    done
    for p in $(candidates "${all[@]}"); do cand[$p]=1; done
    for row in "${missing[@]}"; do
        IFS='|' read -r need alts why opt <<<"$row"
        chosen[$need]=none
        for p in $alts; do
            [ -n "${cand[$p]:-}" ] && { chosen[$need]="install $p"; break; }
        done
    done
    return 0
}

apt_update() {
    echo "hotbench: deps: apt-get update" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
}

# report: one line per need (all of them with --plan, on stdout; else the missing ones, on
# stderr) and the packages to install into the array install, the optional needs without a
# candidate into the array skipped; returns 1 when a required need has no candidate.
report() {
    local row need alts why opt what pkg bad=0 out=2 tag="hotbench: deps: "
    [ "$plan" = 0 ] || { out=1; tag=; }
    install=()
    skipped=()
    for row in "${rows[@]}"; do
        IFS='|' read -r need alts why opt <<<"$row"
        read -r what pkg <<<"${chosen[$need]}"
        case $what in
        installed)
            [ "$plan" = 0 ] || echo "$need: $pkg (installed)" ;;
        install)
            install+=("$pkg")
            echo "$tag$need: $pkg (to install; of ${alts// / | }, the first with" \
                "a candidate)" >&$out ;;
        none)
            if [ "$opt" = optional ]; then
                skipped+=("$need")
                [ "$plan" = 0 ] || echo "$need: none (optional: none of ${alts// / | } has" \
                    "an install candidate here; skipped)"
                continue
            fi
            bad=1
            echo "hotbench: deps: no package for the need '$need' ($why): none of" \
                "${alts// / | } has an install candidate in this machine's package lists" \
                "(apt-cache policy)" >&2 ;;
        esac
    done
    return $bad
}

main() {
    plan=0
    local set=core
    while [ $# -gt 0 ]; do
        case $1 in
        --help | -h) help; exit 0 ;;
        --peers) set=peers ;;
        --fuzz) set=fuzz ;;
        --plan) plan=1 ;;
        *) usage ;;
        esac
        shift
    done
    local -n rows=${set}_needs
    declare -A chosen=()
    resolve
    if [ ${#missing[@]} -eq 0 ] && [ "$plan" = 0 ]; then
        echo "hotbench: deps: nothing missing (${#rows[@]} needs met; --plan lists them)" >&2
        exit 0
    fi
    local ok=0
    report || ok=1
    if [ "$plan" = 1 ]; then
        exit $ok
    elif [ "$ok" = 0 ] && [ ${#install[@]} -eq 0 ]; then
        echo "hotbench: deps: nothing missing ($(( ${#rows[@]} - ${#skipped[@]} )) needs met;" \
            "optional, no package here: ${skipped[*]}; what needs them says so)" >&2
        exit 0
    elif [ "$(id -u)" -ne 0 ]; then
        [ "$ok" = 0 ] || echo "  running scripts/deps.sh as root updates the lists first" >&2
        [ ${#install[@]} -gt 0 ] || exit 1
        echo "hotbench: missing Debian packages: ${install[*]}" >&2
        echo "install them with:" >&2
        echo "  sudo apt-get update && sudo apt-get install -y ${install[*]}" >&2
        exit 1
    fi
    [ "$ok" = 0 ] || exit 1
    echo "hotbench: deps: installing ${install[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${install[@]}" >&2
}

main "$@"

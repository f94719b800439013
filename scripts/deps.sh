#!/usr/bin/env bash
# deps.sh - make sure the Debian packages hotbench needs are installed.
# As root: installs what is missing (apt-get update first, once). Otherwise: prints the exact
# apt-get line and exits 1. Takes well under a second when everything is present.
#   scripts/deps.sh --peers   the runtimes of the peers instead (scripts/peers.py, issue 7): Java 17
#                             and Apache httpcore 4.4, Ruby 3.1 with Ox, LibXML and Nokogiri,
#                             Python's dateutil (botocore's timestamp parser), hyperfine
#   scripts/deps.sh --fuzz    clang with libFuzzer and llvm-cov (make fuzz, make fuzz-coverage)
set -euo pipefail

# libbenchmark-tools: google-benchmark's compare.py (tests/test_exports.py reads run.json with it);
# python3-yaml: tests/test_workflows.py parses the CI workflows;
# libjemalloc2 libmimalloc2.0 libtcmalloc-minimal4: hotbench --hb_allocator's libraries
# (harness/hb_alloc.h; tests/test_alloc_counters.sh runs each)
pkgs=(cmake make gcc g++ libbenchmark-dev zlib1g-dev libexpat1-dev libxml2-dev libcmocka-dev
      hyperfine python3-matplotlib python3-numpy python3-scipy valgrind libbenchmark-tools
      python3-yaml libjemalloc2 libmimalloc2.0 libtcmalloc-minimal4)
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    echo "usage: scripts/deps.sh [--peers | --fuzz]"
    exit 0
elif [ "${1:-}" = --peers ]; then
    pkgs=(openjdk-17-jdk-headless libhttpcore-java ruby ruby-nokogiri ruby-ox ruby-libxml
          python3-dateutil hyperfine)
elif [ "${1:-}" = --fuzz ]; then
    pkgs=(clang-14 libclang-rt-14-dev llvm-14)
elif [ $# -gt 0 ]; then
    echo "usage: scripts/deps.sh [--peers | --fuzz]" >&2
    exit 2
fi

missing=()
for p in "${pkgs[@]}"; do
    # dpkg-query is a single lookup in the status file: fast, no network.
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "hotbench: missing Debian packages: ${missing[*]}" >&2
    echo "install them with:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "hotbench: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2

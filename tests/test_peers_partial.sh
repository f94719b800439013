#!/usr/bin/env bash
# test_peers_partial.sh - a machine with some peer runtimes and not others (issue 11): a JDK
# without Debian's libhttpcore-java must run the java.time peer and skip the httpcore peer,
# naming the package, never fail. The missing jar is played by HB_HTTPCORE_JAR pointing at a
# file that does not exist.
#
# Usage: test_peers_partial.sh TOOLS_DIR SOURCE_DIR WORK_DIR
# Ends with "N passed, M failed"; exit 0 only when nothing failed, 77 (skipped) without a JDK.
set -u
tools=${1:?usage: test_peers_partial.sh TOOLS_DIR SOURCE_DIR WORK_DIR}
src=${2:?usage: test_peers_partial.sh TOOLS_DIR SOURCE_DIR WORK_DIR}
work=${3:?usage: test_peers_partial.sh TOOLS_DIR SOURCE_DIR WORK_DIR}
if ! command -v javac >/dev/null || ! command -v java >/dev/null; then
    echo "skipped: no JDK (scripts/deps.sh --peers installs one, 17 or later)"
    exit 77
fi
export HB_HTTPCORE_JAR=/nonexistent/httpcore.jar
peers=("/usr/bin/python3" "$src/scripts/peers.py")
rm -rf "$work"
passed=0
failed=0

# expect WHY WANT_RC WANT_STDERR_SUBSTRING ARGS...
expect() {
    local why=$1 want_rc=$2 want_err=$3
    shift 3
    local err rc
    err=$("${peers[@]}" "$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -eq "$want_rc" ] && [[ $err == *"$want_err"* ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $why: exit $rc (want $want_rc), stderr lacks '$want_err':"
        echo "$err" | tail -5
    fi
}

expect "the java.time peer runs without httpcore's jar" 0 "every peer agrees" \
    --verify --case rfc3339 --build "$tools" --work "$work/rfc3339"
expect "the httpcore peer is skipped, naming the package" 77 "libhttpcore-java" \
    --verify --case bufgrow --build "$tools" --work "$work/bufgrow"
expect "--check names the skipped case and its package" 0 "bufgrow skipped: missing libhttpcore-java" \
    --check --build "$tools"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

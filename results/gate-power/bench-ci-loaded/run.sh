#!/bin/bash
# make bench-ci of a one-commit pull request (one comment changed) on a clean clone, under two
# busy processes; both builds from scratch. Output in $1 (default /var/tmp/bci/).
set -u
out=${1:-/var/tmp/bci}
mkdir -p "$out" && rm -rf "$out/repo"
git clone -q /work/main $out/repo && cd $out/repo || exit 1
echo '/* a comment changed: make bench-ci under two busy processes */' >> harness/hb_err.c
git -c user.name=t -c user.email=t@t commit -qam "hb_err.c: a comment changed" || exit 1
git log --oneline -2
yes >/dev/null & y1=$!
yes >/dev/null & y2=$!
trap 'kill $y1 $y2' EXIT
sleep 5
uptime
( while sleep 30; do uptime; done ) > $out/uptime.log & u=$!
start=$(date +%s)
CI=true make bench-ci > $out/bench-ci.log 2>&1
echo "exit $? after $(( $(date +%s) - start )) s"
kill $u
uptime

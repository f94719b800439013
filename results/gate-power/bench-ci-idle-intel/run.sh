#!/bin/bash
# make bench-ci of a one-commit pull request (one comment changed) on a clean clone of main, on
# an otherwise idle machine; both builds from scratch. Output in /var/tmp/bci-intel/.
set -u
mkdir -p /var/tmp/bci-intel && rm -rf /var/tmp/bci-intel/repo
git clone -q /work/main /var/tmp/bci-intel/repo && cd /var/tmp/bci-intel/repo || exit 1
echo '/* a comment changed: make bench-ci idle */' >> harness/hb_err.c
git -c user.name=t -c user.email=t@t commit -qam "hb_err.c: a comment changed" || exit 1
git log --oneline -2
uptime
( while sleep 30; do uptime; done ) > /var/tmp/bci-intel/uptime.log & u=$!
start=$(date +%s)
CI=true make bench-ci > /var/tmp/bci-intel/bench-ci.log 2>&1
echo "exit $? after $(( $(date +%s) - start )) s"
kill $u
uptime

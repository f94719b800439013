#!/bin/sh
# e2e.sh [options] [BUILD_DIR] - whole-process benchmarks of hotbench's tools with hyperfine.
# The work is scripts/hotbench/e2e.py (what runs comes from BUILD_DIR/hotbench --hb_manifest);
# run `scripts/e2e.sh --help` for the details; `make bench-e2e` runs it on build/.
py=/usr/bin/python3
if [ ! -x "$py" ]; then
    echo "e2e: $py not found (Debian's python3; scripts/deps.sh installs it)" >&2
    exit 2
fi
PYTHONPATH="$(dirname "$0")${PYTHONPATH:+:$PYTHONPATH}" exec "$py" -m hotbench.e2e "$@"

#!/usr/bin/env bash
# bench.sh - the same as scripts/bench.py, kept for the old callers: `scripts/bench.sh --help`,
# `scripts/bench.sh [options] [-- hotbench args]`, and the old `scripts/bench.sh HOTBENCH [hotbench
# args]` (the in-process suite only, recorded in results/runs/ and results/latest.json).
exec /usr/bin/python3 "$(dirname "$0")/bench.py" "$@"

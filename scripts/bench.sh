#!/usr/bin/env bash
# bench.sh HOTBENCH [hotbench args...] - one full run of the suite, recorded.
# Writes results/runs/<UTC time>-<git short sha>.json (google-benchmark JSON with hotbench's
# context) through a temporary file and a rename, points results/latest.json at it, and prints
# the console table as it goes. Exits with hotbench's status (1 if a strategy failed verification).
set -uo pipefail
bin=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mkdir -p results/runs data
sha=$(git rev-parse --short=12 HEAD 2>/dev/null || echo nogit)
rev=$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
final="results/runs/${stamp}-${sha}.json"
tmp="results/runs/.${stamp}-${sha}.json.tmp"
echo "hotbench: writing $final (inputs cached in data/)" >&2
# The machine, for the report's environment section (google-benchmark records cores, MHz and
# caches itself). --benchmark_context splits on commas and '=': both are replaced.
clean() { tr ',=' ';:' | tr -s ' ' | sed 's/^ //; s/ $//'; }
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1 | clean)
mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)
kernel=$(uname -sr | clean)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
HB_GIT_REV=$rev "$bin" --benchmark_out="$tmp" --benchmark_out_format=json \
    --benchmark_display_aggregates_only=true \
    "--benchmark_context=hb_cpu_model=${cpu:-unknown},hb_memory=${mem:-unknown},hb_kernel=${kernel:-unknown},hb_loadavg=${load:-unknown}" \
    "$@"
status=$?
if [ -s "$tmp" ]; then
    mv -f "$tmp" "$final"
    if [ "$status" -eq 0 ]; then
        ln -sfn "runs/$(basename "$final")" results/latest.json
        echo "hotbench: results in $final (results/latest.json points to it)" >&2
    else
        echo "hotbench: results in $final; a benchmark FAILED (see above), so" \
            "results/latest.json still points to the last complete run" >&2
    fi
    /usr/bin/python3 scripts/summary.py "$final" || true
else
    rm -f "$tmp"
    echo "hotbench: the run wrote no results" >&2
fi
exit $status

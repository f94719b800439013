#!/bin/bash
# bufgrow/additive at 256 KiB alone, and after bufgrow/httpcore in the same process, with glibc's
# dynamic mmap threshold (default) and with it fixed (MALLOC_MMAP_THRESHOLD_=131072)
hb=${HB:-build-test/hotbench}
export HB_DATA_DIR=${HB_DATA_DIR:-/tmp/hb-heap-history-data}
run() { # label, filter, env...
  local label=$1 filter=$2; shift 2
  for i in 1 2 3 4 5; do
    env "$@" $hb --hb_budget=0.25 --benchmark_min_time=0.05 --benchmark_filter="$filter" \
      --benchmark_format=json 2>/dev/null | /usr/bin/python3 -c '
import json,sys
d=json.load(sys.stdin)
for b in d["benchmarks"]:
    if b["name"].startswith("bufgrow/additive/size:262144/") and b.get("aggregate_name") == "median":
        print("%.1f" % (b["cpu_time"] * {"ns":1e-3,"us":1,"ms":1e3}[b["time_unit"]]), end=" ")'
  done
  echo " us CPU per iteration (each process's median of its repetitions)  <- $label"
}
alone='^bufgrow/additive/size:262144/'
after='^bufgrow/(httpcore|additive)/size:(65536|262144|1048576|4194304)/'
after16='^bufgrow/(httpcore|additive)/size:(65536|262144|1048576|4194304|16777216)/'
run "additive alone" "$alone" X=1
run "after httpcore to 4 MiB" "$after" X=1
run "after httpcore to 16 MiB" "$after16" X=1
run "alone, threshold fixed" "$alone" MALLOC_MMAP_THRESHOLD_=131072
run "after httpcore to 4 MiB, threshold fixed" "$after" MALLOC_MMAP_THRESHOLD_=131072
run "after httpcore to 16 MiB, threshold fixed" "$after16" MALLOC_MMAP_THRESHOLD_=131072

"""hotbench.gate - the CI regression gate: measure, record a baseline, compare, export.

What it measures, the rows it divides by and the series it fits come from the manifest
(docs/manifest.md): each group's gate.select and gate.ir_select, its yardstick, its views and its
strategies' declared complexity. The gate names no case and never reads C source; a new case is
measured, compared and reported by the same code.

One module per job (scripts/gate.py is the entry point; its commands are in cli):
  settings     what a measurement runs: the fixed settings and the selection from the manifest
  measurement  a measurement directory read back (run*.json through hotbench.runjson)
  measure      the timed runs, the confirmation run, the environment's fingerprint
  callgrind    instructions per iteration under valgrind's callgrind
  stats        the statistics the checks share: log medians, ratios to the yardstick, series
  speed        check 1: relative speed
  complexity   check 2: the declared class, the budget at production size, new skips
  instructions check 3: instruction counts
  verdict      one row per benchmark from every check, the table, the environment's warnings
  export       Bencher Metric Format
  cli          the commands ci, baseline, measure, compare

Times are the CPU times of the benchmark's thread (google-benchmark's cpu_time, which includes the
kernel's time on that thread: page faults too), not wall-clock times: on a shared 2-core VM the
wall time doubles whenever another process takes the core. Between the two runs of the baseline,
recorded on this project's VM while other jobs ran, the median change of a benchmark was 79% in
wall time and 2.7% in CPU time; the median spread within a run, 6.0% and 0.8%.

numpy and scipy: run under Debian's /usr/bin/python3.
"""

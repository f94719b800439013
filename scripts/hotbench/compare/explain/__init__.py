"""hotbench.compare.explain - where a change is (issue 32): per-function differential profiles
of two builds of one benchmark.

  profile.py   one benchmark of one binary under callgrind, as the compare's instruction check
               runs it (one iteration, the fixed hash salts, the compare's environment)
  callgrind.py a reader of callgrind's documented output format (per function exclusive and
               inclusive cost, file:line, caller -> callee edges)
  diff.py      the differential table: the 8 functions whose exclusive cost changed most,
               new/gone marked
  folded.py    folded stacks from the call graph (a callee's cost shared among its callers in
               proportion to the calls' inclusive costs, gprof's rule; cycles cut)
  flame.py     the differential flame graph, a static SVG with hover titles
  perf.py      perf's sampled stacks, the second source where time decided a row
  core.py      one benchmark explained: the profiles, the table, the folded files, the SVG
  hook.py      the compare's step: the strategies regressed or improved, nothing otherwise
  merged.py    make bench-ci-merge's: the shards' explanations of what is still regressed
  report.py    the tables as Markdown (compare.md, explain.md) and console lines
  cli.py       scripts/explain.py: `make explain BASE=... HEAD=... FILTER=...`

Choices (docs/compare.md, "Where: the explanation"):
- callgrind's output is read by our own reader of its documented format (Valgrind Technical
  Documentation, ch. 3 "Callgrind Format Specification"), not by parsing callgrind_annotate's
  report for people; see callgrind.py.
- The flame graph is drawn by hand: no Debian 12 or 13 package offers a flame graph tool or
  library (apt-cache search flamegraph, flame-graph, inferno, speedscope, d3-flame-graph,
  gprof2dot: none; libjs-d3 would need a script and a copy of d3 beside every SVG); see flame.py.
"""

# hotbench - the front door. `make test` proves it, `make bench` runs it.
#   make            build the tools (build/hotbench, build/hotbench-gen, build/hotbench-decode)
#   make test       install missing packages, then build two trees at once, with -Werror
#                   (build-test/) and under ASan + UBSan (build-asan/), and run every test in
#                   both at once, ctest -j by core count (lines prefixed "test:" and "asan:"):
#                   the unit and CLI tests, every benchmark once on small inputs, the engine's
#                   self-tests. What CI runs. TEST_ARGS passes ctest options to both, e.g.
#                   TEST_ARGS='-L engine' (labels: unit, cli, smoke, engine)
#   make check      the everyday loop after an edit: an incremental build of build-test/ and its
#                   unit and CLI tests (ctest -L 'unit|cli'), under a minute
#   make bench      calibrate, then every part: the in-process suite with the 1.7 GB payloads
#                   (results/runs/<time>-<sha>.json), the whole-process runs, the peers when
#                   installed, then the report; results/bench-status.json records each part
#                   (scripts/bench.py --help). Exits non-zero when a part failed.
#   make bench-quick  the same recording path with hotbench's quick profile (no 1.7 GB inputs),
#                   then the report
#   make report     results/REPORT.md and its charts (results/charts/) from the latest run
#   make reference  copy the latest run into results/reference/ and write its report there
#   make clean      remove the build trees (generated inputs in data/ are kept)
#   make new-case NAME=<name>  a minimal working case in cases/<name>/ from templates/case/, and
#                   its line in cases/cases.def (docs/adding-a-case.md)
#   make fuzz       the differential fuzz targets (fuzz/README.md) built with clang + libFuzzer
#                   (ASan + UBSan) in build-fuzz/, each run FUZZ_SECONDS (default 300) seconds;
#                   prints per target executions, coverage (cov/ft) and any finding with its crash
#                   file (build-fuzz/findings/); exits 1 on a finding. FUZZ_TARGETS='dechunk
#                   volumes' runs only those (fuzz/run.sh --help). `make test` replays the
#                   committed corpora without libFuzzer.
#   make fuzz-coverage  line coverage of each decoder file by the fuzz corpora (llvm-cov)
BUILD      ?= build
TEST_BUILD ?= build-test
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_GEN   = cmake -S . -DCMAKE_BUILD_TYPE=RelWithDebInfo
# Extra arguments for hotbench in `make bench`, e.g. BENCH_ARGS='--benchmark_filter=bufgrow/'
BENCH_ARGS ?=
# No "Entering directory" lines from the recursive makes
MAKEFLAGS += --no-print-directory
# Where `make report` writes REPORT.md and charts/ (results/reference holds the committed one)
REPORT_DIR ?= results

.PHONY: all deps build test bench bench-quick report reference clean

all: build

deps:
	@scripts/deps.sh

build: deps
	@$(CMAKE_GEN) -B $(BUILD) -DHB_TESTS=OFF >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The two test trees are independent: make -j2 configures, builds and tests them at the same
# time (a core idles less: each ctest waits on its slowest tests). Each tree's lines carry its
# name; ctest's summary of each ends its block. Both run to the end; either failing fails.
TEST_ARGS ?=
TEST_TREES = test-tree-test test-tree-asan
test-tree-test: TREE = $(TEST_BUILD)
test-tree-test: TREE_FLAGS = -DHB_WERROR=ON -DHB_TEST_HOOKS=ON -DHB_SANITIZE=OFF
test-tree-test: TAG = test
test-tree-asan: TREE = $(ASAN_BUILD)
test-tree-asan: TREE_FLAGS = -DHB_WERROR=ON -DHB_TEST_HOOKS=OFF -DHB_SANITIZE=ON
test-tree-asan: TAG = asan
.PHONY: check $(TEST_TREES)
$(TEST_TREES): SHELL := /bin/bash

test: deps
	@$(MAKE) -j2 -k $(TEST_TREES)

$(TEST_TREES):
	@set -o pipefail; { $(CMAKE_GEN) -B $(TREE) $(TREE_FLAGS) >/dev/null && \
	    cmake --build $(TREE) -j $(JOBS) && echo "$(TREE) built in $$SECONDS s" && \
	    ctest --test-dir $(TREE) -j $(JOBS) --output-on-failure $(TEST_ARGS) && \
	    echo "$(TREE) built and tested in $$SECONDS s"; } 2>&1 | sed -u 's/^/$(TAG): /'

# configured when build-test/ has no Makefile yet (a configure that failed, e.g. on a missing
# package, leaves CMakeCache.txt but no Makefile)
check:
	@test -e $(TEST_BUILD)/Makefile || \
	    $(CMAKE_GEN) -B $(TEST_BUILD) -DHB_WERROR=ON -DHB_TEST_HOOKS=ON >/dev/null
	@cmake --build $(TEST_BUILD) -j $(JOBS)
	@ctest --test-dir $(TEST_BUILD) -j $(JOBS) -L '^(unit|cli)$$' --output-on-failure $(TEST_ARGS)

bench: build
	@/usr/bin/python3 scripts/bench.py --profile full --build $(BUILD) \
	    --e2e-args='$(E2E_ARGS)' -- $(BENCH_ARGS)

bench-quick: build
	@/usr/bin/python3 scripts/bench.py --profile quick --build $(BUILD) -- $(BENCH_ARGS)

report: deps
	@/usr/bin/python3 scripts/report.py --out $(REPORT_DIR)

# The committed reference: the latest run's JSON files copied into results/reference/ (so the
# report there can be regenerated from what is committed: run, e2e, peers, the allocator
# matrix as alloc.json and the instruction counts as limits.json) and its report written beside
# them; the last bench-status.json too
# (bench-status-quick.json from a quick run), whose durations the report's environment states.
reference: deps
	@test -e results/latest.json || { echo "make reference: no run yet: make bench first" >&2; exit 1; }
	@mkdir -p results/reference
	cp -L results/latest.json results/reference/run.json
	@if [ -e results/e2e-latest.json ]; then cp -L results/e2e-latest.json results/reference/e2e.json; fi
	@if [ -e results/peers-latest.json ]; then cp -L results/peers-latest.json results/reference/peers.json; fi
	@if [ -e results/latest-alloc.json ]; then cp -L results/latest-alloc.json results/reference/alloc.json; fi
	@if [ -e results/limits.json ]; then cp -L results/limits.json results/reference/limits.json; fi
	@# the durations record the next runs' estimates scale (scripts/bench.py --help)
	@if [ -e results/bench-status.json ]; then \
	    p=$$(/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["profile"])' \
	         <results/bench-status.json) && \
	    n=bench-status$$([ "$$p" = full ] || echo "-$$p").json && \
	    cp results/bench-status.json results/reference/$$n && echo "results/reference/$$n"; fi
	@rm -rf results/reference/charts
	@st=results/reference/bench-status.json; al=results/reference/alloc.json; \
	/usr/bin/python3 scripts/report.py --run results/reference/run.json \
	    --e2e results/reference/e2e.json --peers results/reference/peers.json \
	    --alloc "$$([ -e $$al ] && echo $$al)" $$([ -e $$st ] && echo --status=$$st) \
	    --limits "$$([ -e results/reference/limits.json ] && echo results/reference/limits.json)" \
	    --out results/reference

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(ASAN_BUILD)

# --- peers (issue 7): the real libraries of the three incidents, on the C models' inputs --------
#   make bench-peers   Apache httpcore 4.4 + a JDK >= 17, java.time, Ruby's Ox/LibXML/Nokogiri/
#                      REXML and Python's ElementTree, each checked against the C reference, then timed
#                      (in-process and with hyperfine); writes results/runs/<time>-<sha>-peers.json
#                      and results/peers-latest.json. Needs `scripts/deps.sh --peers`; ~8 minutes,
#                      ~3 GB more of inputs in data/peers/ and a 6 GiB Java heap.
.PHONY: bench-peers
bench-peers: build
	@/usr/bin/python3 scripts/peers.py --build $(BUILD)

# --- the CI regression gate (issues 6, 13): two revisions compared on this machine --------------
#   make compare BASE=<rev> [HEAD=<rev>] [FILTER=<regex>]
#                   builds each revision once (build-rev/<commit>/, cached; HEAD defaults to the
#                   working tree), runs the same benchmarks from both in randomized, interleaved
#                   ABBA blocks of short processes, confirms every suspected slowdown in more
#                   blocks, counts instructions of both under callgrind, and prints per benchmark
#                   the CPU time head/base with its 95% interval, a verdict and the check that
#                   decided; exits 1 only on a confirmed regression, 3 when a revision does not
#                   build (named with its first compiler error: docs/compare.md). Writes
#                   results/runs/<UTC>-compare/. COMPARE_ARGS passes options (scripts/compare.py
#                   --help).
#   make bench-ci   the compare of $$HB_BASE (a pull request's base), else HEAD's first parent,
#                   against the working tree; on a history of one commit (nothing to compare
#                   against) it says so, records the head's run into the history and exits 0.
#                   What .ci/run runs. SHARD=i/N measures only the
#                   i-th of N parts of the selection (whole strategies, balanced by their expected
#                   time from results/reference/run.json), one CI runner's part.
#   make bench-ci-merge SHARDS="DIR DIR..."
#                   joins the N shards' compare folders into one compare (Holm's correction over
#                   all their tests): compare.json, compare.md, bmf.json, gab.json in
#                   results/runs/<UTC>-compare/ or COMPARE_ARGS="--out DIR". Refuses shards of
#                   other selections, revisions, binaries or settings (exit 2, naming the
#                   difference); exits 1 on a regressed or failed row, 2 with verdict
#                   `incomplete` when a shard is missing (docs/compare.md, Shards).
# The gate builds its own tree (CI_BUILD): release flags, no test hooks, no sanitizers.
CI_BUILD  ?= build-ci
COMPARE_ARGS ?=
SHARD ?=
SHARDS ?=
.PHONY: bench-ci bench-ci-merge build-ci compare

build-ci: deps
	@$(CMAKE_GEN) -B $(CI_BUILD) -DHB_TESTS=OFF -DHB_TEST_HOOKS=OFF -DHB_SANITIZE=OFF >/dev/null
	@cmake --build $(CI_BUILD) -j $(JOBS)

bench-ci: build-ci
	@/usr/bin/python3 scripts/compare.py --ci --head-build $(CI_BUILD) \
	    $(if $(SHARD),--shard "$(SHARD)") $(COMPARE_ARGS)

bench-ci-merge:
	@test -n "$(SHARDS)" || { echo "make bench-ci-merge: give SHARDS=\"DIR DIR...\", the" \
	    "shards' compare folders (docs/compare.md, Shards)" >&2; exit 2; }
	@/usr/bin/python3 scripts/compare_merge.py $(SHARDS) $(COMPARE_ARGS)

# BASE, HEAD and FILTER reach the script through the environment: no shell quoting to break
compare: export HB_COMPARE_BASE := $(value BASE)
compare: export HB_COMPARE_HEAD := $(value HEAD)
compare: export HB_COMPARE_FILTER := $(value FILTER)
compare: deps
	@test -n "$$HB_COMPARE_BASE" || { echo "make compare: give BASE=<revision>, e.g." \
	    "make compare BASE=HEAD~1 (docs/compare.md)" >&2; exit 2; }
	@/usr/bin/python3 scripts/compare.py --base "$$HB_COMPARE_BASE" \
	    $${HB_COMPARE_HEAD:+--head "$$HB_COMPARE_HEAD"} \
	    $${HB_COMPARE_FILTER:+--filter "$$HB_COMPARE_FILTER"} $(COMPARE_ARGS)

# --- where a change is (issue 32): per-function profiles of two revisions --------------------
#   make explain BASE=<rev> [HEAD=<rev>] FILTER=<regex> [HOOKS=1]
#                   builds both revisions as make compare does (build-rev/<commit>/, cached; HEAD
#                   defaults to the working tree) and, per strategy FILTER selects, profiles its
#                   smallest selected size in both under callgrind (one iteration, the compare's
#                   fixed hash salts): the functions whose instructions changed most (at most 8:
#                   file:line, base, head, change, new/gone) and a differential flame graph
#                   explain/<group>/<strategy>.svg (width: the head's cost; red more, blue less),
#                   into results/runs/<UTC>-explain/ (explain.md, explain.json); seconds per
#                   strategy on small sizes. HOOKS=1 builds with the test injections.
#                   EXPLAIN_ARGS passes options (scripts/explain.py --help), e.g. --perf. A
#                   compare does the same by itself for each strategy regressed or improved.
# The values reach the script through the environment: no shell quoting to break.
EXPLAIN_ARGS ?=
.PHONY: explain
explain: export HB_EXPLAIN_BASE := $(value BASE)
explain: export HB_EXPLAIN_HEAD := $(value HEAD)
explain: export HB_EXPLAIN_FILTER := $(value FILTER)
explain: export HB_EXPLAIN_HOOKS := $(value HOOKS)
explain: deps
	@test -n "$$HB_EXPLAIN_BASE" && test -n "$$HB_EXPLAIN_FILTER" || { echo "make explain: give" \
	    "BASE=<revision> and FILTER=<regex>, e.g. make explain BASE=HEAD~1 FILTER='^<group>/'" \
	    "(docs/compare.md, Where)" >&2; exit 2; }
	@/usr/bin/python3 scripts/explain.py --base "$$HB_EXPLAIN_BASE" \
	    $${HB_EXPLAIN_HEAD:+--head "$$HB_EXPLAIN_HEAD"} --filter "$$HB_EXPLAIN_FILTER" \
	    $$(case "$$HB_EXPLAIN_HOOKS" in ''|0) ;; *) echo --hooks ;; esac) $(EXPLAIN_ARGS)

# --- whole-process runs (issue 5): hyperfine times the tools as processes ----------------------
#   make bench-e2e     hotbench-gen at its default sizes and hotbench-decode on the 1.7 GB bodies
#                      (every strategy but the quadratic and skipped ones), the 100k timestamps
#                      and the 300 x 20 response, outputs checked first; writes results/runs/<time>-<sha>-e2e.json
#                      and results/e2e-latest.json. 7 minutes in the reference run; `make bench` runs
#                      it after the in-process suite (a failure is recorded in
#                      results/bench-status.json; the peers and the report still run).
#                      Options: E2E_ARGS='--runs 5' (see scripts/e2e.sh --help).
E2E_ARGS ?=
.PHONY: bench-e2e
bench-e2e: build
	@scripts/e2e.sh $(E2E_ARGS) $(BUILD)

# --- the allocator matrix (issue 16): glibc, jemalloc, mimalloc, tcmalloc on the rows the cases
#   select (alloc_select in their case.c; docs/allocators.md) ----------------------------------
#   make bench-alloc   hotbench once per allocator (--hb_allocator=NAME, every benchmark verified
#                      under it first), one combined results/runs/<time>-<sha>.alloc.json and
#                      results/latest-alloc.json, then the report (its Allocators section). About
#                      5 minutes on an idle 2-vCPU VM; an allocator not installed is skipped with
#                      its Debian package named. ALLOC_ARGS='--long' adds the rows that take
#                      minutes each there (1 GiB and more: scripts/bench_alloc.py --help).
ALLOC_ARGS ?=
.PHONY: bench-alloc
bench-alloc: build
	@/usr/bin/python3 scripts/bench_alloc.py --build $(BUILD) $(ALLOC_ARGS)
	@/usr/bin/python3 scripts/report.py --out $(REPORT_DIR)

# --- what limits the fast strategies now (issue 17, item 4) -----------------------------------
#   make limits     for every group whose case.c gives limits (docs/manifest.md): hotbench under
#                   valgrind's callgrind (--branch-sim=yes) on the probe row of the fast strategy
#                   and of its ceiling, one iteration each: instructions, branches and simulated
#                   branch misses per byte and per item, into results/limits.json
#                   (hotbench-limits/1); `make report` puts them in each group's "What limits
#                   it now" paragraph beside the run's medians. Seconds on a 2-vCPU VM.
#                   LIMITS_ARGS passes options (scripts/limits.py --help).
LIMITS_ARGS ?=
.PHONY: limits
limits: build
	@/usr/bin/python3 scripts/limits.py --build $(BUILD) $(LIMITS_ARGS)

# --- a new case (issue 12): cases/<name>/ from templates/case/ plus one line in cases/cases.def --
.PHONY: new-case
# NAME reaches the script through the environment: no shell quoting to break (NAME="a'b")
new-case: export HB_NEW_CASE_NAME := $(NAME)
new-case:
	@templates/new-case.sh "$$HB_NEW_CASE_NAME"

# --- fuzzing (issue 15): fuzz/run.sh and fuzz/coverage.sh --------------------------------------
# FUZZ_SECONDS, FUZZ_TARGETS and FUZZ_ARGS reach the scripts through the environment.
FUZZ_SECONDS ?= 300
.PHONY: fuzz fuzz-coverage
fuzz: export FUZZ_SECONDS := $(FUZZ_SECONDS)
fuzz: export FUZZ_TARGETS := $(FUZZ_TARGETS)
fuzz: deps
	@scripts/deps.sh --fuzz
	@JOBS=$(JOBS) fuzz/run.sh

fuzz-coverage: export FUZZ_TARGETS := $(FUZZ_TARGETS)
fuzz-coverage: deps
	@scripts/deps.sh --fuzz
	@JOBS=$(JOBS) fuzz/coverage.sh

# --- the compare's detection power (scripts/gate_power.py) --------------------------------------
#   make gate-power  slows one strategy per case down by 0, 3, 5, 10 and 20% (the test hook
#                    HB_INJECT=slowdown:<fraction>, in make test's build-test, built when absent)
#                    and runs the interleaved compare (scripts/compare.py's engine) 20 times
#                    unchanged and 10 times per level; writes results/gate-power/<label>.md and
#                    .json: detections, false alarms, minutes per compare, the machine's load, and
#                    the goals (>= 9/10 at 5%, no false regressed row unchanged, <= 10 minutes per
#                    compare) with pass/fail. Hours on 2 cores; resumes where it stopped.
#                    GATE_POWER_ARGS='--load 2' measures under 2 busy processes (label loaded);
#                    scripts/gate_power.py --help lists the options.
GATE_POWER_ARGS ?=
.PHONY: gate-power
gate-power: deps
	@/usr/bin/python3 scripts/gate_power.py --build $(TEST_BUILD) $(GATE_POWER_ARGS)

# --- bisect: the first commit that made a benchmark slower -------------------------------------
#   make bisect GOOD=<rev> BAD=<rev> FILTER=<regex> [HOOKS=1] [ROUNDS=N]
#                   git bisect between GOOD (an ancestor of BAD) and BAD without touching the
#                   working tree; each step compares its commit with GOOD (scripts/compare.py
#                   --filter FILTER: one to a few benchmarks) and is good, bad, or skipped when
#                   it does not build (listed with its compiler error). Prints the first bad
#                   commit with its ratio and CI, or the candidates when skips hide it; keeps
#                   each compare in results/runs/<UTC>-bisect/<commit>/ (bisect.json: the
#                   steps). HOOKS=1 builds with the test injections (compare.py --hooks).
#                   Ends with the explain table of the first bad commit against GOOD (make
#                   explain's, in OUT/explain/); the steps' compares skip theirs.
#                   BISECT_ARGS passes more options (scripts/perf_bisect.py --help), COMPARE_ARGS
#                   options to every compare (scripts/compare.py --help), e.g.
#                   COMPARE_ARGS=--no-complexity.
# The values reach the script through the environment, unexpanded: no shell quoting to break
# and a '$' in FILTER stays a '$' (FILTER='^rfc3339/swar$').
.PHONY: bisect
bisect: export HB_BISECT_GOOD := $(value GOOD)
bisect: export HB_BISECT_BAD := $(value BAD)
bisect: export HB_BISECT_FILTER := $(value FILTER)
bisect: export HB_BISECT_ROUNDS := $(value ROUNDS)
bisect: export HB_BISECT_HOOKS := $(value HOOKS)
bisect: deps
	@/usr/bin/python3 scripts/perf_bisect.py --good "$$HB_BISECT_GOOD" --bad "$$HB_BISECT_BAD" \
	    --filter "$$HB_BISECT_FILTER" $${HB_BISECT_ROUNDS:+--rounds "$$HB_BISECT_ROUNDS"} \
	    $$(case "$$HB_BISECT_HOOKS" in ''|0) ;; *) echo --hooks ;; esac) $(BISECT_ARGS) \
	    -- $(COMPARE_ARGS)

# --- history (issue 14) ---
#   make history-import [FILES='a.json results/runs/X-compare other/history.sqlite']
#                   records run JSON files, compare folders and other runners' history.sqlite
#                   files (merged, each run once) into results/history.sqlite; default
#                   results/runs/*.json and results/runs/*-compare/. A corrupt or foreign file is
#                   refused, named with the reason, and leaves nothing behind (exit 1).
#   make history-run REVS=<A>..<B> [FILTER=<regex>]
#                   builds each commit after A up to B (first parents, oldest first) in a git
#                   worktree cached in build-rev/<commit>/ (the compare's), runs it on the
#                   cases' gate.select (or FILTER) and records it (kind 'backfill'); a line per
#                   commit with the elapsed and remaining time; 2-2.5 min per commit measured on
#                   the shared 2-vCPU VM under load 5-6, 1:37 at load 1.5-3. Resumes:
#                   commits recorded for this machine and selection are skipped. A commit that
#                   does not build is reported `not built` with its first compiler error and
#                   the next goes on (exit 3 at the end when none failed otherwise).
# `make bench`, `make bench-quick`, `make compare` and `make bench-ci` append their own run.
# HISTORY_ARGS passes options (scripts/history.py run --help, ... import --help), e.g.
# HISTORY_ARGS='--repetitions 5 --history /tmp/h.sqlite'; $HB_HISTORY names the database too
# (docs/history.md).
HISTORY_ARGS ?=
.PHONY: history-import history-run
# FILES, REVS and FILTER reach the script through the environment: no shell quoting to break
history-import: export HB_HISTORY_FILES := $(value FILES)
history-import:
	@/usr/bin/python3 scripts/history.py import $(HISTORY_ARGS) $${HB_HISTORY_FILES}

history-run: export HB_HISTORY_REVS := $(value REVS)
history-run: export HB_HISTORY_FILTER := $(value FILTER)
history-run: deps
	@test -n "$$HB_HISTORY_REVS" || { echo "make history-run: give REVS=<A>..<B>, e.g." \
	    "make history-run REVS=HEAD~3..HEAD (docs/history.md)" >&2; exit 2; }
	@/usr/bin/python3 scripts/history.py run $(HISTORY_ARGS) "$$HB_HISTORY_REVS" \
	    $${HB_HISTORY_FILTER:+--filter "$$HB_HISTORY_FILTER"}

# --- history page (issue 14) ---
#   make history    results/history/index.html from results/history.sqlite: one chart per
#                   benchmark over commits (median and spread per commit, machine changes
#                   marked) and the change points E-divisive means finds, listed on top with their
#                   commit, shift and permutation p-value (docs/history-page.md). Static: no script,
#                   no network. HISTORY_PAGE_ARGS passes options, e.g. '--metric real_time
#                   --filter ^rfc3339/ --alpha 0.05' (scripts/history.py page --help).
HISTORY_PAGE_ARGS ?=
.PHONY: history
history: deps
	@/usr/bin/python3 scripts/history.py page $(HISTORY_PAGE_ARGS)

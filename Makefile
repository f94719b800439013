# hotbench - the front door. `make test` proves it, `make bench` runs it.
#   make            build the tools (build/hotbench, build/hotbench-gen, build/hotbench-decode)
#   make test       install missing packages, build with -Werror, run the unit and CLI tests and
#                   every benchmark once on small inputs; then the same tests under ASan + UBSan
#   make bench      the full suite with the 1.7 GB payloads; writes results/runs/<time>-<sha>.json
#   make clean      remove the build trees (generated inputs in data/ are kept)
BUILD      ?= build
TEST_BUILD ?= build-test
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_GEN   = cmake -S . -DCMAKE_BUILD_TYPE=RelWithDebInfo
# Extra arguments for hotbench in `make bench`, e.g. BENCH_ARGS='--benchmark_filter=bufgrow/'
BENCH_ARGS ?=

.PHONY: all deps build test bench clean

all: build

deps:
	@scripts/deps.sh

build: deps
	@$(CMAKE_GEN) -B $(BUILD) -DHB_TESTS=OFF >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: deps
	@$(CMAKE_GEN) -B $(TEST_BUILD) -DHB_WERROR=ON >/dev/null
	@cmake --build $(TEST_BUILD) -j $(JOBS)
	cd $(TEST_BUILD) && ctest --output-on-failure
	@$(CMAKE_GEN) -B $(ASAN_BUILD) -DHB_WERROR=ON -DHB_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure

bench: build
	@scripts/bench.sh $(BUILD)/hotbench $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(ASAN_BUILD)

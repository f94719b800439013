#!/usr/bin/env bash
# test_cli_hotbench.sh BINDIR SRCDIR - the runner's contract: exit status, skips, verification
# failures, the JSON it writes (context, Big-O rows). Ends with "N passed, M failed".
set -u
bin=$1/hotbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HB_DATA_DIR=$work/data
pass=0
fail=0
check() { # name, then a command that must succeed
    local name=$1
    shift
    if "$@"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $name" >&2
    fi
}
run() { # args...: runs hotbench, keeps stdout+stderr in $work/out and the status in $status
    "$bin" --benchmark_min_time=0.001 "$@" >"$work/out" 2>&1
    status=$?
}

run --hb_profile=smoke --benchmark_filter='^bufgrow/(exact|httpcore)/' \
    --benchmark_out="$work/run.json"
check "smoke run exits 0" test "$status" -eq 0
check "json written" test -s "$work/run.json"
check "json context and Big-O rows" /usr/bin/python3 - "$work/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ctx = d["context"]
for k in ("hb_git_revision", "hb_compiler", "hb_build_flags", "hb_benchmark_version",
          "zlib_version", "expat_version", "bufgrow_seed", "bufgrow_chunk_size"):
    assert ctx.get(k), k
names = [b["name"] for b in d["benchmarks"]]
assert "bufgrow/exact/real_time_BigO" in names, names
assert any(n.startswith("bufgrow/httpcore/size:65536/read:4096") for n in names), names
for b in d["benchmarks"]:
    if b["run_type"] == "iteration":
        assert not b.get("error_occurred"), b
        assert b["bytes_per_second"] > 0 and "bytes_copied_per_byte" in b, b
PY

HB_TEST_CORRUPT=doubling run --hb_profile=smoke --benchmark_filter='^bufgrow/doubling/'
check "a wrong answer exits 1" test "$status" -eq 1
check "a wrong answer is named" grep -q "error: result differs from the reference: crc32" "$work/out"
check "a wrong answer is not timed" bash -c "! grep -E '^bufgrow/doubling/size:[0-9]+/read:4096/real_time +[0-9]' '$work/out'"
check "all sizes failing does not crash" grep -q "FAILED and were not timed" "$work/out"

run --hb_profile=smoke --hb_max_memory=100K --benchmark_filter='^bufgrow/exact/size:262144/' \
    --benchmark_out="$work/memory.json"
check "memory refusal exits 0" test "$status" -eq 0
check "memory refusal says why" grep -q "skipped: needs 0.000262 GB at its peak" "$work/out"
check "memory refusal carries its figures" /usr/bin/python3 - "$work/memory.json" <<'PY'
import json, sys
rows = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b.get("error_occurred")]
assert rows, "no skipped row"
for b in rows:
    assert b["hb_peak_bytes"] == 262144 and b["hb_memory_limit_bytes"] == 100000, b
    assert "hb_predicted_s" not in b and "hb_budget_s" not in b, b
PY

run --hb_profile=full --benchmark_filter='^bufgrow/httpcore/size:1700000000/'
check "budget skip without a smaller size exits 0" test "$status" -eq 0
check "budget skip predicts" grep -qE "skipped: predicted [0-9.e+]+ s > budget 10 s" "$work/out"

# The budget binds only quadratic strategies (the registry's complexity 2): with a tiny budget on
# the smoke profile, those are skipped with the budget message, every other row runs.
run --hb_profile=smoke --hb_budget=0.000001 --benchmark_filter='^bufgrow' \
    --benchmark_out="$work/budget.json"
check "tiny budget exits 0" test "$status" -eq 0
check "tiny budget: quadratic skipped, linear and baselines run" /usr/bin/python3 - "$work/budget.json" <<'PY'
import json, sys
quadratic = {"httpcore", "additive", "httpcore-heap"}  # complexity 2 in hb_sink_strategies[]
seen = set()
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["run_type"] != "iteration":
        continue
    strategy = b["name"].split("/")[1]
    seen.add(strategy)
    if strategy in quadratic:
        assert b.get("error_occurred") and b["error_message"].startswith(
            "skipped: predicted") and "> budget 1e-06 s" in b["error_message"], b
        # the figures as numbers (docs/manifest.md, "Fields of a run's rows")
        assert b["hb_budget_s"] == 1e-06 and b["hb_predicted_s"] > 1e-06, b
        assert "hb_peak_bytes" not in b, b
    else:
        assert not b.get("error_occurred"), b
assert quadratic < seen and {"memcpy", "inflate", "doubling", "block-list"} < seen, seen
PY

# A refused tuple is refused alike in every repetition, with the same message and figures
# (harness/hb_case_run.h), whatever was measured between: three repetitions of quadratic rows
# under a tiny budget, and a memory limit refusing the larger size of a linear strategy.
run --hb_profile=smoke --hb_budget=0.000001 --hb_repetitions=3 \
    --benchmark_filter='^bufgrow/(additive|exact)/' --hb_max_memory=200000 \
    --benchmark_out="$work/again.json"
check "refusals repeated: exits 0 (no google-benchmark abort)" test "$status" -eq 0
check "refusals repeated: every repetition of a refused tuple alike" /usr/bin/python3 - \
    "$work/again.json" <<'PY'
import json, sys
rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["run_type"] == "iteration":
        rows.setdefault(b["name"], []).append(b)
assert len(rows) == 4 and all(len(r) == 3 for r in rows.values()), rows.keys()
skipped = 0
for name, reps in rows.items():
    first = reps[0]
    fig = {k: first.get(k) for k in ("error_message", "hb_predicted_s", "hb_peak_bytes",
                                     "hb_memory_limit_bytes")}
    for r in reps:
        assert bool(r.get("error_occurred")) == bool(first.get("error_occurred")), name
        assert {k: r.get(k) for k in fig} == fig, (name, r)
    skipped += bool(first.get("error_occurred"))
assert skipped >= 3, rows  # additive at both sizes (budget), exact at 256 KiB (memory)
PY

# --hb_progress: one JSON line per benchmark done, in the order of the run JSON's rows, each name
# once (its repetitions and aggregates are one benchmark), seconds never decreasing.
run --hb_profile=smoke --hb_repetitions=2 --benchmark_filter='^rfc3339/(simd|strptime)/' \
    --benchmark_out="$work/prog.json" --hb_progress="$work/prog.jsonl"
check "--hb_progress run exits 0" test "$status" -eq 0
check "--hb_progress lists each benchmark once, in order" /usr/bin/python3 - "$work/prog.json" \
    "$work/prog.jsonl" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["benchmarks"]
want = []
for b in runs:
    if b["run_type"] == "iteration" and b["run_name"] not in want:
        want.append(b["run_name"])
lines = [json.loads(l) for l in open(sys.argv[2])]
assert [l["row"] for l in lines] == want, (lines, want)
secs = [l["seconds"] for l in lines]
assert len(want) >= 2 and secs == sorted(secs) and secs[0] >= 0, secs
PY
run --hb_progress= --hb_profile=smoke
check "--hb_progress without a file name exits 2" test "$status" -eq 2
run --hb_progress="$work/no/such/dir/p.jsonl" --hb_profile=smoke --benchmark_filter='^rfc3339/'
check "--hb_progress to an unwritable path exits 2 and names it" \
    grep -q "hb_progress: cannot write $work/no/such/dir/p.jsonl" "$work/out"

# Calibration: one JSON object on stdout, positive figures, nothing run (values, not timings).
"$bin" --hb_calibrate >"$work/cal" 2>"$work/cal.err"
check "--hb_calibrate exits 0" test $? -eq 0
check "--hb_calibrate prints one JSON object" /usr/bin/python3 - "$work/cal" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
assert text.count("\n") == 1, text
d = json.loads(text)
assert d["schema"] == "hotbench-calibration/1", d
assert set(d) == {"schema", "first_touch_gbps", "warm_copy_gbps", "cpu_mops", "seconds"}, d
for k in ("first_touch_gbps", "warm_copy_gbps", "cpu_mops", "seconds"):
    assert isinstance(d[k], (int, float)) and d[k] > 0, (k, d)
PY
check "--hb_calibrate is silent on stderr" test ! -s "$work/cal.err"

# --hb_manifest and --hb_calibrate each print one JSON object: together they are a usage error
# (the calibration used to win silently), and so is an argument google-benchmark does not know.
"$bin" --hb_manifest --hb_calibrate >"$work/both" 2>"$work/both.err"
check "--hb_manifest --hb_calibrate exits 2, prints nothing" \
    bash -c "test $? -eq 2 && test ! -s '$work/both' && grep -q 'give one of them' '$work/both.err'"
for a in --benchmark_nosuch=1 stray; do
    for m in --hb_manifest --hb_calibrate; do
        "$bin" $m "$a" >"$work/unk" 2>"$work/unk.err"
        check "$m $a exits 2, prints nothing" bash -c "test $? -eq 2 && test ! -s '$work/unk'"
    done
done
"$bin" --hb_manifest --benchmark_list_tests --benchmark_filter=x >"$work/man" 2>&1
check "--hb_manifest with google-benchmark's flags prints the manifest" \
    bash -c "test $? -eq 0 && grep -q '^{\"schema\":\"hotbench-manifest/1\"' '$work/man'"

# The 32-bit cliff's announcement (full profile; its sizes refused by a tiny --hb_max_memory, so
# nothing big runs) is made when the benchmarks run and only then, however google-benchmark is
# told whether to list: --benchmark_list_tests=V as it reads V, the last one winning.
# arguments | 1 when they run the benchmarks (the note printed), 0 when they only list
while IFS='|' read -r args runs; do
    # shellcheck disable=SC2086 # the arguments are words
    run --hb_profile=full --hb_max_memory=1M --benchmark_filter='width:32/size:1072693248' $args
    note=$(grep -c "bufgrow-cliff width:32" "$work/out")
    check "cliff note with '$args': $runs (got $note)" test "$note" -eq "$runs"
done <<'ROWS'
|1
--benchmark_list_tests|0
--benchmark_list_tests=yes|0
--benchmark_list_tests=false|1
--benchmark_list_tests=off|1
--benchmark_list_tests=NO|1
--benchmark_list_tests=f|1
--benchmark_list_tests --benchmark_list_tests=off|1
ROWS

# Bad values: exit 2 and a message naming the flag. flag=value | message fragment
while IFS='|' read -r bad frag; do
    run "$bad"
    check "bad flag $bad exits 2" test "$status" -eq 2
    [ -z "$frag" ] || check "bad flag $bad: message" grep -q -- "$frag" "$work/out"
done <<'ROWS'
--hb_budget=0|--hb_budget wants seconds, more than 0 and at most 1e+06
--hb_budget=x|--hb_budget wants seconds
--hb_budget=1e999|--hb_budget wants seconds, more than 0 and at most 1e+06, not '1e999'
--hb_budget=inf|--hb_budget wants seconds
--hb_budget=nan|--hb_budget wants seconds
--hb_budget=-inf|--hb_budget wants seconds
--hb_budget=1e-999|--hb_budget wants seconds
--hb_budget=2e6|--hb_budget wants seconds
--hb_profile=huge|--hb_profile is full, quick or smoke
--hb_read=0|--hb_read wants bytes from 1 to 16777216
--hb_read=99999999999999999999|--hb_read wants bytes from 1 to 16777216
--hb_read=17M|--hb_read wants bytes from 1 to 16777216
--hb_repetitions=0|--hb_repetitions wants 1 to 1000
--hb_repetitions=99999999999999999999|--hb_repetitions wants 1 to 1000
--hb_max_memory=-1|--hb_max_memory wants bytes from 1 to 1125899906842624
--hb_max_memory=0|--hb_max_memory wants bytes from 1 to 1125899906842624
--hb_max_memory=99999999999999999999G|--hb_max_memory wants bytes from 1 to 1125899906842624
--hb_max_memory=2000000G|--hb_max_memory wants bytes from 1 to 1125899906842624
--hb_max_memory=1e9|--hb_max_memory wants bytes
--hb_max_memory=inf|--hb_max_memory wants bytes
--hb_nonsense=1|unknown option '--hb_nonsense=1'
--benchmark_nonsense|
ROWS
"$bin" --help >"$work/out" 2>&1
check "--help exits 0" test $? -eq 0
check "--help names hotbench flags" grep -q -- "--hb_budget" "$work/out"
check "--help names --hb_calibrate" grep -q -- "--hb_calibrate" "$work/out"
check "--help names google-benchmark flags" grep -q -- "--benchmark_filter" "$work/out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

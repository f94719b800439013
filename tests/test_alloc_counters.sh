#!/usr/bin/env bash
# test_alloc_counters.sh BINDIR SRCDIR - issue 16 items 1-2 on the runner's side: --hb_allocator
# (every allocator runs and names itself in the JSON context; missing and unknown ones exit 2)
# and the timed loop's counters in the rows (values in physically sensible bands, never timings).
# In a sanitizer build every allocator but glibc is refused (exit 2, the reason named): those
# runs print a SKIP line instead. Ends with "N passed, M failed".
set -u
src=$2
bin=$1/hotbench
# shellcheck source=tests/testlib.sh
. "$src/tests/testlib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HB_DATA_DIR=$work/data
unset HB_ALLOCATOR_DIR LD_PRELOAD
sanitized=0
case $(build_flags "$1") in *-fsanitize*) sanitized=1 ;; esac

# Counters of a filtered full-profile run: exact at 64 MiB (past glibc's largest mmap threshold,
# 32 MiB: every iteration's buffer is fresh pages) and a timestamp parse (no allocation).
"$bin" --hb_profile=full --hb_repetitions=1 --benchmark_min_time=0.001 \
    --benchmark_filter='^bufgrow/exact/size:67108864/|^rfc3339/simd/rows:1000/' \
    --benchmark_out="$work/counters.json" >"$work/out" 2>&1
check "counters run exits 0" test $? -eq 0
check "counters are sensible" /usr/bin/python3 - "$work/counters.json" "$sanitized" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sanitized = sys.argv[2] == "1"
rows = {b["name"].split("/")[0]: b for b in d["benchmarks"] if b["run_type"] == "iteration"}
assert set(rows) == {"bufgrow", "rfc3339"}, rows.keys()
grow, ts = rows["bufgrow"], rows["rfc3339"]
size = 67108864
# 4 KiB pages: 244 faults per 1e6 fresh bytes; huge pages or reuse: fewer, never 0 here (the
# buffer is fresh memory every iteration); more than 2 faults per page would be absurd.
assert 0.2 <= grow["minor_faults_per_mb"] <= 500, grow
assert abs(grow["minor_faults"] - grow["minor_faults_per_mb"] * size / 1e6) < 1e-6 * size, grow
assert grow["peak_rss_bytes"] >= size, grow
# the loop's own growth: the 64 MiB body it made resident, within 1 MiB below (what was resident
# at the start and freed during the loop, e.g. a read buffer) and 16 MiB above, never more than
# the whole-process peak
g = grow["peak_rss_growth_bytes"]
assert size - (1 << 20) <= g <= min(grow["peak_rss_bytes"], size + (16 << 20)), grow
assert 0 <= ts["peak_rss_growth_bytes"] < size, ts
# A parse touches no fresh page, but under ASan its stack frames may: gcc 14's libasan checks
# stack-use-after-return by default (ASAN_OPTIONS detect_stack_use_after_return, false in gcc
# 12's), frames on fake stacks of fresh pages: 0.42 faults per iteration of 1000 rows seen.
if not sanitized:
    assert ts["minor_faults"] < 1 and ts["minor_faults_per_mb"] < 1, ts
assert ts["peak_rss_bytes"] > 0, ts
how = d["context"]["hb_syscall_counts"]
calls = ("mmap_calls", "munmap_calls", "mremap_calls", "madvise_calls")
if how == "tracepoints":
    for k in calls:
        assert grow[k] >= 0 and ts[k] == 0, (k, grow, ts)
    assert grow["mmap_calls"] >= 1, grow  # glibc's malloc of 64 MiB maps it
else:
    assert how.startswith("unavailable: "), how
    assert not any(k in grow for k in calls), grow
PY

# Without the tracepoints (an unprivileged user: tracefs unreadable), the four *_calls are absent
# and the context says why; faults and peak memory remain.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    HB_DATA_DIR=/nonexistent setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" \
        --hb_profile=smoke --benchmark_min_time=0.001 --benchmark_filter='^rfc3339/simd/rows:100/' \
        --benchmark_format=json >"$work/nobody.json" 2>"$work/out"
    check "unprivileged run exits 0" test $? -eq 0
    check "unprivileged run: syscall counts unavailable" /usr/bin/python3 - "$work/nobody.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["context"]["hb_syscall_counts"].startswith("unavailable: "), d["context"]
rows = [b for b in d["benchmarks"] if b["run_type"] == "iteration"]
assert rows, d
for b in rows:
    assert "minor_faults" in b and not any(k.endswith("_calls") for k in b), b
PY
else
    echo "SKIP: the unprivileged run needs root and setpriv"
fi

# A skipped row carries no counters (its loop never ran).
"$bin" --hb_profile=smoke --hb_max_memory=100K --benchmark_min_time=0.001 \
    --benchmark_filter='^bufgrow/exact/size:262144/' --benchmark_out="$work/skip.json" \
    >"$work/out" 2>&1
check "skipped row has no counters" /usr/bin/python3 - "$work/skip.json" <<'PY'
import json, sys
rows = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["run_type"] == "iteration"]
assert rows and all(b.get("error_occurred") and "minor_faults" not in b for b in rows), rows
PY

# Every allocator: a smoke filter verified and timed, its name, version and library in the
# context; the library is a file of the multiarch folder matching the allocator's pattern (the
# versioned names a release ships: libmimalloc.so.2 on Debian 12, .so.3 on Debian 13).
# allocator | the library file's name, a glob
multiarch=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
while IFS='|' read -r name so; do
    "$bin" --hb_allocator="$name" --hb_profile=smoke --benchmark_min_time=0.001 \
        --benchmark_filter='volumes/|^bufgrow/(exact|realloc-doubling)/' \
        --benchmark_out="$work/$name.json" >"$work/out" 2>&1
    status=$?
    if [ "$sanitized" = 1 ] && [ "$name" != glibc ]; then
        echo "SKIP: --hb_allocator=$name in a sanitizer build (refused: ASan replaces malloc)"
        check "$name refused under ASan: exit 2" test "$status" -eq 2
        check "$name refused under ASan: reason" grep -q "not in a sanitizer build" "$work/out"
        continue
    fi
    check "$name smoke exits 0" test "$status" -eq 0
    check "$name named in the context" /usr/bin/python3 - "$work/$name.json" "$name" "$so" \
        "$sanitized" "$multiarch" <<'PY'
import fnmatch, json, os, sys
path, name, so, sanitized, multiarch = sys.argv[1:]
d = json.load(open(path))
ctx = d["context"]
assert ctx["hb_allocator"] == name, ctx
assert ctx["hb_allocator_version"], ctx
lib = ctx["hb_allocator_library"]
if sanitized == "0":  # under ASan its runtime serves malloc
    assert fnmatch.fnmatch(os.path.basename(lib), so) and os.path.isfile(lib), ctx
    if name != "glibc":  # the file the lookup chose in the multiarch folder
        assert os.path.samefile(os.path.dirname(lib), multiarch), (lib, multiarch)
rows = [b for b in d["benchmarks"] if b["run_type"] == "iteration"]
assert any(b["name"].startswith("volumes/") for b in rows), "no volumes row"
for b in rows:
    assert not b.get("error_occurred") and "minor_faults" in b and "peak_rss_bytes" in b, b
PY
done <<'ROWS'
glibc|libc.so.6
jemalloc|libjemalloc.so.*
mimalloc|libmimalloc.so.*
tcmalloc|libtcmalloc_minimal.so.*
ROWS

if [ "$sanitized" = 0 ]; then
    # The choice among several matches: the highest version named like a soname (.so.<N>),
    # compared as versions (10 > 2), not a longer name (.so.10.1) nor a text order.
    libs=("$multiarch"/libjemalloc.so.*)
    jemalloc=${libs[0]}
    mkdir "$work/libs"
    for v in 2 10 10.1 9.99; do ln -s "$jemalloc" "$work/libs/libjemalloc.so.$v"; done
    HB_ALLOCATOR_DIR=$work/libs "$bin" --hb_allocator=jemalloc --hb_profile=smoke \
        --benchmark_min_time=0.001 --benchmark_filter='^rfc3339/simd/rows:100/' \
        --benchmark_format=json >"$work/choice.json" 2>"$work/out"
    check "several matches: exits 0" test $? -eq 0
    check "several matches: the highest soname chosen and recorded" /usr/bin/python3 - \
        "$work/choice.json" "$work/libs/libjemalloc.so.10" <<'PY'
import json, sys
lib = json.load(open(sys.argv[1]))["context"]["hb_allocator_library"]
assert lib == sys.argv[2], lib
PY

    # A missing library: exit 2 naming the folder, the pattern and deps.sh's need (not in a
    # sanitizer build, which refuses earlier). name | pattern
    while IFS='|' read -r name pattern; do
        HB_ALLOCATOR_DIR=/nonexistent "$bin" --hb_allocator="$name" --hb_profile=smoke \
            --benchmark_filter='^rfc3339/simd/' >"$work/out" 2>&1
        check "missing $name exits 2" test $? -eq 2
        check "missing $name names the pattern and the need" grep -qF \
            "hotbench: --hb_allocator=$name: no /nonexistent/$pattern found; install $name's Debian library (scripts/deps.sh does, its need '$name')" \
            "$work/out"
    done <<'ROWS'
jemalloc|libjemalloc.so.*
mimalloc|libmimalloc.so.*
tcmalloc|libtcmalloc_minimal.so.*
ROWS
    # glibc chosen while another malloc is preloaded: refused rather than recorded as glibc.
    LD_PRELOAD=$jemalloc "$bin" --hb_profile=smoke --benchmark_filter='^rfc3339/simd/' \
        >"$work/out" 2>&1
    check "glibc under a preloaded malloc exits 2" test $? -eq 2
    check "glibc under a preloaded malloc: reason" grep -q "malloc is served by .*jemalloc" \
        "$work/out"
fi

# An unknown allocator: exit 2, the names listed, nothing run.
"$bin" --hb_allocator=hoard --hb_profile=smoke >"$work/out" 2>&1
check "unknown allocator exits 2" test $? -eq 2
check "unknown allocator lists the names" grep -q \
    "hotbench: --hb_allocator is one of glibc, jemalloc, mimalloc, tcmalloc, not 'hoard'" \
    "$work/out"
"$bin" --help >"$work/out" 2>&1
check "--help names --hb_allocator" grep -q -- "--hb_allocator=NAME" "$work/out"

summary

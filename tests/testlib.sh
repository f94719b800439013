# testlib.sh - what the shell tests share; source it after `set -u`:
#   check NAME CMD...   runs CMD; counts it in $pass, or in $fail printing "FAIL: NAME" on stderr
#   build_flags BINDIR  prints BINDIR/hotbench's build flags (the run context's hb_build_flags):
#                       "-fsanitize" in them means a sanitizer build, "HB_TEST_HOOKS" the test
#                       injections (harness/hb_testhook.h)
#   summary             prints "N passed, M failed" and returns non-zero on a failure
pass=0
fail=0

check() {
    local name=$1
    shift
    if "$@"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $name" >&2
    fi
}

build_flags() {
    "$1/hotbench" --hb_profile=smoke --benchmark_filter='^bufgrow/memcpy/size:65536/' \
        --benchmark_min_time=1e-9 --benchmark_format=json 2>/dev/null |
        /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["context"]
                             ["hb_build_flags"])'
}

summary() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

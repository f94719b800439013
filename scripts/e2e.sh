#!/usr/bin/env bash
# e2e.sh [options] [BUILD_DIR] - whole-process benchmarks of hotbench's tools with hyperfine.
# Run `scripts/e2e.sh --help` for the details; `make bench-e2e` runs it on build/.
set -uo pipefail

usage() {
    cat <<'EOF'
usage: scripts/e2e.sh [options] [BUILD_DIR]

Times whole processes of the tools in BUILD_DIR (default: build) with hyperfine: process
start-up, reading the input from the page cache, the work, writing the output. The
in-process figures of the same work come from `make bench` (google-benchmark); the report
sets the two side by side (scripts/e2e_report.py).

Groups, one hyperfine invocation each (commands run without a shell, hyperfine -N):
  gen-chunked    hotbench-gen chunked at its default size (1.7 GB), identity and --gzip,
                 written to a file on disk (DATA/e2e-out/, removed and `sync`ed before each
                 run, outside the timing; the page-cache write is timed, the device writeback
                 mostly is not); deleted at the end
  gen-small      hotbench-gen timestamps (100k rows) and volumes (300 x 20), same way
  dechunk        hotbench-decode dechunk --strategy S on the cached 1.7 GB identity body,
                 every strategy its --help lists except the quadratic ones (httpcore, httpcore-heap,
                 additive: predicted hours at 1.7 GB); exact gets --size-hint
  dechunk-gzip   the same with --gunzip on the cached gzip body
  rfc3339        hotbench-decode rfc3339 --strategy S for every strategy on the 100k-row set
                 (the millis strategies on the UNIX_MILLIS column of the same instants), and
                 one start-up run on an empty input
  volumes        hotbench-decode volumes --strategy S on the 300 x 20 response, every
                 strategy that decodes (memchr-scan and expat-count are not decoders)
Decoder output goes to /dev/null (hyperfine --output=null).

Before timing, each decode command is run once with its output checked (also warming the
page cache): dechunk against the crc32 and size in the cache's .info sidecar, rfc3339 and
volumes against the reference strategy's output (scalar; expat-typed). Each generator's last
output is compared with the cached input. A wrong answer or a non-zero exit fails the run
(hyperfine stops on a non-zero exit; -i is never used).

Inputs are generated if missing, deterministically, and cached in DATA: the chunked bodies
by `hotbench` itself (the cache `make bench` uses, with its .info sidecar), the others by
hotbench-gen.

Output: results/runs/<UTC time>-<git sha>-e2e.json (hyperfine's JSON of every group plus a
context block and, per command, case, strategy, input, input bytes, items and the
in-process benchmark it corresponds to), written through a temporary file and a rename;
results/e2e-latest.json points to it when every group succeeded.

options:
  --runs N           timed runs per command of the 1.7 GB groups (default 3)
  --warmup N         warm-up runs per command of the 1.7 GB groups (default 1)
  --small-runs N     timed runs per command of the small groups (default 30)
  --small-warmup N   warm-up runs per command of the small groups (default 3)
  --size N           decoded size of the chunked payload (default 1700000000, the incident;
                     e.g. 67108864 for a quick try on a smaller cached body)
  --only LIST        comma-separated groups to run (default: all)
  --data DIR         the input cache (default $HB_DATA_DIR, else data)
  --results DIR      where runs/ and e2e-latest.json go (default results)
  --no-verify        skip the output checks (the exit codes are still checked)
  -h, --help         this text

Takes about 10 minutes on a 2-vCPU VM with the defaults; mostly the 1.7 GB groups.
Exit status: 0 every group ran and every check passed; 1 a command failed or gave a wrong
answer (the JSON is kept, results/e2e-latest.json is not moved); 2 usage or a missing
prerequisite (build, hyperfine, python3).
EOF
}

die() { echo "e2e: $*" >&2; exit 2; }
log() { printf '[e2e %s +%4ss] %s\n' "$(date -u +%H:%M:%S)" "$((SECONDS - t0))" "$*" >&2; }

t0=$SECONDS
runs=3 warmup=1 small_runs=30 small_warmup=3 size=1700000000 only="" verify=1
data=${HB_DATA_DIR:-} # default: data/ at the top, like make bench
resdir=""
build=""
# The value of option $1, or a usage error (exit 2) when it has none.
optval() {
    if [ -z "$2" ] || [[ $2 == --* ]]; then
        echo "e2e: $1 needs a value (see --help)" >&2
        exit 2
    fi
    echo "$2"
}
while [ $# -gt 0 ]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --runs) runs=$(optval "$1" "${2-}") || exit 2; shift ;;
        --runs=*) runs=${1#*=} ;;
        --warmup) warmup=$(optval "$1" "${2-}") || exit 2; shift ;;
        --warmup=*) warmup=${1#*=} ;;
        --small-runs) small_runs=$(optval "$1" "${2-}") || exit 2; shift ;;
        --small-runs=*) small_runs=${1#*=} ;;
        --small-warmup) small_warmup=$(optval "$1" "${2-}") || exit 2; shift ;;
        --small-warmup=*) small_warmup=${1#*=} ;;
        --size) size=$(optval "$1" "${2-}") || exit 2; shift ;;
        --size=*) size=${1#*=} ;;
        --only) only=$(optval "$1" "${2-}") || exit 2; shift ;;
        --only=*) only=${1#*=} ;;
        --data) data=$(optval "$1" "${2-}") || exit 2; shift ;;
        --data=*) data=${1#*=} ;;
        --results) resdir=$(optval "$1" "${2-}") || exit 2; shift ;;
        --results=*) resdir=${1#*=} ;;
        --no-verify) verify=0 ;;
        -*) echo "e2e: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) [ -z "$build" ] || die "one BUILD_DIR only (see --help)"; build=$1 ;;
    esac
    shift
done
build=${build:-build}
for v in runs small_runs; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--${v//_/-} must be a positive integer"
done
for v in warmup small_warmup; do
    [[ ${!v} =~ ^[0-9]+$ ]] || die "--${v//_/-} must be a non-negative integer"
done
[[ $size =~ ^[1-9][0-9]*$ ]] || die "--size must be a decimal byte count"
groups_all="gen-chunked gen-small dechunk dechunk-gzip rfc3339 volumes"
if [ -n "$only" ]; then
    for g in ${only//,/ }; do
        [[ " $groups_all " == *" $g "* ]] || die "--only: unknown group '$g' (groups: $groups_all)"
    done
fi
want() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

top=$(cd "$(dirname "$0")/.." && pwd)
# paths given relative to where we were called from, shown relative to the top when inside it
here() {
    local p
    p=$(realpath -m -- "$1")
    case $p in "$top"/*) p=${p#"$top"/} ;; "$top") p=. ;; esac
    printf '%s' "$p"
}
build=$(here "$build")
[ -n "$data" ] && data=$(here "$data")
[ -n "$resdir" ] && resdir=$(here "$resdir")
data=${data:-data} resdir=${resdir:-results}
cd "$top" || exit 2
py=/usr/bin/python3
[ -x "$py" ] || die "$py not found (Debian's python3; scripts/deps.sh installs it)"
command -v hyperfine >/dev/null ||
    die "hyperfine not found: run scripts/deps.sh (Debian package hyperfine)"
gen=$build/hotbench-gen dec=$build/hotbench-decode hb=$build/hotbench
for t in "$gen" "$dec" "$hb"; do
    [ -x "$t" ] || die "$t not found: build the tools first with 'make' (or 'make BUILD=$build')"
done
[[ $data =~ [[:space:]] ]] && die "--data: a path without white space, please (hyperfine -N splits words)"
mkdir -p "$data" "$resdir/runs" || die "cannot create $data or $resdir/runs"

sha=$(git rev-parse --short=12 HEAD 2>/dev/null || echo nogit)
rev=$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
final="$resdir/runs/${stamp}-${sha}-e2e.json"
work=$(mktemp -d "${TMPDIR:-/tmp}/hotbench-e2e.XXXXXX") || die "mktemp failed"
outdir=$data/e2e-out
cleanup() { rm -rf "$work" "$outdir"; }
trap cleanup EXIT
trap 'echo "e2e: interrupted" >&2; exit 130' INT TERM
mkdir -p "$outdir"

# a sanitizer build times the sanitizer (ASan's allocator turns realloc into malloc + copy + free)
sanitize=$(awk -F= '/^HB_SANITIZE:/ { print $2 }' "$build/CMakeCache.txt" 2>/dev/null)
case $sanitize in
    ON|on|1|TRUE|true|YES|yes)
        log "WARNING: $build/ is a sanitizer build (HB_SANITIZE=ON): its times are not hotbench's" ;;
esac

style=basic
[ -t 1 ] && style=full
hf_version=$(hyperfine --version | awk '{print $2}')
load=$(cut -d' ' -f1-3 /proc/loadavg)
log "hyperfine $hf_version, tools from $build/, inputs in $data/, results to $final"
log "load average $load on $(nproc) CPUs"
awk -v l="${load%% *}" 'BEGIN { exit !(l > 0.5) }' &&
    log "WARNING: something else is using the CPU (load ${load%% *}); the figures will be noisy"

failed=0
meta=$work/meta.tsv groups=$work/groups.tsv
: >"$meta"
: >"$groups"
cmds=() preps=()

# add GROUP CASE STRATEGY INPUT OUTPUT ITEMS ITEMS_UNIT INPROCESS COMMAND [PREPARE]
add() {
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" \
        "$8" "$9" "${10:--}" >>"$meta"
    cmds+=("$9")
    [ $# -ge 10 ] && preps+=(--prepare "${10}")
}

# run_group NAME TITLE RUNS WARMUP [NOTE...]: times the commands added since the last group.
run_group() {
    local name=$1 title=$2 r=$3 w=$4
    shift 4
    local notes
    notes=$(printf '%s\x1f' "$@")
    local n=${#cmds[@]} t=$SECONDS rc=1
    if [ "$n" -eq 0 ]; then
        log "group $name: nothing left to time"
    else
        log "group $name: $title: $n commands x ($w warm-up + $r runs)"
        hyperfine -N --style "$style" --output=null --warmup "$w" --runs "$r" \
            --export-json "$work/$name.json" "${preps[@]}" "${cmds[@]}"
        rc=$?
    fi
    if [ $rc -ne 0 ]; then
        [ "$n" -eq 0 ] || log "group $name FAILED (hyperfine exit $rc): a command exited non-zero; see above"
        failed=1
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$title" "$r" "$w" "$rc" "$((SECONDS - t))" \
        "$notes" >>"$groups"
    log "group $name done in $((SECONDS - t)) s"
    cmds=() preps=()
}

# The strategies a decode subcommand's --help lists: "  name   description" after "strategies:".
strategies() {
    "$dec" "$1" --help | awk '/^strategies:/ { on = 1; next } on && /^$/ { exit }
        on && /^  [a-z]/ { print $1 }'
}
strategy_line() {
    "$dec" "$1" --help | awk -v s="$2" '/^strategies:/ { on = 1; next } on && $1 == s { print }'
}

crc_py='
import sys, zlib
c = n = 0
r = sys.stdin.buffer.raw
while True:
    b = r.read(1 << 20)
    if not b:
        break
    c = zlib.crc32(b, c)
    n += len(b)
print("%08x %d" % (c, n))
'
# check_failed WHAT: records a failed verification; the command is then not timed (as in hotbench)
check_failed() { log "CHECK FAILED: $*"; failed=1; ok=0; }
untimed_note() { echo "not timed: $1 exited non-zero or gave a wrong answer (see the log)"; }

# ---- inputs -----------------------------------------------------------------------------------

chunk_name() { # chunk_name CODING -> the cache's base name (data-gen/chunked_gen.c)
    echo "chunked-v1-size${size}-chunk4096-16384-$1-trailer0-seed20210304"
}
info_get() { awk -v k="$2" '$1 == k { print $2 }' "$1" 2>/dev/null; }

# ensure_chunked CODING: the cached body, filled by hotbench itself when missing
ensure_chunked() {
    local coding=$1 base group
    base=$data/$(chunk_name "$coding")
    if [ -s "$base.body" ] && [ -s "$base.info" ] &&
        [ "$(stat -c %s "$base.body")" = "$(info_get "$base.info" body_size)" ]; then
        return 0
    fi
    group=bufgrow
    [ "$coding" = identity ] || group=bufgrow-gzip
    log "generating the $coding body of $size bytes into $data/ (once; hotbench's cache)"
    "$hb" --hb_data="$data" --hb_repetitions=1 --benchmark_min_time=0.000001 \
        --benchmark_filter="^$group/exact/size:$size/read:4096/" >"$work/fill.log" 2>&1
    if ! [ -s "$base.body" ] || ! [ -s "$base.info" ]; then
        # not a size hotbench registers: the generator itself (no sidecar; hotbench would
        # rebuild it with one)
        local gz=()
        [ "$coding" = identity ] || gz=(--gzip=1)
        "$gen" chunked --size "$size" "${gz[@]}" -o "$base.body.tmp.$$" 2>"$work/gen.log" &&
            mv -f "$base.body.tmp.$$" "$base.body" ||
            { cat "$work/gen.log" >&2; rm -f "$base.body.tmp.$$"; die "cannot generate $base.body"; }
    fi
}

# ensure_small FILE GEN-ARGS...: a hotbench-gen output cached with its report (FILE.gen.txt)
ensure_small() {
    local f=$1
    shift
    [ -s "$f" ] && [ -s "$f.gen.txt" ] && return 0
    log "generating $f"
    "$gen" "$@" -o "$f.tmp.$$" 2>"$f.gen.txt.tmp.$$" &&
        mv -f "$f.tmp.$$" "$f" && mv -f "$f.gen.txt.tmp.$$" "$f.gen.txt" ||
        { cat "$f.gen.txt.tmp.$$" >&2; rm -f "$f.tmp.$$" "$f.gen.txt.tmp.$$";
          die "cannot generate $f"; }
}
gen_count() { awk -v k="$2" '$1 == k { print $2; exit }' "$1.gen.txt"; }

ts_rfc=$data/timestamps-v1-rows100000-cols1-rfc3339-fracmixed-offmixed-seed20210304.tsv
ts_ms=$data/timestamps-v1-rows100000-cols1-millis-fracmixed-offmixed-seed20210304.tsv
vol=$data/volumes-v1-volumes300-tags20-indented-seed20161115.xml
if want gen-small || want rfc3339; then
    ensure_small "$ts_rfc" timestamps --rows 100000 --encoding rfc3339 --seed 20210304
    ensure_small "$ts_ms" timestamps --rows 100000 --encoding millis --seed 20210304
fi
if want gen-small || want volumes; then
    ensure_small "$vol" volumes --volumes 300 --tags 20 --seed 20161115
fi
if want gen-chunked || want dechunk; then ensure_chunked identity; fi
if want gen-chunked || want dechunk-gzip; then ensure_chunked gzip1; fi
body_id=$data/$(chunk_name identity).body
body_gz=$data/$(chunk_name gzip1).body

# ---- generators -------------------------------------------------------------------------------

size_arg=""
[ "$size" = 1700000000 ] || size_arg="--size $size"
if want gen-chunked; then
    o1=$outdir/chunked-identity.body o2=$outdir/chunked-gzip.body
    # shellcheck disable=SC2086
    add gen-chunked gen chunked - "$o1" "$size" bytes - \
        "$gen chunked $size_arg -o $o1" "sh -c 'rm -f $o1; sync'"
    add gen-chunked gen "chunked --gzip" - "$o2" "$size" bytes - \
        "$gen chunked $size_arg --gzip -o $o2" "sh -c 'rm -f $o2; sync'"
    run_group gen-chunked "hotbench-gen chunked, $size bytes decoded, to a file" "$runs" "$warmup"
    if [ $verify = 1 ]; then
        cmp -s "$o1" "$body_id" || check_failed "hotbench-gen chunked: $o1 differs from $body_id"
        cmp -s "$o2" "$body_gz" || check_failed "hotbench-gen chunked --gzip: $o2 differs from $body_gz"
    fi
    rm -f "$o1" "$o2"
fi
if want gen-small; then
    o1=$outdir/timestamps.tsv o2=$outdir/volumes.xml
    add gen-small gen timestamps - "$o1" 100000 timestamps - \
        "$gen timestamps -o $o1" "sh -c 'rm -f $o1; sync'"
    add gen-small gen volumes - "$o2" "$(gen_count "$vol" elements)" elements - \
        "$gen volumes -o $o2" "sh -c 'rm -f $o2; sync'"
    run_group gen-small "hotbench-gen timestamps (100k rows) and volumes (300 x 20), to a file" \
        "$small_runs" "$small_warmup"
    if [ $verify = 1 ]; then
        cmp -s "$o1" "$ts_rfc" || check_failed "hotbench-gen timestamps: $o1 differs from $ts_rfc"
        cmp -s "$o2" "$vol" || check_failed "hotbench-gen volumes: $o2 differs from $vol"
    fi
    rm -f "$o1" "$o2"
fi

# ---- dechunk ----------------------------------------------------------------------------------

dechunk_group() { # dechunk_group NAME BODY GUNZIP-FLAG INPROCESS-GROUP
    local name=$1 body=$2 gunzip=$3 ig=$4 info=${2%.body}.info s args notes=()
    local want_crc want_size got
    want_crc=$(info_get "$info" crc32) want_size=$(info_get "$info" size)
    if [ $verify = 1 ] && [ -z "$want_crc" ]; then
        # no generator record beside the body: the reference decoder's answer is the yardstick
        log "$name: no crc32 in $info: taking the reference decoder's (hotbench-decode dechunk)"
        # shellcheck disable=SC2086
        got=$("$dec" dechunk${gunzip:+ $gunzip} "$body" | "$py" -c "$crc_py"; echo "rc=${PIPESTATUS[0]}")
        if [[ $got != *"rc=0" ]]; then
            check_failed "$dec dechunk $body: exit ${got##*rc=}"
            return
        fi
        want_crc=${got%% *} want_size=${got%%$'\n'*} want_size=${want_size#* }
    fi
    local all
    all=$(strategies dechunk | tr '\n' ' ')
    log "$name: hotbench-decode dechunk offers: $all"
    for s in $all; do
        case $s in
            httpcore|httpcore-*|additive)
                notes+=("skipped $s: quadratic growth (httpcore once its int capacity overflows at 2^30 bytes, additive always), predicted to take hours at 1.7 GB; the in-process run predicts it from its fitted model")
                log "$name: skipping $s (quadratic growth: hours at 1.7 GB)"
                continue ;;
        esac
        args="dechunk${gunzip:+ $gunzip} --strategy $s"
        [ "$s" = exact ] && args="$args --size-hint $size"
        ok=1
        if [ $verify = 1 ]; then
            log "$name: checking $s (one run, its output's crc32)"
            # shellcheck disable=SC2086
            got=$("$dec" $args "$body" | "$py" -c "$crc_py"; echo "rc=${PIPESTATUS[0]}")
            if [[ $got != *"rc=0" ]]; then
                check_failed "$dec $args $body: exit ${got##*rc=}"
            elif [ -n "$want_crc" ] && [ "${got%%$'\n'*}" != "$want_crc $want_size" ]; then
                check_failed "$dec $args $body: crc32 and size '${got%%$'\n'*}', expected '$want_crc $want_size'"
            fi
        fi
        [ $ok = 1 ] || { notes+=("$(untimed_note "$s")"); continue; }
        add "$name" "$name" "$s" "$body" /dev/null "$size" bytes \
            "$ig/$s/size:$size/read:4096/real_time" "$dec $args $body"
    done
    run_group "$name" "hotbench-decode dechunk${gunzip:+ $gunzip}, $size bytes decoded, to /dev/null" \
        "$runs" "$warmup" "${notes[@]}"
}
want dechunk && dechunk_group dechunk "$body_id" "" bufgrow
want dechunk-gzip && dechunk_group dechunk-gzip "$body_gz" --gunzip bufgrow-gzip

# ---- rfc3339 ----------------------------------------------------------------------------------

if want rfc3339; then
    notes=()
    ref_out=$work/rfc3339-ref.txt
    if [ $verify = 1 ]; then
        "$dec" rfc3339 --strategy scalar "$ts_rfc" >"$ref_out" ||
            check_failed "the reference (scalar) fails on $ts_rfc"
        # the millis strategies' answer: the reference's instants rounded down to milliseconds
        awk '{ printf "%s %d\n", $1, $2 - $2 % 1000000 }' "$ref_out" >"$work/rfc3339-ref-ms.txt"
    fi
    for s in $(strategies rfc3339); do
        in=$ts_rfc ref=$ref_out
        case $s in millis*) in=$ts_ms ref=$work/rfc3339-ref-ms.txt ;; esac
        ok=1
        if [ $verify = 1 ]; then
            if ! "$dec" rfc3339 --strategy "$s" "$in" >"$work/out.txt"; then
                check_failed "$dec rfc3339 --strategy $s $in: non-zero exit"
            elif ! cmp -s "$work/out.txt" "$ref"; then
                check_failed "$dec rfc3339 --strategy $s $in: output differs from the reference's"
            fi
        fi
        [ $ok = 1 ] || { notes+=("$(untimed_note "$s")"); continue; }
        add rfc3339 rfc3339 "$s" "$in" /dev/null 100000 timestamps \
            "rfc3339/$s/rows:100000/real_time" "$dec rfc3339 --strategy $s $in"
    done
    # the fixed cost of a process: the reference on an empty input
    add rfc3339 startup "start-up (empty input)" /dev/null /dev/null 0 timestamps - \
        "$dec rfc3339 --strategy scalar /dev/null"
    run_group rfc3339 "hotbench-decode rfc3339, 100,000 timestamps, to /dev/null" \
        "$small_runs" "$small_warmup" "${notes[@]}"
fi

# ---- volumes ----------------------------------------------------------------------------------

if want volumes; then
    notes=()
    elements=$(gen_count "$vol" elements)
    ref_out=$work/volumes-ref.json
    if [ $verify = 1 ]; then
        "$dec" volumes --strategy expat-typed "$vol" >"$ref_out" ||
            check_failed "the reference (expat-typed) fails on $vol"
    fi
    for s in $(strategies volumes); do
        if strategy_line volumes "$s" | grep -q "not usable here"; then
            notes+=("skipped $s: not a decoder (hotbench-decode volumes --help: not usable here)")
            log "volumes: skipping $s (not a decoder)"
            continue
        fi
        ok=1
        if [ $verify = 1 ]; then
            if ! "$dec" volumes --strategy "$s" "$vol" >"$work/out.json"; then
                check_failed "$dec volumes --strategy $s $vol: non-zero exit"
            elif ! cmp -s "$work/out.json" "$ref_out"; then
                check_failed "$dec volumes --strategy $s $vol: output differs from expat-typed's"
            fi
        fi
        [ $ok = 1 ] || { notes+=("$(untimed_note "$s")"); continue; }
        add volumes volumes "$s" "$vol" /dev/null "$elements" elements \
            "volumes/$s/volumes:300/tags:20/compact:0/piece:0/real_time" \
            "$dec volumes --strategy $s $vol"
    done
    run_group volumes "hotbench-decode volumes, 300 volumes x 20 tags ($elements elements), to /dev/null" \
        "$small_runs" "$small_warmup" "${notes[@]}"
fi

# ---- one JSON ---------------------------------------------------------------------------------

tmp="$resdir/runs/.${stamp}-${sha}-e2e.json.tmp"
E2E_WORK=$work E2E_REV=$rev E2E_SHA=$sha E2E_HF=$hf_version E2E_BUILD=$build E2E_DATA=$data \
E2E_LOAD0=$load E2E_SECONDS=$((SECONDS - t0)) E2E_FAILED=$failed E2E_VERIFY=$verify \
E2E_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ) E2E_STAMP=$stamp "$py" - "$tmp" <<'EOF'
import json, os, platform, socket, sys

w = os.environ["E2E_WORK"]
def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
def mem_total():
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
def cmake_cache(key):
    try:
        for line in open(os.path.join(os.environ["E2E_BUILD"], "CMakeCache.txt")):
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None

meta = {}
for line in open(os.path.join(w, "meta.tsv")):
    f = line.rstrip("\n").split("\t")
    group, case, strategy, inp, out, items, unit, inproc, cmd = f[:9]
    meta.setdefault(group, []).append({
        "case": case, "strategy": strategy,
        "input": None if inp == "-" else inp,
        "input_bytes": os.path.getsize(inp) if inp not in ("-", "/dev/null") else 0,
        "output": out, "items": int(items), "items_unit": unit,
        "inprocess": None if inproc == "-" else inproc,
        "command": cmd,
        "prepare": None if f[9] == "-" else f[9],
    })
groups = []
for line in open(os.path.join(w, "groups.tsv")):
    name, title, runs, warmup, rc, secs, notes = line.rstrip("\n").split("\t")
    path = os.path.join(w, name + ".json")
    results = []
    if os.path.exists(path) and os.path.getsize(path) > 0:
        try:
            results = json.load(open(path))["results"]
        except (ValueError, KeyError):
            results = []
    cmds = meta.get(name, [])
    for i, r in enumerate(results):
        if i < len(cmds):
            r.update({k: v for k, v in cmds[i].items() if k != "command"})
    groups.append({
        "name": name, "title": title, "runs": int(runs), "warmup": int(warmup),
        "hyperfine_exit": int(rc), "ok": rc == "0", "seconds": int(secs),
        "notes": [n for n in notes.split("\x1f") if n],
        "commands": [c["command"] for c in cmds],
        "results": results,
    })
doc = {
    "context": {
        "date": os.environ["E2E_DATE"],
        "stamp": os.environ["E2E_STAMP"],
        "git_revision": os.environ["E2E_REV"],
        "git_sha": os.environ["E2E_SHA"],
        "hyperfine_version": os.environ["E2E_HF"],
        "host": socket.gethostname(),
        "kernel": platform.release(),
        "cpu": cpu_model(),
        "num_cpus": os.cpu_count(),
        "mem_total_bytes": mem_total(),
        "load_avg_start": [float(x) for x in os.environ["E2E_LOAD0"].split()],
        "load_avg_end": list(os.getloadavg()),
        "build_dir": os.environ["E2E_BUILD"],
        "build_type": cmake_cache("CMAKE_BUILD_TYPE"),
        "sanitize": cmake_cache("HB_SANITIZE"),
        "c_compiler": cmake_cache("CMAKE_C_COMPILER"),
        "data_dir": os.environ["E2E_DATA"],
        "verified": os.environ["E2E_VERIFY"] == "1",
        "shell": "none (hyperfine -N)",
        "output": "decoders: /dev/null (hyperfine --output=null); generators: a file in "
                  + os.environ["E2E_DATA"] + "/e2e-out/, removed and synced before each run",
        "seconds": int(os.environ["E2E_SECONDS"]),
        "failed": os.environ["E2E_FAILED"] != "0",
    },
    "groups": groups,
}
with open(sys.argv[1], "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
EOF
[ $? -eq 0 ] && [ -s "$tmp" ] || { rm -f "$tmp"; echo "e2e: could not write $final" >&2; exit 1; }
mv -f "$tmp" "$final"

# medians, as a quick look
"$py" - "$final" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for g in d["groups"]:
    print(f"\n{g['name']}: {g['title']}" + ("" if g["ok"] else "  ** FAILED **"))
    for r in g["results"]:
        med = r["median"]
        t = f"{med:8.3f} s " if med >= 1 else f"{med * 1e3:8.2f} ms"
        print(f"  {r.get('strategy', r['command']):28s} median {t}  "
              f"(min {r['min']:.4g} s, max {r['max']:.4g} s, {len(r['times'])} runs)")
    for n in g["notes"]:
        print(f"  note: {n}")
EOF

if [ $failed -eq 0 ] && { [ -n "$only" ] || [ "$size" != 1700000000 ] || [ $verify = 0 ]; }; then
    log "done in $((SECONDS - t0)) s: $final (a partial or unverified run: --only, --size or" \
        "--no-verify; $resdir/e2e-latest.json still points to the last complete run)"
elif [ $failed -eq 0 ]; then
    ln -sfn "runs/$(basename "$final")" "$resdir/e2e-latest.json"
    log "done in $((SECONDS - t0)) s: $final ($resdir/e2e-latest.json points to it)"
else
    log "done in $((SECONDS - t0)) s: $final; a command FAILED (see above), so" \
        "$resdir/e2e-latest.json still points to the last complete run"
fi
exit $failed

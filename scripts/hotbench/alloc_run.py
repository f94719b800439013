"""alloc_run - the allocator matrix (`make bench-alloc`, scripts/bench_alloc.py): the benchmarks
the manifest selects (each group's alloc_select, and alloc_select_long with --long) run by
hotbench once per general-purpose allocator (--hb_allocator=NAME), into one combined JSON.

The combined JSON (schema "hotbench-alloc/1", docs/allocators.md):
    {"schema": "hotbench-alloc/1", "created": ISO 8601 UTC, "revision": git sha,
     "filter": the --benchmark_filter, "long": bool, "repetitions": int, "rounds": int,
     "allocators": [requested names], "skipped": [{"allocator", "reason"}],
     "calibration": hotbench --hb_calibrate's object or null,
     "order": [{"round", "allocator", "seconds", "exit_status"}]   in the order they ran,
     "runs": [{"allocator", "round", "seconds", "exit_status", "run": google-benchmark JSON}],
     "seconds": the whole matrix's wall time,
     "context": {"hb_manifest": the manifest (a JSON string) the runs were made with}}
"""

import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from .files import point_latest, write_json_atomic
from .listing import list_benchmarks
from .manifest import Manifest, ManifestError

SCHEMA = "hotbench-alloc/1"
ALLOCATORS = ("glibc", "jemalloc", "mimalloc", "tcmalloc")
PROGRESS_S = 30.0  # at most this long between two progress lines


class AllocError(Exception):
    """A usage or setup error (exit 2): the message says what and where."""


def ere_escape(text):
    """text as a literal in a POSIX extended regex (google-benchmark's filter)."""
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", text)


def build_filter(manifest, long=False, groups=None):
    """The one --benchmark_filter of the selections: ^(<group>/(<sel>)|...), each selection
    anchored at the strategy's first character; groups: a regex the group names must match
    whole (None: every group). AllocError when nothing is selected."""
    parts = ["%s/(%s)" % (ere_escape(g), sel) for g, sel in manifest.alloc_selection(long)
             if groups is None or re.fullmatch(groups, g)]
    if not parts:
        raise AllocError("no group of the manifest%s has an alloc_select%s: nothing to run "
                         "(docs/manifest.md)" % (
                             " matching --groups %r" % groups if groups is not None else "",
                             " or alloc_select_long" if long else ""))
    return "^(%s)" % "|".join(parts)


def fmt_span(s):
    s = int(round(s))
    return "%d:%02d" % (s // 60, s % 60)


def _probe(hotbench, name, flt):
    """(True, None) when hotbench runs under allocator name, else (False, its message): hotbench
    lists the selected benchmarks under it (exit 2: a missing library, its file pattern and
    scripts/deps.sh named)."""
    got = list_benchmarks(hotbench, "--hb_allocator=" + name, "--benchmark_filter=" + flt)
    return (True, None) if got.ok else (False, got.message)


def _calibrate(hotbench):
    p = subprocess.run([hotbench, "--hb_calibrate"], capture_output=True, text=True)
    try:
        return json.loads(p.stdout) if p.returncode == 0 else None
    except ValueError:
        return None


class Progress:
    """A progress line at most every PROGRESS_S seconds: elapsed, and remaining from the runs
    done (or the previous matrix's time per run)."""

    def __init__(self, total_runs, previous_per_run, log):
        self.t0, self.total, self.done = time.monotonic(), total_runs, []
        self.prev, self.log, self.last = previous_per_run, log, 0.0

    def remaining(self, current_elapsed):
        per = (sum(self.done) / len(self.done)) if self.done else self.prev
        if per is None:
            return None
        left = self.total - len(self.done)
        return max(0.0, per * left - min(current_elapsed, per))

    def tick(self, what, current_elapsed, force=False):
        now = time.monotonic() - self.t0
        if not force and now - self.last < PROGRESS_S:
            return
        self.last = now
        rem = self.remaining(current_elapsed)
        self.log("bench-alloc: %s elapsed, %s: %s" % (
            fmt_span(now), "~%s remaining" % fmt_span(rem) if rem is not None else
            "remaining known after the first run", what))


def _run_one(cmd, env, logpath, progress, what):
    """Runs cmd with its output in logpath, ticking progress; (exit status, seconds)."""
    t0 = time.monotonic()
    with open(logpath, "w") as log:
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        progress.tick(what, 0.0, force=True)
        while True:
            try:
                rc = p.wait(timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                progress.tick(what, time.monotonic() - t0)
    return rc, time.monotonic() - t0


def _tail(path, n=5):
    try:
        with open(path, errors="replace") as f:
            return [x.rstrip() for x in f.readlines()[-n:]]
    except OSError:
        return []


def previous_per_run(path, flt, reps):
    """Seconds per run of the matrix at path when it ran the same filter and repetitions."""
    try:
        with open(path) as f:
            doc = json.load(f)
        runs = [r["seconds"] for r in doc.get("order", []) if r.get("exit_status") == 0]
        if doc.get("filter") == flt and doc.get("repetitions") == reps and runs:
            return sum(runs) / len(runs)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def available(hotbench, names, flt, log):
    """(the allocators hotbench runs under, [{"allocator", "reason"}] of the others)."""
    ok, skipped = [], []
    for name in names:
        runs, why = _probe(hotbench, name, flt)
        if runs:
            ok.append(name)
        else:
            skipped.append({"allocator": name, "reason": why})
            log("bench-alloc: %s skipped: %s" % (name, why))
    return ok, skipped


def rotated(names, k):
    """The run order of round k: names rotated left by k (each allocator leads one round)."""
    k %= max(1, len(names))
    return list(names[k:]) + list(names[:k])


def run_matrix(a, log=print):
    """Runs the matrix of argparse namespace a (bench_alloc.py's options); returns (the combined
    document, exit status): 0 every run verified, 1 a run failed or none ran."""
    hotbench = os.path.join(a.build, "hotbench")
    if not os.access(hotbench, os.X_OK):
        raise AllocError("%s: no hotbench there (build it: make)" % hotbench)
    try:
        manifest = Manifest.from_binary(hotbench)
    except ManifestError as e:
        raise AllocError(str(e))
    flt = build_filter(manifest, a.long, a.groups)
    t0 = time.monotonic()
    ok, skipped = available(hotbench, a.allocators, flt, log)
    doc = {"schema": SCHEMA, "created": datetime.datetime.now(datetime.timezone.utc)
           .strftime("%Y-%m-%dT%H:%M:%SZ"), "revision": a.revision, "filter": flt,
           "long": a.long, "repetitions": a.repetitions, "rounds": a.rounds,
           "allocators": list(a.allocators), "skipped": skipped, "calibration": None,
           "order": [], "runs": [], "seconds": None,
           "context": {"hb_manifest": json.dumps(manifest.doc, separators=(",", ":"))}}
    if not ok:
        log("bench-alloc: no allocator could run (install one: scripts/deps.sh)")
        doc["seconds"] = round(time.monotonic() - t0, 3)
        return doc, 1
    doc["calibration"] = _calibrate(hotbench)
    progress = Progress(len(ok) * a.rounds, previous_per_run(a.latest, flt, a.repetitions), log)
    status = 0
    with tempfile.TemporaryDirectory(prefix="bench-alloc-") as tmp:
        for k in range(a.rounds):
            for name in rotated(ok, k):
                rc = _one(a, hotbench, flt, name, k, tmp, progress, doc, log)
                status = status or (1 if rc != 0 else 0)
    doc["seconds"] = round(time.monotonic() - t0, 3)
    return doc, status


def _one(a, hotbench, flt, name, k, tmp, progress, doc, log):
    """One allocator's run of round k, appended to doc; its exit status."""
    out = os.path.join(tmp, "%s-%d.json" % (name, k))
    cmd = [hotbench, "--hb_allocator=" + name, "--hb_profile=full",
           "--hb_repetitions=%d" % a.repetitions, "--hb_budget=%g" % a.budget, "--benchmark_filter=" + flt,
           "--benchmark_out=" + out, "--benchmark_out_format=json"] + list(a.hotbench_args)
    env = dict(os.environ, HB_GIT_REV=a.revision)
    what = "%s (run %d of %d)" % (name, len(doc["order"]) + 1, progress.total)
    rc, secs = _run_one(cmd, env, os.path.join(tmp, "%s-%d.log" % (name, k)), progress, what)
    progress.done.append(secs)
    run = None
    try:
        with open(out) as f:
            run = json.load(f)
    except (OSError, ValueError):
        pass
    entry = {"round": k, "allocator": name, "seconds": round(secs, 3), "exit_status": rc}
    doc["order"].append(entry)
    doc["runs"].append(dict(entry, run=run))
    if rc != 0 or run is None:
        log("bench-alloc: %s FAILED (exit %d%s):" % (
            name, rc, "" if run else ", no run JSON"))
        for line in _tail(os.path.join(tmp, "%s-%d.log" % (name, k))):
            log("    " + line)
        return rc or 1
    log("bench-alloc: %s done in %s" % (name, fmt_span(secs)))
    return 0


def write(doc, runs_dir, latest, path=None):
    """Writes doc to path (None: runs_dir/<UTC>-<sha>.alloc.json) and points latest (a symlink)
    at it when at least one run succeeded; returns the file's path."""
    if path is None:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        path = os.path.join(runs_dir, "%s-%s.alloc.json" % (stamp, doc["revision"]))
    final = path
    write_json_atomic(final, doc)
    if any(r["exit_status"] == 0 and r["run"] for r in doc["runs"]):
        point_latest(latest, final)
    return final


def main_log(msg):
    print(msg, flush=True)
    sys.stdout.flush()

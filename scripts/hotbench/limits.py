"""limits - what limits a group's fast strategy now: instructions and simulated branch misses
of its probe row and of its ceiling's, counted under valgrind's callgrind (schema
"hotbench-limits/1", written by scripts/limits.py, read by hotbench.report.limits).

The groups and rows come from the manifest's "limits" entries (docs/manifest.md): per group the
strategy, the ceiling and the probe arguments. harness/hb_shim.cc counts the timed loop alone
under callgrind (HB_CALLGRIND) and labels each benchmark's dump "hb:<group>/<strategy>|<args>|
<iterations>" (hotbench.callgrind reads the same dumps for the compare's instruction check). Bytes and items
per iteration are the run's own bytes_per_second and items_per_second times its seconds per
iteration, so no case's units are known here.

    doc = measure(hotbench, manifest, profile="quick", probe=None, log=print)
"""

import datetime
import json
import os
import re
import shutil
import subprocess
import tempfile

from .callgrind import dumps_by_name, names_by_args
from .runjson import Run

SCHEMA = "hotbench-limits/1"
# callgrind's events with --branch-sim=yes: instructions, conditional branches and their
# simulated mispredictions, indirect branches and theirs
EVENTS = ("Ir", "Bc", "Bcm", "Bi", "Bim")
# valgrind counts every byte a `rep movsb` (or `rep stosb`) moves as one executed instruction,
# where the CPU runs it as one microcoded copy: glibc's memcpy takes that path for large copies
# and its 32-byte vector loop for smaller ones, so a copy's count would depend on its size by a
# factor of ~10. The probe turns the string-instruction path off so every copy is counted as the
# vector loop glibc uses below the threshold (recorded in the document's context).
TUNABLES = "glibc.cpu.x86_rep_movsb_threshold=0x7fffffffffffffff:" \
           "glibc.cpu.x86_rep_stosb_threshold=0x7fffffffffffffff"


class LimitsError(Exception):
    """The probe could not run or measured nothing usable (the message says what to do)."""


def escape(text):
    """text as a POSIX extended regex matching itself (re.escape also escapes '-', which
    google-benchmark's regex refuses)."""
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", text)


def selection(manifest, groups=None, probe=None):
    """[(group name, limits, args regex)] of the manifest's limits entries (only those in groups
    when given); args regex the probe's arguments escaped, or probe itself (a regex over the
    arguments after "<group>/<strategy>/") for every group."""
    out = []
    for g, lim in manifest.limits():
        if groups and g["name"] not in groups:
            continue
        out.append((g["name"], lim, probe if probe is not None else escape(lim["probe"])))
    return out


def benchmark_filter(sel):
    """The --benchmark_filter selecting every probe row of sel and its ceiling's."""
    return "|".join("^%s/(%s|%s)/%s/" % (escape(g), escape(lim["strategy"]),
                                         escape(lim["ceiling"]), args)
                    for g, lim, args in sel)


def row_figures(row, counts):
    """The probe figures of one row: its payload per iteration (bytes, items: the run's rates
    times its seconds per iteration) and the counts per iteration, per byte and per item."""
    c = row["counters"]
    iters = max(counts["iterations"], 1)
    per = {k: counts.get(k, 0) / iters for k in EVENTS}
    out = dict(name=row["name"], args="/".join("%s:%s" % kv for kv in row["params"].items()),
               iterations=counts["iterations"], instructions=per["Ir"],
               branches=per["Bc"] + per["Bi"], branch_misses=per["Bcm"] + per["Bim"],
               bytes=None, items=None)
    for key, rate in (("bytes", "bytes_per_second"), ("items", "items_per_second")):
        if c.get(rate):
            out[key] = round(c[rate] * row["t"], 3)
    for unit in ("bytes", "items"):
        n = out[unit]
        if n:
            out["instructions_per_" + unit[:-1]] = out["instructions"] / n
            out["branch_misses_per_" + unit[:-1]] = out["branch_misses"] / n
    return out


def pair(run, counts, group, lim, args):
    """{strategy, ceiling, probe, item, rows: {strategy: figures, ceiling: figures}} for the
    first arguments matching args that both rows were counted at; None when there are none."""
    rows = {}
    for r in run.rows:
        a = "/".join("%s:%s" % kv for kv in r["params"].items())
        if r["family"] == group and r["name"] in counts and re.match(args + "/", a + "/"):
            rows.setdefault(a, {})[r["strategy"]] = r
    for a, by in rows.items():
        if lim["strategy"] in by and lim["ceiling"] in by:
            return dict(strategy=lim["strategy"], ceiling=lim["ceiling"], probe=a,
                        item=lim.get("item"), row=lim["row"],
                        rows={s: row_figures(by[s], counts[by[s]["name"]])
                              for s in (lim["strategy"], lim["ceiling"])})
    return None


def run_callgrind(hotbench, valgrind, work, profile, filt, log):
    """Runs hotbench under callgrind with branch simulation on the filter's rows, one
    iteration each; returns the run JSON's path. LimitsError when it fails."""
    out_json = os.path.join(work, "run.json")
    cmd = [valgrind, "--tool=callgrind", "--instr-atstart=no", "--branch-sim=yes",
           "--callgrind-out-file=" + os.path.join(work, "cg.out"), hotbench,
           "--hb_profile=" + profile, "--hb_repetitions=1", "--benchmark_min_time=1e-9",
           "--benchmark_filter=" + filt, "--benchmark_out=" + out_json,
           "--benchmark_out_format=json"]
    log("limits: GLIBC_TUNABLES=%s %s" % (TUNABLES, " ".join(cmd)))
    logf = os.path.join(work, "callgrind.log")
    env = dict(os.environ, GLIBC_TUNABLES=TUNABLES)
    with open(logf, "w") as f:
        rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
    if rc != 0 or not os.path.exists(out_json):
        with open(logf) as f:
            tail = f.read()[-2000:]
        raise LimitsError("hotbench under callgrind exited %d:\n%s" % (rc, tail))
    return out_json, " ".join(cmd)


def measure(hotbench, manifest, profile="quick", groups=None, probe=None, log=print):
    """The hotbench-limits/1 document (docs/manifest.md, "limits"; scripts/limits.py --help):
    context (revision, build, valgrind version, command, profile, date) and per group the
    strategy's and the ceiling's probe figures. LimitsError: no valgrind, no group selected,
    a failed run, or no pair counted."""
    valgrind = shutil.which("valgrind")
    if not valgrind:
        raise LimitsError("valgrind is not installed (scripts/deps.sh installs it)")
    sel = selection(manifest, groups, probe)
    if not sel:
        raise LimitsError("no group of the manifest has limits%s (docs/manifest.md)" % (
            " among " + ", ".join(groups) if groups else ""))
    version = subprocess.run([valgrind, "--version"], capture_output=True,
                             text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="hb-limits-")
    try:
        out_json, cmd = run_callgrind(hotbench, valgrind, work, profile, benchmark_filter(sel),
                                      log)
        run = Run(out_json)
        counts = dumps_by_name(work, names_by_args(out_json))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not counts:
        raise LimitsError("callgrind produced no per-benchmark counts (is hotbench built with "
                          "valgrind/callgrind.h? see harness/hb_shim.cc)")
    doc = dict(schema=SCHEMA, context=context(run.context, version, cmd, profile), groups={})
    for g, lim, args in sel:
        p = pair(run, counts, g, lim, args)
        log("limits: %s: %s" % (g, "no row of %s and %s at %s in profile %s" % (
            lim["strategy"], lim["ceiling"], args, profile) if p is None else "counted at " +
            p["probe"]))
        if p is not None:
            doc["groups"][g] = p
    if not doc["groups"]:
        raise LimitsError("no probe row was counted for both a strategy and its ceiling: is "
                          "the profile's size among the probe's (--profile, --probe)?")
    return doc


def context(ctx, valgrind, cmd, profile):
    """What the counts were made with: the build's keys of the run context and valgrind's."""
    keep = ("hb_git_revision", "hb_compiler", "hb_build_flags", "hb_build_type", "hb_cpu_model")
    out = {k: ctx[k] for k in keep if k in ctx}
    out.update(valgrind=valgrind, command=cmd, profile=profile, glibc_tunables=TUNABLES,
               branch_predictor="simulated (callgrind --branch-sim=yes)",
               date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return out


def load(path):
    """The document at path; ValueError unless it is a hotbench-limits/1 object with groups."""
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(
            doc.get("groups"), dict):
        raise ValueError("%s: not a %s document" % (path, SCHEMA))
    return doc

"""record - one run into the history database, in one transaction.

    rec = from_run_json(path, kind)      a run JSON (google-benchmark's JSON written by hotbench)
    rec = fromcompare.from_compare_dir(path, kind, root)   a compare's output folder
    run_id, new = store.write(con, rec)  the runs row and its measurements, all or nothing

A Record is the runs row (a dict of the runs columns but id) and its measurements (a list of
dicts of the measurements columns but run_id). Reading a file checks everything before anything
is written, so a corrupt or foreign file raises RecordError naming the file and what is wrong,
and the database is left as it was.

From a run JSON, per benchmark (its run_name, e.g. 'bufgrow/memcpy/size:65536/read:4096/
real_time'): 'cpu_time' and 'real_time' in seconds per iteration, the median over the repetition
rows, lower/upper their least and greatest, cv their sample standard deviation over their mean
(NULL for one repetition). A run holding google-benchmark's aggregates only gives its median,
cv and repetitions rows instead. Rows refused over the budget ('skipped: ...'), failed rows
('error: ...': never timed), _BigO/_RMS rows and NaN values are not measurements. verified is 1
when the run carries hotbench's manifest (its harness verifies every argument tuple against
the reference before timing it and never times a failed one), NULL for an older run that does
not say.

A compare's folder: fromcompare.py.
"""

import datetime
import hashlib
import json
import math
import os
import statistics

from ..git import git
from ..units import TIME_UNIT
from .machine import machine_of

RUN_COLUMNS = ("revision", "commit_time", "branch", "machine", "machine_info", "profile", "kind",
               "recorded_at", "tools", "load", "source", "digest", "selection")
MEASUREMENT_COLUMNS = ("benchmark", "metric", "value", "unit", "lower", "upper", "repetitions",
                       "cv", "verified")
TOOL_KEYS = (("compiler", "hb_compiler"), ("build_type", "hb_build_type"),
             ("build_flags", "hb_build_flags"), ("google-benchmark", "hb_benchmark_version"),
             ("library_build_type", "library_build_type"))


class RecordError(Exception):
    """A file that cannot be recorded: the message names the file and what is wrong."""


class NotARun(RecordError):
    """A hotbench JSON file that is not an in-process run (the e2e or peers results)."""


class Record:
    """run: dict of RUN_COLUMNS; measurements: list of dicts of MEASUREMENT_COLUMNS."""

    def __init__(self, run, measurements):
        self.run, self.measurements = run, measurements


def utc_now():
    """Now, ISO 8601 UTC to the second ('2026-12-02T10:00:00Z')."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def resolve_revision(root, rev):
    """(revision, commit_time) for a context's hb_git_revision ('0e05b27f305c',
    '73f76c965522-dirty', 'unknown'): the full sha with the '-dirty' suffix kept and the
    commit's committer time in ISO 8601 UTC when git in root knows it, else (rev, None)."""
    rev = (rev or "unknown").strip() or "unknown"
    dirty = rev.endswith("-dirty")
    base = rev[:-len("-dirty")] if dirty else rev
    sha = git(root, "rev-parse", "--verify", "--quiet", base + "^{commit}") if base != "unknown" \
        else None
    if not sha:
        return rev, None
    when = git(root, "show", "-s", "--format=%cI", sha)
    if when:
        when = datetime.datetime.fromisoformat(when).astimezone(
            datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return sha + ("-dirty" if dirty else ""), when


def current_branch(root):
    """The checked-out branch of root, or None (detached HEAD, no git)."""
    b = git(root, "rev-parse", "--abbrev-ref", "HEAD")
    return None if b in (None, "HEAD") else b


def _load_json(path, what):
    """(document, sha256 hex of the file's bytes); RecordError naming path when it cannot be
    read or is not UTF-8 JSON (what: the kind of file expected, for the message)."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise RecordError("%s: cannot read it (%s)" % (path, e.strerror or e)) from e
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise RecordError("%s: not %s: not UTF-8 text (byte %d)" % (path, what, e.start)) from e
    except ValueError as e:
        raise RecordError("%s: not %s: invalid or truncated JSON (%s)" % (path, what, e)) from e
    return doc, hashlib.sha256(raw).hexdigest()


def _check_context(path, doc):
    """The context of a hotbench run JSON doc; NotARun for hotbench's e2e/peers files,
    RecordError for anything else that is not a run (no object, no hb_git_revision, no list
    of benchmarks)."""
    if not isinstance(doc, dict):
        raise RecordError("%s: not a hotbench run JSON: the top level is a JSON %s, not an "
                          "object with 'context' and 'benchmarks'" % (path, type(doc).__name__))
    if "benchmarks" not in doc and (isinstance(doc.get("groups"), (list, dict)) or
                                    str(doc.get("schema", "")).startswith("hotbench-")):
        raise NotARun("%s: a hotbench results file without 'benchmarks' (whole-process or "
                      "peers results), not an in-process run" % path)
    ctx = doc.get("context")
    if not isinstance(ctx, dict) or "hb_git_revision" not in ctx:
        raise RecordError("%s: not a hotbench run JSON: %s" % (
            path, "no 'context' object" if not isinstance(ctx, dict) else
            "its context has no hb_git_revision (a JSON file hotbench did not write)"))
    if not isinstance(doc.get("benchmarks"), list):
        raise RecordError("%s: not a hotbench run JSON: 'benchmarks' is %s, not a list" % (
            path, "missing" if "benchmarks" not in doc else type(doc["benchmarks"]).__name__))
    return ctx


def _finite(v):
    """True for an int or float (not bool) that is neither NaN nor infinite (an int too large
    for a float is not finite: it is never a double)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        return False
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


def number(path, name, metric, v):
    """float(v) of a measured value v (from JSON) when finite; None when v is missing, not a
    number, NaN or infinite (not a measurement: a row never timed). An integer too large for a
    float (a corrupt file) raises RecordError naming path, the benchmark name and metric."""
    if _finite(v):
        return float(v)
    if isinstance(v, int) and not isinstance(v, bool) and not _finite(v):
        digits = len(str(abs(v)))
        raise RecordError("%s: benchmark %s: %s %s...(%d digits) is not a finite number (too "
                          "large for a float)" % (path, text(path, name), metric,
                                                  str(v)[:12], digits))
    return None


def text(path, name):
    """repr of a benchmark name (str) for messages; RecordError naming path when it is not
    valid Unicode (a lone surrogate such as the JSON escape \\ud800: SQLite stores UTF-8)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as e:
        raise RecordError("%s: benchmark name %s is not valid Unicode (a lone surrogate "
                          "U+%04X at character %d)" % (path, ascii(name), ord(name[e.start]),
                                                       e.start)) from e
    return repr(name)


def _spread(values):
    """(median, lower, upper, n, cv) of a non-empty list of finite numbers."""
    n = len(values)
    mean = statistics.fmean(values)
    cv = statistics.stdev(values) / mean if n > 1 and mean != 0 else None
    return statistics.median(values), min(values), max(values), n, cv


def _row_unit(path, b):
    """Seconds per unit of a row's time_unit; RecordError naming path for an unknown one."""
    unit = b.get("time_unit", "ns")
    if unit not in TIME_UNIT:
        raise RecordError("%s: benchmark %r has time_unit %r (not one of %s)" % (
            path, b.get("name"), unit, ", ".join(TIME_UNIT)))
    return TIME_UNIT[unit]


def _collect(path, benchmarks):
    """({run_name: {metric: [seconds...]}} of repetition rows, {run_name: {aggregate: row}})."""
    reps, aggs = {}, {}
    for i, b in enumerate(benchmarks):
        if not isinstance(b, dict) or not isinstance(b.get("name"), str):
            raise RecordError("%s: benchmarks[%d] is not a google-benchmark row (no name)" %
                              (path, i))
        name = b.get("run_name") or b["name"]
        text(path, name)
        if b.get("error_occurred") or b.get("skipped") or b["name"].endswith(("_BigO", "_RMS")):
            continue
        if b.get("run_type") == "aggregate":
            aggs.setdefault(name, {})[b.get("aggregate_name")] = b
            continue
        scale = _row_unit(path, b)
        for metric in ("cpu_time", "real_time"):
            v = number(path, name, metric, b.get(metric))
            if v is not None:
                reps.setdefault(name, {}).setdefault(metric, []).append(v * scale)
    return reps, aggs


def measurements_of(path, benchmarks, verified):
    """The measurement dicts of a run's benchmark rows (see the module's docstring); raises
    RecordError naming path on a row that is not google-benchmark's, a benchmark name that is
    not valid Unicode, or a time that is an integer too large for a float."""
    reps, aggs = _collect(path, benchmarks)
    out = []
    for name, metrics in reps.items():
        for metric, values in metrics.items():
            med, lo, hi, n, cv = _spread(values)
            out.append(dict(benchmark=name, metric=metric, value=med, unit="s", lower=lo,
                            upper=hi, repetitions=n, cv=cv, verified=verified))
    for name, rows in aggs.items():  # a run written with aggregates only
        med = rows.get("median")
        if name in reps or med is None:
            continue
        scale = _row_unit(path, med)
        for metric in ("cpu_time", "real_time"):
            if number(path, name, metric, med.get(metric)) is None:
                continue
            cvrow = rows.get("cv") or {}
            cv = cvrow.get(metric) if _finite(cvrow.get(metric)) else None
            out.append(dict(benchmark=name, metric=metric, value=float(med[metric]) * scale,
                            unit="s",
                            lower=None, upper=None, repetitions=med.get("repetitions"),
                            cv=cv, verified=verified))
    return out


def tools_of(ctx):
    """The tools JSON of a context: compiler, build type and flags, google-benchmark, and every
    '<x>_version' key the cases add (zlib, expat, ...)."""
    tools = {k: ctx[c] for k, c in TOOL_KEYS if ctx.get(c) is not None}
    tools.update({k: v for k, v in ctx.items() if k.endswith("_version") and k not in
                  ("hb_benchmark_version",)})
    return json.dumps(tools, sort_keys=True)


def load_of(ctx):
    """The 1-minute load average at the start: google-benchmark's load_avg[0], else the first
    figure of bench.py's hb_loadavg; None when neither holds a number."""
    la = ctx.get("load_avg")
    if isinstance(la, list) and la and _finite(la[0]):
        return float(la[0])
    try:
        return float(str(ctx.get("hb_loadavg", "")).split()[0])
    except (IndexError, ValueError):
        return None


def source_name(root, path):
    """path as recorded in runs.source: relative to root when inside it, else absolute."""
    full, top = os.path.abspath(path), os.path.abspath(root)
    return os.path.relpath(full, top) if full.startswith(top + os.sep) else full


def run_row(root, ctx, kind, source, digest, selection=None, branch=None):
    """The runs row (dict of RUN_COLUMNS) of a context recorded as kind; source: the file's
    path (str), recorded relative to root."""
    source = source_name(root, source) if source else None
    revision, commit_time = resolve_revision(root, ctx.get("hb_git_revision"))
    machine, info = machine_of(ctx)
    return dict(revision=revision, commit_time=commit_time, branch=branch, machine=machine,
                machine_info=json.dumps(info, sort_keys=True), profile=ctx.get("hb_profile"),
                kind=kind, recorded_at=utc_now(), tools=tools_of(ctx), load=load_of(ctx),
                source=source, digest=digest, selection=selection)


def from_run_json(path, kind, root, branch=None, selection=None):
    """The Record of a run JSON file at path (str) recorded as kind ('bench', 'import', ...);
    root: the git repository revisions resolve in. Raises RecordError (NotARun for hotbench's
    e2e/peers files) naming the file: unreadable, not JSON or truncated, not hotbench's, no
    benchmark timed, a benchmark name that is not valid Unicode, a time not a finite number."""
    doc, digest = _load_json(path, "a hotbench run JSON")
    ctx = _check_context(path, doc)
    verified = 1 if ctx.get("hb_manifest") else None
    ms = measurements_of(path, doc["benchmarks"], verified)
    if not ms:
        raise RecordError("%s: no benchmark was timed (%d rows, all skipped, failed or empty): "
                          "nothing to record" % (path, len(doc["benchmarks"])))
    return Record(run_row(root, ctx, kind, path, digest, selection, branch), ms)

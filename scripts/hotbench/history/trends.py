"""trends - the history database read as one series per benchmark over commits, and the change
points of each (changepoints.e_divisive). No drawing, no HTML: the page (page.py) and its charts
(trendcharts.py) take what this module returns.

The rules (docs/history-page.md):
  * x axis: the commits, ordered by commit_time, then by the first recorded_at of their runs,
    then by revision. A revision ending in '-dirty' (a modified tree) is no commit: left out;
    so is the revision 'unknown' (or an empty one): a build outside git, which record.py
    records so (several different builds would otherwise be pooled as one commit).
  * a setup is what a figure depends on besides the code: the machine (fingerprint), the
    profile, and the method (a compare's head CPU time, the least of each process's
    repetitions, is not a bench run's median: kinds 'compare' and 'bench-ci' are that method, every other
    kind 'run').
  * one point per (commit, setup): the runs of a commit in one setup are pooled; its value is
    the median of the runs' medians, its spread the least `lower` and greatest `upper` (the
    extreme repetitions) over those runs.
  * change points are searched within each setup's points alone (in commit order): a change of
    machine, profile or method is not a regression, and two setups are never compared.
  * detection runs on the logarithm of the values when all are positive (timings: the noise is
    multiplicative and a regression is relative), on the values otherwise.
"""

import math
import re
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np

from . import changepoints


@dataclass(frozen=True)
class Commit:
    """One revision on the x axis: index its position (0 = oldest), revision the full sha,
    when the commit time (or, when unknown, its first recording) as an aware UTC datetime or
    None when neither parses."""
    index: int
    revision: str
    when: object

    def short(self):
        return self.revision[:10]

    def date(self):
        return self.when.strftime("%Y-%m-%d") if self.when else "?"


@dataclass(frozen=True)
class Point:
    """One commit's value in one setup: commit index, setup (setup_key), value (median of the
    runs' medians, in the measurement's unit), lower/upper (least and greatest repetition over
    those runs), runs pooled."""
    x: int
    setup: str
    value: float
    lower: float
    upper: float
    runs: int


@dataclass(frozen=True)
class Shift:
    """One change point: at the commit with index x (the first with the new level), previous
    the setup's commit measured just before (index), before/after the medians of the segments
    on either side (units of the series), relative = after / before - 1, pvalue the
    permutation p-value, setup the setup (setup_key) whose points changed."""
    benchmark: str
    setup: str
    x: int
    previous: int
    before: float
    after: float
    relative: float
    pvalue: float


@dataclass
class Trend:
    """One benchmark's series: points sorted by (x, setup), unit, the shifts found, note a
    sentence for the reader when detection did not run on some setup's points (too few)."""
    benchmark: str
    unit: str
    points: list
    shifts: list = field(default_factory=list)
    note: str = ""


def parse_time(text):
    """ISO 8601 text -> aware UTC datetime; None for None or text that does not parse."""
    if not text:
        return None
    try:
        d = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return d.replace(tzinfo=timezone.utc) if d.tzinfo is None else d.astimezone(timezone.utc)


def load(con, metric, pattern=None, profile=None, branch=None):
    """Reads metric's measurements from a history database connection (schema.connect).
    pattern: a regular expression searched in each benchmark name (None: all); profile: only
    runs of that profile (None: all); branch: only runs recorded on that branch (None: all).
    Returns (commits: list of Commit by index, trends: list of
    Trend by benchmark name, without shifts, dirty: how many runs were left out for having
    no commit: modified trees ('-dirty') and unknown revisions ('unknown' or empty: see
    unknown_revision)). Raises re.error on a bad pattern."""
    rx = re.compile(pattern) if pattern else None
    sql = ("SELECT r.revision, r.commit_time, r.recorded_at, r.machine, m.benchmark, m.value,"
           " m.lower, m.upper, m.unit, r.id, r.profile, r.kind FROM measurements m"
           " JOIN runs r ON r.id = m.run_id"
           " WHERE m.metric = ?" + (" AND r.profile = ?" if profile else "") +
           (" AND r.branch = ?" if branch else ""))
    params = [metric] + [v for v in (profile, branch) if v]
    rows, dirty = [], set()
    for row in con.execute(sql, params):
        if unknown_revision(row[0]):
            dirty.add(row[9])
        elif (rx is None or rx.search(row[4])) and math.isfinite(row[5]):
            rows.append(row)  # (an infinite value, which SQLite can hold, is no measurement)
    first = {}
    for rev, ctime, rec, *_ in rows:
        t = parse_time(rec)
        key = (parse_time(ctime) or t, t)
        first[rev] = min(first.get(rev, key), key, key=_time_key)
    order = sorted(first, key=lambda r: (_time_key(first[r]), r))
    commits = [Commit(i, r, first[r][0]) for i, r in enumerate(order)]
    index = {c.revision: c.index for c in commits}
    groups, units = {}, {}
    for rev, _, _, machine, bench, value, lower, upper, unit, _, prof, kind in rows:
        setup = setup_key(machine, prof, kind)
        groups.setdefault(bench, {}).setdefault((index[rev], setup), []).append(
            (value, value if lower is None else lower, value if upper is None else upper))
        units[bench] = unit
    trends = [Trend(b, units[b], [_pool(x, setup, runs) for (x, setup), runs in
                                  sorted(groups[b].items())]) for b in sorted(groups)]
    return commits, trends, len(dirty)


def unknown_revision(revision):
    """True when a run's revision (str) names no commit: a modified tree (ending in '-dirty'),
    or a build outside git ('unknown', the value hotbench records then, or empty)."""
    return revision.endswith("-dirty") or revision.strip() in ("", "unknown")


def setup_key(machine, profile, kind):
    """The setup of a run (module docstring) as one string: 'machine|profile|method'."""
    return "%s|%s|%s" % (machine, profile or "-", "compare" if kind in COMPARE_KINDS else "run")


# the kinds whose figures a compare measured (make compare, make bench-ci; a compare folder
# imported is recorded as 'compare' too): the head's least repetition per process, not a median
COMPARE_KINDS = ("compare", "bench-ci")


def setup_label(setup):
    """A setup for a reader: the machine's first 8 characters, the profile, and 'compare' for a
    compare's figures: 'a1b2c3d4 quick', 'a1b2c3d4 ci compare'."""
    machine, profile, method = setup.rsplit("|", 2)
    return " ".join([machine[:8]] + ([profile] if profile != "-" else []) +
                    (["compare"] if method == "compare" else []))


def _time_key(pair):
    """Sort key of (commit time, recorded time), either possibly None (sorts first)."""
    return tuple((d is not None, d or datetime.min.replace(tzinfo=timezone.utc)) for d in pair)


def _pool(x, setup, runs):
    v = np.array(runs, dtype=float)
    return Point(x, setup, float(np.median(v[:, 0])), float(v[:, 1].min()),
                 float(v[:, 2].max()), len(runs))


def detect(trend, sig_level, permutations, min_size, exponent=1.0, seed=0):
    """Finds trend's change points, setup by setup (module docstring); fills trend.shifts
    (sorted by x) and trend.note. The seed of each setup's permutations is derived from seed,
    the benchmark and the setup, so a benchmark's result does not depend on which others are
    analysed. Returns trend."""
    trend.shifts, notes = [], []
    for setup in sorted({p.setup for p in trend.points}):
        pts = [p for p in trend.points if p.setup == setup]
        if len(pts) < 2 * min_size:
            notes.append("%d point%s on %s: change points need %d" % (
                len(pts), "" if len(pts) == 1 else "s", setup_label(setup), 2 * min_size))
            continue
        v = np.array([p.value for p in pts])
        z = np.log(v) if np.all(v > 0) else v
        s = [seed, zlib.crc32(("%s\0%s" % (trend.benchmark, setup)).encode())]
        cps = changepoints.e_divisive(z, sig_level, permutations, min_size, exponent, seed=s)
        cuts = [0] + [c.index for c in cps] + [len(pts)]
        for j, c in enumerate(cps):
            before = float(np.median(v[cuts[j]:cuts[j + 1]]))
            after = float(np.median(v[cuts[j + 1]:cuts[j + 2]]))
            rel = after / before - 1 if before != 0 else math.inf
            trend.shifts.append(Shift(trend.benchmark, setup, pts[c.index].x,
                                      pts[c.index - 1].x, before, after, rel, c.pvalue))
    trend.shifts.sort(key=lambda s: (s.x, s.setup))
    trend.note = "; ".join(notes)
    return trend


def detect_all(trends, sig_level, permutations, min_size, exponent=1.0, seed=0, progress=None):
    """detect() on every trend; progress(text) is called about every 10 s with how far it got
    (None: silent). Returns every shift, sorted for the summary: by p-value, then by the size
    of the relative shift, largest first."""
    start = last = time.monotonic()
    for i, t in enumerate(trends):
        detect(t, sig_level, permutations, min_size, exponent, seed)
        now = time.monotonic()
        if progress and now - last >= 10:
            progress("change points: %d/%d series, %.0f s" % (i + 1, len(trends), now - start))
            last = now
    shifts = [s for t in trends for s in t.shifts]
    return sorted(shifts, key=lambda s: (s.pvalue, -abs(s.relative), s.benchmark, s.x))


def setup_changes(trend):
    """The x positions between consecutive points (in commit order) measured in different
    setups: a list of (x before, x after, new setup)."""
    out = []
    for a, b in zip(trend.points, trend.points[1:]):
        if a.setup != b.setup and a.x != b.x:
            out.append((a.x, b.x, b.setup))
    return out

"""shards - the compare's selection cut into N parts, one per CI runner (`--shard i/N`, `make
bench-ci SHARD=i/N`; merged by merge.py; docs/compare.md, "Shards").

A part holds whole strategies: a strategy is a benchmark name's first two fields,
"<case>/<strategy>" (STYLE rule 11: `<case>/<strategy>/<arg-name>:<value>`), and all its sizes
go to one part, so that its sizes pooled (trials.Samples.pooled) are still measured by one set
of processes.

The parts are balanced by each strategy's expected seconds in the compare, priced by the
compare's own duration model (duration.py) from the committed reference run
(results/reference/run.json): its benchmarks' screening (blocks x 4 processes at the compare's
minimum time and repetitions, only those the probe keeps under --max-iteration), one probe
iteration each, and the callgrind run of those the instruction selection holds. A benchmark the
record lacks is priced like its recorded neighbours (estimate.fallback_seconds: its strategy's
median, else its group's, else all). Never by a cost measured on the runner: each runner cuts
the selection by itself, and only a record every runner reads alike gives every runner the same
cut (a probe measured on each runner would give each its own cut, with some strategies in two
parts and some in none).

The cut is longest processing time first (Graham, "Bounds on multiprocessing timing anomalies",
SIAM J. Appl. Math. 17, 1969; its longest part is at most 4/3 of the best possible): the
strategies in decreasing cost, ties by name, each to the part with the least cost so far, ties
to the lower index. The same names, record and settings give the same parts everywhere.
"""

import hashlib
import re

from .. import estimate as model
from . import duration

SHARD = re.compile(r"^\s*([0-9]+)\s*/\s*([0-9]+)\s*$")


def parse(text):
    """(i, n) from "i/N", 1 <= i <= n; raises ValueError naming the text otherwise."""
    m = SHARD.match(text or "")
    if not m:
        raise ValueError("--shard wants i/N (e.g. 1/2), not %r" % text)
    i, n = int(m.group(1)), int(m.group(2))
    if n < 1 or not 1 <= i <= n:
        raise ValueError("--shard %s: want 1 <= i <= N" % text.strip())
    return i, n


def strategy_of(name):
    """"<case>/<strategy>" of a benchmark name (its first two fields)."""
    return "/".join(name.split("/")[:2])


def selection_hash(names):
    """The sha256 (hex) of the selection: its benchmark names sorted, one a line."""
    return hashlib.sha256("".join(n + "\n" for n in sorted(names)).encode()).hexdigest()


def costs(names, ir_names, rows, opts):
    """{strategy: expected seconds} of the benchmarks names (a list) in a compare with Options
    opts (blocks, min_time, repetitions, max_iteration_s): the module's model; ir_names: those
    counted under callgrind; rows: the reference run's rows (estimate.run_rows; {} prices every
    benchmark at duration.C_BENCH, so the cut balances the number of benchmarks)."""
    names = sorted(names)
    each = []
    duration.process_seconds(names, rows, opts.min_time, opts.repetitions, each=each)
    probe = []
    duration.process_seconds(names, rows, 0.0, 1, each=probe)
    keep = set(duration.kept(names, rows, opts.max_iteration_s))
    ir = set(ir_names)
    priced = {n: r["t"] for n, r in rows.items() if not r["skipped"] and r["reps"]}
    out = {}
    for n, (timed, over), (pt, po) in zip(names, each, probe):
        secs = pt + po
        if n in keep:
            secs += opts.blocks * 4 * (timed + over)
        if n in ir:
            t = priced.get(n, model.fallback_seconds(n, priced) if priced else 0.0)
            secs += duration.callgrind_seconds(t)
        s = strategy_of(n)
        out[s] = out.get(s, 0.0) + secs
    return out


def split(cost, n):
    """The strategies of cost ({strategy: seconds}) in n parts by longest processing time
    first (the module's rule): a list of n sorted lists (some empty when there are fewer
    strategies than parts)."""
    parts, loads = [[] for _ in range(n)], [0.0] * n
    for s in sorted(cost, key=lambda k: (-cost[k], k)):
        k = min(range(n), key=lambda j: (loads[j], j))
        parts[k].append(s)
        loads[k] += cost[s]
    return [sorted(p) for p in parts]


def cut(names, ir_names, rows, opts, index, count):
    """Shard index of count (1-based) of the selection names: (its benchmark names, sorted;
    the record compare.json keeps as "shard": index, count, selection_sha256, benchmarks (the
    selection's count), parts (each part's strategies), expected_s (each part's cost))."""
    cost = costs(names, ir_names, rows, opts)
    parts = split(cost, count)
    mine = set(parts[index - 1])
    record = dict(index=index, count=count, selection_sha256=selection_hash(names),
                  benchmarks=len(names), parts=parts,
                  expected_s=[round(sum(cost[s] for s in p), 1) for p in parts])
    return sorted(n for n in names if strategy_of(n) in mine), record

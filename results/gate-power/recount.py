#!/usr/bin/python3
"""recount.py - the strategy lines of kept compares (gate_power.py --keep) made again with this
checkout's rules (hotbench/compare/strategies.relined), beside the ones they recorded.

A rule of the strategy line that changes after a series was measured changes no row verdict,
only the summary: each kept compare.json holds the rows (with their checks) and each
strategy's pooled time verdict, from which the line is made again without measuring. What a
rule needs that a compare did not record counts as absent: a compare recorded before a
strategy could be `improved` by its confirmation's processes (strategies.improved_by) has no
such line, so its time-only improvements come out undecided; where it has one, the rules that
need the confirmation's processes (the copies' interval, strategies.improved_by) are this
checkout's where the line kept its confirmation's values (pooled.confirmation, since 92decd7)
and as it recorded them before; the line's own estimate below 1 (strategies.line) is this
checkout's.

usage: results/gate-power/recount.py RUNS_DIR [RUNS_DIR...]
  RUNS_DIR  a series' runs directory (results/gate-power/<label>-runs), whose compares were
            kept (<level>-<index>/compare.json, or compare.json.gz as committed here)
Prints one line per compare (its recorded and its recounted verdict counts) and, per level,
the recounted number of strategies decided in each compare; exit 1 when a directory is missing
or holds no kept compare, or a compare.json cannot be read, 2 on usage.
"""
import collections
import glob
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
from hotbench.compare import strategies, table  # noqa: E402  (the path above first)
from hotbench.compare.engine import Options  # noqa: E402


def decided(lines):
    """How many of the strategy lines are decided (strategies.DECIDED)."""
    return sum(1 for st in lines if st["verdict"] in strategies.DECIDED)


def recount(path):
    """(recorded, recounted) strategy lines of the compare.json at path; ValueError naming
    the file when it cannot be read or lacks what a compare records."""
    try:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            doc = json.load(f)
        opts = Options(min_effect=doc["settings"]["min_effect"])
        again = strategies.relined(doc["rows"], doc["strategies"], opts)
    except (OSError, ValueError, EOFError) as e:
        raise ValueError("%s: not readable as JSON (%s)" % (path, e))
    except (KeyError, TypeError) as e:
        raise ValueError("%s: not a compare.json (schema hotbench-compare/1): %s %s" % (
            path, type(e).__name__, e))
    return doc["strategies"], again


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    status = 0
    for runs in argv:
        if not os.path.isdir(runs):
            print("recount: %s: no such directory" % runs, file=sys.stderr)
            status = 1
            continue
        paths = sorted(glob.glob(os.path.join(runs, "*", "compare.json")) +
                       glob.glob(os.path.join(runs, "*", "compare.json.gz")))
        if not paths:
            print("recount: %s holds no kept compare (<level>-<index>/compare.json): was the "
                  "series run with --keep?" % runs, file=sys.stderr)
            status = 1
            continue
        by_level = collections.defaultdict(list)
        for p in paths:
            name = os.path.basename(os.path.dirname(p))
            try:
                before, after = recount(p)
            except ValueError as e:
                print("recount: %s" % e, file=sys.stderr)
                status = 1
                continue
            by_level[name.split("-")[0]].append(decided(after))
            print("%s %s: recorded %s; recounted %s" % (
                runs.rstrip("/"), name, table.decided_text(before)[len("strategies: "):],
                table.decided_text(after)[len("strategies: "):]))
        for level, numbers in sorted(by_level.items()):
            print("%s level %s: strategies decided (recounted) per compare: %s" % (
                runs.rstrip("/"), level, " ".join(map(str, numbers))))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

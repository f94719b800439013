"""importer - `make history-import`: run JSON files, compare folders and other history
databases into this one, each source in its own transaction, each recorded once.

A run JSON is recorded with kind 'import', a compare folder with kind 'compare' (record.py, fromcompare.py); a
file starting with SQLite's header is another runner's history.sqlite, whose runs are merged
with their own kinds (store.merge). A refused source (not JSON, truncated, not hotbench's, a
database of another schema) is named with the reason and leaves nothing behind.
"""

import glob
import os
import sqlite3

from . import schema, store
from .fromcompare import from_compare_dir
from .record import NotARun, RecordError, from_run_json


def default_sources(root):
    """results/runs/*.json and results/runs/*-compare/ under root, sorted (oldest name first)."""
    runs = os.path.join(root, "results", "runs")
    files = sorted(glob.glob(os.path.join(runs, "*.json")))
    dirs = sorted(d for d in glob.glob(os.path.join(runs, "*-compare")) if os.path.isdir(d))
    return files + dirs


class Summary:
    """added, already (recorded before), merged (runs added from databases), refused [(path,
    reason)], not_runs [(path, reason)]: hotbench files that are not runs (e2e, peers)."""

    def __init__(self):
        self.added, self.already, self.merged = 0, 0, 0
        self.refused, self.not_runs = [], []


# What one source's own content can raise past the parsers' checks (a value SQLite cannot
# store, two rows with one key): that source is refused, rolled back, and the others go on.
SOURCE_ERRORS = (ValueError, OverflowError, sqlite3.IntegrityError)


def import_one(con, path, root, summary, log):
    """Records one source (str path) into con, updating summary. Never raises RecordError,
    SchemaError, nor SOURCE_ERRORS (UnicodeError is a ValueError) from one source: they become
    refusals (path, reason), the source's transaction rolled back. Other sqlite3 errors of con
    (locked, disk full) and Ctrl-C propagate."""
    try:
        if os.path.isdir(path):
            rec = from_compare_dir(path, "compare", root)  # a compare's figures (trends.py)
        elif store.is_sqlite(path):
            added, skipped = store.merge(con, path)
            summary.merged += added
            summary.already += skipped
            log("%s: merged %d runs (%d already here)" % (path, added, skipped))
            return
        else:
            rec = from_run_json(path, "import", root)
        run_id, new = store.write(con, rec)
    except NotARun as e:
        summary.not_runs.append((path, str(e)))
        return
    except (RecordError, schema.SchemaError) as e:
        summary.refused.append((path, str(e)))  # listed once, at the end
        return
    except SOURCE_ERRORS as e:
        summary.refused.append((path, "%s: %s: %s" % (path, type(e).__name__, e)))
        return
    if new:
        summary.added += 1
        log("%s: run %d (%d measurements, revision %s)" % (
            rec.run["source"], run_id, len(rec.measurements), rec.run["revision"][:12]))
    else:
        summary.already += 1
        log("%s: already recorded (run %d)" % (rec.run["source"], run_id))


def _same_file(a, b):
    """True when the paths a and b (str) name one file (b may not exist yet)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def import_all(db_path, paths, root, log=print):
    """Imports paths (list of str) into the database at db_path; returns a Summary; log (one
    str per call) gets a line per source, and one for db_path itself given as a source
    (skipped). Raises schema.SchemaError when db_path itself is not a history database or one
    of its sqlite3 errors stops the import (locked, disk full: the message names db_path)."""
    summary = Summary()
    con = store.open_db(db_path)
    try:
        for p in paths:
            if _same_file(p, db_path):
                log("%s: skipped: it is the database imported into" % p)
                continue
            import_one(con, p, root, summary, log)
    except sqlite3.Error as e:
        raise schema.SchemaError("%s: %s" % (db_path, e)) from e
    finally:
        con.close()
    return summary

"""store - writing Records into the history database and merging another one into it.

Every write is one transaction taken with BEGIN IMMEDIATE (the write lock first, so two
processes ending at once queue on the 30 s busy timeout of schema.connect instead of failing),
and the digest is checked inside it: the same source recorded twice, even by two processes at
once, is one run.
"""

import os
import sqlite3

from . import schema
from .record import MEASUREMENT_COLUMNS, RUN_COLUMNS

DEFAULT = os.path.join("results", "history.sqlite")
ENV = "HB_HISTORY"
SQLITE_MAGIC = b"SQLite format 3\x00"


def default_path(root):
    """The database's path: $HB_HISTORY when set (and not 'off', which only stops the runs'
    own recording: live.target), else root/results/history.sqlite."""
    env = os.environ.get(ENV)
    return env if env and env != "off" else os.path.join(root, DEFAULT)


def open_db(path):
    """schema.connect(path) after creating its folder; raises schema.SchemaError."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    return schema.connect(path)


def is_sqlite(path):
    """True when the file at path starts with SQLite's header (a history database to merge)."""
    try:
        with open(path, "rb") as f:
            return f.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def _insert(con, run, measurements):
    """Inserts a runs row (dict) and its measurements (dicts) inside the caller's transaction;
    the new run's id."""
    cols = [c for c in RUN_COLUMNS if c in run]
    cur = con.execute("INSERT INTO runs(%s) VALUES (%s)" % (
        ",".join(cols), ",".join("?" * len(cols))), [run[c] for c in cols])
    run_id = cur.lastrowid
    con.executemany("INSERT INTO measurements(run_id,%s) VALUES (?,%s)" % (
        ",".join(MEASUREMENT_COLUMNS), ",".join("?" * len(MEASUREMENT_COLUMNS))),
        [[run_id] + [m[c] for c in MEASUREMENT_COLUMNS] for m in measurements])
    return run_id


def _existing(con, run):
    """The id of a run already recorded from the same source bytes, or None."""
    if run.get("digest") is None:
        row = con.execute("SELECT id FROM runs WHERE digest IS NULL AND revision=? AND "
                          "machine=? AND kind=? AND recorded_at=?",
                          (run["revision"], run["machine"], run["kind"], run["recorded_at"])
                          ).fetchone()
    else:
        row = con.execute("SELECT id FROM runs WHERE digest=?", (run["digest"],)).fetchone()
    return row[0] if row else None


def write(con, rec):
    """Records rec (record.Record) in one transaction on con (schema.connect's connection, in
    autocommit mode). Returns (run id, True) for a new run, (the recorded run's id, False) when
    a run with the same digest is there already. On any error nothing is written and the
    sqlite3.Error propagates."""
    con.execute("BEGIN IMMEDIATE")
    try:
        old = _existing(con, rec.run)
        if old is not None:
            con.execute("ROLLBACK")
            return old, False
        run_id = _insert(con, rec.run, rec.measurements)
        con.execute("COMMIT")
        return run_id, True
    except BaseException:  # Ctrl-C included: nothing half-written
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise


def _read(src, path, sql, params=()):
    """src.execute(sql, params).fetchall() on a source database; its sqlite3 errors (a corrupt
    page, text that is not UTF-8) become SchemaError naming path: the source is refused, not
    the target blamed."""
    try:
        return src.execute(sql, params).fetchall()
    except sqlite3.Error as e:
        raise schema.SchemaError("%s: cannot read it (%s: %s)" % (path, type(e).__name__, e)) \
            from e


def merge(con, other_path):
    """Copies every run of the history database at other_path (str) with its measurements into
    con, in one transaction; runs already there (same digest; without a digest, the same
    revision, machine, kind and recording time) are skipped. Returns (added, skipped). The
    source is opened read-only and never changed. Raises schema.SchemaError when other_path is
    not a history database of this version or cannot be read; sqlite3 errors of con propagate;
    on any error nothing is added."""
    src = schema.connect(other_path, create=False, readonly=True)
    try:
        have = {r[1] for r in _read(src, other_path, "PRAGMA table_info(runs)")}
        cols = [c for c in RUN_COLUMNS if c in have]
        runs = _read(src, other_path, "SELECT id,%s FROM runs ORDER BY id" % ",".join(cols))
        sql = "SELECT %s FROM measurements WHERE run_id=?" % ",".join(MEASUREMENT_COLUMNS)
        added = skipped = 0
        con.execute("BEGIN IMMEDIATE")
        try:
            for row in runs:
                run = dict(zip(cols, row[1:]))
                if _existing(con, run) is not None:
                    skipped += 1
                    continue
                ms = [dict(zip(MEASUREMENT_COLUMNS, m))
                      for m in _read(src, other_path, sql, (row[0],))]
                _insert(con, run, ms)
                added += 1
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
        return added, skipped
    finally:
        src.close()


def counts(con, run_id):
    """{metric: number of measurements} of one run."""
    return dict(con.execute("SELECT metric, COUNT(*) FROM measurements WHERE run_id=? "
                            "GROUP BY metric", (run_id,)).fetchall())

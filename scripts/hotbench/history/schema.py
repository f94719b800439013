"""schema - the history database: SQLite through the standard sqlite3 module.

One file (default results/history.sqlite, git-ignored). Tables:
  meta(key, value)          'schema' = SCHEMA_VERSION
  runs                      one row per recorded run: revision (full sha, '-dirty' suffix for a
                            modified tree), commit_time (ISO 8601 UTC of the commit), branch,
                            machine (fingerprint hash: CPU model, cores, memory, kernel, compiler,
                            library versions), machine_info (JSON of what the hash covers), profile
                            ('full', 'quick', 'ci', ...), kind ('bench', 'bench-quick', 'bench-ci',
                            'compare', 'backfill', 'import'), recorded_at (ISO 8601 UTC), tools
                            (JSON: compiler, google-benchmark, zlib, expat, ...), load (1-min load
                            average at the start), source (the file it came from, or NULL), digest
                            (sha256 of the source's bytes: the same file imported twice is one run),
                            selection (what a run selected when not the profile's whole suite:
                            e.g. a backfill's "filter=... repetitions=..."; NULL otherwise; added
                            after version 1 shipped, as a nullable column connect() adds to an
                            older file)
  measurements              one row per (run, benchmark, metric): value is the median over the
                            repetitions in unit, lower/upper the least and greatest repetition,
                            repetitions the count, cv the coefficient of variation (NULL when one),
                            verified 1 when the strategy's output was checked against the
                            reference before timing, 0 when not, NULL when unknown.
Metrics: 'cpu_time' and 'real_time' (unit 's', per iteration), 'instructions' (unit
'instructions', per iteration, callgrind), 'ratio' (unit 'ratio', head/base CPU time of a compare).
"""

import os
import sqlite3
import urllib.parse

SCHEMA_VERSION = 1

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  revision TEXT NOT NULL,
  commit_time TEXT,
  branch TEXT,
  machine TEXT NOT NULL,
  machine_info TEXT,
  profile TEXT,
  kind TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  tools TEXT,
  load REAL,
  source TEXT,
  digest TEXT UNIQUE,
  selection TEXT
);
CREATE TABLE IF NOT EXISTS measurements (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  benchmark TEXT NOT NULL,
  metric TEXT NOT NULL,
  value REAL NOT NULL,
  unit TEXT NOT NULL,
  lower REAL,
  upper REAL,
  repetitions INTEGER,
  cv REAL,
  verified INTEGER,
  PRIMARY KEY (run_id, benchmark, metric)
);
CREATE INDEX IF NOT EXISTS measurements_by_benchmark ON measurements(benchmark, metric);
"""


class SchemaError(Exception):
    """The file is not a hotbench history database of a version this code reads."""


def connect(path, create=True, readonly=False):
    """Opens the history database at path (str); returns a sqlite3.Connection in autocommit
    mode (isolation_level None) with foreign keys on and a 30 s busy timeout, so two writers
    ending at once wait for each other instead of failing. The caller owns it and closes it.

    create=True (the target a run is recorded into): a file that does not exist yet, or is
    empty (0 bytes, or SQLite without a table), is initialised; then, once the schema is
    verified, the file is switched to WAL journaling. create=False (readers: the trend page):
    nothing is created (a missing file is an error) and the journal mode is left alone.
    readonly=True (a source merged into another database): opened with mode=ro, nothing in
    the file is changed, not even the columns added after version 1.

    Raises SchemaError naming path and what was found when the file cannot be opened, is not
    SQLite, holds another application's tables and no hotbench schema ("not a hotbench history
    database: it holds other tables (x, y) ..."), or a meta.schema other than SCHEMA_VERSION
    ("history schema 'v2-beta', this code reads 1"). A file refused is left byte for byte as
    it was: nothing is written before the schema is verified."""
    mode = "ro" if readonly else ("rwc" if create else "rw")
    uri = "file:%s?mode=%s" % (urllib.parse.quote(os.path.abspath(path)), mode)
    try:
        con = sqlite3.connect(uri, uri=True, timeout=30.0, isolation_level=None)
    except sqlite3.Error as e:
        raise SchemaError("%s: cannot open it as a history database (%s)" % (path, e)) from e
    try:
        con.execute("PRAGMA foreign_keys = ON")
        version = _version(con, path)
        if version is None and create and not readonly:
            _initialise(con, path)
            version = _version(con, path)
        if version is None:
            raise SchemaError("%s: not a hotbench history database: %s" % (path, _what(con)))
        if version != str(SCHEMA_VERSION):
            raise SchemaError("%s: history schema %r, this code reads %d" %
                              (path, version, SCHEMA_VERSION))
        if not readonly:
            _add_columns(con)
        if create and not readonly:
            con.execute("PRAGMA journal_mode = WAL")  # only on a verified hotbench history
    except sqlite3.DatabaseError as e:
        con.close()
        raise SchemaError("%s: not a hotbench history database (%s)" % (path, e)) from e
    except SchemaError:
        con.close()
        raise
    return con


def _tables(con):
    """The names of the file's own tables (not SQLite's internal ones), sorted."""
    return sorted(r[0] for r in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"))


def _what(con):
    """Why a file without meta.schema is not a history: for SchemaError's message."""
    tables = _tables(con)
    if not tables:
        return "it is empty (no tables)"
    if "meta" in tables:
        return "its meta table has no 'schema' entry"
    return "it holds other tables (%s) and no hotbench schema" % ", ".join(tables)


def _initialise(con, path):
    """Creates the tables and meta.schema in an empty file (path only for messages), in one
    transaction: a second process initialising at once waits, then finds it done. A file that
    holds any table is left alone (connect then raises SchemaError from _what)."""
    con.execute("BEGIN IMMEDIATE")
    try:
        if not _tables(con):  # checked under the write lock: nothing foreign is touched
            for statement in _TABLES.split(";"):
                if statement.strip():
                    con.execute(statement)
            con.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)",
                        (str(SCHEMA_VERSION),))
        con.execute("COMMIT")
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise


# Nullable columns added to version 1 after it shipped: (table, column, type). A file made
# before they existed gets them on connect (readers of the older columns are unaffected).
_ADDED = (("runs", "selection", "TEXT"),)


def _add_columns(con):
    for table, column, kind in _ADDED:
        have = {r[1] for r in con.execute("PRAGMA table_info(%s)" % table)}
        if column in have:
            continue
        try:
            con.execute("ALTER TABLE %s ADD COLUMN %s %s" % (table, column, kind))
        except sqlite3.OperationalError as e:
            if "duplicate column" not in str(e):  # another process added it just now
                raise


def _version(con, path):
    """meta.schema as stored (a str, e.g. '1'), or None when there is no meta table or no
    'schema' entry; path only for messages."""
    if "meta" not in _tables(con):
        return None
    row = con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return None if row is None else str(row[0])

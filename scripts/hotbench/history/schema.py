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

import sqlite3

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


def connect(path, create=True):
    """Opens (and with create, initialises) the history database at path; returns a
    sqlite3.Connection with foreign keys on, WAL journaling and a 30 s busy timeout, so two
    writers ending at once wait for each other instead of failing. Raises SchemaError when the
    file is not SQLite or holds another schema version, naming the path and what was found."""
    con = sqlite3.connect(path, timeout=30.0, isolation_level=None)
    try:
        con.execute("PRAGMA foreign_keys = ON")
        con.execute("PRAGMA journal_mode = WAL")
        version = _version(con)
        if version is None and create:
            # one transaction: a second process initialising at once waits, then finds it done
            con.executescript("BEGIN IMMEDIATE;" + _TABLES +
                              "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', '%d');"
                              "COMMIT;" % SCHEMA_VERSION)
            version = _version(con)
        if version != SCHEMA_VERSION:
            raise SchemaError("%s: history schema %s, this code reads %d" %
                              (path, version, SCHEMA_VERSION))
        _add_columns(con)
    except sqlite3.DatabaseError as e:
        con.close()
        raise SchemaError("%s: not a hotbench history database (%s)" % (path, e)) from e
    except SchemaError:
        con.close()
        raise
    return con


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


def _version(con):
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError:
        return None  # no meta table: a new, empty file
    return int(row[0]) if row else None

#!/usr/bin/python3
"""history.py - the results database across commits (results/history.sqlite, docs/history.md).

    scripts/history.py import [FILE|DIR|DB ...]   make history-import [FILES=...]
    scripts/history.py run A..B [--filter ERE]    make history-run REVS=A..B [FILTER=...]
    scripts/history.py record FILE|DIR            one run JSON or compare folder, now
    scripts/history.py page ...                   the trend page (make history)

`make bench`, `make bench-quick`, `make compare` and `make bench-ci` append their run by
themselves (HB_HISTORY=off, or their --no-history, skips it). The database is $HB_HISTORY, else results/history.sqlite;
--history PATH names another.
"""

import argparse
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hotbench.history import backfill, importer, schema, store  # noqa: E402
from hotbench.history.fromcompare import from_compare_dir  # noqa: E402
from hotbench.history.record import RecordError, from_run_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_HELP = """Builds each commit of REVS (A..B: the commits after A up to B along first
parents, oldest first; or one revision) in a git worktree, cached in build-rev/<commit>/ as the
compare does, runs its hotbench on the selection and records it (kind 'backfill'), with a line
per commit: i/n, sha, subject, elapsed and estimated remaining time.

Default selection: what the compare screens, the cases' gate.select (every case and strategy,
a few sizes each; the commit's own manifest: about 270 benchmarks) at --hb_profile=full
--hb_budget=%g --hb_repetitions=%d --benchmark_min_time=%g, with the compare's pinned malloc
thresholds. About 1.5-2.5 minutes per commit on 2 vCPUs: a fresh build 0:49-1:17 and the run
0:47-1:07 (measured at load 1.5-3 and 5-6; docs/history.md); a cached build costs nothing.
FILTER (--filter) narrows it.

Resumable: a commit already recorded for this machine with the same selection (--filter,
--repetitions, --min-time, --budget) is skipped and said so; Ctrl-C records nothing of the
commit it interrupts. A commit that does not build, whose hotbench fails, or whose hotbench
lacks an option is reported (an option it lacks is left out or replaced, and said so) and the
others go on. A commit that does not build is reported `not built` with its first compiler
error and its build log (build-rev/<commit>/build.log), and is not recorded: a later run tries
it again. The run JSON files stay in results/runs/backfill/.
Exit status: 0 every commit recorded or skipped, 1 some commit failed (its hotbench), 3 some
commit did not build and none failed, 2 usage, 130 Ctrl-C.""" % (
    backfill.DEFAULT_BUDGET, backfill.DEFAULT_REPETITIONS, backfill.DEFAULT_MIN_TIME)
IMPORT_HELP = """Records run JSON files (kind 'import'), compare folders (kind 'compare',
results/runs/<UTC>-compare/) and other history databases (their runs merged, with their own
kinds): what several runners' results/history.sqlite files become one history with. Default:
results/runs/*.json and results/runs/*-compare/. Each source is one transaction and recorded once (the
sha256 of its bytes); a corrupt or foreign file is refused, named with the reason, and leaves
nothing behind; hotbench's e2e and peers files are not runs and are passed over.
Exit status: 0, 1 when a source was refused, 2 usage."""


def db_of(args):
    """The database path: --history, else $HB_HISTORY, else results/history.sqlite."""
    return getattr(args, "history", None) or store.default_path(ROOT)


def cmd_import(args):
    """history.py import: the sources given (default results/runs/); exit 1 when one was refused."""
    paths = args.sources or importer.default_sources(ROOT)
    if not paths:
        print("history import: nothing to import (no results/runs/*.json or *-compare/)")
        return 0
    s = importer.import_all(db_of(args), paths, ROOT)
    for p, why in s.not_runs:
        print("passed over %s: %s" % (p, why))
    print("history import into %s: added %d, merged from databases %d, already recorded %d, "
          "refused %d, not runs %d" % (db_of(args), s.added, s.merged, s.already,
                                       len(s.refused), len(s.not_runs)))
    for p, why in s.refused:
        print("refused: %s" % why, file=sys.stderr)
    return 1 if s.refused else 0


def cmd_record(args):
    """history.py record: one run JSON or compare folder; exit 1 when refused (the source's
    own content: RecordError, or importer.SOURCE_ERRORS at the write, rolled back), 2 through
    main when the database is not a history or fails."""
    try:
        kind = "compare" if os.path.isdir(args.source) and args.kind == "import" else args.kind
        rec = (from_compare_dir(args.source, kind, ROOT) if os.path.isdir(args.source)
               else from_run_json(args.source, args.kind, ROOT))
    except RecordError as e:
        print("history record: refused: %s" % e, file=sys.stderr)
        return 1
    except importer.SOURCE_ERRORS as e:
        print("history record: refused: %s: %s: %s" % (args.source, type(e).__name__, e),
              file=sys.stderr)
        return 1
    con = store.open_db(db_of(args))
    try:
        run_id, new = store.write(con, rec)
        counts = store.counts(con, run_id)
    except importer.SOURCE_ERRORS as e:  # store.write rolled it back
        print("history record: refused: %s: %s: %s" % (args.source, type(e).__name__, e),
              file=sys.stderr)
        return 1
    except sqlite3.Error as e:
        raise schema.SchemaError("%s: %s" % (db_of(args), e)) from e
    finally:
        con.close()
    print("%s run %d in %s: revision %s, %s" % (
        "recorded" if new else "already recorded as", run_id, db_of(args),
        rec.run["revision"], ", ".join("%d %s" % (n, m) for m, n in sorted(counts.items()))))
    return 0


def cmd_run(args):
    """history.py run: the backfill of args.revs; exit 1 when a commit failed, 3 when one did
    not build (and none failed), 2 for a bad range, 130 on Ctrl-C."""
    try:
        commits = backfill.expand(ROOT, args.revs)
    except backfill.RangeError as e:
        print("history run: %s" % e, file=sys.stderr)
        return 2
    b = backfill.Backfill(ROOT, db_of(args), args.filter, args.repetitions, args.min_time,
                          args.budget, log=lambda m: print(m, flush=True))
    print("history run: %d commit%s into %s; selection: %s" % (
        len(commits), "" if len(commits) == 1 else "s", db_of(args), b.selection), flush=True)
    try:
        counts = b.run_all(commits)
    except KeyboardInterrupt:
        return 130
    print("history run: %d recorded, %d already recorded, %d not built, %d failed" % (
        counts["recorded"], counts["skipped"], counts[backfill.NOT_BUILT], counts["failed"]))
    for sha, subject, error in b.not_built:
        print("history run: not built: %s (%s): %s" % (sha[:12], subject[:60], error))
    return 1 if counts["failed"] else 3 if counts[backfill.NOT_BUILT] else 0


def page_module():
    """The trend page's module (hotbench.history.page, another part of issue 14), or None while
    it is not there."""
    try:
        from hotbench.history import page
    except ImportError:
        return None
    return page if hasattr(page, "add_arguments") and hasattr(page, "run") else None


def parser():
    """The argparse parser: import, run, record, and page when its module is there."""
    ap = argparse.ArgumentParser(prog="scripts/history.py", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--history", metavar="PATH", help="the database (default $%s, else "
                        "results/history.sqlite)" % store.ENV)
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    raw = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("import", help="record run JSON files, compare folders, other databases",
                       description=IMPORT_HELP, formatter_class=raw, parents=[common])
    p.add_argument("sources", nargs="*", metavar="FILE|DIR|DB")
    p.set_defaults(func=cmd_import)
    p = sub.add_parser("run", help="build and record each commit of A..B (backfill)",
                       description=RUN_HELP, formatter_class=raw, parents=[common])
    p.add_argument("revs", metavar="REVS", help="A..B or one revision")
    p.add_argument("--filter", help="a --benchmark_filter (default: the commit's gate.select)")
    p.add_argument("--repetitions", type=int, default=backfill.DEFAULT_REPETITIONS,
                   help="repetitions of each benchmark (default %(default)s)")
    p.add_argument("--min-time", type=float, default=backfill.DEFAULT_MIN_TIME,
                   help="--benchmark_min_time in seconds (default %(default)s)")
    p.add_argument("--budget", type=float, default=backfill.DEFAULT_BUDGET,
                   help="--hb_budget in seconds (default %(default)s)")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("record", help="record one run JSON or compare folder now",
                       description="Records one run JSON or compare folder (refused with the "
                       "reason when corrupt or foreign). Exit status: 0, 1 refused.",
                       parents=[common])
    p.add_argument("source", metavar="FILE|DIR")
    p.add_argument("--kind", default="import", choices=("import", "bench", "bench-quick",
                                                        "bench-ci", "compare"),
                   help="the runs.kind recorded (default %(default)s; 'compare' for a "
                   "compare folder)")
    p.set_defaults(func=cmd_record)
    page = page_module()
    if page is not None:
        # the page defines its own --history: not through parents=[common], whose action
        # objects are shared, so resolving a conflict here would strip --history from the others
        p = sub.add_parser("page", help="the trend page (results/history/index.html)")
        page.add_arguments(p)
        if not any("--history" in a.option_strings for a in p._actions):
            p.add_argument("--history", metavar="PATH", help=common._actions[0].help)
        p.set_defaults(func=page.run)
    return ap


def main(argv=None):
    """Runs one subcommand; its exit status (2 for a database that is not a history)."""
    args = parser().parse_args(argv)
    if args.command == "run" and (args.repetitions < 1 or not args.min_time > 0 or
                                  not args.budget > 0):
        print("history run: --repetitions, --min-time and --budget must be positive",
              file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except schema.SchemaError as e:
        print("history: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

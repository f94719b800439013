"""live - the one call `make bench`, `make bench-quick`, `make compare` and `make bench-ci` make
when their result is written: record it into the history database, and never fail the run for
it.

    append(root, history, kind, run_json=path)          bench.py
    append(root, history, kind, compare_dir=folder)     compare/cli.py
    add_options(argparse_parser)                        --history PATH, --no-history
    target(root, args)                                  the path, None to skip (HB_HISTORY=off)
"""

import os
import sys

from . import store
from .fromcompare import from_compare_dir
from .record import current_branch, from_run_json


def add_options(ap):
    """Adds --history PATH and --no-history to an argparse parser (dest history, no_history)."""
    ap.add_argument("--history", metavar="PATH", help="the history database the run is "
                    "appended to (default $%s, else results/history.sqlite)" % store.ENV)
    ap.add_argument("--no-history", action="store_true", help="do not record the run in the "
                    "history database")


OFF = "off"  # HB_HISTORY=off: `make bench`, `make compare`, ... record nothing


def target(root, args):
    """The database path the options name (args.history, args.no_history), None to skip: with
    --no-history, or with $HB_HISTORY set to 'off' and no --history (how make targets skip it:
    `HB_HISTORY=off make bench-quick`)."""
    if getattr(args, "no_history", False):
        return None
    if not getattr(args, "history", None) and os.environ.get(store.ENV) == OFF:
        return None
    return getattr(args, "history", None) or store.default_path(root)


def append(root, history, kind, run_json=None, compare_dir=None, log=None):
    """Records a run JSON (run_json, str path) or a compare folder (compare_dir) as kind
    ('bench', 'bench-quick', 'compare', 'bench-ci') into the database at history (None: skip).
    Returns the run id, or None when skipped or failed: any failure (a database that cannot be
    opened, a locked or full disk, a file it cannot read) prints one warning line to stderr
    naming the database and the cause, and is never raised. Ctrl-C is not caught."""
    log = log or (lambda m: print(m, file=sys.stderr, flush=True))
    if history is None:
        return None
    try:
        branch = current_branch(root)
        rec = (from_run_json(run_json, kind, root, branch) if run_json is not None
               else from_compare_dir(compare_dir, kind, root, branch))
        con = store.open_db(history)
        try:
            run_id, new = store.write(con, rec)
        finally:
            con.close()
    except Exception as e:  # the run's result is already written: only warn
        log("history: WARNING: the run was not recorded in %s: %s: %s (the results are kept; "
            "`make history-import` records them later)" % (history, type(e).__name__, e))
        return None
    log("history: %s run %d in %s (%d measurements, revision %s)" % (
        "recorded" if new else "already recorded as", run_id, history, len(rec.measurements),
        rec.run["revision"][:12]))
    return run_id

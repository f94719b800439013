"""nobase - make bench-ci on a history of one commit: there is no base to compare against, so
the head's build runs the gate's selection once, as `make history-run` runs a commit
(history/backfill.py: the manifest's gate.select, 3 repetitions, the pinned malloc), and the run
is recorded into the history database, where the next commits' trends start from it. It says
so and never fails the pull request: exit 0, unless the head's hotbench cannot run at all."""

import os

from ..history import live
from ..history.backfill import Backfill
from .revisions import git, subject_of


def record_head(root, args, log):
    """Runs and records the head of a one-commit history. root: the repository; args: the
    compare's options (head_build: the head's build folder, default root/build-ci; history,
    no_history); log(line) prints. Returns the exit status: 0 when recorded, skipped (already
    recorded, or the history is off) or when a strategy failed verification (said, as history-run
    does); 1 when hotbench did not run."""
    log("compare: no base revision (a history of one commit and no $HB_BASE): nothing to compare "
        "against, so nothing can regress; the head's run of the gate's selection goes into the "
        "history instead")
    db = live.target(root, args)
    if db is None:
        log("compare: the history is off (--no-history or HB_HISTORY=off): nothing recorded")
        return 0
    binary = os.path.join(args.head_build or os.path.join(root, "build-ci"), "hotbench")
    sha = git(root, "rev-parse", "HEAD")
    fill = Backfill(root, db, build=lambda _sha: binary, log=log)
    counts = fill.run_all([(sha, subject_of(root, sha))])
    return 1 if counts.get("failed") else 0

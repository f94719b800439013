#!/usr/bin/python3
"""bench_alloc.py - the allocator matrix: the benchmarks each case's description selects
(alloc_select; with --long also alloc_select_long: docs/manifest.md) run by hotbench once per
general-purpose allocator (hotbench --hb_allocator=NAME: glibc, jemalloc, mimalloc, tcmalloc),
glibc included so every comparison is within one session, each with --hb_profile=full and
--hb_repetitions=N (every benchmark verified first under that allocator).

Writes one combined JSON, results/runs/<UTC>-<sha>.alloc.json (schema hotbench-alloc/1,
docs/allocators.md: every allocator's run with its context, and the order they ran in), and
points results/latest-alloc.json at it; `scripts/report.py --alloc FILE` reports it. An allocator
that is not installed is skipped with hotbench's reason printed (the library's file pattern and
scripts/deps.sh, which installs it); that is not a failure unless none runs. A progress line at
most every 30 s gives the elapsed and remaining time; the total is printed at the end. Exit
status: 0 every run verified, 1 a run failed (or no allocator could run), 2 usage or setup error.

The default matrix takes about 5 minutes on a 2-vCPU VM (4 allocators, 2 repetitions); --long
adds the rows that take minutes each there (1 GiB and more of fresh memory per run). --rounds K
interleaves: K runs per allocator, the order rotated each round, repetitions per run unchanged;
it costs one more verification run per benchmark and round, so the default is 1.
Run under Debian's /usr/bin/python3.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench.alloc_run import (ALLOCATORS, AllocError, fmt_span, main_log,  # noqa: E402
                                run_matrix, write)
from hotbench.git import short_revision  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False,
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="folder of hotbench (%(default)s)")
    ap.add_argument("--allocators", default=",".join(ALLOCATORS),
                    help="comma-separated, in the first round's order (%(default)s)")
    ap.add_argument("--repetitions", type=int, default=2,
                    help="hotbench --hb_repetitions per run, 1 to 100 (%(default)s)")
    ap.add_argument("--budget", type=float, default=60,
                    help="hotbench --hb_budget: a quadratic row predicted longer is skipped, "
                    "not run (%(default)s s; hotbench's own default, 10 s, skipped rows of the "
                    "matrix on a loaded VM)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="runs per allocator, order rotated per round, 1 to 20 (%(default)s)")
    ap.add_argument("--long", action="store_true",
                    help="also the alloc_select_long rows (tens of minutes on a 2-vCPU VM)")
    ap.add_argument("--groups", default=None, metavar="REGEX",
                    help="only the groups whose whole name matches (default: every group with "
                    "a selection), e.g. to measure the long rows of one group")
    ap.add_argument("--out-dir", default="results/runs", help="(%(default)s)")
    ap.add_argument("--out", default=None, metavar="FILE",
                    help="the combined JSON's path (default: OUT_DIR/<UTC>-<sha>.alloc.json; "
                    "make bench names it)")
    ap.add_argument("--latest", default="results/latest-alloc.json",
                    help="symlink to the newest matrix (%(default)s)")
    ap.add_argument("hotbench_args", nargs="*",
                    help="after --: more hotbench arguments, e.g. --benchmark_min_time=0.2")
    a = ap.parse_args(argv)
    names = [x for x in a.allocators.split(",") if x]
    bad = [x for x in names if x not in ALLOCATORS]
    if bad or not names or len(set(names)) != len(names):
        ap.error("--allocators: %s (each of %s, once)" % (
            "unknown " + ",".join(bad) if bad else "none or repeated", ", ".join(ALLOCATORS)))
    if not 1 <= a.repetitions <= 100:
        ap.error("--repetitions must be 1 to 100")
    if not 1 <= a.budget <= 1e6:
        ap.error("--budget must be 1 to 1e6 seconds")
    if not 1 <= a.rounds <= 20:
        ap.error("--rounds must be 1 to 20")
    if a.groups is not None:
        try:
            re.compile(a.groups)
        except re.error as e:
            ap.error("--groups: %s" % e)
    a.allocators = names
    return a


def revision():
    return short_revision(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None):
    a = parse_args(argv)
    a.revision = revision()
    try:
        doc, status = run_matrix(a, main_log)
    except AllocError as e:
        print("bench_alloc.py: %s" % e, file=sys.stderr)
        return 2
    path = write(doc, a.out_dir, a.latest, a.out)
    ran = sorted({r["allocator"] for r in doc["runs"] if r["exit_status"] == 0})
    print("bench-alloc: %s (%s ran%s); %s pointed at it" % (
        path, ", ".join(ran) or "nothing", "; skipped: " + ", ".join(
            s["allocator"] for s in doc["skipped"]) if doc["skipped"] else "",
        a.latest if ran else "nothing"))
    print("bench-alloc: the whole matrix took %s" % fmt_span(doc["seconds"]))
    return status


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""summary.py [RUN.json] - one table per group of a hotbench run, at the production size.

Reads the run JSON only (results/latest.json by default) and the manifest it carries
(docs/manifest.md). A group is the part of a benchmark name before the strategy. For each group it
picks one configuration - the production value of x with the other arguments fixed as in the
group's first view, or the largest x measured when the production value was not; for a group
without views the largest value of its first argument - and shows per strategy: the median time,
its coefficient of variation (flagged over 10%), GB/s, ns per item where items are counted, and
the ratio to the group's reference row (the manifest's "reference"). Sizes the budget skipped
show their predicted time, marked PREDICTED. The full data stay in the JSON. A run without a
manifest (the message names the hotbench revision that can upgrade it) is shown without ratios.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench.manifest import ManifestError  # noqa: E402
from hotbench.runjson import Run  # noqa: E402
from hotbench.summary import summary  # noqa: E402


def main():
    ap = argparse.ArgumentParser(prog="scripts/summary.py", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", nargs="?", default="results/latest.json", metavar="RUN.json",
                    help="a hotbench run's google-benchmark JSON (default %(default)s)")
    path = ap.parse_args().run
    try:
        run = Run(path)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("summary.py: cannot read %s as a hotbench run JSON (%s: %s)"
                 % (path, type(e).__name__, e))
    try:
        manifest = run.manifest
    except ManifestError as e:
        print("summary.py: %s; the tables below have no reference rows" % e, file=sys.stderr)
        manifest = None
    summary(run, manifest=manifest)


if __name__ == "__main__":
    main()

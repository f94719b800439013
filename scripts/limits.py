#!/usr/bin/python3
"""limits.py - instructions and simulated branch misses per byte and per item of each fast
strategy and its ceiling (the groups whose case.c gives "limits", docs/manifest.md), counted
under valgrind's callgrind; the report's "What limits it now" paragraphs read them.

For every group with limits, hotbench runs once under `valgrind --tool=callgrind
--branch-sim=yes` on the probe row of the strategy and of its ceiling, one iteration each
(instrumentation on for the timed loop only: harness/hb_shim.cc). Per row: instructions, branches
and simulated branch mispredictions per iteration, per payload byte and per item (bytes and items
per iteration from the row's own bytes_per_second and items_per_second). This VM-class has no
hardware counters: callgrind's branch predictor is a simulation, not the CPU's, and is labelled
so. Writes --out (schema hotbench-limits/1): context (revision, build flags, CPU, valgrind
version, the command) and groups {group: {strategy, ceiling, probe, row, item, rows: {name:
figures}}}. Under a minute in the quick profile on a 2-vCPU VM.

Exit status: 0 written; 1 the probe failed or counted nothing; 2 bad usage or no hotbench.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench.files import write_json_atomic  # noqa: E402
from hotbench.limits import LimitsError, measure  # noqa: E402
from hotbench.manifest import ManifestError, Manifest  # noqa: E402


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/limits.py", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="the build tree holding hotbench "
                    "(%(default)s; a release build: valgrind cannot run a sanitizer build)")
    ap.add_argument("--profile", default="quick", choices=("smoke", "quick", "full"),
                    help="hotbench's profile: the sizes registered (%(default)s: the probes' "
                    "sizes are quick's)")
    ap.add_argument("--group", action="append", default=[], metavar="GROUP",
                    help="only this group (repeatable; default every group with limits)")
    ap.add_argument("--probe", default=None, metavar="REGEX",
                    help="count at the first arguments matching REGEX (after "
                    "'<group>/<strategy>/', e.g. '[^/]+' in the smoke profile) instead of each "
                    "group's probe")
    ap.add_argument("--out", default="results/limits.json", help="output (%(default)s)")
    return ap.parse_args(argv)


def main(argv=None):
    a = parse_args(argv)
    hotbench = os.path.join(a.build, "hotbench")
    if not os.access(hotbench, os.X_OK):
        print("limits.py: no %s: build it first (make)" % hotbench, file=sys.stderr)
        return 2
    try:
        manifest = Manifest.from_binary(hotbench)
        unknown = [g for g in a.group if manifest.group(g) is None]
        if unknown:
            print("limits.py: --group %s: no such group in the manifest" % ", ".join(unknown),
                  file=sys.stderr)
            return 2
        doc = measure(hotbench, manifest, a.profile, a.group, a.probe,
                      log=lambda m: print(m, file=sys.stderr, flush=True))
    except ManifestError as e:
        print("limits.py: %s" % e, file=sys.stderr)
        return 2
    except LimitsError as e:
        print("limits.py: %s" % e, file=sys.stderr)
        return 1
    write_json_atomic(a.out, doc, indent=1, sort_keys=True)
    for g, p in doc["groups"].items():
        for role in ("strategy", "ceiling"):
            r = p["rows"][p[role]]
            per = ["%.3g instructions/B" % r["instructions_per_byte"]] if r.get(
                "instructions_per_byte") else []
            per += ["%.3g instructions/item, %.3g simulated branch misses/item" % (
                r["instructions_per_item"], r["branch_misses_per_item"])] if r.get(
                    "instructions_per_item") else []
            print("%-40s %s" % (r["name"], "; ".join(per)))
    print("limits: %s" % a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

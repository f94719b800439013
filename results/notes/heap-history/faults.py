#!/usr/bin/env python3
"""faults.py TRIALS_DIR [REGEX] - for each benchmark whose name REGEX searches (default: the
bufgrow strategies at 256 KiB), the page faults per iteration (hotbench's minor_faults counter)
and the CPU time per iteration of its first repetition in every process of a compare's trials
directory (<out>/trials of scripts/compare.py, or a gate-power compare kept with --keep), by arm
and phase: whether the arms' processes met the same heap."""
import collections
import glob
import json
import os
import re
import sys


def main():
    if len(sys.argv) < 2 or not os.path.isdir(sys.argv[1]):
        sys.exit(__doc__)
    pat = re.compile(sys.argv[2] if len(sys.argv) > 2 else r"^bufgrow/[^/]+/size:262144/")
    cells = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        parts = os.path.basename(path)[:-len(".json")].split("-")
        phase, arm = parts[0], parts[-1]
        with open(path) as f:
            doc = json.load(f)
        for b in doc["benchmarks"]:
            if b.get("repetition_index") == 0 and pat.search(b["name"]):
                us = b["cpu_time"] * {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
                cells[(b["name"], phase, arm)].append((b.get("minor_faults"), us))
    for (name, phase, arm), vals in sorted(cells.items()):
        faults = sorted({v[0] for v in vals})
        us = sorted(v[1] for v in vals)
        print("%-52s %-8s %-4s %2d processes  faults/iteration %-14s CPU us %.0f-%.0f" % (
            name[:52], phase, arm, len(vals), ",".join("%g" % x for x in faults), us[0], us[-1]))


if __name__ == "__main__":
    main()

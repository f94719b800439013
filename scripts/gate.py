#!/usr/bin/python3
"""gate.py - hotbench's CI regression gate: measure, record a baseline, compare, export.

    scripts/gate.py ci       --build build-ci        measure, compare with results/baseline/, exit 1
                                                     on a regression (what `make bench-ci` runs)
    scripts/gate.py baseline --build build-ci        measure twice into results/baseline/ and
                                                     compare the two runs (`make baseline`)
    scripts/gate.py measure  --build DIR --out DIR   one measurement, no verdict
    scripts/gate.py compare  --baseline DIR --current DIR   the verdict on existing measurements

The entry point of scripts/hotbench/gate/: what is measured (settings.py, measure.py,
callgrind.py), the three checks and their statistics (speed.py, complexity.py, instructions.py),
the verdict (verdict.py), the export (export.py) and these commands (cli.py). Everything a case is
comes from the manifest the runs carry (docs/manifest.md).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench.gate.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""gate.py - hotbench's CI regression gate: measure, record a baseline, compare, export.

The entry point of scripts/hotbench/gate/: what is measured (settings.py, measure.py,
callgrind.py), the three checks and their statistics (speed.py, complexity.py, instructions.py),
the verdict (verdict.py), the export (export.py) and the commands with their usage (cli.py;
scripts/gate.py --help). Everything a case is comes from the manifest the runs carry
(docs/manifest.md).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench.gate.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

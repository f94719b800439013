#!/usr/bin/python3
"""explain.py - where two revisions of hotbench differ, per function: callgrind profiles of both,
the functions that changed most and a differential flame graph per strategy
(scripts/hotbench/compare/explain/cli.py and docs/compare.md; --help).

    make explain BASE=<rev> HEAD=<rev> FILTER=<regex>
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hotbench.compare.explain.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

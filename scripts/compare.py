#!/usr/bin/env python3
"""compare.py - compare two revisions of hotbench on this machine, interleaved (see
scripts/hotbench/compare/cli.py and docs/compare.md; --help)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hotbench.compare.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""report.py - REPORT.md and its charts from a hotbench run's JSON (scripts/hotbench/report/).
The options and what is written: report.py --help."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench.report.cli import load_run, main, optional_section, parse_args  # noqa: E402

__all__ = ["load_run", "main", "optional_section", "parse_args"]  # what the tests import

if __name__ == "__main__":
    main()

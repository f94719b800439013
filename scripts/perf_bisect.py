#!/usr/bin/python3
"""perf_bisect.py - the first commit that made a benchmark slower: `git bisect run` with
scripts/compare.py deciding each step (scripts/hotbench/compare/bisect.py; --help).

    make bisect GOOD=<rev> BAD=<rev> FILTER=<regex> [HOOKS=1] [ROUNDS=N]

(Not named bisect.py: scripts/ heads the import path of every script in it, and the standard
library's bisect module, which random and numpy import, would find that file instead.)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hotbench.compare.bisect import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""compare_merge.py - join the shards of one compare (compare.py --shard i/N) into one compare
(see scripts/hotbench/compare/merge.py and docs/compare.md, Shards; --help)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hotbench.compare.merge import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""bisect.py - the first commit that made a benchmark slower: `git bisect run` with
scripts/compare.py deciding each step (scripts/hotbench/compare/bisect.py; --help).

    make bisect GOOD=<rev> BAD=<rev> FILTER=<regex> [HOOKS=1] [ROUNDS=N]

This file's name is also the standard library's `bisect` module's, and scripts/ is the first
folder on sys.path of every script in it: `import bisect` there (random does it, so numpy does)
finds this file. Imported, it therefore hands over the standard library's module in its place.
"""
import os
import sys

if __name__ != "__main__":
    import importlib.util
    import sysconfig

    _spec = importlib.util.spec_from_file_location(
        "bisect", os.path.join(sysconfig.get_path("stdlib"), "bisect.py"))
    _stdlib_bisect = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_stdlib_bisect)
    sys.modules["bisect"] = _stdlib_bisect  # what the importer receives
else:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from hotbench.compare.bisect import main  # noqa: E402

    sys.exit(main())

"""test_report_util.py - the check() the report tests share (not a test itself): prints 'ok' or
'FAIL' and the check's description, counts them; done() prints the tally and exits 1 on a
failure."""

import sys

counts = {"passed": 0, "failed": 0}


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    counts["passed" if ok else "failed"] += 1


def done():
    print("%d passed, %d failed" % (counts["passed"], counts["failed"]))
    sys.exit(1 if counts["failed"] else 0)

"""witness - no time regression without a second witness, where one exists (issue 31 item 2).

A time check that confirms a slowdown has measured processes, and processes of the same code
can differ by where their binary's pages landed (copies.py). Two witnesses of a real change do
not depend on that: the instruction count (callgrind, deterministic) and the object code itself
(objcode.py). So a row whose time check says `regressed` becomes `inconclusive (no code
change)` and never fails the compare when
  - its case's object code (cases/<case>/, the cases it calls, and the harness) is
    byte-identical in the two builds (objcode.Witness), and
  - its instruction count, where callgrind counted it, did not move (the instruction check
    says "same": within --ir-tolerance; a count that moved, repeated or not, keeps the rule
    off).
Only where the arms differ by their builds alone: arms that differ by their environment (the
test hooks' HB_INJECT in one binary: make gate-power, gate_selftest) are not one code against
another, and keep the time check's verdict. Where the object code differs or cannot be read,
the time check stands as before: a memory-bound row (first touch, page faults) whose code
changed still fails on time alone.
"""

import os

from .objcode import Witness


def apply(rows, base, head, manifest, log):
    """Turns the time regressions of rows ({name: row}) whose case's code is byte-identical
    in base's and head's build directories (the folders of arm.binary) and whose instruction
    count did not move into inconclusive ones, their check saying so. base, head: arms.Arm;
    manifest: the head's (hotbench.manifest.Manifest, for a group's case). Returns the number
    of rows changed; logs what it did."""
    slow = [r for r in rows.values() if (r.get("time") or {}).get("verdict") == "regressed"]
    if not slow:
        return 0
    if base.env != head.env:
        log("compare: the arms differ by their environment, not only their builds: no "
            "object-code witness (docs/compare.md)")
        return 0
    w = Witness(os.path.dirname(os.path.abspath(base.binary)),
                os.path.dirname(os.path.abspath(head.binary)))
    changed = 0
    for row in slow:
        iv = row.get("instructions")
        if iv and iv["verdict"] != "same":
            continue
        try:
            case = manifest.case_of(row["family"].split("/")[0])["name"]
        except (KeyError, StopIteration):
            continue
        same, text = w.unchanged(case)
        if same is not True:
            row["note"] = (row["note"] + "; " if row.get("note") else "") + \
                "object code: " + text
            continue
        mark(row, text, iv)
        changed += 1
    if changed:
        log("compare: %d time regression(s) with no code change (byte-identical object code, "
            "instructions unmoved): inconclusive, never a failure" % changed)
    return changed


def mark(row, text, iv):
    """Makes row's time verdict and its time check inconclusive, naming the witness; row
    ["witness"] keeps text (compare.json: a merge of shards marks the row again, merge.py)."""
    why = "no code change: %s%s" % (text, "; instructions %+.1f%%" % ((iv["ratio"] - 1) * 100)
                                    if iv else "; no instruction count")
    row["witness"] = text
    row["time"] = dict(row["time"], verdict="inconclusive", no_code_change=True)
    for c in reversed(row["checks"]):
        if c["kind"] == "time":
            c["verdict"] = "inconclusive"
            c["text"] = "%s; %s: never a failure" % (c["text"], why)
            break



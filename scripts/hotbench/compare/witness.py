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



class Steady:
    """Which strategies no difference of the arms can move (witness.steady): called with a
    family ("<group>/<strategy>"), True or False; case(family) names the unit a change is
    judged by (the manifest's case of the group; the group where the manifest does not say)."""

    def __init__(self, manifest, same=None):
        """manifest: hotbench.manifest.Manifest or None; same: {case: bool} (None: every case
        is the same code in both arms)."""
        self.manifest, self.same = manifest, same

    def case(self, family):
        group = family.split("/")[0]
        try:
            return self.manifest.case_of(group)["name"]
        except (AttributeError, KeyError, StopIteration):
            return group

    def __call__(self, family):
        return True if self.same is None else self.same.get(self.case(family), False)


def steady(base, head, manifest, log):
    """The strategies whose times no difference of the arms can move, from which the host's
    phases are read (phases.py): a Steady, or None when none can be named. base, head:
    arms.Arm; manifest: the head's.
    - Arms that differ by their environment: only where every difference is the test hooks'
      slowdown (HB_INJECT words all "slowdown:<fraction>", HB_INJECT_SELECT), whose reach the
      rows name (the counter hb_injected_fraction: trials.Samples then leaves out every
      strategy of the cases it reached, as a change of those cases' code would); any other
      difference (growth, parser, a variable of the user's) has no known reach: None.
    - One binary file for both arms, or two of the same bytes: every case is the same code.
    - Otherwise a case is steady when its object code is byte-identical in the two builds
      (objcode.Witness: the case, the cases it calls, the harness); unknown code is not.
    Logs what it found."""
    keys = set(base.env) | set(head.env)
    differ = {k for k in keys if base.env.get(k) != head.env.get(k)}
    slow_only = all(w.startswith("slowdown:") for arm in (base, head)
                    for w in arm.env.get("HB_INJECT", "").split(",") if w)
    if differ and not (differ <= {"HB_INJECT", "HB_INJECT_SELECT"} and slow_only):
        log("compare: the arms differ by %s: no strategy known to be steady, no phase "
            "correction (phases.py)" % ", ".join(sorted(differ)))
        return None
    if os.path.abspath(base.binary) == os.path.abspath(head.binary) or \
            (base.sha256 and base.sha256 == head.sha256):
        return Steady(manifest)
    w = Witness(os.path.dirname(os.path.abspath(base.binary)),
                os.path.dirname(os.path.abspath(head.binary)))
    same = {c["name"]: w.unchanged(c["name"])[0] is True for c in manifest.cases}
    log("compare: phases read from the cases whose object code is byte-identical: %s" % (
        ", ".join(sorted(c for c, s in same.items() if s)) or "none (no phase correction)"))
    return Steady(manifest, same) if any(same.values()) else None

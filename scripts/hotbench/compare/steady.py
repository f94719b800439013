"""steady - which strategies no difference of the two arms can move: those the phase
correction (phases.py) may read the host's phases from.

A strategy is steady when its code is the same in both builds, by one of two readings:
  - its case's object code is byte-identical (objcode.Witness: the case, the cases it calls,
    the harness): every strategy of the case is steady;
  - else, where the harness is byte-identical, its own code is the same (strategy_code.py: its
    table rows and every function they reach, and the rest of its case: its bench loop, its
    data), so that a change of one strategy leaves the others of its case steady.
Arms that run one binary (or two files of the same bytes) are the same code everywhere. The
test hooks' slowdown (HB_INJECT=slowdown:..., one binary in two environments) reaches the
strategies whose rows carry the counter hb_injected_fraction; trials.Samples asks without()
to leave out what a change of their code would move: every strategy sharing a function of
their table rows (bufgrow's linear strategies share theirs), or their whole case where the
rows cannot be read. Any other difference of the environments has no known reach: nothing is
steady.
"""

import os

from . import objcode, strategy_code
from .objcode import Witness


class Steady:
    """Called with a family ("<group>/<strategy>"): True where no difference of the arms can
    move its times. case(family): the manifest's case of its group (the group where the
    manifest does not say); without(families): the same, less what a change of those
    strategies' code would move."""

    def __init__(self, manifest, same=None, own=None, entries=None):
        """manifest: hotbench.manifest.Manifest or None; same: {case: bool} by the case's object
        code (None: every case the same code); own: {case: {strategy: bool}} by the strategy's
        own code, where its case differs; entries: {case: {strategy: set of function keys of
        its table rows}} (without())."""
        self.manifest, self.same = manifest, same
        self.own, self.entries = own or {}, entries or {}

    def case(self, family):
        group = family.split("/")[0]
        try:
            return self.manifest.case_of(group)["name"]
        except (AttributeError, KeyError, StopIteration):
            return group

    def __call__(self, family):
        if self.same is None:
            return True
        case = self.case(family)
        return bool(self.same.get(case) or
                    self.own.get(case, {}).get(family.split("/", 1)[-1]))

    def without(self, families):
        """A function like this one, False also for every strategy a change of families'
        code would move (the module's rule)."""
        moved, whole = set(), set()
        for f in families:
            case, name = self.case(f), f.split("/", 1)[-1]
            mine = self.entries.get(case, {}).get(name)
            if not mine:
                whole.add(case)
                continue
            moved |= {(case, n) for n, fs in self.entries[case].items() if fs & mine}

        def steady(family):
            case = self.case(family)
            return case not in whole and (case, family.split("/", 1)[-1]) not in moved \
                and self(family)
        return steady


def strategies_of(manifest, case):
    """Every strategy name of the case's groups (sorted)."""
    return sorted({s["name"] for g in manifest.groups() if g.get("case") == case
                   for s in g["strategies"]})


def entries_of(build, manifest):
    """{case: {strategy: set of function keys of its table rows}} of a strategy_code.Build."""
    out = {}
    for c in manifest.cases:
        rows = build.rows(c["name"], set(strategies_of(manifest, c["name"])))
        out[c["name"]] = {n: {k for _, ks in rs for k in ks if k[0] == "f"}
                          for n, rs in rows.items()}
    return out


def by_strategy(base_dir, head_dir, manifest, cases):
    """{case: {strategy: bool}} for cases (names): True where strategy_code finds the
    strategy's own code and the rest of its case the same in the two build directories;
    {} when either cannot be read."""
    try:
        builds = [strategy_code.Build(d) for d in (base_dir, head_dir)]
        out = {}
        for case in cases:
            names = strategies_of(manifest, case)
            (fa, ca), (fb, cb) = [strategy_code.fingerprints(b, case, names) for b in builds]
            same_rest = ca is not None and ca == cb
            out[case] = {n: bool(same_rest and fa[n] and fa[n] == fb[n]) for n in names}
        return out
    except Exception:  # noqa: BLE001 - an object it cannot read must never stop a compare
        return {}


def steady(base, head, manifest, log):
    """The Steady of a compare of arms base and head (arms.Arm; manifest: the head's), or None
    when no strategy is steady (the module's rules). Logs what it found."""
    keys = set(base.env) | set(head.env)
    differ = {k for k in keys if base.env.get(k) != head.env.get(k)}
    slow_only = all(w.startswith("slowdown:") for arm in (base, head)
                    for w in arm.env.get("HB_INJECT", "").split(",") if w)
    if differ and not (differ <= {"HB_INJECT", "HB_INJECT_SELECT"} and slow_only):
        log("compare: the arms differ by %s: no strategy known to be steady, no phase "
            "correction (phases.py)" % ", ".join(sorted(differ)))
        return None
    dirs = [os.path.dirname(os.path.abspath(a.binary)) for a in (base, head)]
    if os.path.abspath(base.binary) == os.path.abspath(head.binary) or \
            (base.sha256 and base.sha256 == head.sha256):
        entries = {}
        if differ and manifest is not None:
            try:
                entries = entries_of(strategy_code.Build(dirs[1]), manifest)
            except Exception as e:  # noqa: BLE001 - never stop a compare
                log("compare: the strategies' table rows cannot be read (%s): an injected "
                    "strategy takes its whole case out of the phases" % e)
        return Steady(manifest, entries=entries)
    return two_builds(dirs, manifest, log)


def two_builds(dirs, manifest, log):
    """steady() of two build directories: case by case, then strategy by strategy where the
    harness is the same."""
    w = Witness(*dirs)
    same = {c["name"]: w.unchanged(c["name"])[0] is True for c in manifest.cases}
    differ = [c for c, s in same.items() if not s]
    harness = not w.unknown and objcode.own_digest(w.scans["base"][objcode.SHARED]) == \
        objcode.own_digest(w.scans["head"][objcode.SHARED]) \
        if not w.unknown and all(objcode.SHARED in w.scans[k] for k in ("base", "head")) \
        else False
    own = by_strategy(dirs[0], dirs[1], manifest, differ) if differ and harness else {}
    n_own = sum(v for c in own.values() for v in c.values())
    log("compare: phases read from the cases whose object code is byte-identical (%s)%s" % (
        ", ".join(sorted(c for c, s in same.items() if s)) or "none",
        "; and from %d strategies of the others whose own code is the same" % n_own
        if differ and harness else ""))
    if not any(same.values()) and not n_own:
        return None
    return Steady(manifest, same, own)

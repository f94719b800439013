"""The phase correction (scripts/hotbench/compare/phases.py) on stored compares, offline: each
compare's screening processes read back as the compare read them (trials.Samples, blocks and
outliers included), without and with the correction, and a slowdown multiplied into the head's
times of the target strategies (the ones `make gate-power` slows) after the fact.

usage: /usr/bin/python3 phases_eval.py LEVEL COMPARE_DIR...   (LEVEL: 0.05 for 5%)
       /usr/bin/python3 phases_eval.py same COMPARE_DIR...    (nothing changed, every case steady:
                                                              the strategies the screening decides)
Per compare and variant: the median width of the rows' 95% intervals (points of log ratio x100,
the targets' apart), how many target rows the screening made suspects (80% interval above 1,
estimate above 1.02), and how many other rows' 95% intervals exclude 1 (the false share; each
compare is of one binary or of the same code, so every such row is noise). The phases are read
from every strategy but the targets and those sharing a function of their table rows
(steady.Steady.without, as the compare does for the test hooks' slowdown and as a change of the
targets' own code would leave them), the rows read from the objects of HB_BUILD (default
build-test) and its manifest; HB_WHOLE_CASE=1 leaves out the targets' whole cases instead. HB_TARGETS: the targets, comma-separated (default the
three of `make gate-power`)."""
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
from hotbench.runjson import Run  # noqa: E402
from hotbench.compare.trials import Samples  # noqa: E402
from hotbench.compare import checks, strategies  # noqa: E402
from hotbench.compare.engine import Options  # noqa: E402
from hotbench.compare import steady as steady_  # noqa: E402
from hotbench.compare.strategy_code import Build  # noqa: E402
from hotbench.manifest import Manifest  # noqa: E402

TARGETS = set((os.environ.get("HB_TARGETS") or
               "bufgrow/httpcore,rfc3339/millis-strtoll,volumes/expat-tree").split(","))


def steady(moved_targets=True):
    """What the compare may read phases from when the targets' code changed (else when the code
    is the same everywhere): a function of a family."""
    build = os.environ.get("HB_BUILD", "build-test")
    m = Manifest.from_binary(os.path.join(build, "hotbench"))
    if not moved_targets:
        return steady_.Steady(m)
    if os.environ.get("HB_WHOLE_CASE"):
        return steady_.Steady(m).without({"none/none"} | {f.split("/")[0] + "/?" for f in
                                                          TARGETS})
    return steady_.Steady(m, entries=steady_.entries_of(Build(build), m)).without(TARGETS)


def load(d, phased, level, tag="screen"):
    j = json.load(open(os.path.join(d, "compare.json")))
    s = Samples(steady=steady(level is not None) if phased else None)
    for p in j["processes"]:
        if p["tag"] != tag or p.get("rc") not in (0, 1):
            continue
        run = Run(os.path.join(d, "trials", os.path.basename(p["json"])))
        if p["label"] == "head" and level:
            for r in run.rows:
                if r["family"] + "/" + r["strategy"] in TARGETS:
                    r["cpu"] *= 1 + level
                    r["t"] *= 1 + level
        s.add(p["label"], run, p.get("copy", 1), (tag, p["block"]))
    return s


def summary(d, phased, level):
    s = load(d, phased, level)
    rows = checks.screen_rows(s, Options(), {})
    widths, target_w, suspects, others, out = [], {}, 0, 0, 0
    targets = 0
    for n, r in rows.items():
        tv = r.get("time")
        if not tv or not tv.get("ci") or not all(0 < x < math.inf for x in tv["ci"]):
            continue
        w = math.log(tv["ci"][1] / tv["ci"][0]) * 100
        widths.append(w)
        if s.family[n] in TARGETS:
            target_w.setdefault(s.family[n], []).append(w)
            suspects += bool(r.get("suspect"))
            targets += 1
        else:
            others += 1
            out += tv["ci"][0] > 1 or tv["ci"][1] < 1
    return "width %5.1f | targets' %s | target suspects %2d/%d | others excluding 1: %2d/%d" % (
        statistics.median(widths),
        " ".join("%s %.1f" % (f.split("/")[1], statistics.median(v))
                 for f, v in sorted(target_w.items())), suspects, targets, out, others)


def decided(d, phased):
    """The screening's strategy lines with nothing changed and every case steady: how many are
    decided (same within +-2% at 95%, sizes pooled) of how many."""
    s = load(d, phased, None)
    rows = checks.finish(checks.screen_rows(s, Options(), {}))
    lines = strategies.summarize(rows, s, Options())
    timed = [st for st in lines if st.get("pooled")]
    same = sum(st["pooled"]["verdict"] == "same" for st in timed)
    return "%2d of %d strategies same within +-2%% (sizes pooled, screening)" % (same, len(timed))


if __name__ == "__main__":
    if sys.argv[1] == "same":
        for d in sys.argv[2:]:
            print("%-26s raw: %s | corrected: %s" % (os.path.basename(d.rstrip("/"))[:26],
                                                      decided(d, False), decided(d, True)))
        sys.exit(0)
    level = float(sys.argv[1])
    for d in sys.argv[2:]:
        for phased in (False, True):
            print("%-26s %-9s %s" % (os.path.basename(d.rstrip("/"))[:26],
                                     "corrected" if phased else "raw", summary(d, phased, level)))

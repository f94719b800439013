"""explain.py - where two revisions of hotbench differ, per function, for the benchmarks a filter
selects, without a compare.

    scripts/explain.py --base REV [--head REV] --filter ERE [--hooks] [--perf] [--out DIR]
    scripts/explain.py --build DIR --head-env HB_INJECT=parser --filter ERE  (one binary, two
                                                                               environments)

Builds each revision as `make compare` does (build-rev/<commit>/, cached; the head defaults to
the working tree), then for each strategy the filter selects profiles its smallest selected size
in both builds under callgrind (one iteration, the compare's fixed hash salts and environment)
and writes into OUT (default results/runs/<UTC>-explain/): explain.md (per strategy the
functions whose exclusive instructions changed most, at most 8, with file:line, base, head,
change, new/gone), explain.json (schema hotbench-explain/1: the same data) and
explain/<strategy>.svg (a differential flame graph: width the head's cost, red more, blue less),
with the callgrind dumps and folded stacks beside each SVG (docs/compare.md, "Where").
"""

import argparse
import datetime
import json
import os
import sys

from ..engine import Options
from ..revisions import WORKTREE, BuildError, build, resolve
from ..arms import Arm
from ..checks import listed
from ..cli import env_pairs
from . import core, hook, perf, profile, report

ROOT = core.ROOT
SCHEMA = "hotbench-explain/1"
EPILOG = ("Exit status: 0 every selected strategy explained; 1 a profile failed (its reason is "
          "in the table); 2 a usage error (no --filter, a filter that selects nothing, an "
          "unknown revision); 3 a revision does not build (its first compiler error). "
          "`make explain BASE=<rev> HEAD=<rev> FILTER=<regex>` runs this; `make bisect` runs it "
          "on the first bad commit against GOOD.")


def die(msg, code=2):
    print("explain: " + msg, file=sys.stderr)
    sys.exit(code)


def build_arms(base_rev, head_rev, hooks, log):
    """(base Arm, head Arm) of two revisions, built as the compare builds them (revisions.py).
    Exits 2 for an unknown revision, 3 naming the first compiler error of one that does not
    build."""
    arms = []
    for label, rev in (("base", base_rev), ("head", head_rev or WORKTREE)):
        commit = resolve(ROOT, rev)
        try:
            binary = build(ROOT, commit, hooks, log)
        except BuildError as e:
            die("%s %s; its log: %s" % (label, e, e.log), code=3)
        arms.append(Arm(label, binary, None, commit, rev))
    return tuple(arms)


def family_of(name):
    """'<group>/<strategy>' of a benchmark name (its parts without ':' and 'real_time')."""
    return "/".join(p for p in name.split("/") if ":" not in p and p != "real_time")


def params_of(name):
    """{arg: value} of a benchmark name's 'arg:value' parts (numbers as numbers)."""
    out = {}
    for p in name.split("/"):
        if ":" in p:
            k, v = p.split(":", 1)
            try:
                out[k] = float(v) if "." in v else int(v)
            except ValueError:
                out[k] = v
    return out


def chosen(names):
    """[(strategy, benchmark name)]: per strategy (family) its smallest name (hook.size_key),
    strategies sorted."""
    fams = {}
    for n in names:
        fams.setdefault(family_of(n), []).append(dict(name=n, params=params_of(n)))
    return [(f, min(rows, key=hook.size_key)["name"]) for f, rows in sorted(fams.items())]


def explain(arms, bfilter, out, use_perf=False, limit=12, log=print, timeout_s=None):
    """The entries (core.explain_benchmark) of the strategies bfilter selects in both arms, at
    most limit (the first by name; the rest named in the log); writes explain.md and
    explain.json into out. Exits 2 when the filter selects nothing both builds list."""
    names = listed(arms[0].binary, bfilter) & listed(arms[1].binary, bfilter)
    if not names:
        die("the filter %r selects no benchmark both builds list (hotbench "
            "--benchmark_list_tests --benchmark_filter=...)" % bfilter)
    picks = chosen(names)
    if len(picks) > limit:
        log("explain: %d strategies selected; explaining the first %d (--max-strategies): "
            "left out %s" % (len(picks), limit, ", ".join(f for f, _ in picks[limit:])))
        picks = picks[:limit]
    settings = Options().settings()
    state = perf.available() if use_perf else None
    kw = {} if timeout_s is None else dict(timeout_s=timeout_s)
    entries = [core.explain_benchmark(arms, fam, name, settings, out, perf_state=state, log=log,
                                      **kw) for fam, name in picks]
    write(arms, bfilter, entries, out)
    return entries


def write(arms, bfilter, entries, out):
    """explain.md and explain.json into out."""
    head = "# explain: base %s vs head %s, filter `%s`\n\n" % (
        describe(arms[0]), describe(arms[1]), bfilter)
    with open(os.path.join(out, "explain.md"), "w") as f:
        f.write(head + report.markdown(entries))
    doc = dict(schema=SCHEMA, filter=bfilter, base=arms[0].describe(), head=arms[1].describe(),
               entries=entries)
    with open(os.path.join(out, "explain.json"), "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)


def describe(arm):
    what = (arm.commit or "")[:12] if arm.commit and arm.commit != WORKTREE else \
        (arm.commit or arm.binary)
    env = " ".join("%s=%s" % kv for kv in sorted(arm.env.items()))
    return what + (" (%s)" % env if env else "")


def main(argv=None):
    args = parser().parse_args(argv)
    log = lambda m: print(m, flush=True)
    if not args.filter:
        die("give --filter ERE (make explain FILTER=<regex>), e.g. '^<group>/<strategy>/'")
    if args.build:
        binary = os.path.join(args.build, "hotbench")
        if not os.access(binary, os.X_OK):
            die("%s is not an executable hotbench" % binary)
        arms = (Arm("base", binary, env_pairs(args.base_env, "--base-env"), rev=args.build),
                Arm("head", binary, env_pairs(args.head_env, "--head-env"), rev=args.build))
    elif not args.base:
        die("give --base REV (or --build DIR to explain one binary in two environments)")
    else:
        arms = build_arms(args.base, args.head, args.hooks, log)
    if args.max_strategies < 1 or args.timeout <= 0:
        die("--max-strategies wants at least 1 and --timeout a positive number of seconds")
    out = args.out or os.path.join(ROOT, "results", "runs", datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-explain")
    os.makedirs(out, exist_ok=True)
    entries = explain(arms, args.filter, out, args.perf, args.max_strategies, log,
                      args.timeout)
    print("\n".join(report.text_lines(entries)))
    print("explain: wrote %s/: explain.md, explain.json, explain/" % os.path.relpath(
        out, os.getcwd()))
    return 1 if any(e.get("error") for e in entries) else 0


def parser():
    doc = __doc__.split("\n\n")
    ap = argparse.ArgumentParser(
        prog="explain.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=doc[0] + "\n\n" + "\n\n".join(doc[2:]).strip(), epilog=EPILOG,
        usage="%(prog)s --base REV [--head REV] --filter ERE [--hooks] [--perf] [--out DIR]\n"
              "       %(prog)s --build DIR [--base-env VAR=VALUE] [--head-env VAR=VALUE] "
              "--filter ERE")
    a = ap.add_argument
    a("--base", metavar="REV", help="the base revision (any git revision)")
    a("--head", metavar="REV", help="the head revision (default: the working tree)")
    a("--filter", metavar="ERE", help="the benchmarks (a --benchmark_filter); per strategy its "
      "smallest selected size is profiled")
    a("--hooks", action="store_true", help="build with -DHB_TEST_HOOKS=ON (test injections)")
    a("--build", metavar="DIR", help="explain DIR/hotbench against itself, the arms differing "
      "by --base-env/--head-env")
    a("--base-env", action="append", metavar="VAR=VALUE", help="environment of the base's runs")
    a("--head-env", action="append", metavar="VAR=VALUE", help="environment of the head's runs")
    a("--perf", action="store_true", help="add perf's sampled stacks where perf works here "
      "(a second table and explain/<strategy>.perf.svg)")
    a("--max-strategies", type=int, default=12, help="explain at most this many strategies "
      "(default %(default)s)")
    a("--timeout", type=float, default=profile.TIMEOUT_S, help="stop each callgrind run after "
      "this many seconds (default %(default)g)")
    a("--out", metavar="DIR", help="output folder (default results/runs/<UTC>-explain/)")
    return ap

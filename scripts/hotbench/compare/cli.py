"""compare.py - compare two revisions of hotbench on this machine, interleaved.

    scripts/compare.py --base REV [--head REV] [--filter ERE]    (make compare BASE=... HEAD=...)
    scripts/compare.py --ci                                       (make bench-ci)
    scripts/compare.py --build DIR --head-env HB_INJECT=growth    (one binary, two environments)

Builds each revision once (build-rev/<commit>/, cached; the head defaults to the working tree),
runs the same benchmarks from both in randomized ABBA blocks of short processes, confirms every
suspected slowdown in a second set of interleaved blocks, counts instructions of both under
callgrind, fits both builds' complexity, and prints per benchmark head/base of the CPU time with
its 95% interval, a verdict and the check that decided (docs/compare.md). Before it measures it
prints its expected duration (priced from results/reference/run.json, hotbench/compare/
duration.py), again at the probe's measured pace, and the actual one at the end (compare.json
"estimate").
"""

import argparse
import datetime
import os

from . import accepted, cpus, nobase, notbuilt, shards, strategies, table
from .explain import hook as explain_hook, report as explain_report
from ..history import live
from .arms import Arm
from .engine import Options, run_compare
from .errors import die
from .revisions import WORKTREE, BuildError, build, git, resolve, subject_of

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
EPILOG = ("Exit status: 0 no confirmed regression; 1 a confirmed regression or a verification "
          "failure in the head; 2 a usage or run error; 3 a revision does not build (its "
          "first compiler error and a 'not built' verdict in compare.json; git bisect run "
          "skips such a commit). The expected duration (a range: the confirmation runs only "
          "when the screening finds a suspect) is printed before the probe and at its pace "
          "after it; the actual beside it at the end. "
          "Intended slowdowns: results/accepted-slowdowns.tsv (docs/compare.md).")


def env_pairs(items, opt):
    out = {}
    for it in items or []:
        if "=" not in it or not it.split("=", 1)[0]:
            die("%s wants VAR=VALUE, not %r" % (opt, it))
        k, v = it.split("=", 1)
        out[k] = v
    return out


def ci_base(log):
    """make bench-ci's base: $HB_BASE, else the first parent of HEAD; None on a history of one
    commit."""
    rev = os.environ.get("HB_BASE") or None
    if rev:
        log("compare: base from $HB_BASE: %s" % rev)
        return rev
    parent = git(ROOT, "rev-parse", "--verify", "--quiet", "HEAD^1")
    if parent:
        log("compare: base: HEAD's first parent %s (set HB_BASE to a pull request's base)" %
            parent[:12])
    return parent


def arms_from(args, log, out):
    """(base Arm, head Arm), building the revisions. When a side does not build (the other is
    still built, so both are named), writes the not-built outputs into out and returns None."""
    benv, henv = env_pairs(args.base_env, "--base-env"), env_pairs(args.head_env, "--head-env")
    if args.build:
        binary = os.path.join(args.build, "hotbench")
        if not os.access(binary, os.X_OK):
            die("%s is not an executable hotbench" % binary)
        hbin = head_build(args) if args.head_build else binary
        return Arm("base", binary, benv, rev=args.build), \
            Arm("head", hbin, henv, rev=args.head_build or args.build)
    revs = (("base", args.base), ("head", args.head or WORKTREE))
    sides = [notbuilt.Side(label, rev, resolve(ROOT, rev), "") for label, rev in revs]
    for side in sides:  # both resolved (exit 2 for an unknown one) before any build
        side.subject = subject_of(ROOT, side.commit)
        try:
            side.binary = head_build(args) if side.label == "head" and args.head_build else \
                build(ROOT, side.commit, args.hooks, log)
        except BuildError as e:
            side.error = e
            log("compare: %s" % e)
    if not all(s.built() for s in sides):
        notbuilt.report(sides, dict(filter=args.filter, hooks=args.hooks), out)
        return None
    (b, h), (be, he) = sides, (benv, henv)
    return Arm("base", b.binary, be, b.commit, b.rev), Arm("head", h.binary, he, h.commit, h.rev)


def head_build(args):
    """--head-build DIR: the working tree's hotbench already built there (make bench-ci's
    build-ci)."""
    if args.head:
        die("--head-build is the working tree's build: give --head or --head-build, not both")
    binary = os.path.join(args.head_build, "hotbench")
    if not os.access(binary, os.X_OK):
        die("%s is not an executable hotbench (make build-ci builds it)" % binary)
    return binary


def options(args):
    kw = dict(filter=args.filter, ir_filter=args.ir_filter, blocks=args.rounds,
              confirm_blocks=args.confirm_rounds, min_time=args.min_time,
              repetitions=args.repetitions,
              min_effect=args.min_effect, ir_tolerance=args.ir_tolerance,
              max_iteration_s=args.max_iteration, instructions=not args.no_instructions,
              complexity=not args.no_complexity, seed=args.seed, copies=args.copies,
              isolate=not args.no_isolate, second_round_by=args.second_round_by)
    try:
        kw["cpu"] = cpus.parse(args.cpu)
        kw["shard"] = shards.parse(args.shard) if args.shard else None
    except ValueError as e:
        die(str(e))
    if args.budget_s is not None:
        kw["budget_s"] = args.budget_s
    if kw["second_round_by"] < 0:
        die("--second-round-by wants seconds, 0 or more (0: no second round)")
    if kw["copies"] < 0:
        die("--copies wants 0 (the binaries themselves) or more")
    for k in ("blocks", "confirm_blocks", "repetitions"):
        if kw[k] < 1:
            die("--rounds, --confirm-rounds and --repetitions want at least 1")
    return Options(**kw)


def main(argv=None):
    args = parser().parse_args(argv)
    log = lambda m: print(m, flush=True)
    if args.ci and not args.base and not args.build:
        args.base = ci_base(log)
        if not args.base and args.shard:
            die("--shard %s: no base revision to compare with (a history of one commit and no "
                "$HB_BASE); the committed baseline's gate does not shard" % args.shard)
        if not args.base:
            return nobase.record_head(ROOT, args, log)
    if not args.base and not args.build:
        die("give --base REV (or --build DIR to compare one binary in two environments)")
    out = args.out or os.path.join(ROOT, "results", "runs", datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-compare")
    os.makedirs(out, exist_ok=True)
    arms = arms_from(args, log, out)
    if arms is None:
        return notbuilt.NOT_BUILT
    base, head = arms
    lines = accepted.applicable(ROOT, base.commit, head.commit) if not args.build else []
    opts = options(args)
    result = run_compare(base, head, opts, out, log)
    accepted.apply(result.rows, lines)
    result.recount()
    # an accepted size makes its strategy's line accepted, not regressed
    result.strategies = strategies.relined(result.rows, result.strategies, opts)
    # where: the strategies regressed or improved, profiled per function (nothing otherwise)
    result.explain = None if args.no_explain else explain_hook.run(result, out, log)
    table.write(result, out)
    # the table last: the tail of a CI log names what failed the compare
    print("\n".join(explain_report.text_lines(result.explain) + table.lines(result)))
    print("compare: wrote %s/: compare.json, compare.md (this table), bmf.json, gab.json, "
          "trials/%s" % (os.path.relpath(out, os.getcwd()), ", explain/" if result.explain
                         else ""))
    if not args.build:  # one binary in two environments is no revision's measurement
        live.append(ROOT, live.target(ROOT, args), "bench-ci" if args.ci else "compare",
                    compare_dir=out)
    return result.exit_code


def parser():
    ap = argparse.ArgumentParser(prog="compare.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=EPILOG)
    o = Options()
    a = ap.add_argument
    a("--base", help="the base revision (any git revision)")
    a("--head", help="the head revision (default: the working tree, uncommitted changes too)")
    a("--ci", action="store_true", help="make bench-ci: base = $HB_BASE, else HEAD's first "
      "parent; with neither (a history of one commit), the head's run is recorded into the "
      "history and nothing is compared (exit 0)")
    a("--build", help="compare DIR/hotbench with itself (arms differ by --base-env/--head-env)")
    a("--head-build", metavar="DIR", help="the working tree's hotbench already built in DIR "
      "(instead of building build-rev/worktree/); with --build, the head's hotbench")
    a("--hooks", action="store_true", help="build with -DHB_TEST_HOOKS=ON (test injections)")
    a("--base-env", action="append", metavar="VAR=VALUE", help="environment of the base's runs")
    a("--head-env", action="append", metavar="VAR=VALUE", help="environment of the head's runs")
    a("--filter", help="the benchmarks (a --benchmark_filter; default: the manifest's "
      "gate.select)")
    a("--ir-filter", help="the benchmarks counted under callgrind (default: gate.ir_select)")
    a("--rounds", type=int, default=o.blocks, help="ABBA blocks of the screening, 4 processes "
      "each (default %(default)s)")
    a("--confirm-rounds", type=int, default=o.confirm_blocks, help="ABBA blocks confirming the "
      "suspects (default %(default)s)")
    a("--second-round-by", type=float, default=o.second_round_by, metavar="S",
      help="plan a second confirmation round, for the undecided suspect strategies whose "
      "first round came closest (least p), when the screening ended within S seconds of the "
      "start (the "
      "sequential test keeps the false-alarm level: docs/compare.md; default %(default)g; 0: "
      "never)")
    a("--min-time", type=float, default=o.min_time, help="--benchmark_min_time of each process "
      "(default %(default)s s)")
    a("--repetitions", type=int, default=o.repetitions, help="repetitions of each benchmark in "
      "a process; the process's sample is the least (default %(default)s)")
    a("--budget-s", type=float, help="--hb_budget (default %g s)" % o.budget_s)
    a("--min-effect", type=float, default=o.min_effect, help="smallest time change called a "
      "regression (default %(default)s)")
    a("--ir-tolerance", type=float, default=o.ir_tolerance, help="smallest instruction change "
      "called a regression (default %(default)s)")
    a("--max-iteration", type=float, default=o.max_iteration_s, help="leave out benchmarks "
      "slower than this per iteration after the first block (default %(default)s s)")
    a("--cpu", default="auto", help="auto: pin each ABBA block's processes to the CPU a short "
      "probe finds quickest (a vCPU slowed by another guest is avoided); none: no pinning; N: "
      "always CPU N (default auto)")
    a("--copies", type=int, default=o.copies, help="separately written copies of its binary "
      "each arm runs from, its processes spread over them; the confirmation counts the copy "
      "as a random effect (default %(default)s; 0: the binary itself, one file per arm)")
    a("--no-isolate", action="store_true", help="run every benchmark of a process in one "
      "process, also the strategies of groups whose manifest entry asks for a process each "
      "(gate.isolate: their times depend on the heap the strategies before them left; "
      "docs/compare.md). Cheaper, for measuring what the isolation costs")
    a("--no-instructions", action="store_true", help="skip the callgrind counts")
    a("--no-complexity", action="store_true", help="skip the exponent fits")
    a("--no-explain", action="store_true", help="skip the per-function profiles of the "
      "strategies regressed or improved (compare.md's Where section, explain/<strategy>.svg)")
    a("--seed", type=int, help="seed of the ABBA orders (default: random)")
    a("--shard", metavar="I/N", help="measure only the I-th of N parts of the selection, whole "
      "strategies balanced by their expected time (one CI runner's part; make bench-ci-merge "
      "joins the parts: docs/compare.md, Shards); default: all of it")
    a("--out", help="output folder (default results/runs/<UTC>-compare/)")
    live.add_options(ap)
    return ap

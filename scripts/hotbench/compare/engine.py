"""engine - the compare of two arms (base, head) on this machine, in four steps:
  1. screening: a probe (one process of the base, one iteration of each benchmark of the
     selection: the manifest's gate.select unless --filter) fixes the benchmarks, those under
     the time cap per iteration; then ABBA blocks of processes, each process a few repetitions
     of every benchmark (trials.py);
  2. confirmation: the suspects of step 1 (time regressed, by size or by strategy) in a
     second, independent set of interleaved blocks, their tests corrected for their number
     (confirmation.py); a size the head skipped over the budget, again without the budget;
  3. instructions: each arm once under callgrind over the manifest's gate.ir_select
     (deterministic counts);
  4. the second witness: a time regression whose case's object code is byte-identical in the
     two builds and whose instruction count did not move is inconclusive (witness.py);
  5. complexity: each strategy's exponent fitted along each view of the manifest, per arm; a
     higher exponent labels a regression of its largest size, and never decides alone.
Each arm runs from several copies of its binary (copies.py), and the confirmation counts the
copy as a random effect (random_effects.py); each time is corrected by the host's phase, read
from the benchmarks of unchanged code run beside it (phases.py, steady.py); one line per
strategy sums up (strategies.py).
Verification runs first in every process (hotbench's harness): a benchmark that fails it in the
head fails the compare. Verdicts: verdicts.py.
"""

import copy
import json
import os
import random
import time

from .. import estimate
from ..manifest import Manifest, ManifestError
from ..selection import BUDGET_S, MALLOC_ENV, PROFILE, selection_filter
from . import (checks, confirmation, copies, duration, isolation, shards, steady as steady_,
               strategies, toolchain, witness)
from .errors import die
from .trials import RunFailed, Samples, interleaved, names_filter, run_process


# A second confirmation round is planned (sequential.py) when the screening ended within this
# many seconds of the compare's start: idle, the default selection's screening ended 3.8-4.3
# min after the start (the 11 compares of results/gate-power/default-idle-3457ea7-runs, their
# logs), the compares 5.5-6.2 min in all, and a round takes up to a minute more
# (sequential.ROUND_S); beside two busy processes the screening's processes alone took 282-315
# s (default-loaded-5e42a22-runs, compares of 7.8-9.6 min with the head's build), where a round
# would push `make bench-ci` toward its 10 minutes, so none is planned.
SECOND_ROUND_BY = 300.0


class Options:
    """The compare's settings; every field has a default and a command-line option (cli.py).
    filter/ir_filter: google-benchmark regexes (None: the manifest's gate selection);
    blocks: ABBA blocks of the screening (4 processes each); confirm_blocks: of the
    confirmation; min_time: --benchmark_min_time (s) and repetitions: --hb_repetitions of each
    benchmark in a process (its sample is the least); budget_s: --hb_budget (s);
    max_iteration_s: a benchmark slower than this per iteration in the base's first process is
    left out of the later blocks (listed as not measured); min_effect: the smallest time change
    called a regression (fraction); ir_tolerance: the same for instructions; instructions,
    complexity: run those checks; censor_s: the least time a head run of a size it skipped is
    allowed before it is stopped (and at least censor_factor times the base's time);
    cpu: "auto" (pin each ABBA block to the CPU a probe finds quickest, cpus.py), None (no
    pinning) or a CPU number; seed: the ABBA orders' random seed (None: from the clock);
    reference_run: the recorded run JSON the expected duration is priced from (None:
    results/reference/run.json of this checkout; duration.py); copies: how many separately
    written copies of its binary each arm runs from (copies.py; 0: the binary itself); shard:
    (i, n) to measure only the i-th of n parts of the selection (shards.py), None for all;
    isolate: each strategy of the groups whose manifest entry says gate.isolate runs in a
    process of its own (isolation.py; False: every benchmark of a process in one);
    second_round_by: a second confirmation round is planned when the screening ended within
    this many seconds of the compare's start (sequential.py; 0: never)."""

    def __init__(self, **kw):
        self.filter = None
        self.ir_filter = None
        self.blocks = 3
        self.confirm_blocks = 5
        self.min_time = 0.01
        self.repetitions = 2
        self.budget_s = BUDGET_S
        self.max_iteration_s = 0.1
        self.min_effect = 0.02
        self.ir_tolerance = 0.02
        self.instructions = True
        self.complexity = True
        self.censor_s = 3.0
        self.censor_factor = 20.0
        self.cpu = "auto"
        self.seed = None
        self.reference_run = None
        self.copies = copies.COPIES
        self.shard = None
        self.isolate = True
        self.second_round_by = SECOND_ROUND_BY
        for k, v in kw.items():
            if not hasattr(self, k):
                raise TypeError("unknown option %r" % k)
            setattr(self, k, v)

    def settings(self):
        """The settings of a process (trials.command): profile, budget, min_time, env."""
        return dict(profile=PROFILE, budget_s=self.budget_s, min_time=self.min_time,
                    repetitions=self.repetitions, env=dict(MALLOC_ENV), cpu=self.cpu)

    def recorded(self):
        """The rest of the settings a verdict depends on, for compare.json's "settings" (a
        merge of shards refuses shards whose settings differ: merge.py)."""
        return dict(blocks=self.blocks, confirm_blocks=self.confirm_blocks,
                    min_effect=self.min_effect, ir_tolerance=self.ir_tolerance,
                    max_iteration_s=self.max_iteration_s, copies=self.copies,
                    instructions=self.instructions, complexity=self.complexity,
                    ir_filter=self.ir_filter, alpha=confirmation.ALPHA,
                    second_round_by=self.second_round_by)


class Result:
    """rows: one dict per benchmark (name, family, verdict, check, ratio, ci, p, base_s,
    head_s, n_base, n_head, instructions, note); summary: {verdict: count}; duration_s;
    exit_code: 1 when any row is regressed or failed, else 0; base, head: the arms; processes:
    the interleaved processes (trials.Samples.processes, an outlier marked)."""

    def __init__(self, base, head, rows, duration_s, settings, processes=()):
        self.base, self.head, self.rows = base, head, rows
        self.processes = list(processes)
        self.duration_s = duration_s
        self.settings = settings
        self.toolchain = None  # toolchain.compare() of the two sides' contexts
        self.estimate = None  # the expected duration and the actual (expect(), run_compare)
        self.aa = None  # the copies' own spread (copy_floor)
        self.phases = None  # the phase correction's thetas (phase_record)
        self.strategies = []  # one verdict per strategy (strategies.py)
        self.confirmation = None  # what Holm's procedure read (confirmation.record)
        self.shard = None  # the part of the selection measured (shards.cut), None for all
        self.recount()

    def recount(self):
        """summary and exit_code from the rows' verdicts (after a change of them)."""
        self.summary = {}
        for r in self.rows:
            self.summary[r["verdict"]] = self.summary.get(r["verdict"], 0) + 1
        self.exit_code = 1 if self.summary.get("regressed") or self.summary.get("failed") else 0


def load_manifest(head, base):
    """The head's manifest (the base's when the head has none); exits 2 when neither has one."""
    for arm in (head, base):
        try:
            return Manifest.from_binary(arm.binary)
        except ManifestError as e:
            err = e
    die("neither hotbench describes its cases (--hb_manifest): %s" % err)


def probe(base, settings, bfilter, trials_dir, opts, log):
    """One process of the base over the selection, one iteration of each benchmark: the
    benchmarks of the compare are those it measured at no more than max_iteration_s per
    iteration. Returns (names, left out {name: why}, the probe's Samples)."""
    log("compare: probing the selection with the base (one iteration each)")
    s = dict(settings, min_time=1e-9, repetitions=1)
    first = Samples()
    interleaved_one(base, s, bfilter, trials_dir, first)
    names, out = set(), {}
    for name, vals in first.real.get("base", {}).items():
        if min(vals) > opts.max_iteration_s:
            out[name] = "%.2f s per iteration: over the compare's cap of %g s (--max-iteration)" \
                        % (min(vals), opts.max_iteration_s)
        else:
            names.add(name)
    for name, vals in first.skipped.get("base", {}).items():
        out[name] = "skipped by the base over the budget (%s)" % checks.predicted(vals)
    log("compare: %d benchmark(s) measured, %d over %g s per iteration left out, %d skipped by "
        "the base" % (len(names) + len(out), len(out), opts.max_iteration_s,
                      len(first.skipped.get("base", {}))))
    return names, out, first


def expect(arms, manifest, bfilter, opts, log, isolate=None):
    """The compare's expected duration (duration.plan), logged before it measures; the plan, or
    None when hotbench lists nothing (the probe then says why). isolate: settings["isolate"]."""
    rows = reference_rows(opts, log)
    names = sorted(checks.listed(arms[0].binary, bfilter))
    if not names:
        return None
    ir_filter = checks.ir_selection(arms, manifest, opts) if opts.instructions else None
    ir_names = sorted(checks.listed(arms[1].binary, ir_filter)) if ir_filter else []
    p = duration.plan(names, ir_names, rows, opts, isolate=isolate)
    log("compare: expected " + duration.text(p))
    return dict(p, names=names, ir_names=ir_names, rows=rows, isolate=isolate)


def reference_rows(opts, log):
    """The recorded run's rows the compare prices its benchmarks from (estimate.run_rows of
    opts.reference_run, else results/reference/run.json of this checkout); {} when it cannot
    be read (logged)."""
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    path = opts.reference_run or os.path.join(top, "results", "reference", "run.json")
    try:
        with open(path) as f:
            return estimate.run_rows(json.load(f), path)
    except (OSError, ValueError) as e:
        log("compare: no recorded run to price the benchmarks (%s): each at %.2f s" % (
            e, estimate.C_ROW))
        return {}


def narrow(arms, manifest, bfilter, opts, log):
    """opts.shard's part of the selection bfilter (shards.cut over the base's listing, priced
    from the reference run): (a copy of opts measuring only that part, its filter; the record
    for compare.json, with "filter": bfilter). An --ir-filter given is narrowed to the part
    too (no callgrind run when it holds none of it)."""
    index, count = opts.shard
    names = sorted(checks.listed(arms[0].binary, bfilter))
    ir_filter = checks.ir_selection(arms, manifest, opts) if opts.instructions else None
    ir_names = sorted(checks.listed(arms[1].binary, ir_filter)) if ir_filter else []
    part, record = shards.cut(names, ir_names, reference_rows(opts, log), opts, index, count)
    record.update(filter=bfilter, ir_filter=opts.ir_filter, instructions=opts.instructions)
    mine = copy.copy(opts)
    mine.filter = names_filter(part)
    if opts.ir_filter:
        ir_part = sorted(set(ir_names) & set(part))
        mine.ir_filter = names_filter(ir_part) if ir_part else None
        mine.instructions = bool(ir_part)
    log("compare: shard %d/%d: %d of the selection's %d benchmarks (%d of %d strategies; "
        "selection sha256 %s)" % (index, count, len(part), len(names),
                                  len(record["parts"][index - 1]),
                                  sum(len(p) for p in record["parts"]),
                                  record["selection_sha256"][:12]))
    return mine, record


def empty_shard(base, head, settings, shard, log):
    """The Result of a shard that holds no strategy (more shards than strategies): no rows."""
    log("compare: shard %d/%d holds no strategy: nothing to measure" % (shard["index"],
                                                                         shard["count"]))
    result = Result(base, head, [], 0.0, settings)
    result.shard = shard
    return result


def phase_record(screen, conf):
    """compare.json's "phases": per step (screening, confirmation), the strategies the phases
    were read from ("read") and each corrected strategy's sensitivity theta to them (CPU time;
    phases.py); None where nothing was corrected."""
    def one(s):
        s.cpu  # settles the samples
        if not s.thetas:
            return None
        return dict(read=s.read, theta={f: round(t, 3) for f, t in sorted(s.thetas[0].items())})
    return dict(screening=one(screen), confirmation=one(conf) if conf.runs else None)


def second_round_planned(elapsed, opts, log):
    """Whether a second confirmation round is planned (sequential.py): the screening ended
    (elapsed seconds after the start) within opts.second_round_by; logged either way."""
    if opts.second_round_by <= 0 or opts.copies <= 0:
        return False  # with no copies the second round's p2 could share the first's file
    planned = elapsed <= opts.second_round_by
    log("compare: the screening ended %s after the start: %s (--second-round-by %g s)" % (
        duration.span(elapsed), "a second confirmation round is planned" if planned else
        "no second confirmation round, the first deciding at its full level", opts.second_round_by))
    return planned


def interleaved_one(arm, settings, bfilter, trials_dir, samples):
    """One process of arm into samples (the probe); raises RunFailed."""
    os.makedirs(trials_dir, exist_ok=True)
    path = os.path.join(trials_dir, "probe-%s.json" % arm.label)
    run, rc, secs, _ = run_process(arm, settings, bfilter, path)
    if run is None:
        raise RunFailed("%s's hotbench failed (exit %s); its output: %s" % (
            arm.label, rc, path[:-len(".json")] + ".log"))
    samples.add(arm.label, run)


def run_compare(base, head, opts, out_dir, log=print):
    """Compares arm head with arm base (arms.Arm) with Options opts, writing every process's
    JSON and log under out_dir/trials/, each arm's processes run from opts.copies copies of its
    binary (copies.py, removed at the end). Returns a Result. Exits 2 on a usage error; a
    hotbench process that fails (crash, no JSON) stops the compare with exit 2."""
    try:
        for arm in (base, head):
            copies.write(arm, opts.copies, out_dir)
    except OSError as e:
        die("cannot write the copies of the binaries under %s: %s" % (out_dir, e))
    if opts.copies:
        log("compare: each arm runs from %d separately written copies of its binary, its "
            "processes spread over them in turn (copies.py)" % opts.copies)
    try:
        return measure(base, head, opts, out_dir, log)
    finally:
        copies.remove(out_dir)


def measure(base, head, opts, out_dir, log):
    """run_compare's steps, the copies written."""
    t0 = time.monotonic()
    manifest = load_manifest(head, base)
    settings = opts.settings()
    settings["isolate"] = isolation.isolate_filter(manifest) if opts.isolate else None
    bfilter = opts.filter or selection_filter(manifest, "select")
    if not bfilter:
        die("no group of the manifest selects anything for the gate (gate.select); give --filter")
    shard = None
    if opts.shard:
        opts, shard = narrow((base, head), manifest, bfilter, opts, log)
        bfilter = opts.filter
        if not shard["parts"][shard["index"] - 1]:
            return empty_shard(base, head, dict(settings, filter=bfilter, **opts.recorded()),
                               shard, log)
    rng = random.Random(opts.seed)
    trials_dir = os.path.join(out_dir, "trials")
    steady = steady_.steady(base, head, manifest, log)
    screen = Samples(steady=steady)
    plan = expect((base, head), manifest, bfilter, opts, log, settings["isolate"])
    factor = paced = None
    try:
        t_probe = time.monotonic()
        names, left_out, first = probe(base, settings, bfilter, trials_dir, opts, log)
        if plan:
            measured = {n: min(v) for n, v in first.real.get("base", {}).items() if v}
            factor, paced = duration.at_pace(plan["names"], plan["ir_names"], plan["rows"],
                                             opts, time.monotonic() - t_probe, measured,
                                             plan["isolate"])
            log("compare: expected " + duration.text(paced, factor))
        screen.family.update(first.family)
        screen.params.update(first.params)
        if not names:
            die("the base measured none of the selected benchmarks (%s); see %s" % (
                bfilter, trials_dir))
        log("compare: screening: %d benchmarks, %d ABBA block(s) of base and head, %d x %g s "
            "per benchmark and process" % (len(names), opts.blocks, opts.repetitions,
                                            opts.min_time))
        interleaved((base, head), settings, names_filter(names), opts.blocks, trials_dir,
                    "screen", screen, rng, log)
        rows = checks.screen_rows(screen, opts, left_out)
        conf = Samples(steady=steady)
        second = second_round_planned(time.monotonic() - t0, opts, log)
        holm, conf2 = confirmation.confirm(rows, screen, (base, head), settings, opts,
                                           trials_dir, rng, log, conf,
                                           strategies.to_confirm(rows, screen, opts), second)
        checks.unbudgeted(rows, screen, (base, head), settings, opts, trials_dir, rng, log)
    except RunFailed as e:
        die(str(e))
    if opts.instructions:
        checks.instructions(rows, (base, head), settings, manifest, opts, out_dir, log)
    witness.apply(rows, base, head, manifest, log)
    if opts.complexity:
        checks.complexity(rows, screen, manifest, opts)
    rows = checks.finish(rows)
    result = Result(base, head, rows, time.monotonic() - t0,
                    dict(settings, filter=bfilter, **opts.recorded()),
                    screen.processes + conf.processes + (conf2.processes if conf2 else []))
    result.confirmation, result.shard = holm, shard
    result.toolchain = toolchain.compare(screen.context)
    result.aa = strategies.copy_floor(screen, rows)
    result.phases = phase_record(screen, conf)
    result.strategies = strategies.summarize(rows, screen, opts, conf)
    if plan:
        result.estimate = {
            "expected_s": round(plan["total"][1], 1),
            "expected_range_s": [round(plan["total"][0], 1), round(plan["total"][2], 1)],
            "steps_s": {k: ([round(x, 1) for x in v] if isinstance(v, list) else round(v, 1))
                        for k, v in plan.items() if k in ("probe", "screening",
                                                          "confirmation", "second",
                                                          "callgrind")},
            "probe_pace": round(factor, 3) if factor is not None else None,
            "expected_at_pace_s": round(paced["total"][1], 1) if paced else None,
            "expected_at_pace_range_s": [round(paced["total"][0], 1),
                                         round(paced["total"][2], 1)] if paced else None,
            "confirmation_ran": bool(conf.processes),
            "actual_s": round(result.duration_s, 1)}
    for line in toolchain.warning_lines(result.toolchain):
        log("compare: " + line)
    return result

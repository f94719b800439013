"""trials - interleaved trials: the base's and the head's hotbench run as short processes in
randomized ABBA blocks (base, head, head, base or head, base, base, head, the order drawn per
block), every process one repetition of every selected benchmark, so that a drift of the
machine (another job starting, the CPU's clock, the page cache) hits both sides alike and
every process is one sample of each benchmark (randomized multiple interleaved trials: Abedi and
Brecht, ICPE 2017). Each process keeps its google-benchmark JSON and console output.
"""

import math
import os
import statistics
import subprocess
import time

from ..selection import ere_escape
from ..runjson import Run
from . import blocks, copies, cpus, isolation, phases
from .outliers import outlying


class Samples:
    """What the processes measured, per arm label ("base", "head"):
    runs                  one (label, {name: (cpu, real)}) per process that wrote its JSON:
                          seconds per iteration, the least of the process's repetitions (another
                          job's interference only ever adds time)
    copy                  the copy of its arm's binary (copies.py, from 1) each of runs ran from
    block                 the ABBA block each of runs ran in ((tag, number); None: none)
    cpu[label][name]      CPU seconds per iteration, one value per process kept (outliers.py:
                          a process whose benchmarks all ran far slower or faster than the
                          others is left out), aligned on its block's centre (blocks.py) where
                          the processes ran in blocks; real[label][name] likewise
    widen(names)          the factor the intervals of these benchmarks' aligned values are
                          widened by (blocks.py; 1.0 unaligned)
    outliers              {index in runs: its factor} of the processes left out
    skipped[label][name]  the predicted seconds (or None) of each process that skipped it
    failed[label][name]   the message of a verification failure or error
    family[name]          "<group>/<strategy>"; params[name] its arguments
    processes             one dict per process: label, block, seconds, rc, json, timed_out."""

    def __init__(self, aligned=True, steady=None):
        """aligned: whether the values are aligned on their blocks (blocks.py); steady: a
        function of a strategy ("<group>/<strategy>") that is True where no difference of the
        arms can move its times (steady.Steady), from which each value's phase is read
        (phases.py); None: no correction. The strategies whose rows carry the test hooks'
        counter hb_injected_fraction are left out, with what a change of their code would
        move (steady.Steady.without, where steady has it)."""
        self.runs, self.skipped, self.failed, self.copy, self.block = [], {}, {}, [], []
        self._widen, self.aligned, self.steady = {}, aligned, steady
        self.thetas = None  # phases.correct's, once settled with steady
        self.read = []  # the strategies the phases were read from
        self.injected = set()
        self.family, self.params, self.processes = {}, {}, []
        self.context = {}
        self._kept = None

    def add(self, label, run, copy=1, block=None):
        """Adds one process's Run, which ran from copy (copies.py) of its arm's binary in block
        (an ABBA block: any hashable; None when it ran in none)."""
        self.context.setdefault(label, run.context)
        self.block.append(block)
        best = {}
        for r in run.rows:
            self._note(r)
            cpu, real = best.get(r["name"], (float("inf"), float("inf")))
            best[r["name"]] = (min(cpu, r["cpu"]), min(real, r["t"]))
        self.runs.append((label, best))
        self.copy.append(copy)
        self._kept = None
        for r in run.skipped:
            self._note(r)
            self.skipped.setdefault(label, {}).setdefault(r["name"], []).append(
                r.get("predicted_s"))
        for r in run.failed:
            self._note(r)
            self.failed.setdefault(label, {})[r["name"]] = r["message"]

    def _note(self, r):
        self.family[r["name"]] = r["family"] + "/" + r["strategy"]
        if (r.get("counters") or {}).get("hb_injected_fraction"):
            self.injected.add(self.family[r["name"]])
        self.params[r["name"]] = r["params"]

    @property
    def outliers(self):
        return self._state()[0]

    @property
    def cpu(self):
        return self._by_metric(0)

    @property
    def real(self):
        return self._by_metric(1)

    def _state(self):
        """(outliers, (cpu, real, copy) by label and name, the kept runs and their copies),
        computed once per add."""
        if self._kept is None:
            self._settle()
        return self._kept

    def _settle(self):
        out = outlying([{n: v[0] for n, v in best.items()} for _, best in self.runs],
                       [label for label, _ in self.runs])
        by = ({}, {}, {})
        copies = self.copy + [1] * (len(self.runs) - len(self.copy))
        kept = [i for i in range(len(self.runs)) if i not in out]
        blocks_ = self.block + [None] * (len(self.runs) - len(self.block))
        labels = [self.runs[i][0] for i in kept]
        raw = {i: self.runs[i][1] for i in kept}
        if self.steady:
            keep = self.steady.without(self.injected) if hasattr(self.steady, "without") \
                else (lambda f: f not in self.injected and self.steady(f))
            steady = {f for f in set(self.family.values()) if keep(f)}
            self.read = sorted(steady)
            raw, self.thetas = phases.correct(kept, dict(zip(kept, labels)), raw,
                                              self.family, steady)
        vals, self._widen = blocks.align(kept, labels,
                                         [blocks_[i] if self.aligned else None
                                          for i in kept], raw)
        for i in kept:
            label = self.runs[i][0]
            for name, v in vals[i].items():
                for m, x in enumerate((v[0], v[1], copies[i])):
                    by[m].setdefault(label, {}).setdefault(name, []).append(x)
        self._kept = (out, by, [(self.runs[i][0], vals[i]) for i in kept],
                      [copies[i] for i in kept])

    def widen(self, names):
        """The factor (>= 1) an interval from these benchmarks' values is widened by: the
        largest of theirs (blocks.align)."""
        self._state()
        return max([self._widen.get(n, 1.0) for n in names] or [1.0])

    def pooled(self, label, names, with_copy=False, weights=None):
        """A strategy's sizes pooled: one value per kept process of label that measured every
        one of names, the weighted geometric mean over names of its CPU time over that name's
        median among the kept processes of both arms (1.0: a process as fast as the middle
        one). weights: {name: weight} (precision_weights of other, independent processes:
        weights read off the values they pool make the test too permissive), else equal
        weights. The ratio of two arms' pooled values is the weighted geometric mean of the
        sizes' ratios. with_copy: (copy, value) pairs instead (copies.py)."""
        _, _, kept, copies = self._state()
        runs = [(lb, best, c) for (lb, best), c in zip(kept, copies)
                if all(n in best and best[n][0] > 0 for n in names)]
        if not names or not runs:
            return []
        med = {n: statistics.median(best[n][0] for _, best, _ in runs) for n in names}
        w = {n: 1.0 / len(names) for n in names}
        if weights:
            total = sum(weights.get(n, 0.0) for n in names)
            w = {n: weights.get(n, 0.0) / total for n in names} if total > 0 else w
        vals = [(c, math.exp(sum(w[n] * math.log(best[n][0] / med[n]) for n in names)))
                for lb, best, c in runs if lb == label]
        return vals if with_copy else [v for _, v in vals]

    def weights(self, names):
        """precision_weights of names from these processes (both arms'; a name with fewer than
        two values weighs as the floor's)."""
        return precision_weights({n: [(lb, v) for lb in ("base", "head")
                                      for v in self.values(lb, n) if v > 0] for n in names})

    def _by_metric(self, m):
        return self._state()[1][m]

    def values(self, label, name, metric="cpu"):
        return getattr(self, metric).get(label, {}).get(name, [])

    def by_copy(self, label, name):
        """(copy, CPU seconds) of each kept process of label that measured name."""
        return list(zip(self._by_metric(2).get(label, {}).get(name, []),
                        self.values(label, name)))


# The least spread (sd of log time) a size's weight is figured from: a size steadier than 1%
# weighs no more than one of 1% (its spread from a few processes is itself uncertain).
WEIGHT_FLOOR_SD = 0.01


def precision_weights(values):
    """{name: weight}, the weights summing to 1, from values {name: [(label, seconds)]}: each
    size's inverse variance of log time about its own arm's median (a robust sd, 1.4826 times
    the median absolute deviation, at least WEIGHT_FLOOR_SD), so that a noisy size no longer
    widens its strategy's pooled interval past its steady sizes' (the inverse-variance weights
    of a fixed-effect meta-analysis; Cochran 1954). Deviations are taken about each arm's own
    median, so a change between the arms moves no weight. The confirmation weighs its sizes
    by the screening's processes (confirmation.tests): weights from the values they pool
    favour the sizes that scattered least by chance, and made a test of sizes 1% slower
    reject 1.2 to 1.8 times as often as its level (a review's simulation, 40,000 draws)."""
    inv = {}
    for n, pairs in values.items():
        dev = []
        for lb in {lb for lb, _ in pairs}:
            logs = [math.log(v) for b, v in pairs if b == lb]
            m = statistics.median(logs)
            dev += [abs(x - m) for x in logs]
        sd = 1.4826 * statistics.median(dev) if dev else 0.0
        inv[n] = 1.0 / max(sd, WEIGHT_FLOOR_SD) ** 2
    total = sum(inv.values())
    return {n: x / total for n, x in inv.items()}


def names_filter(names):
    """The google-benchmark regex selecting exactly these benchmark names."""
    return "^(" + "|".join(ere_escape(n) for n in sorted(names)) + ")$"


def command(binary, settings, bfilter, out_json):
    """hotbench's command line for one process: settings["repetitions"] (default 1) of each of
    bfilter's benchmarks, back to back."""
    return [binary, "--hb_profile=" + settings["profile"], "--hb_budget=%g" % settings["budget_s"],
            "--hb_repetitions=%d" % settings.get("repetitions", 1), "--benchmark_min_time=%g" % settings["min_time"],
            "--benchmark_filter=" + bfilter, "--benchmark_out=" + out_json,
            "--benchmark_out_format=json"]


def run_process(arm, settings, bfilter, out_json, timeout=None, cpu=None, binary=None):
    """Runs one process of arm over bfilter from binary (default arm.binary; a copy of it:
    copies.py), pinned to cpu unless None; (Run or None, exit status, seconds, timed out). The
    environment: ours, the settings' (glibc's malloc thresholds), then the arm's. Where
    settings["isolate"] selects some of the benchmarks, the process runs in parts, one after
    another (isolation.py), its JSON their merge; the exit status is the worst part's."""
    env = dict(os.environ)
    env.update(settings.get("env", {}))
    env.update(arm.env)
    binary = binary or arm.binary
    filters = isolation.parts(binary, settings, bfilter)
    paths = [out_json] if len(filters) == 1 else \
        ["%s.part%d.json" % (out_json[:-len(".json")], k) for k in range(len(filters))]
    t0, worst = time.monotonic(), 0
    with open(out_json[:-len(".json")] + ".log", "w") as logf:
        for part, path in zip(filters, paths):
            left = None if timeout is None else timeout - (time.monotonic() - t0)
            cmd = command(binary, settings, part, path + ".tmp")
            rc = call(cmd, env, arm, logf, left, cpu) if left is None or left > 0 else None
            if rc is None:
                return None, None, time.monotonic() - t0, True
            if rc not in (0, 1) or not os.path.exists(path + ".tmp"):
                return None, rc, time.monotonic() - t0, False
            os.replace(path + ".tmp", path)
            worst = max(worst, rc)
    seconds = time.monotonic() - t0
    if len(paths) > 1:
        isolation.merge(paths, out_json)
    return Run(out_json), worst, seconds, False


def call(cmd, env, arm, logf, timeout, cpu):
    """Runs cmd with env, its output into logf after a line of arm's environment and cmd;
    its exit status, None when it ran over timeout seconds (None: no limit)."""
    logf.write(" ".join("%s=%s" % kv for kv in sorted(arm.env.items())) + " " +
               " ".join(cmd) + "\n")
    logf.flush()
    try:
        return subprocess.call(cmd, stdout=logf, stderr=subprocess.STDOUT, env=env,
                               timeout=timeout, preexec_fn=None if cpu is None else
                               (lambda: os.sched_setaffinity(0, {cpu})))
    except subprocess.TimeoutExpired:
        return None


class RunFailed(Exception):
    """A process failed (crashed, or wrote no JSON); the message names its log."""


def interleaved(arms, settings, bfilter, blocks, out_dir, tag, samples, rng, log, timeout=None):
    """Runs blocks ABBA blocks of arms (base, head) over bfilter into out_dir/<tag>-<n>-<label>
    .json, adding to samples (numbered after the processes and blocks of tag that an earlier
    call added to samples). A process over timeout seconds is recorded as timed out (its
    benchmarks get no value). Raises RunFailed when a process fails."""
    os.makedirs(out_dir, exist_ok=True)
    base, head = arms
    n = len(samples.processes)
    before = len({p["block"] for p in samples.processes if p["tag"] == tag})  # earlier calls'
    total = blocks * 4
    for b in range(blocks):
        order = [base, head, head, base] if rng.random() < 0.5 else [head, base, base, head]
        cpu, probe = cpus.for_block(settings.get("cpu"))
        for i, arm in enumerate(order):
            k = b * 4 + i + 1
            path = os.path.join(out_dir, "%s-%03d-%s.json" % (tag, n + k, arm.label))
            copy, binary = copies.take(arm)
            run, rc, secs, timed_out = run_process(arm, settings, bfilter, path, timeout, cpu,
                                                   binary)
            samples.processes.append(dict(label=arm.label, block=before + b + 1, tag=tag, rc=rc,
                                          copy=copy, seconds=round(secs, 3), json=path,
                                          timed_out=timed_out, cpu=cpu,
                                          probe_ms={c: round(v, 3) for c, v in probe.items()}))
            if timed_out:
                log("compare: %s %d/%d %s: over %.1f s, stopped" % (tag, n + k, n + total,
                                                                   arm.label, timeout))
                continue
            if run is None:
                raise RunFailed("%s's hotbench failed (exit %s); its output: %s" % (
                    arm.label, rc, path[:-len(".json")] + ".log"))
            samples.add(arm.label, run, copy, (tag, before + b + 1))
            samples.processes[-1]["run"] = len(samples.runs) - 1
            done = [p["seconds"] for p in samples.processes[n:]]
            eta = sum(done) / len(done) * (total - k)
            log("compare: %s %d/%d %s %.1f s%s (%s left)" % (
                tag, n + k, n + total, arm.label, secs, "" if cpu is None else " on cpu%d" % cpu,
                "%.0f s" % eta if eta < 120 else "%.1f min" % (eta / 60)))
    note_outliers(samples, tag, log)


def note_outliers(samples, tag, log):
    """Marks (process["outlier"] = its factor) and logs the processes of tag left out."""
    far = samples.outliers
    for p in samples.processes:
        p.pop("outlier", None)
        if p.get("run") in far:
            p["outlier"] = round(far[p["run"]], 4)
            if p["tag"] == tag:
                log("compare: %s: left out %s (its benchmarks ran %.2fx the median "
                    "process: an outlying process)" % (tag, os.path.basename(p["json"]),
                                                        far[p["run"]]))

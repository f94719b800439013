"""blocks - the ABBA blocks as blocks of the analysis: each benchmark's values aligned on the
centre of their block, so that a block that ran slow as a whole (both arms alike) no longer
widens the interval of every benchmark.

The interleaved trials are a randomized block design: each ABBA block runs two processes of each
arm back to back, and the machine's speed drifts between blocks far more than within one.
Measured on the project's 2-vCPU VM, in an unchanged compare (a README change), the third
of three screening blocks ran the RFC 3339 parsers 1.2 to 1.75 times as long as the first two,
in both arms alike; the rank interval over all the processes, which treats them as one sample
per arm, then spans every cross-block pair: a median width of 46% over the 277 timed
benchmarks, against 12% once aligned. A 5% slowdown added to that compare's head would have
been called regressed by the screening's 95% interval in 21 rows, in 92 aligned
(results/notes/blocks.md).

The alignment follows Hodges and Lehmann ("Rank methods for combination of independent
experiments in analysis of variance", Ann. Math. Statist. 33, 1962): per benchmark and block,
subtract the block's centre (the mean of the two arms' medians in the block, so that an
unbalanced block centres alike) from the log times, then rank all the aligned values together.
Differences within a block are unchanged; those across blocks lose the block's effect. A block
holding one arm only (its other processes left out as outliers) has no contrast and is left
out. Aligned values scatter less than the raw ones (by 1 - 1/s of the variance, s processes a
block), so an interval from them is widened by sqrt(s / (s - 1)) about its estimate: in 3,000
simulated compares of 3 and 5 blocks (normal and t(3) noise, block effects of 0 and 20%) the
widened interval excluded an unchanged shift about as often as its level, within the
simulation's error (3.4-4.9% at 95%, 0.10-0.33% at 99.75%; the raw one without block effects
3.9-4.2% and 0.13-0.37%), and found a 5% slowdown with block effects where the raw interval
could not (35-71% against 0% at 99.75%, 5 blocks).
"""

import math
import statistics


def align(kept, labels, blocks, values):
    """Aligned copies of the kept processes' values, and each benchmark's widening factor.
    kept: process indexes; labels[i], blocks[i]: the arm label ("base", "head") and the block
    (any hashable, None: unknown) of process kept[i]; values: {process index: {name: (cpu,
    real)}} seconds per iteration, positive. Returns (aligned, widen): aligned the same shape
    as values, a name dropped from the processes of a block without both arms, each value
    exp(log v - block centre + the name's median log over the blocks kept) so that it stays in
    seconds; widen {name: factor >= 1} for the intervals (1.0 where fewer than two blocks
    hold both arms: then nothing is aligned). values is returned as it is when a block is
    unknown."""
    if not kept or any(b is None for b in blocks):
        return values, {}
    out = {i: {} for i in kept}
    widen = {}
    names = set().union(*(values[i] for i in kept))
    for name in names:
        groups = {}
        for i, lb, blk in zip(kept, labels, blocks):
            if name in values[i]:
                groups.setdefault(blk, {}).setdefault(lb, []).append(i)
        used = {blk: arms for blk, arms in groups.items() if len(arms) == 2}
        if len(used) < 2 or any(v <= 0 for i in kept if name in values[i]
                                for v in values[i][name]):
            for arms in groups.values():
                for idx in arms.values():
                    for i in idx:
                        out[i][name] = values[i][name]
            widen[name] = 1.0
            continue
        aligned_name(name, used, values, out)
        s = sum(len(idx) for arms in used.values() for idx in arms.values()) / len(used)
        widen[name] = math.sqrt(s / (s - 1.0))
    return out, widen


def aligned_name(name, used, values, out):
    """Writes out[i][name] for every process i of the blocks used ({block: {label: [process
    indexes]}}, both labels in each): each metric (cpu, real) aligned on its block's centre
    and moved to the median of all their logs."""
    every = [i for arms in used.values() for idx in arms.values() for i in idx]
    logs = {i: [math.log(v) for v in values[i][name]] for i in every}
    new = {i: list(values[i][name]) for i in every}
    for m in range(len(logs[every[0]])):
        overall = statistics.median(logs[i][m] for i in every)
        for arms in used.values():
            centre = statistics.mean(statistics.median(logs[i][m] for i in idx)
                                     for idx in arms.values())
            for idx in arms.values():
                for i in idx:
                    new[i][m] = math.exp(logs[i][m] - centre + overall)
    for i in every:
        out[i][name] = tuple(new[i])


def widened(ratio, lo, hi, factor):
    """(lo, hi) of an interval of ratios widened by factor about ratio, in logs; infinite and
    zero ends stay as they are."""
    if factor == 1.0 or ratio is None or not 0 < ratio < math.inf:
        return lo, hi
    lo2 = ratio * (lo / ratio) ** factor if 0 < lo and math.isfinite(lo) else lo
    hi2 = ratio * (hi / ratio) ** factor if 0 < hi and math.isfinite(hi) else hi
    return lo2, hi2

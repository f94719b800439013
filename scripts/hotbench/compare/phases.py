"""phases - the host's slow phases inside a process, corrected by the benchmarks run beside.

On the project's shared 2-vCPU VM the host runs in phases a few seconds long, 10 to 45% apart,
in the middle of a process (results/notes/host-phases.md): in unchanged compares of one binary,
windows of 25 benchmarks of one process ran 0.70 to 1.45 times their median. A whole-process
outlier test (outliers.py) cannot see a phase that covers a third of a process, nor can the
blocks' alignment (blocks.py), which moves whole processes. So each value is corrected by the
phase it ran in, read from its neighbours in the process's run order: a control variate
(regression adjustment of a covariate the change cannot move; Lavenberg and Welch, "A
perspective on the use of control variables to increase the efficiency of Monte Carlo
simulations", Management Science 27, 1981).

- The residual of a process's benchmark is its log time less that benchmark's median log time
  among all the processes, both arms. A benchmark's phase in a process is the median of the
  residuals of the WINDOW benchmarks run nearest it in that process (at most MAX_DISTANCE
  places away; its own strategy left out), read only from *steady* strategies: those no
  difference of the arms can move (steady.py: object code byte-identical in the two
  builds; never a strategy of a case the test hooks slow down). So the phases carry the arms'
  unequal share of slow phases as well as each process's own, and the correction moves each
  arm's centre by the phases it met: that is its point, and its assumption. Were the steady
  rows themselves moved by the change (a layout or heap effect with the same object code), the
  correction would lend that move to their neighbours; a per-arm centring would not, but it
  keeps each arm's unequal share of phases in its centre while removing the spread that hid
  it (on a stored compare of one binary, 129 of 259 rows' 95% intervals excluded 1:
  results/notes/host-phases.md).
- Benchmarks feel a phase unequally (volumes/expat-tree at 300 volumes up to 1.8x where
  rfc3339's rows move 5%), so each strategy's sensitivity theta is the slope of its residuals on
  their phases within each benchmark and arm (slopes()), shrunk where it is not clearly above
  its noise and held to [0, THETA_MAX], so that a phase is never amplified much: a strategy the
  phases do not move is left about as it is.
- The corrected value: exp(log v - theta * phase), in seconds; rank intervals are taken from
  the corrected values.

Where an arm has fewer than MIN_PROCESSES processes nothing is corrected; where a benchmark
has fewer than MIN_NEIGHBOURS steady neighbours within MAX_DISTANCE, that value is not.
"""

import math
import statistics

WINDOW = 16
MAX_DISTANCE = 40  # places in the run order: ~3 s of a screening process (~0.07 s a benchmark)
MIN_NEIGHBOURS = 8
MIN_PROCESSES = 3
THETA_MAX = 1.5


def residuals(kept, values, m):
    """{process: {name: log value - the median log value of name among all the kept processes,
    both arms}} of metric m (0 cpu, 1 real); names with a value <= 0 or held by fewer than
    MIN_PROCESSES processes are left out."""
    logs = {}
    for i in kept:
        for name, v in values[i].items():
            if v[m] > 0:
                logs.setdefault(name, []).append(math.log(v[m]))
    med = {n: statistics.median(x) for n, x in logs.items() if len(x) >= MIN_PROCESSES}
    return {i: {n: math.log(v[m]) - med[n] for n, v in values[i].items()
                if n in med and v[m] > 0} for i in kept}


def phase(order, res, family, k, steady):
    """The phase of the k-th benchmark of a process run in order (names): the median residual
    (res {name: residual}) of the WINDOW nearest benchmarks of other strategies (family {name:
    "<group>/<strategy>"}) in steady (a set of them), alternating before and after, at most
    MAX_DISTANCE places away; None with fewer than MIN_NEIGHBOURS."""
    own = family.get(order[k])
    got, lo, hi = [], k - 1, k + 1
    while len(got) < WINDOW and (lo >= 0 or hi < len(order)) and hi - k <= MAX_DISTANCE:
        for j in (lo, hi):
            if 0 <= j < len(order) and order[j] in res and family.get(order[j]) != own \
                    and family.get(order[j]) in steady:
                got.append(res[order[j]])
        lo, hi = lo - 1, hi + 1
    return statistics.median(got[:WINDOW]) if len(got) >= MIN_NEIGHBOURS else None


def slopes(points):
    """{family: theta}: per family, the least-squares slope of residual on phase over points
    [(family, cell, phase, residual)], both centred on their cell's mean (a cell: one
    benchmark in one arm, so that neither a size's level nor a change of the head enters the
    slope: the pooled within-group slope of an analysis of covariance), shrunk by
    (1 - 1/t^2) where t is the slope over its standard error (the positive-part shrinkage of
    one coefficient, so that a slope fitted to noise, where the phases were too small to show,
    corrects little: James and Stein 1961), held to [0, THETA_MAX]; 0 without enough points."""
    cells = {}
    for f, cell, x, y in points:
        cells.setdefault((f, cell), []).append((x, y))
    by = {}
    for (f, _), xy in cells.items():
        if len(xy) < 3:
            continue
        mx, my = sum(x for x, _ in xy) / len(xy), sum(y for _, y in xy) / len(xy)
        c = by.setdefault(f, [0.0, 0.0, [], 0])
        c[0] += sum((x - mx) ** 2 for x, _ in xy)
        c[1] += sum((x - mx) * (y - my) for x, y in xy)
        c[2] += [(x - mx, y - my) for x, y in xy]
        c[3] += 1
    out = {}
    for f, (sxx, sxy, xy, ncell) in by.items():
        dof = len(xy) - ncell - 1
        if dof < 2 or sxx <= 0:
            out[f] = 0.0
            continue
        theta = sxy / sxx
        s2 = sum((y - theta * x) ** 2 for x, y in xy) / dof
        t2 = theta * theta * sxx / s2 if s2 > 0 else math.inf
        out[f] = min(THETA_MAX, max(0.0, theta * (1.0 - 1.0 / t2) if t2 > 1 else 0.0))
    return out


def correct(kept, labels, values, family, steady):
    """Corrected copies of the kept processes' values and each strategy's theta per metric.
    kept: process indexes; labels {process index: its arm label}; values: {process index: {name:
    (cpu, real)}} seconds per iteration, each dict in the order the process ran its benchmarks;
    family: {name: "<group>/<strategy>"}; steady: the strategies whose residuals make a
    phase (a set of families). Returns (corrected, [theta cpu, theta real]):
    corrected the same shape as values (a value without a phase kept as it is); thetas None
    (nothing corrected) when an arm has fewer than MIN_PROCESSES processes."""
    out = {i: dict(values[i]) for i in kept}
    arms = list(labels.values())
    if len(set(arms)) < 2 or min(arms.count(lb) for lb in set(arms)) < MIN_PROCESSES:
        return out, None
    thetas = []
    for m in (0, 1):
        res = residuals(kept, values, m)
        ph, points = {}, []
        for i in kept:
            order = list(values[i])
            for k, name in enumerate(order):
                if name not in res[i]:
                    continue
                p = phase(order, res[i], family, k, steady)
                if p is not None:
                    ph[(i, name)] = p
                    points.append((family.get(name), (name, labels[i]), p, res[i][name]))
        theta = slopes(points)
        thetas.append(theta)
        for (i, name), p in ph.items():
            v = list(out[i][name])
            v[m] = math.exp(math.log(v[m]) - theta.get(family.get(name), 0.0) * p)
            out[i][name] = tuple(v)
    return out, thetas

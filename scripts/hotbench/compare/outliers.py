"""outliers - whole processes whose every benchmark ran slow (or fast) together.

On a shared VM the two vCPUs are not alike, and not alike over time: measured on the project's
VM, one benchmark ran 1.34 ms on one vCPU and 0.80 ms on the other for minutes (another guest
busy on the host's sibling thread, presumably), then alike again. A process the scheduler put on
the slow vCPU runs 20-50% slower across all its benchmarks; per benchmark that is one outlying
run in 6 or 8, enough to widen a rank interval past a 5% change. Such a process shows in what
its benchmarks share: its "process factor", the median over its benchmarks of its time over
that benchmark's median time among all the processes (both arms). A process whose factor lies
far from the others' is left out of its arm's samples.

"Far" is the modified z-score of Iglewicz and Hoaglin (1993): |f - median| / (1.4826 MAD) above
3.5, and the factor off by more than FLOOR (3%) besides, so that a machine quiet enough to
make the MAD tiny does not turn ordinary 1% scatter into outliers. At most a third of each
arm's processes are left out (the worst first), and only where the processes number
MIN_PROCESSES and share MIN_BENCHMARKS benchmarks: a process of one or two benchmarks has no
factor apart from those benchmarks' own values.

A change of the head, even one that slows every benchmark alike, leaves none of its processes
far: it moves half the processes together, which makes the MAD as wide as the change itself
(every factor then lies about one MAD from the median, a z of 0.7).
"""

import statistics

FLOOR = 0.03
Z = 3.5
MIN_PROCESSES = 4
MIN_BENCHMARKS = 5


def factors(runs):
    """The process factor of each of runs (a list of {benchmark: seconds}, one per process),
    over the benchmarks every process measured; None when they share fewer than
    MIN_BENCHMARKS."""
    common = set.intersection(*(set(r) for r in runs)) if runs else set()
    common = {n for n in common if all(r[n] > 0 for r in runs)}
    if len(common) < MIN_BENCHMARKS:
        return None
    med = {n: statistics.median(r[n] for r in runs) for n in common}
    return [statistics.median(r[n] / med[n] for n in common) for r in runs]


def outlying(runs, labels):
    """{index in runs: factor over the median factor} of the processes to leave out (the
    module's rule); labels[i] is the arm of runs[i]."""
    if len(runs) < MIN_PROCESSES:
        return {}
    f = factors(runs)
    if f is None:
        return {}
    mid = statistics.median(f)
    mad = statistics.median(abs(x - mid) for x in f) * 1.4826
    far = sorted(((abs(x - mid), i) for i, x in enumerate(f)
                  if abs(x / mid - 1) > FLOOR and (mad == 0 or abs(x - mid) / mad > Z)),
                 reverse=True)
    left = {lb: labels.count(lb) // 3 for lb in set(labels)}
    out = {}
    for _, i in far:
        if left[labels[i]] > 0:
            left[labels[i]] -= 1
            out[i] = f[i] / mid
    return out

"""cpus - which CPU a block of the compare's processes runs on.

On the project's 2-vCPU VM one vCPU is at times far slower than the other for tens of seconds
(measured: one benchmark at 1.34 ms on cpu0 and 0.80 ms on cpu1 with nothing else running in
the guest; another guest busy on the host's sibling thread, presumably), and the guest's
scheduler, seeing two idle CPUs, puts a process on either. A process on the slow vCPU is an
outlying run of every benchmark it measures. So before each ABBA block the compare times a
short probe on every CPU it may use and pins the block's four processes to the quickest: the
block's base and head runs share one vCPU, and a slow vCPU is avoided while it is slow.

The probe is a fixed loop of indexed reads and additions over a 256 KiB buffer, timed in this
thread's CPU time, the least of PROBE_REPEATS on each CPU (about 2 ms each here); it is
sensitive to the same contention (execution ports and the shared caches) as the benchmarks.
"""

import os
import time

PROBE_REPEATS = 2
PROBE_LOOP = 30000


def allowed():
    """The CPUs this process may run on (sorted), or [] where affinity is not supported."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []


def probe_ms(cpu):
    """CPU milliseconds of the probe loop on cpu (this thread moves there and stays)."""
    os.sched_setaffinity(0, {cpu})
    buf = bytearray(1 << 18)
    mask = len(buf) - 1
    t0 = time.thread_time()
    s = 0
    for i in range(PROBE_LOOP):
        s += buf[(i * 4099) & mask] + i
    return (time.thread_time() - t0) * 1e3


def quickest(cpus):
    """(the cpu of cpus whose probe took least, {cpu: ms}); restores this thread's affinity to
    every allowed CPU afterwards. cpus: a list of CPU numbers, at least one."""
    if len(cpus) < 2:
        return (cpus[0] if cpus else None), {}
    whole = allowed()
    try:
        ms = {c: min(probe_ms(c) for _ in range(PROBE_REPEATS)) for c in cpus}
    finally:
        os.sched_setaffinity(0, set(whole))
    return min(ms, key=ms.get), ms


def parse(text):
    """--cpu's value: "auto" (probe before every block), "none" (no pinning) or a CPU number;
    returns "auto", None or an int. Raises ValueError naming the allowed CPUs otherwise."""
    if text in ("auto", "none"):
        return None if text == "none" else "auto"
    cpus = allowed()
    if not text.isdigit() or int(text) not in cpus:
        raise ValueError("--cpu wants auto, none or one of this process's CPUs %s, not %r" % (
            cpus, text))
    return int(text)


def for_block(choice):
    """(the CPU the next block's processes are pinned to or None for not pinned, the probe's
    {cpu: ms} or {}), by choice ("auto", None or an int)."""
    if choice != "auto":
        return choice, {}
    return quickest(allowed())

"""selection - what a same-machine measurement runs: the benchmarks the cases select for the gate,
and the run settings the compare, the history's backfill and make gate-power share.

The selection: every group's gate.select (the timed runs) and gate.ir_select (the callgrind run)
of the manifest (docs/manifest.md), each an extended regex searched in the benchmark name after
"<group>/":
    ^(<group>/(<select>)|<group>/(<select>)|...)        "" selects the whole group, null none.
Sizes are picked from the full profile this way: every case, every strategy; several sizes per
strategy for the complexity fits; the incident's configuration where it is affordable, never the
1.7 GB bodies.
"""

import re

PROFILE = "full"
# sizes whose predicted time exceeds this (s) are skipped (the quadratic strategies' larger ones)
BUDGET_S = 0.25
# glibc's malloc adapts its mmap threshold to the blocks freed so far and returns the top of the
# heap to the kernel past a trim threshold, so whether a buffer was fresh memory (page faults:
# 1.4 ms for memcpy of 4 MiB) or recycled (0.09 ms) depended on which benchmarks ran before it:
# one injected regression made an unrelated strategy 6x slower that way, and httpcore at 64 KiB
# took 30 us or 4 us. Pinned: a buffer of 128 KiB or more is always fresh memory (the cost
# DESIGN.md counts as real), a smaller one always recycled heap.
MALLOC_ENV = {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=131072:"
                                "glibc.malloc.trim_threshold=4294967295"}


def ere_escape(text):
    """text (str) as a literal in a POSIX extended regex (google-benchmark's
    --benchmark_filter)."""
    return re.sub(r"([.\[\](){}*+?|^$\\])", r"\\\1", text)


def selection_filter(manifest, key="select"):
    """The --benchmark_filter (str) selecting every group's gate[key] ("select" or "ir_select")
    of manifest (hotbench.manifest.Manifest), or None when no group has one."""
    parts = []
    for g in manifest.groups():
        sel = (g.get("gate") or {}).get(key)
        if sel is None:
            continue
        prefix = ere_escape(g["name"]) + "/"
        parts.append(prefix + "(" + sel + ")" if sel else prefix)
    return "^(" + "|".join(parts) + ")" if parts else None

"""settings - what a measurement runs: hotbench's profile, budget, repetitions, the environment,
and the selection of benchmarks, built from the manifest.

The selection: every group's gate.select (the timed run) and gate.ir_select (the callgrind run)
of the manifest, each an extended regex searched in the benchmark name after "<group>/":
    ^(<group>/(<select>)|<group>/(<select>)|...)        "" selects the whole group, null none.
Sizes are picked from the full profile this way (the quick profile at google-benchmark's default
0.5 s per benchmark takes over 10 minutes): every case, every strategy; several sizes per strategy
for the complexity fits; the incident's configuration where it is affordable, never the 1.7 GB
bodies (predicted by the fit).

A measurement keeps its settings in settings.json, so that CI measures what the baseline
measured. "selection" says where the filters came from: "manifest" (re-derived from the measured
hotbench's manifest each time, so a new case is measured without a change here) or "explicit"
(--filter / --ir-filter given: the recorded filters are used as they are).
"""

import json
import os
import re

SETTINGS = {
    "profile": "full",
    # sizes whose predicted time exceeds this are skipped (the quadratic strategies' larger ones)
    "budget_s": 0.25,
    "repetitions": 5,
    "min_time": 0.03,
    "interleave": False,
    # glibc's malloc adapts its mmap threshold to the blocks freed so far and returns the top of
    # the heap to the kernel past a trim threshold, so whether a buffer was fresh memory (page
    # faults: 1.4 ms for memcpy of 4 MiB) or recycled (0.09 ms) depended on which benchmarks ran
    # before it: one injected regression made an unrelated strategy 6x slower that way, and
    # httpcore at 64 KiB took 30 us or 4 us. Pinned: a buffer of 128 KiB or more is always fresh
    # memory (the cost DESIGN.md counts as real), a smaller one always recycled heap.
    "env": {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=131072:"
                             "glibc.malloc.trim_threshold=4294967295"},
    # the filters (timed run; callgrind: the small sizes, one iteration each, deterministic
    # counts) come from the manifest unless given
    "selection": "manifest",
}

# the command-line options that override a setting
OVERRIDES = ("filter", "ir_filter", "repetitions", "min_time", "budget_s")


def ere_escape(text):
    """text as a literal in a POSIX extended regex (google-benchmark's --benchmark_filter)."""
    return re.sub(r"([.\[\](){}*+?|^$\\])", r"\\\1", text)


def selection_filter(manifest, key="select"):
    """The --benchmark_filter selecting every group's gate[key] ("select" or "ir_select"), or
    None when no group has one."""
    parts = []
    for g in manifest.groups():
        sel = (g.get("gate") or {}).get(key)
        if sel is None:
            continue
        prefix = ere_escape(g["name"]) + "/"
        parts.append(prefix + "(" + sel + ")" if sel else prefix)
    return "^(" + "|".join(parts) + ")" if parts else None


def resolve(settings, manifest):
    """The settings with their filters: from the manifest for selection "manifest", and for an
    explicit selection the one not given."""
    s = dict(settings)
    for key, sel in (("filter", "select"), ("ir_filter", "ir_select")):
        if s.get("selection") != "explicit" or not s.get(key):
            s[key] = selection_filter(manifest, sel)
    return s


def settings_from(args, base_dir=None):
    """The defaults, then the baseline's settings.json (measure what the baseline measured), then
    the command line's overrides. The filters are filled in by resolve()."""
    s = dict(SETTINGS)
    if base_dir and os.path.exists(os.path.join(base_dir, "settings.json")):
        with open(os.path.join(base_dir, "settings.json")) as f:
            s.update(json.load(f))
    for k in OVERRIDES:
        v = getattr(args, k, None)
        if v is not None:
            s[k] = v
            if k in ("filter", "ir_filter"):
                s["selection"] = "explicit"
    return s

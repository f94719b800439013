"""isolation - a process of its own for each strategy of the groups that ask for it.

glibc's malloc serves a request of any size from a free chunk of its heap when one is large
enough, and goes to mmap (fresh pages: a page fault on each) only when none is, whatever the
mmap threshold says. Which free chunks the heap holds when a benchmark starts depends on every
benchmark and verification that ran before it in the process, so one small long-lived
allocation more in an earlier strategy can make a later strategy's 256 KiB array recycled heap
in one arm and fresh memory in the other: measured, `bufgrow/realloc-doubling` at 256 KiB ran
at 0 page faults and 14 us an iteration in every base process and at 65 faults and 630-890 us in
every head process whose only difference was an injected slowdown of `bufgrow/httpcore`
(results/notes/heap-history.md). A group whose manifest entry says "gate": {"isolate": true}
(its times depend on the heap; docs/manifest.md) therefore has each of its strategies run in a
process of its own: its heap then holds only what its own verification and its own smaller
sizes left, the same in both arms whatever else changed. The compare's process stays the unit
of the statistics: its parts run one after another, pinned alike, and their JSON is merged
into the one file the process writes.
"""

import json
import os
import re

from ..listing import list_benchmarks
from ..selection import ere_escape

_listed = {}


def isolate_filter(manifest):
    """The ERE (str) matching the benchmark names of the manifest's groups whose gate entry
    says "isolate": true, or None when no group does. manifest: hotbench.manifest.Manifest."""
    names = [g["name"] for g in manifest.groups() if (g.get("gate") or {}).get("isolate")]
    return "^(" + "|".join(ere_escape(n) for n in names) + ")/" if names else None


def parts(binary, settings, bfilter):
    """The --benchmark_filter of each process bfilter's benchmarks run in: [bfilter] when
    settings["isolate"] (isolate_filter's ERE) is unset or selects none of them; else one
    filter for the rest (first, when there is a rest), then one per isolated strategy
    ("<group>/<strategy>"), in binary's registration order. The names are binary's
    --benchmark_list_tests for bfilter (cached per binary and filter); a listing that fails
    leaves bfilter whole (the process then fails or runs as before)."""
    isolate = settings.get("isolate")
    if not isolate:
        return [bfilter]
    key = (binary, settings["profile"], bfilter)
    if key not in _listed:
        _listed[key] = list_benchmarks(binary, "--hb_profile=" + settings["profile"],
                                       "--benchmark_filter=" + bfilter).names
    return split(_listed[key], isolate) or [bfilter]


def split(names, isolate):
    """names (registration order) as filters: the names isolate (an ERE) does not match in
    one, then those it matches, one filter per strategy ("<group>/<strategy>/..."), in the
    order of their first name. [] when isolate matches none of names."""
    pat = re.compile(isolate)
    rest, own = [], {}
    for n in names:
        if pat.search(n):
            own.setdefault("/".join(n.split("/")[:2]), []).append(n)
        else:
            rest.append(n)
    if not own:
        return []
    groups = ([rest] if rest else []) + list(own.values())
    return ["^(" + "|".join(ere_escape(n) for n in g) + ")$" for g in groups]


def merge(paths, out):
    """Writes to out one google-benchmark JSON holding the benchmarks of the JSON files paths
    (in order) under the first one's context, as if one process had run them all; removes
    paths. Raises OSError or ValueError for a file that cannot be read."""
    context, benchmarks = None, []
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        if context is None:
            context = doc.get("context") or {}
        benchmarks.extend(doc.get("benchmarks") or [])
    with open(out, "w") as f:
        json.dump({"context": context, "benchmarks": benchmarks}, f)
    for p in paths:
        os.remove(p)

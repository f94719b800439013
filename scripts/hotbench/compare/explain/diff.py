"""diff - the differential table of two profiles of one benchmark: the functions whose
exclusive cost changed most between the base and the head, per iteration, at most LIMIT rows;
a function only the head has is "new", one only the base has "gone".

Costs are divided by each profile's iterations, so that two dumps of different iteration counts
compare; a change is also given as a fraction of the base's total, so that the rows of a table
add up to (most of) the benchmark's own change.
"""

import os

LIMIT = 8


def per_iteration(profile):
    """{name: (self, inclusive, function)} of profile, per iteration (floats)."""
    n = float(getattr(profile, "iterations", 1) or 1)
    return {name: (f.self_cost / n, f.incl / n, f)
            for name, f in profile.functions.items()}


def relative(path, roots):
    """path shortened for a reader: under one of roots (the source trees the binaries were
    built from) it is made relative to it; a path like glibc's ./elf/../sysdeps/x.h is
    normalised; '' for callgrind's '???' (no debug information)."""
    if not path or path == "???":
        return ""
    for root in roots:
        if root and path.startswith(os.path.join(root, "")):
            return os.path.relpath(path, root)
    return os.path.normpath(path) if not os.path.isabs(path) else path


def rows(base, head, roots=(), limit=LIMIT):
    """The table: a list of at most limit dicts, the largest |exclusive change| first, each
    function (name), file (relative: relative()), line (0: unknown), base, head (exclusive
    cost per iteration, 0 when absent), base_incl, head_incl (inclusive), change (head - base),
    share (change over the base's total per iteration; None when the base's total is 0) and
    status ("new", "gone" or ""). Functions whose cost did not change are left out. base and
    head: callgrind.Profile (or any object with .functions, .total and .iterations)."""
    b, h = per_iteration(base), per_iteration(head)
    total = base.total / float(getattr(base, "iterations", 1) or 1)
    out = []
    for name in set(b) | set(h):
        bs, bi, bf = b.get(name, (0.0, 0.0, None))
        hs, hi, hf = h.get(name, (0.0, 0.0, None))
        if hs == bs:
            continue
        f = hf or bf
        status = "new" if name not in b or (bs == 0 and bi == 0) else \
            "gone" if name not in h or (hs == 0 and hi == 0) else ""
        out.append(dict(function=name, file=relative(f.file, roots), line=f.line, base=bs,
                        head=hs, base_incl=bi, head_incl=hi, change=hs - bs,
                        share=(hs - bs) / total if total else None, status=status))
    out.sort(key=lambda r: (-abs(r["change"]), r["function"]))
    return out[:limit]


def totals(base, head):
    """(base, head) total cost per iteration (floats)."""
    return tuple(p.total / float(getattr(p, "iterations", 1) or 1) for p in (base, head))

"""merged - the explanations of a compare made of shards (compare/merge.py, `make
bench-ci-merge`): each shard explained the strategies it found regressed or improved, in its own
folder; the merge keeps those whose merged verdict is still that one (Holm's correction over all
the shards' tests can turn a shard's regression into `inconclusive`, never the reverse) and
copies their files into the merged folder, so that its compare.md, compare.json and explain/
hold them as a compare's own.
"""

import os
import shutil


def files_of(entry):
    """The paths (relative to its compare folder) an explanation entry names."""
    out = [entry.get("svg")] + [p for kind in (entry.get("files") or {}).values()
                                for p in kind.values()]
    perf = entry.get("perf") or {}
    return [p for p in out + [perf.get("svg")] if p]


def gather(docs, strategies, out_dir):
    """The merged compare's explanations: [entry] of the shards' compare.json "explain" lists
    (docs: [(folder, document)]) whose strategy's merged verdict (strategies: the merged
    summary, dicts family and verdict) is the entry's own; their files copied from the shard's
    folder into out_dir under the same relative paths (a file missing is left out, said in the
    entry's "note"). None when no shard explained anything (each ran with --no-explain)."""
    verdict = {st["family"]: st["verdict"] for st in strategies}
    explained = [(d, doc["explain"]) for d, doc in docs if doc.get("explain") is not None]
    if not explained:
        return None
    out = []
    for d, entries in explained:
        for e in entries:
            if verdict.get(e["strategy"]) != e.get("verdict"):
                continue
            e = dict(e)
            missing = []
            for rel in files_of(e):
                src, dst = os.path.join(d, rel), os.path.join(out_dir, rel)
                if not os.path.exists(src):
                    missing.append(rel)
                    continue
                if os.path.abspath(src) != os.path.abspath(dst):
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.copyfile(src, dst)
            if missing:
                e["note"] = "not in the shard's folder %s: %s" % (d, ", ".join(missing))
            out.append(e)
    return sorted(out, key=lambda e: e["strategy"])

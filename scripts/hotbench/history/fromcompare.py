"""fromcompare - the Record of a compare's output folder (results/runs/<UTC>-compare/).

compare.json (schema hotbench-compare/1) gives per benchmark the head's CPU time (head_s, in
seconds per iteration, over n_head processes), the ratio head/base with its 95% interval (ci)
and the instruction counts ({"head": count, ...} or null). The context (revision, tools,
machine, load) is the first head trial's run JSON under trials/; a compare whose trials are
gone records the head's commit from compare.json and no tools.
"""

import glob
import json
import os

from .record import NotARun, Record, RecordError, _finite, _load_json, number, run_row, text

COMPARE_SCHEMA = "hotbench-compare/1"


def _head_context(folder, doc):
    """The context of the head: a head trial's, else a minimal one from compare.json."""
    for p in sorted(glob.glob(os.path.join(folder, "trials", "*-head.json"))):
        try:
            with open(p) as f:
                ctx = json.load(f).get("context")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(ctx, dict) and "hb_git_revision" in ctx:
            return dict(ctx)
    head = doc.get("head") or {}
    commit = head.get("commit")
    return {"hb_git_revision": commit if commit and commit != "worktree" else "unknown",
            "hb_profile": (doc.get("settings") or {}).get("profile")}


def _measurements(path, rows):
    """cpu_time, ratio and instructions dicts of compare.json's rows; RecordError naming path
    on a row that is not an object with a name, a name that is not valid Unicode or appears in
    two rows, a value that is an integer too large for a float."""
    out, seen = [], {}
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or not isinstance(r.get("name"), str):
            raise RecordError("%s: rows[%d] is not a compare row (no name)" % (path, i))
        name, n = r["name"], r.get("n_head")
        if name in seen:
            raise RecordError("%s: benchmark %s is in two rows (rows[%d] and rows[%d]): "
                              "which one was measured is unknown" % (
                                  path, text(path, name), seen[name], i))
        seen[name] = i
        text(path, name)
        for key in ("head_s", "ratio"):
            number(path, name, key, r.get(key))
        n = n if isinstance(n, int) and not isinstance(n, bool) else None
        verified = 0 if r.get("verdict") == "failed" else 1
        if _finite(r.get("head_s")):
            out.append(dict(benchmark=name, metric="cpu_time", value=float(r["head_s"]),
                            unit="s", lower=None, upper=None, repetitions=n, cv=None,
                            verified=verified))
        if _finite(r.get("ratio")):
            ci = r.get("ci") if isinstance(r.get("ci"), list) and len(r["ci"]) == 2 else [None] * 2
            lo, hi = (float(c) if _finite(c) else None for c in ci)
            out.append(dict(benchmark=name, metric="ratio", value=float(r["ratio"]),
                            unit="ratio", lower=lo, upper=hi, repetitions=n, cv=None,
                            verified=verified))
        ir = r.get("instructions")
        if isinstance(ir, dict) and _finite(ir.get("head")):
            out.append(dict(benchmark=name, metric="instructions", value=float(ir["head"]),
                            unit="instructions", lower=None, upper=None, repetitions=1,
                            cv=None, verified=verified))
    return out


def from_compare_dir(folder, kind, root, branch=None, revision=None):
    """The Record of a compare folder (str, holding compare.json) recorded as kind ('compare',
    'bench-ci', 'import'); root: the git repository; revision: the head's revision when the
    caller knows it better than the trials (the working tree's HEAD sha + '-dirty'). Raises
    RecordError naming compare.json: missing, not JSON or truncated, another schema, no rows
    measured; NotARun (passed over by an import) for a compare whose verdict is 'not built'
    (a revision did not build: nothing was measured, docs/compare.md)."""
    path = os.path.join(folder, "compare.json")
    if not os.path.isfile(path):
        raise RecordError("%s: not a compare folder: no compare.json in it" % folder)
    doc, digest = _load_json(path, "a compare's compare.json")
    if not isinstance(doc, dict) or doc.get("schema") != COMPARE_SCHEMA:
        raise RecordError("%s: not a hotbench compare: schema %r, expected %r" % (
            path, doc.get("schema") if isinstance(doc, dict) else type(doc).__name__,
            COMPARE_SCHEMA))
    if doc.get("verdict") == "not built":
        raise NotARun("%s: a compare whose %s did not build: nothing measured" % (
            path, " and ".join(map(str, doc.get("not_built") or ["revision"]))))
    if not isinstance(doc.get("rows"), list):
        raise RecordError("%s: no 'rows' list" % path)
    ms = _measurements(path, doc["rows"])
    if not ms:
        raise RecordError("%s: no benchmark measured in the head (%d rows): nothing to record"
                          % (path, len(doc["rows"])))
    ctx = _head_context(folder, doc)
    if revision:
        ctx["hb_git_revision"] = revision
    sel = (doc.get("settings") or {}).get("filter")
    return Record(run_row(root, ctx, kind, folder, digest, "filter=%s" % sel if sel else None,
                          branch), ms)

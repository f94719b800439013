"""merge - the shards of one compare joined into one (`make bench-ci-merge SHARDS="DIR..."`,
scripts/compare_merge.py; docs/compare.md, "Shards").

Each shard (`compare.py --shard i/N`, shards.py) is a whole compare of its part of the
selection on its own runner: builds, probe, screening, confirmation, callgrind. What it cannot
do alone is Holm's correction (confirmation.py): that counts every test of the compare, and
each shard saw only its own. So a shard's compare.json keeps what the correction and the
verdicts read ("confirmation": each test's runs, each suspect's screening runs; each row's
checks, its witness and acceptance; each strategy's pooled verdict), and the merge runs the
compare's own code over all the shards' tests at once: confirmation.step_down, then
confirmation.decide per suspect, then the witness, the complexity label, verdicts.combine and the
acceptance as the compare applies them. Rows with no suspect keep their shard's verdict: nothing
in it depends on another shard.

With more tests Holm's levels only get stricter, so the merge can turn a shard's confirmed
regression into `inconclusive` (a suspect not confirmed), never the reverse.

Shards are refused (exit 2, naming the difference and the folders) unless they are parts of one
compare: the same selection (its sha256, filter and cut), the same N, each index once, the same
base and head (commit, binary sha256, environment), the same settings (rounds, copies,
repetitions, minimum time, e, alpha...) and the same toolchain (but for a shard that measured
nothing: more shards than strategies). A shard whose folder holds no
compare.json (its job failed or its artifact is missing) is missing: the merged verdict is
`incomplete`, naming it and the strategies it held, and the merge exits 2. A side that did not
build (a shard's verdict "not built") is the merge's verdict too (exit 3).
"""

import argparse
import datetime
import json
import os
import shutil
import sys

from ..exports import write_compare_exports
from . import accepted, checks, confirmation, strategies, table, witness
from .arms import Arm
from .explain import merged as explain_merged, report as explain_report
from .engine import Options, Result
from .notbuilt import NOT_BUILT, VERDICT as NOT_BUILT_VERDICT
from .verdicts import describe_time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
INCOMPLETE = 2  # the exit status of a merge with a shard missing (and of a refusal)
# What must be equal in every shard: the shard record's keys, each arm's, and the settings but
# for those a shard narrows to its part (the record keeps the selection's).
SHARD_KEYS = ("count", "selection_sha256", "benchmarks", "filter", "ir_filter", "instructions",
              "parts")
# An arm's copies are not among them: settings.copies holds --copies, and a shard that ran a
# second confirmation round ran from more files (arms.Arm.describe).
ARM_KEYS = ("commit", "sha256", "env")
NARROWED = ("filter", "ir_filter", "instructions")


class MergeError(Exception):
    """Shards that are not parts of one compare, or a folder that cannot be read; the message
    names what and where."""


class Recorded:
    """A trials.Samples stand-in over recorded runs: values(label, name) from {name: {label:
    [seconds]}}; widen(names) from {name: factor} (blocks.py; 1.0 when not recorded)."""

    def __init__(self, by_name, widen_by_name=None):
        self.by_name = by_name
        self.widen_by_name = widen_by_name or {}

    def values(self, label, name):
        return list(self.by_name.get(name, {}).get(label, []))

    def widen(self, names):
        return max([self.widen_by_name.get(n, 1.0) for n in names] or [1.0])


def read_shards(dirs):
    """([(dir, compare.json's document)], [dirs with no compare.json]). Raises MergeError for a
    compare.json that is no JSON or not a compare's."""
    docs, absent = [], []
    for d in dirs:
        path = os.path.join(d, "compare.json")
        if not os.path.exists(path):
            absent.append(d)
            continue
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise MergeError("%s: cannot read it: %s" % (path, e))
        if not isinstance(doc, dict) or doc.get("schema") != table.SCHEMA:
            raise MergeError("%s: not a compare's output (schema %r, want %r)" % (
                path, doc.get("schema") if isinstance(doc, dict) else None, table.SCHEMA))
        docs.append((d, doc))
    return docs, absent


def where(d, doc):
    s = doc.get("shard") or {}
    return "%s (shard %s/%s)" % (os.path.join(d, "compare.json"), s.get("index"), s.get("count"))


def check(docs):
    """Refuses (MergeError) shards that are not parts of one compare (the module's list); returns
    the first document, the reference of the others."""
    for d, doc in docs:
        if not isinstance(doc.get("shard"), dict):
            raise MergeError("%s is no shard: it has no \"shard\" record (a compare run without "
                             "--shard; make bench-ci SHARD=i/N makes one)" %
                             os.path.join(d, "compare.json"))
        if (doc.get("settings") or {}).get("alpha") != confirmation.ALPHA:
            raise MergeError("%s: its Holm level alpha %r is not this merge's %r" % (
                where(d, doc), (doc.get("settings") or {}).get("alpha"), confirmation.ALPHA))
    d0, ref = docs[0]

    def pick(doc):
        out = {"shard." + k: doc["shard"].get(k) for k in SHARD_KEYS}
        for arm in ("base", "head"):
            out.update({"%s.%s" % (arm, k): (doc.get(arm) or {}).get(k) for k in ARM_KEYS})
        out.update({"settings." + k: v for k, v in (doc.get("settings") or {}).items()
                    if k not in NARROWED})
        for arm in ("base", "head"):
            out["toolchain." + arm] = (doc.get("toolchain") or {}).get(arm)
        return out

    want = pick(ref)
    seen = {ref["shard"]["index"]: d0}
    for d, doc in docs[1:]:
        have = pick(doc)
        for k in sorted(set(want) | set(have)):
            if k.startswith("toolchain.") and None in (want.get(k), have.get(k)):
                continue  # a shard that measured nothing (no strategy in its part)
            if want.get(k) != have.get(k):
                raise MergeError("the shards are not parts of one compare: %s is %s in %s and "
                                 "%s in %s" % (k, brief(want.get(k)), where(d0, ref),
                                               brief(have.get(k)), where(d, doc)))
        i = doc["shard"]["index"]
        if i in seen:
            raise MergeError("shard %s/%s twice: %s and %s" % (
                i, doc["shard"]["count"], seen[i], d))
        seen[i] = d
    return ref


def brief(v):
    """A value for an error message: JSON, cut to 120 characters."""
    text = json.dumps(v, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def pairs(runs):
    return [tuple(x) for x in runs]


def rejudge(docs, opts):
    """{name: row} of every shard's rows, each suspect's time verdict made again from one
    Holm procedure over all the shards' tests (the module's rule); and the merged confirmation
    record."""
    rows, tests, suspects, held, second, share = {}, {}, [], set(), {}, {}
    for d, doc in docs:
        for r in doc["rows"]:
            rows[r["name"]] = dict(r, checks=[dict(c) for c in r.get("checks") or []])
        c = doc.get("confirmation") or {}
        for t in c.get("tests", []):
            tests[(t["kind"], t["name"])] = (pairs(t["base"]), pairs(t["head"]),
                                             t.get("widen", 1.0))
            if t.get("counted", True):
                held.add((t["kind"], t["name"]))
            share[(t["kind"], t["name"])] = t.get("share", 1.0)
            if t.get("second"):
                second[(t["kind"], t["name"])] = (pairs(t["second"]["base"]),
                                                  pairs(t["second"]["head"]),
                                                  t["second"].get("widen", 1.0))
        suspects += c.get("suspects", [])
    verdicts = confirmation.holm(tests, {s["name"]: s["family"] for s in suspects}, opts, held,
                                 second, share)
    stub = {s["name"]: dict(name=s["name"], family=s["family"],
                            time=dict(ratio=s["screen_ratio"])) for s in suspects}
    families = checks.by_strategy(stub, list(stub))
    screen = Recorded({s["name"]: s["screen"] for s in suspects},
                      {s["name"]: s.get("screen_widen", 1.0) for s in suspects})
    conf = Recorded({n: {lb: [v for _, v in runs] for lb, runs in zip(
        ("base", "head"), tests[("size", n)][:2])} for n in stub},
        {n: tests[("size", n)][2] for n in stub})
    for s in suspects:
        tv = confirmation.decide(stub[s["name"]], screen, conf, verdicts,
                                 len(families.get(s["family"], [])), opts)
        again(rows[s["name"]], tv)
    record = dict(alpha=confirmation.ALPHA, tests=[
        dict(kind=k, name=n, base=[list(x) for x in b], head=[list(x) for x in h], widen=w,
             counted=(k, n) in held, share=share[(k, n)],
             **({"second": dict(base=[list(x) for x in second[(k, n)][0]],
                                head=[list(x) for x in second[(k, n)][1]],
                                widen=second[(k, n)][2])} if (k, n) in second else {}))
        for (k, n), (b, h, w) in sorted(tests.items())], suspects=suspects)
    return rows, record


def again(row, tv):
    """row (a recorded suspect's) with its time verdict tv: its time check replaced, then the
    witness, the complexity label and its verdict as the compare applies them (engine.measure),
    its acceptance left to accept()."""
    row["time"] = tv
    labels = [c["text"] for c in row["checks"] if c["kind"] == "complexity"]
    row["checks"] = [c for c in row["checks"] if c["kind"] != "complexity"]
    for c in row["checks"]:
        if c["kind"] == "time":
            c.update(verdict=tv["verdict"], text=tv.get("text") or describe_time(tv, "interleaved"))
    if row.get("witness") and tv["verdict"] == "regressed":
        witness.mark(row, row["witness"], row.get("instructions"))
    elif tv["verdict"] != "regressed":
        row.pop("witness", None)
    for text in labels:
        checks.label_complexity(row, text)
    checks.settle(row)
    if row["verdict"] != "regressed":
        row.pop("accepted", None)


def accept(rows):
    """The recorded acceptances (accepted.mark) of the rows still regressed."""
    for r in rows:
        if r["verdict"] == "regressed" and r.get("accepted"):
            accepted.mark(r, r["accepted"])


def arm_of(docs, label):
    """An arms.Arm standing for the shards' (docs: [(dir, document)]) arm label: the first's,
    with the most files any shard's processes of it ran from."""
    a = docs[0][1][label]
    arm = Arm(label, a.get("binary"), a.get("env"), a.get("commit"), a.get("rev"))
    arm.sha256 = a.get("sha256")
    most = max((doc[label].get("copies") or 1) for _, doc in docs)
    arm.copies = [a.get("binary")] * max(1, most)
    return arm


def merged_phases(records):
    """The shards' "phases" records (engine.phase_record; None where a shard has none) as one:
    per step, the strategies read and the thetas of all the shards (a strategy is in one shard
    only: shards.py cuts by strategy); None when no shard corrected anything."""
    out = {}
    for step in ("screening", "confirmation"):
        got = [r[step] for r in records if r and r.get(step)]
        if got:
            out[step] = dict(read=sorted({f for g in got for f in g["read"]}),
                             theta={f: t for g in got for f, t in sorted(g["theta"].items())})
    return out or None


def merge(docs, absent):
    """The merged Result of docs ([(dir, document)], checked) with absent (folders with no
    compare.json); its verdict "incomplete" and exit status 2 when a shard is missing."""
    ref = docs[0][1]
    opts = Options(min_effect=ref["settings"]["min_effect"])
    rows, record = rejudge(docs, opts)
    rows = checks.in_order(list(rows.values()))
    accept(rows)
    lines = strategies.relined(rows, [st for _, doc in docs for st in doc.get("strategies") or []],
                               opts)  # after the acceptances, as the compare does
    settings = dict(ref["settings"], **{k: ref["shard"].get(k) for k in NARROWED})
    result = Result(arm_of(docs, "base"), arm_of(docs, "head"), rows,
                    max(doc.get("duration_s") or 0.0 for _, doc in docs), settings,
                    [dict(p, shard=doc["shard"]["index"], json=p.get("json") or "")
                     for _, doc in docs for p in doc.get("processes") or []])
    result.toolchain = next((doc["toolchain"] for _, doc in docs if doc.get("toolchain")), None)
    result.strategies = lines
    result.aa, result.confirmation = strategies.floor_of(rows), record
    result.phases = merged_phases([doc.get("phases") for _, doc in docs])
    count = ref["shard"]["count"]
    present = sorted(doc["shard"]["index"] for _, doc in docs)
    result.shards = dict(
        count=count, selection_sha256=ref["shard"]["selection_sha256"],
        benchmarks=ref["shard"]["benchmarks"], parts=ref["shard"]["parts"],
        present=[dict(index=doc["shard"]["index"], dir=d, duration_s=doc.get("duration_s"),
                      exit_code=doc.get("exit_code"), summary=doc.get("summary"))
                 for d, doc in sorted(docs, key=lambda x: x[1]["shard"]["index"])],
        absent=absent)
    missing = [i for i in range(1, count + 1) if i not in present]
    if missing:
        result.verdict = "incomplete"
        result.missing = ["%d/%d" % (i, count) for i in missing]
        result.exit_code = INCOMPLETE
    return result


def head_lines(result):
    """The merge's lines under the table's first: the shards, and what is missing."""
    s = result.shards
    out = ["merged from %s: Holm's correction over their %d tests together (selection sha256 "
           "%s, %d benchmarks)" % (", ".join("shard %d/%d (%.1f min)" % (
               p["index"], s["count"], (p["duration_s"] or 0) / 60) for p in s["present"]),
               len(result.confirmation["tests"]), s["selection_sha256"][:12], s["benchmarks"])]
    for m in getattr(result, "missing", None) or []:
        part = s["parts"][int(m.split("/")[0]) - 1]
        out.append("INCOMPLETE: shard %s did not report%s: its %d strategies were not measured "
                   "(%s)" % (m, " (no compare.json in %s)" % ", ".join(s["absent"])
                             if s["absent"] else "", len(part), ", ".join(part)))
    return out


def write(result, out_dir):
    """compare.json, compare.md (the table with the merge's lines) and the exports into out_dir;
    returns the table's lines."""
    lines = table.lines(result)
    lines[1:1] = head_lines(result)
    if getattr(result, "missing", None):
        lines.append("verdict: incomplete: shard(s) %s missing; exit 2" % ", ".join(
            result.missing))
    with open(os.path.join(out_dir, "compare.json"), "w") as f:
        json.dump(table.to_json(result), f, indent=1, allow_nan=False)
    with open(os.path.join(out_dir, "compare.md"), "w") as f:
        f.write("```\n" + "\n".join(lines) + "\n```\n")
        where = explain_report.markdown(getattr(result, "explain", None))
        if where:  # the shards' explanations of what is still regressed or improved
            f.write("\n" + where)
    write_compare_exports(result.rows, out_dir)
    return lines


def not_built(docs, out_dir):
    """A shard whose revision did not build: its outputs are the merge's; exit 3."""
    d, doc = next((d, doc) for d, doc in docs if doc.get("verdict") == NOT_BUILT_VERDICT)
    for name in os.listdir(d):
        if name in ("compare.json", "compare.md") or name.endswith("-build.log"):
            shutil.copyfile(os.path.join(d, name), os.path.join(out_dir, name))
    print("compare-merge: %s: not built (%s); nothing was measured; exit 3" % (
        d, " and ".join(doc.get("not_built") or [])), file=sys.stderr)
    return NOT_BUILT


def parser():
    ap = argparse.ArgumentParser(
        prog="compare_merge.py", description="Join the shards of one compare (compare.py "
        "--shard i/N, make bench-ci SHARD=i/N) into one: Holm's correction over all their "
        "tests, the verdicts made again by the compare's own code, and compare.json, "
        "compare.md, bmf.json and gab.json written (docs/compare.md, Shards).",
        epilog="Exit status: 0 no confirmed regression; 1 a regressed or failed row; 2 "
        "shards that are not parts of one compare (the difference named), a folder that "
        "cannot be read, or verdict `incomplete`: a shard missing (named); 3 a revision "
        "that did not build.")
    ap.add_argument("dirs", nargs="+", metavar="DIR", help="a shard's compare folder (its "
                    "compare.json); one per shard")
    ap.add_argument("--out", help="output folder (default results/runs/<UTC>-compare/)")
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        docs, absent = read_shards(args.dirs)
        for d in absent:
            print("compare-merge: %s: no compare.json: a shard missing" % d, file=sys.stderr)
        if not docs:
            raise MergeError("none of %s holds a compare.json" % " ".join(args.dirs))
        built = not any(doc.get("verdict") == NOT_BUILT_VERDICT for _, doc in docs)
        result = merge(docs, absent) if built and check(docs) else None
        out = args.out or os.path.join(ROOT, "results", "runs", datetime.datetime.now(
            datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-compare")
        os.makedirs(out, exist_ok=True)
        if result is None:
            return not_built(docs, out)
        result.explain = explain_merged.gather(docs, result.strategies, out)
        lines = write(result, out)
    except (MergeError, OSError) as e:
        print("compare-merge: %s" % e, file=sys.stderr)
        return INCOMPLETE
    print("\n".join(lines))
    print("compare-merge: wrote %s/: compare.json, compare.md (this table), bmf.json, gab.json" %
          os.path.relpath(out, os.getcwd()))
    return result.exit_code

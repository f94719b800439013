"""allocators - the report's "Allocators" section from the allocator matrix's combined JSON
(`make bench-alloc`, schema hotbench-alloc/1, docs/allocators.md).

Per group of the matrix: the time of every benchmark under every allocator (median of the
repetitions of all rounds, ratio to glibc), its minor page faults per MB, and its mremap/madvise
calls where any is non-zero. Then the custom-allocator twins (docs/manifest.md): for each
strategy naming one, at every benchmark where both ran, the ratio strategy / twin per allocator,
and whether any allocator brings it within TWIN_CLOSE of 1; beside it the case's peers (the real
library) at the nearest size from the peers JSON when given.
"""

import json
import os
import tempfile

import numpy as np

from ..manifest import Manifest
from ..runjson import Run
from ..units import fmt_time

SCHEMA = "hotbench-alloc/1"
BASE = "glibc"      # the ratios' divisor: the C library's own allocator
TWIN_CLOSE = 1.10   # "behaves like its twin": strategy / twin at most this
CV_FLAG = 0.10


class AllocDoc:
    """A combined JSON: its manifest, allocators in run order, and per allocator a Run pooling
    its rounds."""

    def __init__(self, path):
        with open(path) as f:
            doc = json.load(f)
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
            raise ValueError("%s: not a %s file (schema %r)" % (
                path, SCHEMA, doc.get("schema") if isinstance(doc, dict) else None))
        self.path, self.doc = path, doc
        self.manifest = Manifest.from_context(doc.get("context") or {}, path)
        self.runs, self.context, self.seconds = {}, {}, {}
        for entry in doc.get("runs") or []:
            name, run = entry.get("allocator"), entry.get("run")
            if not run or entry.get("exit_status") != 0:
                continue
            pooled = self.runs.setdefault(name, {"context": run.get("context") or {},
                                                 "benchmarks": []})
            pooled["benchmarks"] += run.get("benchmarks") or []
            self.seconds[name] = self.seconds.get(name, 0.0) + (entry.get("seconds") or 0.0)
        for name, pooled in list(self.runs.items()):
            self.context[name] = pooled["context"]
            self.runs[name] = _run_of(pooled, path, self.manifest)
        self.allocators = list(self.runs)

    def cell(self, name, family, strategy, params):
        """(median s, CV or None, median counters {name: value}) of one benchmark, or None."""
        rows = [r for r in self.runs[name].select(family, strategy, **params)
                if r["params"] == params]
        if not rows:
            return None
        t = np.array([r["t"] for r in rows])
        cv = float(np.std(t, ddof=1) / np.mean(t)) if len(t) > 1 else None
        keys = {k for r in rows for k in r["counters"]}
        med = {k: float(np.median([r["counters"][k] for r in rows if k in r["counters"]]))
               for k in keys}
        return float(np.median(t)), cv, med

    def benchmarks(self, family):
        """[(strategy, params)] of a group, in the first allocator's run order."""
        out = []
        for name in self.allocators:
            for r in self.runs[name].rows:
                key = (r["strategy"], r["params"])
                if r["family"] == family and key not in out:
                    out.append(key)
        return out


def _run_of(doc, origin, manifest):
    """A Run (the one reader of run JSON) of an in-memory google-benchmark document."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(doc, f)
        f.flush()
        run = Run(f.name, manifest)
    run.path = origin
    return run


def _args(params):
    return "/".join("%s:%s" % kv for kv in params.items())


def _time_cell(c, base):
    if c is None:
        return "-"
    t, cv, _ = c
    text = fmt_time(t)
    if base is not None and base is not c:
        text += " (%.2fx)" % (t / base[0])
    if cv is not None and cv > CV_FLAG:
        text += " CV %.0f%%" % (100 * cv)
    return text


def _counter_cell(c, name):
    if c is None or name not in c[2]:
        return "-"
    return "%.3g" % c[2][name]


def group_tables(ad, family):
    """The time, faults-per-MB and (when used) mremap/madvise tables of one group."""
    names = ad.allocators
    head = "| strategy | arguments | %s |" % " | ".join(names)
    rule = "|---|---|" + "---|" * len(names)
    bench = ad.benchmarks(family)
    cells = {(s, _args(p)): [ad.cell(n, family, s, p) for n in names] for s, p in bench}
    base_i = names.index(BASE) if BASE in names else None
    md = ["Time per iteration, median of the repetitions%s; CV shown where over %d%%:" % (
        " (ratio to %s in brackets)" % BASE if base_i is not None else
        " (%s did not run: no ratios)" % BASE, 100 * CV_FLAG), "", head, rule]
    for (s, a), cs in cells.items():
        base = cs[base_i] if base_i is not None else None
        md.append("| `%s` | %s | %s |" % (s, a, " | ".join(_time_cell(c, base) for c in cs)))
    sentence = faults_sentence(names, cells)
    md += ["", sentence] if sentence else []
    for counter, title in (("minor_faults_per_mb", "Minor page faults per MB of payload"),
                           ("mremap_calls", "mremap calls per iteration"),
                           ("madvise_calls", "madvise calls per iteration")):
        if counter != "minor_faults_per_mb" and not any(
                c and c[2].get(counter) for cs in cells.values() for c in cs):
            continue
        if not any(c and counter in c[2] for cs in cells.values() for c in cs):
            continue
        md += ["", "%s:" % title, "", head, rule]
        md += ["| `%s` | %s | %s |" % (s, a, " | ".join(_counter_cell(c, counter) for c in cs))
               for (s, a), cs in cells.items()]
    return md + [""]


def faults_sentence(names, cells):
    """How often the allocator with the fewest minor faults per MB of a benchmark is also its
    fastest, and which allocator has the fewest most often; None without the counter or with
    one allocator."""
    fewest, both, n = {}, 0, 0
    for cs in cells.values():
        got = [(nm, c) for nm, c in zip(names, cs) if c and "minor_faults_per_mb" in c[2]]
        if len(got) < 2:
            continue
        n += 1
        lo = min(got, key=lambda x: x[1][2]["minor_faults_per_mb"])
        fast = min(got, key=lambda x: x[1][0])
        fewest[lo[0]] = fewest.get(lo[0], 0) + 1
        both += lo[0] == fast[0]
    if not n:
        return None
    top = max(fewest, key=fewest.get)
    fmb = [c[2]["minor_faults_per_mb"] for cs in cells.values()
           for nm, c in zip(names, cs) if c and nm == top and "minor_faults_per_mb" in c[2]]
    verdict = ("faults explain the ranking" if both >= 0.75 * n else
               "faults do not explain the ranking" if both <= 0.25 * n else
               "faults explain part of the ranking")
    return ("In %d of %d benchmarks the allocator with the fewest minor page faults per MB is "
            "also the fastest (%s); %s has the fewest in %d (%.3g to %.3g per MB; 244 per MB is "
            "one fault per fresh 4 KiB page of payload)." % (both, n, verdict, top, fewest[top],
                                                              min(fmb), max(fmb)))


def twin_pairs(ad):
    """[(group, strategy, twin, [params])]: every strategy naming a custom-allocator twin, at the
    benchmarks where both ran under some allocator."""
    out = []
    for g in ad.manifest.groups():
        bench = ad.benchmarks(g["name"])
        for s in g["strategies"]:
            twin = s.get("custom_allocator_twin")
            common = [p for st, p in bench if st == s["name"] and (twin, p) in bench]
            if twin and common:
                out.append((g["name"], s["name"], twin, common))
    return out


def twin_ratios(ad, family, strategy, twin, params):
    """{allocator: strategy / twin (ratio of medians)} where both ran."""
    out = {}
    for n in ad.allocators:
        a, b = ad.cell(n, family, strategy, params), ad.cell(n, family, twin, params)
        if a and b and b[0] > 0:
            out[n] = a[0] / b[0]
    return out


def twin_section(ad, peers):
    """The custom-allocator twins: the ratio table and one verdict sentence per pair."""
    pairs = twin_pairs(ad)
    if not pairs:
        return ["No strategy of the matrix ran beside its custom-allocator twin (docs/manifest.md"
                ", `custom_allocator_twin`)."] + unmeasured_twins(ad, pairs) + [""]
    names = ad.allocators
    md = ["Each strategy below has a custom-allocator twin: the same work on memory it manages "
          "itself. The ratio strategy / twin per allocator says whether a general-purpose "
          "allocator gives the first what the twin does by hand (within %d%%: \"behaves like\"):"
          % round(100 * (TWIN_CLOSE - 1)), "",
          "| group | strategy / twin | arguments | %s |" % " | ".join(names),
          "|---|---|---|" + "---|" * len(names)]
    verdicts = []
    for family, s, twin, common in pairs:
        for p in common:
            rs = twin_ratios(ad, family, s, twin, p)
            md.append("| `%s` | `%s` / `%s` | %s | %s |" % (
                family, s, twin, _args(p), " | ".join(
                    "%.2f" % rs[n] if n in rs else "-" for n in names)))
            if rs:
                verdicts.append(_verdict(family, s, twin, p, rs) + _times(ad, family, s, twin,
                                                                          p, rs))
    md += [""] + verdicts + unmeasured_twins(ad, pairs)
    note = peers_note(ad, peers, pairs)
    return md + ([""] + note if note else []) + [""]


def unmeasured_twins(ad, pairs):
    """A sentence naming the twins of the matrix's groups not measured side by side here."""
    done = {(g, s) for g, s, _, _ in pairs}
    sel = {g for g, _ in ad.manifest.alloc_selection(long=True)}
    left = ["`%s/%s` / `%s`" % (g["name"], s["name"], s["custom_allocator_twin"])
            for g in ad.manifest.groups() if g["name"] in sel for s in g["strategies"]
            if s.get("custom_allocator_twin") and (g["name"], s["name"]) not in done]
    if not left:
        return []
    return ["", "Not measured side by side in this matrix: %s.%s" % (
        ", ".join(left), "" if ad.doc.get("long") else " `scripts/bench_alloc.py --long` adds "
        "the rows of `alloc_select_long`, where a description may select them.")]


def _times(ad, family, s, twin, params, rs):
    """' Times (strategy / twin): glibc 40 ms / 10 ms, ...'."""
    return " Times (`%s` / `%s`): %s." % (s, twin, ", ".join(
        "%s %s / %s" % (n, fmt_time(ad.cell(n, family, s, params)[0]),
                        fmt_time(ad.cell(n, family, twin, params)[0])) for n in rs))


def _verdict(family, s, twin, params, rs):
    close = sorted((n for n in rs if rs[n] <= TWIN_CLOSE), key=rs.get)
    best = min(rs, key=rs.get)
    where = "`%s/%s/%s`" % (family, s, _args(params))
    base = " (%s: %.2f)" % (BASE, rs[BASE]) if BASE in rs and best != BASE else ""
    if close:
        return "- %s: %s make%s `%s` behave like `%s` (%s)%s." % (
            where, ", ".join(close), "s" if len(close) == 1 else "", s, twin,
            ", ".join("%.2f" % rs[n] for n in close), base)
    return ("- %s: no allocator makes `%s` behave like `%s`: the closest is %s at %.2fx its "
            "twin's time%s." % (where, s, twin, best, rs[best], base))


def peers_note(ad, peers_path, pairs):
    """The real libraries of the twins' cases from the peers JSON, at the size nearest the
    twins' (the argument their group's first view scales, and the peer runs' "size" field);
    [] when there are none."""
    if not peers_path or not os.path.exists(peers_path):
        return []
    try:
        with open(peers_path) as f:
            peers = json.load(f)
    except (OSError, ValueError):
        return []
    md = []
    for family, s, twin, common in pairs:
        g = ad.manifest.group(family)
        case, x = g["case"], (g["views"][0]["x"] if g["views"] else "size")
        runs = [r for r in ((peers.get(case) or {}).get("runs") or [])
                if isinstance(r, dict) and r.get("size") and r.get("seconds")]
        sizes = [p[x] for p in common if isinstance(p.get(x), (int, float))]
        if not runs or not sizes:
            continue
        near = min(runs, key=lambda r: abs(r["size"] - sizes[0]))
        same = [r for r in runs if r["size"] == near["size"]]
        md.append("The real library beside it (peers, `%s`): %s." % (peers_path, "; ".join(
            "`%s` %s at %s%s" % (r.get("peer"), fmt_time(float(np.median(r["seconds"]))),
                                 _size(r["size"]), _steps(r)) for r in same)))
    return md


def _size(n):
    """A payload size: a binary multiple as such (64 MiB), else decimal with four digits (the
    sizes just past 2^30 differ in the fourth: 1.074 GB)."""
    for unit, f in (("GiB", 2 ** 30), ("MiB", 2 ** 20)):
        if n >= f and n % f == 0:
            return "%d %s" % (n // f, unit)
    return "%.4g GB" % (n / 1e9) if n >= 1e9 else "%.4g MB" % (n / 1e6)


def _steps(r):
    """A peer run's per-step figures: its fields named *_step_s with a mean."""
    out = ["%s %s a step" % (k[:-len("_step_s")].replace("_", " "), fmt_time(v["mean"]))
           for k, v in r.items() if k.endswith("_step_s") and isinstance(v, dict)
           and isinstance(v.get("mean"), (int, float))]
    counts = ["%d %s" % (v, k.replace("_", " ")) for k, v in r.items()
              if k.endswith("_steps") and isinstance(v, int) and v]
    return " (%s)" % ", ".join(counts + out) if counts or out else ""


def header(ad):
    """Which allocators ran, their versions and libraries, what was skipped, how long."""
    d = ad.doc
    md = ["From `%s` (revision %s, %s): %d repetition(s) per run, %d round(s), every benchmark "
          "verified under each allocator before it was timed; the whole matrix took %s. The load "
          "average is the machine's at the end of each run (2 vCPUs: above 2, other work "
          "shared them)." % (
              os.path.relpath(os.path.realpath(ad.path)), d.get("revision"), d.get("created"),
              d.get("repetitions") or 0, d.get("rounds") or 0,
              fmt_time(d.get("seconds"))), ""]
    cal = d.get("calibration") or {}
    if cal.get("first_touch_gbps"):
        md[0] += (" This machine's first touch of fresh memory: %.2f GB/s, warm copy %.1f GB/s "
                  "(hotbench --hb_calibrate)." % (cal["first_touch_gbps"],
                                                 cal.get("warm_copy_gbps") or float("nan")))
    md += ["| allocator | version | library | syscall counts | run time | load average |",
           "|---|---|---|---|---|---|"]
    for n in ad.allocators:
        c = ad.context[n]
        load = c.get("load_avg")
        md.append("| %s | %s | `%s` | %s | %s | %s |" % (
            n, c.get("hb_allocator_version", "-"), c.get("hb_allocator_library", "-"),
            c.get("hb_syscall_counts", "-"), fmt_time(ad.seconds.get(n)),
            "%.1f" % load[0] if isinstance(load, list) and load else "-"))
    for s in d.get("skipped") or []:
        md.append("| %s | skipped | %s | | | |" % (s.get("allocator"), s.get("reason")))
    failed = [r for r in d.get("runs") or [] if r.get("exit_status") != 0]
    md += [""] + ["**%s FAILED** (hotbench exit %s): its rows are left out." % (
        r.get("allocator"), r.get("exit_status")) for r in failed]
    return md + ([""] if failed else [])


def section(alloc_path, peers_path=None):
    """The Markdown of the Allocators section (without its heading)."""
    ad = AllocDoc(alloc_path)
    md = header(ad)
    if not ad.allocators:
        return md + ["No allocator's run succeeded: nothing to compare.", ""]
    for g in ad.manifest.groups():
        if ad.benchmarks(g["name"]):
            md += ["### %s (`%s`)" % (g["title"], g["name"]), ""] + group_tables(ad, g["name"])
    md += ["### Custom-allocator twins", ""] + twin_section(ad, peers_path)
    return md

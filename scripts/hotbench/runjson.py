"""runjson - the one reader of hotbench's run JSON (google-benchmark's JSON with hotbench's
context and fields, docs/manifest.md).

    run = Run("results/latest.json")
    run.manifest                  the cases' descriptions the run was made with
    run.rows / run.skipped / run.failed / run.complexity
    run.select(group, strategy, **fixed), run.series(group, strategy, x, **fixed)
"""

import json

import numpy as np

from .manifest import Manifest
from .units import TIME_UNIT

# Numeric fields of a google-benchmark row that are not the benchmark's own counters.
NOT_COUNTERS = ("real_time", "cpu_time", "iterations", "repetitions", "repetition_index",
                "threads", "family_index", "per_family_instance_index")
SKIP_PREFIX = "skipped"


def parse_name(name):
    """'<group>/<strategy>/size:1024/read:4096/real_time_median' ->
    ('<group>', '<strategy>', {'size': 1024, 'read': 4096}). Non-numeric values stay strings."""
    parts = name.split("/")
    family, strategy, params = parts[0], parts[1] if len(parts) > 1 else "", {}
    for p in parts[2:]:
        if ":" in p:
            k, v = p.split(":", 1)
            try:
                params[k] = int(v)
            except ValueError:
                params[k] = v
    return family, strategy, params


def _counters(b):
    return {k: v for k, v in b.items() if isinstance(v, (int, float))
            and not isinstance(v, bool) and k not in NOT_COUNTERS}


class Run:
    """One run.

    rows:       iteration rows (one per repetition) that ran: dicts with family (the group),
                strategy, params, t (seconds per iteration of real time), cpu (seconds of CPU
                time), counters (the row's other numeric fields), rep (repetition index), name
                (the benchmark's run_name).
    skipped:    rows the harness refused on purpose, once per argument tuple: family, strategy,
                params, name (the benchmark's run_name), message, counters and predicted_s (the
                hb_predicted_s field: the predicted time of a size over the budget; None for
                other refusals).
    failed:     rows that failed verification or errored ('error: ...'), same fields.
    complexity: (family, strategy) -> the class google-benchmark reported in its _BigO rows.
    aggregates: google-benchmark's aggregate rows other than _BigO and _RMS (median, mean,
                stddev, cv): family, strategy, params, aggregate (its name), t (seconds; for cv
                the ratio itself), counters - for a run JSON that holds aggregates only.
    manifest:   the Manifest the run carries (ManifestError when it has none), or the one given.
    """

    def __init__(self, path, manifest=None):
        with open(path) as f:
            doc = json.load(f)
        if not isinstance(doc, dict) or not isinstance(doc.get("context", {}), (dict, type(None))) \
                or not isinstance(doc.get("benchmarks", []), list):
            raise ValueError("not a google-benchmark JSON object (context and benchmarks)")
        self.path = path
        self.context = doc.get("context") or {}
        self._manifest = manifest
        self.rows, self.skipped, self.failed, self.complexity = [], [], [], {}
        self.aggregates = []
        seen = set()
        for b in doc.get("benchmarks", []):
            if not isinstance(b, dict):
                raise ValueError("a benchmark that is not an object: %r" % (b,))
            self._add(b, seen)

    def _add(self, b, seen):
        name = b.get("run_name") or b["name"]
        family, strategy, params = parse_name(name)
        if b.get("error_occurred"):
            key = (family, strategy, tuple(sorted(params.items())))
            if key in seen:
                return
            seen.add(key)
            msg = b.get("error_message", "")
            counters = _counters(b)
            row = dict(family=family, strategy=strategy, params=params, message=msg,
                       counters=counters, predicted_s=counters.get("hb_predicted_s"), name=name)
            (self.skipped if msg.startswith(SKIP_PREFIX) else self.failed).append(row)
            return
        if b.get("run_type") == "aggregate":
            if b["name"].endswith("_BigO"):
                self.complexity[(family, strategy)] = b.get("big_o", b.get("complexity"))
            elif not b["name"].endswith("_RMS") and "real_time" in b:
                agg = b.get("aggregate_name", "")
                scale = 1.0 if agg == "cv" else TIME_UNIT[b.get("time_unit", "ns")]
                self.aggregates.append(dict(family=family, strategy=strategy, params=params,
                                            aggregate=agg, t=b["real_time"] * scale,
                                            counters=_counters(b)))
            return
        if b["name"].endswith(("_BigO", "_RMS")):
            return
        unit = TIME_UNIT[b.get("time_unit", "ns")]
        self.rows.append(dict(family=family, strategy=strategy, params=params,
                              t=b["real_time"] * unit, cpu=b.get("cpu_time", 0.0) * unit,
                              counters=_counters(b), rep=b.get("repetition_index", 0),
                              iterations=b.get("iterations", 1), name=name))

    @property
    def manifest(self):
        if self._manifest is None:
            self._manifest = Manifest.from_context(self.context, self.path)
        return self._manifest

    def families(self):
        out = []
        for r in self.rows + self.skipped:
            if r["family"] not in out:
                out.append(r["family"])
        return out

    def strategies(self, family):
        out = []
        for r in self.rows + self.skipped + self.failed:
            if r["family"] == family and r["strategy"] not in out:
                out.append(r["strategy"])
        return out

    def select(self, family, strategy=None, **fixed):
        """Iteration rows of a family (and strategy) whose params match every fixed value."""
        return [r for r in self.rows if r["family"] == family
                and (strategy is None or r["strategy"] == strategy)
                and all(r["params"].get(k) == v for k, v in fixed.items())]

    def series(self, family, strategy, xparam, **fixed):
        """(N, t) arrays of every repetition along xparam, the other params fixed."""
        rows = [r for r in self.select(family, strategy, **fixed) if xparam in r["params"]]
        rows.sort(key=lambda r: r["params"][xparam])
        return (np.array([r["params"][xparam] for r in rows], dtype=float),
                np.array([r["t"] for r in rows], dtype=float))

    def upper_bound_strategies(self, family):
        """The strategies of family whose bytes_copied counter is an upper bound (the rows whose
        counter bytes_copied_is_upper_bound is 1)."""
        out = []
        for r in self.rows:
            if (r["family"] == family and r["counters"].get("bytes_copied_is_upper_bound") == 1
                    and r["strategy"] not in out):
                out.append(r["strategy"])
        return out

    def skipped_at(self, family, strategy, **fixed):
        return [r for r in self.skipped if r["family"] == family and r["strategy"] == strategy
                and all(r["params"].get(k) == v for k, v in fixed.items())]

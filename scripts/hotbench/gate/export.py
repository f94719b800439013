"""export - Bencher Metric Format (https://bencher.dev), bmf.json of a measurement:
{"<benchmark>": {"latency": {"value", "lower_value", "upper_value"}, "instructions": {"value"}}},
latency in ns of wall-clock time per iteration (median, min, max of the repetitions)."""

import json

import numpy as np


def write_bmf(run, ir, path):
    """Bencher Metric Format: latency in ns (wall-clock time per iteration, as google-benchmark's
    real_time: median, min, max of the repetitions) and
    instructions per iteration where measured."""
    bmf = {}
    for name, row in run["rows"].items():
        t = np.array(row["wall"]) * 1e9
        bmf[name] = {"latency": {"value": float(np.median(t)), "lower_value": float(t.min()),
                                 "upper_value": float(t.max())}}
    for name, v in ir.get("benchmarks", {}).items():
        bmf.setdefault(name, {})["instructions"] = {"value": float(v["per_iteration"])}
    with open(path, "w") as f:
        json.dump(bmf, f, indent=1, sort_keys=True)

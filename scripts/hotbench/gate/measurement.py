"""measurement - a directory written by `measure`, read back.

    run*.json           the timed runs (google-benchmark's JSON, every repetition), read by
                        hotbench.runjson; the manifest comes from the first one's context
    instructions*.json  the callgrind counts (callgrind.py)
    fingerprint.json    the environment (measure.py)
    settings.json       what was measured (settings.py)
    confirm.json        the confirmation run of `ci`'s speed suspects, when there was one
"""

import glob
import json
import os

from ..manifest import ManifestError
from ..runjson import Run
from .errors import die


def load_run(path):
    """One run JSON as the gate uses it: a dict with
      rows     {name: dict(family, strategy, params, t=[CPU seconds per iteration of each
               repetition], wall=[wall-clock seconds, the same], counters=[each repetition's])},
      skipped  {name: the runjson skipped row (message, predicted_s: its hb_predicted_s)},
      failed   ["name: message", ...] once per benchmark,
      context, path, and run (the hotbench.runjson.Run)."""
    try:
        run = Run(path)
    except (OSError, ValueError, KeyError) as e:
        die("cannot read run JSON %s: %s" % (path, e))
    rows = {}
    for r in run.rows:
        row = rows.setdefault(r["name"], dict(family=r["family"], strategy=r["strategy"],
                                              params=r["params"], t=[], wall=[], counters=[]))
        row["t"].append(r["cpu"])
        row["wall"].append(r["t"])
        row["counters"].append(r["counters"])
    return dict(path=path, rows=rows, skipped={r["name"]: r for r in run.skipped},
                failed=["%s: %s" % (r["name"], r["message"]) for r in run.failed],
                context=run.context, run=run)


def _json(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


class Measurement:
    """A directory written by `measure`: the timed run (one or more run*.json) and the
    instruction counts (instructions*.json), the fingerprint, the settings, the confirmation
    run."""

    def __init__(self, path):
        self.path = path
        runs = sorted(glob.glob(os.path.join(path, "run*.json")))
        if not runs:
            die("no run*.json in %s (make it with `make baseline` or `gate.py measure`)" % path)
        self.runs = [load_run(p) for p in runs]
        self.ir = [_json(p) for p in sorted(glob.glob(os.path.join(path, "instructions*.json")))]
        self.fingerprint = _json(os.path.join(path, "fingerprint.json")) or {}
        self.settings = _json(os.path.join(path, "settings.json"))
        cf = os.path.join(path, "confirm.json")
        self.confirm = load_run(cf) if os.path.exists(cf) else None

    @property
    def manifest(self):
        """The manifest the first run carries (the current measurement's is the one the checks
        read: a baseline from before the manifest still compares)."""
        try:
            return self.runs[0]["run"].manifest
        except ManifestError as e:
            die(str(e))

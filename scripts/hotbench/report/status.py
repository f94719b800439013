"""status - the parts of `make bench` (results/bench-status.json, schema hotbench-bench-status/1):
read and checked, then listed in the report with each failed or skipped part's error and the
command that re-runs it."""

import json
import os
import shlex

STATUS_SCHEMA = "hotbench-bench-status/1"


def load_status(path):
    """(the bench status dict or None, a sentence when it could not be used or None)."""
    if not path or not os.path.exists(path):
        return None, None
    try:
        with open(path) as fh:
            st = json.load(fh)
    except (OSError, ValueError) as e:
        return None, "`%s` could not be read (%s): the run's parts are not listed." % (path, e)
    if not isinstance(st, dict) or st.get("schema") != STATUS_SCHEMA:
        return None, ("`%s` is not a bench status (schema %r, not %s): the run's parts are not "
                      "listed." % (path, st.get("schema") if isinstance(st, dict) else None,
                                   STATUS_SCHEMA))
    bad = _status_problem(st)
    if bad:
        return None, "`%s` is malformed (%s): the run's parts are not listed." % (path, bad)
    return st, None


def _status_problem(st):
    """What in the bench status st (a dict of the right schema) has the wrong type, or None:
    "parts" a list of objects, each with "command" a list of strings or null and "output" a
    string or null; "calibration" an object or null."""
    parts = st.get("parts")
    if parts is not None and not isinstance(parts, list):
        return "\"parts\" is not a list"
    for i, p in enumerate(parts or []):
        if not isinstance(p, dict):
            return "parts[%d] is not an object" % i
        cmd, out = p.get("command"), p.get("output")
        if cmd is not None and not (isinstance(cmd, list) and
                                    all(isinstance(c, str) for c in cmd)):
            return "parts[%d].command is not a list of strings" % i
        if out is not None and not isinstance(out, str):
            return "parts[%d].output is not a string" % i
    if st.get("calibration") is not None and not isinstance(st["calibration"], dict):
        return "\"calibration\" is not an object"
    return None


def status_section(st, path):
    """The parts of `make bench` (bench-status.json): status and duration of each, and for a
    failed or skipped part its error and the command that re-runs it."""
    md = ["## The run's parts", "",
          "From `%s`: `%s`, %s profile, %s, git %s on %s." % (
              os.path.relpath(os.path.realpath(path)),
              "make bench-quick" if st.get("profile") == "quick" else "make bench",
              st.get("profile", "?"),
              _span(st.get("started"), st.get("finished")), st.get("git_revision", "?"),
              st.get("host", "?")), "",
          "| part | status | took | expected | output |", "|---|---|---|---|---|"]
    notes = []
    for p in st.get("parts") or []:
        name, state = p.get("name", "?"), p.get("status", "?")
        md.append("| %s | %s | %s | %s | %s |" % (
            name, "**%s**" % state if state != "ok" else state, _secs(p.get("seconds")),
            _secs(p.get("expected_seconds")), "`%s`" % p["output"] if p.get("output") else "-"))
        if state != "ok":
            notes.append("- `%s` %s%s: %s. Re-run it with `%s`." % (
                name, state, " (exit %s)" % p["exit_code"] if p.get("exit_code") is not None
                else "", p.get("error") or "no error recorded", _rerun(st, p)))
    if notes:
        md += ["", "The report below is written from the parts that succeeded.", ""] + notes
    return md + [""]


def _rerun(st, part):
    """The command that measures part again and records it: its own command, except for the
    in-process suite, whose command wrote to bench.py's temporary file (bench.py records it)."""
    cmd = part.get("command")
    if part.get("name") == "in-process":
        return "scripts/bench.py --profile %s --parts in-process,report" % (
            st.get("profile") if st.get("profile") in ("full", "quick") else "full")
    return shlex.join(cmd) if cmd else "make bench"


def _span(started, finished):
    """When the bench ran: "A to B", or "started A" while it still runs (finished is null when
    the report is its own last part)."""
    if not finished:
        return "started %s (still running: this report is its last part)" % (started or "?")
    return "%s to %s" % (started or "?", finished)


def _secs(v):
    if not isinstance(v, (int, float)):
        return "-"
    return "%.0f s" % v if v < 120 else "%.1f min" % (v / 60)



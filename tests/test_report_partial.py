#!/usr/bin/python3
"""test_report_partial.py - report.py never crashes on partial data (issue 18 §1, §3, §4).

From tests/fixtures/run-full-reduced.json (the reference run of results/reference/run.json at
0e05b27, its iteration rows only, upgraded with scripts/upgrade_run.py to carry the manifest,
without the volumes variants and the rfc3339 offset, columns and days families, which the report
does not use) it derives run JSONs with each family removed in turn, with every size of each
family turned into google-benchmark skip records (as hotbench writes them: "error_occurred":
true, "error_message": "skipped: ...", the figures as hb_* fields), and with the 32-bit cliff
sizes past 2^30 skipped (the slow machine of issue 18), and with everything skipped beside the
reference e2e and peers results. report.py renders each without error and says, in a sentence,
what is missing and the command that measures it. Then the bench status
(--status) and the calibration in the environment. Charts are built but not written
(--chart-formats none) to keep the test fast. Prints one line per check and 'N passed, M failed';
exits 1 on a failure.
"""

import copy
import json
import os
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import report  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "run-full-reduced.json")
from test_report_util import check, done  # noqa: E402


def check_timed_work():
    """The fault clause: faults x iterations priced at 4 KiB per fault at the first-touch rate."""
    from hotbench.report.environment import timed_work

    class FakeRun:
        context = {"hb_calib_first_touch_gbps": 0.4096}
        rows = [dict(t=2.0, iterations=3, counters={"minor_faults": 1e6}),
                dict(t=1e-3, iterations=1000, counters={})]
    text = timed_work(FakeRun(), {"parts": [{"name": "in-process", "seconds": 600}]})
    # timed 3 x 2 s + 1000 x 1 ms = 7 s; 3e6 faults x 4096 B = 12.3 GB at 0.4096 GB/s = 30 s
    check("timed loops 7 s of the in-process part's 10.0 min" in text and
          "3 million minor page faults in them, 30 s at the calibrated first touch" in text
          and "12.3 GB in all" in text, "timed work and its first-touch floor: %s" % text)


def render(tmp, name, doc, *extra):
    """REPORT.md of doc (a run JSON dict, or None: no run JSON), or the exception's text."""
    run = os.path.join(tmp, name + ".json")
    if doc is not None:
        with open(run, "w") as fh:
            json.dump(doc, fh)
    out = os.path.join(tmp, name)
    none = os.path.join(tmp, "none.json")
    try:
        report.main(["--run", run, "--e2e", none, "--peers", none, "--out", out,
                     "--chart-formats", "none", *extra])
    except (Exception, SystemExit):
        return None, traceback.format_exc(limit=3)
    with open(os.path.join(out, "REPORT.md")) as fh:
        return fh.read(), ""


def family(b):
    return b["name"].split("/")[0]


def skip(b, message="skipped: predicted 99 s > budget 10 s (a test's skip)",
         fields=(("hb_predicted_s", 99.0), ("hb_budget_s", 10.0))):
    """b as hotbench writes a skipped benchmark: no time, no counters, the skip's figures as
    hb_* fields (docs/manifest.md; scripts/upgrade_run.py gives older runs the same)."""
    keep = ("name", "run_name", "run_type", "repetitions", "repetition_index", "time_unit")
    out = {k: v for k, v in b.items() if k in keep}
    out.update(error_occurred=True, error_message=message, iterations=0, real_time=0.0,
               cpu_time=0.0, **dict(fields))
    return out


def without(doc, fam):
    d = copy.deepcopy(doc)
    d["benchmarks"] = [b for b in d["benchmarks"] if family(b) != fam]
    return d


def all_skipped(doc, pred):
    d = copy.deepcopy(doc)
    d["benchmarks"] = [skip(b) if pred(b) else b for b in d["benchmarks"]]
    return d


def has_missing(text, filt):
    return text is not None and "**Missing:" in text and \
        "--benchmark_filter='%s" % filt in text


with open(FIXTURE) as fh:
    base = json.load(fh)
families = sorted({family(b) for b in base["benchmarks"]})

with tempfile.TemporaryDirectory() as tmp:
    text, err = render(tmp, "whole", base)
    check(text is not None and "**Missing:" not in text,
          "the whole fixture: a report, nothing missing " + err)
    for fam in families:
        text, err = render(tmp, "no-" + fam, without(base, fam))
        check(has_missing(text, "^%s/" % fam), "%s removed: the report says it is missing and "
              "how to measure it %s" % (fam, err))
        text, err = render(tmp, "skip-" + fam, all_skipped(base, lambda b: family(b) == fam))
        check(has_missing(text, "^%s/" % fam) and "skipped all" in text,
              "every size of %s skipped: the report says so and how to measure it %s"
              % (fam, err))
    # issue 18: the budget skipped every 32-bit cliff size past 2^30 (plots.cliff crashed)
    past = all_skipped(base, lambda b: b["name"].startswith("bufgrow-cliff/") and
                       "/width:32/" in b["name"] and
                       int(b["name"].split("size:")[1].split("/")[0]) > 2 ** 30)
    text, err = render(tmp, "cliff-past", past)
    check(has_missing(text, "^bufgrow-cliff/httpcore/width:32/") and "--hb_budget=" in text
          and "past 1 GiB" in text, "the 32-bit cliff past 2^30 skipped: said, with a budget "
          "that measures it " + err)
    # the production size of a case missing: the bars at 100,000 rows
    text, err = render(tmp, "no-100k", {**base, "benchmarks": [
        b for b in base["benchmarks"] if not b["name"].startswith("rfc3339/") or
        "/rows:100000/" not in b["name"]]})
    check(has_missing(text, "^rfc3339/.*/rows:100000/"), "rfc3339 without 100,000 rows: said, "
          "with a filter that selects them " + err)
    # a group's reference row missing: ratios are '-', no crash
    text, err = render(tmp, "no-exact", {**base, "benchmarks": [
        b for b in base["benchmarks"] if "/exact/" not in b["name"]]})
    check(text is not None and "ratio to `exact`" in text, "no `exact` rows: a report " + err)

    # the whole-process and peers sections beside a run in which everything was skipped
    ref = os.path.join(HERE, "..", "results", "reference")
    everything = all_skipped(base, lambda b: True)
    with open(os.path.join(tmp, "skipped.json"), "w") as f:
        json.dump(everything, f)
    out = os.path.join(tmp, "skipped")
    try:
        report.main(["--run", os.path.join(tmp, "skipped.json"), "--e2e",
                     os.path.join(ref, "e2e.json"), "--peers", os.path.join(ref, "peers.json"),
                     "--out", out, "--chart-formats", "none"])
        with open(os.path.join(out, "REPORT.md")) as f:
            text, err = f.read(), ""
    except (Exception, SystemExit):
        text, err = None, traceback.format_exc(limit=3)
    check(text is not None and "could not be read" not in text and text.count("**Missing:") >= 6,
          "every benchmark skipped, with the reference e2e and peers results: a report " + err)

    # realloc's counts are upper bounds: from the counter when the run carries it
    ub = copy.deepcopy(base)
    for b in ub["benchmarks"]:
        if b["name"].startswith("bufgrow/") and not b.get("error_occurred"):
            b["bytes_copied_is_upper_bound"] = 1 if "/sds/" in b["name"] else 0
    text, err = render(tmp, "upper", ub)
    check(text is not None and "For `sds`, which grow with `realloc`" in text and
          "are assumed" not in text, "bytes_copied_is_upper_bound = 1 marks `sds` only " + err)
    text, err = render(tmp, "upper-old", base)
    check(text is not None and "For `realloc-doubling`, `sds`, which" in text and
          "are assumed" in text, "without the counter: the registry's realloc strategies, "
          "said to be assumed " + err)

    # the bench status: parts listed, a failed part's error and command; calibration shown
    status = {"schema": "hotbench-bench-status/1", "profile": "full",
              "started": "2026-12-01T10:00:00Z", "finished": "2026-12-01T11:05:00Z",
              "git_revision": "abc123", "host": "vm",
              "calibration": {"schema": "hotbench-calibration/1", "first_touch_gbps": "0.23",
                              "warm_copy_gbps": "7.1", "seconds": 3.2},
              "parts": [
                  {"name": "in-process", "status": "ok", "exit_code": 0, "error": None,
                   "seconds": 1980, "expected_seconds": 2100, "output": "results/latest.json",
                   "command": ["scripts/bench.sh", "build/hotbench"]},
                  {"name": "e2e", "status": "failed", "exit_code": 2,
                   "error": "hyperfine: command terminated with non-zero exit code",
                   "seconds": 1800, "expected_seconds": 360, "output": None,
                   "command": ["scripts/e2e.sh", "build"]},
                  {"name": "peers", "status": "skipped", "exit_code": None,
                   "error": "no JDK: install it with scripts/deps.sh --peers", "seconds": 0,
                   "expected_seconds": 300, "output": None,
                   "command": ["make", "bench-peers"]}]}
    spath = os.path.join(tmp, "bench-status.json")
    with open(spath, "w") as fh:
        json.dump(status, fh)
    text, err = render(tmp, "status", base, "--status", spath)
    check(text is not None and "| e2e | **failed** |" in text and
          "Re-run it with `scripts/e2e.sh build`" in text and "`peers` skipped" in text
          and "hyperfine: command terminated" in text,
          "--status: parts listed, the failed and skipped ones with error and command " + err)
    check(text is not None and "first touch of fresh memory 0.23 GB/s" in text,
          "the calibration from the status shown in the environment")
    check(text is not None and "| duration of `make bench` | 63.0 min (in-process 33.0 min, "
          "e2e 30.0 min, peers 0 s), full profile |" in text,
          "a status without a total: the parts' seconds summed, each part's shown " + err)
    check(text is not None and "| where the in-process time went | timed loops " in text
          and "of the in-process part's 33.0 min (the rest: verification runs" in text,
          "the timed loops' share of the in-process part " + err)
    check_timed_work()
    failed_ip = copy.deepcopy(status)
    failed_ip["parts"][0].update(status="failed", exit_code=1, output=None, command=[
        "build/hotbench", "--benchmark_out=results/runs/.20261201T100000Z-abc.json.tmp"])
    with open(spath, "w") as fh:
        json.dump(failed_ip, fh)
    text, err = render(tmp, "status-ip", base, "--status", spath)
    check(text is not None and ".json.tmp" not in text and "Re-run it with `scripts/bench.py "
          "--profile full --parts in-process,report`" in text,
          "a failed in-process part: re-run through bench.py, not into its temporary file " + err)
    status["finished"] = None  # as bench.py's report part sees it: the run is not over
    with open(spath, "w") as fh:
        json.dump(status, fh)
    text, err = render(tmp, "status-running", base, "--status", spath)
    check(text is not None and "to None" not in text and "started 2026-12-01T10:00:00Z (still "
          "running" in text, "a status whose run is not finished: no 'to None' " + err)
    status["seconds"] = 3900.5  # bench.py's total so far: the report's own part not counted
    with open(spath, "w") as fh:
        json.dump(status, fh)
    text, err = render(tmp, "status-total", base, "--status", spath)
    check(text is not None and "| duration of `make bench` | 65.0 min (in-process" in text and
          "the report, written last, is not counted |" in text,
          "the status's total, and the report's own time said to be left out " + err)
    cal = copy.deepcopy(base)
    cal["context"].update(hb_calib_first_touch_gbps="0.41", hb_calib_warm_copy_gbps="8.2")
    text, err = render(tmp, "calib", cal)
    check(text is not None and "first touch of fresh memory 0.41 GB/s, copy of warm memory "
          "8.2 GB/s" in text, "the calibration from the run's context " + err)
    # the default status: results/bench-status.json, for the run it describes only
    top = os.path.join(tmp, "top")
    os.makedirs(os.path.join(top, "results"))
    with open(os.path.join(top, "results", "latest.json"), "w") as fh:
        json.dump(base, fh)
    status["parts"][0]["output"] = "results/latest.json"
    with open(os.path.join(top, "results", "bench-status.json"), "w") as fh:
        json.dump(status, fh)
    here = os.getcwd()
    os.chdir(top)
    try:
        seen = [report.parse_args(args).status for args in
                ([], ["--run", "results/latest.json"], ["--run", spath])]
    finally:
        os.chdir(here)
    check(seen == ["results/bench-status.json"] * 2 + [None], "results/bench-status.json by "
          "default for the run it describes, not for another run (%s)" % seen)
    text, err = render(tmp, "no-run", None, "--status", spath)
    check(text is not None and "**Missing: the in-process run**" in text and
          "| e2e | **failed** |" in text, "no run JSON but a status: a report of the parts " + err)
    # a peers run that skipped a case (a JDK without libhttpcore-java): the report names it
    with open(os.path.join(HERE, "..", "results", "reference", "peers.json")) as fh:
        peers = {k: v for k, v in json.load(fh).items() if k != "bufgrow"}
    peers["skipped_cases"] = {"bufgrow": {"missing": ["libhttpcore-java"],
                                          "install": "scripts/deps.sh --peers"}}
    ppath = os.path.join(tmp, "peers-skipped-case.json")
    with open(ppath, "w") as fh:
        json.dump(peers, fh)
    text, err = render(tmp, "peers-partial", base, "--peers", ppath)
    check(text is not None and "**Skipped: Buffer growth" in text and "libhttpcore-java" in text
          and "### Timestamps: java.time" in text,
          "a peers run without the httpcore case: said skipped, naming the package " + (
              err or (text or "")[text.find("## Peers"):][:600]))
    # a malformed status of the right schema: the report says so, never a traceback
    for why, bad in (("parts a string", {"parts": "abc"}), ("a part a number", {"parts": [1]}),
                     ("parts an object", {"parts": {"a": 1}}),
                     ("a command of numbers", {"parts": [{"name": "e2e", "status": "failed",
                                                          "command": [1, 2]}]}),
                     ("an output a number", {"parts": [{"name": "in-process", "output": 5}]}),
                     ("calibration a list", {"calibration": [1], "parts": []})):
        with open(spath, "w") as fh:
            json.dump(dict(bad, schema="hotbench-bench-status/1"), fh)
        text, err = render(tmp, "bad-status", base, "--status", spath)
        check(text is not None and "is malformed" in text,
              "a malformed status (%s): said, no traceback %s" % (why, err))
        here = os.getcwd()
        os.chdir(top)
        try:
            with open(os.path.join("results", "bench-status.json"), "w") as fh:
                json.dump(dict(bad, schema="hotbench-bench-status/1"), fh)
            err = ""
            report.parse_args(["--run", "results/latest.json"])
        except (Exception, SystemExit):
            err = traceback.format_exc(limit=3)
        finally:
            os.chdir(here)
        check(not err, "a malformed default status (%s): no traceback %s" % (why, err))

done()

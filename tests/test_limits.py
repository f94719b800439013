#!/usr/bin/python3
"""test_limits.py HOTBENCH SRCDIR - make limits (scripts/limits.py) and the report's "What limits
it now" paragraphs, learnt from the manifest alone: limits.py on the smoke profile (every probe
widened to the smoke sizes with --probe) writes a hotbench-limits/1 document with a pair of rows
for every group whose manifest entry has limits, positive instruction counts, branch misses no
more than branches, and the ceiling's instructions per item (per byte where the group counts
no items) below its strategy's; the report
of a smoke run of those rows carries one paragraph per such group with the counts, and without
the document says how to get them. Exits 77 (skipped) without valgrind or for a sanitizer
build (valgrind cannot run it). Prints one line per check; exits 1 on a failure."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from test_report_util import check, done

HOTBENCH = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "build/hotbench"
SRC = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, os.path.join(SRC, "scripts"))
from hotbench.manifest import Manifest  # noqa: E402

PY = "/usr/bin/python3"


def skip_reason():
    if not shutil.which("valgrind"):
        return "valgrind is not installed"
    # the build flags the binary records (HB_BUILD_FLAGS, its run context's hb_build_flags):
    # clang links the sanitizer runtimes statically, so ldd shows no libasan there
    with open(HOTBENCH, "rb") as f:
        if b"-fsanitize=" in f.read():
            return "a sanitizer build: valgrind cannot run it"
    return None


def check_document(doc, manifest):
    check(doc.get("schema") == "hotbench-limits/1", "schema hotbench-limits/1")
    ctx = doc.get("context", {})
    check(str(ctx.get("valgrind", "")).startswith("valgrind"), "context names valgrind's "
          "version: %r" % ctx.get("valgrind"))
    check(bool(ctx.get("hb_git_revision")), "context names the revision")
    want = [g["name"] for g, _ in manifest.limits()]
    check(want and sorted(doc["groups"]) == sorted(want), "a pair per group with limits: %s"
          % ", ".join(sorted(doc["groups"])))
    for name, lim in ((g["name"], lim) for g, lim in manifest.limits()):
        p = doc["groups"].get(name, {})
        rows = p.get("rows", {})
        s, c = rows.get(lim["strategy"], {}), rows.get(lim["ceiling"], {})
        for r, who in ((s, lim["strategy"]), (c, lim["ceiling"])):
            check(r.get("instructions", 0) > 0 and r.get("iterations", 0) >= 1,
                  "%s/%s: instructions %r > 0" % (name, who, r.get("instructions")))
            check(0 <= r.get("branch_misses", -1) <= r.get("branches", -1),
                  "%s/%s: 0 <= simulated branch misses <= branches" % (name, who))
            check(r.get("bytes", 0) > 0 and r.get("instructions_per_byte", 0) > 0,
                  "%s/%s: bytes and instructions per byte" % (name, who))
            if lim.get("item"):
                check(r.get("items", 0) > 0 and r.get("branch_misses_per_item", -1) >= 0,
                      "%s/%s: items and branch misses per item" % (name, who))
        # per item where the group counts items (the two rows may read different bytes for
        # the same items: text against binary), else per byte
        unit = "instructions_per_" + ("item" if lim.get("item") else "byte")
        check(c.get(unit, 1e9) < s.get(unit, 0),
              "%s: the ceiling %s's %s (%.3g) below %s's (%.3g)" % (
                  name, lim["ceiling"], unit, c.get(unit, float("nan")), lim["strategy"],
                  s.get(unit, float("nan"))))


def check_report(tmp, manifest, limits_json):
    """A smoke run of the limits rows, reported with and without the document."""
    filt = "|".join("^%s/(%s|%s)/" % (g["name"], lim["strategy"], lim["ceiling"])
                    for g, lim in manifest.limits())
    run = os.path.join(tmp, "run.json")
    subprocess.run([HOTBENCH, "--hb_profile=smoke", "--hb_repetitions=2",
                    "--benchmark_min_time=1e-6", "--benchmark_filter=" + filt,
                    "--benchmark_out=" + run, "--benchmark_out_format=json"],
                   capture_output=True, check=True)
    for given, want in ((limits_json, "instructions per byte"), ("", "run `make limits`")):
        out = os.path.join(tmp, "report-" + ("with" if given else "without"))
        p = subprocess.run([PY, os.path.join(SRC, "scripts", "report.py"), "--run", run,
                            "--limits", given, "--status", "", "--e2e", "", "--peers", "",
                            "--alloc", "", "--chart-formats", "none", "--out", out],
                           capture_output=True, text=True)
        check(p.returncode == 0, "report.py %s the document exits 0 (%s)" % (
            "with" if given else "without", p.stderr.strip()[-300:]))
        md = open(os.path.join(out, "REPORT.md")).read() if p.returncode == 0 else ""
        for g, lim in manifest.limits():
            head = "#### What limits `%s` now" % lim["strategy"]
            part = md.split(head, 1)[1].split("\n#", 1)[0] if head in md else ""
            check(lim["mechanism"] in part and want in part,
                  "%s: the paragraph has the mechanism and %r" % (g["name"], want))


def main():
    why = skip_reason()
    if why:
        print("skipped: " + why)
        sys.exit(77)
    script = os.path.join(SRC, "scripts", "limits.py")
    p = subprocess.run([PY, script, "--help"], capture_output=True, text=True)
    check(p.returncode == 0 and "hotbench-limits/1" in p.stdout, "--help exits 0 and names "
          "the schema")
    build = os.path.dirname(HOTBENCH)
    p = subprocess.run([PY, script, "--build", build, "--group", "no-such-group"],
                       capture_output=True, text=True)
    check(p.returncode == 2 and "no-such-group" in p.stderr, "an unknown --group exits 2 "
          "naming it")
    manifest = Manifest.from_binary(HOTBENCH)
    with tempfile.TemporaryDirectory(prefix="hb-test-limits-") as tmp:
        out = os.path.join(tmp, "limits.json")
        p = subprocess.run([PY, script, "--build", build, "--profile", "smoke", "--probe",
                            "[^/]+(/[^/]+)*", "--out", out], capture_output=True, text=True)
        check(p.returncode == 0 and os.path.exists(out), "limits.py --profile smoke exits 0 "
              "(%s)" % p.stderr.strip()[-500:])
        if os.path.exists(out):
            with open(out) as f:
                check_document(json.load(f), manifest)
            check_report(tmp, manifest, out)
    done()


if __name__ == "__main__":
    main()

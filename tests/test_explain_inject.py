#!/usr/bin/env python3
"""test_explain_inject.py BINDIR SRCDIR - the explanation on a real build (issue 32): one
hotbench of the hooks build explained against itself (scripts/explain.py --build), with and
without HB_INJECT=parser in the head (harness/hb_testhook.h: rfc3339 swar parses every fifth
timestamp twice). With it, the injected function (batch_swar's clone that holds the second
parse) heads the table, new, about a fifth of the base's instructions, and the flame graph and
the callgrind dumps are written; without it the two profiles are the same (the counts of one
binary repeat: no function listed). Needs -DHB_TEST_HOOKS=ON and valgrind; exits 77 with the
reason otherwise (the ASan build, which valgrind cannot run). Seconds."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BINDIR = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 2 else None
SRC = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = 77
FILTER = "^rfc3339/swar/rows:1000/"


def build_flags(bindir):
    """The run context's hb_build_flags of bindir/hotbench ('' when it does not run)."""
    p = subprocess.run([os.path.join(bindir, "hotbench"), "--hb_profile=smoke",
                        "--benchmark_filter=^bufgrow/memcpy/size:65536/",
                        "--benchmark_min_time=1e-9", "--benchmark_format=json"],
                       capture_output=True, text=True)
    try:
        return json.loads(p.stdout)["context"].get("hb_build_flags", "")
    except (ValueError, KeyError):
        return ""


def why_skip(bindir):
    """The reason this test cannot run here, or None."""
    if not bindir or not os.access(os.path.join(bindir, "hotbench"), os.X_OK):
        return "no hotbench in %r (give the build directory)" % bindir
    flags = build_flags(bindir)
    if "-fsanitize" in flags:
        return "a sanitizer build (valgrind cannot run it); the normal build runs this test"
    if "HB_TEST_HOOKS" not in flags:
        return "%s/hotbench has no test injections (configure with -DHB_TEST_HOOKS=ON, as " \
               "make test does)" % bindir
    if not shutil.which("valgrind"):
        return "valgrind is not installed (scripts/deps.sh installs it)"
    return None


def explain(out, *env):
    """scripts/explain.py on the build, the head's environment env ('VAR=VALUE' strings):
    (exit status, explain.json or None, output)."""
    cmd = [sys.executable, os.path.join(SRC, "scripts", "explain.py"), "--build", BINDIR,
           "--filter", FILTER, "--out", out]
    for e in env:
        cmd += ["--head-env", e]
    e = dict(os.environ, HB_DATA_DIR=os.path.join(out, "data"))
    e.pop("HB_INJECT", None)
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=300)
    doc = None
    if os.path.exists(os.path.join(out, "explain.json")):
        with open(os.path.join(out, "explain.json")) as f:
            doc = json.load(f)
    return p.returncode, doc, p.stdout + p.stderr


class Inject(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="hb-explain-inject-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_the_injected_function_heads_its_table(self):
        out = os.path.join(self.dir, "inject")
        rc, doc, text = explain(out, "HB_INJECT=parser")
        self.assertEqual(rc, 0, text)
        self.assertEqual(doc["schema"], "hotbench-explain/1")
        entry = doc["entries"][0]
        self.assertEqual(len(doc["entries"]), 1, text)
        self.assertIsNone(entry["error"], text)
        top = entry["functions"][0]
        self.assertTrue(top["function"].startswith("batch_swar"), entry["functions"])
        # gcc moves the injected second parse into a clone (batch_swar.part.0, "new"); clang
        # keeps it in batch_swar itself (its own instructions up by a fifth): either heads it
        self.assertIn(top["status"], ("new", "") if "." in top["function"] else ("",), top)
        self.assertTrue(top["file"].endswith("cases/rfc3339/rfc3339.c"), top)
        self.assertGreater(top["share"], 0.15, top)  # every fifth timestamp parsed again
        self.assertGreater(entry["instructions"]["change"], 0.15)
        for path in [entry["svg"]] + list(entry["files"]["callgrind"].values()) + \
                list(entry["files"]["folded"].values()):
            self.assertTrue(os.path.getsize(os.path.join(out, path)) > 0, path)
        with open(os.path.join(out, entry["svg"])) as f:
            self.assertIn("<title>%s\n" % top["function"], f.read())
        with open(os.path.join(out, "explain.md")) as f:
            self.assertIn("| `%s` |" % top["function"], f.read())

    def test_the_same_binary_and_environment_differ_nowhere(self):
        rc, doc, text = explain(os.path.join(self.dir, "same"))
        self.assertEqual(rc, 0, text)
        entry = doc["entries"][0]
        self.assertIsNone(entry["error"], text)
        self.assertEqual(entry["functions"], [], text)
        self.assertEqual(entry["instructions"]["change"], 0.0)


if __name__ == "__main__":
    reason = why_skip(BINDIR)
    if reason:
        print("test_explain_inject: skipped: " + reason, flush=True)
        sys.exit(SKIP)
    unittest.main(verbosity=1)

#!/usr/bin/env python3
"""test_objcode.py - the compare's object-code witness (scripts/hotbench/compare/objcode.py) on
tiny C files compiled with `cc -c -O2 -g` into fake CMake build directories (cases/a/...,
harness/..., data-gen/..., tools/...), each from its own copy of the sources (so paths differ,
as between build-rev/<commit>/ and build-ci/):
  - the same sources give the same fingerprints; a changed comment too (the line moved);
  - a changed constant in a case changes that case's fingerprint only; in the harness, only
    the harness's;
  - the same bytes calling another function (only a relocation's symbol differs) differ;
  - a case calling another case's code changes with it, and unchanged() names the callee;
  - harness/hb_build_info.c (the revision string), hotbench-gen's and a fuzz target's copies
    of a case's file do not count;
  - a missing or empty build directory, an object that is not ELF, link-time-optimisation
    objects: None with the reason;
  - the object path table of part_of(); one Witness asked about several cases; the command
    line (--help, usage errors, fingerprints, a compare, an unknown answer).
With two arguments, BUILD_DIR and SOURCE_DIR (ctest gives the test build's): every case of
cases.def has a fingerprint there, and each is unchanged against the same directory.
Correctness only, never timings. Needs cc and readelf; skipped (77) without them."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "scripts"))

from hotbench.compare import objcode  # noqa: E402
from hotbench.compare.objcode import SHARED, fingerprints, unchanged  # noqa: E402

REAL = sys.argv[1:3] if len(sys.argv) >= 3 else None
del sys.argv[1:]

# The fake tree: source path -> text. Its folders map to build folders as CMake's do: a case's
# sources are built by targets of cases/<case>/, the others by top-level targets.
TREE = {
    "cases/a/a.c": "/* case a */\nint a_helper(int x);\n"
                   "int a_scale(int x)\n{\n    return a_helper(x) * 3;\n}\n",
    "cases/a/a_helper.c": "int a_helper(int x)\n{\n    return x + 7;\n}\n",
    "cases/b/b.c": "int a_scale(int x);\nint b_twice(int x)\n{\n    return a_scale(x) * 2;\n}\n",
    "cases/c/c.c": "int c_one(void)\n{\n    return 1;\n}\n",
    "harness/h.c": "const char *h_name(void)\n{\n    return \"harness\";\n}\n",
    "harness/hb_build_info.c": "const char *hb_rev(void)\n{\n    return \"0123456789ab\";\n}\n",
    "data-gen/g.c": "unsigned g_next(unsigned s)\n{\n    return s * 1103515245u + 12345u;\n}\n",
    "tools/hotbench.c": "int main(void)\n{\n    return 0;\n}\n",
    "tools/hotbench-gen.c": "int gen_main(void)\n{\n    return 2;\n}\n",
}
TARGET = {"cases/a/": "hb_case_a", "cases/b/": "hb_case_b_bench", "cases/c/": "hb_case_c",
          "harness/": "hb_harness", "data-gen/": "hb_datagen", "tools/": "hotbench"}


def cmake_object(source):
    """The object path CMake gives source (below the build directory)."""
    prefix = next(p for p in TARGET if source.startswith(p))
    if prefix.startswith("cases/"):
        return "%sCMakeFiles/%s.dir/%s.o" % (prefix, TARGET[prefix], source[len(prefix):])
    return "CMakeFiles/%s.dir/%s.o" % (TARGET[prefix], source)


class Fake:
    """Fake build directories below one temporary folder."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="hb-objcode-")
        self.n = 0

    def build(self, changes=None, flags=(), extra=None):
        """A build directory of TREE with changes {source: text} applied, each file compiled
        from a source copy of its own: `cc -O2 -g -c` + flags. extra: {object path: source}
        compiled at that object path too. Returns the build directory."""
        self.n += 1
        src = os.path.join(self.tmp, "src%d" % self.n)
        out = os.path.join(self.tmp, "build%d" % self.n)
        tree = dict(TREE, **(changes or {}))
        objs = {cmake_object(s): s for s in tree}
        objs.update(extra or {})
        for s, text in tree.items():
            os.makedirs(os.path.dirname(os.path.join(src, s)), exist_ok=True)
            with open(os.path.join(src, s), "w") as f:
                f.write(text)
        for obj, s in objs.items():
            path = os.path.join(out, obj)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            subprocess.run(["cc", "-O2", "-g", "-c"] + list(flags) +
                           [os.path.join(src, s), "-o", path], check=True)
        return out

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def section_bytes(build, obj, name):
    """The bytes of section name of one object (readelf's offsets)."""
    lines = objcode.readelf(build, [obj])[obj]
    sec = next(s for s in objcode.parse_sections(lines).values() if s["name"] == name)
    with open(os.path.join(build, obj), "rb") as f:
        f.seek(sec["off"])
        return f.read(sec["size"])


class Fingerprints(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = Fake()
        cls.base = cls.fake.build()
        cls.prints, why = fingerprints(cls.base)
        assert cls.prints is not None, why

    @classmethod
    def tearDownClass(cls):
        cls.fake.close()

    def changed(self, changes=None, **kw):
        """{part: whether its fingerprint differs from the base's} of a build with changes."""
        prints, why = fingerprints(self.fake.build(changes, **kw))
        self.assertIsNotNone(prints, why)
        self.assertEqual(set(prints), set(self.prints))
        return {k: prints[k] != self.prints[k] for k in prints}

    def test_parts(self):
        self.assertEqual(set(self.prints), {"a", "b", "c", SHARED})
        for v in self.prints.values():
            self.assertRegex(v, r"^[0-9a-f]{64}$")

    def test_same_sources_same_prints(self):
        self.assertEqual(self.changed(), dict.fromkeys(self.prints, False))

    def test_comment_changes_nothing(self):
        text = TREE["cases/a/a.c"].replace("/* case a */", "/* case a,\n * now longer */")
        self.assertEqual(self.changed({"cases/a/a.c": text}), dict.fromkeys(self.prints, False))

    def test_constant_changes_its_case_and_its_callers(self):
        text = TREE["cases/a/a_helper.c"].replace("x + 7", "x + 8")
        # b calls a_scale, defined in a: b's fingerprint covers a's objects
        self.assertEqual(self.changed({"cases/a/a_helper.c": text}),
                         {"a": True, "b": True, "c": False, SHARED: False})
        text = TREE["cases/c/c.c"].replace("return 1", "return 2")
        self.assertEqual(self.changed({"cases/c/c.c": text}),
                         {"a": False, "b": False, "c": True, SHARED: False})

    def test_harness_change_is_the_harness_only(self):
        text = TREE["data-gen/g.c"].replace("12345u", "12346u")
        self.assertEqual(self.changed({"data-gen/g.c": text}),
                         {"a": False, "b": False, "c": False, SHARED: True})

    def test_revision_unit_and_other_tools_do_not_count(self):
        changes = {"harness/hb_build_info.c": TREE["harness/hb_build_info.c"].replace(
                       "0123456789ab", "ba9876543210-dirty"),
                   "tools/hotbench-gen.c": TREE["tools/hotbench-gen.c"].replace("2", "3")}
        self.assertEqual(self.changed(changes), dict.fromkeys(self.prints, False))
        # a fuzz target's copy of a case's file, built with other flags, is not the case's
        extra = {"fuzz/CMakeFiles/hb_fuzz_a.dir/__/cases/a/a.c.o": "cases/a/a.c"}
        self.assertEqual(self.changed(extra=extra), dict.fromkeys(self.prints, False))

    def test_other_flags_change_everything(self):
        self.assertEqual(self.changed(flags=["-O0"]), dict.fromkeys(self.prints, True))


class Relocations(unittest.TestCase):
    """The same bytes and the same symbols, one call to another function: only .rela.text's
    symbol differs, and the object's digest with it."""

    CALLER = ("int helper_one(void);\nint helper_two(void);\n"
              "int (*const keep[])(void) = {helper_one, helper_two};\n"
              "int caller(void)\n{\n    return HELPER() + 1;\n}\n")

    def test_call_target_counts(self):
        fake = Fake()
        try:
            obj = cmake_object("cases/a/a.c")
            one = fake.build({"cases/a/a.c": self.CALLER.replace("HELPER", "helper_one")})
            two = fake.build({"cases/a/a.c": self.CALLER.replace("HELPER", "helper_two")})
            self.assertEqual(section_bytes(one, obj, ".text"), section_bytes(two, obj, ".text"),
                             "precondition: the caller's bytes are the same")
            sides = []
            for build in (one, two):
                lines = objcode.readelf(build, [obj])[obj]
                secs = objcode.parse_sections(lines)
                sides.append((objcode.parse_symbols(lines, secs),
                              objcode.object_digest(os.path.join(build, obj), lines)[0]))
            self.assertEqual(sides[0][0], sides[1][0], "precondition: the same symbols")
            self.assertNotEqual(sides[0][1], sides[1][1])
            same, text = unchanged(one, two, "a")
            self.assertIs(same, False, text)
            self.assertIn("cases/a objects differ (cases/a/a.c)", text)
        finally:
            fake.close()


class Unchanged(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = Fake()
        cls.base = cls.fake.build()

    @classmethod
    def tearDownClass(cls):
        cls.fake.close()

    def test_same(self):
        same, text = unchanged(self.base, self.fake.build(), "a")
        self.assertIs(same, True, text)
        self.assertIn("byte-identical", text)

    def test_names_what_differs(self):
        head = self.fake.build({
            "cases/a/a_helper.c": TREE["cases/a/a_helper.c"].replace("7", "9"),
            "harness/h.c": TREE["harness/h.c"].replace("harness", "Harness")})
        same, text = unchanged(self.base, head, "b")
        self.assertIs(same, False, text)
        self.assertIn("cases/a objects differ (cases/a/a_helper.c) (cases/b calls them)", text)
        self.assertIn("the harness differs (harness/h.c)", text)
        self.assertNotIn("cases/b objects differ", text)
        same, text = unchanged(self.base, head, "c")
        self.assertIs(same, False, text)
        self.assertEqual(text, "the harness differs (harness/h.c)")

    def test_case_on_one_side(self):
        head = self.fake.build()
        shutil.rmtree(os.path.join(head, "cases", "c"))
        same, text = unchanged(self.base, head, "c")
        self.assertIs(same, False, text)
        self.assertIn("cases/c has objects in the base build only", text)
        same, text = unchanged(self.base, head, "nosuchcase")
        self.assertIsNone(same)
        self.assertIn("neither build has objects of cases/nosuchcase/", text)

    def test_unknown(self):
        missing = os.path.join(self.fake.tmp, "missing")
        same, text = unchanged(self.base, missing, "a")
        self.assertIsNone(same)
        self.assertIn("the head build's object code is unknown: no build directory " + missing,
                      text)
        empty = os.path.join(self.fake.tmp, "empty")
        os.makedirs(os.path.join(empty, "CMakeFiles"))
        prints, why = fingerprints(empty)
        self.assertIsNone(prints)
        self.assertIn("no object files", why)
        same, text = unchanged(empty, self.base, "a")
        self.assertIsNone(same)
        self.assertIn("the base build's object code is unknown: no object files", text)

    def test_not_elf(self):
        bad = self.fake.build()
        obj = cmake_object("cases/c/c.c")
        with open(os.path.join(bad, obj), "w") as f:
            f.write("not an object\n")
        prints, why = fingerprints(bad)
        self.assertIsNone(prints)
        self.assertIn("readelf cannot read objects of " + bad, why)

    def test_link_time_optimisation_is_unknown(self):
        try:
            lto = self.fake.build(flags=["-flto"])
        except subprocess.CalledProcessError:
            self.skipTest("cc -flto does not compile here")
        prints, why = fingerprints(lto)
        self.assertIsNone(prints)
        # gcc: ELF objects of .gnu.lto_* sections; clang: bitcode, which readelf cannot read
        self.assertRegex(why, r"link-time optimisation code|readelf cannot read")


class Command(unittest.TestCase):
    """python3 -m hotbench.compare.objcode, and one Witness asked about several cases."""

    @classmethod
    def setUpClass(cls):
        cls.fake = Fake()
        cls.base = cls.fake.build()
        cls.head = cls.fake.build({"cases/c/c.c": TREE["cases/c/c.c"].replace("1;", "5;")})

    @classmethod
    def tearDownClass(cls):
        cls.fake.close()

    def run_cli(self, *args):
        py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        p = subprocess.run([py, "-m", "hotbench.compare.objcode"] + list(args), text=True,
                           capture_output=True, cwd=os.path.join(SRC, "scripts"))
        self.assertNotIn("Traceback", p.stdout + p.stderr)
        return p

    def test_witness(self):
        w = objcode.Witness(self.base, self.head)
        self.assertEqual([w.unchanged(c)[0] for c in ("a", "b", "c")], [True, True, False])

    def test_cli(self):
        p = self.run_cli("--help")
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertIn("usage:", p.stdout)
        self.assertEqual(self.run_cli().returncode, 2)
        self.assertEqual(self.run_cli("--bogus").returncode, 2)
        p = self.run_cli(self.base)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"^([0-9a-f]{64} (a|b|c|%s)\n){4}$" % SHARED)
        p = self.run_cli(self.base, self.head)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines()[2], "c: changed: cases/c objects differ "
                         "(cases/c/c.c)")
        p = self.run_cli(self.base, os.path.join(self.fake.tmp, "missing"), "a")
        self.assertEqual(p.returncode, 1)
        self.assertIn("objcode: the head build's object code is unknown: no build directory",
                      p.stderr)


class PartOf(unittest.TestCase):
    ROWS = (  # (object path below the build directory, (part, source), why)
        ("cases/x/CMakeFiles/hb_case_x.dir/p.c.o", ("x", "cases/x/p.c"), "a case's library"),
        ("cases/x/CMakeFiles/hb_case_x_bench.dir/sub/q.c.o", ("x", "cases/x/sub/q.c"),
         "a subfolder"),
        ("CMakeFiles/hb_harness.dir/harness/hb_shim.cc.o", (SHARED, "harness/hb_shim.cc"),
         "C++"),
        ("CMakeFiles/hb_datagen.dir/data-gen/g.c.o", (SHARED, "data-gen/g.c"), "data-gen"),
        ("CMakeFiles/hotbench.dir/tools/hotbench.c.o", (SHARED, "tools/hotbench.c"), "the main"),
        ("CMakeFiles/hb_build_info.dir/harness/hb_build_info.c.o",
         (None, "harness/hb_build_info.c"), "the revision unit"),
        ("CMakeFiles/hotbench-gen.dir/tools/hb_cli.c.o", (None, "tools/hb_cli.c"),
         "another tool"),
        ("tests/CMakeFiles/test_x.dir/test_x.c.o", (None, "tests/test_x.c"), "a test"),
        ("fuzz/CMakeFiles/f.dir/__/cases/x/p.c.o", (None, None), "outside its folder"),
        ("cases/x/p.o", (None, None), "not in CMakeFiles/<target>.dir/"),
    )

    def test_table(self):
        for rel, want, why in self.ROWS:
            self.assertEqual(objcode.part_of(rel), want, why)


class RealBuild(unittest.TestCase):
    """The build tree ctest names, when it does."""

    def test_every_case(self):
        if not REAL:
            self.skipTest("no build directory given")
        build, source = REAL
        with open(os.path.join(source, "cases", "cases.def")) as f:
            cases = {line.split("(")[1].split(")")[0] for line in f if line.startswith("HB_CASE(")}
        prints, why = fingerprints(build)
        self.assertIsNotNone(prints, why)
        self.assertEqual(set(prints), cases | {SHARED})
        for case in cases:
            same, text = unchanged(build, build, case)
            self.assertIs(same, True, "%s: %s" % (case, text))


if __name__ == "__main__":
    for tool in ("cc", "readelf"):
        if shutil.which(tool) is None:
            print("test_objcode: skipped: %s is not installed" % tool)
            sys.exit(77)
    unittest.main(verbosity=1)

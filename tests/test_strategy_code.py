#!/usr/bin/env python3
"""test_strategy_code.py - a strategy's own code in two builds (scripts/hotbench/compare/
strategy_code.py, steady.by_strategy), on a tiny case compiled with `cc -O2 -g -falign-functions=64
-c` into fake CMake build directories: a table of three strategies whose functions call static
helpers inside one .text (calls the assembler resolves, with no relocation), a helper two of them
share, and a loop over the table outside every row (a case's bench code).
  - the same source from another path, or with a comment changed: every strategy the same;
  - one strategy's own helper changed: that strategy only;
  - the helper two share: those two; the loop outside the rows (bench.c): all three;
  - a strategy's string in its row (its description): that strategy only;
  - code reached through data (a string array, a hook variable, a policy object), a format
    string, a struct whose function pointer precedes its name: the strategy that reaches it;
    the bench loop in a table right after an array of strategy names: every strategy;
  - steady.Steady.without: an injected strategy takes out those sharing a function of its row;
  - a build directory without objects: nothing known.
Correctness only, never timings. Needs cc and objdump/readelf; skipped (77) without them."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

from hotbench.compare import steady, strategy_code  # noqa: E402

CASE = r"""
/* case a: three strategies */
struct row { const char *name; const char *about; int (*run)(int); };
__attribute__((noinline)) static int helper_one(int x) { return x * 3 + 1; }
__attribute__((noinline)) static int shared(int x) { return x ^ 0x5a5a; }
__attribute__((noinline)) static int run_one(int x) { return helper_one(x) + 2; }
__attribute__((noinline)) static int run_two(int x) { return shared(x) * 5; }
__attribute__((noinline)) static int run_three(int x) { return shared(x) - 7; }
const struct row a_rows[] = {
    {"one", "the first", run_one},
    {"two", "the second", run_two},
    {"three", "the third", run_three},
};
"""
# the case's bench code, in a file of its own as in cases/<case>/bench.c (in the table's own
# file, gcc may call run_one directly from the loop, which then reaches it)
BENCH = r"""
struct row { const char *name; const char *about; int (*run)(int); };
extern const struct row a_rows[];
int a_loop(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += a_rows[i % 3].run(i);
    return s;
}
"""
HARNESS = "int h_version(void)\n{\n    return 4;\n}\n"
OBJECTS = {"cases/a/a.c": "cases/a/CMakeFiles/hb_case_a.dir/a.c.o",
           "cases/a/bench.c": "cases/a/CMakeFiles/hb_case_a.dir/bench.c.o",
           "cases/a/strong.c": "cases/a/CMakeFiles/hb_case_a.dir/strong.c.o",
           "harness/h.c": "CMakeFiles/hb_harness.dir/harness/h.c.o"}


# Strategies that reach their code through data (a string array, a hook variable, a policy
# object), a format string, and a struct whose function pointer comes before its name.
CASE2 = r"""
#include <stdio.h>
struct policy { int k; int (*step)(int); };
struct row { int (*run)(int); const char *name; const struct policy *policy; };
__attribute__((noinline)) static int step_a(int x) { return x + 11; }
__attribute__((noinline)) static int step_b(int x) { return x - 13; }
static const struct policy pol_a = {1, step_a};
static const struct policy pol_b = {2, step_b};
static const char *const words[] = {"alpha", "bravo"};
__attribute__((noinline)) static int hooked(int x) { return x * 17; }
static int (*volatile hook)(int) = hooked;
__attribute__((noinline)) static int run_one(int x) { return (int)words[x & 1][0] + x; }
__attribute__((noinline)) static int run_two(int x) { return hook(x) + 1; }
__attribute__((noinline)) static int run_three(int x)
{
    char buf[32];
    return snprintf(buf, sizeof buf, "three %d", x);
}
const struct row b_rows[] = {
    {run_one, "one", &pol_a},
    {run_two, "two", &pol_b},
    {run_three, "three", &pol_a},
};
"""
# the bench code: strategy names in an array, then a table of the loop's functions right after
BENCH2 = r"""
struct row { int (*run)(int); const char *name; const void *policy; };
extern const struct row b_rows[];
static const char *const witnesses[] = {"one", "two"};
__attribute__((noinline)) static int time_loop(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += b_rows[i % 3].run(i);
    return s;
}
struct family { const char *const *names; int (*time)(int); };
const struct family b_families[] = {{witnesses, time_loop}};
"""


# A table two's code reads and one's set-up fills at run time; two variables side by side in
# .data, read through section-relative relocations; a helper defined weak here and strong in
# another object (the linker keeps the strong one).
CASE3 = r"""
struct row { const char *name; int (*run)(int); void (*setup)(void); };
static int tbl[16];
static volatile int lim_a = 7;
static volatile int lim_b = 100;
int helper(int x) __attribute__((weak));
int helper(int x) { return x; }
__attribute__((noinline)) static void setup_one(void)
{
    for (int i = 0; i < 16; i++)
        tbl[i] = i * 3;
}
__attribute__((noinline)) static int run_one(int x) { return x + lim_a; }
__attribute__((noinline)) static int run_two(int x) { return tbl[x & 15] + (lim_b > 5); }
__attribute__((noinline)) static int run_three(int x) { return helper(x) + 1; }
const struct row c_rows[] = {
    {"one", run_one, setup_one},
    {"two", run_two, 0},
    {"three", run_three, 0},
};
"""
STRONG = "int helper(int x)\n{\n    return x * 2;\n}\n"


class FakeManifest:
    """What steady.py reads of a manifest: one case "a", its group "a" of three strategies."""
    cases = [{"name": "a"}]

    def groups(self):
        return [{"name": "a", "case": "a",
                 "strategies": [{"name": n} for n in ("one", "two", "three")]}]

    def case_of(self, group):
        return self.cases[0]


class Builds:
    """Fake build directories below one temporary folder."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="hb-strategy-code-")
        self.n = 0

    def build(self, case=CASE, bench=BENCH, strong="int strong_unused;\n"):
        """A build directory of the case's sources (case, bench) and the harness, each compiled
        from its own copy (the paths differ between builds, as between build-rev/ and
        build-ci/)."""
        self.n += 1
        out = os.path.join(self.tmp, "build%d" % self.n)
        for src, obj in OBJECTS.items():
            path = os.path.join(self.tmp, "src%d" % self.n, src)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write({"cases/a/a.c": case, "cases/a/bench.c": bench,
                         "cases/a/strong.c": strong}.get(src, HARNESS))
            os.makedirs(os.path.dirname(os.path.join(out, obj)), exist_ok=True)
            subprocess.run(["cc", "-O2", "-g", "-falign-functions=64", "-c", path, "-o",
                            os.path.join(out, obj)], check=True)
        return out


class StrategyCode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fake = Builds()
        cls.base = cls.fake.build()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.fake.tmp, ignore_errors=True)

    def same(self, case, bench=BENCH, base=None):
        got = steady.by_strategy(base or self.base, self.fake.build(case, bench), FakeManifest(),
                                 ["a"])
        return {n for n, s in got["a"].items() if s}

    def test_code_reached_through_data_and_strings_moves_its_strategy(self):
        base = self.fake.build(CASE2, BENCH2)
        every = {"one", "two", "three"}
        self.assertEqual(self.same(CASE2, BENCH2, base), every)
        for old, new, moved in (('"alpha"', '"alpha2"', "one"),         # a string array
                                ("x * 17", "x * 19", "two"),              # through a hook
                                ('"three %d"', '"three %x"', "three"),    # a format string
                                ("x + 11", "x + 12", "one three"),        # a policy's function
                                ("{1, step_a}", "{3, step_a}", "one three")):
            self.assertEqual(self.same(CASE2.replace(old, new), BENCH2, base),
                             every - set(moved.split()), old)

    def test_run_time_tables_exact_biases_and_twice_defined_names(self):
        base = self.fake.build(CASE3, BENCH)
        every = {"one", "two", "three"}
        self.assertEqual(self.same(CASE3, BENCH, base), every)
        # two reads what one's set-up writes; and so one, through that table, reaches two's
        # code and lim_b (conservative: a writable object takes in every function using it)
        self.assertEqual(self.same(CASE3.replace("i * 3", "i * 5"), BENCH, base), {"three"})
        self.assertEqual(self.same(CASE3.replace("lim_b = 100", "lim_b = 1"), BENCH, base),
                         {"three"})
        self.assertEqual(self.same(CASE3.replace("lim_a = 7", "lim_a = 8"), BENCH, base),
                         {"two", "three"})
        # helper defined twice (weak and strong): not known, so three is never steady
        strong = steady.by_strategy(base, self.fake.build(CASE3, BENCH, STRONG),
                                    FakeManifest(), ["a"])
        self.assertFalse(strong["a"]["three"])

    def test_the_bench_loop_after_a_name_array_moves_every_strategy(self):
        base = self.fake.build(CASE2, BENCH2)
        self.assertEqual(self.same(CASE2, BENCH2.replace("i % 3", "(i + 1) % 3"), base), set())

    def test_the_same_code_elsewhere_or_with_a_comment_is_the_same(self):
        self.assertEqual(self.same(CASE), {"one", "two", "three"})
        self.assertEqual(self.same(CASE.replace("/* case a", "/* the case a")),
                         {"one", "two", "three"})

    def test_a_helper_of_one_strategy_moves_that_strategy_only(self):
        # run_one calls helper_one inside one .text: no relocation names the callee
        self.assertEqual(self.same(CASE.replace("x * 3 + 1", "x * 3 + 2")), {"two", "three"})

    def test_a_shared_helper_moves_both_and_the_loop_moves_all(self):
        self.assertEqual(self.same(CASE.replace("x ^ 0x5a5a", "x ^ 0x5a5b")), {"one"})
        self.assertEqual(self.same(CASE, BENCH.replace("i % 3", "(i + 1) % 3")), set())

    def test_a_rows_string_moves_its_strategy(self):
        self.assertEqual(self.same(CASE.replace('"the second"', '"the 2nd"')),
                         {"one", "three"})

    def test_an_injected_strategy_takes_out_those_sharing_its_row_functions(self):
        build = strategy_code.Build(self.base)
        entries = steady.entries_of(build, FakeManifest())
        self.assertEqual({n: sorted(k[2] for k in ks) for n, ks in entries["a"].items()},
                         {"one": ["run_one"], "two": ["run_two"], "three": ["run_three"]})
        shared = dict(entries["a"], three=entries["a"]["two"])  # as if three ran run_two
        st = steady.Steady(FakeManifest(), entries={"a": shared})
        keep = st.without({"a/two"})
        self.assertEqual([f for f in ("a/one", "a/two", "a/three") if keep(f)], ["a/one"])
        self.assertEqual([f for f in ("a/one", "a/two") if steady.Steady(FakeManifest())
                          .without({"a/two"})(f)], [])  # no rows known: the whole case

    def test_nothing_is_known_without_objects(self):
        empty = os.path.join(self.fake.tmp, "empty")
        os.makedirs(empty, exist_ok=True)
        self.assertEqual(steady.by_strategy(self.base, empty, FakeManifest(), ["a"]), {})


if __name__ == "__main__":
    if not shutil.which("cc") or not shutil.which("objdump") or not shutil.which("readelf"):
        print("skipped: cc, objdump or readelf missing")
        sys.exit(77)
    unittest.main()

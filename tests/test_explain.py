#!/usr/bin/env python3
"""test_explain.py - the compare's per-function explanation (scripts/hotbench/compare/explain/,
issue 32) on made-up and recorded profiles: the callgrind reader against the format's own
examples (name and subposition compression, calls, inlined files, parts) and bad input; the
folding of a call graph (a callee shared in proportion to its calls, cycles cut, totals kept);
the differential table (order, new/gone, per iteration, shares); the hook's choice (a strategy
with no regression or improvement gets no profile, and then nothing runs); perf's stacks; the
SVG's frames and colours; the Markdown. Then the recorded HB_INJECT=parser dumps
(tests/fixtures/explain/) and a tiny C program built twice, with and without a memchr call,
under callgrind: memchr is listed new (skipped, with the reason, without cc or valgrind).
Correctness only, never timings."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

from hotbench.compare.explain import (callgrind, diff, flame, folded, hook,  # noqa: E402
                                      merged, perf, report)
from hotbench.compare.explain import cli as explain_cli  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures", "explain")

# Valgrind's cl-format, 3.1.5 (name compression) with its 3.1.4 figures: main 16 20, calls
# func1 once (400) and func2 three times (400); func1 51 100 calls func2 twice (300); func2 700.
SPEC_EXAMPLE = """# callgrind format
events: Instructions

fl=(1) file1.c
fn=(1) main
16 20
cfn=(2) func1
calls=1 50
16 400
cfi=(2) file2.c
cfn=(3) func2
calls=3 20
16 400

fn=(2)
51 100
cfi=(2)
cfn=(3)
calls=2 20
51 300

fl=(2)
fn=(3)
20 700
"""


def parse(text, event="Ir"):
    return callgrind.parse_lines(text.splitlines(True), "<test>", event)


class FakeProfile:
    """A callgrind.Profile built from {name: self cost} and {(a, b): inclusive cost}."""

    def __init__(self, own, calls, iterations=1, files=None):
        self.functions, self.calls = {}, {}
        for name, c in own.items():
            f = callgrind.Function(name)
            f.self_cost, f.file, f.line = c, (files or {}).get(name, "/src/x.c"), 10
            self.functions[name] = f
        for (a, b), c in calls.items():
            self.calls[(a, b)] = [1, c]
            self.functions.setdefault(b, callgrind.Function(b))
        self.total, self.iterations = 0, iterations
        callgrind.Profile.finish(self)


class Reader(unittest.TestCase):
    def test_the_format_documents_example(self):
        p = parse(SPEC_EXAMPLE)[0]
        f = p.functions
        self.assertEqual(p.event, "Instructions")  # the file's first event when Ir is absent
        self.assertEqual((f["main"].self_cost, f["main"].incl), (20, 820))
        self.assertEqual((f["func1"].self_cost, f["func1"].incl), (100, 400))
        self.assertEqual((f["func2"].self_cost, f["func2"].incl), (700, 700))
        self.assertEqual(p.calls[("main", "func2")], [3, 400])
        self.assertEqual(p.calls[("func1", "func2")], [2, 300])
        self.assertEqual((f["func2"].file, f["func2"].line), ("file2.c", 20))
        self.assertEqual(p.total, 820)

    def test_relative_subpositions_inlined_files_and_entry_line(self):
        text = """events: Ir Dr
positions: instr line
summary: 100 9
ob=(1) /bin/x
fl=(1) /src/a.c
fn=(1) f'2
0x20 30 5 1
-16 * 7
+4 +10 8
fi=(2) /src/inl.h
0x8 3 50
fe=(1)
+8 +2 10
cfn=(2) g
calls=4 0x100 12
+2 * 20 3
totals: 100 9
"""
        p = parse(text)[0]
        f = p.functions["f"]  # the recursion suffix of --separate-recs dropped
        self.assertEqual(f.self_cost, 5 + 7 + 8 + 50 + 10)  # the call's 20 is not its own
        self.assertEqual(f.incl, 80 + 20)
        # entry: the lowest address of its own file (0x10 at line 30; 0x8 is inl.h's)
        self.assertEqual((f.file, f.line, f.obj), ("/src/a.c", 30, "/bin/x"))
        self.assertEqual(p.calls[("f", "g")], [4, 20])
        self.assertEqual(p.total, 100)

    def test_parts(self):
        two = SPEC_EXAMPLE + "\npart: 2\ndesc: Trigger: Client Request: hb:g/s|7|3\n" \
            "events: Instructions\nfl=(1)\nfn=(1)\n16 5\n"
        parts = parse(two)
        self.assertEqual(len(parts), 2)
        self.assertEqual(parts[1].functions["main"].self_cost, 5)
        self.assertEqual(parts[1].desc["Trigger"], "Client Request: hb:g/s|7|3")

    def test_bad_input_names_the_file_and_line(self):
        cases = (("hello world\n", ":1: not a callgrind profile"),
                 ("events: Ir\nfn=(3)\n", ":2: compressed name (3) used before"),
                 ("events: Ir\n12 30\n", ":2: a cost line before any fn="),
                 ("events: Ir\nfn=f\n12 x\n", ":3: not a count"),
                 ("positions: line\nfn=f\n", ":2: a cost or position line before the events"),
                 ("", "no profile part"))
        for text, want in cases:
            with self.assertRaises(callgrind.ParseError) as cm:
                parse(text)
            self.assertIn(want, str(cm.exception), text)
            self.assertIn("<test>", str(cm.exception))
        with self.assertRaises(callgrind.ParseError) as cm:
            callgrind.parse("/nonexistent/cg.out")
        self.assertIn("cannot be read", str(cm.exception))


class Folding(unittest.TestCase):
    def diamond(self):
        # main(10) -> a (60: own 30, c 30), main -> b (30: own 20, c 10); c own 40
        return FakeProfile({"main": 10, "a": 30, "b": 20, "c": 40},
                           {("main", "a"): 60, ("main", "b"): 30, ("a", "c"): 30,
                            ("b", "c"): 10})

    def test_a_callee_is_shared_by_the_calls_inclusive_costs(self):
        st = folded.fold(self.diamond())
        self.assertEqual(st, {("main",): 10, ("main", "a"): 30, ("main", "a", "c"): 30,
                              ("main", "b"): 20, ("main", "b", "c"): 10})

    def test_totals_and_deeper_sharing(self):
        # c is called by a and b, and itself calls d: d follows c's split (3:1)
        p = FakeProfile({"main": 0, "a": 0, "b": 0, "c": 20, "d": 20},
                        {("main", "a"): 30, ("main", "b"): 10, ("a", "c"): 30,
                         ("b", "c"): 10, ("c", "d"): 20})
        st = folded.fold(p)
        self.assertAlmostEqual(st[("main", "a", "c", "d")], 15)
        self.assertAlmostEqual(st[("main", "b", "c", "d")], 5)
        self.assertAlmostEqual(sum(st.values()), p.total)

    def test_a_cycle_is_cut_and_nothing_lost(self):
        # a -> b -> a (recursion through b): the call back stays in b's frame
        p = FakeProfile({"a": 10, "b": 10}, {("a", "b"): 25, ("b", "a"): 15})
        p.total = 20
        st = folded.fold(p)
        self.assertEqual(set(st), {("a",), ("a", "b")})
        self.assertAlmostEqual(st[("a",)], 10)
        self.assertAlmostEqual(st[("a", "b")], 25)  # its own 10 and the cut call's 15

    def test_small_paths_are_not_expanded(self):
        st = folded.fold(self.diamond(), min_fraction=0.2)  # floor 20: b (30) expands, c not
        self.assertEqual(st[("main", "b", "c")], 10)
        self.assertNotIn(("main", "b", "c", "x"), st)
        self.assertAlmostEqual(sum(st.values()), 100)

    def test_write_and_read(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.folded")
            folded.write({("a", "b;c"): 2.6, ("a",): 0.2}, path)
            with open(path) as f:
                self.assertEqual(f.read(), "a;b:c 3\n")  # ';' in a name, 0 dropped
            self.assertEqual(folded.read(path), {("a", "b:c"): 3.0})
            with open(path, "w") as f:
                f.write("a;b\n")
            with self.assertRaises(ValueError) as cm:
                folded.read(path)
            self.assertIn("x.folded:1", str(cm.exception))

    def test_stack_profile(self):
        sp = folded.StackProfile({("m", "f"): 30, ("m", "f", "g"): 10, ("m",): 10}, per=100)
        self.assertEqual(sp.total, 50)
        self.assertEqual(sp.functions["f"].self_cost, 30)
        self.assertEqual(sp.functions["f"].incl, 40)
        self.assertEqual(sp.iterations, 0.5)  # diff.rows then reads per cent


class Table(unittest.TestCase):
    def test_order_new_gone_and_limit(self):
        base = FakeProfile({"main": 100, "old": 50, "same": 7, **{"f%d" % i: 10 for i in
                                                                 range(10)}}, {})
        head = FakeProfile({"main": 100, "new": 80, "same": 7, **{"f%d" % i: 10 + i for i in
                                                                range(10)}}, {})
        rows = diff.rows(base, head, roots=["/src"])
        self.assertEqual(len(rows), diff.LIMIT)
        self.assertEqual([(r["function"], r["status"]) for r in rows[:3]],
                         [("new", "new"), ("old", "gone"), ("f9", "")])
        self.assertEqual(rows[0]["change"], 80)
        self.assertAlmostEqual(rows[1]["share"], -50 / base.total)
        self.assertEqual(rows[0]["file"], "x.c")  # relative to the source root
        self.assertNotIn("same", [r["function"] for r in rows])  # unchanged: left out

    def test_per_iteration(self):
        base = FakeProfile({"f": 300}, {}, iterations=3)
        head = FakeProfile({"f": 100}, {}, iterations=1)
        self.assertEqual(diff.rows(base, head), [])
        self.assertEqual(diff.totals(base, head), (100.0, 100.0))

    def test_relative(self):
        self.assertEqual(diff.relative("/r/b/cases/x.c", ["/r/b", "/r"]), "cases/x.c")
        self.assertEqual(diff.relative("./elf/../sysdeps/x.S", []), "sysdeps/x.S")
        self.assertEqual(diff.relative("???", []), "")


class Selection(unittest.TestCase):
    ROWS = [dict(name="g/s/n:1000", family="g/s", params={"n": 1000}, verdict="regressed",
                 check="instructions: +9%"),
            dict(name="g/s/n:100", family="g/s", params={"n": 100}, verdict="same",
                 check="time (interleaved): +0.1%"),
            dict(name="g/s/n:10000", family="g/s", params={"n": 10000}, verdict="regressed",
                 check="time (confirmed at 95%): +8%"),
            dict(name="g/t/n:10", family="g/t", params={"n": 10}, verdict="improved",
                 check="time (interleaved): -9%", base_s=2e-6, head_s=1.8e-6),
            dict(name="g/u/n:10", family="g/u", params={"n": 10}, verdict="inconclusive",
                 check="time (interleaved): +9%")]

    def test_only_regressed_or_improved_strategies_their_smallest_row(self):
        strategies = [dict(family="g/s", verdict="regressed"),
                      dict(family="g/t", verdict="improved"),
                      dict(family="g/u", verdict="undecided"),
                      dict(family="g/v", verdict="same"),
                      dict(family="g/w", verdict="accepted")]
        got = [(st["family"], r["name"]) for st, r in hook.select(strategies, self.ROWS)]
        self.assertEqual(got, [("g/s", "g/s/n:1000"), ("g/t", "g/t/n:10")])
        # a strategy improved by its sizes pooled (no row improved): its smallest timed row
        rows = self.ROWS + [dict(name="g/x/n:5", family="g/x", params={"n": 5},
                                 verdict="inconclusive", n_base=10, n_head=10),
                            dict(name="g/x/n:1", family="g/x", params={"n": 1},
                                 verdict="not-measured")]
        got = hook.select([dict(family="g/x", verdict="improved")], rows)
        self.assertEqual([r["name"] for _, r in got], ["g/x/n:5"])
        self.assertEqual(hook.decided_by(self.ROWS[0]), "instructions")
        self.assertEqual(hook.decided_by(self.ROWS[2]), "time")

    def test_no_regression_no_profile_nothing_runs(self):
        class Result:
            strategies = [dict(family="g/s", verdict="same"),
                          dict(family="g/u", verdict="undecided")]
            rows = self.ROWS

        def boom(*a, **k):
            raise AssertionError("nothing may run when no strategy changed")
        saved = (hook.core.explain_benchmark, hook.perf.available)
        hook.core.explain_benchmark, hook.perf.available = boom, boom
        try:
            logged = []
            self.assertEqual(hook.run(Result(), "/nonexistent", log=logged.append), [])
            self.assertEqual(logged, [])
        finally:
            hook.core.explain_benchmark, hook.perf.available = saved

    def test_perf_only_where_time_decided(self):
        class Result:
            strategies = [dict(family="g/s", verdict="regressed"),
                          dict(family="g/t", verdict="improved")]
            rows = self.ROWS
            base = head = None
            settings = {}
        calls = []
        saved = (hook.core.explain_benchmark, hook.perf.available)
        hook.core.explain_benchmark = lambda arms, fam, name, s, out, **kw: calls.append(
            (fam, name, kw["decided_by"], kw["perf_state"], kw.get("times"))) or \
            dict(strategy=fam)
        hook.perf.available = lambda: (False, "no permission (test)")
        try:
            hook.run(Result(), "/tmp", log=lambda m: None)
        finally:
            hook.core.explain_benchmark, hook.perf.available = saved
        # perf's samples scale to the row's medians, the compare's own measurement of the size
        self.assertEqual(calls, [("g/s", "g/s/n:1000", "instructions", None, None),
                                 ("g/t", "g/t/n:10", "time", (False, "no permission (test)"),
                                  dict(base=2e-6, head=1.8e-6))])

    def test_at_most_cap_strategies(self):
        class Result:
            strategies = [dict(family="g/s%02d" % i, verdict="regressed") for i in range(15)]
            rows = [dict(name="g/s%02d/n:1" % i, family="g/s%02d" % i, params={"n": 1},
                         verdict="regressed", check="instructions: +9%") for i in range(15)]
            base = head = None
            settings = {}
        done, logged = [], []
        saved = hook.core.explain_benchmark
        hook.core.explain_benchmark = lambda arms, fam, *a, **kw: done.append(fam) or {}
        try:
            hook.run(Result(), "/tmp", log=logged.append)
        finally:
            hook.core.explain_benchmark = saved
        self.assertEqual(done, ["g/s%02d" % i for i in range(hook.CAP)])
        self.assertTrue(any("not explained: g/s12, g/s13, g/s14" in l for l in logged), logged)

    def test_the_same_code_in_both_builds_is_not_profiled(self):
        """A strategy regressed or improved by time whose case's object code is byte-identical
        in the two builds has nothing to find: left out, said; the others stay."""
        chosen = hook.select([dict(family="g/s", verdict="regressed"),
                              dict(family="g/t", verdict="improved")], self.ROWS)
        same = {"g/s": (False, "cases/g objects differ (cases/g/s.c)"),
                "g/t": (True, "12 objects identical")}
        logged = []
        kept = hook.same_code_left_out(chosen, same.get, logged.append)
        self.assertEqual([st["family"] for st, _ in kept], ["g/s"])
        self.assertEqual(logged, ["explain: g/t not profiled: the same code in both builds "
                                  "(12 objects identical)"])
        unknown = {"g/s": (None, "no objects"), "g/t": (None, "no objects")}
        self.assertEqual(len(hook.same_code_left_out(chosen, unknown.get, logged.append)), 2)

    def test_one_binary_in_two_environments_has_no_witness(self):
        class Arm:
            def __init__(self, env):
                self.binary, self.env = "/nonexistent/hotbench", env

        class Result:
            base, head = Arm({}), Arm({"HB_INJECT": "parser"})
        self.assertIsNone(hook.witness_of(Result()))

    def test_a_build_without_a_manifest_is_profiled_as_before(self):
        """No manifest to name a strategy's case: no witness, and the compare goes on (the
        compare's own load_manifest would stop it after its verdicts)."""
        class Arm:
            binary, env = "/nonexistent/hotbench", {}

        class Result:
            base = head = Arm()
        self.assertIsNone(hook.witness_of(Result()))

    def test_make_explain_picks_each_strategys_smallest(self):
        names = ["g/s/n:1000/real_time", "g/s/n:20/real_time", "g/t/a:3/b:4", "g/t/a:1/b:20"]
        self.assertEqual(explain_cli.chosen(names), [("g/s", "g/s/n:20/real_time"),
                                                     ("g/t", "g/t/a:3/b:4")])


class Shards(unittest.TestCase):
    def test_the_merge_keeps_what_is_still_regressed_and_copies_its_files(self):
        def entry(strategy, verdict):
            stem = "explain/" + strategy
            return dict(strategy=strategy, verdict=verdict, svg=stem + ".svg",
                        files=dict(callgrind=dict(base=stem + ".base.callgrind",
                                                  head=stem + ".head.callgrind")),
                        perf=None)
        with tempfile.TemporaryDirectory() as d:
            shards = [os.path.join(d, "s1"), os.path.join(d, "s2")]
            docs = [(shards[0], dict(explain=[entry("g/a", "regressed")])),
                    (shards[1], dict(explain=[entry("g/b", "regressed")]))]
            for sd, doc in docs:
                for e in doc["explain"]:
                    for rel in merged.files_of(e)[:2]:  # the head's dump is missing
                        os.makedirs(os.path.dirname(os.path.join(sd, rel)), exist_ok=True)
                        with open(os.path.join(sd, rel), "w") as f:
                            f.write(rel)
            out = os.path.join(d, "merged")
            # Holm's correction over both shards made g/b inconclusive: its entry goes
            got = merged.gather(docs, [dict(family="g/a", verdict="regressed"),
                                       dict(family="g/b", verdict="undecided")], out)
            self.assertEqual([e["strategy"] for e in got], ["g/a"])
            with open(os.path.join(out, "explain/g/a.svg")) as f:
                self.assertEqual(f.read(), "explain/g/a.svg")
            self.assertIn("explain/g/a.head.callgrind", got[0]["note"])
            self.assertFalse(os.path.exists(os.path.join(out, "explain/g/b.svg")))
            self.assertIsNone(merged.gather([(shards[0], dict(explain=None))], [], out))


PERF_SCRIPT = """hotbench  3497 
\t    3de76 swar_parse (inlined)
\t    3de76 batch_swar_once (/src/hotbench)
\t    2d6ee [unknown] (/usr/lib/x86_64-linux-gnu/libbenchmark.so.1.7.1)
\t    135db hb_main (/src/hotbench)
\tffffffffffffffff [unknown] ([unknown])

hotbench  3497 
\tffffffff81704da2 __d_lookup_rcu ([kernel.kallsyms])
\t    135db hb_main (/src/hotbench)

hotbench  3497 
\t    3de76 swar_parse (inlined)
\t    3de76 batch_swar_once (/src/hotbench)
\t    2d6ee [unknown] (/usr/lib/x86_64-linux-gnu/libbenchmark.so.1.7.1)
\t    135db hb_main (/src/hotbench)
"""


class Perf(unittest.TestCase):
    def test_fold_perf_script(self):
        st = perf.fold(PERF_SCRIPT.splitlines())
        self.assertEqual(st, {
            ("hb_main", "[libbenchmark.so.1.7.1]", "batch_swar_once", "swar_parse"): 2,
            ("hb_main", "__d_lookup_rcu_[k]"): 1})

    def test_reasons(self):
        err = ("Error:\nAccess to performance monitoring and observability operations is "
               "limited.\nConsider adjusting /proc/sys/kernel/perf_event_paranoid setting\n")
        self.assertIn("perf_event_paranoid", perf.first_reason(err))
        self.assertEqual(perf.first_reason(""), "no output")


class Flame(unittest.TestCase):
    def test_frames_titles_and_colours(self):
        base = {("main", "parse"): 80.0, ("main",): 20.0}
        head = {("main", "parse"): 80.0, ("main", "parse", "memchr"): 20.0, ("main",): 20.0,
                ("main", "vector<int> f<a&b>"): 5.0}
        svg = flame.render(head, base, "g/s: regressed", "a subtitle", unit="Ir")
        self.assertIn("<title>memchr\nhead, this stack: 20 Ir", svg)
        self.assertIn("(new: not in the base)", svg)
        self.assertIn("vector&lt;int&gt; f&lt;a&amp;b&gt;", svg)  # escaped
        self.assertNotIn("<int>", svg)
        # memchr, the largest change, full red; parse, unchanged, neutral
        red, neutral = flame.mix(1.0), flame.mix(0.0)
        self.assertRegex(svg, r"<title>memchr\n[^<]*</title><rect [^>]*fill=\"%s\"" %
                         re.escape(red))
        self.assertRegex(svg, r"<title>parse\n[^<]*</title><rect [^>]*fill=\"%s\"" %
                         re.escape(neutral))
        # the widths are the head's: parse (100 of 125) is 0.8 of the root's
        widths = {m.group(1): float(m.group(2)) for m in re.finditer(
            r"<title>([^\n<]+)\n[^<]*</title><rect x=\"[\d.]+\" y=\"\d+\" width=\"([\d.]+)\"",
            svg)}
        self.assertAlmostEqual(widths["parse"] / widths["all"], 100 / 125, places=2)

    def test_gone_and_faster(self):
        svg = flame.render({("m", "a"): 10.0}, {("m", "a"): 30.0, ("m", "old"): 5.0}, "t", "s")
        self.assertIn("1 function only in the base", svg)
        self.assertIn('fill="%s"' % flame.mix(-1.0), svg)  # a: the largest change, fewer
        with self.assertRaises(ValueError):
            flame.render({}, {("m",): 1.0}, "t", "s")


class Markdown(unittest.TestCase):
    def entry(self, **kw):
        e = dict(strategy="g/s", verdict="regressed", benchmark="g/s/n:10", decided_by="time",
                 instructions=dict(base=100.0, head=120.0, change=0.2),
                 functions=[dict(function="f|x", file="cases/x.c", line=12, base=0.0,
                                 head=20.0, change=20.0, share=0.2, status="new")],
                 svg="explain/g/s.svg", perf=None, error=None,
                 source="callgrind only (perf unavailable: no permission)")
        e.update(kw)
        return e

    def test_tables(self):
        md = report.markdown([self.entry()])
        self.assertIn("### `g/s`: regressed", md)
        self.assertIn("callgrind only (perf unavailable: no permission)", md)
        self.assertIn("| `f\\|x` | cases/x.c:12 | 0 | 20 | +20 (+20.00%) | new |", md)
        self.assertIn("`explain/g/s.svg`", md)
        self.assertEqual(report.markdown([]), "")
        self.assertEqual(report.text_lines(None), [])
        md = report.markdown([self.entry(error="callgrind stopped after 60 s")])
        self.assertIn("No profile: callgrind stopped after 60 s", md)


class Recorded(unittest.TestCase):
    """The dumps of rfc3339/swar/rows:1000 in one hooks build, without and with
    HB_INJECT=parser (tests/fixtures/explain/, paths rewritten to /src/hotbench)."""

    def test_the_injected_function_heads_the_table(self):
        base = callgrind.parse(os.path.join(FIXTURES, "parser.base.callgrind"))[0]
        head = callgrind.parse(os.path.join(FIXTURES, "parser.head.callgrind"))[0]
        rows = diff.rows(base, head, roots=["/src/hotbench"])
        top = rows[0]
        # batch_swar re-parses every fifth timestamp: gcc put that loop in batch_swar.part.0
        self.assertTrue(top["function"].startswith("batch_swar"), top)
        self.assertEqual((top["file"], top["status"]), ("cases/rfc3339/rfc3339.c", "new"))
        self.assertGreater(top["share"], 0.15)
        st = folded.fold(head)
        self.assertAlmostEqual(sum(st.values()), head.total, delta=1e-6 * head.total)
        self.assertIn(top["function"], {f for k in st for f in k})


@unittest.skipUnless(shutil.which("cc") and shutil.which("valgrind"),
                     "needs cc and valgrind (scripts/deps.sh installs both)")
class LibcCallAdded(unittest.TestCase):
    """A head that adds a libc call inside a parser lists that function as new."""

    SOURCE = r"""
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) static int parse(const char *s, size_t n)
{
#ifdef CHECK
    if (memchr(s, '\0', n) != NULL)
        return -1;
#endif
    int v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}
/* called through a volatile pointer: the compiler cannot hoist the pure call out of the loop */
static int (*volatile parse_fn)(const char *, size_t) = parse;
int main(int argc, char **argv)
{
    const char *s = argc > 1 ? argv[1] : "20210304050607123";
    long sum = 0;
    for (int i = 0; i < 2000; i++)
        sum += parse_fn(s, strlen(s));
    printf("%ld\n", sum);
    return 0;
}
"""

    def profile(self, d, label, flags):
        exe = os.path.join(d, label)
        subprocess.run(["cc", "-O2", "-g", "-o", exe, os.path.join(d, "tiny.c")] + flags,
                       check=True)
        out = os.path.join(d, label + ".cg")
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes",
                        "--callgrind-out-file=" + out, exe], check=True,
                       capture_output=True)
        return callgrind.parse(out)[0]

    def test_memchr_is_new(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "tiny.c"), "w") as f:
                f.write(self.SOURCE)
            base, head = self.profile(d, "base", []), self.profile(d, "head", ["-DCHECK"])
            rows = diff.rows(base, head, roots=[d])
        top = rows[0]
        self.assertIn("memchr", top["function"], rows)
        self.assertEqual(top["status"], "new", rows)
        parse_row = [r for r in rows if r["function"] == "parse"]
        self.assertEqual(parse_row[0]["file"], "tiny.c", rows)  # relative, with its line
        self.assertGreater(parse_row[0]["line"], 0)


if __name__ == "__main__":
    unittest.main(verbosity=1)

#!/usr/bin/env python3
"""test_history_page.py - make history's page (scripts/hotbench/history/page.py) on small
databases built here through schema.connect(): the change-point table names the planted shift at
the planted commit, every benchmark has its chart (a PNG next to the page, linked by its anchor),
the page has no script and no http(s) address; a machine change is marked and never reported as
a change point; runs of one commit are pooled; an empty, missing or foreign database and a too
short series give a clear message, not a crash. Correctness only, never timings."""

import argparse
import contextlib
import hashlib
import html.parser
import io
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

import numpy as np  # noqa: E402

from hotbench.history import page, schema, trendcharts, trends  # noqa: E402


def sha(i):
    return hashlib.sha1(b"commit %d" % i).hexdigest()


def build_db(path, commits, benchmarks, machine=lambda i: "m" * 40, runs=lambda i: 1,
             shifts=None, noise=0.01, seed=0, metric="cpu_time", kind=lambda i: "bench",
             factor=lambda i: 1.0):
    """A history database at path: commits commits (commit i one hour after i-1), each with
    runs(i) runs of kind(i) on machine(i), measuring every benchmark {name: base time in s}
    times factor(i); shifts: {(name, commit): relative change from that commit on}; lognormal
    noise. The runs are
    inserted newest first, so the page must order them by commit_time itself."""
    rng = np.random.default_rng(seed)
    con = schema.connect(path)
    con.execute("BEGIN")
    for i in reversed(range(commits)):
        for r in range(runs(i)):
            cur = con.execute(
                "INSERT INTO runs(revision, commit_time, branch, machine, profile, kind,"
                " recorded_at) VALUES (?, ?, 'main', ?, 'quick', ?, ?)",
                (sha(i), "2026-01-%02dT%02d:00:00Z" % (1 + i // 24, i % 24), machine(i), kind(i),
                 "2026-02-01T00:%02d:%02dZ" % (i % 60, r)))
            for name, base in benchmarks.items():
                level = base * factor(i)
                for (b, at), rel in (shifts or {}).items():
                    if b == name and i >= at:
                        level *= 1 + rel
                reps = level * np.exp(rng.normal(0, noise, 3))
                con.execute("INSERT INTO measurements VALUES (?, ?, ?, ?, 's', ?, ?, 3, ?, 1)",
                            (cur.lastrowid, name, metric, float(np.median(reps)),
                             float(reps.min()), float(reps.max()), float(reps.std() / reps.mean())))
    con.execute("COMMIT")
    con.close()


def options(db, out, *extra):
    return page.add_arguments(argparse.ArgumentParser()).parse_args(
        ["--history", db, "--out", out, "--seed", "3"] + list(extra))


def run_page(db, out, *extra):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = page.run(options(db, out, *extra))
    return status, err.getvalue()


class Html(html.parser.HTMLParser):
    """The parts of the page a reader uses: tags seen, ids, links, images, the change-point
    table's rows (cells as text) and every attribute value."""

    def __init__(self):
        super().__init__()
        self.tags, self.ids = set(), set()
        self.hrefs, self.imgs, self.rows, self.attrs = [], [], [], []
        self.text = []
        self._table = 0
        self._row = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        self.attrs += [v for _, v in attrs if v]
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a":
            self.hrefs.append(a.get("href"))
        if tag == "img":
            self.imgs.append(a.get("src"))
        if tag == "table":
            self._table += 1
        if tag == "tr" and self._table:
            self._row = []
        if tag == "td" and self._row is not None:
            self._row.append("")

    def handle_endtag(self, tag):
        if tag == "tr" and self._row:
            self.rows.append(self._row)
        if tag == "tr":
            self._row = None

    def handle_data(self, data):
        self.text.append(data)
        if self._row:
            self._row[-1] += data


def parse(out):
    p = Html()
    with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
        text = f.read()
    p.feed(text)
    return p, text


BENCH = {"fam-a/slow/size:1024": 2e-6, "fam-a/slow/size:65536": 1.3e-4,
         "fam-a/fast/size:1024": 4e-7, "fam-b/one/n:10": 3e-8, "fam-b/two/n:10": 5e-3}


class Page(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.tmp.name, "h.sqlite")
        self.out = os.path.join(self.tmp.name, "page")

    def tearDown(self):
        self.tmp.cleanup()

    def test_planted_shift_listed_at_its_commit(self):
        build_db(self.db, 40, BENCH, shifts={("fam-a/slow/size:65536", 23): 0.15})
        status, err = run_page(self.db, self.out)
        self.assertEqual(status, 0, err)
        p, text = parse(self.out)
        self.assertEqual(len(p.rows), 1, p.rows)  # one change point, in the only table
        pv, shift, levels, commit, bench, _ = [c.strip() for c in p.rows[0]]
        self.assertEqual(bench, "fam-a/slow/size:65536")
        self.assertTrue(commit.startswith(sha(23)[:7]), commit)
        self.assertIn("(after %s)" % sha(22)[:7], commit)
        self.assertAlmostEqual(float(shift.rstrip("%")), 15, delta=2)
        self.assertLessEqual(float(pv), 0.01)
        self.assertRegex(levels, r"^1[23]\d\.\d us → 1[45]\d\.\d us$")
        # the row links to the benchmark's chart, and every benchmark has one, on disk
        anchor = [h for h in p.hrefs if h and h.startswith("#b-")]
        self.assertIn("#" + trends_anchor(p, "fam-a/slow/size:65536"), anchor)
        self.assertEqual(len(p.imgs), len(BENCH))
        for src in p.imgs:
            path = os.path.join(self.out, src)
            self.assertTrue(os.path.isfile(path), src)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        for h in p.hrefs:
            if h.startswith("#"):
                self.assertIn(h[1:], p.ids, h)
        self.assertEqual(family_headings(p), ["fam-a", "fam-b"])

    def test_no_script_no_network(self):
        build_db(self.db, 12, BENCH)
        self.assertEqual(run_page(self.db, self.out)[0], 0)
        p, text = parse(self.out)
        self.assertNotIn("script", p.tags)
        self.assertNotIn("<script", text.lower())
        self.assertNotRegex(text.lower(), r"https?:")
        for v in p.attrs:
            self.assertFalse(v.lower().startswith(("http:", "https:", "//", "javascript:")), v)
            self.assertFalse(v.lower().startswith("on"), v)

    def test_machine_change_is_no_change_point(self):
        # a new machine 30% slower from commit 20 on: marked, never listed; a real +20% step on
        # the new machine at commit 32 is listed
        build_db(self.db, 44, {"fam/x/n:1": 1e-6},
                 machine=lambda i: ("a" if i < 20 else "b") * 40,
                 shifts={("fam/x/n:1", 20): 0.30, ("fam/x/n:1", 32): 0.20})
        self.assertEqual(run_page(self.db, self.out)[0], 0)
        p, _ = parse(self.out)
        self.assertEqual([r[3].split()[0] for r in p.rows], [sha(32)[:7]])
        con = schema.connect(self.db)
        commits, ts, _ = trends.load(con, "cpu_time")
        con.close()
        self.assertEqual(trends.setup_changes(ts[0]), [(19, 20, "b" * 40 + "|quick|run")])

    def test_compare_figures_are_their_own_setup(self):
        # from commit 20 on, a compare records the figures, and its figure (the least repetition
        # of each process) runs 8% lower: two setups, a setup change, no change point (pooled,
        # the switch would be listed as an 8% speed-up at commit 20)
        build_db(self.db, 40, {"fam/x/n:1": 1e-6}, kind=lambda i: "compare" if i >= 20 else
                 "bench", factor=lambda i: 0.92 if i >= 20 else 1.0)
        self.assertEqual(run_page(self.db, self.out)[0], 0)
        p, text = parse(self.out)
        self.assertEqual(p.rows, [])
        self.assertIn("mmmmmmmm quick compare", "".join(p.text))
        con = schema.connect(self.db)
        _, ts, _ = trends.load(con, "cpu_time")
        con.close()
        self.assertEqual(trends.setup_changes(ts[0]), [(19, 20, "m" * 40 + "|quick|compare")])

    def test_runs_of_a_commit_pooled(self):
        build_db(self.db, 12, {"fam/x/n:1": 1e-6}, runs=lambda i: 1 + i % 3)
        con = schema.connect(self.db)
        commits, ts, _ = trends.load(con, "cpu_time")
        rows = con.execute("SELECT m.value, m.lower, m.upper FROM measurements m JOIN runs r ON"
                           " r.id = m.run_id WHERE r.revision = ?", (sha(5),)).fetchall()
        con.close()
        self.assertEqual([c.revision for c in commits], [sha(i) for i in range(12)])
        pt = ts[0].points[5]
        self.assertEqual((pt.x, pt.runs), (5, 3))
        self.assertEqual(pt.value, float(np.median([r[0] for r in rows])))
        self.assertEqual((pt.lower, pt.upper), (min(r[1] for r in rows), max(r[2] for r in rows)))

    def test_commit_order_and_dirty_trees(self):
        # rows: (revision, commit_time, recorded_at, why) inserted in this order; expected order
        # below: by commit time, then first recording; no commit time: its recording time
        rows = [("c3", "2026-03-01T10:00:00Z", "2026-03-09T00:00:00Z", "latest commit"),
                ("c1", "2026-03-01T08:00:00+00:00", "2026-03-09T00:00:00Z", "offset form"),
                ("c2b", "2026-03-01T09:00:00Z", "2026-03-05T00:00:02Z", "same time, later"),
                ("c2a", "2026-03-01T09:00:00Z", "2026-03-05T00:00:01Z", "same time, earlier"),
                ("c0", None, "2026-02-01T00:00:00Z", "no commit time: when recorded"),
                ("c9-dirty", "2026-03-02T00:00:00Z", "2026-03-10T00:00:00Z", "modified tree")]
        con = schema.connect(self.db)
        for rev, ctime, rec, _ in rows:
            rid = con.execute("INSERT INTO runs(revision, commit_time, machine, profile, kind,"
                              " recorded_at) VALUES (?, ?, 'm', 'full', 'bench', ?)",
                              (rev, ctime, rec)).lastrowid
            con.execute("INSERT INTO measurements(run_id, benchmark, metric, value, unit) "
                        "VALUES (?, 'f/s/n:1', 'cpu_time', 1e-6, 's')", (rid,))
        commits, ts, dirty = trends.load(con, "cpu_time")
        con.close()
        self.assertEqual([c.revision for c in commits], ["c0", "c1", "c2a", "c2b", "c3"])
        self.assertEqual(dirty, 1)
        self.assertEqual(run_page(self.db, self.out)[0], 0)
        self.assertIn("no commit): 1.", "".join(parse(self.out)[0].text))

    def test_shift_in_the_newest_or_first_commits_listed_at_its_commit(self):
        # 2x in the last 4 of 40 commits, and 2x in the first 4 (from commit 4 on, half): the
        # search's split cannot lie nearer an end than --min-size (5), so before the location
        # was refined both were listed at a commit still at the old level (35, and 5); now at
        # 36 and 4, with the medians of the refined segments
        tail, head = "fam/tail/n:1", "fam/head/n:1"
        build_db(self.db, 40, {tail: 1e-6, head: 2e-6},
                 shifts={(tail, 36): 1.0, (head, 4): -0.5})
        self.assertEqual(run_page(self.db, self.out)[0], 0)
        rows = {r[4].strip(): r for r in parse(self.out)[0].rows}
        self.assertEqual(sorted(rows), [head, tail])
        for name, at in ((tail, 36), (head, 4)):
            commit = rows[name][3].strip()
            self.assertTrue(commit.startswith(sha(at)[:7]), (name, commit))
            self.assertIn("(after %s)" % sha(at - 1)[:7], commit)
        con = schema.connect(self.db)
        _, ts, _ = trends.load(con, "cpu_time")
        con.close()
        for t in ts:
            (s,) = trends.detect(t, 0.01, 199, 5, seed=3).shifts
            v = [p.value for p in t.points]
            at = 36 if t.benchmark == tail else 4
            self.assertEqual((s.x, s.previous), (at, at - 1))
            self.assertEqual((s.before, s.after), (np.median(v[:at]), np.median(v[at:])))
            self.assertAlmostEqual(s.relative, 1.0 if t.benchmark == tail else -0.5, delta=0.03)

    def test_unknown_revisions_left_out(self):
        # three builds outside git (revision "unknown", 1, 2 and 3 us) were pooled into one
        # commit "unknown" (median 2 us, 3 runs); now left out like -dirty runs, and counted
        build_db(self.db, 12, {"fam/x/n:1": 1e-6})
        con = schema.connect(self.db)
        for i, rev in enumerate(("unknown", "unknown", "unknown", "c-dirty")):
            rid = con.execute("INSERT INTO runs(revision, commit_time, machine, profile, kind,"
                              " recorded_at) VALUES (?, NULL, ?, 'quick', 'bench', ?)",
                              (rev, "m" * 40, "2026-03-0%dT00:00:00Z" % (i + 1))).lastrowid
            con.execute("INSERT INTO measurements(run_id, benchmark, metric, value, unit) "
                        "VALUES (?, 'fam/x/n:1', 'cpu_time', ?, 's')", (rid, (i + 1) * 1e-6))
        con.commit()
        commits, ts, left_out = trends.load(con, "cpu_time")
        con.close()
        self.assertEqual([c.revision for c in commits], [sha(i) for i in range(12)])
        self.assertEqual((len(ts[0].points), left_out), (12, 4))
        self.assertEqual(run_page(self.db, self.out)[0], 0)
        text = " ".join(" ".join(parse(self.out)[0].text).split())
        self.assertIn("Runs of modified trees or unknown revisions left out", text)
        self.assertIn("no commit): 4.", text)

    def test_long_benchmark_names(self):
        # a 300-character name gave OSError "File name too long" and no page; two long names
        # that differ only after the kept prefix must not share a chart file
        names = {"fam/" + "x" * 296: 1e-6, "fam/" + "y" * 295 + "1": 2e-6,
                 "fam/" + "y" * 295 + "2": 3e-6}
        build_db(self.db, 12, names)
        self.assertEqual(run_page(self.db, self.out)[0], 0)
        p, _ = parse(self.out)
        self.assertEqual(len(set(p.imgs)), 3, p.imgs)
        for src in p.imgs:
            self.assertLessEqual(len(os.path.basename(src)), 120, src)
            self.assertTrue(os.path.isfile(os.path.join(self.out, src)), src)
        self.assertEqual(len(os.listdir(os.path.join(self.out, "charts"))), 3)
        self.assertEqual(page.chart_file("b-fam-x"), "b-fam-x.png")  # short names unchanged

    def test_too_few_points_says_so(self):
        build_db(self.db, 6, {"fam/x/n:1": 1e-6}, shifts={("fam/x/n:1", 3): 1.0})
        self.assertEqual(run_page(self.db, self.out, "--min-size", "5")[0], 0)
        p, text = parse(self.out)
        self.assertEqual(p.rows, [])
        self.assertIn("6 points on mmmmmmmm quick: change points need 10", "".join(p.text))
        self.assertEqual(len(p.imgs), 1)

    def test_empty_missing_and_foreign_databases(self):
        schema.connect(self.db).close()
        status, err = run_page(self.db, self.out)
        self.assertEqual(status, 0)
        self.assertIn("no cpu_time measurements", err)
        self.assertIn("no cpu_time measurements", "".join(parse(self.out)[0].text))
        status, err = run_page(os.path.join(self.tmp.name, "none.sqlite"), self.out)
        self.assertEqual(status, 1)
        self.assertIn("no history database", "".join(parse(self.out)[0].text))
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "none.sqlite")))
        bad = os.path.join(self.tmp.name, "bad.sqlite")
        with open(bad, "w") as f:
            f.write("not a database\n" * 100)
        self.assertEqual(run_page(bad, self.out)[0], 2)

    def test_filter_metric_and_bad_options(self):
        build_db(self.db, 12, BENCH)
        self.assertEqual(run_page(self.db, self.out, "--filter", "^fam-b/")[0], 0)
        self.assertEqual(len(parse(self.out)[0].imgs), 2)
        self.assertEqual(len(os.listdir(os.path.join(self.out, "charts"))), 2)  # stale removed
        status, err = run_page(self.db, self.out, "--metric", "instructions")
        self.assertEqual(status, 0)
        self.assertIn("metrics recorded: cpu_time", err)
        self.assertEqual(run_page(self.db, self.out, "--branch", "main", "--profile", "quick")[0],
                         0)
        self.assertEqual(len(parse(self.out)[0].imgs), len(BENCH))
        status, err = run_page(self.db, self.out, "--branch", "topic")
        self.assertIn("no cpu_time measurements (branch topic)", err)
        for bad in (["--filter", "("], ["--alpha", "0.001"], ["--min-size", "1"],
                    ["--seed", "-1"], ["--exponent", "2"]):
            self.assertEqual(run_page(self.db, self.out, *bad)[0], 2, bad)
        with self.assertRaises((argparse.ArgumentError, SystemExit)):  # a typo is a usage error
            with contextlib.redirect_stderr(io.StringIO()):
                options(self.db, self.out, "--metric", "cpu-time")


class Charts(unittest.TestCase):
    def test_scale_and_units(self):
        # rows: (medians, log axis?, why)
        for values, log, why in (([1e-6, 1.5e-6, 2e-6], False, "a 2x change stays linear"),
                                 ([1e-6, 5e-8], True, "a 20x speed-up: log"),
                                 ([0.0, 5.0], False, "a zero cannot go on a log axis"),
                                 ([], False, "nothing to draw")):
            self.assertEqual(trendcharts.log_scale(values), log, why)
        # rows: (unit, values, factor, label)
        for unit, values, k, label in (("s", [3e-8], 1e9, "ns"), ("s", [2e-4], 1e6, "us"),
                                       ("s", [0.02], 1e3, "ms"), ("s", [4.0], 1.0, "s"),
                                       ("instructions", [1e6], 1.0, "instructions")):
            got = trendcharts.time_scale(unit, values)
            self.assertEqual(got[1], label)
            self.assertAlmostEqual(got[0], k)

    def test_a_twenty_fold_speedup_drawn_on_a_log_axis(self):
        # the page draws it without error and lists the -95% shift
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        db, out = os.path.join(tmp.name, "h.sqlite"), os.path.join(tmp.name, "p")
        build_db(db, 20, {"fam/x/n:1": 1e-6}, shifts={("fam/x/n:1", 10): -0.95})
        self.assertEqual(run_page(db, out)[0], 0)
        (row,) = parse(out)[0].rows
        self.assertAlmostEqual(float(row[1].rstrip("%")), -95.0, delta=0.5)
        self.assertTrue(row[3].startswith(sha(10)[:7]))


def trends_anchor(p, name):
    """The id of the figure whose caption names the benchmark (found through the links)."""
    want = "b-" + name.replace("/", "-").replace(":", "-")
    return want if want in p.ids else ""


def family_headings(p):
    i = p.text.index("Benchmarks")
    return [t for t in p.text[i:] if t in ("fam-a", "fam-b")][:2]


if __name__ == "__main__":
    unittest.main()

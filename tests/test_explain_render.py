#!/usr/bin/env python3
"""test_explain_render.py - the explanation's flame graph (scripts/hotbench/compare/explain/
flame.py, issue 32) opens in a browser: the SVG made from the recorded HB_INJECT=parser dumps
(tests/fixtures/explain/) is loaded by headless Chromium, whose DOM (--dump-dom) must be the SVG,
without a parser error, with a frame (its <title> and its label) for each expected function; a
screenshot of it must show the injected function's frame in red beside unchanged (neutral)
frames. Skipped (77), saying so, where no headless Chromium is installed (scripts/deps.sh
installs chromium-headless-shell or chromium where the distribution packages one)."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts"))

from hotbench.compare.explain import callgrind, diff, flame, folded  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures", "explain")
SKIP = 77
# (binary, the arguments that make it headless): the headless shell is headless already
BROWSERS = (("chromium-headless-shell", []), ("chromium", ["--headless"]))


def browser():
    """The command prefix of an installed headless Chromium, or None. --no-sandbox: the tests
    run as root in CI containers, where Chromium refuses its sandbox."""
    for name, extra in BROWSERS:
        path = shutil.which(name)
        if path:
            return [path] + extra + ["--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    return None


def make_svg(path):
    """The differential flame graph of the recorded dumps, as core.py draws it; the table's
    first function (the injected one)."""
    base = callgrind.parse(os.path.join(FIXTURES, "parser.base.callgrind"))[0]
    head = callgrind.parse(os.path.join(FIXTURES, "parser.head.callgrind"))[0]
    flame.write(path, folded.fold(head), folded.fold(base), "rfc3339/swar: regressed",
                "recorded HB_INJECT=parser dumps", unit="instructions")
    return diff.rows(base, head)[0]["function"]


class Render(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="hb-explain-render-")
        cls.cmd = browser() + ["--user-data-dir=" + os.path.join(cls.dir, "profile")]
        cls.svg = os.path.join(cls.dir, "flame.svg")
        cls.top = make_svg(cls.svg)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def run_browser(self, *args):
        p = subprocess.run(self.cmd + list(args) + ["file://" + self.svg], capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        return p.stdout

    def test_dom_holds_the_frames(self):
        dom = self.run_browser("--dump-dom")
        self.assertIn("<svg", dom)
        self.assertNotIn("parsererror", dom)
        self.assertNotIn("This page contains the following errors", dom)
        for name in (self.top, "batch_swar_once", "batch_swar", "time_set"):
            self.assertIn("<title>%s\n" % name, dom, name)
        self.assertIn(">%s</text>" % self.top, dom)  # wide enough for its label

    def test_screenshot_shows_red_and_neutral_frames(self):
        import matplotlib.image as mpimg
        png = os.path.join(self.dir, "shot.png")
        self.run_browser("--screenshot=" + png, "--window-size=1200,300")
        px = mpimg.imread(png)[..., :3]
        r, g, b = px[..., 0], px[..., 1], px[..., 2]
        red = ((r > 0.8) & (g < 0.3) & (b < 0.3)).sum()
        nr, ng, nb = (c / 255.0 for c in flame.NEUTRAL)
        neutral = ((abs(r - nr) < 0.02) & (abs(g - ng) < 0.02) & (abs(b - nb) < 0.02)).sum()
        self.assertGreater(red, 1000, "the injected function's frame is not drawn red")
        self.assertGreater(neutral, 10 * red, "the unchanged frames are not drawn neutral")


if __name__ == "__main__":
    if browser() is None:
        print("SKIP: no headless Chromium (chromium-headless-shell or chromium) is installed; "
              "scripts/deps.sh installs one where the distribution packages it", flush=True)
        sys.exit(SKIP)
    unittest.main(verbosity=1)

"""trendcharts - one small PNG per benchmark for the history page: the median per commit with its
spread (the band from the least to the greatest repetition), one colour per setup (machine,
profile, method: trends.py; the page lists them, no legend per chart), a dotted grey line where
the setup changes, a red line at
each change point and the segment medians dashed. Matplotlib's Agg backend through
hotbench.style (the report's one chart style), saved with a 64-colour palette to keep the page
light (300 charts: ~2.5 MB).

Scale: linear, unless the medians span more than a factor of 10 (a benchmark made 20x faster):
then logarithmic, and the axis says so. Times (unit 's') are shown in ns, us, ms or s, whichever
suits the series' median.
"""

import io
import os

import matplotlib
import numpy as np
from PIL import Image  # python3-pil, a dependency of python3-matplotlib

from ..style import plt
from .trends import setup_changes

SETUP_COLOURS = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"]
LOG_SPAN = 10.0  # medians spanning more than this factor get a log axis
SIZE = (5.2, 2.1)  # inches; at DPI dots per inch: 416 x 168 pixels
DPI = 80
COLOURS = 64  # the PNG's palette: ~8 kB a chart instead of ~30 kB in full colour


def time_scale(unit, values):
    """(factor, label) that shows values (in unit) readably: unit 's' -> ns/us/ms/s chosen by the
    median of values; any other unit unchanged (factor 1)."""
    if unit != "s" or len(values) == 0:
        return 1.0, unit
    med = float(np.median(np.abs(values)))
    for label, f in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if med >= f:
            return 1.0 / f, label
    return 1e9, "ns"


def log_scale(values):
    """True when a chart of values (medians, one unit) needs a log axis: all positive and
    spanning more than LOG_SPAN (a 20x speed-up would flatten everything else)."""
    v = np.asarray(values, dtype=float)
    return bool(len(v) and np.all(v > 0) and v.max() / v.min() > LOG_SPAN)


def draw(trend, commits, path, setup_colour):
    """Draws trend (trends.Trend with its shifts) against commits (list of trends.Commit, the
    whole x axis) into the PNG file path (its folder created). setup_colour(setup) -> a
    colour, the same on every chart. Returns the file's base name; draws an empty frame with
    a sentence when the trend has no point."""
    fig, ax = plt.subplots(figsize=SIZE)
    buf = io.BytesIO()
    try:
        _draw(ax, trend, commits, setup_colour)
        with matplotlib.rc_context({"savefig.bbox": "standard"}):  # the size the page states
            fig.savefig(buf, format="png", dpi=DPI)
    finally:
        plt.close(fig)
    buf.seek(0)
    with Image.open(buf) as im:
        q = im.convert("RGB").quantize(COLOURS, method=Image.Quantize.FASTOCTREE,
                                       dither=Image.Dither.NONE)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    q.save(path, "PNG")
    return os.path.basename(path)


def _draw(ax, trend, commits, setup_colour):
    pts = trend.points
    if not pts:
        ax.text(0.5, 0.5, "no measurement", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    x = np.array([p.x for p in pts])
    k, label = time_scale(trend.unit, [p.value for p in pts])
    for setup in sorted({p.setup for p in pts}):
        sel = [i for i, p in enumerate(pts) if p.setup == setup]
        c = setup_colour(setup)
        med = np.array([pts[i].value for i in sel]) * k
        ax.fill_between(x[sel], [pts[i].lower * k for i in sel], [pts[i].upper * k for i in sel],
                        color=c, alpha=0.18, lw=0, step=None)
        ax.plot(x[sel], med, "o-", ms=2.2, lw=0.9, color=c)
        _segments(ax, trend, pts, sel, k)
    for before, after, _ in setup_changes(trend):
        ax.axvline((before + after) / 2, color="0.45", ls=":", lw=1.0)
    for s in trend.shifts:
        ax.axvline((s.previous + s.x) / 2, color="#d62728", lw=1.1, alpha=0.85)
    if log_scale([p.value for p in pts]):
        ax.set_yscale("log")
        label += ", log scale"
    _axes(ax, x, commits, label)


def _segments(ax, trend, pts, sel, k):
    """The median of each segment between change points of one setup, dashed."""
    setup = pts[sel[0]].setup
    cuts = [s.x for s in trend.shifts if s.setup == setup]
    if not cuts:
        return
    xs = np.array([pts[i].x for i in sel])
    vs = np.array([pts[i].value for i in sel]) * k
    edges = [xs[0]] + cuts + [xs[-1] + 1]
    for a, b in zip(edges[:-1], edges[1:]):
        m = (xs >= a) & (xs < b)
        if m.any():
            ax.hlines(np.median(vs[m]), xs[m][0], xs[m][-1], colors="#d62728", linestyles="--",
                      lw=0.9)


def _axes(ax, x, commits, ylabel):
    lo, hi = int(x.min()), int(x.max())
    ax.set_xlim(lo - 0.5, hi + 0.5)
    ticks = np.unique(np.linspace(lo, hi, min(6, hi - lo + 1)).round().astype(int))
    ax.set_xticks(ticks)
    ax.set_xticklabels(["%s\n%s" % (commits[t].short()[:7], commits[t].date()[2:])
                        for t in ticks], fontsize=6)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_ylabel(ylabel, fontsize=7)
    ax.grid(True, lw=0.3, alpha=0.5)
    ax.margins(y=0.08)
    ax.figure.subplots_adjust(left=0.11, right=0.955, top=0.97, bottom=0.2)

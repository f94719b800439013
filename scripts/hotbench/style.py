"""style - the one chart style of every report section: matplotlib's Agg backend, one set of
fonts, one colour per strategy kept across charts, the files each chart is written as.

    from hotbench.style import plt, colour, save, configure
    fig, ax = plt.subplots(...)
    ...
    png = save(fig, "results/charts/<stem>")     writes <stem>.png and <stem>.svg

Run under /usr/bin/python3 (Debian's python3-matplotlib).
"""

import functools
import inspect
import os

# The files each chart is written as; the report's --chart-formats and --dpi change them (tests
# draw PNG only, at a low resolution). An empty tuple: charts are drawn, no file is written.
FORMATS = ("png", "svg")
DPI = None  # None: matplotlib's savefig.dpi (figure.dpi below)


@functools.lru_cache(maxsize=None)
def _pyplot():
    """matplotlib.pyplot on the Agg backend with the style below, imported on first use: the
    import takes a quarter of a second, which every script's --help and every chart-less run
    would otherwise pay."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    pyplot.rcParams.update({"font.size": 9, "legend.fontsize": 7.5, "axes.titlesize": 10,
                            "figure.dpi": 110, "savefig.bbox": "tight",
                            "svg.hashsalt": "hotbench"})  # SVG ids the same from run to run
    if DPI:
        pyplot.rcParams["savefig.dpi"] = DPI
    return pyplot


class _LazyPyplot:
    """Stands for matplotlib.pyplot (`from hotbench.style import plt`; plt.subplots(...)): each
    attribute is pyplot's, the module imported at the first one."""

    def __getattr__(self, name):
        return getattr(_pyplot(), name)


plt = _LazyPyplot()
_colours = {}


@functools.lru_cache(maxsize=None)
def _palette():
    """Distinct hues: tab10, then black, dark gold, navy, lime, maroon (no two shades of one
    hue)."""
    return list(_pyplot().get_cmap("tab10").colors) + ["#000000", "#b8860b", "#000080",
                                                       "#7fff00", "#800000"]


def configure(formats=None, dpi=None):
    """Sets the chart formats (a sequence of "png", "svg"; "none" alone: write nothing) and the
    PNG resolution (dots per inch) for every chart drawn after the call."""
    global FORMATS, DPI
    if formats:
        FORMATS = tuple(f for f in formats if f != "none")
    if dpi:
        DPI = dpi
        if _pyplot.cache_info().currsize:
            _pyplot().rcParams["savefig.dpi"] = dpi


def colour(strategy):
    """A stable colour per strategy name, the same in every chart of a report."""
    if strategy not in _colours:
        _colours[strategy] = _palette()[len(_colours) % len(_palette())]
    return _colours[strategy]


def horizontal(plot):
    """The keyword arguments that make `plot`, a bound Axes.boxplot, Axes.bxp or
    Axes.violinplot, draw horizontally: {"orientation": "horizontal"} where the method takes
    `orientation` (matplotlib 3.10 on, where `vert` is pending deprecation), else
    {"vert": False} (matplotlib 3.6 to 3.9). A feature test of the installed matplotlib, not a
    version comparison."""
    if "orientation" in inspect.signature(plot).parameters:
        return {"orientation": "horizontal"}
    return {"vert": False}


def save(fig, stem, tight_layout=False):
    """Writes fig as <stem>.<format> for each configured format (creating the folder), closes it
    and returns the PNG's file name (relative to its folder). SVGs carry no date, so the same data
    gives the same file."""
    if tight_layout and FORMATS:
        fig.tight_layout()
    if FORMATS:
        os.makedirs(os.path.dirname(stem) or ".", exist_ok=True)
    for ext in FORMATS:
        fig.savefig(stem + "." + ext, metadata={"Date": None} if ext == "svg" else None)
    plt.close(fig)
    return os.path.basename(stem) + ".png"

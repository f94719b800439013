"""page - `make history`: the static trend page results/history/index.html (issue 14, item 3).

One chart per benchmark over commits (trendcharts.py), the change points of each found by
E-divisive means with a permutation test (changepoints.py, trends.py), and at the top a table of
every change point across benchmarks. Plain HTML and PNG files next to it: no script, no network.
scripts/history.py calls add_arguments(parser) and run(args); docs/history-page.md describes the
page, the method and its parameters.
"""

import hashlib
import os
import re
import sqlite3
import sys
import time

from . import pagehtml, schema, trendcharts, trends


def add_arguments(parser):
    """Adds the page's options to an argparse parser (the `page` subcommand of history.py)."""
    # HB_HISTORY: the database's path for every history command (scripts/history.py)
    parser.add_argument("--history", default=os.environ.get("HB_HISTORY") or
                        "results/history.sqlite", metavar="PATH",
                        help="the history database (default: $HB_HISTORY, else "
                             "results/history.sqlite)")
    parser.add_argument("--out", default="results/history", metavar="DIR",
                        help="the page's folder: index.html and charts/ (default: %(default)s)")
    parser.add_argument("--metric", default="cpu_time",
                        choices=("cpu_time", "real_time", "instructions", "ratio"),
                        help="the metric charted (default: %(default)s; docs/history.md)")
    parser.add_argument("--alpha", type=float, default=0.01,
                        help="significance level of each change point's permutation test "
                             "(default: %(default)s)")
    parser.add_argument("--permutations", type=int, default=199,
                        help="permutations per test; p-values are multiples of 1/(N+1) "
                             "(default: %(default)s)")
    parser.add_argument("--min-size", type=int, default=5,
                        help="fewest commits on either side of the search's split; a change "
                             "point found may then be moved nearer an end (default: "
                             "%(default)s)")
    parser.add_argument("--exponent", type=float, default=1.0,
                        help="the divergence's exponent, in (0, 2) (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the permutations (default: %(default)s)")
    parser.add_argument("--filter", metavar="REGEX",
                        help="only benchmarks whose name matches (re.search)")
    parser.add_argument("--profile", help="only runs of this profile (default: every profile)")
    parser.add_argument("--branch", help="only runs recorded on this branch, e.g. main (default: "
                                         "every branch, commits ordered by time)")
    return parser


def run(args):
    """Writes <args.out>/index.html and <args.out>/charts/*.png from the database args.history.
    Returns 0 (a page written, possibly saying there is nothing to show), 1 when the database
    is missing, 2 on an unreadable database or bad options (message on stderr)."""
    problem = _check(args)
    if problem:
        print("history page: " + problem, file=sys.stderr)
        return 2
    if not os.path.exists(args.history):
        msg = ("no history database at %s: record runs first (make bench, make history-import)"
               % args.history)
        _write(args.out, pagehtml.empty_page(msg))
        print("history page: " + msg, file=sys.stderr)
        return 1
    start = time.monotonic()
    try:
        con = schema.connect(args.history, create=False)
    except schema.SchemaError as e:
        print("history page: %s" % e, file=sys.stderr)
        return 2
    try:
        commits, series, dirty = trends.load(con, args.metric, args.filter, args.profile,
                                             args.branch)
        metrics = [r[0] for r in con.execute("SELECT DISTINCT metric FROM measurements")]
    except sqlite3.Error as e:
        print("history page: %s: %s" % (args.history, e), file=sys.stderr)
        return 2
    finally:
        con.close()
    if not series:
        only = ["benchmarks matching %r" % args.filter] if args.filter else []
        only += ["%s %s" % (k, v) for k, v in (("profile", args.profile),
                                               ("branch", args.branch)) if v]
        msg = "no %s measurements%s in %s (metrics recorded: %s)" % (
            args.metric, " (%s)" % ", ".join(only) if only else "", args.history,
            ", ".join(sorted(metrics)) or "none")
        _write(args.out, pagehtml.empty_page(msg))
        print("history page: " + msg, file=sys.stderr)
        return 0
    shifts = trends.detect_all(series, args.alpha, args.permutations, args.min_size,
                               args.exponent, args.seed, progress=_progress)
    colours = _setup_colours(series)
    charts = _draw_all(series, commits, args.out, colours)
    _write(args.out, pagehtml.page(args, commits, series, shifts, charts, dirty, colours))
    print("history page: %s: %d benchmark%s, %d commit%s, %d change point%s (%.0f s)" % (
        os.path.join(args.out, "index.html"), len(series), "s"[:len(series) != 1],
        len(commits), "s"[:len(commits) != 1], len(shifts), "s"[:len(shifts) != 1],
        time.monotonic() - start))
    return 0


def _check(args):
    try:
        re.compile(args.filter or "")
    except re.error as e:
        return "--filter %r: %s" % (args.filter, e)
    if not 0 < args.alpha < 1:
        return "--alpha must lie in (0, 1)"
    if args.permutations < 1 or args.min_size < 2:
        return "--permutations must be >= 1 and --min-size >= 2"
    if not 0 < args.exponent < 2:
        return "--exponent must lie in (0, 2)"
    if args.seed < 0:
        return "--seed must be >= 0"
    if args.alpha * (args.permutations + 1) < 1:
        return ("--alpha %g cannot be reached with %d permutations (the least p-value is "
                "1/%d)" % (args.alpha, args.permutations, args.permutations + 1))
    return None


def _progress(text):
    print("history page: " + text, file=sys.stderr, flush=True)


def _draw_all(series, commits, out, colours):
    """Draws every chart into out/charts (removing PNGs of earlier pages that are not redrawn);
    returns {benchmark: (anchor, file name relative to out)}."""
    folder = os.path.join(out, "charts")
    names, used = {}, set()
    start = last = time.monotonic()
    for i, t in enumerate(series):
        anchor = _anchor(t.benchmark, used)
        f = trendcharts.draw(t, commits, os.path.join(folder, chart_file(anchor)),
                             colours.get)
        names[t.benchmark] = (anchor, "charts/" + f)
        now = time.monotonic()
        if now - last >= 10:
            _progress("charts: %d/%d, %.0f s" % (i + 1, len(series), now - start))
            last = now
    keep = {f.split("/", 1)[1] for _, f in names.values()}
    for f in os.listdir(folder):
        if f.endswith(".png") and f not in keep:
            os.remove(os.path.join(folder, f))
    return names


def _setup_colours(series):
    """{setup: colour}, in the order the setups first appear on the x axis."""
    first = {}
    for t in series:
        for p in t.points:
            first[p.setup] = min(first.get(p.setup, p.x), p.x)
    pal = trendcharts.SETUP_COLOURS
    return {m: pal[i % len(pal)] for i, m in enumerate(sorted(first, key=lambda m: (first[m], m)))}


MAX_STEM = 100  # a chart file's name without '.png'; file systems allow 255 bytes


def chart_file(anchor):
    """The PNG file name (str) of the chart of a benchmark whose anchor (_anchor: unique on the
    page, ASCII) is given: anchor + '.png' when the anchor has at most MAX_STEM characters, else
    its first 80, '-', and 16 hex digits of its SHA-256 (distinct anchors, distinct names; a
    300-character benchmark name gave OSError 'File name too long')."""
    if len(anchor) <= MAX_STEM:
        return anchor + ".png"
    return "%s-%s.png" % (anchor[:80], hashlib.sha256(anchor.encode()).hexdigest()[:16])


def _anchor(name, used):
    base = "b-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")
    a, n = base, 2
    while a in used:
        a, n = "%s-%d" % (base, n), n + 1
    used.add(a)
    return a


def _write(out, text):
    """Writes out/index.html atomically (a reader never sees half a page)."""
    os.makedirs(out, exist_ok=True)
    tmp = os.path.join(out, ".index.html.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, os.path.join(out, "index.html"))

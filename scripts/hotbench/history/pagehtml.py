"""pagehtml - the HTML of the history page: the head and style, the summary of the method, the
table of every change point, the setups (machine, profile, method), and one section per
benchmark family with its charts.
Static HTML only: no script, no external resource (the charts are PNG files in charts/).

Families come from the names alone: a benchmark `family/strategy/params` belongs to `family`
(the text before the first '/'); no case is known here by name.
"""

import html
import re

from ..units import fmt_time4
from .trends import setup_label

# every metric of the schema (cpu_time, real_time, instructions, ratio) is smaller-is-better:
# a positive shift is a regression
HIGHER_IS_WORSE = True

_STYLE = """
body { font: 14px/1.4 sans-serif; margin: 1.5em; color: #222; max-width: 1800px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.worse { color: #b00; font-weight: bold; } .better { color: #070; font-weight: bold; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(430px, 1fr)); gap: 10px; }
figure { margin: 0; border: 1px solid #e3e3e3; padding: 4px; }
figure:target { outline: 3px solid #f0a000; }
figcaption { font-size: 12px; overflow-wrap: anywhere; }
.note { color: #777; } .cp { color: #b00; }
.empty { font-size: 16px; padding: 1em; background: #fff6d5; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; vertical-align: middle; }
nav a { margin-right: 0.8em; white-space: nowrap; }
"""


def head(title):
    """The page's start: doctype, title (plain text, escaped here) and the style."""
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n<title>%s</title>\n'
            '<style>%s</style></head><body>\n' % (html.escape(title), _STYLE))


def empty_page(message):
    """A whole page that says only message (no database, nothing recorded)."""
    return head("hotbench history") + ('<h1>hotbench history</h1>\n<p class="empty">%s</p>\n'
                                       '</body></html>\n' % html.escape(message))


def page(opts, commits, series, shifts, charts, dirty, colours):
    """The whole page. opts: the parsed options (metric, alpha, permutations, min_size,
    exponent, seed, filter, profile, branch, history); commits: trends.Commit list; series: trends.Trend
    list with shifts; shifts: every shift, in the summary's order; charts: {benchmark: (anchor,
    PNG path relative to the page)}; dirty: runs left out (modified trees, unknown revisions:
    trends.load); colours: {setup:
    colour}. Returns the HTML text."""
    parts = [head("hotbench history: " + opts.metric),
             "<h1>hotbench history: %s</h1>\n" % html.escape(opts.metric),
             _summary(opts, commits, series, shifts, dirty, colours),
             _table(shifts, commits, series, charts),
             _families(series, commits, charts),
             "</body></html>\n"]
    return "".join(parts)


def fmt_value(v, unit):
    """A value in its unit for the table, 4 significant digits: times in ns, us, ms or s."""
    return fmt_time4(v) if unit == "s" else "%.4g %s" % (v, unit)


def _summary(opts, commits, series, shifts, dirty, colours):
    tested = sum(1 for t in series for u in {p.setup for p in t.points}
                 if sum(p.setup == u for p in t.points) >= 2 * opts.min_size)
    lines = [
        "<p>%d benchmark(s) over %d commit(s), %s (%s) to %s (%s), from <code>%s</code>%s%s. "
        "One point per commit and setup (machine, profile, and whether a compare measured it): "
        "the median of its runs' medians, the band from the least to the greatest repetition."
        "</p>" % (
            len(series), len(commits), commits[0].short(), commits[0].date(),
            commits[-1].short(), commits[-1].date(), html.escape(opts.history),
            ", benchmarks matching <code>%s</code>" % html.escape(opts.filter)
            if opts.filter else "",
            "".join(", %s %s" % (k, html.escape(v)) for k, v in (("profile", opts.profile),
                                                                ("branch", opts.branch)) if v)),
        "<p>Change points: E-divisive means with a permutation test (Matteson and James, JASA "
        "2014), within each setup's points; exponent %g, at least %d commits on either side "
        "of the search's split (the location of a change point found is then refined by a "
        "least-absolute-deviation fit, so one in the newest commits is listed at its commit), "
        "%d permutations (the least p-value is %.3g), level &alpha; = %g, seed %d. %d series "
        "were tested: where nothing changed, about %.1f change points would still be listed "
        "by chance (series &times; &alpha;). A p-value at its least means no permutation came "
        "close; a p-value near &alpha; is weak evidence.</p>" % (
            opts.exponent, opts.min_size, opts.permutations, 1 / (opts.permutations + 1),
            opts.alpha, opts.seed, tested, tested * opts.alpha),
    ]
    if dirty:
        lines.append('<p class="note">Runs of modified trees or unknown revisions left out '
                     '(revision ending in -dirty, or "unknown": a build outside git; no commit): '
                     "%d.</p>" % dirty)
    lines.append("<p>Setups (machine, profile, method): %s. A dotted grey line marks a change "
                 "of setup on a chart: change points are never searched across one.</p>\n" %
                 ", ".join('<span class="swatch" style="background:%s"></span> <code>%s</code>'
                           % (c, html.escape(setup_label(u))) for u, c in colours.items()))
    return "\n".join(lines)


def _table(shifts, commits, series, charts):
    units = {t.benchmark: t.unit for t in series}
    out = ["<h2 id=\"change-points\">Change points (%d)</h2>\n" % len(shifts)]
    if not shifts:
        out.append('<p class="empty">No change point: no series shifted significantly.</p>\n')
        return "".join(out)
    out.append("<p>Sorted by p-value, then by the size of the shift. The commit is the first "
               "measured with the new level; the change lies between it and the commit "
               "measured before it in that setup (in brackets).</p>\n"
               "<table><tr><th>p-value</th><th>shift</th><th>before &rarr; after (medians)"
               "</th><th>commit</th><th>benchmark</th><th>setup</th></tr>\n")
    for s in shifts:
        c, prev = commits[s.x], commits[s.previous]
        worse = (s.relative > 0) == HIGHER_IS_WORSE
        unit = units[s.benchmark]
        out.append(
            '<tr><td class="num">%.3g</td><td class="num %s">%+.1f%%</td><td class="num">'
            "%s &rarr; %s</td><td><code>%s</code> %s <span class=\"note\">(after <code>%s</code>)"
            '</span></td><td><a href="#%s">%s</a></td><td><code>%s</code></td></tr>\n' % (
                s.pvalue, "worse" if worse else "better", 100 * s.relative,
                html.escape(fmt_value(s.before, unit)), html.escape(fmt_value(s.after, unit)),
                c.short()[:7], c.date(), prev.short()[:7], charts[s.benchmark][0],
                html.escape(s.benchmark), html.escape(setup_label(s.setup))))
    out.append("</table>\n")
    return "".join(out)


def family(name):
    """The family of a benchmark name: the text before its first '/' (the whole name when none)."""
    return name.split("/", 1)[0]


def natural_key(name):
    """Sort key ordering the numbers inside a name by value (size:65536 before size:1048576)."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name)]


def _families(series, commits, charts):
    groups = {}
    for t in series:
        groups.setdefault(family(t.benchmark), []).append(t)
    names = sorted(groups, key=natural_key)
    out = ["<h2>Benchmarks</h2>\n<nav>%s</nav>\n" % " ".join(
        '<a href="#f-%s">%s (%d)</a>' % (_slug(f), html.escape(f), len(groups[f]))
        for f in names)]
    for f in names:
        out.append('<h3 id="f-%s">%s</h3>\n<div class="grid">\n' % (_slug(f), html.escape(f)))
        for t in sorted(groups[f], key=lambda t: natural_key(t.benchmark)):
            out.append(_figure(t, commits, charts[t.benchmark]))
        out.append("</div>\n")
    return "".join(out)


def _figure(t, commits, chart):
    anchor, png = chart
    n = len({p.x for p in t.points})
    bits = ['<a href="#%s">%s</a> <span class="note">%d commit%s</span>' % (
        anchor, html.escape(t.benchmark), n, "" if n == 1 else "s")]
    for s in t.shifts:
        bits.append('<span class="cp">%+.1f%% at <code>%s</code> (p %.3g)</span>' % (
            100 * s.relative, commits[s.x].short()[:7], s.pvalue))
    if t.note:
        bits.append('<span class="note">%s</span>' % html.escape(t.note))
    return ('<figure id="%s"><figcaption>%s</figcaption>\n<img src="%s" loading="lazy" '
            'width="416" height="168" alt="%s over commits"></figure>\n' % (
                anchor, "<br>".join(bits), html.escape(png), html.escape(t.benchmark)))


def _slug(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "x"

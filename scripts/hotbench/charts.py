"""charts - the report's charts, drawn from the run JSON's data (hotbench.runjson), never console
text, in the one chart style (hotbench.style).

Every function takes the data it draws, its titles and labels (from the manifest's view), and a
path stem, and writes <stem>.png and <stem>.svg (style.save): log-log axes for scaling, units on
every axis, one colour per strategy kept across charts, fitted models dashed, predictions dashed
inside their 95% prediction band. Returns the file name of the PNG (relative to its folder), or
None when there is nothing to draw. The catalogue (docs/manifest.md) maps onto them: scaling,
extrapolation, bars (bars and per-element), lines, copied_per_byte (copied), cliff.
"""

import matplotlib.ticker
import numpy as np

from .fit import bounded
from .style import colour, plt, save
from .units import fmt_bytes


def _spread(N, t, scale):
    xs = np.unique(N)
    med = np.array([np.median(t[N == x]) for x in xs]) * scale
    lo = np.array([np.min(t[N == x]) for x in xs]) * scale
    hi = np.array([np.max(t[N == x]) for x in xs]) * scale
    return xs, med, med - lo, hi - med


def _err(minus, plus):
    """The (2, N) float array of error bar lengths that Axes.errorbar, bar and barh read as
    separate minus and plus values (matplotlib: yerr/xerr of shape (2, N)); minus and plus: N
    values each, in the data's units. An array, not the list [minus, plus]: matplotlib 3.10
    probes a list's first element with math.isfinite, which numpy 1.25 and later deprecate for
    an array of one element (a strategy measured at one size)."""
    return np.array([np.asarray(minus, float), np.asarray(plus, float)])


def scaling(series, stem, title, xlabel, per_label, per_scale, fits=None, xmark=None,
            marklabel=None, items_per_n=1.0, plain_x=False):
    """Two panels: time per iteration against N, and time per item against N, the items being
    N * items_per_n (e.g. tags per volume times 300 volumes), scaled by per_scale (1e9: ns).
    series: {strategy: (N, t seconds)}; fits: {strategy: PowerFit}; xmark: the production N.
    Returns None (draws nothing) when no series has a point."""
    if not any(len(N) for N, _ in series.values()):
        return None
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.6 + 0.16 * ((len(series) + 2) // 3)))
    for s, (N, t) in series.items():
        if len(N) == 0:
            continue
        c = colour(s)
        f = (fits or {}).get(s)
        lab = s + (" (%s)" % f.label() if f is not None and f.ok else "")
        xs, med, el, eh = _spread(N, t, 1.0)
        ax1.errorbar(xs, med, yerr=_err(el, eh), fmt="o-", ms=3, lw=1.2, color=c, label=lab,
                     capsize=2)
        k = per_scale / (xs * items_per_n)
        ax2.errorbar(xs, med * k, yerr=_err(el * k, eh * k),
                     fmt="o-", ms=3, lw=1.2, color=c, label=s, capsize=2)
        if f is not None and f.ok:
            g = np.geomspace(f.nmin, f.nmax, 60)  # over the sizes fitted only
            y = np.array([f.predict(v)[0] for v in g])
            ax1.plot(g, y, "--", lw=0.9, color=c, alpha=0.8)
    for ax in (ax1, ax2):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.grid(True, which="both", lw=0.3, alpha=0.5)
        if plain_x:
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v))
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        if xmark:
            ax.axvline(xmark, color="0.4", lw=0.8, ls=":")
    ax1.set_ylabel("time per iteration (s)")
    ax2.set_ylabel(per_label)
    fig.suptitle(title, fontsize=11)
    ax1.set_title("time per iteration (dashed: fitted t = a + b*N^k)")
    ax2.set_title(per_label.split(" (")[0])
    h, lab = ax1.get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncol=3, framealpha=0.9, fontsize=8,
               bbox_to_anchor=(0.5, -0.02 - 0.045 * ((len(lab) + 2) // 3)))
    if xmark and marklabel:
        ax2.annotate(" " + marklabel, (xmark, 0.97), xycoords=("data", "axes fraction"),
                     va="top", fontsize=7, color="0.3")
    return save(fig, stem)


def copied_per_byte(points, stem, title, xlabel, ylabel, upper=()):
    """Bytes copied by growth per unit of x against x, on log axes. points: {strategy: (N,
    ratio, predicted flags)}; predicted points (from the dry-run plan of a skipped size) hollow.
    Zero (a strategy that copies nothing) has no place on a log axis: it is drawn on a floor
    line below the smallest positive ratio, labelled 0. upper: the strategies whose counts are
    upper bounds (growth by realloc), drawn as downward triangles. None when nothing to draw."""
    if not any(len(v[0]) for v in points.values()):
        return None
    pos = [x for _, r, _ in points.values() for x in r if x > 0]
    floor = 10.0 ** np.floor(np.log10(0.99 * min(pos))) if pos else 0.1
    zeros = [s for s, (_, r, _) in points.items() if len(r) and max(r) <= 0]
    fig, ax = plt.subplots(figsize=(9, 4.6))
    for s, (N, r, pred) in points.items():
        c = colour(s)
        N, r, pred = np.asarray(N), np.asarray(r, float), np.asarray(pred, bool)
        zero = r <= 0
        y = np.where(zero, floor, r)
        mk = "v" if s in upper else "o"
        lab = s + (" (upper bound: realloc)" if s in upper else
                   " (0: copies nothing)" if zero.all() else "")
        ax.plot(N, y, "-", color=c, lw=1.2, label=lab, marker=mk if s in upper else None,
                ms=5, mfc="none" if s in upper else c)
        ax.plot(N[~pred], y[~pred], mk, color=c, ms=4 if mk == "o" else 5)
        if pred.any():
            ax.plot(N[pred], y[pred], mk, mfc="none", color=c, ms=6)
    ax.axhline(floor, color="0.5", lw=0.8, ls=":")
    ax.annotate("0 bytes copied, drawn at this floor%s" % (": " + ", ".join(zeros) if zeros else
                                                            ""),
                (0.01, floor * 1.08), xycoords=("axes fraction", "data"), va="bottom", fontsize=7,
                color="0.3")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(bottom=floor / 2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title + " (hollow: counted by the dry-run plan, not run;\n"
                 "downward triangles: an upper bound, realloc may move a block without copying)")
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    ax.legend(framealpha=0.85, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save(fig, stem)


def cliff(panels, stem, colour_of, xname, per_label):
    """A piecewise-32 strategy's overflow cliff: ns per byte against size, one panel per
    strategy and capacity width, all in the colour of the strategy colour_of; xname names x
    ("payload size N"), per_label the per-byte axis.
    panels: [(title, N, t, threshold, PiecewiseFit or None[, below])], below (optional) the
    largest size measured under the threshold and its median seconds, (N, s), or None. The x
    axis is the size in MiB, or, when the panel spans less than 1% of its threshold, KiB past
    the threshold; there below is a horizontal line (the height the cliff starts from). Panels
    without a point are left out; None when none has one."""
    panels = [p for p in panels if len(p[1])]
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(5.6 * len(panels), 4.4), squeeze=False)
    for ax, (title, N, t, L, fit, *rest) in zip(axes[0], panels):
        below = rest[0] if rest else None
        xs, med, el, eh = _spread(N, t, 1e9)
        narrow = xs.max() - xs.min() < 0.01 * L
        off, sc = (L, 1024.0) if narrow else (0.0, 2.0 ** 20)
        X = (xs - off) / sc
        # narrow: whole seconds, linear (each additive step adds its cost); else ns per byte, log
        div = 1e9 * np.ones_like(xs) if narrow else xs
        ax.errorbar(X, med / div, yerr=_err(el / div, eh / div), fmt="o",
                    color=colour(colour_of), ms=4, capsize=2, label="measured (median, min-max)")
        if fit is not None and fit.ok:
            g = np.linspace(xs.min(), xs.max(), 400)
            ax.plot((g - off) / sc, [fit.predict(v)[0] * 1e9 / (1e9 if narrow else v) for v in g],
                    "--", color="0.3", lw=1, label="piecewise fit: " + fit.label())
        ax.axvline((L - off) / sc, color="tab:red", lw=0.8, ls=":",
                   label="overflow threshold %s" % fmt_bytes(L))
        if narrow and below is not None:
            ax.axhline(below[1], color=colour(colour_of), lw=0.8, ls="-.",
                       label="%s below the threshold (%s): %.3g s" % (
                           fmt_bytes(L - below[0]), fmt_bytes(below[0]), below[1]))
        if not narrow:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_xlabel("%s past %s (KiB)" % (xname, fmt_bytes(L)) if narrow
                      else "%s (MiB)" % xname)
        ax.set_ylabel("time per iteration (s)" if narrow else per_label)
        ax.set_title(title)
        ax.grid(True, which="both", lw=0.3, alpha=0.5)
        ax.legend(fontsize=6.5, framealpha=0.9, loc="lower right" if narrow else "center right")
    return save(fig, stem, tight_layout=True)


def extrapolation(lines, stem, target, target_label, title, xlabel):
    """Every strategy carried to the production size. lines: {strategy: (N, t, fit)} where fit
    has predict(N) -> (median, lo, hi), or is None: not predicted (labelled so, no band; nor for
    an interval wider than fit.WIDE_INTERVAL at target). target_label names target ("1.7 GB").
    Measured medians solid, the model from the largest measured size to target dashed inside its
    95% prediction band, the prediction at target a hollow mark."""
    if not any((l[2] is not None and l[2].ok) or (len(l[0]) and max(l[0]) >= target)
               for l in lines.values()):
        return None
    fig, ax = plt.subplots(figsize=(9, 5.4))
    ys = []
    for j, (s, line) in enumerate(lines.items()):
        N, t, fit = line[:3]
        val = line[3] if len(line) > 3 else None
        c = colour(s)
        if val is not None:  # the largest size predicted from the smaller ones: the check
            x = val["size"] * (0.9 + 0.2 * j / max(len(lines) - 1, 1))
            low = max(val["low"], val["predicted"] / 100)  # a zero lower bound on a log axis
            ax.errorbar([x], [val["predicted"]], yerr=_err([val["predicted"] - low],
                        [val["high"] - val["predicted"]]), fmt="D", mfc="none", color=c, ms=5,
                        capsize=2, lw=0.8)
        if len(N):
            xs, med, _, _ = _spread(N, t, 1.0)
            ax.plot(xs, med, "o-", color=c, lw=1.4, ms=3, label=s)
            ys += list(med)
            top = xs.max()
        else:
            top = None
        if fit is None or not fit.ok:
            if top is not None and top < target:  # measured, but no band to target: say so
                ax.annotate(" %s: not predicted" % s, (top, med[-1]), fontsize=7, color=c,
                            va="center")
            continue
        if top is None or top < target:
            start = top if top is not None else target / 64
            g = np.geomspace(start, target, 40)
            p = np.array([fit.predict(v) for v in g])
            ax.plot(g, p[:, 0], "--", color=c, lw=1.2, label=None if top else s + " (predicted)")
            if bounded(p[-1, 1], p[-1, 2]):  # an unbounded band would fill the chart
                ax.fill_between(g, p[:, 1], p[:, 2], color=c, alpha=0.12, lw=0)
            else:
                ax.annotate(" %s: 95%% interval unbounded" % s, (target, p[-1, 0]), fontsize=7,
                            color=c, va="center")
            ax.plot([target], [p[-1, 0]], "o", mfc="none", color=c, ms=7)
            ys.append(p[-1, 0])
    if ys:  # the bands may span decades: the limits follow the medians and predictions
        ax.set_ylim(min(ys) / 5, max(ys) * 20)
    ax.axvline(target, color="0.4", lw=0.8, ls=":")
    ax.annotate(" %s" % target_label, (target, 0.02), xycoords=("data", "axes fraction"),
                fontsize=7, color="0.3")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("time per iteration (s)")
    ax.set_title(title + "\nsolid: measured medians; dashed: predicted, band: 95% prediction "
                 "interval; circle: predicted at the production size;\nhollow diamond: the "
                 "largest measured size predicted from the smaller ones (validation), 95% PI",
                 fontsize=9)
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    ax.legend(ncol=2, framealpha=0.85, loc="upper left")
    return save(fig, stem)


def bars(items, stem, title, ylabel, baseline=None, ref=None):
    """Horizontal bars on a log axis, one per strategy, the median with min-max whiskers, each
    labelled with its median and its ratio to the median of ref (else of the fastest bar): bar
    lengths on a log axis understate ratios, the printed figure does not.
    items: [(strategy, values)] in the order drawn (top first). None when items is empty."""
    if not items:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.38 * len(items) + 1.4))
    names = [s for s, _ in items]
    med = np.array([np.median(v) for _, v in items])
    lo = med - np.array([np.min(v) for _, v in items])
    hi = np.array([np.max(v) for _, v in items]) - med
    base = med[names.index(ref)] if ref in names else med.min()
    base_name = ref if ref in names else names[int(np.argmin(med))]
    y = np.arange(len(items))[::-1]
    ax.barh(y, med, xerr=_err(lo, hi), color=[colour(s) for s in names], capsize=3, height=0.65)
    for yi, m, h in zip(y, med, hi):
        ax.text(m + h, yi, "  %.3g  (%sx %s)" % (m, _ratio(m / base), base_name), va="center",
                fontsize=7.5)
    if baseline is not None:
        ax.axvline(baseline, color="0.3", lw=0.8, ls=":")
    ax.set_yticks(y)
    ax.set_yticklabels(names)
    ax.set_xscale("log")
    ax.set_xlabel(ylabel)
    ax.set_title(title)
    ax.grid(True, axis="x", which="both", lw=0.3, alpha=0.5)
    ax.set_xlim(right=ax.get_xlim()[1] * 4)
    return save(fig, stem)


def _ratio(r):
    return "%.2f" % r if r < 10 else "%.3g" % r


def lines(series, stem, title, xlabel, ylabel, logx=False, logy=True, xticks=None):
    """One line per strategy of a per-item figure against a parameter.
    series: {strategy: (x, values per repetition list)}. None when series is empty."""
    if not any(len(v[0]) for v in series.values()):
        return None
    fig, ax = plt.subplots(figsize=(8, 4.6))
    for s, (x, v) in series.items():
        x = np.asarray(x, float)
        xs = np.unique(x)
        v = np.asarray(v, float)
        med = np.array([np.median(v[x == u]) for u in xs])
        lo = med - np.array([np.min(v[x == u]) for u in xs])
        hi = np.array([np.max(v[x == u]) for u in xs]) - med
        ax.errorbar(xs, med, yerr=_err(lo, hi), fmt="o-", color=colour(s), ms=3, lw=1.2,
                    capsize=2, label=s)
    if logx:
        ax.set_xscale("symlog", linthresh=1)
    if logy:
        ax.set_yscale("log")
    if xticks is not None:
        ax.set_xticks(xticks)
        ax.set_xticklabels([str(v) for v in xticks])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    ax.legend(framealpha=0.85, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save(fig, stem)

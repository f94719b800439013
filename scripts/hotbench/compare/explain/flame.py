"""flame - a differential flame graph as a static SVG: the head's folded stacks drawn as a flame
graph (Gregg, "The Flame Graph", CACM 59(6), 2016: one box per frame, the root at the bottom,
callees above their caller, siblings in alphabetical order, width the cost), each frame coloured
by the change of its function's own cost against the base (Gregg's differential flame graphs:
red where the head spends more, blue where it spends less, the intensity scaled to the largest
change, at least 1% of the base's total).

The change is the function's own cost over all its stacks, the table's figure (diff.py), not the
cost of the same stack in the base as difffolded.pl matches it: two builds name the frames
around the code under test differently often enough (perf resolved one inlined C++ wrapper as
"operator()" in one build and as its class's "Run" in the other) that a stack-by-stack match
painted a whole unchanged subtree "new". A function only the base has cannot be drawn (its
width in the head is 0): the caption counts them, and the table lists them as "gone".

Each frame is a <g> with a <title> (the browser's hover text: the full name, the head's cost on
that stack, the function's own cost in both builds), a <rect> and, where it fits, a <text>
label. No script: the file opens in any browser and in a CI artifact viewer as it is.

Drawn by hand because no Debian package fits: checked with apt-cache search on Debian 12 and
13, there is no flamegraph, flamegraph.pl, inferno, speedscope or d3-flame-graph package (perf's
own `perf script report flamegraph` wants d3-flame-graph's template, and Debian ships none);
libjs-d3 is packaged, but a page drawn with it needs a script and d3 copied beside every
artifact, and matplotlib's SVG backend cannot give an element a <title>.
"""

from xml.sax.saxutils import escape

WIDTH = 1200
FRAME_H = 17
FONT = 12
CHAR_W = 0.59 * FONT  # flamegraph.pl's width estimate of one character
PAD = 10
MIN_PX = 0.1  # narrower frames are not drawn
NEUTRAL = (226, 226, 214)
RED = (222, 45, 38)
BLUE = (49, 110, 222)


class Node:
    """One frame of a tree of stacks: name, total (the cost of every stack through it), own
    (the cost of the stacks ending in it) and children ({name: Node})."""

    def __init__(self, name):
        self.name, self.total, self.own, self.children = name, 0.0, 0.0, {}


def build(stacks):
    """The tree (a Node named "all") of {(frame, ...): cost}."""
    root = Node("all")
    for stack, cost in stacks.items():
        node = root
        node.total += cost
        for name in stack:
            node = node.children.setdefault(name, Node(name))
            node.total += cost
        node.own += cost
    return root


def mix(frac):
    """The fill of a frame whose own cost changed by frac of the scale (-1..1): from NEUTRAL to
    RED (more) or BLUE (less)."""
    frac = max(-1.0, min(1.0, frac))
    end = RED if frac > 0 else BLUE
    a = abs(frac)
    return "rgb(%d,%d,%d)" % tuple(round(n + (e - n) * a) for n, e in zip(NEUTRAL, end))


def own_costs(stacks):
    """{function: its own cost over all stacks (the stacks ending in it)}; every function of
    the stacks is a key (0 when it never ends one)."""
    out = {}
    for stack, cost in stacks.items():
        for name in stack:
            out.setdefault(name, 0.0)
        if stack:
            out[stack[-1]] += cost
    return out


def fmt(x):
    return "{:,.0f}".format(x) if abs(x) >= 10 else "{:,.3g}".format(x)


def wrap(text, width):
    """text cut into lines of at most width characters, at spaces."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word) if line else word
    return lines + ([line] if line else [])


def frame_title(h, unit, head_total, own, base_total):
    """The hover text of one frame (newlines between its lines); own: {function: (base, head)
    own cost over all stacks}."""
    bo, ho = own.get(h.name, (None, 0.0))
    lines = [h.name, "head, this stack: %s %s (%.2f%% of the head's total)" % (
        fmt(h.total), unit, 100.0 * h.total / head_total if head_total else 0.0)]
    if h.name != "all":
        d = ho - (bo or 0.0)
        share = " (%+.2f%% of the base's total)" % (100.0 * d / base_total) if base_total \
            else ""
        lines.append("own cost, all stacks: base %s -> head %s, change %s%s%s" % (
            fmt(bo or 0.0), fmt(ho), ("+" if d > 0 else "") + fmt(d), share,
            " (new: not in the base)" if bo is None else ""))
    return "\n".join(lines)


def frames(head, unit, own, scale, base_total, width, top):
    """The SVG elements of the frames (a list of str) and the picture's height."""
    out, depth_max = [], [0]
    px = (width - 2 * PAD) / head.total

    def draw(h, x, depth):
        w = h.total * px
        if w < MIN_PX:
            return
        depth_max[0] = max(depth_max[0], depth)
        out.append((depth, x, w, h))
        cx = x
        for name in sorted(h.children):
            draw(h.children[name], cx, depth + 1)
            cx += h.children[name].total * px
    draw(head, PAD, 0)
    height = top + (depth_max[0] + 1) * FRAME_H + 2 * PAD
    svg = []
    for depth, x, w, h in out:
        y = height - PAD - (depth + 1) * FRAME_H
        bo, ho = own.get(h.name, (0.0, 0.0))
        label = h.name if h.name != "all" else "all (%s %s)" % (fmt(h.total), unit)
        fit = int((w - 6) / CHAR_W)
        text = "" if fit < 3 else label if len(label) <= fit else label[:fit - 2] + ".."
        svg.append('<g><title>%s</title><rect x="%.1f" y="%d" width="%.1f" height="%d" '
                   'fill="%s" rx="2" ry="2"/>%s</g>' % (
                       escape(frame_title(h, unit, head.total, own, base_total)), x, y, w,
                       FRAME_H - 1, mix((ho - (bo or 0.0)) / scale if scale else 0.0),
                       '<text x="%.1f" y="%.1f">%s</text>' % (x + 3, y + FRAME_H - 5,
                                                             escape(text)) if text else ""))
    return svg, height


def legend(y):
    """Three swatches: more, unchanged, less."""
    out = []
    for i, (frac, what) in enumerate(((1.0, "head spends more"), (0.0, "unchanged"),
                                      (-1.0, "head spends less"))):
        x = PAD + i * 170
        out.append('<rect x="%d" y="%d" width="14" height="12" fill="%s"/>'
                   '<text x="%d" y="%d">%s</text>' % (x, y, mix(frac), x + 18, y + 10, what))
    return "".join(out)


def render(head_stacks, base_stacks, title, subtitle, unit="Ir", width=WIDTH):
    """The SVG document (str) of the differential flame graph: head_stacks and base_stacks
    {(frame, ...): cost} (the same unit, e.g. instructions per iteration), title and subtitle
    (wrapped to the width), unit the cost's name in the hover text. Errors: ValueError when the
    head's stacks hold no cost."""
    head = build(head_stacks)
    if head.total <= 0:
        raise ValueError("the head's stacks hold no cost: nothing to draw")
    ob, oh = own_costs(base_stacks), own_costs(head_stacks)
    own = {n: (ob.get(n), oh.get(n, 0.0)) for n in set(ob) | set(oh)}
    base_total = float(sum(base_stacks.values()))
    scale = max([abs(h - (b or 0.0)) for b, h in own.values()] + [0.01 * base_total])
    gone = sum(1 for n, c in ob.items() if n not in oh and c > 0)
    note = "%d function%s only in the base (not drawn: see the table)" % (
        gone, "" if gone == 1 else "s") if gone else "no function only in the base"
    lines = wrap(subtitle + "; " + note, int((width - 2 * PAD) / CHAR_W))
    top = 52 + 16 * len(lines)
    body, height = frames(head, unit, own, scale, base_total, width, top)
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" '
        'viewBox="0 0 %d %d" font-family="DejaVu Sans, Verdana, sans-serif" font-size="%d">'
        % (width, height, width, height, FONT),
        '<style>g:hover rect { stroke: #000; stroke-width: 0.8; } text { fill: #000; '
        'pointer-events: none; }</style>',
        '<rect x="0" y="0" width="%d" height="%d" fill="#fdfdf8"/>' % (width, height),
        '<text x="%d" y="20" font-size="15" font-weight="bold">%s</text>' % (PAD, escape(title))]
        + ['<text x="%d" y="%d">%s</text>' % (PAD, 38 + 16 * i, escape(l))
           for i, l in enumerate(lines)]
        + [legend(top - 20)] + body + ["</svg>", ""])


def write(path, head_stacks, base_stacks, title, subtitle, unit="Ir"):
    """Writes render()'s SVG to path. Errors: ValueError (render), OSError."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(render(head_stacks, base_stacks, title, subtitle, unit))

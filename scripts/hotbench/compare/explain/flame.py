"""flame - a differential flame graph as a static SVG: the head's folded stacks drawn as a flame
graph (Gregg, "The Flame Graph", CACM 59(6), 2016: one box per frame, the root at the bottom,
callees above their caller, siblings in alphabetical order, width the cost), each frame coloured
by the change of its own cost against the base's same stack (Gregg's differential flame graphs,
difffolded.pl read by flamegraph.pl: red where the head spends more, blue where
it spends less, the intensity scaled to the largest change, at least 1% of the base's total).
A frame only the base has cannot be drawn (its width in the head is 0): the caption counts them,
and the table beside the graph (diff.py) lists them as "gone".

Each frame is a <g> with a <title> (the browser's hover text: the full name, the head's and the
base's cost on that stack, its own change), a <rect> and, where it fits, a <text> label. No
script: the file opens in any browser and in a CI artifact viewer as it is.

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
TOP = 70
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


def changes(head, base):
    """[(head node, base node or None)] of every frame of the head's tree, depth first."""
    out = []

    def walk(h, b):
        out.append((h, b))
        for name, child in h.children.items():
            walk(child, b.children.get(name) if b else None)
    walk(head, base)
    return out


def count_gone(head, base):
    """How many frames the base's tree has and the head's has not (on the same stack)."""
    n = 0
    for name, child in base.children.items():
        if name not in head.children:
            n += 1 + count_gone(Node(name), child)
        else:
            n += count_gone(head.children[name], child)
    return n


def fmt(x):
    return "{:,.0f}".format(x) if abs(x) >= 10 else "{:,.3g}".format(x)


def frame_title(h, b, unit, head_total, base_total):
    """The hover text of one frame (newlines between its lines)."""
    bt, bo = (b.total, b.own) if b else (0.0, 0.0)
    lines = [h.name, "head: %s %s on this stack (%.2f%% of the head's total)" % (
        fmt(h.total), unit, 100.0 * h.total / head_total if head_total else 0.0)]
    lines.append("base: %s %s%s" % (fmt(bt), unit, "" if b else " (new on this stack)"))
    d = h.own - bo
    share = " (%+.2f%% of the base's total)" % (100.0 * d / base_total) if base_total else ""
    lines.append("own cost: %s -> %s, change %s%s" % (fmt(bo), fmt(h.own),
                                                    ("+" if d > 0 else "") + fmt(d), share))
    return "\n".join(lines)


def frames(head, base, unit, scale, width):
    """The SVG elements of the frames (a list of str) and the tree's depth."""
    out, depth_max = [], [0]
    px = (width - 2 * PAD) / head.total
    base_total = base.total if base else 0.0

    def draw(h, b, x, depth):
        w = h.total * px
        if w < MIN_PX:
            return
        depth_max[0] = max(depth_max[0], depth)
        d = h.own - (b.own if b else 0.0)
        out.append((depth, x, w, h, b, d))
        cx = x
        for name in sorted(h.children):
            child = h.children[name]
            draw(child, b.children.get(name) if b else None, cx, depth + 1)
            cx += child.total * px
    draw(head, base, PAD, 0)
    height = TOP + (depth_max[0] + 1) * FRAME_H + 2 * PAD
    svg = []
    for depth, x, w, h, b, d in out:
        y = height - PAD - (depth + 1) * FRAME_H
        label = h.name if h.name != "all" else "all (%s %s)" % (fmt(h.total), unit)
        fit = int((w - 6) / CHAR_W)
        text = "" if fit < 3 else label if len(label) <= fit else label[:fit - 2] + ".."
        svg.append('<g><title>%s</title><rect x="%.1f" y="%d" width="%.1f" height="%d" '
                   'fill="%s" rx="2" ry="2"/>%s</g>' % (
                       escape(frame_title(h, b, unit, head.total, base_total)), x, y, w,
                       FRAME_H - 1, mix(d / scale if scale else 0.0),
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
    lines, unit the cost's name in the hover text. Errors: ValueError when the head's stacks
    hold no cost."""
    head, base = build(head_stacks), build(base_stacks)
    if head.total <= 0:
        raise ValueError("the head's stacks hold no cost: nothing to draw")
    deltas = [abs(h.own - (b.own if b else 0.0)) for h, b in changes(head, base)]
    scale = max(max(deltas or [0.0]), 0.01 * base.total)
    body, height = frames(head, base, unit, scale, width)
    gone = count_gone(head, base)
    note = "%d frame%s only in the base (not drawn: see the table)" % (
        gone, "" if gone == 1 else "s") if gone else "no frame only in the base"
    return "\n".join([
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" '
        'viewBox="0 0 %d %d" font-family="DejaVu Sans, Verdana, sans-serif" font-size="%d">'
        % (width, height, width, height, FONT),
        '<style>g:hover rect { stroke: #000; stroke-width: 0.8; } text { fill: #000; '
        'pointer-events: none; }</style>',
        '<rect x="0" y="0" width="%d" height="%d" fill="#fdfdf8"/>' % (width, height),
        '<text x="%d" y="20" font-size="15" font-weight="bold">%s</text>' % (PAD, escape(title)),
        '<text x="%d" y="38">%s</text>' % (PAD, escape(subtitle + "; " + note)),
        legend(48)] + body + ["</svg>", ""])


def write(path, head_stacks, base_stacks, title, subtitle, unit="Ir"):
    """Writes render()'s SVG to path. Errors: ValueError (render), OSError."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(render(head_stacks, base_stacks, title, subtitle, unit))

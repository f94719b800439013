"""callgrind - a reader of callgrind's output files: per function its exclusive and inclusive
cost, its file and first line, and the caller -> callee edges with their call counts and
inclusive costs.

It follows the format's own specification: Valgrind Technical Documentation, chapter 3
"Callgrind Format Specification" (/usr/share/doc/valgrind/html/cl-format.html in Debian's
valgrind package): the header lines (3.2.2: "events:", "positions:", "desc:", "summary:"), the
position lines ob=/fl=/fi=/fe=/fn= and cob=/cfi=/cfl=/cfn= with name compression "(id) name"
(3.1.5), cost lines whose subpositions may be relative "+N", "-N" or "*" to the last cost line's
(3.1.6), and "calls=<count> <target>" followed by one cost line that carries the inclusive cost
of those calls, not the caller's own (3.1.3). jump=/jcnd= lines (--collect-jumps) are skipped.

Why our own reader and not callgrind_annotate: callgrind_annotate prints a report for people
(thousands-separated numbers, a file:function key per inlined file, truncated C++ names), and
its call tree (--tree=calling) is text again, with no stable shape to read back; the format
itself is documented, line-oriented and small, and the scripts read data, never console text
(STYLE.md 8).

A function is keyed by its name (callgrind's fn=, with the recursion suffix "'2" of
--separate-recs removed): two static functions of one name in two files of the profiled run
count as one. Its file is the fl= of its first fn= block; its line, with "positions: instr line"
(callgrind --dump-instr=yes), the line of its lowest instruction address whose cost is in that
file (its entry, where the compiler puts the function's first line); with lines alone, the least
line of its own cost there (an inlined function of the same file may then come first); 0 without
debug information.
"""

import re

SPECS = ("ob", "fl", "fi", "fe", "fn", "cob", "cfi", "cfl", "cfn")
HEADER = re.compile(r"^(version|creator|pid|thread|part|cmd|desc|positions|events|event|"
                    r"summary|totals):")
RECURSION = re.compile(r"'\d+$")


class ParseError(Exception):
    """A file that is not callgrind output, or a line that breaks the format: the message
    names the file and line."""


class Function:
    """One function of a profile: name, obj (its ELF object), file (str, '' when unknown), line
    (int, 0 when unknown), self_cost and incl (the event's counts, ints; incl is filled by
    Profile.finish)."""

    def __init__(self, name):
        self.name, self.obj, self.file, self.line = name, "", "", 0
        self.self_cost, self.incl = 0, 0
        self.first = None  # the least address (or line) seen in its own file


class Profile:
    """One part (dump) of a callgrind file: desc ({type: value} of its desc: lines), event (the
    event read, e.g. "Ir"), total (the part's summary, else the sum of the self costs),
    functions ({name: Function}) and calls ({(caller, callee): [count, inclusive cost]})."""

    def __init__(self):
        self.desc, self.event, self.total = {}, None, 0
        self.functions, self.calls = {}, {}

    def function(self, name):
        f = self.functions.get(name)
        if f is None:
            f = self.functions[name] = Function(name)
        return f

    def finish(self):
        """Each function's inclusive cost: its own plus the inclusive cost of its calls to
        other functions (a call of itself is already in its own); the total from the self
        costs when the file gave none."""
        for f in self.functions.values():
            f.incl = f.self_cost
        for (a, b), (_, cost) in self.calls.items():
            if a != b:
                self.functions[a].incl += cost
        own = sum(f.self_cost for f in self.functions.values())
        self.total = self.total or own
        return self


class _Reader:
    """The state of one file's reading (parse)."""

    def __init__(self, path, event):
        self.path, self.want = path, event
        self.names = {s: {} for s in ("ob", "fl", "fn")}
        self.parts, self.part, self.in_body = [], None, False
        self.positions, self.col, self.instr = 1, 0, False
        self.fn = self.fl = self.file = self.ob = None
        self.cfn = self.cob = None
        self.last = []
        self.pending_call = None

    def fail(self, lineno, why):
        raise ParseError("%s:%d: %s" % (self.path, lineno, why))

    def new_part(self):
        self.part = Profile()
        self.parts.append(self.part)
        self.in_body = False
        self.fn = self.fl = self.file = self.ob = self.cfn = self.cob = None
        self.last = [0] * self.positions

    def name(self, spec, value, lineno):
        """The name a position line gives, resolving "(id) name" and "(id)"."""
        table = self.names["fl" if spec in ("fl", "fi", "fe", "cfi", "cfl") else
                           "ob" if spec in ("ob", "cob") else "fn"]
        m = re.match(r"^\((\d+)\)(?:\s+(.*))?$", value)
        if not m:
            return value
        if m.group(2) is not None:
            table[m.group(1)] = m.group(2)
            return m.group(2)
        if m.group(1) not in table:
            self.fail(lineno, "compressed name (%s) used before it was defined" % m.group(1))
        return table[m.group(1)]

    def header(self, key, value, lineno):
        if self.part is None or (self.in_body and key not in ("totals",)):
            self.new_part()
        if key == "desc" and ":" in value:
            k, v = value.split(":", 1)
            self.part.desc[k.strip()] = v.strip()
        elif key == "positions":
            self.positions = max(1, len(value.split()))
            self.instr = value.split()[:1] == ["instr"] and self.positions == 2
            self.last = [0] * self.positions
        elif key == "events":
            events = value.split()
            if not events:
                self.fail(lineno, "an empty events: line")
            ev = self.want if self.want in events else events[0]
            self.part.event, self.col = ev, events.index(ev)
        elif key == "summary":
            vals = value.split()
            if len(vals) > self.col:
                self.part.total = int(vals[self.col])

    def position(self, spec, value, lineno):
        name = self.name(spec, value, lineno)
        if spec == "ob":
            self.ob = name
        elif spec == "fl":
            self.fl = self.file = name
        elif spec in ("fi", "fe"):
            self.file = name
        elif spec == "fn":
            self.fn = self.part.function(RECURSION.sub("", name))
            self.file = self.fl
            if not self.fn.file:
                self.fn.file, self.fn.obj = self.fl or "", self.ob or ""
        elif spec == "cfn":
            self.cfn = RECURSION.sub("", name)
        elif spec == "cob":
            self.cob = name

    def cost(self, text, lineno):
        """A cost line: its subpositions (absolute, +N, -N, *) and the event's count."""
        fields = text.split()
        pos = []
        for i, sp in enumerate(fields[:self.positions]):
            try:
                if sp == "*":
                    pos.append(self.last[i])
                elif sp[0] in "+-":
                    pos.append(self.last[i] + int(sp, 0))
                else:
                    pos.append(int(sp, 0))
            except (ValueError, IndexError):
                self.fail(lineno, "not a cost line: %r" % text)
        self.last = pos
        vals = fields[self.positions:]
        try:
            n = int(vals[self.col]) if len(vals) > self.col else 0
        except ValueError:
            self.fail(lineno, "not a count: %r" % text)
        return pos, n

    def body(self, line, lineno):
        if self.part is None or self.part.event is None:
            self.fail(lineno, "a cost or position line before the events: line")
        self.in_body = True
        spec, eq, value = line.partition("=")
        if eq and spec in SPECS:
            return self.position(spec, value.strip(), lineno)
        if eq and spec == "calls":
            if self.fn is None or self.cfn is None:
                self.fail(lineno, "calls= without fn= and cfn= before it")
            self.pending_call = int(value.split()[0])
            return None
        if eq and spec in ("jump", "jcnd"):
            return None
        if self.fn is None:
            self.fail(lineno, "a cost line before any fn=")
        pos, n = self.cost(line, lineno)
        if self.pending_call is not None:
            edge = self.part.calls.setdefault((self.fn.name, self.cfn), [0, 0])
            edge[0] += self.pending_call
            edge[1] += n
            self.part.function(self.cfn)
            self.pending_call, self.cfn, self.cob = None, None, None
            return None
        self.fn.self_cost += n
        if pos[-1] and self.file == self.fn.file:
            key = pos[0] if self.instr else pos[-1]  # the entry address, else the line
            if self.fn.first is None or key < self.fn.first:
                self.fn.first, self.fn.line = key, pos[-1]
        return None


def parse_lines(lines, path="<callgrind>", event="Ir"):
    """The parts of a callgrind file given as an iterable of lines: a list of Profile (one per
    part, each finished), for the event named (the first of the file's events when it has not
    that one). Errors: ParseError naming path and line."""
    r = _Reader(path, event)
    first = True
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        if first and line.strip() and not (line.startswith("#") or HEADER.match(line)):
            r.fail(lineno, "not a callgrind profile (no header line before %r)" % line[:40])
        if not line.strip() or line.startswith("#"):
            continue
        first = False
        m = HEADER.match(line)
        if m and not ("=" in line.split(":", 1)[0]):
            if m.group(1) in ("version", "creator") and r.part is None:
                continue
            r.header(m.group(1), line[m.end():].strip(), lineno)
        else:
            r.body(line, lineno)
    if not r.parts:
        r.fail(0, "no profile part (no events: line)")
    return [p.finish() for p in r.parts]


def parse(path, event="Ir"):
    """parse_lines of the file at path. Errors: ParseError (also for a file that cannot be
    read, naming why)."""
    try:
        with open(path, errors="replace") as f:
            return parse_lines(f, path, event)
    except OSError as e:
        raise ParseError("%s: cannot be read: %s" % (path, e.strerror or e))

"""folded - folded stacks ("root;caller;callee cost" lines, the input of Brendan Gregg's
flamegraph.pl and of flame.py) from a callgrind call graph, and their reading and writing.

callgrind records a call graph, not stacks: per caller -> callee edge, the calls' count and
their inclusive cost, with no memory of who called the caller. A stack's cost is therefore
estimated top-down, by the assumption gprof makes for its call graph (Graham, Kessler and
McKusick, "gprof: a Call Graph Execution Profiler", SIGPLAN 1982; gprof's call graph listing:
a parent's calls over all the calls are "the fraction which divides up the function's time to
its parents"), with the calls' inclusive costs, which callgrind records, in place of their
counts. gprof2dot propagates a callee's cost to its callers by such a call ratio, and
KCachegrind's callee map nests a callee inside each caller by the call's inclusive cost. So a
function f reached along a path with cost w (a part of its inclusive cost I_f) puts
w * self_f / I_f on the path ending in f, and each callee g gets w * cost(f -> g) / I_f,
recursively. Without cycles the costs of one function over all its paths add up to its
inclusive cost, and the stacks' total is the profile's. Where the assumption fails (a callee
far more expensive from one caller than from another) a stack's cost is an average; the table
(diff.py) reads the exact per-function counts.

Cycles (a function reached again through its callees) are cut on each path: a call back into a
function already on the path is not followed, and its cost stays in the caller's own frame.
Following it would put f's inclusive cost inside itself again, without end; gprof and
gprof2dot merge a cycle's members into one node instead, which a tree of stacks cannot show.
Paths whose cost falls under min_fraction of the total, or deeper than MAX_DEPTH, are not
expanded further: the callee's frame then carries its whole share (the total stays).
"""

MAX_DEPTH = 64
MIN_FRACTION = 0.0005


def roots_of(profile):
    """The functions nothing called in this profile (its call graph's roots), largest
    inclusive cost first; when every function is called (the run began inside a cycle), the
    one with the largest inclusive cost."""
    called = {b for (a, b) in profile.calls if a != b}
    fs = profile.functions
    roots = [n for n in fs if n not in called and fs[n].incl > 0]
    if not roots and fs:
        roots = [max(fs, key=lambda n: fs[n].incl)]
    return sorted(roots, key=lambda n: (-fs[n].incl, n))


def callees(profile):
    """{caller: [(callee, inclusive cost of its calls)]}, self calls left out."""
    out = {}
    for (a, b), (_, cost) in sorted(profile.calls.items()):
        if a != b and cost > 0:
            out.setdefault(a, []).append((b, cost))
    return out


def fold(profile, min_fraction=MIN_FRACTION, max_depth=MAX_DEPTH):
    """{(frame, ...): cost} of a callgrind.Profile, root first (the module's rules; costs are
    floats of the profile's own unit, for its iterations)."""
    fs, out = profile.functions, {}
    edges = callees(profile)
    floor = profile.total * min_fraction

    def add(path, cost):
        if cost > 0:
            out[path] = out.get(path, 0.0) + cost

    def walk(name, path, weight):
        f = fs[name]
        path = path + (name,)
        if f.incl <= 0:
            return
        frac = weight / f.incl
        own = f.self_cost * frac
        for callee, cost in edges.get(name, ()):
            sub = cost * frac
            if callee in path or len(path) >= max_depth:
                own += sub  # a cycle broken, or too deep: the caller keeps it
            elif sub < floor or fs[callee].incl <= 0:
                add(path + (callee,), sub)
            else:
                walk(callee, path, sub)
        add(path, own)

    for root in roots_of(profile):
        walk(root, (), float(fs[root].incl))
    return out


class StackProfile:
    """Per-function costs of folded stacks, shaped as a callgrind.Profile for diff.rows:
    functions ({name: object with name, file '', line 0, self_cost, incl}), total, iterations
    (total / per: diff.rows then reads each cost as its share of per, e.g. of the nanoseconds
    per iteration the run measured)."""

    class Function:
        def __init__(self, name):
            self.name, self.file, self.line, self.self_cost, self.incl = name, "", 0, 0.0, 0.0

    def __init__(self, stacks, per=100.0):
        self.functions = {}
        self.total = float(sum(stacks.values()))
        self.iterations = self.total / per if self.total else 1.0
        for stack, cost in stacks.items():
            for name in set(stack):  # once per stack, however deep the recursion
                self._fn(name).incl += cost
            if stack:
                self._fn(stack[-1]).self_cost += cost

    def _fn(self, name):
        f = self.functions.get(name)
        if f is None:
            f = self.functions[name] = StackProfile.Function(name)
        return f


def scaled(stacks, factor):
    """The stacks with every cost multiplied by factor (e.g. 1 / iterations)."""
    return {k: v * factor for k, v in stacks.items()}


def write(stacks, path):
    """Writes stacks as folded lines "a;b;c cost", costs rounded to integers (flamegraph.pl
    reads integers), the largest first; a ';' inside a name becomes ':'."""
    with open(path, "w") as f:
        for k, v in sorted(stacks.items(), key=lambda kv: (-kv[1], kv[0])):
            n = int(round(v))
            if n > 0:
                f.write("%s %d\n" % (";".join(x.replace(";", ":") for x in k), n))


def read(path):
    """{(frame, ...): cost} from a folded file (write's format, flamegraph.pl's input).
    Errors: ValueError naming the file and line of a line without a trailing count."""
    out = {}
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip():
                continue
            stack, _, count = line.rpartition(" ")
            try:
                n = float(count)
            except ValueError:
                raise ValueError("%s:%d: not a folded line (stack count): %r" % (path, i, line))
            key = tuple(stack.split(";"))
            out[key] = out.get(key, 0.0) + n
    return out

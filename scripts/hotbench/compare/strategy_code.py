"""strategy_code - is one strategy's own code the same in two builds? Finer than objcode.py's
case: a change of one strategy's functions leaves the case's other strategies steady, so that
the phase correction (phases.py) can read them beside the changed one (steady.py).

A strategy is a row of one of its case's tables (hb_sink_strategies[] in cases/bufgrow/
bufgrow.c, the parser table of cases/rfc3339/rfc3339.c, volumes.c's): in an object file, a data
object (a symbol with a size) holding pointers to strings that name strategies, cut into
elements of equal stride (the greatest common divisor of those pointers' spacings), one row an
element, whatever the order of its fields. Its reach is everything the row points at and
everything that reaches, transitively, across the build (the cases it calls included; the
harness by name only, since the compare requires it byte-identical for this reading):
  - a function: its disassembly (binutils' objdump -d -r) with every address and PC-relative
    displacement taken out and each reference named: a relocation's target, and the function
    objdump names for a call the assembler resolved inside one .text (no relocation shows
    those: relocations alone would miss the callee), with its section's alignment;
  - a data object (a table, a hook variable, a policy): its bytes and its relocations, whose
    targets are followed in turn; a place no object covers: its whole section likewise;
  - a string (a local label such as .LC0 included): its content.
A strategy is the same in two builds when its rows and its reach are the same, and the rest of
its case too: the functions and data objects no row reaches, with what they reach (a strategy
table itself not followed: the bench loop calls every strategy through it), and each table's
size, stride and elements that are no strategy's row. Anything it cannot read (a strategy
without a row, a reference it cannot place, a table whose names are not evenly spaced,
objdump missing) answers None: unknown, never the same. Checked on the real objects: a
constant of parse_strtoll changed moves millis-strtoll alone; the helper three millis parsers
inline moves those three; strptime's format string moves strptime; volumes' bench loop moves
every volumes strategy (tests/test_strategy_code.py holds the same on a tiny case).
"""

import hashlib
import math
import os
import re
import shutil
import subprocess

from . import objcode

FUNC_RE = re.compile(r"^[0-9a-f]+ <(.+)>:$")
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
RELOC_IN_RE = re.compile(r"\t([0-9a-f]+): (R_\S+)\t(\S+)$")
TARGET_RE = re.compile(r"^(.*?)(?:([+-])0x([0-9a-f]+))?$")
SYMTAB_RE = re.compile(r"^([0-9a-f]+) (.{7}) (\S+)\t([0-9a-f]+) (.+)$")
BATCH = 100


class Unknown(Exception):
    """What cannot be read (str: what and where)."""


def target(text):
    """(name, addend) of a relocation target as objdump prints it: "free-0x4", ".text+0x1340",
    "lin_init"."""
    m = TARGET_RE.match(text)
    name, sign, num = m.groups()
    return name, (int(num, 16) * (-1 if sign == "-" else 1)) if num else 0


def normalise(insn, fname):
    """(text, refs) of one instruction line of objdump -d -r -w --no-show-raw-insn inside
    function fname: the line with addresses and PC-relative displacements taken out, and the
    names it references ("<name+0x..>" operands of other functions; a relocation's type,
    target and offset, returned as "@reloc:<type>:<offset>:<target>" for the caller to place)."""
    refs = []
    m = RELOC_IN_RE.search(insn)
    if m:
        insn = insn[:m.start()]
        refs.append("@reloc:%s:%s:%s" % (m.group(2), m.group(1), m.group(3)))
    else:
        for name in re.findall(r"<([^>+]+)(?:\+0x[0-9a-f]+)?>", insn):
            if name != fname:
                refs.append(name)
    text = re.sub(r"\b[0-9a-f]+ <", "<", insn)
    text = re.sub(r"-?0x[0-9a-f]+\(%rip\)", "(%rip)", text)
    if m:
        text = re.sub(r"<[^>]*>", "", text) + " " + m.group(2) + " " + m.group(3)
    return text.strip(), refs


def parse_disassembly(lines):
    """{function: (normalised lines, refs)} of one object's objdump -d -r -w output; a
    relocation's reference "@reloc:<type>:<bias>:<target>", bias the next instruction's
    address less the relocation's offset (what a PC-relative target is read at past its
    addend; "-" for the last instruction of a section)."""
    funcs, current, pending = {}, None, []
    for line in lines:
        m = FUNC_RE.match(line)
        if m:
            current = m.group(1)
            funcs[current] = ([], [])
            continue
        if line.startswith("Disassembly of section"):
            pending = settle(pending, None)
        m = INSN_RE.match(line)
        if m and current is not None:
            pending = settle(pending, int(m.group(1), 16))
            text, refs = normalise(m.group(2), current)
            funcs[current][0].append(text)
            for r in refs:
                funcs[current][1].append(r)
                if r.startswith("@reloc:"):
                    pending.append((funcs[current][1], len(funcs[current][1]) - 1))
    settle(pending, None)
    return funcs


def settle(pending, next_addr):
    """Writes the bias of each pending relocation reference ([(refs list, index)]) from the next
    instruction's address (None: unknown); returns []."""
    for refs, i in pending:
        typ, off, text = refs[i][len("@reloc:"):].split(":", 2)
        bias = "-" if next_addr is None else str(next_addr - int(off, 16))
        refs[i] = "@reloc:%s:%s:%s" % (typ, bias, text)
    return []


def parse_symtab(lines):
    """[(name, section, value, size, local, is_function)] of objdump -t's lines."""
    out = []
    for line in lines:
        m = SYMTAB_RE.match(line)
        if m:
            value, flags, section, size, name = m.groups()
            out.append((name.split()[-1], section, int(value, 16), int(size, 16),
                        flags[0] == "l", flags[6] == "F"))
    return out


def objdump(build_dir, rels):
    """{rel: objdump -d -r -t -w --no-show-raw-insn lines} of the objects rels; raises
    Unknown when objdump is missing or fails."""
    exe = shutil.which("objdump")
    if not exe:
        raise Unknown("objdump is not installed (Debian package binutils)")
    out = {}
    for i in range(0, len(rels), BATCH):
        batch = rels[i:i + BATCH]
        p = subprocess.run([exe, "-d", "-r", "-t", "-w", "--no-show-raw-insn"] + batch,
                           cwd=build_dir, capture_output=True, text=True, errors="replace")
        if p.returncode != 0:
            raise Unknown("objdump cannot read objects of %s: %s" % (
                build_dir, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[0]))
        current = None
        for line in p.stdout.splitlines():
            if line.endswith(":     file format elf64-x86-64") or \
                    re.match(r"^\S+\.o:\s+file format ", line):
                current = line.split(":")[0]
                continue
            if current is not None:
                out.setdefault(current, []).append(line)
    return {rel: out.get(rel, []) for rel in rels}


class Build:
    """The code of one build directory, read once: per object (rel) its functions'
    normalised disassembly and references, its symbols, its sections and data relocations.
    parts: {part: [rel]} as objcode.find_objects counts them. Raises Unknown."""

    def __init__(self, build_dir):
        self.dir = build_dir
        found = objcode.find_objects(build_dir)
        if not found:
            raise Unknown("no object files in %s" % build_dir)
        rels = sorted(found)
        self.parts, self.part = {}, {}
        for rel, (part, _) in found.items():
            self.parts.setdefault(part, []).append(rel)
            self.part[rel] = part
        try:
            elf = objcode.readelf(build_dir, rels)
        except objcode.Unreadable as e:
            raise Unknown(str(e))
        dis = objdump(build_dir, rels)
        self.funcs, self.syms, self.sections, self.relocs = {}, {}, {}, {}
        for rel in rels:
            self.sections[rel] = objcode.parse_sections(elf[rel])
            self.relocs[rel] = objcode.parse_relocations(elf[rel], self.sections[rel])
            self.funcs[rel] = parse_disassembly(dis[rel])
            self.syms[rel] = parse_symtab(dis[rel])
        self.globals = {}  # name: [objects defining it], "*COM*" (common) ones included
        for rel in rels:
            for name, section, _, _, local, isfunc in self.syms[rel]:
                if not local and section not in ("*UND*", "*ABS*"):
                    self.globals.setdefault(name, []).append(rel)
        self._bytes, self._users = {}, None

    def data(self, rel, section):
        """The bytes of section (a name) of object rel; raises Unknown when it has none."""
        key = (rel, section)
        if key not in self._bytes:
            s = next((s for s in self.sections[rel].values() if s["name"] == section), None)
            if s is None:
                raise Unknown("%s: no section %s" % (rel, section))
            if s["type"] == "NOBITS":
                self._bytes[key] = b"\0" * s["size"]
            else:
                try:
                    with open(os.path.join(self.dir, rel), "rb") as f:
                        f.seek(s["off"])
                        self._bytes[key] = f.read(s["size"])
                except OSError as e:
                    raise Unknown("%s: %s" % (rel, e))
        return self._bytes[key]

    def string(self, rel, section, offset):
        """The NUL-terminated string at offset of a string section; raises Unknown outside."""
        b = self.data(rel, section)
        if not 0 <= offset < len(b):
            raise Unknown("%s: no string at %s+%#x" % (rel, section, offset))
        end = b.find(b"\0", offset)
        return b[offset:end if end >= 0 else len(b)].decode("utf-8", "replace")

    def symbol_at(self, rel, section, offset, func):
        """The data object symbol of object rel covering offset in section, or None; for a
        function (func), the one starting nearest at or before offset (a label in the padding
        after a function's last instruction, which a jump table may hold, is that function's)."""
        if func:
            best = None
            for name, sec, value, size, _, isfunc in self.syms[rel]:
                if isfunc and sec == section and value <= offset and \
                        (best is None or value > best[1]):
                    best = (name, value)
            return best[0] if best else None
        for name, sec, value, size, _, isfunc in self.syms[rel]:
            if not isfunc and sec == section and size > 0 and value <= offset < value + size:
                return name
        return None

    def at(self, rel, section, offset):
        """The key of what lies at offset of section in object rel: a function, a string by
        content, a data object, else the whole section."""
        if section.startswith(".text"):
            fn = self.symbol_at(rel, section, offset, True)
            if fn is None:
                raise Unknown("%s: no function at %s%+#x" % (rel, section, offset))
            return ("f", rel, fn)
        if section.startswith(".rodata.str"):
            return ("s", self.string(rel, section, offset))
        obj = self.symbol_at(rel, section, offset, False)
        return ("o", rel, obj) if obj else ("d", rel, section)

    def place(self, rel, name, addend, bias=0):
        """A reference from object rel to (name, addend) as a key: ("f", rel, function),
        ("s", text) a string's content, ("o", rel, object) a data object, ("d", rel, section)
        a data section where no object covers the place, ("x", name) a symbol outside the
        build (libc, expat). A local label (.LC0) is placed by its section and value; bias: what
        a PC-relative reference is read at past its addend (parse_disassembly), 0 for an
        absolute one. A name defined more than once in the build (a weak and a strong one, a
        stale object) or a common symbol: Unknown, as anything it cannot place (a place read
        past an addend when the bias is None: the last instruction of a section)."""
        def past(x):
            if bias is None:
                raise Unknown("%s: a PC-relative reference to %s at a section's end" % (rel, name))
            return x + bias
        if any(s["name"] == name for s in self.sections[rel].values()):
            return self.at(rel, name, past(addend))
        own = [s for s in self.syms[rel] if s[0] == name and s[1] != "*UND*"]
        if own and own[0][4]:  # local to this object
            _, sec, value, size, _, isfunc = own[0]
            if isfunc:
                return ("f", rel, name)
            if size > 0 and not sec.startswith((".rodata.str", "*")):
                return ("o", rel, name)
            return self.at(rel, sec, past(value + addend))
        defs = self.globals.get(name, [])
        if not defs:
            return ("x", name)
        if len(defs) > 1:
            raise Unknown("%s is defined in %d objects (%s)" % (name, len(defs), ", ".join(defs)))
        other = defs[0]
        sym = next(s for s in self.syms[other] if s[0] == name and not s[4])
        if sym[1].startswith("*"):
            raise Unknown("%s: %s is a common symbol" % (other, name))
        return ("f", other, name) if sym[5] else ("o", other, name) if sym[3] > 0 else \
            self.at(other, sym[1], past(sym[2] + addend))

    def refs_of(self, rel, fn):
        """The reference keys (place()) of function fn of object rel."""
        out = []
        for r in self.funcs[rel].get(fn, ([], []))[1]:
            if r.startswith("@reloc:"):
                typ, bias, text = r[len("@reloc:"):].split(":", 2)
                name, addend = target(text)
                pcrel = any(t in typ for t in ("PC", "PLT", "GOTPC"))  # else absolute
                out.append(self.place(rel, name, addend, 0 if not pcrel else
                                      None if bias == "-" else int(bias)))
            else:
                out.append(self.place(rel, r, 0))
        return out

    def data_relocs(self, rel, section, lo=0, hi=None):
        """[(offset - lo, type, key)] of the relocations of a data section of object rel in
        [lo, hi), their targets placed (absolute: not PC-relative)."""
        idx = next((i for i, s in self.sections[rel].items() if s["name"] == section), None)
        if idx is None:
            raise Unknown("%s: no section %s" % (rel, section))
        out = []
        for off, typ, text in self.relocs[rel].get(idx, ()):
            o = int(off, 16)
            if o >= lo and (hi is None or o < hi):
                name, addend = readelf_target(text)
                out.append((o - lo, typ, self.place(rel, name, addend)))
        return sorted(out)

    def span(self, key):
        """(section, lo, hi) of a data key: an object's bytes, or a whole section."""
        if key[0] == "o":
            sym = next((s for s in self.syms[key[1]] if s[0] == key[2] and not s[5]), None)
            if sym is None:
                raise Unknown("%s: no data object %s" % (key[1], key[2]))
            return sym[1], sym[2], sym[2] + sym[3]
        return key[2], 0, None

    def refs_of_data(self, key):
        """The keys a data object or section points at."""
        section, lo, hi = self.span(key)
        return [k for _, _, k in self.data_relocs(key[1], section, lo, hi)]

    def digest(self, key):
        """sha256 hex of one key's own content: a function's normalised text (and its
        section's alignment), a data object's or section's bytes and placed relocations, a
        string, or an outside symbol by its name."""
        h = hashlib.sha256(repr(key[0]).encode())
        if key[0] == "f":
            if key[2] not in self.funcs[key[1]]:
                raise Unknown("%s: function %s not disassembled" % (key[1], key[2]))
            sec = next((s[1] for s in self.syms[key[1]] if s[0] == key[2] and s[5]), "")
            align = next((s["align"] for s in self.sections[key[1]].values()
                          if s["name"] == sec), 0)
            h.update(("%s %d\n" % (sec, align)).encode())
            h.update("\n".join(self.funcs[key[1]][key[2]][0]).encode())
        elif key[0] in "od":
            section, lo, hi = self.span(key)
            h.update(self.data(key[1], section)[lo:hi])
            for r in self.data_relocs(key[1], section, lo, hi):
                h.update(repr(r).encode())
        else:
            h.update(repr(key[1:]).encode())
        return h.hexdigest()

    def canonical(self, key):
        """A function key as objdump labelled it: an alias (another function symbol at the same
        section and value, as C++ constructors have) becomes the labelled name; a function or
        object of the harness (objcode.SHARED: the compare requires it the same bytes) an
        outside name."""
        if key[0] not in "fod":
            return key
        rel = key[1]
        if self.part.get(rel) == objcode.SHARED:
            return ("x", key[2])
        if key[0] != "f" or key[2] in self.funcs[rel]:
            return key
        name = key[2]
        sym = next((s for s in self.syms[rel] if s[0] == name and s[5]), None)
        if sym:
            for other in self.syms[rel]:
                if other[5] and other[1] == sym[1] and other[2] == sym[2] and \
                        other[0] in self.funcs[rel]:
                    return ("f", rel, other[0])
        raise Unknown("%s: function %s not disassembled" % (rel, name))

    def reach(self, keys, stop=()):
        """Every key reached from keys: functions' references and data objects' pointers
        followed, but not those of the keys in stop. Raises Unknown."""
        seen, todo = set(), [self.canonical(k) for k in keys]
        while todo:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            if k in stop:
                continue
            if k[0] == "f":
                todo.extend(self.canonical(r) for r in self.refs_of(k[1], k[2]))
            elif k[0] in "od":
                todo.extend(self.canonical(r) for r in self.refs_of_data(k))
                todo.extend(self.users().get(k, ()))
        return seen

    def users(self):
        """{writable data key: every function of the build's cases that references it}: what
        reads a table or a variable another function fills at run time reaches that function
        too (a strategy reading a table its case's set-up code writes). Read-only data (its
        bytes say it all) is left out."""
        if self._users is None:
            self._users = {}
            for rel, funcs in self.funcs.items():
                if self.part.get(rel) == objcode.SHARED:
                    continue
                for fn in funcs:
                    for k in self.refs_of(rel, fn):
                        k = self.canonical(k)
                        if k[0] in "od" and self.writable(k):
                            self._users.setdefault(k, set()).add(("f", rel, fn))
        return self._users

    def writable(self, key):
        """Whether a data key lies in a section the program writes (.data, .bss; not
        .data.rel.ro, which is read-only once relocated)."""
        section = self.span(key)[0]
        return section.startswith((".data", ".bss")) and not section.startswith(".data.rel.ro")

    def tables(self, part, names):
        """[(rel, object, stride, name offset, [(row start, strategy)])] of the data objects of
        part's objects that hold pointers to strategy names (names), each cut into rows of
        equal stride (the greatest common divisor of the spacings of those pointers, the
        object's size for one). Raises Unknown when no stride of at least a pointer divides
        the object."""
        out = []
        for rel in self.parts.get(part, []):
            for name, sec, value, size, _, isfunc in self.syms[rel]:
                if isfunc or size == 0 or sec.startswith((".text", ".rodata.str")) or \
                        sec in ("*UND*", "*ABS*", "*COM*"):
                    continue
                hits = [(o, k[1]) for o, _, k in self.data_relocs(rel, sec, value, value + size)
                        if k[0] == "s" and k[1] in names]
                if not hits:
                    continue
                offs = sorted(o for o, _ in hits)
                stride = 0
                for a, b in zip(offs, offs[1:]):
                    stride = math.gcd(stride, b - a)
                stride = stride or size
                if stride < 8 or size % stride:
                    raise Unknown("%s: %s's strategy names are not evenly spaced" % (rel, name))
                k0 = offs[0] % stride
                out.append((rel, name, stride, k0, [(o - k0, n) for o, n in hits]))
        return out

    def rows(self, part, names):
        """{strategy: [(row digest, [keys of the row's pointers])]} of the strategy rows of
        part's tables (tables()): each row is one element of its table, from its start to the
        next (so a function pointer before the name in the struct is the row's too)."""
        out = {}
        for rel, obj, stride, _, rows in self.tables(part, names):
            sec, lo, _ = self.span(("o", rel, obj))
            for start, strategy in rows:
                b, e = lo + start, lo + start + stride
                rel_rows = self.data_relocs(rel, sec, b, e)
                h = hashlib.sha256(self.data(rel, sec)[b:e])
                for r in rel_rows:
                    h.update(repr(r).encode())
                out.setdefault(strategy, []).append(
                    (h.hexdigest(), [k for _, _, k in rel_rows if k[0] != "s"]))
        return out


def readelf_target(text):
    """(name, addend) of readelf -r's "Symbol's Name + Addend" column ("free - 4", ".text +
    1340", "lin_init + 0")."""
    m = re.match(r"^(.*?)\s*(?:([+-])\s*([0-9a-f]+))?$", text.strip())
    name, sign, num = m.groups()
    return name, (int(num, 16) * (-1 if sign == "-" else 1)) if num else 0


def fingerprints(build, case, names):
    """({strategy: sha256 hex or None (unknown)}, common sha256 hex or None) of one case of a
    Build: each strategy's rows and everything they reach (across the build: the cases it
    calls included); common: what the rest of the case is and reaches: its functions and data
    objects no row reaches, and its tables' elements that are no strategy's row. names: every
    strategy name of the case's groups. Nothing is known (all None) when the tables cannot be
    cut into rows."""
    try:
        rows = build.rows(case, set(names))
    except Unknown:
        return {n: None for n in names}, None
    out, reached = {}, set()
    for n in names:
        try:
            rs = rows.get(n)
            if not rs:
                raise Unknown("no row of %s" % n)
            keys = build.reach([k for _, ks in rs for k in ks])
            reached |= keys
            h = hashlib.sha256()
            for d in sorted([d for d, _ in rs] + [build.digest(k) for k in keys]):
                h.update(d.encode())
            out[n] = h.hexdigest()
        except Unknown:
            out[n] = None
    try:
        common = rest_digest(build, case, names, reached)
    except Unknown:
        common = None
    return out, common


def rest_digest(build, case, names, reached):
    """sha256 hex of the case's code outside its strategies' rows (fingerprints()): its
    functions and data objects no row reaches and what they reach, a strategy table not
    followed (the bench loop calls every strategy through it: its rows are the strategies'),
    and each table's size, stride and elements that are no strategy's row."""
    tables = {(rel, obj): (stride, [st for st, _ in rs])
              for rel, obj, stride, _, rs in build.tables(case, set(names))}
    own = []
    for rel in sorted(build.parts.get(case, [])):
        own += [("f", rel, f) for f in build.funcs[rel] if ("f", rel, f) not in reached]
        own += [("o", rel, s[0]) for s in build.syms[rel]
                if not s[5] and s[3] > 0 and ("o", rel, s[0]) not in reached and
                (rel, s[0]) not in tables and
                not s[1].startswith((".text", ".rodata.str", ".eh_frame", "*"))]
    stop = {("o", rel, obj) for rel, obj in tables}
    h = hashlib.sha256()
    for d in sorted(build.digest(k) for k in build.reach(own, stop) if k not in stop):
        h.update(d.encode())
    for (rel, obj), (stride, starts) in sorted(tables.items()):
        sec, lo, hi = build.span(("o", rel, obj))
        h.update(("%s %s %d %d\n" % (rel, obj, hi - lo, stride)).encode())
        for b in range(0, hi - lo, stride):
            if b not in starts:
                h.update(build.data(rel, sec)[lo + b:lo + b + stride])
                for r in build.data_relocs(rel, sec, lo + b, lo + b + stride):
                    h.update(repr(r).encode())
                    if r[2][0] == "f":
                        h.update(build.digest(build.canonical(r[2])).encode())
    return h.hexdigest()

"""strategy_code - is one strategy's own code the same in two builds? Finer than objcode.py's
case: a change of one strategy's functions leaves the case's other strategies steady, so that
the phase correction (phases.py) can read them beside the changed one (steady.py).

A strategy is a row of one of its case's tables (hb_sink_strategies[] in cases/bufgrow/
bufgrow.c, the parser table of cases/rfc3339/rfc3339.c, volumes.c's): in an object file, a
run of relocations in a data section that starts at a pointer to the string naming it and
holds pointers to its functions, up to the next pointer to a strategy's name. Its reach is
those functions and every function they reference, transitively, across the case and the
cases it calls (by name: a static function in its own object, else a global one). A function's
fingerprint is its disassembly (binutils' objdump -d -r) with every address and every
PC-relative displacement taken out and each reference named (a relocation's symbol, or the
function objdump names for a call the assembler resolved inside one .text: those calls carry
no relocation, so relocations alone would miss the callee), plus the bytes of every data
section it references. A strategy is the same in two builds when
  - its row and the fingerprints of every function it reaches are the same;
  - the rest of its case is the same: the functions no strategy row reaches (the case's
    bench.c loop, its registration) and the data sections outside the strategy rows;
  - the harness is the same (objcode.py's SHARED part; the compare asks objcode for it).
Anything it cannot read (a strategy without a row, a relocation it cannot place, objdump
missing) answers None: unknown, never the same.
"""

import hashlib
import os
import re
import shutil
import subprocess

from . import objcode

FUNC_RE = re.compile(r"^[0-9a-f]+ <(.+)>:$")
INSN_RE = re.compile(r"^\s*[0-9a-f]+:\t(.*)$")
RELOC_IN_RE = re.compile(r"\t[0-9a-f]+: (R_\S+)\t(\S+)$")
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
    names it references ("<name+0x..>" operands of other functions; a relocation's target,
    returned as "@reloc:<target>" for the caller to place)."""
    refs = []
    m = RELOC_IN_RE.search(insn)
    if m:
        insn = insn[:m.start()]
        refs.append("@reloc:" + m.group(2))
    else:
        for name in re.findall(r"<([^>+]+)(?:\+0x[0-9a-f]+)?>", insn):
            if name != fname:
                refs.append(name)
    text = re.sub(r"\b[0-9a-f]+ <", "<", insn)
    text = re.sub(r"-?0x[0-9a-f]+\(%rip\)", "(%rip)", text)
    if m:
        text = re.sub(r"<[^>]*>", "", text) + " " + m.group(1) + " " + m.group(2)
    return text.strip(), refs


def parse_disassembly(lines):
    """{function: (normalised lines, refs)} of one object's objdump -d -r -w output."""
    funcs, current = {}, None
    for line in lines:
        m = FUNC_RE.match(line)
        if m:
            current = m.group(1)
            funcs[current] = ([], [])
            continue
        m = INSN_RE.match(line)
        if m and current is not None:
            text, refs = normalise(m.group(1), current)
            funcs[current][0].append(text)
            funcs[current][1].extend(refs)
    return funcs


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
        self.globals = {}
        for rel in rels:
            for name, section, _, _, local, isfunc in self.syms[rel]:
                if not local and section not in ("*UND*", "*ABS*", "*COM*"):
                    self.globals.setdefault(name, rel)
        self._bytes = {}

    def data(self, rel, section):
        """The bytes of section (a name) of object rel."""
        key = (rel, section)
        if key not in self._bytes:
            s = next((s for s in self.sections[rel].values() if s["name"] == section), None)
            if s is None or s["type"] == "NOBITS":
                self._bytes[key] = b"" if s is None else b"\0" * s["size"]
            else:
                with open(os.path.join(self.dir, rel), "rb") as f:
                    f.seek(s["off"])
                    self._bytes[key] = f.read(s["size"])
        return self._bytes[key]

    def string(self, rel, section, offset):
        """The NUL-terminated string at offset of a string section, or None."""
        b = self.data(rel, section)
        if not 0 <= offset < len(b):
            return None
        return b[offset:b.index(b"\0", offset) if b"\0" in b[offset:] else len(b)].decode(
            "utf-8", "replace")

    def function_at(self, rel, section, offset):
        """The function of object rel whose symbol covers offset in section, or None."""
        for name, sec, value, size, _, isfunc in self.syms[rel]:
            if isfunc and sec == section and value <= offset < value + max(size, 1):
                return name
        return None

    def place(self, rel, name, addend, pcrel):
        """A reference from object rel to (name, addend) as a key: ("f", rel, function),
        ("s", text) for a string's content, ("d", rel, section) for a data section,
        ("x", name) for a symbol outside the build (libc, expat). Raises Unknown."""
        if name.startswith("."):
            at = addend + (4 if pcrel else 0)
            if name.startswith(".text"):
                fn = self.function_at(rel, name, at) if not pcrel else next(
                    (f for f in (self.function_at(rel, name, addend + k) for k in range(4, 9))
                     if f), None)
                if fn is None:
                    raise Unknown("%s: no function at %s+%#x" % (rel, name, at))
                return ("f", rel, fn)
            if name.startswith(".rodata.str"):
                return ("s", self.string(rel, name, at))
            return ("d", rel, name)
        own = [s for s in self.syms[rel] if s[0] == name and s[1] not in ("*UND*",)]
        if own:
            return ("f", rel, name) if own[0][5] else ("d", rel, own[0][1])
        other = self.globals.get(name)
        if other is None:
            return ("x", name)
        sym = next(s for s in self.syms[other] if s[0] == name and not s[4])
        return ("f", other, name) if sym[5] else ("d", other, sym[1])

    def refs_of(self, rel, fn):
        """The reference keys (place()) of function fn of object rel."""
        out = []
        for r in self.funcs[rel].get(fn, ([], []))[1]:
            if r.startswith("@reloc:"):
                name, addend = target(r[len("@reloc:"):])
                out.append(self.place(rel, name, addend, True))
            else:
                out.append(self.place(rel, r, 0, False))
        return out

    def digest(self, key):
        """sha256 hex of one reference key's own content: a function's normalised text, a
        data section's bytes, a string or an outside symbol by its name."""
        h = hashlib.sha256(repr(key[0]).encode())
        if key[0] == "f":
            if key[2] not in self.funcs[key[1]]:
                raise Unknown("%s: function %s not disassembled" % (key[1], key[2]))
            h.update("\n".join(self.funcs[key[1]][key[2]][0]).encode())
        elif key[0] == "d":
            h.update(self.data(key[1], key[2]))
        else:
            h.update(repr(key[1:]).encode())
        return h.hexdigest()

    def canonical(self, key):
        """A function key as objdump labelled it: an alias (another function symbol at the same
        section and value, as C++ constructors have) becomes the labelled name; a function of
        the harness (objcode.SHARED, the same bytes or the compare says so) an outside name."""
        if key[0] != "f":
            return key
        rel, name = key[1], key[2]
        if self.part.get(rel) == objcode.SHARED:
            return ("x", name)
        if name in self.funcs[rel]:
            return key
        sym = next((s for s in self.syms[rel] if s[0] == name and s[5]), None)
        if sym:
            for other in self.syms[rel]:
                if other[5] and other[1] == sym[1] and other[2] == sym[2] and \
                        other[0] in self.funcs[rel]:
                    return ("f", rel, other[0])
        raise Unknown("%s: function %s not disassembled" % (rel, name))

    def reach(self, keys):
        """Every function key reached from keys (references followed), and the other keys
        met (data, strings, outside symbols). Raises Unknown."""
        seen, todo = set(), [self.canonical(k) for k in keys]
        while todo:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            if k[0] == "f":
                todo.extend(self.canonical(r) for r in self.refs_of(k[1], k[2]))
        return seen

    def rows(self, part, names):
        """{strategy: [(row digest, [function keys])]} of the strategy rows in part's objects'
        data sections: a pointer to a string in names (every strategy name of the case) starts
        a row, which takes the function pointers after it up to the next such string
        (readelf's relocations in offset order); a pointer it cannot place is kept as ("?",
        text), which makes the strategy unknown."""
        out = {}
        for rel in self.parts.get(part, []):
            for idx, relocs in self.relocs[rel].items():
                section = self.sections[rel][idx]["name"]
                if section.startswith(".text"):
                    continue
                current = None
                for off, typ, text in sorted(relocs, key=lambda r: int(r[0], 16)):
                    name, addend = readelf_target(text)
                    try:
                        key = self.place(rel, name, addend, False)
                    except Unknown:
                        key = ("?", text)  # a pointer not placed: the row is unknown
                    if key[0] == "s" and key[1] in names:
                        current = [hashlib.sha256(("%s %s" % (section, key[1])).encode()), []]
                        out.setdefault(key[1], []).append(current)
                    if current is not None:
                        current[0].update(("%s %s\n" % (typ, key)).encode())
                        current[1].append(key)
        return {n: [(d.hexdigest(), [k for k in ks if k[0] in "f?"]) for d, ks in rs]
                for n, rs in out.items()}


def readelf_target(text):
    """(name, addend) of readelf -r's "Symbol's Name + Addend" column ("free - 4", ".text +
    1340", "lin_init + 0")."""
    m = re.match(r"^(.*?)\s*(?:([+-])\s*([0-9a-f]+))?$", text.strip())
    name, sign, num = m.groups()
    return name, (int(num, 16) * (-1 if sign == "-" else 1)) if num else 0


def fingerprints(build, case, names):
    """({strategy: sha256 hex or None (unknown)}, common sha256 hex or None) of one case of a
    Build: each strategy's rows and everything they reach (across the build: the cases it
    calls included); common: the case's own functions no row reaches, everything those reach,
    and the case's data sections, string sections left out (a string counts where a function
    or row points at it). names: every strategy name of the case's groups."""
    rows = build.rows(case, set(names))
    out, reached = {}, set()
    for n in names:
        rs = rows.get(n)
        try:
            if not rs or any(k[0] == "?" for _, ks in rs for k in ks):
                raise Unknown("no row of %s" % n)
            keys = build.reach([k for _, ks in rs for k in ks])
            reached |= keys
            h = hashlib.sha256()
            for d, _ in sorted(rs):
                h.update(d.encode())
            for d in sorted(build.digest(k) for k in keys):
                h.update(d.encode())
            out[n] = h.hexdigest()
        except Unknown:
            out[n] = None
    try:
        own = [("f", rel, f) for rel in sorted(build.parts.get(case, []))
               for f in build.funcs[rel] if ("f", rel, f) not in reached]
        h = hashlib.sha256()
        for d in sorted(build.digest(k) for k in build.reach(own)):
            h.update(d.encode())
        for rel in sorted(build.parts.get(case, [])):
            for s in sorted(build.sections[rel].values(), key=lambda s: s["name"]):
                if objcode.counted(s) and not s["name"].startswith((".text", ".rodata.str",
                                                                   ".eh_frame")):
                    h.update(s["name"].encode() + build.data(rel, s["name"]))
        common = h.hexdigest()
    except Unknown:
        common = None
    return out, common

"""objcode - the compare's second witness (issue 31 item 2): is a case's object code the same
bytes in two builds? A time regression of a strategy whose code did not change, and whose
instruction count did not move, is then noise of the binary's placement, not of the change.

Where the bytes come from: a CMake build directory keeps every object file at
<build>/<folder>/CMakeFiles/<target>.dir/<source>.o, <folder> being the source folder whose
CMakeLists.txt defines the target ('' at the top) and <source> the source's path below it (a
'..' written '__'). An object counts for the part its source is in, when its target's folder
holds that source (a fuzz or test target recompiling a case's file elsewhere does not count):
  - "<case>": the sources under cases/<case>/ (cases.def's name: the folder; a manifest group's
    case is Manifest.case_of(group)["name"]);
  - SHARED ("harness"): harness/, data-gen/ and tools/hotbench.c (what every benchmark runs
    through), less BUILD_INFO (harness/hb_build_info.c, the build's revision, compiler and flags:
    the only bytes two builds of the same code may differ in).
Other objects (hotbench-gen's, hotbench-decode's, the tests') are ignored.

What an object contributes (binutils' readelf, the one tool used; its text output, with the
section bytes read from the file at the offsets it gives):
  - every section with the SHF_ALLOC flag (.text*, .rodata*, .data*, .init_array, ...) but the
    .note* ones (build properties, no code): its name, type, flags, size and alignment and,
    unless it is NOBITS (.bss: the size only), its bytes. .eh_frame is included: it is made
    from the code alone, so it differs only where the code does, and leaving it out would need
    a rule of its own;
  - the relocations of those sections: (offset, type, symbol name + addend), a section symbol
    by its section's name, so that the same bytes calling or loading different symbols differ
    (readelf's symbol index and value columns are left out: they move when unrelated symbols
    are added);
  - its symbols but the FILE ones, sorted: (name, type, binding, visibility, section, value,
    size), undefined ones included.
Never: .comment, .debug*, .note*, .group, the symbol and string tables' own bytes. So a comment,
a path or -g changes nothing; any change of the code, its constants or what it calls does.

A case that calls another case's code (a symbol its objects use undefined is defined in the
other's: DESIGN.md lets a case use another's public header) includes the other's objects in its
fingerprint, transitively; calls into SHARED are covered by SHARED itself.

Stale objects (a source removed since the build directory's last build) stay in it and count:
they can only make two builds differ, never hide a difference. Objects of link-time
optimisation (gcc's .gnu.lto_*, clang's bitcode) hold no machine code: the answer is unknown.

    prints, why = fingerprints("build-rev/<commit>")
    same, text = Witness("build-rev/<base>", "build-ci").unchanged(case)
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys

SHARED = "harness"
SHARED_SOURCES = ("harness/", "data-gen/", "tools/hotbench.c")
BUILD_INFO = "hb_build_info.c"  # left out by its file name (harness/hb_build_info.h says why)
CASES = "cases/"

OBJECT_RE = re.compile(r"^(?:(?P<folder>.+)/)?CMakeFiles/[^/]+\.dir/(?P<source>.+)\.o$")
FILE_RE = re.compile(r"^File: (.*)$")
SECTION_RE = re.compile(r"^\s*\[\s*(\d+)\]\s+(.*?)\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+"
                        r"([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s*(\d+)\s+(\d+)\s+(\d+)\s*$")
RELOC_HEAD_RE = re.compile(r"^Relocation section '.*' at offset 0x([0-9a-f]+) contains")
SYMBOL_RE = re.compile(r"^\s*\d+:\s+([0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+"
                       r"(?:\[[^\]]*\]\s+)?(\S+)\s?(.*)$")
LTO_PREFIXES = (".gnu.lto_", ".llvm.lto", ".llvmbc")
BATCH = 200  # objects per readelf call


class Unreadable(Exception):
    """An object file readelf cannot read, or one without machine code (str: what and where)."""


def part_of(rel):
    """(part, source) of an object at rel (its path below the build directory, '/'-separated):
    part is a case's folder name, SHARED, or None when the object counts for nothing; source
    the path of the file it was compiled from, relative to the source tree (None when rel is
    not a CMake object path)."""
    m = OBJECT_RE.match(rel)
    if not m:
        return None, None
    folder = m.group("folder") or ""
    parts = m.group("source").split("/")
    if "__" in parts:  # CMake's name for '..': compiled from outside its target's folder
        return None, None
    source = "/".join(([folder] if folder else []) + parts)
    if os.path.basename(source) == BUILD_INFO:
        return None, source
    if source.startswith(CASES) and source.count("/") >= 2:
        return source.split("/")[1], source
    if any(source == s or (s.endswith("/") and source.startswith(s)) for s in SHARED_SOURCES):
        return SHARED, source
    return None, source


def find_objects(build_dir):
    """{rel: (part, source)} of the objects below build_dir that count (part_of), rel the
    object's path below build_dir with '/' separators; {} when there are none (a missing
    directory included). Symbolic links are not followed."""
    found = {}
    for top, dirs, files in os.walk(build_dir):
        dirs.sort()
        for name in files:
            if not name.endswith(".o"):
                continue
            rel = os.path.relpath(os.path.join(top, name), build_dir).replace(os.sep, "/")
            part, source = part_of(rel)
            if part is not None:
                found[rel] = (part, source)
    return found


def readelf(build_dir, rels):
    """{rel: readelf's -S -s -r text of that object} for the objects rels (paths below
    build_dir), in calls of BATCH objects run in build_dir. Raises Unreadable naming the object
    and readelf's message when it fails, or when readelf is not installed."""
    exe = shutil.which("readelf")
    if not exe:
        raise Unreadable("readelf is not installed (Debian package binutils)")
    out = {}
    for i in range(0, len(rels), BATCH):
        batch = rels[i:i + BATCH]
        p = subprocess.run([exe, "-S", "-s", "-r", "-W"] + batch, cwd=build_dir,
                           capture_output=True, text=True, errors="replace")
        err = [line for line in p.stderr.splitlines() if line.strip()]
        if p.returncode != 0 or err:
            raise Unreadable("readelf cannot read objects of %s: %s" % (
                build_dir, err[0] if err else "exit status %d" % p.returncode))
        current = batch[0] if len(batch) == 1 else None
        for line in p.stdout.splitlines():
            m = FILE_RE.match(line)
            if m:
                current = m.group(1)
                continue
            if current is not None:
                out.setdefault(current, []).append(line)
    return {rel: out.get(rel, []) for rel in rels}


def parse_sections(lines):
    """{index: dict(name, type, off, size, flags, link, info, align)} of readelf -S -W's
    section table (offsets and sizes as int)."""
    sections = {}
    for line in lines:
        m = SECTION_RE.match(line)
        if m:
            idx, name, typ, off, size, flags, link, info, align = m.groups()
            sections[int(idx)] = dict(name=name, type=typ, off=int(off, 16), size=int(size, 16),
                                      flags=flags, link=int(link), info=int(info),
                                      align=int(align))
    return sections


def counted(section):
    """Whether a section's contents are code or data of the program: SHF_ALLOC, not a note."""
    return "A" in section["flags"] and not section["name"].startswith(".note")


def parse_relocations(lines, sections):
    """{section index: [(offset, type, 'symbol + addend'), ...]} of readelf -r -W's tables, for
    the sections counted() only (a relocation table is matched to its section by its file
    offset, then the table's sh_info)."""
    by_offset = {s["off"]: s for s in sections.values() if s["type"] in ("RELA", "REL")}
    relocs, target = {}, None
    for line in lines:
        m = RELOC_HEAD_RE.match(line)
        if m:
            table = by_offset.get(int(m.group(1), 16))
            target = table["info"] if table else None
            if target not in sections or not counted(sections[target]):
                target = None
            continue
        words = line.split()
        if target is None or len(words) < 4 or not re.match(r"^[0-9a-f]+$", words[0]):
            if not line.strip():
                target = None
            continue
        rest = words[4:] if len(words) > 4 else words[3:]
        relocs.setdefault(target, []).append((words[0], words[2], " ".join(rest)))
    return relocs


def parse_symbols(lines, sections):
    """Sorted [(name, type, bind, vis, section, value, size)] of readelf -s -W's symbol table,
    FILE symbols left out; section is the section's name, or UND/ABS/COM."""
    out = []
    for line in lines:
        m = SYMBOL_RE.match(line)
        if not m:
            continue
        value, size, typ, bind, vis, ndx, name = m.groups()
        if typ == "FILE":
            continue
        if ndx.isdigit():
            ndx = sections.get(int(ndx), {}).get("name", ndx)
        out.append((name, typ, bind, vis, ndx, value, size))
    return sorted(out)


def object_digest(path, lines):
    """(sha256 hex, defined, undefined) of one object file at path, lines its readelf text:
    the digest of its counted sections' attributes and bytes, their relocations and its
    symbols (the module's docstring); defined/undefined: sets of its global symbol names.
    Raises Unreadable when the file cannot be read or holds link-time-optimisation code."""
    sections = parse_sections(lines)
    if not sections:
        raise Unreadable("%s: readelf found no section table" % path)
    lto = [s["name"] for s in sections.values() if s["name"].startswith(LTO_PREFIXES)]
    if lto:
        raise Unreadable("%s holds link-time optimisation code (%s): its machine code is made "
                         "at link time, not in the object file" % (path, lto[0]))
    relocs = parse_relocations(lines, sections)
    symbols = parse_symbols(lines, sections)
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for idx in sorted(sections):
                s = sections[idx]
                if not counted(s):
                    continue
                h.update(("S %(name)s %(type)s %(flags)s %(size)d %(align)d\n" % s).encode())
                if s["type"] != "NOBITS":
                    f.seek(s["off"])
                    data = f.read(s["size"])
                    if len(data) != s["size"]:
                        raise Unreadable("%s: section %s is cut short" % (path, s["name"]))
                    h.update(data)
                for r in relocs.get(idx, ()):
                    h.update(("R %s %s %s\n" % r).encode())
    except OSError as e:
        raise Unreadable("%s: %s" % (path, e.strerror or e))
    for sym in symbols:
        h.update(("Y %s\n" % " ".join(sym)).encode())
    defined = {s[0] for s in symbols if s[2] in ("GLOBAL", "WEAK", "UNIQUE") and
               s[4] != "UND" and s[0]}
    undefined = {s[0] for s in symbols if s[4] == "UND" and s[0]}
    return h.hexdigest(), defined, undefined


def scan(build_dir):
    """(parts, reason) of one build directory. parts: {part: dict(objects={rel: sha256 hex},
    sources={rel: source path}, defined=set, undefined=set)} for SHARED and every case with
    objects; reason '' . When the answer is unknown, parts is None and reason says why (no
    directory, no objects, readelf failed, link-time optimisation)."""
    if not os.path.isdir(build_dir):
        return None, "no build directory %s" % build_dir
    found = find_objects(build_dir)
    if not found:
        return None, "no object files of %s or %s* in %s (CMakeFiles/<target>.dir/*.o)" % (
            ", ".join(SHARED_SOURCES), CASES, build_dir)
    if SHARED in {source.split("/")[1] for _, source in found.values()
                  if source.startswith(CASES)}:
        return None, "a case folder is named %s%s, the shared part's name" % (CASES, SHARED)
    rels = sorted(found)
    try:
        texts = readelf(build_dir, rels)
        parts = {}
        for rel in rels:
            part, source = found[rel]
            digest, defined, undefined = object_digest(os.path.join(build_dir, rel), texts[rel])
            p = parts.setdefault(part, dict(objects={}, sources={}, defined=set(),
                                            undefined=set()))
            p["objects"][rel] = digest
            p["sources"][rel] = source
            p["defined"] |= defined
            p["undefined"] |= undefined
    except Unreadable as e:
        return None, str(e)
    return parts, ""


def own_digest(part):
    """sha256 hex of one part of scan(): its objects' paths and digests, in path order."""
    h = hashlib.sha256()
    for rel, digest in sorted(part["objects"].items()):
        h.update(("%s %s\n" % (rel, digest)).encode())
    return h.hexdigest()


def calls(parts, case):
    """The other cases whose code case's objects use, transitively (a sorted list of part
    names; SHARED never in it): a symbol undefined in one case's objects and defined in
    another's."""
    seen, todo = set(), [case]
    while todo:
        c = todo.pop()
        for other, p in parts.items():
            if other not in (SHARED, case) and other not in seen and \
                    parts[c]["undefined"] & p["defined"]:
                seen.add(other)
                todo.append(other)
    return sorted(seen)


def fingerprints(build_dir):
    """(prints, reason) of one build directory (a str path: build-rev/<commit>/, build-ci/, ...).
    prints: {part: sha256 hex} with SHARED's fingerprint and one per case with objects, a
    case's covering its own objects and those of the cases it calls (calls()); reason ''.
    When the objects cannot be read (scan()), prints is None and reason says why. Takes about
    0.5 s on this project's build directory (one readelf call)."""
    parts, reason = scan(build_dir)
    if parts is None:
        return None, reason
    prints = {}
    for name, part in parts.items():
        if name == SHARED:
            prints[name] = own_digest(part)
            continue
        h = hashlib.sha256()
        for c in [name] + calls(parts, name):
            h.update(("%s %s\n" % (c, own_digest(parts[c]))).encode())
        prints[name] = h.hexdigest()
    return prints, ""


def differing_sources(base, head):
    """The sources (sorted) of the objects that differ between two parts of scan(), an object
    present on one side only included."""
    rels = set(base["objects"]) | set(head["objects"])
    return sorted((head["sources"].get(rel) or base["sources"].get(rel)) for rel in rels
                  if base["objects"].get(rel) != head["objects"].get(rel))


class Witness:
    """The object code of two builds, read once (two scan() calls, about 1 s in all), asked
    case by case: Witness(base_dir, head_dir).unchanged(case). base_dir, head_dir: str paths
    of build directories (build-rev/<commit>/, build-ci/, ...). Holds no files open."""

    def __init__(self, base_dir, head_dir):
        self.dirs = dict(base=base_dir, head=head_dir)
        self.scans, self.unknown = {}, ""
        for label in ("base", "head"):
            parts, reason = scan(self.dirs[label])
            if parts is None:
                self.unknown = "the %s build's object code is unknown: %s" % (label, reason)
                break
            self.scans[label] = parts

    def unchanged(self, case):
        """(same, text): whether case's code (its folder cases/<case>/, the cases it calls,
        and SHARED) is byte-identical in the two builds. same is True (identical; text counts
        the objects), False (a difference; text names each, '; '-separated: "cases/x objects
        differ (cases/x/p.c)", "the harness differs (harness/q.c)", "cases/y objects differ
        (...) (cases/x calls them)", "cases/x has objects in the head build only") or None
        (unknown: either build's objects cannot be read, or neither build has objects of the
        case; text says which and why). Never raises for bad input."""
        if self.unknown:
            return None, self.unknown
        base, head = self.scans["base"], self.scans["head"]
        if case not in base and case not in head:
            return None, "neither build has objects of %s%s/" % (CASES, case)
        callees = set(calls(base, case) if case in base else []) | \
            set(calls(head, case) if case in head else [])
        diffs = []
        for name in [case] + sorted(callees):
            why = "" if name == case else " (%s%s calls them)" % (CASES, case)
            if name not in base or name not in head:
                diffs.append("%s%s has objects in the %s build only%s" % (
                    CASES, name, "head" if name in head else "base", why))
            elif own_digest(base[name]) != own_digest(head[name]):
                diffs.append("%s%s objects differ (%s)%s" % (
                    CASES, name, ", ".join(differing_sources(base[name], head[name])), why))
        if SHARED not in base or SHARED not in head:
            diffs.append("the %s has objects in one build only" % SHARED)
        elif own_digest(base[SHARED]) != own_digest(head[SHARED]):
            diffs.append("the %s differs (%s)" % (
                SHARED, ", ".join(differing_sources(base[SHARED], head[SHARED]))))
        if diffs:
            return False, "; ".join(diffs)
        n = sum(len(head[name]["objects"]) for name in [case, SHARED] + sorted(callees))
        return True, "%s%s/, the cases it calls and the %s: %d objects, byte-identical" % (
            CASES, case, SHARED, n)


def unchanged(base_dir, head_dir, case):
    """Witness(base_dir, head_dir).unchanged(case): one question, both builds read for it (ask
    a Witness when there are several cases)."""
    return Witness(base_dir, head_dir).unchanged(case)


USAGE = """usage: python3 -m hotbench.compare.objcode BUILD_DIR [HEAD_DIR [CASE ...]]
  (run in scripts/) BUILD_DIR alone: its object-code fingerprint per case and for the shared
  code (fingerprints()); two build directories: whether each CASE's code (every case of either
  build when none is named) is byte-identical in both (unchanged()). Exit status: 0 answered,
  1 unknown (the reason on stderr, or in the case's line), 2 usage."""


def main(argv):
    """The command line of USAGE; argv without the program name. Returns the exit status."""
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if not argv or argv[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        return 2
    if len(argv) == 1:
        prints, reason = fingerprints(argv[0])
        if prints is None:
            print("objcode: " + reason, file=sys.stderr)
            return 1
        for name in sorted(prints):
            print("%s %s" % (prints[name], name))
        return 0
    witness = Witness(argv[0], argv[1])
    if witness.unknown:
        print("objcode: " + witness.unknown, file=sys.stderr)
        return 1
    cases = argv[2:] or sorted(set().union(*witness.scans.values()) - {SHARED})
    status = 0
    for case in cases:
        same, text = witness.unchanged(case)
        word = {True: "unchanged", False: "changed"}.get(same, "unknown")
        print("%s: %s: %s" % (case, word, text))
        status = 1 if same is None else status
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

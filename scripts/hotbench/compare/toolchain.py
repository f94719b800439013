"""toolchain - what each side of a compare was built with, from its run JSON's context: the
compiler (hb_compiler), google-benchmark's version (hb_benchmark_version) and every library
version the runner or a case records (keys ending in _version: expat_version, zlib_version,
libxml2_version, hb_allocator_version, ...). Two builds of one machine normally agree; when they
do not (a package upgraded between the two builds, a revision that finds another compiler), a
difference in the table may be the toolchain's rather than the change's, and the compare says
so (measurement rule 9: like with like)."""

KEYS = ("hb_compiler", "hb_benchmark_version")
NOT_TOOLCHAIN = ("json_schema_version",)  # google-benchmark 1.9's JSON format, not a library


def describe(context):
    """{key: value} of the toolchain keys present in one run's context (a dict; {} -> {})."""
    return {k: str(v) for k, v in sorted((context or {}).items())
            if k in KEYS or (k.endswith("_version") and k not in NOT_TOOLCHAIN)}


def compare(contexts):
    """contexts: {"base": context, "head": context} (either may be missing). Returns
    {"base": {...}, "head": {...}, "differs": [key, ...], "one_side": [key, ...]}: differs lists
    the keys both sides record with different values; one_side the keys only one side records
    (a revision older than the key: no evidence of a difference, so no warning)."""
    sides = {label: describe(contexts.get(label)) for label in ("base", "head")}
    both = set(sides["base"]) & set(sides["head"])
    differs = sorted(k for k in both if sides["base"][k] != sides["head"][k])
    one_side = sorted(set(sides["base"]) ^ set(sides["head"]))
    if not (contexts.get("base") and contexts.get("head")):
        one_side = []
    return dict(sides, differs=differs, one_side=one_side)


def warning_lines(tc):
    """The table's warning lines for a toolchain comparison (compare()'s result; [] when the
    two sides agree or tc is None)."""
    if not tc or not tc.get("differs"):
        return []
    out = ["warning: the two sides were built with different toolchains; a change below may "
           "be the toolchain's, not the code's:"]
    for k in tc["differs"]:
        out.append("  %s: base %s, head %s" % (k, tc["base"][k], tc["head"][k]))
    return out

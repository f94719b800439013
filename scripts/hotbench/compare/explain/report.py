"""report - the explanations (core.explain_benchmark's dicts) as Markdown, for compare.md and
explain.md (GitHub's job summary and GitLab's job log show it), and as plain lines for the
console: per strategy, what was profiled and how, the table of the functions whose exclusive
cost changed most (function, file:line, base, head, change, new/gone) and the flame graph's
file."""

HEADING = "## Where: per-function profiles, base against head"
INTRO = ("Each strategy below was profiled on one size in both builds under callgrind (one "
         "iteration, the instruction check's fixed hash salts): the functions whose own "
         "(exclusive) instructions per iteration changed most, the change also as a share of "
         "the base's total; `new`: only the head runs it, `gone`: only the base. The flame "
         "graph's width is the head's cost, its colour the change (red more, blue less).")


def count(x):
    """An instruction count per iteration: thousands separated, 3 digits under 100."""
    return "{:,.0f}".format(x) if abs(x) >= 100 else "{:.3g}".format(x)


def signed(x):
    return ("+" if x > 0 else "") + count(x)


def share(x):
    return "" if x is None else " (%+.2f%%)" % (100 * x)


def where(row):
    return "%s:%d" % (row["file"], row["line"]) if row["file"] and row["line"] else \
        row["file"] or ""


def summary_line(e):
    """'rfc3339/swar/rows:1000/real_time, instructions per iteration 299,364 -> 359,132
    (+20.0%); callgrind only (perf unavailable: ...)'."""
    ins = e.get("instructions")
    what = e["benchmark"]
    if ins:
        what += ", instructions per iteration %s -> %s%s" % (
            count(ins["base"]), count(ins["head"]),
            " (%+.1f%%)" % (100 * ins["change"]) if ins.get("change") is not None else "")
    if e.get("decided_by"):
        what += "; decided by %s" % e["decided_by"]
    return what + "; " + e["source"]


def md_table(rows, unit_fmt=count, delta_fmt=signed):
    """The Markdown table of diff.rows."""
    out = ["| function | file:line | base | head | change | new/gone |",
           "|---|---|---:|---:|---:|---|"]
    for r in rows:
        out.append("| `%s` | %s | %s | %s | %s%s | %s |" % (
            r["function"].replace("|", "\\|"), where(r), unit_fmt(r["base"]),
            unit_fmt(r["head"]), delta_fmt(r["change"]), share(r.get("share")), r["status"]))
    return out


def markdown(entries):
    """The section (str) for compare.md / explain.md; '' for no entries."""
    if not entries:
        return ""
    out = [HEADING, "", INTRO, ""]
    for e in entries:
        out.append("### `%s`%s" % (e["strategy"], ": " + e["verdict"] if e.get("verdict")
                                   else ""))
        out.append("")
        if e.get("error"):
            out += ["No profile: %s" % e["error"], ""]
            continue
        out += [summary_line(e), ""]
        out += md_table(e["functions"]) if e["functions"] else \
            ["No function's instruction count changed."]
        out += ["", "Flame graph (in the compare's folder; in CI, the uploaded artifact): `%s`"
                % e["svg"], ""]
        p = e.get("perf") or {}
        if p.get("functions") is not None:
            out += ["perf samples (%d base, %d head), each side's scaled to %s (%s -> %s ns): "
                    "own nanoseconds per iteration; flame graph `%s`:"
                    % (p["samples"]["base"], p["samples"]["head"], p["scaled_to"],
                       count(p["ns_per_iteration"]["base"]),
                       count(p["ns_per_iteration"]["head"]), p["svg"]), ""]
            out += md_table(p["functions"]) + [""]
    return "\n".join(out) + "\n"


def text_lines(entries):
    """The same for the console, plain lines."""
    if not entries:
        return []
    out = ["where: per-function profiles (callgrind: instructions per iteration; the "
           "functions whose own count changed most)"]
    for e in entries:
        out.append("  %s%s" % (e["strategy"], ": " + e["verdict"] if e.get("verdict") else ""))
        if e.get("error"):
            out.append("    no profile: " + e["error"])
            continue
        out.append("    " + summary_line(e))
        out.append("    %-40s %-34s %12s %12s %22s  %s" % ("function", "file:line", "base", "head",
                                                            "change", ""))
        for r in e["functions"]:
            out.append("    %-40s %-34s %12s %12s %22s  %s" % (
                r["function"][:40], where(r)[-34:], count(r["base"]), count(r["head"]),
                signed(r["change"]) + share(r.get("share")), r["status"]))
        if not e["functions"]:
            out.append("    (no function's instruction count changed)")
        out.append("    flame graph: " + e["svg"])
        if (e.get("perf") or {}).get("svg"):
            out.append("    perf flame graph: " + e["perf"]["svg"])
    return out

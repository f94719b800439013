"""e2e_report - the whole-process (hyperfine) section of the report.

    section(e2e_json_path, run_json_path_or_None, outdir, link_prefix="charts/") -> str

returns the Markdown of the section's body (no heading of its own: the caller puts it under its
"## Whole-process runs (hyperfine)"; subsections are "###") and writes its charts (PNG and SVG)
into outdir; the Markdown links them as link_prefix + file name, so with the report in outdir's
parent and outdir named "charts", the default prefix is right. It reads JSON only: the merged
hyperfine JSON written by scripts/e2e.sh (results/e2e-latest.json) and, for the in-process
figures, a google-benchmark run JSON (results/latest.json). The headings come from the manifest
(the e2e JSON's context.hb_manifest, else the run's): the in-process group each run corresponds
to, and its items. A missing e2e JSON gives a paragraph saying how to make one; a missing run JSON
or a missing row gives "-" where the in-process figure would be. The charts use the one chart
style (hotbench.style).

From the command line (for a look, or to debug):

    cd scripts && /usr/bin/python3 -m hotbench.e2e_report [E2E.json [RUN.json]] [--out DIR] [--prefix P]

prints the section; the defaults are results/e2e-latest.json, results/latest.json and
results/charts. Run it under Debian's /usr/bin/python3 (python3-matplotlib, python3-numpy).
"""
import json
import os
import statistics
import sys

import numpy as np

from .manifest import Manifest, ManifestError
from .runjson import parse_name
from .style import horizontal, plt, save
from .units import TIME_UNIT


def _items(r):
    """A row's items as a reader says them: 1.7 GB, 100,000 timestamps."""
    items, unit = r.get("items") or 0, r.get("items_unit") or ""
    if unit == "bytes":
        return f"{items / 1e9:.3g} GB"
    return f"{int(items):,} {unit}"


def _heading(g, manifest=None):
    """(heading, the in-process group its rows compare with, or None) of a hyperfine group: a
    generators' group names its generators and their items; a decoder's group is titled by the
    in-process group of its rows (the manifest's title) and its items."""
    rows = [r for r in g.get("results", []) if r.get("case") != "startup"]
    ip = next((parse_name(r["inprocess"])[0] for r in rows if r.get("inprocess")), None)
    if not rows:
        return g.get("title", g["name"]), ip
    if ip is None:
        gens = []
        for r in rows:
            text = f"{str(_label(r)).split()[0]} ({_items(r)})"
            if text not in gens:
                gens.append(text)
        return "Generators: " + ", ".join(gens), None
    mg = manifest.group(ip) if manifest else None
    return f"{mg['title'] if mg else ip}: {_items(rows[0])}", ip


def _manifest(*contexts):
    """The manifest of the first context that carries one, else build/hotbench's, or None."""
    for ctx in contexts:
        try:
            return Manifest.from_context(ctx)
        except (ManifestError, KeyError, TypeError):
            continue
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        return Manifest.from_binary(os.path.join(top, "build", "hotbench"))
    except (ManifestError, ValueError):
        return None


# ---- reading -----------------------------------------------------------------------------------

def _load(path):
    """The JSON object at path, or None (unreadable, not JSON, or not an object)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def inprocess_medians(run, field="real_time"):
    """{run_name: median seconds of field (real_time or cpu_time) over its iteration rows} from
    google-benchmark JSON.

    Rows that recorded an error (verification failures, budget skips) are not measurements and
    are left out. Where a name has no iteration rows but a median aggregate, that is used."""
    iters, aggs = {}, {}
    for b in (run or {}).get("benchmarks", []):
        if b.get("error_occurred") or field not in b:
            continue
        name = b.get("run_name") or b.get("name", "")
        unit = TIME_UNIT.get(b.get("time_unit", "ns"), 1e-9)
        t = b[field] * unit
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                aggs[name] = t
        else:
            iters.setdefault(name, []).append(t)
    out = {k: statistics.median(v) for k, v in iters.items()}
    for k, v in aggs.items():
        out.setdefault(k, v)
    return out


def _label(r):
    return r.get("strategy") or r.get("command", "?")


# ---- formatting --------------------------------------------------------------------------------

def _unit_for(values):
    """The unit a group's times read best in: s from a second up, else ms."""
    vals = [v for v in values if v is not None]
    if vals and statistics.median(vals) >= 1.0:
        return "s", 1.0
    return "ms", 1e-3


def _fmt(t, scale, unit, signed=False):
    """t seconds in unit (scale seconds), three significant digits."""
    if t is None:
        return "-"
    v = t / scale
    digits = 0 if abs(v) >= 100 else 1 if abs(v) >= 10 else 2
    s = f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"
    return f"{s} {unit}"


def _rate(r):
    items, unit, med = r.get("items"), r.get("items_unit"), r.get("median")
    if not items or not med:
        return "-"
    if unit == "bytes":
        return f"{items / med / 1e9:.2f} GB/s"
    return f"{med / items * 1e9:.0f} ns/{unit[:-1] if unit.endswith('s') else unit}"


# ---- charts (hotbench.style: formats and resolution set by the report) ------------------------

def box_chart(group, inproc, startup, outdir, stem):
    """Horizontal box plots of one group's hyperfine runs, the runs as dots, the in-process
    median as a diamond, the start-up of an empty process as a dashed line."""
    res = [r for r in group["results"] if r.get("times")]
    if not res:
        return False
    unit, scale = _unit_for([r["median"] for r in res])
    labels = [_label(r) for r in res]
    data = [np.asarray(r["times"]) / scale for r in res]
    fig_h = 1.6 + 0.48 * len(res)
    fig, ax = plt.subplots(figsize=(8.5, fig_h))
    y = np.arange(1, len(res) + 1)
    ax.boxplot(data, positions=y, widths=0.55, whis=1.5, showfliers=False,
               medianprops={"color": "tab:blue", "linewidth": 2},
               boxprops={"color": "0.35"}, whiskerprops={"color": "0.35"},
               capprops={"color": "0.35"}, **horizontal(ax.boxplot))
    rng = np.random.default_rng(0)
    for yi, d in zip(y, data):
        ax.scatter(d, yi + rng.uniform(-0.12, 0.12, len(d)), s=12, color="tab:blue", alpha=0.55,
                   zorder=3, linewidths=0)
    handles = [plt.Line2D([], [], color="tab:blue", linewidth=2,
                          label=f"whole process (hyperfine): median, quartiles, 1.5 IQR; "
                                f"dots = {group['runs']} runs")]
    ip = [(yi, inproc.get(r.get("inprocess"))) for yi, r in zip(y, res)]
    ip = [(yi, t / scale) for yi, t in ip if t is not None]
    if ip:
        ax.scatter([t for _, t in ip], [yi for yi, _ in ip], marker="D", s=46, color="tab:red",
                   zorder=4, label="in-process median (google-benchmark)")
        handles.append(ax.collections[-1])
    if startup is not None and any(r.get("case") != "startup" for r in res):
        ax.axvline(startup / scale, color="0.4", linestyle="--", linewidth=1)
        handles.append(plt.Line2D([], [], color="0.4", linestyle="--", linewidth=1,
                                  label="start-up: hotbench-decode on an empty input"))
    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.set_xlim(left=0)
    ax.set_xlabel(f"wall-clock time per run ({unit})")
    ax.set_ylabel("strategy" if not group["name"].startswith("gen") else "generator")
    ax.set_title(group["title"])
    ax.grid(axis="x", alpha=0.3)
    # below the x label: about 40 points down, in axes units
    ax.legend(handles=handles, loc="upper center",
              bbox_to_anchor=(0.5, -40 / (fig_h * 72 * 0.75)), ncol=1, frameon=False)
    save(fig, os.path.join(outdir, stem))
    return True


def overhead_chart(panels, outdir, stem):
    """One panel per decode group: stacked bars of CPU time, in-process + overhead = whole
    process. CPU time rather than wall time: it hardly depends on other load on the machine."""
    panels = [p for p in panels if p[1]]
    if not panels:
        return False
    n = len(panels)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    height = max(3.0, 0.36 * max(len(p[1]) for p in panels) + 1.4)
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, height * rows), squeeze=False)
    legend = {}
    for ax, (title, bars) in zip(axes.flat, panels):
        unit, scale = _unit_for([w for _, _, w in bars])
        labels = [b[0] for b in bars]
        ipv = np.array([b[1] for b in bars]) / scale
        whole = np.array([b[2] for b in bars]) / scale
        over = np.maximum(whole - ipv, 0)
        y = np.arange(len(bars))
        ax.barh(y, ipv, color="tab:red", alpha=0.8,
                label="in-process: google-benchmark cpu_time (median)")
        ax.barh(y, over, left=ipv, color="0.7",
                label="overhead: start-up, input read, output, exit")
        neg = whole < ipv
        if neg.any():
            ax.scatter(whole[neg], y[neg], marker="|", s=120, color="k",
                       label="whole process below in-process (noise)")
        ax.set_yticks(y)
        ax.set_yticklabels(labels)
        ax.invert_yaxis()
        ax.set_xlabel(f"CPU time per run, user + system ({unit})")
        ax.set_title(title)
        ax.grid(axis="x", alpha=0.3)
        for h, lab in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(lab, h)
    for ax in list(axes.flat)[n:]:
        ax.remove()
    fig.suptitle("CPU time of a whole process (hyperfine, mean user + sys) = in-process work "
                 "+ overhead", y=1.0)
    fig.tight_layout()
    fig.legend(list(legend.values()), list(legend.keys()), loc="upper center",
               bbox_to_anchor=(0.5, 0.0), ncol=min(3, len(legend)), frameon=False)
    save(fig, os.path.join(outdir, stem))
    return True


# ---- the section -------------------------------------------------------------------------------

def _missing(e2e_json_path, why):
    return (
        f"No whole-process results ({why}: `{e2e_json_path}`). They come from "
        "`make bench-e2e` (also run at the end of `make bench`), which runs `scripts/e2e.sh "
        "build`: hyperfine times the generators and `hotbench-decode` on the inputs of every "
        "case's whole-process runs (the cases' manifest), and writes "
        "`results/runs/<time>-<sha>-e2e.json`, linked from `results/e2e-latest.json`. About "
        "10 minutes on 2 cores.\n"
    )


def section(e2e_json_path, run_json_path_or_None, outdir, link_prefix="charts/"):
    """The Markdown of the whole-process section; writes its charts into outdir."""
    if not e2e_json_path or not os.path.exists(e2e_json_path):
        return _missing(e2e_json_path, "no such file")
    e2e = _load(e2e_json_path)
    if not e2e or "groups" not in e2e:
        return _missing(e2e_json_path, "not an e2e JSON")
    run = _load(run_json_path_or_None) if run_json_path_or_None else None
    ctx = e2e.get("context", {})
    fig = {"inproc": inprocess_medians(run), "inproc_cpu": inprocess_medians(run, "cpu_time"),
           "manifest": _manifest(ctx, (run or {}).get("context")), "startup": None,
           "outdir": outdir, "link_prefix": link_prefix}
    startup_cmd = None
    for g in e2e["groups"]:
        for r in g["results"]:
            if r.get("case") == "startup":
                fig["startup"], startup_cmd = r["median"], r.get("command", "")
    out = _intro(e2e_json_path, ctx, run_json_path_or_None, run)
    if fig["startup"] is not None:
        words = startup_cmd.split()
        tool = " ".join([os.path.basename(words[0])] + words[1:-1]) if words else "?"
        out.append(f"Process start-up (`{tool}` on an empty input: exec, dynamic linking of "
                   f"zlib, expat and libxml2, exit): **{fig['startup'] * 1e3:.1f} ms** median.")
        out.append("")
    overhead_panels, summary = [], []
    for g in e2e["groups"]:
        out += _group(g, fig, overhead_panels, summary)
    if overhead_chart(overhead_panels, outdir, "e2e-overhead"):
        out.append("### In-process time and fixed overhead")
        out.append("")
        out.append("CPU time (user + system) rather than wall time, because it hardly depends on "
                   "what else the machine is doing; the wall figures are in the tables above.")
        out.append("")
        out.append(f"![In-process time and overhead per strategy]({link_prefix}e2e-overhead.png)  ")
        out.append(f"[SVG]({link_prefix}e2e-overhead.svg)")
        out.append("")
    out.extend(_observations(summary, fig["startup"], fig["manifest"]))
    return "\n".join(out).rstrip() + "\n"


def _intro(e2e_json_path, ctx, run_json_path_or_None, run):
    """The section's opening paragraphs: how it was measured, the sources, the warnings."""
    out = []
    src = os.path.relpath(os.path.realpath(e2e_json_path))
    run_rev = (run or {}).get("context", {}).get("hb_git_revision")
    out.append(
        f"hyperfine {ctx.get('hyperfine_version', '?')} timed each tool as a whole process "
        f"(start-up, reading the input from the page cache, the work, writing the output), "
        f"commands run without a shell (`-N`), with several timed runs per command and "
        f"warm-up runs for the small payloads (counts per group below; for the large ones the "
        f"checked run just before has read the input into the page cache). "
        f"Decoders write to /dev/null; generators write a file on disk, removed and `sync`ed "
        f"before each run outside the timing (so the page-cache write is timed, the device "
        f"writeback mostly not). "
        + ("Every decoder's output was checked before timing (against the crc32 of the "
           "payload in the input's sidecar, or against the reference strategy's output, as "
           "each case's whole-process run says), and each generator's output against the "
           "cached input. " if ctx.get("verified") else
           "Outputs were NOT checked in this run (`--no-verify`). ")
        + f"Source: `{src}`, git {ctx.get('git_revision', '?')}, {ctx.get('date', '?')}; "
        f"in-process figures: "
        + (f"`{os.path.relpath(os.path.realpath(run_json_path_or_None))}` (git {run_rev})."
           if run else "none (no run JSON), shown as -."))
    out.append("")
    e2e_rev = str(ctx.get("git_revision", "")).replace("-dirty", "")[:12]
    if run and run_rev and e2e_rev and str(run_rev).replace("-dirty", "")[:12] != e2e_rev:
        out += [f"> The in-process figures come from git {run_rev}, the whole-process ones "
                f"from git {ctx.get('git_revision')}: the code timed may differ between them.", ""]
    run_load = (run or {}).get("context", {}).get("load_avg")
    load = ctx.get("load_avg_start")
    if run_load and load and abs(run_load[0] - load[0]) > 0.5:
        out += [f"> The load average was {run_load[0]:.2f} during the in-process run and "
                f"{load[0]:.2f} during the whole-process run: the two were measured under "
                f"different conditions, so their difference mixes overhead and noise.", ""]
    if load and load[0] > 0.5:
        out += [f"> The load average was {load[0]:.2f} when the run started on "
                f"{ctx.get('num_cpus', '?')} CPUs: something else was running, so these "
                f"figures are noisier than a quiet machine's.", ""]
    if ctx.get("sanitize") in ("ON", "on", "1", "TRUE", "true", "YES", "yes"):
        out += ["> **This run used a sanitizer build (HB_SANITIZE=ON): its times measure "
                "ASan/UBSan, not hotbench.**", ""]
    if ctx.get("failed"):
        out += ["> **A command failed or gave a wrong answer in this run** (see the groups "
                "marked FAILED); its figures are incomplete.", ""]
    out += ["In the tables, *overhead, wall* is the whole-process median minus the in-process "
            "median of the same work (google-benchmark's `real_time`): process start-up, "
            "reading the input file, writing the output, freeing memory at exit. *Overhead, "
            "CPU* is hyperfine's mean user + system time minus google-benchmark's median "
            "`cpu_time`; it is less sensitive to other load on the machine than the wall "
            "figures.", ""]
    return out


def _is_large(g):
    """A group of the large kind: its own flag, else (older JSON) a median of a second or more."""
    if "large" in g:
        return bool(g["large"])
    return any(r.get("median", 0) >= 1.0 for r in g.get("results", []))


def _group(g, fig, overhead_panels, summary):
    """One hyperfine group: heading, chart, table, notes."""
    name = g["name"]
    heading, ip_group = _heading(g, fig["manifest"])
    res = g["results"]
    out = [f"### {heading}" + ("" if g.get("ok", True) else " — FAILED"), "",
           f"`{g['title']}`: {g['warmup']} warm-up + {g['runs']} runs per command, "
           f"{g.get('seconds', '?')} s for the group.", ""]
    if not g.get("ok", True):
        out += [f"hyperfine exited {g.get('hyperfine_exit')}: a command exited non-zero; "
                f"the commands after it were not timed.", ""]
    stem, link = f"e2e-{name}", fig["link_prefix"]
    startup = fig["startup"] if ip_group and not _is_large(g) else None
    if box_chart(g, fig["inproc"], startup, fig["outdir"], stem):
        out += [f"![{heading}: whole-process times]({link}{stem}.png)  ",
                f"[SVG]({link}{stem}.svg)", ""]
    if not res:
        return out + ["No results.", ""]
    unit, scale = _unit_for([r["median"] for r in res])
    if ip_group:
        out.append("| strategy | whole process: median wall (min – max) | whole-process "
                   "rate | in-process: median wall | overhead, wall (whole − in) | "
                   "overhead share | whole process: CPU user + sys | in-process: CPU | "
                   "overhead, CPU |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    else:
        out.append("| generator | output | median wall | min – max | CPU user + sys | rate |")
        out.append("|---|---|---:|---:|---:|---:|")
    bars = []
    for r in res:
        out.append(_row(g, r, fig, unit, scale, bars, summary) if ip_group
                   else _gen_row(r, unit, scale))
    out.append("")
    if any(x[3] < x[2] for x in summary if x[0] is g):
        out += ["A negative overhead means the whole process was faster than the "
                "in-process benchmark of the same work: the two measurements disagree "
                "by more than the overhead (different load, revision or machine state); "
                "treat those rows as noise, not as a saving.", ""]
    out += [f"- {n}" for n in g.get("notes", [])]
    if g.get("notes"):
        out.append("")
    if ip_group:
        overhead_panels.append((heading, bars))
    return out


def _gen_row(r, unit, scale):
    mm = f"{_fmt(r['min'], scale, unit)} – {_fmt(r['max'], scale, unit)}"
    cpu = _fmt(r.get("user", 0) + r.get("system", 0), scale, unit)
    return (f"| `{_label(r)}` | {r.get('output', '-')} | "
            f"{_fmt(r['median'], scale, unit)} | {mm} | {cpu} | {_rate(r)} |")


def _row(g, r, fig, unit, scale, bars, summary):
    """A decoder's row beside its in-process figures; adds to the chart's bars and summary."""
    med = r["median"]
    cpu = _fmt(r.get("user", 0) + r.get("system", 0), scale, unit)
    ip = fig["inproc"].get(r.get("inprocess")) if r.get("inprocess") else None
    ipc = fig["inproc_cpu"].get(r.get("inprocess")) if r.get("inprocess") else None
    over = med - ip if ip is not None else None
    wcpu = r.get("user", 0) + r.get("system", 0)
    over_cpu = wcpu - ipc if ipc is not None else None
    share = f"{over / med * 100:.0f}%" if over is not None and med > 0 else "-"
    mm = f"{_fmt(r['min'], scale, unit).split()[0]}–{_fmt(r['max'], scale, unit)}"
    if ipc is not None:
        bars.append((_label(r), ipc, wcpu))
    if ip is not None:
        summary.append((g, _label(r), ip, med, ipc, wcpu))
    return (f"| `{_label(r)}` | {_fmt(med, scale, unit)} ({mm}) | {_rate(r)} | "
            f"{_fmt(ip, scale, unit)} | {_fmt(over, scale, unit, signed=True)} | "
            f"{share} | {cpu} | {_fmt(ipc, scale, unit)} | "
            f"{_fmt(over_cpu, scale, unit, signed=True)} |")


def _observations(summary, startup, manifest=None):
    """A few sentences computed from the figures: the overhead per group."""
    if not summary:
        return []
    lines = ["What the figures say:", ""]
    by = {}
    for g, s, ip, whole, ipc, wcpu in summary:
        by.setdefault(g["name"], (g, []))[1].append((s, ip, whole, ipc, wcpu))
    for g, rows in by.values():
        heading = _heading(g, manifest)[0]
        overs = [r[2] - r[1] for r in rows]
        cpu_overs = [r[4] - r[3] for r in rows if r[3] is not None]
        unit, scale = _unit_for([r[2] for r in rows])
        med_over = statistics.median(overs)
        ratios = [r[2] / r[1] for r in rows if r[1] > 0]
        fastest_ip = min(rows, key=lambda x: x[1])
        fastest_w = min(rows, key=lambda x: x[2])
        slowest_w = max(rows, key=lambda x: x[2])
        s = (f"- {heading}: the whole process takes {min(ratios):.1f}–{max(ratios):.1f}× the "
             f"in-process time; the overhead is {_fmt(med_over, scale, unit)} (median over "
             f"{len(rows)} strategies, range {_fmt(min(overs), scale, unit)} to "
             f"{_fmt(max(overs), scale, unit)})")
        if cpu_overs:
            s += (f"; in CPU time {_fmt(statistics.median(cpu_overs), scale, unit)} (range "
                  f"{_fmt(min(cpu_overs), scale, unit)} to {_fmt(max(cpu_overs), scale, unit)})")
        s += "."
        med_over = statistics.median(cpu_overs) if cpu_overs else med_over
        if startup is not None and med_over > 0 and unit == "ms":
            s += f" Start-up accounts for {startup / med_over * 100:.0f}% of it."
        s += (f" Fastest in-process: `{fastest_ip[0]}`; fastest as a process: `{fastest_w[0]}`; "
              f"slowest as a process: `{slowest_w[0]}`. Slowest / fastest strategy: "
              f"{slowest_w[2] / fastest_w[2]:.1f}× as processes against "
              f"{max(r[1] for r in rows) / fastest_ip[1]:.1f}× in-process.")
        lines.append(s)
    lines.append("")
    return lines


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(
        description="The whole-process section of the report, printed as Markdown; its charts "
        "go into --out.", epilog=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("e2e", nargs="?", default=os.path.join("results", "e2e-latest.json"),
                    help="merged hyperfine JSON of make bench-e2e (%(default)s)")
    ap.add_argument("run", nargs="?", default=os.path.join("results", "latest.json"),
                    help="run JSON of make bench, for the in-process figures (%(default)s)")
    ap.add_argument("--out", default=os.path.join("results", "charts"),
                    help="folder of the charts (%(default)s)")
    ap.add_argument("--prefix", default="charts/", help="chart links' prefix (%(default)s)")
    a = ap.parse_args(argv)
    run = a.run if os.path.exists(a.run) else None
    sys.stdout.write("## Whole-process runs (hyperfine)\n\n" + section(a.e2e, run, a.out,
                                                                       a.prefix))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

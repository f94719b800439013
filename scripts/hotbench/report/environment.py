"""environment - the machine, build and profile a run was made on, from its context (and the
machine's calibration, from the context or the bench status)."""

from ..units import fmt_bytes
from .views import FALLBACK_LLC

# google-benchmark's own context keys from 1.9 on (its version, shown above as
# hb_benchmark_version, and its JSON format's): not libraries of the run
BENCHMARK_OWN = ("library_version", "json_schema_version")


def environment(run, status=None):
    """The environment table: Markdown lines. Seeds and generator parameters are the context's
    keys named after a case (<case>_...)."""
    c = run.context
    cases = {x["name"] for x in run.manifest.cases}
    mem = c.get("hb_memory", "")
    caches = ", ".join("L%d%s %d KiB" % (x["level"], x["type"][0].lower(), x["size"] // 1024)
                       for x in c.get("caches", []))
    if not caches:
        caches = ("none reported (this machine exposes no cache sizes): the fits assume a %s "
                  "last-level cache" % fmt_bytes(FALLBACK_LLC))
    rows = [
        ("git revision", c.get("hb_git_revision", "?")),
        ("run date", c.get("date", "?")),
        ("host", c.get("host_name", "?")),
        ("CPU", "%s, %s cores, %s MHz" % (c.get("hb_cpu_model", "?"), c.get("num_cpus", "?"),
                                          c.get("mhz_per_cpu", "?"))),
        ("caches", caches),
        ("memory", mem or "?"),
        ("calibration", calibration(c, status)),
        ("duration of `make bench`", duration(status)),
        ("where the in-process time went", timed_work(run, status)),
        ("kernel", c.get("hb_kernel", "?")),
        ("compiler and flags", "%s; %s (%s)" % (c.get("hb_compiler", "?"),
                                                c.get("hb_build_flags", "?"),
                                                c.get("hb_build_type", "?"))),
        ("libraries", "google-benchmark %s (Debian's build is %s: it prints 'Library was built "
                      "as DEBUG'; one timed iteration is a whole batch, so its per-iteration "
                      "bookkeeping is negligible)%s" % (
                          c.get("hb_benchmark_version", "?"), c.get("library_build_type", "?"),
                          "".join(", %s %s" % (k[:-len("_version")], v) for k, v in c.items()
                                  if k.endswith("_version") and not k.startswith("hb_")
                                  and k not in BENCHMARK_OWN))),
        ("profile", "%s, %s repetitions, budget %s s, reads of %s bytes" % (
            c.get("hb_profile", "?"), c.get("hb_repetitions", "?"), c.get("hb_budget_s", "?"),
            c.get("hb_read_size", "?"))),
        ("seeds and generator parameters", "; ".join(
            "%s=%s" % (k, v) for k, v in sorted(c.items())
            if k.split("_")[0] in cases)),
        ("load average at the start", c.get("hb_loadavg", "?")),
    ]
    out = ["| | |", "|---|---|"]
    out += ["| %s | %s |" % (k, v) for k, v in rows]
    return out


def calibration(ctx, status):
    """The machine's calibration (`make bench` measures it before its parts): from the run's
    context (hb_calib_first_touch_gbps, hb_calib_warm_copy_gbps), else from the bench status."""
    ft, wc = ctx.get("hb_calib_first_touch_gbps"), ctx.get("hb_calib_warm_copy_gbps")
    src = "the run's context"
    cal = (status or {}).get("calibration") or {}
    if not (ft and wc) and cal.get("first_touch_gbps") and cal.get("warm_copy_gbps"):
        ft, wc, src = cal["first_touch_gbps"], cal["warm_copy_gbps"], "the bench status"
    if not (ft and wc):
        return ("not recorded (a run made before `make bench` calibrated the machine, or "
                "without `make bench`)")
    return ("first touch of fresh memory %s GB/s, copy of warm memory %s GB/s (measured by "
            "`make bench` before its parts, from %s): the buffer strategies' times follow these, "
            "so they are what to compare first between two machines" % (
                _gbps(ft), _gbps(wc), src))


def duration(status):
    """How long `make bench` took, in total and per part, from the bench status (its "seconds"
    and each part's; the report is written as the last part, so its own time is not in it)."""
    if not status:
        return "not recorded (a run made without `make bench`)"
    parts = [p for p in status.get("parts") or [] if _secs(p.get("seconds")) is not None]
    each = ", ".join("%s %s" % (p.get("name", "?"), _span(p["seconds"])) for p in parts)
    total = _secs(status.get("seconds"))
    if total is None:  # a record written before bench.py kept the total
        total = sum(p["seconds"] for p in parts)
    return "%s%s, %s profile%s" % (
        _span(total), " (%s)" % each if each else "", status.get("profile", "?"),
        "" if status.get("finished") else "; the report, written last, is not counted")


PAGE = 4096  # bytes a minor fault makes resident with 4 KiB pages (a huge page: 2 MiB, one fault)


def timed_work(run, status):
    """The timed loops' share of the in-process part, and the share of first touch in them: the
    rows' minor faults (counters per iteration, times their iterations) priced at the calibrated
    first-touch rate, 4 KiB each. The page faults a strategy takes are part of what is measured,
    so that share is what no change to the harness can take off. Rows without the counters
    (older runs) leave the fault clause out."""
    timed = sum(r["t"] * r.get("iterations", 1) for r in run.rows)
    faults = sum(r["counters"].get("minor_faults", 0) * r.get("iterations", 1) for r in run.rows)
    part = next((p for p in (status or {}).get("parts") or []
                 if p.get("name") == "in-process" and _secs(p.get("seconds"))), None)
    text = "timed loops %s" % _span(timed)
    if part:
        text += " of the in-process part's %s (the rest: verification runs, inputs, " \
                "google-benchmark's sizing runs)" % _span(part["seconds"])
    ft = run.context.get("hb_calib_first_touch_gbps") or \
        ((status or {}).get("calibration") or {}).get("first_touch_gbps")
    try:
        ft = float(ft)
    except (TypeError, ValueError):
        ft = 0.0
    if faults > 0 and ft > 0:
        text += "; %.3g million minor page faults in them, %s at the calibrated first touch " \
                "(4 KiB at %s GB/s each, %.3g GB in all): the part no change to the harness " \
                "can take off on this machine" % (faults / 1e6, _span(faults * PAGE / (ft * 1e9)),
                                               _gbps(ft), faults * PAGE / 1e9)
    return text


def _secs(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 else None


def _span(seconds):
    return "%.0f s" % seconds if seconds < 120 else "%.1f min" % (seconds / 60)


def _gbps(v):
    try:
        return "%.3g" % float(v)
    except (TypeError, ValueError):
        return str(v)



"""environment - the machine, build and profile a run was made on, from its context (and the
machine's calibration, from the context or the bench status)."""

from ..units import fmt_bytes
from .views import FALLBACK_LLC


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
        ("kernel", c.get("hb_kernel", "?")),
        ("compiler and flags", "%s; %s (%s)" % (c.get("hb_compiler", "?"),
                                                c.get("hb_build_flags", "?"),
                                                c.get("hb_build_type", "?"))),
        ("libraries", "google-benchmark %s (Debian's build is %s: it prints 'Library was built "
                      "as DEBUG'; one timed iteration is a whole batch, so its per-iteration "
                      "bookkeeping is negligible)%s" % (
                          c.get("hb_benchmark_version", "?"), c.get("library_build_type", "?"),
                          "".join(", %s %s" % (k[:-len("_version")], v) for k, v in c.items()
                                  if k.endswith("_version") and not k.startswith("hb_")))),
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


def _secs(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 else None


def _span(seconds):
    return "%.0f s" % seconds if seconds < 120 else "%.1f min" % (seconds / 60)


def _gbps(v):
    try:
        return "%.3g" % float(v)
    except (TypeError, ValueError):
        return str(v)



"""estimate - how long hotbench's benchmarks take on this machine, predicted from a run recorded
on another machine (or this one) and the two machines' calibrations (`hotbench --hb_calibrate`).

Why per benchmark and not per part: google-benchmark runs a benchmark until its minimum time has
passed (sizing runs with 1, 10, 100... iterations, then each repetition at the chosen count), so
a benchmark whose iteration takes less than that minimum takes about the same wall time on any
machine: its iteration count adapts, not its duration. Only a benchmark whose single iteration
outlasts the minimum (the 1.7 GB rows) and the work outside the timed loop (inputs, verification,
the untimed part of each iteration) follow the machine's speed. Scaling a whole part by one
figure cannot be right: the quick profile is almost all minimum-time floors, the full profile
mostly first touch of 1.7 GB buffers.

The model of one benchmark (a row of the recorded run JSON: n iterations of t seconds, R
repetitions, f minor page faults per iteration), on a machine whose first touch is s_ft times
slower than the recording one's and whose CPU probe is s_cpu times slower:

  first-touch share   ft = min(t, f x 4096 B / first-touch rate of the recording machine)
  one iteration here  t' = ft x s_ft + (t - ft) x s_cpu
  a repetition here   rep' = max(floor, t'), floor = n x t when n >= 2 (the minimum-time floor
                      the recording machine reached), else FLOOR_S, the median floor of the
                      recorded run's multi-iteration rows (a single iteration above it there)
  iterations here     n' = max(1, rep' / t')
  wall seconds        R x rep' + (C_ROW + C_ITER x R x n') x s_cpu + C_T x t'

C_ROW (per benchmark: registration, the sizing runs' start), C_ITER (per iteration: the untimed
part of google-benchmark's loop, PauseTiming and the harness's resets in a DEBUG build of
google-benchmark 1.7.1) and C_T (per second of one iteration: the verification run and the
inputs) were fitted by least squares on one quick run of this project's 2-vCPU EPYC VM (301
benchmarks, each one's wall time from the --hb_progress stream, 2026-12-05) and checked on the
reference VM's full run (571 benchmarks, 2631 s recorded; the model says 2712 s, +3%). A
skipped row (over the budget) costs C_ROW. A benchmark listed now that the record does not hold
is priced at the median of its strategy's recorded rows (else its group's, else all rows).

s_ft = the recording machine's first-touch GB/s / this machine's; s_cpu = the recording
machine's CPU probe (cpu_mops) / this machine's; when either side has no CPU probe (records
made before it existed), the ratio of google-benchmark's mhz_per_cpu, and else 1, said so.
"""
import math
import statistics

PAGE = 4096  # bytes a minor fault makes resident with 4 KiB pages
C_ROW = 0.0976  # seconds per benchmark outside its timed loop
C_ITER = 1.86e-6  # seconds per iteration outside the timed loop
C_T = 1.59  # seconds outside the timed loop per second of one iteration (verification, inputs)
FLOOR_S = 0.35  # a repetition's floor when the record has no multi-iteration row to take it from
UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


class EstimateError(ValueError):
    """A record the model cannot read; the message names what and where."""


def finite(v, positive=False):
    """True for a JSON number (not bool) that is finite, >= 0 (> 0 when positive)."""
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    return ok and (v > 0 if positive else v >= 0)


def run_rows(doc, where="the run JSON"):
    """The benchmarks of a google-benchmark run JSON (a dict: "benchmarks", optional "context")
    as {run_name: row}: row = {"n": iterations of its first repetition, "t": median seconds per
    iteration over the repetitions, "reps": repetitions, "faults": minor faults per iteration
    (0 when not counted), "skipped": True for a row that errored (a budget skip)}. Aggregates
    are ignored. Raises EstimateError naming where for a malformed document."""
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise EstimateError("%s has no \"benchmarks\" list" % where)
    rows = {}
    for i, b in enumerate(doc["benchmarks"]):
        if not isinstance(b, dict) or b.get("run_type", "iteration") != "iteration":
            continue
        name = b.get("run_name") or b.get("name")
        if not isinstance(name, str):
            raise EstimateError("%s: benchmarks[%d] has no name" % (where, i))
        row = rows.setdefault(name, {"n": 0, "ts": [], "reps": 0, "faults": 0.0,
                                     "skipped": False})
        if b.get("error_occurred"):
            row["skipped"] = True
            continue
        unit = UNITS.get(b.get("time_unit", "ns"))
        it, rt = b.get("iterations"), b.get("real_time")
        if unit is None or not finite(it, True) or not finite(rt):
            raise EstimateError("%s: benchmarks[%d] (%s) has no usable iterations, real_time "
                                "and time_unit" % (where, i, name))
        row["n"] = row["n"] or int(it)
        row["ts"].append(rt * unit)
        row["reps"] += 1
        f = b.get("minor_faults", 0)
        row["faults"] = f if finite(f) else 0.0
    for row in rows.values():
        ts = row.pop("ts")
        row["t"] = statistics.median(ts) if ts else 0.0
        row["skipped"] = row["skipped"] and not ts
    return rows


def floor_of(rows):
    """The median minimum-time floor (n x t seconds per repetition) of the multi-iteration rows,
    FLOOR_S when there is none."""
    floors = [r["n"] * r["t"] for r in rows.values() if r["n"] >= 2 and not r["skipped"]]
    return statistics.median(floors) if floors else FLOOR_S


def row_seconds(row, s_ft, s_cpu, ref_ft_gbps, floor):
    """Predicted wall seconds of one recorded row on this machine (the model above). row: as
    run_rows gives; s_ft, s_cpu: slowdown factors (> 0); ref_ft_gbps: the recording machine's
    first touch (None: no first-touch share is taken out); floor: floor_of the record."""
    if row["skipped"] or row["reps"] == 0:
        return C_ROW * s_cpu
    t = row["t"]
    ft = min(t, row["faults"] * PAGE / (ref_ft_gbps * 1e9)) if ref_ft_gbps else 0.0
    t_here = ft * s_ft + (t - ft) * s_cpu
    rep = max(row["n"] * t if row["n"] >= 2 else floor, t_here)
    n_here = max(1.0, rep / t_here) if t_here > 0 else row["n"]
    reps = row["reps"]
    return reps * rep + (C_ROW + C_ITER * reps * n_here) * s_cpu + C_T * t_here


def scales(ref_cal, here_cal):
    """(s_ft, s_cpu, [sentences]) from two calibrations, dicts with first_touch_gbps and
    optionally cpu_mops and mhz (the CPU clock, a fallback): how many times slower this machine
    is than the recording one. A figure missing on either side gives the factor 1, said in the
    sentences."""
    notes = []
    rf, hf = (ref_cal or {}).get("first_touch_gbps"), (here_cal or {}).get("first_touch_gbps")
    if finite(rf, True) and finite(hf, True):
        s_ft = rf / hf
        notes.append("first touch %.3g GB/s there, %.3g here: x %.2f" % (rf, hf, s_ft))
    else:
        s_ft = 1.0
        notes.append("first touch unscaled (%s has no first-touch figure)" % (
            "the record" if not finite(rf, True) else "this machine"))
    rc, hc = (ref_cal or {}).get("cpu_mops"), (here_cal or {}).get("cpu_mops")
    rm, hm = (ref_cal or {}).get("mhz"), (here_cal or {}).get("mhz")
    if finite(rc, True) and finite(hc, True):
        s_cpu = rc / hc
        notes.append("CPU probe %.4g Msteps/s there, %.4g here: x %.2f" % (rc, hc, s_cpu))
    elif finite(rm, True) and finite(hm, True):
        s_cpu = rm / hm
        notes.append("CPU from the clock (%s has no CPU probe): %.0f MHz there, %.0f here: "
                     "x %.2f" % ("the record" if not finite(rc, True) else "this machine",
                                 rm, hm, s_cpu))
    else:
        s_cpu = 1.0
        notes.append("CPU-bound seconds unscaled (%s has no CPU probe)" % (
            "the record" if not finite(rc, True) else "this machine"))
    return s_ft, s_cpu, notes


def fallback_seconds(name, priced):
    """The median predicted seconds of the recorded rows nearest to name (same group and
    strategy, else same group, else all); priced: {run_name: seconds}, not empty."""
    parts = name.split("/")
    for depth in (2, 1):
        prefix = "/".join(parts[:depth]) + "/"
        near = [s for n, s in priced.items() if n.startswith(prefix)]
        if near:
            return statistics.median(near)
    return statistics.median(priced.values())


def benchmarks(names, rows, ref_cal, here_cal):
    """Predicted seconds of each benchmark in names (the current build's listing, in run order)
    from the recorded rows (run_rows) and calibrations (scales). Returns ([seconds per name],
    {"s_ft", "s_cpu", "notes": [...], "unrecorded": count of names priced by fallback_seconds})
    or raises EstimateError when rows is empty."""
    if not rows:
        raise EstimateError("the recorded run has no benchmark")
    s_ft, s_cpu, notes = scales(ref_cal, here_cal)
    floor = floor_of(rows)
    ref_ft = (ref_cal or {}).get("first_touch_gbps")
    ref_ft = ref_ft if finite(ref_ft, True) else None
    priced = {n: row_seconds(r, s_ft, s_cpu, ref_ft, floor) for n, r in rows.items()}
    out, unrecorded = [], 0
    for n in names:
        if n in priced:
            out.append(priced[n])
        else:
            unrecorded += 1
            out.append(fallback_seconds(n, priced))
    return out, {"s_ft": s_ft, "s_cpu": s_cpu, "notes": notes, "unrecorded": unrecorded}


def part_seconds(seconds, s_ft, s_cpu, first_touch_share=0.0):
    """A whole part's recorded seconds on this machine: its first-touch share (0..1, what the
    record says of it; 0 when unknown) scaled by s_ft, the rest by s_cpu."""
    share = min(max(first_touch_share or 0.0, 0.0), 1.0)
    return seconds * (share * s_ft + (1.0 - share) * s_cpu)


class Pace:
    """The measured pace of a running list of benchmarks against their predictions.
    expected: [seconds] in run order (benchmarks()); names: the same order. done(name, secs)
    notes one finished benchmark at secs seconds since its process started."""

    MIN_SHARE = 0.05  # the pace is trusted once this share of the expected seconds is done

    def __init__(self, names, expected):
        self.expected = dict(zip(names, expected))
        self.total = sum(expected)
        self.done_expected = 0.0
        self.done_count = 0
        self.last_seconds = 0.0
        self.seen = set()

    def done(self, name, secs):
        if name in self.seen:
            return
        self.seen.add(name)
        self.done_count += 1
        self.done_expected += self.expected.get(name, 0.0)
        self.last_seconds = max(self.last_seconds, secs)

    def factor(self):
        """actual / expected over the benchmarks done, or None before MIN_SHARE of the expected
        seconds (and at least 3 benchmarks) are done."""
        if self.done_count < 3 or self.done_expected < self.MIN_SHARE * self.total or \
                self.done_expected <= 0:
            return None
        return self.last_seconds / self.done_expected

    def remaining(self, elapsed):
        """(seconds remaining, factor or None): the expected seconds of the benchmarks not done,
        times the measured factor (1 before it is trusted), less the time already spent since
        the last one finished; never negative."""
        f = self.factor()
        rest = max(self.total - self.done_expected, 0.0) * (f if f is not None else 1.0)
        if f is None:
            return max(self.total - elapsed, 0.0), None
        return max(rest - max(elapsed - self.last_seconds, 0.0), 0.0), f

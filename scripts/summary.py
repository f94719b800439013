#!/usr/bin/python3
"""summary.py [RUN.json] - the largest size of every group of a hotbench run, as a table.

Reads google-benchmark JSON only (results/latest.json by default). For each group (the part of a
benchmark name before the strategy, e.g. "bufgrow-gzip") and each strategy it shows the largest
size that ran: the median time, its coefficient of variation (flagged over 10%), decoded GB/s,
and the ratio to the group's reference row; sizes skipped by the budget are listed with their
predicted time, marked as predictions. The full numbers stay in the JSON.
"""
import json
import re
import sys
from collections import OrderedDict

REFERENCE = {"bufgrow": "exact", "bufgrow-gzip": "inflate"}  # the ratio's denominator per group
UNIT_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def fixed_args(strategies, size):
    """The other arguments of the rows at this size, e.g. ', width:24, read:4096'."""
    for sizes in strategies.values():
        args = sizes.get(size, {}).get("args")
        if args:
            return "".join(", %s:%d" % kv for kv in args.items())
    return ""


def parse_name(run_name):
    """'bufgrow/exact/size:65536/read:4096/real_time' -> ('bufgrow', 'exact', {'size': 65536})"""
    parts = run_name.split("/")
    args = OrderedDict()
    for p in parts[2:]:
        if ":" in p:
            k, v = p.split(":", 1)
            args[k] = int(v)
    return parts[0], parts[1], args


def fmt_time(sec):
    """Seconds in the unit a reader compares: ns, us, ms or s, four significant digits."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if sec >= scale or unit == "ns":
            return "%.4g %s" % (sec / scale, unit)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "results/latest.json"
    with open(path) as f:
        run = json.load(f)
    rows = OrderedDict()  # (group, strategy, size) -> dict
    for b in run["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") not in ("median", "cv"):
            continue
        group, strategy, args = parse_name(b["run_name"])
        size = args.get("size")
        if size is None:
            continue
        r = rows.setdefault((group, strategy, size), {})
        r["args"] = {k: v for k, v in args.items() if k != "size"}
        if b.get("error_occurred"):
            r["error"] = b["error_message"]
        elif b.get("aggregate_name") == "median" or (b["run_type"] == "iteration"
                                                     and "median" not in r):
            r["median_s"] = b["real_time"] * UNIT_S[b["time_unit"]]
            r["gbps"] = b.get("bytes_per_second", 0) / 1e9
        elif b.get("aggregate_name") == "cv":
            r["cv"] = b["real_time"]
    groups = OrderedDict()
    for (group, strategy, size), r in rows.items():
        groups.setdefault(group, OrderedDict()).setdefault(strategy, {})[size] = r
    ctx = run.get("context", {})
    print("run %s  rev %s  profile %s  budget %s s" % (ctx.get("date"), ctx.get("hb_git_revision"),
                                                      ctx.get("hb_profile"), ctx.get("hb_budget_s")))
    for group, strategies in groups.items():
        top = max(s for sizes in strategies.values() for s in sizes)
        ref = strategies.get(REFERENCE.get(group, ""), {}).get(top, {}).get("median_s")
        ref_name = REFERENCE.get(group)
        print("\n%s at size %d (%.3g GB)%s; ratio = time / %s's time" % (
            group, top, top / 1e9, fixed_args(strategies, top),
            ref_name if ref_name in strategies else "(no reference row)"))
        print("  %-20s %12s %7s %9s %9s  %s" % ("strategy", "median", "cv", "GB/s", "ratio", ""))
        for strategy, sizes in strategies.items():
            r = sizes.get(top, {})
            if "median_s" in r:
                cv = r.get("cv")
                flag = "  noisy (cv > 10%)" if cv is not None and cv > 0.10 else ""
                ratio = "%9.2f" % (r["median_s"] / ref) if ref else "%9s" % "-"
                print("  %-20s %12s %6s %9.3f %s%s" % (
                    strategy, fmt_time(r["median_s"]), "%.1f%%" % (100 * cv) if cv is not None else "-",
                    r["gbps"], ratio, flag))
            elif "error" in r:
                m = re.search(r"predicted ([0-9.e+]+) s", r["error"])
                if m:
                    pred = float(m.group(1))
                    ratio = "%9.3g" % (pred / ref) if ref else "%9s" % "-"
                    print("  %-20s %12s %6s %9s %s  PREDICTED, not run" % (
                        strategy, fmt_time(pred), "-", "-", ratio))
                else:
                    print("  %-20s %s" % (strategy, r["error"]))
            else:
                ran = max((s for s, v in sizes.items() if "median_s" in v), default=None)
                print("  %-20s not run at this size%s" % (
                    strategy, "" if ran is None else " (largest run: %d)" % ran))


if __name__ == "__main__":
    main()

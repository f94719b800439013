#!/usr/bin/python3
"""summary.py [RUN.json] - one table per group of a hotbench run, at the production size.

Reads google-benchmark JSON only (results/latest.json by default). A group is the part of a
benchmark name before the strategy ("bufgrow-gzip", "rfc3339-digits"). For each group it picks one
configuration - the incident's size where the group has one (bufgrow: the largest size; rfc3339:
100,000 rows; volumes: 300 volumes x 20 tags, indented, whole), else the largest value of the
first argument - and shows per strategy: the median time, its coefficient of variation (flagged
over 10%), GB/s, ns per item where items are counted, and the ratio to the group's reference row.
Sizes the budget skipped show their predicted time, marked PREDICTED. The full data stay in the
JSON.
"""
import argparse
import json
import re
import sys
from collections import OrderedDict

# The row each group's ratio divides by: the lower bound or the goal's yardstick.
REFERENCE = {
    "bufgrow": "exact",
    "bufgrow-gzip": "inflate",
    "rfc3339": "millis-parse",
    "volumes": "expat-count",
}
# The incident's configuration, per group; "max" = the largest value present.
PRODUCTION = {
    "bufgrow": {"size": "max"},
    "bufgrow-gzip": {"size": "max"},
    "bufgrow-cliff": {"size": "max"},
    "rfc3339": {"rows": 100000},
    "volumes": {"volumes": 300, "tags": 20, "compact": 0, "piece": 0},
}
UNIT_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def parse_name(run_name):
    """'bufgrow/exact/size:65536/read:4096/real_time' -> ('bufgrow', 'exact', {...})"""
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


def load(path):
    """{group: {strategy: {args tuple: row}}} and the run's context."""
    with open(path) as f:
        run = json.load(f)
    groups = OrderedDict()
    for b in run["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") not in ("median", "cv"):
            continue
        group, strategy, args = parse_name(b["run_name"])
        if not args:
            continue
        key = tuple(args.items())
        r = groups.setdefault(group, OrderedDict()).setdefault(strategy, OrderedDict())
        r = r.setdefault(key, {"args": args})
        if b.get("error_occurred"):
            r["error"] = b["error_message"]
        elif b.get("aggregate_name") == "cv":
            r["cv"] = b["real_time"]
        elif b.get("aggregate_name") == "median" or "median_s" not in r:
            r["median_s"] = b["real_time"] * UNIT_S[b["time_unit"]]
            r["gbps"] = b.get("bytes_per_second", 0) / 1e9
            r["items"] = b.get("items_per_second")
    return groups, run.get("context", {})


def pick(group, strategies):
    """The configuration (args tuple) the group's table shows."""
    keys = [k for rows in strategies.values() for k in rows]
    want = PRODUCTION.get(group)
    if want is None:
        first = keys[0][0][0]
        want = {first: "max"}
    for name, value in want.items():
        if value == "max":
            value = max(dict(k).get(name, 0) for k in keys)
        keys = [k for k in keys if dict(k).get(name) == value]
    return keys[0] if keys else None


def main():
    ap = argparse.ArgumentParser(prog="scripts/summary.py", description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", nargs="?", default="results/latest.json", metavar="RUN.json",
                    help="a hotbench run's google-benchmark JSON (default %(default)s)")
    path = ap.parse_args().run
    try:
        groups, ctx = load(path)
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("summary.py: cannot read %s as a hotbench run JSON (%s: %s)"
                 % (path, type(e).__name__, e))
    print("run %s  rev %s  profile %s  budget %s s" % (ctx.get("date"), ctx.get("hb_git_revision"),
                                                      ctx.get("hb_profile"), ctx.get("hb_budget_s")))
    for group, strategies in groups.items():
        key = pick(group, strategies)
        if key is None:
            continue
        ref_name = REFERENCE.get(group)
        ref = strategies.get(ref_name, {}).get(key, {}).get("median_s")
        print("\n%s at %s; ratio = time / %s" % (
            group, ", ".join("%s:%d" % kv for kv in key),
            ref_name + "'s time" if ref else "(no reference row)"))
        print("  %-20s %12s %7s %9s %10s %9s" % ("strategy", "median", "cv", "GB/s", "ns/item",
                                                 "ratio"))
        for strategy, rows in strategies.items():
            r = rows.get(key)
            if r is None:
                print("  %-20s not run at this configuration" % strategy)
            elif "median_s" in r:
                cv = r.get("cv")
                flag = "  noisy (cv > 10%)" if cv is not None and cv > 0.10 else ""
                ratio = "%9.3g" % (r["median_s"] / ref) if ref else "%9s" % "-"
                per_item = "%10.4g" % (1e9 / r["items"]) if r.get("items") else "%10s" % "-"
                print("  %-20s %12s %7s %9.3f %s %s%s" % (
                    strategy, fmt_time(r["median_s"]),
                    "%.1f%%" % (100 * cv) if cv is not None else "-", r["gbps"], per_item, ratio,
                    flag))
            else:
                m = re.search(r"predicted ([0-9.e+]+) s", r.get("error", ""))
                if m:
                    pred = float(m.group(1))
                    ratio = "%9.3g" % (pred / ref) if ref else "%9s" % "-"
                    print("  %-20s %12s %7s %9s %10s %s  PREDICTED, not run" % (
                        strategy, fmt_time(pred), "-", "-", "-", ratio))
                else:
                    print("  %-20s %s" % (strategy, r.get("error", "no result")))


if __name__ == "__main__":
    main()

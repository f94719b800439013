"""Per process of a compare's screening (trials dir), the factor time/median-over-processes of
each benchmark, in the process's run order, averaged over windows of W benchmarks: shows slow
phases shorter than a process."""
import json, glob, sys, statistics, os
d = sys.argv[1]; W = int(sys.argv[2]) if len(sys.argv) > 2 else 25
runs = []
for f in sorted(glob.glob(os.path.join(d, "screen-*.json"))):
    if ".part" in f: continue
    j = json.load(open(f)); order = []; t = {}
    for b in j["benchmarks"]:
        if b.get("run_type") != "iteration": continue
        n = b["run_name"]
        if n not in t: order.append(n); t[n] = b["real_time"]
        else: t[n] = min(t[n], b["real_time"])
    runs.append((os.path.basename(f), order, t))
common = set.intersection(*(set(t) for _, _, t in runs))
med = {n: statistics.median(t[n] for _, _, t in runs) for n in common}
for name, order, t in runs:
    fs = [t[n] / med[n] for n in order if n in common and med[n] > 0]
    wins = [statistics.median(fs[i:i + W]) for i in range(0, len(fs), W)]
    print("%-22s whole %.2f | %s" % (name, statistics.median(fs), " ".join("%.2f" % w for w in wins)))

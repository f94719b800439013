"""summ.py OUT TAG: per row of run.sh's output, head/base - 1 of the medians over the processes
of each process's least repetition (CPU time), and hb_injected_paid; per binary the median over
the rows and per strategy."""
import collections
import glob
import json
import statistics as st
import sys

out, tag = sys.argv[1], sys.argv[2]
for ver in ("old", "new"):
    vals = collections.defaultdict(lambda: collections.defaultdict(list))
    paid = collections.defaultdict(list)
    for arm in ("base", "head"):
        for f in glob.glob("%s/%s-%s-%s-*.json" % (out, tag, ver, arm)):
            per = collections.defaultdict(list)
            for b in json.load(open(f))["benchmarks"]:
                if b.get("run_type") != "iteration" or b.get("error_occurred"):
                    continue
                per[b["run_name"]].append(b["cpu_time"])
                if "hb_injected_paid" in b:
                    paid[b["run_name"]].append(b["hb_injected_paid"])
            for n, v in per.items():
                vals[n][arm].append(min(v))
    fam = collections.defaultdict(list)
    for n, v in sorted(vals.items()):
        r = st.median(v["head"]) / st.median(v["base"]) - 1
        fam[n.split("/")[1]].append(r)
        print("%s %-50s %+.1f%% paid %.3f n=%d/%d" % (
            ver, n[:50], 100 * r, st.median(paid[n]) if paid[n] else 0, len(v["base"]),
            len(v["head"])))
    allr = [x for rs in fam.values() for x in rs]
    print("%s median over rows %+.2f%%; per strategy %s" % (
        ver, 100 * st.median(allr), {k: round(100 * st.median(rs), 1) for k, rs in fam.items()}))

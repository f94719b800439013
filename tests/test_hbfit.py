#!/usr/bin/python3
"""test_hbfit.py HOTBENCH - the fitting, prediction and validation of scripts/hotbench/fit.py, and
the report pipeline end to end on a smoke run.

Synthetic data from known models (seeded): the fitted exponent's interval holds the true one,
95% prediction intervals hold about 95% of fresh observations, the piecewise httpcore model
recovers its copy price, and additive_copies agrees exactly with the counts hotbench's httpcore
sink reports. Then report.py runs on a real smoke run of HOTBENCH and must write every section
and chart. Prints one line per check and 'N passed, M failed'; exits 1 on a failure.
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from hotbench import fit as hbfit  # noqa: E402
from hotbench.runjson import Run  # noqa: E402

from test_report_util import check, done  # noqa: E402


def noisy(rng, t, cv):
    return t * rng.lognormal(0.0, cv, size=np.shape(t))


rng = np.random.default_rng(20211104)
sizes = np.repeat(2.0 ** np.arange(20, 31, 2), 3)

# 1. a linear law with a constant: k's interval holds 1, the prediction's interval the truth
truth = lambda n: 2e-3 + 5e-10 * n  # noqa: E731
fit = hbfit.PowerFit(sizes, noisy(rng, truth(sizes), 0.05))
check(fit.ok and fit.k_ci[0] <= 1.0 <= fit.k_ci[1] and fit.k_ci[1] - fit.k_ci[0] < 0.2,
      "linear law: k = %.3f [%.3f, %.3f] holds 1" % (fit.k, *fit.k_ci))
p, lo, hi = fit.predict(1.7e9)
check(lo <= truth(1.7e9) <= hi and lo < p < hi,
      "linear law: 1.7e9 predicted %.4g [%.4g, %.4g], truth %.4g" % (p, lo, hi, truth(1.7e9)))
v = hbfit.validate(hbfit.PowerFit, sizes, noisy(rng, truth(sizes), 0.05))
check(v is not None and abs(v["error"]) < hbfit.VALIDATION_LIMIT,
      "linear law: leave-largest-out error %+.1f%%" % (100 * v["error"]))

# 2. a quadratic law: k near 2
fit = hbfit.PowerFit(sizes, noisy(rng, 3e-19 * sizes ** 2, 0.05))
check(fit.ok and abs(fit.k - 2) < 0.1 and fit.k_ci[0] <= 2 <= fit.k_ci[1],
      "quadratic law: k = %.3f [%.3f, %.3f] holds 2" % (fit.k, *fit.k_ci))

# 3. coverage over 300 seeds, with errors as on these machines: each size has its own error
# (caches, page state), shared by its repetitions, plus a smaller one per repetition. The 95%
# intervals of k must hold the true k, and the prediction intervals the median of three fresh
# repetitions at a new size, about 95% of the time - neither far less (overconfident) nor
# always (useless).
def machine(r, n, size_cv=0.08, rep_cv=0.02):
    per_size = {v: r.lognormal(0.0, size_cv) for v in np.unique(n)}
    return truth(n) * np.array([per_size[v] for v in n]) * r.lognormal(0.0, rep_cv, len(n))


for label, sz in (("6 sizes", sizes), ("4 sizes", np.repeat(2.0 ** np.arange(24, 31, 2), 3)),
                  ("3 sizes", np.repeat(2.0 ** np.arange(26, 31, 2), 3))):
    k_hits = p_hits = 0
    for i in range(300):
        r = np.random.default_rng(1000 + i)
        f = hbfit.PowerFit(sz, machine(r, sz))
        # the truth's local exponent over the sizes fitted: d log t / d log N
        kt = float(np.mean([5e-10 * v / truth(v) for v in np.unique(sz)]))
        if f.with_constant:
            kt = 1.0
        k_hits += f.k_ci[0] <= kt <= f.k_ci[1]
        p, lo, hi = f.predict(2.0 ** 31)
        p_hits += lo <= np.median(machine(r, np.full(3, 2.0 ** 31))) <= hi
    check(0.85 <= k_hits / 300 <= 0.999 and 0.85 <= p_hits / 300 <= 0.999,
          "%s: 95%% intervals hold k in %d and a fresh median in %d of 300 fits"
          % (label, k_hits, p_hits))

# 4. the piecewise model recovers the copy price past the threshold
bits, read = 24, 4096
N = np.repeat(np.array([1, 2, 3, 4, 4.25, 5, 6, 8]) * 2 ** 20, 3)
c_true = 2e-11
t = noisy(rng, 1e-4 + 6e-11 * N + c_true * hbfit.additive_copies(N, bits, read), 0.03)
pw = hbfit.PiecewiseFit(N, t, bits, read)
check(pw.ok and abs(pw.c / c_true - 1) < 0.05,
      "piecewise: copy price %.4g s/B recovered (truth %.4g)" % (pw.c, c_true))
check(float(hbfit.additive_copies(2 ** 22, bits, read)) == 0.0 and
      float(hbfit.additive_copies(2 ** 22 + 1, bits, read)) == 2 ** 22,
      "additive_copies: zero at the threshold, one step of L just past it")

# 5. a power fit on too few sizes says so instead of inventing a curve
f = hbfit.PowerFit([1e6, 1e6, 2e6], [1.0, 1.1, 2.0])
check(not f.ok and "fewer than 3" in f.why, "two sizes: no fit (%s)" % f.why)

# 5b. intervals: digits only when at most 100x wide (issue 11 §3)
for lo, hi, want in ((1.0, 50.0, "[1 s, 50 s]"), (1e-3, 1.0, "unbounded"),
                     (0.0, 1.0, "unbounded"), (1.0, float("inf"), "unbounded")):
    got = hbfit.fmt_interval(lo, hi)
    check(want in got, "fmt_interval(%g, %g) = %r" % (lo, hi, got))

# 5c. the cliff chart's narrow panel (sizes just past 2^30) draws the largest size measured
# below the threshold as a line: the height the cliff starts from
from hotbench import charts  # noqa: E402
with tempfile.TemporaryDirectory() as tmp:
    L = 2 ** 30
    N = np.array([L + 8192, L + 8192, L + 32768, L + 32768], dtype=float)
    t = np.array([24.0, 25.0, 48.0, 50.0])
    stem = os.path.join(tmp, "cliff")
    png = charts.cliff([("s, 32 bits", N, t, L, None, (L - 2 ** 20, 13.1))], stem, "s",
                       "payload size N", "ns/B")
    svg = open(stem + ".svg").read() if png else ""
    check(png == "cliff.png" and "1 MiB below the threshold (1023 MiB): 13.1 s" in svg,
          "the cliff chart labels the size below the threshold and its time")
    charts.cliff([("s, 32 bits", N, t, L, None)], stem, "s", "payload size N", "ns/B")
    check("below the threshold" not in open(stem + ".svg").read(),
          "a panel without a size below the threshold draws no such line")

# 6. hotbench itself: its httpcore sink copies exactly what additive_copies says past the
# threshold (two sizes past it differ by X(N2) - X(N1) plus the final copy's N2 - N1), and
# report.py renders a report of a real (smoke) run
hotbench = sys.argv[1] if len(sys.argv) > 1 else None
if hotbench:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run.json")
        env = dict(os.environ, HB_DATA_DIR=os.path.join(tmp, "data"))
        subprocess.run([hotbench, "--hb_profile=smoke", "--benchmark_min_time=0.001",
                        "--benchmark_out=" + out, "--benchmark_out_format=json"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        run = Run(out)
        cl = {r["params"]["size"]: r["counters"]["bytes_copied_per_byte"] * r["params"]["size"]
              for r in run.select("bufgrow-cliff", "httpcore", width=16)}
        n1, n2 = 20 * 1024, 32 * 1024
        want = float(hbfit.additive_copies(n2, 16, 4096) - hbfit.additive_copies(n1, 16, 4096)
                     + (n2 - n1))
        got = cl.get(n2, -1) - cl.get(n1, 0)
        check(abs(got - want) < 0.5, "hotbench's httpcore copies %.0f bytes more at %d than at "
              "%d; additive_copies says %.0f" % (got, n2, n1, want))
        check(len(run.rows) > 50 and len(run.families()) >= 5,
              "Run: %d timed rows in %d families" % (len(run.rows), len(run.families())))
        rep = os.path.join(tmp, "report")
        r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "..", "scripts", "report.py"),
                            "--run", out, "--e2e", os.path.join(tmp, "none.json"),
                            "--peers", os.path.join(tmp, "none.json"), "--out", rep],
                           capture_output=True, text=True)
        check(r.returncode == 0, "report.py exits 0" + ("" if r.returncode == 0 else
                                                        ": " + r.stderr[-600:]))
        text = open(os.path.join(rep, "REPORT.md")).read() if r.returncode == 0 else ""
        for sec in ("## Summary", "## Environment", "## Case 1", "## Case 2", "## Case 3",
                    "## Whole-process runs", "## Peers"):
            check(sec in text, "REPORT.md has '%s'" % sec)
        import re
        pngs = re.findall(r"\(charts/([^)]+\.png)\)", text)
        sizes_ok = [os.path.getsize(os.path.join(rep, "charts", p)) > 5000 for p in pngs]
        check(len(pngs) >= 5 and all(sizes_ok),
              "REPORT.md links %d charts, all written and non-trivial" % len(pngs))
        # a strategy that failed verification is listed, never silently dropped
        doc = json.load(open(out))
        for b in doc["benchmarks"]:
            if b["name"].startswith("rfc3339/swar/"):
                b.update(error_occurred=True, error_message="error: swar differs (test)")
        json.dump(doc, open(os.path.join(tmp, "failed.json"), "w"))
        r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "..", "scripts", "report.py"),
                            "--run", os.path.join(tmp, "failed.json"), "--out", rep],
                           capture_output=True, text=True)
        text = open(os.path.join(rep, "REPORT.md")).read() if r.returncode == 0 else ""
        check("FAILED verification" in text and "rfc3339/swar/" in text,
              "a failed verification is listed in REPORT.md")
        bad = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "..", "scripts",
                                                               "report.py"),
                              "--run", os.path.join(tmp, "missing.json"), "--out", rep],
                             capture_output=True, text=True)
        check(bad.returncode != 0 and "make bench" in bad.stderr,
              "a missing run JSON: non-zero exit, says to run make bench")

done()

# Whole-procedure false-alarm rate at the edge of the null: m suspect strategies, each 3 sizes
# exactly e/2 (1%) slower, 10 processes a side in the first round and N2 in the second, 3%
# log-normal noise; first round, the second round for up to 4 (sequential.chosen, at the code's
# MAX_P1), q (sequential.q_value), Holm at ALPHA/2.
# The sizes pooled with precision weights from an independent screening draw (what the
# compare does: "screening"), from the pooled values themselves ("precision": the first form,
# which a review found too permissive) and equal weights. Nominal: 0.025.
# usage: /usr/bin/python3 fwer.py [COMPARES [N2 [WEIGHTS]]]   (default 15000 per line, N2 10,
# WEIGHTS screening,precision,equal; output: fwer.txt, fwer-<N2>.txt)
import os, sys, math
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "scripts"))
import numpy as np
from hotbench.compare import rankstats, sequential
from hotbench.compare.engine import Options
from hotbench.compare.confirmation import ALPHA
o = Options(); e = o.min_effect; n = 10
N2 = int(sys.argv[2]) if len(sys.argv) > 2 else n
HOWS = sys.argv[3].split(",") if len(sys.argv) > 3 else ["screening", "precision", "equal"]
cdfs = {k: np.cumsum(rankstats.u_counts(k, k)) / sum(rankstats.u_counts(k, k)) for k in {n, N2}}
def p_est(y):
    k = y.shape[0] // 2
    d = (y[k:, None] - y[None, :k]).ravel(); est = math.exp(np.median(d))
    if not est > 1 + e: return 1.0, est
    return cdfs[k][int((d <= math.log1p(e / 2)).sum())], est
def weights(x):
    k = x.shape[1] // 2
    inv = [1 / max(1.4826 * np.median(np.concatenate([abs(r[:k] - np.median(r[:k])), abs(r[k:] - np.median(r[k:]))])), 0.01) ** 2 for r in x]
    return np.array(inv) / sum(inv)
def pooled(x, how, xs=None):
    w = weights(xs if xs is not None else x) if how != "equal" else np.ones(len(x)) / len(x)
    return w @ (x - np.median(x, axis=1, keepdims=True))
def draw(S, sd, rng, k=n):
    x = sd * rng.standard_normal((S, 2 * k)); x[:, k:] += math.log1p(e / 2); return x
def holm(q):
    left = set(q); rej = set()
    while left:
        hit = {k for k in left if q[k] <= ALPHA / 2 / len(left)}
        if not hit: break
        rej |= hit; left -= hit
    return rej
def compare(m, S, sd, how, rng, share):
    ind = how == "screening"
    first = {k: p_est(pooled(draw(S, sd, rng), how, draw(S, sd, rng) if ind else None)) for k in range(m)}
    rej1 = holm({k: sequential.q_value(p, None, share) for k, (p, _) in first.items()})
    go = sequential.chosen(first, rej1, o) if share < 1 else []
    p2 = {k: p_est(pooled(draw(S, sd, rng, N2), how, draw(S, sd, rng) if ind else None))[0] for k in go}
    q = {k: sequential.q_value(first[k][0], p2.get(k), share) for k in first}
    return bool(holm(q))
rng = np.random.default_rng(12); R = int(sys.argv[1]) if len(sys.argv) > 1 else 15000
for m in (1, 4, 8):
    for how in HOWS:
        for share in (1.0, 0.5):
            fa = np.mean([compare(m, 3, 0.03, how, rng, share) for _ in range(R)])
            print("m=%d %-9s share %.1f: false-alarm rate %.4f (+-%.4f)" % (m, how, share, fa, math.sqrt(fa * (1 - fa) / R)), flush=True)

"""stats - what the checks share: the log median of repetitions with its standard error, a
benchmark's ratio to its group's yardstick, and the series the complexity check fits.

The yardstick (the manifest's group.yardstick) is the row a group's times are divided by so that
the machine's speed cancels: library code the project does not change and linear in the size,
a strategy of the group (the same arguments) or a whole benchmark name (contains "/").
"""

import math

import numpy as np



def log_median_se(ts):
    """(median of log t, its standard error): 1.2533 * robust sd / sqrt(n), the robust sd being
    1.4826 * MAD (the sample sd when the MAD is 0, e.g. n = 2)."""
    x = np.log(np.asarray(ts, float))
    med = float(np.median(x))
    if x.size < 2:
        return med, float("inf")
    sd = 1.4826 * float(np.median(np.abs(x - med)))
    if sd == 0:
        sd = float(np.std(x, ddof=1))
    return med, 1.2533 * sd / math.sqrt(x.size)


def reference_name(manifest, name, row):
    """The benchmark name of the row's yardstick (name itself for the yardstick's own rows), or
    None when its group has none (or the manifest does not describe the group)."""
    group = manifest.group(row["family"])
    ref = group.get("yardstick") if group else None
    if not ref:
        return None
    if "/" in ref:
        return ref
    parts = name.split("/")
    parts[1] = ref
    return "/".join(parts)


def log_ratio(manifest, run, name):
    """(log(median / reference median), its standard error, log(fastest / reference's fastest))
    in one run, or None."""
    row = run["rows"].get(name)
    ref = reference_name(manifest, name, row) if row else None
    if row is None or ref is None or ref not in run["rows"]:
        return None
    m1, s1 = log_median_se(row["t"])
    m2, s2 = log_median_se(run["rows"][ref]["t"])
    fastest = math.log(min(row["t"])) - math.log(min(run["rows"][ref]["t"]))
    return m1 - m2, math.hypot(s1, s2), fastest


def in_view(row, view):
    """Whether a row lies on the view's series: x among its arguments, positive (a power law's
    logarithm needs it), the other arguments at the view's fixed values."""
    x = row["params"].get(view["x"])
    return (isinstance(x, (int, float)) and x > 0
            and all(row["params"].get(k) == v for k, v in view["fixed"].items()))


def series_views(manifest, run, min_sizes=3):
    """(group, view) of every view the complexity check fits: x counts items (items_per_x > 0:
    not a parameter such as digits) and the run measured some strategy of the group at
    min_sizes or more values of x on it (a view the gate's selection does not cover is left to
    the report)."""
    out = []
    for group, view in manifest.views():
        if not view.get("items_per_x"):
            continue
        sizes = {}
        for row in run["rows"].values():
            if row["family"] == group["name"] and in_view(row, view):
                sizes.setdefault(row["strategy"], set()).add(row["params"][view["x"]])
        if any(len(s) >= min_sizes for s in sizes.values()):
            out.append((group, view))
    return out


def normalised_series(manifest, run, family, strategy, view, ref_base, per_reference):
    """(N, t) over every repetition of a strategy along the view's x. Each time is divided by the
    median of its reference row at the same size in the same run (the machine cancels), then
    multiplied by
      per_reference=False: the reference's median at that size in the baseline's first run, so
                           t is the strategy's time on the baseline's machine (the budget check);
      per_reference=True:  N, so t grows as the strategy grows relative to a reference declared
                           linear: the memory hierarchy's curvature, which the reference shares
                           (64 KiB fits in L2, 16 MiB pays page faults), cancels (the class check).
    Sizes without a reference row in both runs are left out."""
    N, t = [], []
    for name, row in run["rows"].items():
        if row["family"] != family or row["strategy"] != strategy or not in_view(row, view):
            continue
        ref = reference_name(manifest, name, row)
        if not ref or ref not in run["rows"] or ref not in ref_base["rows"]:
            continue
        n = row["params"][view["x"]]
        scale = float(n) if per_reference else \
            math.exp(log_median_se(ref_base["rows"][ref]["t"])[0])
        scale /= math.exp(log_median_se(run["rows"][ref]["t"])[0])
        for x in row["t"]:
            N.append(n)
            t.append(x * scale)
    return np.array(N, float), np.array(t, float)

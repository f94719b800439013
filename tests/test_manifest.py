#!/usr/bin/python3
"""test_manifest.py HOTBENCH - the manifest (docs/manifest.md) against what hotbench registers.

Checks: `hotbench --hb_manifest` is one JSON object of schema hotbench-manifest/1 with the
documented keys and types; every family --benchmark_list_tests lists (full profile) is a
described group/strategy and every described strategy is registered; every group's reference
and yardstick name a row that exists; view keys are unique, their charts from the catalogue,
their fixed and x arguments in the group's benchmark names; a run's context carries the same
manifest as --hb_manifest prints. Prints one line per check and 'N passed, M failed'."""

import json
import os
import subprocess
import sys
import tempfile

from test_report_util import check, done

CHARTS = {"table", "k-table", "scaling", "extrapolation", "bars", "per-element", "lines",
          "copied", "cliff"}
KEYS = {
    "case": {"name": str, "title": str, "incident": str, "groups": list, "e2e": list,
             "peers": list},
    "group": {"name": str, "title": str, "about": str, "strategies": list, "views": list,
              "gate": dict},
    "strategy": {"name": str, "role": str, "complexity": int, "model": str},
    "view": {"key": str, "title": str, "x": str, "x_label": str, "unit": str, "fixed": dict,
             "production": (int, float), "production_label": str, "items_per_x": (int, float),
             "per_label": str, "per_scale": (int, float), "fit_from": str, "charts": list},
}


def typed(obj, kind):
    bad = [k for k, t in KEYS[kind].items() if not isinstance(obj.get(k), t)]
    return not bad, "%s %s: %s" % (kind, obj.get("name", obj.get("key")),
                                   "keys and types as documented" if not bad
                                   else "bad or missing " + ", ".join(bad))


def names(hotbench, *args):
    out = subprocess.run([hotbench, "--benchmark_list_tests"] + list(args), check=True,
                         capture_output=True, text=True).stdout.split()
    return out


def check_shape(m):
    check(m.get("schema") == "hotbench-manifest/1", "schema %r" % m.get("schema"))
    for c in m["cases"]:
        check(*typed(c, "case"))
        for g in c["groups"]:
            check(*typed(g, "group"))
            for s in g["strategies"]:
                ok, what = typed(s, "strategy")
                check(ok and s["role"] in ("strategy", "ceiling")
                      and s["model"] in ("power", "piecewise-32"), what)
            for v in g["views"]:
                ok, what = typed(v, "view")
                check(ok and set(v["charts"]) <= CHARTS, what + "; charts from the catalogue")


def check_against_registry(m, listed):
    described = {(g["name"], s["name"]) for c in m["cases"] for g in c["groups"]
                 for s in g["strategies"]}
    registered = {tuple(n.split("/")[:2]) for n in listed}
    check(registered <= described, "every registered family is described (missing: %s)" %
          sorted(registered - described)[:5])
    check(described <= registered, "every described strategy is registered (extra: %s)" %
          sorted(described - registered)[:5])
    keys = [v["key"] for c in m["cases"] for g in c["groups"] for v in g["views"]]
    check(len(keys) == len(set(keys)), "view keys unique: %s" % keys)
    for c in m["cases"]:
        for g in c["groups"]:
            rows = [n for n in listed if n.startswith(g["name"] + "/")]
            strat = {s["name"] for s in g["strategies"]}
            for what in ("reference", "yardstick"):
                r = g.get(what)
                ok = r is None or r in strat or (
                    "/" in r and r in {n.rsplit("/", 1)[0] + "/real_time" for n in listed})
                check(ok, "%s's %s %r names a row that exists" % (g["name"], what, r))
            for v in g["views"]:
                args = [v["x"]] + list(v["fixed"])
                check(all(any("/%s:" % a in n for n in rows) for a in args),
                      "view %s: its arguments %s are in %s's names" % (v["key"], args, g["name"]))


def check_context(hotbench, printed):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "run.json")
        first = names(hotbench, "--hb_profile=smoke")[0].rsplit("/", 1)[0]
        r = subprocess.run([hotbench, "--hb_profile=smoke", "--benchmark_filter=^%s/" % first,
                            "--benchmark_min_time=0.001", "--benchmark_out=" + out], check=True,
                           capture_output=True, text=True, env=dict(os.environ, HB_DATA_DIR=d))
        with open(out) as f:
            ctx = json.load(f)["context"]
    check(json.loads(ctx.get("hb_manifest", "null")) == printed,
          "the run's context.hb_manifest equals --hb_manifest")
    check("hb_manifest" not in r.stderr and "hb_profile: smoke" in r.stderr,
          "the console's header shows the context but not the manifest")


def main():
    hotbench = sys.argv[1]
    text = subprocess.run([hotbench, "--hb_manifest"], check=True, capture_output=True,
                          text=True).stdout
    check(text.count("\n") == 1 and text.endswith("}\n"), "--hb_manifest prints one line")
    m = json.loads(text)
    check_shape(m)
    check_against_registry(m, names(hotbench))
    check_context(hotbench, m)
    done()


main()

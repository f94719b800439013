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


SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts")


def run_json(d, name, manifest, benchmarks=None):
    """A tiny run JSON whose context.hb_manifest is manifest (a string, or any JSON value; None:
    no manifest, a run from before hotbench-manifest/1)."""
    path = os.path.join(d, name)
    if benchmarks is None:
        benchmarks = [{"name": "g/s/n:%d/real_time" % n, "run_name": "g/s/n:%d/real_time" % n,
                       "run_type": "iteration", "repetition_index": 0, "iterations": 10,
                       "real_time": n, "cpu_time": n, "time_unit": "ns"} for n in (10, 100)]
    with open(path, "w") as f:
        ctx = {} if manifest is None else {"hb_manifest": manifest}
        json.dump({"context": ctx, "benchmarks": benchmarks}, f)
    return path


def script(*args):
    """(exit status, stderr) of scripts/<args[0]> with the other args; a name without ".py"
    is a module of the package, run as `python3 -m hotbench.<name>` from scripts/."""
    if args[0].endswith(".py"):
        cmd = [sys.executable, os.path.join(SCRIPTS, args[0])]
    else:
        cmd = [sys.executable, "-m", "hotbench." + args[0]]
    p = subprocess.run(cmd + list(args[1:]), capture_output=True, text=True, cwd=SCRIPTS)
    return p.returncode, p.stderr


def check_readers(m):
    """Malformed manifests and files that are not runs are refused with a sentence (a
    ManifestError in the library; an exit status and no traceback from the scripts)."""
    sys.path.insert(0, SCRIPTS)
    from hotbench.manifest import Manifest, ManifestError
    bad = {}
    for what, mutate in (
            ("no cases", lambda x: x.pop("cases")),
            ("cases null", lambda x: x.update(cases=None)),
            ("a group without views", lambda x: x["cases"][0]["groups"][0].pop("views")),
            ("a view without fixed", lambda x: x["cases"][0]["groups"][0]["views"][0].pop("fixed")),
            ("a view whose fit_from is not a number",
             lambda x: x["cases"][0]["groups"][0]["views"][0].update(fit_from="abc")),
            ("a strategy not an object", lambda x: x["cases"][0]["groups"][0]["strategies"]
             .append("s"))):
        x = json.loads(json.dumps(m))
        mutate(x)
        bad[what] = json.dumps(x)
    # a group's limits (docs/manifest.md) naming a ceiling as its strategy, or lacking its text
    for what, mutate in (("limits naming a ceiling as its strategy",
                          lambda lim: lim.update(strategy=lim["ceiling"])),
                         ("limits without mechanism", lambda lim: lim.pop("mechanism"))):
        x = json.loads(json.dumps(m))
        lims = [g["limits"] for c in x["cases"] for g in c["groups"] if g.get("limits")]
        if lims:
            mutate(lims[0])
            bad[what] = json.dumps(x)
    bad["an object, not a string"] = m
    bad["a number"] = 5
    for what, text in bad.items():
        try:
            Manifest.from_context({"hb_manifest": text})
            ok = False
        except ManifestError:
            ok = True
        except Exception as e:  # noqa: BLE001: the check is that nothing else escapes
            ok = False
            what += " (%s: %s)" % (type(e).__name__, e)
        check(ok, "a manifest with %s: ManifestError" % what)
    with tempfile.TemporaryDirectory() as d:
        for what, text in bad.items():
            path = run_json(d, "run.json", text)
            rc, err = script("summary.py", path)
            check(rc == 0 and "Traceback" not in err and "summary.py:" in err,
                  "summary.py on a run whose manifest has %s: a sentence, no traceback (%d: %s)"
                  % (what, rc, err.strip()[-120:]))
        notrun = os.path.join(d, "list.json")
        with open(notrun, "w") as f:
            f.write("[1, 2]")
        good = os.path.join(d, "manifest.json")
        with open(good, "w") as f:
            json.dump(m, f)
        garbage = os.path.join(d, "garbage.json")
        with open(garbage, "w") as f:
            f.write("not json")
        for peers in (notrun, garbage, d):
            rc, err = script("peers_report", peers, run_json(d, "r.json", json.dumps(m), []), d)
            check(rc == 0 and "Traceback" not in err,
                  "peers_report on %s: a sentence, no traceback (%d: %s)"
                  % (os.path.basename(peers), rc, err.strip()[-120:]))
        # the report's sections standalone, beside a C run that is not one or whose manifest
        # is malformed: the section without the C figures, no traceback
        ref = os.path.join(SCRIPTS, "..", "results", "reference")
        for run in (notrun, garbage, d, run_json(d, "bad.json", bad["no cases"])):
            for args in (("e2e_report", "--out", d, os.path.join(ref, "e2e.json"), run),
                         ("peers_report", os.path.join(ref, "peers.json"), run, d)):
                rc, err = script(*args)
                check(rc == 0 and "Traceback" not in err,
                      "%s beside %s: no traceback (%d: %s)" % (
                          args[0], os.path.basename(run), rc, err.strip()[-120:]))
        rc, err = script("summary.py", notrun)
        check(rc in (1, 2) and "Traceback" not in err,
              "summary.py on a file that is no run: refused, no traceback (%d: %s)"
              % (rc, err.strip()[-120:]))


def main():
    hotbench = sys.argv[1]
    text = subprocess.run([hotbench, "--hb_manifest"], check=True, capture_output=True,
                          text=True).stdout
    check(text.count("\n") == 1 and text.endswith("}\n"), "--hb_manifest prints one line")
    m = json.loads(text)
    check_shape(m)
    check_against_registry(m, names(hotbench))
    check_context(hotbench, m)
    check_readers(m)
    done()


main()

#!/usr/bin/python3
"""upgrade_run.py RUN.json [--manifest FILE | --hotbench BIN] [-o OUT | --in-place]

Brings a run JSON written before hotbench-manifest/1 (docs/manifest.md) to the current form, so
the report and the gate read it like a new run:
  - context.hb_manifest: the cases' descriptions, from FILE (hotbench --hb_manifest's output) or
    from BIN --hb_manifest (default build/hotbench). Use the manifest of a revision whose cases
    match the run's: a group or strategy the run has but the manifest lacks is an error;
  - the skipped rows' figures as fields: older runs carried them only in the message ("skipped:
    predicted X s > budget Y s", "skipped: needs X GB at its peak, more than the Y GB allowed");
    they become hb_predicted_s and hb_budget_s (and, from the dry-run plan's "(A bytes
    appended, C bytes copied in G growths)", hb_bytes_appended, hb_bytes_copied, hb_growths),
    hb_peak_bytes and hb_memory_limit_bytes (the message's three significant digits for the
    memory figures);
  - context.hb_upgraded: what was done, so a reader knows.
A run that already carries a manifest is left as it is. Writes OUT (default: RUN.json in place
with --in-place, else standard output). Exit 0; 1 when the manifest does not describe the run;
2 on a usage error or an unreadable file.
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench.manifest import Manifest, ManifestError  # noqa: E402

# The prose of the skips before the fields existed (the only place that reads it).
LEGACY_BUDGET = re.compile(r"^skipped: predicted ([0-9.eE+-]+) s > budget ([0-9.eE+-]+) s")
LEGACY_PLAN = re.compile(r"\(([0-9.eE+-]+) bytes appended, ([0-9.eE+-]+) bytes copied in "
                         r"([0-9]+) growths\)")
LEGACY_MEMORY = re.compile(r"^skipped: needs ([0-9.eE+-]+) GB at its peak, more than the "
                           r"([0-9.eE+-]+) GB allowed")


def legacy_fields(message):
    """The structured fields a pre-manifest skip message stands for ({} for none)."""
    m = LEGACY_BUDGET.match(message)
    if m:
        out = {"hb_predicted_s": float(m.group(1)), "hb_budget_s": float(m.group(2))}
        plan = LEGACY_PLAN.search(message)
        if plan:  # the dry-run plan of the size skipped: what the report's copied chart draws
            out.update(hb_bytes_appended=float(plan.group(1)),
                       hb_bytes_copied=float(plan.group(2)), hb_growths=int(plan.group(3)))
        return out
    m = LEGACY_MEMORY.match(message)
    if m:
        return {"hb_peak_bytes": float(m.group(1)) * 1e9,
                "hb_memory_limit_bytes": float(m.group(2)) * 1e9}
    return {}


def undescribed(doc, manifest):
    """Names '<group>/<strategy>' of the run the manifest does not describe."""
    known = {(g["name"], s["name"]) for c in manifest["cases"] for g in c["groups"]
             for s in g["strategies"]}
    out = []
    for b in doc.get("benchmarks", []):
        parts = (b.get("run_name") or b["name"]).split("/")
        if len(parts) > 1 and (parts[0], parts[1]) not in known:
            name = parts[0] + "/" + parts[1]
            if name not in out:
                out.append(name)
    return out


def upgrade(doc, manifest_text):
    """Upgrades doc in place; returns the number of skipped rows given fields."""
    ctx = doc.setdefault("context", {})
    ctx["hb_manifest"] = manifest_text
    n = 0
    for b in doc.get("benchmarks", []):
        if b.get("error_occurred") and not any(k.startswith("hb_") for k in b):
            f = legacy_fields(b.get("error_message", ""))
            b.update(f)
            n += bool(f)
    ctx["hb_upgraded"] = ("scripts/upgrade_run.py: manifest added; %d skipped rows given their "
                          "figures as fields from their messages" % n)
    return n


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 usage=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="the run JSON to upgrade")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--manifest", help="a file written by hotbench --hb_manifest")
    src.add_argument("--hotbench", default="build/hotbench",
                     help="the hotbench whose --hb_manifest to use (default build/hotbench)")
    dst = ap.add_mutually_exclusive_group()
    dst.add_argument("-o", "--out", help="where to write (default standard output)")
    dst.add_argument("--in-place", action="store_true", help="rewrite RUN.json")
    return ap.parse_args(argv)


def main(argv=None):
    a = parse_args(argv)
    try:
        with open(a.run) as f:
            doc = json.load(f)
        if a.manifest:
            with open(a.manifest) as f:
                text = f.read().strip()
        else:
            text = subprocess.run([a.hotbench, "--hb_manifest"], capture_output=True, text=True,
                                  check=True).stdout.strip()
        manifest = json.loads(text)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print("upgrade_run: %s (build hotbench first: make)" % e, file=sys.stderr)
        return 2
    if not isinstance(doc, dict) or not isinstance(doc.get("context", {}), dict) \
            or not isinstance(doc.get("benchmarks", []), list) \
            or not all(isinstance(b, dict) and "name" in b for b in doc.get("benchmarks", [])):
        print("upgrade_run: %s is not a google-benchmark run JSON" % a.run, file=sys.stderr)
        return 2
    try:
        Manifest(manifest, a.manifest or a.hotbench + " --hb_manifest")
    except ManifestError as e:
        print("upgrade_run: %s" % e, file=sys.stderr)
        return 2
    if doc.get("context", {}).get("hb_manifest"):
        print("upgrade_run: %s already carries a manifest: unchanged" % a.run, file=sys.stderr)
    else:
        missing = undescribed(doc, manifest)
        if missing:
            print("upgrade_run: the manifest does not describe %s of %s: use the manifest of the "
                  "run's revision" % (", ".join(missing), a.run), file=sys.stderr)
            return 1
        n = upgrade(doc, json.dumps(manifest, separators=(",", ":")))
        print("upgrade_run: manifest added, %d skipped rows given fields" % n, file=sys.stderr)
    out = a.run if a.in_place else a.out
    text = json.dumps(doc, indent=2) + "\n"
    if not out:
        sys.stdout.write(text)
        return 0
    tmp = out + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, out)
    except OSError as e:
        print("upgrade_run: cannot write %s: %s" % (out, e), file=sys.stderr)
        if os.path.exists(tmp):
            os.remove(tmp)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

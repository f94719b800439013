#!/usr/bin/python3
"""test_alloc_manifest.py HOTBENCH - the allocator matrix's fields of the real manifest
(docs/manifest.md): `hotbench --hb_manifest` prints alloc_select and alloc_select_long for every
group and custom_allocator_twin for every strategy, each twin another strategy of its group; each
selection picks at least one registered benchmark (full profile); the one filter bench_alloc.py
builds makes hotbench list exactly the benchmarks the manifest reader selects (google-benchmark's
POSIX extended regex and Python's agree), with and without --long. Prints one line per check and
'N passed, M failed'."""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
from test_report_util import check, done  # noqa: E402

from hotbench.alloc_run import build_filter  # noqa: E402
from hotbench.manifest import Manifest  # noqa: E402


def listed(hotbench, flt=None):
    cmd = [hotbench, "--benchmark_list_tests"] + (["--benchmark_filter=" + flt] if flt else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [x for x in out.splitlines() if x.strip()]


def main():
    hotbench = sys.argv[1]
    doc = json.loads(subprocess.run([hotbench, "--hb_manifest"], capture_output=True, text=True,
                                    check=True).stdout)
    groups = [g for c in doc["cases"] for g in c["groups"]]
    check(all("alloc_select" in g and "alloc_select_long" in g for g in groups)
          and all(isinstance(g[k], (str, type(None))) for g in groups
                  for k in ("alloc_select", "alloc_select_long")),
          "every group prints alloc_select and alloc_select_long (string or null)")
    twins = [(g["name"], s["name"], s["custom_allocator_twin"]) for g in groups
             for s in g["strategies"] if s.get("custom_allocator_twin")]
    check(all("custom_allocator_twin" in s for g in groups for s in g["strategies"]),
          "every strategy prints custom_allocator_twin")
    check(twins and all(t != s and t in [x["name"] for x in next(
        g for g in groups if g["name"] == gn)["strategies"]] for gn, s, t in twins),
          "the twins (%s) name other strategies of their groups" % ", ".join(
              "%s/%s->%s" % x for x in twins))
    m = Manifest(doc, hotbench)
    every = listed(hotbench)
    for long in (False, True):
        sel = m.alloc_selection(long)
        for g, rx in sel:
            n = [b for b in every if b.startswith(g + "/") and re.match(rx, b[len(g) + 1:])]
            check(n, "%s%s selects %d registered benchmark(s)" % (
                g, " (long)" if long else "", len(n)))
        want = sorted(b for b in every if m.in_alloc_matrix(b, long))
        got = sorted(listed(hotbench, build_filter(m, long)))
        check(got == want and got, "%s: hotbench lists the %d benchmarks the manifest selects "
              "(%d)" % ("--long" if long else "default", len(got), len(want)))
    twin_rows = [b for b in every if m.in_alloc_matrix(b, True)]
    check(any(all(any(r.startswith("%s/%s/" % (g, x)) for r in twin_rows) for x in (s, t))
              for g, s, t in twins),
          "with --long, some strategy and its twin are both in the matrix")
    done()


if __name__ == "__main__":
    main()

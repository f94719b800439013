#!/usr/bin/python3
"""peers_report.py - the report's "real libraries beside the C models" section; the work is
scripts/hotbench/peers_report.py and each case's peers driver. report.py imports this module by
name and calls

    section(peers_json_path, run_json_path_or_None, outdir, link_prefix=None) -> str

after setting FORMATS (and DPI) from its --chart-formats and --dpi: they are handed to the one
chart style (hotbench.style) when set. Standalone: scripts/peers_report.py [PEERS.json [RUN.json
[OUTDIR]]] prints the Markdown (--help: usage).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench import peers_report as _impl  # noqa: E402
from hotbench import style as _style  # noqa: E402

FORMATS = None  # None: hotbench.style's own (report.py sets them from --chart-formats)
DPI = None


def section(peers_json_path, run_json_path_or_None, outdir, link_prefix=None):
    """Markdown for the report; charts written into outdir."""
    if FORMATS is not None:
        _style.FORMATS = tuple(f for f in FORMATS if f != "none")
    if DPI:
        _style.configure(dpi=DPI)
    return _impl.section(peers_json_path, run_json_path_or_None, outdir, link_prefix)


if __name__ == "__main__":
    sys.exit(_impl.main())

#!/usr/bin/python3
"""e2e_report.py - the whole-process (hyperfine) section of the report; the work is
scripts/hotbench/e2e_report.py. report.py imports this module by name and calls

    section(e2e_json_path, run_json_path_or_None, outdir, link_prefix="charts/") -> str

after setting FORMATS (and DPI) from its --chart-formats and --dpi: they are handed to the one
chart style (hotbench.style) when set. From the command line: the section printed as Markdown
(--help: usage).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench import e2e_report as _impl  # noqa: E402
from hotbench import style as _style  # noqa: E402

FORMATS = None  # None: hotbench.style's own (report.py sets them from --chart-formats)
DPI = None


def section(e2e_json_path, run_json_path_or_None, outdir, link_prefix="charts/"):
    """The Markdown of the whole-process section; writes its charts into outdir."""
    if FORMATS is not None:
        _style.FORMATS = tuple(f for f in FORMATS if f != "none")
    if DPI:
        _style.configure(dpi=DPI)
    return _impl.section(e2e_json_path, run_json_path_or_None, outdir, link_prefix)


if __name__ == "__main__":
    sys.exit(_impl.main(sys.argv[1:]))

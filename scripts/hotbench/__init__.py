"""hotbench - the suite's Python side: one reader of the run JSON (runjson), the manifest the
cases describe themselves with (manifest), one unit table (units), the fit module (fit), one
chart style (style), the report and the gate. The scripts in scripts/ are thin entry points.

No module here names a case, a group or a strategy: what a case is comes from its description,
carried by every run (docs/manifest.md).
"""

"""report - REPORT.md and its charts from a run JSON, walked from the manifest the run carries.

    cli        the command line (scripts/report.py): options, reading the run, writing REPORT.md
    sections   the summary, then per case, group and view the charts the view names
    catalogue  the chart catalogue of docs/manifest.md: one function per chart name
    views      a view with its group; its fits (power, piecewise-32) and its tables
    missing    the sentence for whatever the run lacks, naming the command that measures it
    environment, status   the machine's table; the parts of `make bench`

No module names a case, a group or a strategy: a new case is reported from its description.
"""

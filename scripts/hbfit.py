"""hbfit - the former fit module, kept as a thin re-export for scripts that still import it
(gate.py, peers_report.py): the run reader is hotbench.runjson, the units hotbench.units, the
models, predictions and validation hotbench.fit. New code imports those.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench.fit import (VALIDATION_LIMIT, WIDE_INTERVAL, PiecewiseFit,  # noqa: E402
                          PowerFit, SumFit, additive_copies, bounded, fmt_interval, medians,
                          model_bits, piecewise_fit, piecewise_views, step_interval,
                          summarize, validate)
from hotbench.runjson import Run, parse_name  # noqa: E402
from hotbench.units import TIME_UNIT, fmt_time  # noqa: E402

__all__ = ["VALIDATION_LIMIT", "WIDE_INTERVAL", "PiecewiseFit", "PowerFit", "SumFit",
           "additive_copies", "bounded", "fmt_interval", "medians", "model_bits",
           "piecewise_fit", "piecewise_views", "step_interval", "summarize", "validate", "Run",
           "parse_name", "TIME_UNIT", "fmt_time", "httpcore_fit"]


def httpcore_fit(run, strategy, fit_min=64 << 20, leave_out_largest=False):
    """The piecewise fit of a piecewise-32 strategy from the views the run's manifest names
    (hotbench.fit.piecewise_views and piecewise_fit); a PiecewiseFit that is not ok (and no
    points) when the manifest names none."""
    where = piecewise_views(run.manifest, strategy)
    if where is None:
        fit = PiecewiseFit([], [], 32, 1)
        fit.why = "the manifest names no views measuring %s's piecewise model" % strategy
        return fit, ([], [])
    main, cliff, bits, step = where
    return piecewise_fit(run, strategy, main, cliff, bits, step, fit_min, leave_out_largest)


if __name__ == "__main__":
    import argparse
    _ap = argparse.ArgumentParser(
        description="hbfit is a module (import hbfit): a re-export of hotbench.fit, "
        "hotbench.runjson and hotbench.units for the scripts that still import it. Run as a "
        "script it only prints this help.", epilog=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _ap.parse_args()
    _ap.print_help()

"""export - the gate's Bencher Metric Format file, bmf<suffix>.json of a measurement: latency
and cpu-time (ns per iteration: median, least, greatest repetition) and instructions per
iteration where callgrind counted them. The writer lives in hotbench.exports, with the other
exports (docs/ci.md); this name stays for gate/measure.py."""

from ..exports import gate_bmf as write_bmf  # write_bmf(run, ir, path)

__all__ = ["write_bmf"]

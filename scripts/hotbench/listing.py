"""listing - the benchmarks a hotbench would run, without running them: `hotbench
--benchmark_list_tests` with the same options (profile, filter, allocator), which prints one
google-benchmark name per line. The compare, make bench's estimate, the allocator matrix and
make gate-power ask it here."""

import subprocess


class Listing:
    """What one listing gave: names (list of str, in hotbench's order; [] when it failed), rc
    (hotbench's exit status, 127 when it could not start, 124 on the timeout) and message (its
    last non-empty line of output on a failure, else "")."""

    def __init__(self, names, rc, message):
        self.names, self.rc, self.message = names, rc, message

    @property
    def ok(self):
        return self.rc == 0


def list_benchmarks(binary, *options, timeout=120):
    """Lists binary's benchmarks for options (e.g. "--hb_profile=quick",
    "--benchmark_filter=^rfc3339/"); a Listing. Never raises."""
    cmd = [binary, "--benchmark_list_tests"] + list(options)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except OSError as e:
        return Listing([], 127, "%s cannot run: %s" % (binary, e))
    except subprocess.TimeoutExpired:
        return Listing([], 124, "%s --benchmark_list_tests took over %d s" % (binary, timeout))
    if p.returncode != 0:
        lines = [x for x in (p.stderr + p.stdout).splitlines() if x.strip()]
        return Listing([], p.returncode, lines[-1] if lines else
                       "hotbench exited %d" % p.returncode)
    return Listing(p.stdout.split(), 0, "")

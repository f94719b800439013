"""machine - this machine, described once: CPU model and clock, memory, kernel, libc, load, the
Debian packages of the libraries a measurement depends on, and the environment fingerprint a
recorded run carries (history/machine.py hashes it; bench.py, e2e.py and make gate-power write
these fields). Every reader returns None (or "unknown") for what it cannot read; none raises.
"""

import os
import platform
import re
import subprocess

# The context keys and Debian packages a measurement's environment is made of: these, and every
# library version and SIMD level a case adds to the context (CASE_KEYS).
CONTEXT_KEYS = ("hb_compiler", "hb_build_flags", "hb_build_type", "hb_benchmark_version",
                "library_build_type", "num_cpus")
CASE_KEYS = re.compile(r"_(version|simd_level)$")
PACKAGES = ("libbenchmark-dev", "zlib1g", "libexpat1", "libxml2", "libc6")


def _field(path, prefix):
    """The value after the first ':' of the first line of path starting with prefix, stripped,
    or None."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_model():
    """The CPU's model name (/proc/cpuinfo), else platform.processor() (may be "")."""
    return _field("/proc/cpuinfo", "model name") or platform.processor()


def cpu_mhz():
    """The first CPU's clock in MHz (/proc/cpuinfo "cpu MHz"), or None."""
    try:
        return float(_field("/proc/cpuinfo", "cpu MHz"))
    except (TypeError, ValueError):
        return None


def memory_bytes():
    """Physical memory in bytes (/proc/meminfo MemTotal), or None."""
    v = _field("/proc/meminfo", "MemTotal")
    try:
        return int(v.split()[0]) * 1024
    except (AttributeError, ValueError, IndexError):
        return None


def memory_text():
    """Physical memory as the run context records it ("23.5 GiB"), or None."""
    b = memory_bytes()
    return None if b is None else "%.1f GiB" % (b / 1073741824)


def kernel():
    """The kernel release (uname -r)."""
    return platform.release()


def loadavg():
    """The 1, 5 and 15 minute load averages (floats), or None."""
    try:
        return list(os.getloadavg())
    except OSError:
        return None


def packages(names=PACKAGES):
    """"pkg version, ..." of the installed Debian packages among names (dpkg-query), sorted, or
    "unknown (no dpkg-query)"."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}\\n"] + list(names),
                             capture_output=True, text=True).stdout
    except OSError:
        return "unknown (no dpkg-query)"
    return ", ".join(sorted(out.split("\n"))).strip(", ")


def fingerprint(ctx, valgrind):
    """The environment a measurement depends on (dict): the run context's (ctx: google-benchmark's
    context with hotbench's keys) compiler, flags, build type, library versions, SIMD levels and
    caches, its revision and date, and this machine's CPU model, kernel, libc, packages and
    valgrind (its version string, or None: "not installed")."""
    fp = {k: ctx.get(k) for k in CONTEXT_KEYS}
    fp.update({k: v for k, v in ctx.items() if CASE_KEYS.search(k)})
    fp["caches"] = ";".join("L%d %s %d" % (c["level"], c["type"], c["size"])
                            for c in ctx.get("caches", []))
    fp["git_revision"] = ctx.get("hb_git_revision")
    fp["date"] = ctx.get("date")
    fp["cpu_model"] = cpu_model()
    fp["kernel"] = kernel()
    fp["libc"] = " ".join(platform.libc_ver())
    fp["packages"] = packages()
    fp["valgrind"] = valgrind or "not installed"
    return fp

"""machine - the machine fingerprint of a recorded run: the environment fingerprint
(hotbench/machine.py: compiler, flags, library versions, CPU model, kernel, libc, Debian packages),
with what the run's own context records taking precedence over this machine, and a hash of the
fields that stay put while the code changes.

The hash covers STABLE only: the CPU model, the number of CPUs, the memory, the kernel, libc,
the compiler and the Debian packages of the libraries. It leaves out what moves with the commit
(build flags, the library versions and SIMD levels a case adds to the context: a new case must
not look like a new machine) and the cache sizes (some VMs expose none, and google-benchmark
then reports an empty list on the same machine).
"""

import hashlib
import json
import os
import subprocess

from ..machine import fingerprint, memory_text

STABLE = ("cpu_model", "num_cpus", "memory", "kernel", "libc", "hb_compiler", "packages")
# the context keys bench.py writes (machine_context) and the fingerprint field each fills
FROM_CONTEXT = (("hb_cpu_model", "cpu_model"), ("hb_kernel", "kernel"), ("hb_memory", "memory"))


def clean(value):
    """A field as bench.py's machine context spells it: ',' -> ';', '=' -> ':', whitespace
    collapsed (google-benchmark splits --benchmark_context on those), so both spellings hash
    alike; None stays None."""
    if value is None:
        return None
    s = " ".join(str(value).replace(",", ";").replace("=", ":").split())
    return s[len("Linux "):] if s.startswith("Linux ") else s


def machine_of(context):
    """(hash, info) for a run's context (dict, google-benchmark's context with hotbench's keys).
    info: dict, the fingerprint of this machine overridden by what the context records
    (hb_cpu_model, hb_kernel, hb_memory, num_cpus, the compiler), without the date and the
    revision; info["hashed"] lists the STABLE keys. hash: 16 hex digits of sha256 over those
    keys' cleaned values. Fields the context lacks (libc, packages, often memory) are this
    machine's: right for a run recorded where it ran, a guess for a file imported from another
    machine (docs/history.md). Runs dpkg-query once; raises nothing."""
    fp = fingerprint(context, None)
    fp.pop("date", None)
    fp.pop("git_revision", None)
    fp.pop("valgrind", None)
    fp["memory"] = memory_text()
    for key, field in FROM_CONTEXT:
        if context.get(key):
            fp[field] = context[key]
    stable = {k: clean(fp.get(k)) for k in STABLE}
    digest = hashlib.sha256(json.dumps(stable, sort_keys=True).encode()).hexdigest()[:16]
    fp["hashed"] = list(STABLE)
    return digest, fp


def local_context():
    """A context standing for a run made here now: num_cpus and the compiler ('GNU 12.2.0',
    from `cc`, as CMake names it) that a run's context carries, so that machine_of(local_context())
    is this machine's hash before anything runs (the backfill's resume check). The compiler is
    None when cc is missing."""
    ctx = {"num_cpus": os.cpu_count()}
    try:
        ver = subprocess.run(["cc", "-dumpfullversion", "-dumpversion"], capture_output=True,
                             text=True).stdout.strip()
        first = subprocess.run(["cc", "--version"], capture_output=True,
                               text=True).stdout.split("\n", 1)[0].lower()
    except OSError:
        return ctx
    ident = "Clang" if "clang" in first else "GNU" if ("gcc" in first or "free software" in
                                                       first or first.startswith("cc")) else None
    if ident and ver:
        ctx["hb_compiler"] = "%s %s" % (ident, ver)
    return ctx

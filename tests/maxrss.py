#!/usr/bin/python3
"""maxrss.py - run a command and assert that its peak memory (max RSS) stays under a bound.

usage: maxrss.py --max-mb MB [--status N] [--stderr-re RE] [--timeout S] -- CMD [ARG...]

CMD inherits standard input (give it a bounded stream: `head -c 200000000 /dev/zero | maxrss.py
...`); its standard output is discarded and its standard error kept. Its max RSS is read from the
kernel's rusage of that one child (os.wait4: ru_maxrss, KiB on Linux), so a producer in the pipe
is not counted. Passes (exit 0) when the max RSS is under MB megabytes (10^6 bytes), the exit status
is N (default: any) and standard error matches the regular expression RE (if given); otherwise
prints why and exits 1. A CMD still running after S seconds (default 120) is killed: a failure.
The bound is a correctness check (memory that grows with the input), so choose it generous enough
that noise cannot reach it.
"""
import argparse
import os
import re
import signal
import subprocess
import sys


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-mb", type=float, required=True, help="the bound on max RSS, in MB")
    ap.add_argument("--status", type=int, help="the expected exit status")
    ap.add_argument("--stderr-re", help="a regular expression standard error must match")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds before CMD is killed")
    ap.add_argument("cmd", nargs="+", help="the command and its arguments (after --)")
    a = ap.parse_args(argv)
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(a.cmd, stdout=null, stderr=subprocess.PIPE)
    timed_out = []

    def kill(_signum, _frame):
        timed_out.append(True)
        p.kill()

    signal.signal(signal.SIGALRM, kill)
    signal.setitimer(signal.ITIMER_REAL, a.timeout)
    err = p.stderr.read()  # to its end: the child has exited or closed it
    _, wstatus, ru = os.wait4(p.pid, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)
    p.returncode = os.waitstatus_to_exitcode(wstatus)  # reaped here, not by Popen
    p.stderr.close()
    rss_mb = ru.ru_maxrss * 1024 / 1e6
    text = err.decode("utf-8", "replace")
    why = []
    if timed_out:
        why.append(f"killed after {a.timeout:g} s")
    if rss_mb >= a.max_mb:
        why.append(f"max RSS {rss_mb:.1f} MB, bound {a.max_mb:g} MB")
    if a.status is not None and p.returncode != a.status:
        why.append(f"exit status {p.returncode}, expected {a.status}")
    if a.stderr_re is not None and not re.search(a.stderr_re, text):
        why.append(f"stderr does not match /{a.stderr_re}/")
    name = " ".join(os.path.basename(x) if i == 0 else x for i, x in enumerate(a.cmd))
    if why:
        print(f"maxrss: FAIL {name}: " + "; ".join(why) + f"; stderr: {text[:300]!r}")
        return 1
    print(f"maxrss: ok {name}: max RSS {rss_mb:.1f} MB (bound {a.max_mb:g}), exit {p.returncode}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

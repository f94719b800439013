#!/usr/bin/python3
"""test_report_cli.py - every report script answers --help (issue 11 §5): usage on stdout, exit 0,
and nothing created in the working directory (peers_report.py used to read '--help' as a file).
Prints one line per check and 'N passed, M failed'; exits 1 on a failure."""

import os
import subprocess
import tempfile

from test_report_util import check, done

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts")
for name in ("report.py", "summary.py", "-m hotbench.peers_report", "-m hotbench.e2e_report"):
    with tempfile.TemporaryDirectory() as cwd:
        cmd = name.split() if name.startswith("-m") else [os.path.join(SCRIPTS, name)]
        r = subprocess.run(["/usr/bin/python3", "-B"] + cmd + ["--help"], cwd=cwd,
                           capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=os.path.abspath(SCRIPTS)))
        ok = r.returncode == 0 and r.stdout.startswith("usage: ") and not os.listdir(cwd)
        check(ok, "%s --help: exit %d, %s, creates %s" % (
            name, r.returncode, r.stdout[:40].splitlines()[0] if r.stdout else "no output",
            os.listdir(cwd) or "nothing"))
# bad option values: a usage error (exit 2) naming the option, never a traceback
for args, name in ((["--chart-formats", "jpg"], "--chart-formats"), (["--dpi", "-5"], "--dpi"),
                   (["--dpi", "0"], "--dpi")):
    with tempfile.TemporaryDirectory() as cwd:
        r = subprocess.run(["/usr/bin/python3", "-B", os.path.join(SCRIPTS, "report.py")] + args,
                           cwd=cwd, capture_output=True, text=True)
        check(r.returncode == 2 and name in r.stderr and "Traceback" not in r.stderr
              and not os.listdir(cwd), "report.py %s: exit %d, %s" % (
                  " ".join(args), r.returncode, r.stderr.strip()[-120:]))
# a --run that is a folder: a sentence, never a traceback
with tempfile.TemporaryDirectory() as cwd:
    r = subprocess.run(["/usr/bin/python3", "-B", os.path.join(SCRIPTS, "report.py"), "--run", cwd,
                        "--out", os.path.join(cwd, "out"), "--chart-formats", "none"],
                       cwd=cwd, capture_output=True, text=True)
    check(r.returncode == 1 and "not a readable" in r.stderr and "Traceback" not in r.stderr,
          "report.py --run FOLDER: exit %d, %s" % (r.returncode, r.stderr.strip()[-120:]))
# an --out that cannot be a folder (under a file): a sentence, never a traceback
with tempfile.TemporaryDirectory() as cwd:
    run = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "run-quick.json")
    open(os.path.join(cwd, "file"), "w").close()
    r = subprocess.run(["/usr/bin/python3", "-B", os.path.join(SCRIPTS, "report.py"), "--run", run,
                        "--out", os.path.join(cwd, "file", "out"), "--chart-formats", "none"],
                       cwd=cwd, capture_output=True, text=True)
    check(r.returncode != 0 and "--out" in r.stderr and "Traceback" not in r.stderr,
          "report.py --out under a file: exit %d, %s" % (r.returncode, r.stderr.strip()[-120:]))
done()

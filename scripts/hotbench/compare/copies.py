"""copies - each arm runs from several separately written copies of its binary.

Two files holding the same bytes of one hotbench ran one benchmark 6% apart, through four
compares over 40 minutes (issue 31; docs/compare.md, "Why two copies of one binary differ"):
where a file's pages land is part of what a process of it measures. A compare that draws one
file per arm measures that draw, and one pull request in a few failed on it. So each arm runs
from COPIES files written afresh by this module, its processes spread over them in turn, and
the confirmation counts the copy as a random effect (random_effects.py). The files' paths have
equal lengths in both arms (<out>/bin/base-<k>/hotbench, <out>/bin/head-<k>/hotbench), so that
argv[0] and the environment, which set where the initial stack starts, are alike too
(Mytkowicz et al., "Producing wrong data without doing anything obviously wrong!", ASPLOS 2009).
The copies of one compare are removed when it ends; compare.json keeps their sha256.
"""

import hashlib
import os
import random
import shutil

COPIES = 3


def write(arm, count, out_dir, first=1):
    """Writes count separately written copies of arm.binary (read, then written to a new file,
    fsync'd, mode 0755) under out_dir/bin/<label>-<k>/, k from first, and sets arm.copies to
    their paths, arm.first_copy to first and arm.next_copy to a random start; returns the
    paths. count 0 uses the binary itself (one "copy": the compare before issue 31). Raises
    OSError when a copy cannot be written."""
    arm.first_copy = first
    if count <= 0:
        arm.copies = [arm.binary]
    else:
        with open(arm.binary, "rb") as f:
            data = f.read()
        arm.sha256 = hashlib.sha256(data).hexdigest()
        arm.copies = []
        for k in range(first, first + count):
            d = os.path.join(out_dir, "bin", "%s-%d" % (arm.label, k))
            os.makedirs(d, exist_ok=True)
            path = os.path.join(d, os.path.basename(arm.binary))
            with open(path + ".tmp", "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(path + ".tmp", 0o755)
            os.replace(path + ".tmp", path)
            arm.copies.append(path)
    arm.next_copy = random.randrange(len(arm.copies))
    return arm.copies


def take(arm):
    """(copy index from arm.first_copy, path) of the next process of arm: its copies in
    turn."""
    copies = getattr(arm, "copies", None) or [arm.binary]
    k = getattr(arm, "next_copy", 0) % len(copies)
    arm.next_copy = k + 1
    return k + getattr(arm, "first_copy", 1), copies[k]


def remove(out_dir):
    """Removes out_dir/bin/ (the copies; the arms keep their paths, for compare.json); what
    cannot be removed stays, silently."""
    shutil.rmtree(os.path.join(out_dir, "bin"), ignore_errors=True)

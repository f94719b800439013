"""files - the two ways a run's files are written: atomically (a temporary file in the same
folder, then a rename, so a reader never sees half a file and a killed run leaves none), and the
`latest` links (results/latest.json, e2e-latest.json, peers-latest.json, latest-alloc.json: a
relative symlink, replaced atomically, so it always names a complete file)."""

import json
import os
import tempfile


def write_text_atomic(path, text):
    """Writes text (str) to path through a temporary file beside it and a rename; the folder is
    made when missing. The file gets the usual 0666 & ~umask mode (not mkstemp's 0600, which
    would hide results from other users). Raises OSError; leaves no temporary file."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def write_json_atomic(path, doc, indent=1, sort_keys=False, allow_nan=True):
    """Writes doc as JSON (and a final newline) to path atomically (write_text_atomic); returns
    path. allow_nan=False refuses a non-finite float: ValueError, nothing written."""
    text = json.dumps(doc, indent=indent, sort_keys=sort_keys, allow_nan=allow_nan) + "\n"
    return write_text_atomic(path, text)


def point_latest(link, target):
    """Makes link (path) a symlink to target (path), relative to link's folder, replacing what
    was there atomically (a temporary link, then a rename; one left by a killed run is removed
    first). Raises OSError."""
    rel = os.path.relpath(os.path.abspath(target), os.path.dirname(os.path.abspath(link)))
    tmp = link + ".tmp"
    if os.path.lexists(tmp):
        os.remove(tmp)
    os.symlink(rel, tmp)
    os.replace(tmp, link)

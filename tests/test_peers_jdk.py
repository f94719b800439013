"""test_peers_jdk.py - which JDK the Java peers use (hotbench.peers.find_jdk, issue 29): any JDK
of release 17 or later, javac on PATH first, else the newest the alternatives system lists, java
taken from beside that javac; an older or absent JDK is missing and named by the release-neutral
package. Fake javac/java/update-alternatives scripts on a PATH of their own; nothing compiled.
Ends with "N passed, M failed"."""

import os
import shutil
import stat
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotbench import peers  # noqa: E402
from test_report_util import check, done  # noqa: E402


def script(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + text + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def jdk(root, name, version):
    """A fake JDK root/name/bin with javac printing 'javac <version>' and a java."""
    b = os.path.join(root, name, "bin")
    script(os.path.join(b, "javac"), "echo 'javac %s'" % version)
    script(os.path.join(b, "java"), "echo 'openjdk version \"%s\"' >&2" % version)
    return b


def find(path_dirs, alternatives):
    """find_jdk() with PATH = path_dirs (plus a bin holding the fake update-alternatives)."""
    alt = os.path.join(tmp, "alt-%d" % len(os.listdir(tmp)))
    script(os.path.join(alt, "update-alternatives"),
           "[ \"$1 $2\" = '--list javac' ] || exit 2\n" +
           "".join("echo %s\n" % a for a in alternatives))
    os.environ["PATH"] = ":".join(path_dirs + [alt])
    peers._JDK.clear()
    return peers.find_jdk()


tmp = tempfile.mkdtemp()
saved = os.environ["PATH"]
try:
    j17 = jdk(tmp, "java-17", "17.0.15")
    j21 = jdk(tmp, "java-21", "21.0.13")
    j11 = jdk(tmp, "java-11", "11.0.2")
    j25 = jdk(tmp, "java-25", "25")

    got = find([j17], [])
    check(got and got["javac"] == os.path.join(j17, "javac") and got["feature"] == 17,
          "javac 17 on PATH is used: %s" % got)
    check(got and got["java"] == os.path.join(j17, "java"), "java beside that javac")
    got = find([j21], [os.path.join(j17, "javac")])
    check(got and got["feature"] == 21, "javac 21 on PATH wins over the alternatives: %s" % got)
    got = find([j11], [os.path.join(j11, "javac"), os.path.join(j21, "javac"),
                       os.path.join(j17, "javac")])
    check(got and got["javac"] == os.path.join(j21, "javac"),
          "javac 11 on PATH: the newest alternative >= 17 instead: %s" % got)
    got = find([], [os.path.join(j25, "javac")])
    check(got and got["feature"] == 25, "a bare feature number ('javac 25') parses: %s" % got)
    check(find([j11], [os.path.join(j11, "javac")]) is None, "only JDK 11: none")
    check(peers.missing_jdk() == [peers.JDK_PACKAGE] == ["default-jdk-headless"],
          "only JDK 11: the release-neutral package is missing")
    check(find([], []) is None and peers.java_version() == "unknown", "no JDK: none, unknown")
    find([j21], [])
    check(peers.java_version() == 'openjdk version "21.0.13"', "java_version of the JDK found")
finally:
    os.environ["PATH"] = saved
    peers._JDK.clear()
    shutil.rmtree(tmp)
done()

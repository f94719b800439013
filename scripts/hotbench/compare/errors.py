"""errors - how the compare stops on a usage or run error: the reason on stderr, exit 2 (3 when
a revision failed to build, so that `git bisect run` skips it)."""

import sys


def die(msg, code=2):
    print("compare: " + msg, file=sys.stderr)
    sys.exit(code)

"""errors - how the gate stops on a usage or run error (exit 2, the reason on stderr)."""

import sys


def die(msg, code=2):
    print("gate: " + msg, file=sys.stderr)
    sys.exit(code)

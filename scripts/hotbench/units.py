"""units - the one table of time units and the formatting of times and sizes."""

import math

TIME_UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def seconds(value, unit):
    """value in google-benchmark's time_unit ('ns', 'us', 'ms', 's') -> seconds."""
    return value * TIME_UNIT[unit]


def fmt_time(s):
    """Seconds in the unit a reader compares: ns, us, ms, s, or hours past 2 h; '-' for None or
    a non-finite value. Three significant digits."""
    if s is None or not math.isfinite(s):
        return "-"
    a = abs(s)
    if a >= 7200:
        return "%.3g s (%.3g h)" % (s, s / 3600)
    for unit, f in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if a >= f:
            return "%.3g %s" % (s / f, unit)
    return "%.3g ns" % (s / 1e-9)


def fmt_time4(sec):
    """Seconds with four significant digits in ns, us, ms or s (the summary's tables)."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if sec >= scale or unit == "ns":
            return "%.4g %s" % (sec / scale, unit)
    return "%.4g s" % sec


def fmt_bytes(n):
    """A size for labels: 67108864 -> '64 MiB' (exact binary multiples), else decimal GB or MB
    with three significant digits (1700000000 -> '1.7 GB')."""
    for unit, f in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= f and n % f == 0:
            return "%d %s" % (n // f, unit)
    if n >= 1e9:
        return "%.3g GB" % (n / 1e9)
    return "%.3g MB" % (n / 1e6)

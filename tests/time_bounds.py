"""How a test bounds the time some work takes without asserting on the machine's speed.

No test asserts that work is fast: a loaded laptop or CI runner may be ten times slower than the
machine a bound was measured on (one such bound, 5 s for a refusal measured at well under one,
failed at 6.9 s beside two busy processes). Performance belongs in ``benchmarks/``. A test may
still guard against work that never ends, or ends in minutes (a walk of 2**40 paths, an alias bomb
expanded, a pathological glob): it bounds it by :data:`AT_ONCE`, far above what any machine needs
and far below what the defect takes. A test of a deadline bounds the call by less than what the
defect would take at the least, by the server's own sleeps, never by what the machine needs.
"""

AT_ONCE = 60.0
"""Seconds that work meant to end at once may take on any machine, however loaded."""

"""Sample counts shared by every benchmark module (each does ``from ._settings import *``; asv
reads these as module attributes, a class or function attribute overrides them).

The history is measured commit after commit on one machine, so a run must stay cheap: one round
(asv's default two only split the same samples over two processes) and 3 to 7 samples of at least
asv's 10 ms each, within 4 s per benchmark. The graphs show the median of those samples.
"""

rounds = 1
repeat = (3, 7, 4.0)
warmup_time = 0.05

__all__ = ["repeat", "rounds", "warmup_time"]

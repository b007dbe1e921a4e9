"""Timing helpers shared by the dev/ peers (dev/compare-python.py, dev/blend-peer.py)."""
import numpy as np


def percentiles(samples_ns):
    """p50 and p99 in microseconds of `samples_ns` (nanoseconds), by nearest rank.

    >>> percentiles([1000, 2000, 3000])
    (2.0, 3.0)
    """
    values = np.sort(np.asarray(samples_ns, dtype=np.float64)) / 1000.0
    def nearest_rank(p):
        rank = int(np.ceil(p / 100.0 * len(values)))
        return float(values[min(max(rank, 1), len(values)) - 1])
    return nearest_rank(50), nearest_rank(99)

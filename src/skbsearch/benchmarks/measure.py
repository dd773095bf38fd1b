"""What the measurement scripts in ``benchmarks/`` share: progress lines on stderr (stdout
carries the results), the best wall time of repeated calls and the process's peak memory."""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Callable


def log(msg: str) -> None:
    """One progress line on stderr, stamped with the time of day."""
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def best_time(fn: Callable[[], object], repeats: int) -> float:
    """The best wall time of ``repeats`` calls of ``fn``, in seconds (the least disturbed)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def peak_rss_gb() -> float:
    """Peak resident memory of this process so far (GB; Linux reports ``ru_maxrss`` in KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6

"""The measurement helpers the ``benchmarks/`` scripts share (``skbsearch.benchmarks.measure``)."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

from skbsearch.benchmarks.measure import best_time, log, peak_rss_gb


def test_best_time_is_the_least_disturbed_call() -> None:
    delays = iter([0.05, 0.0, 0.03])
    calls = []

    def work() -> None:
        calls.append(1)
        time.sleep(next(delays))

    best = best_time(work, 3)
    assert len(calls) == 3 and best < 0.02


def test_peak_memory_is_the_kernels_high_water_mark_in_gb() -> None:
    """``ru_maxrss`` (KB on Linux) read as GB: the kernel's ``VmHWM`` of this process."""
    held = np.ones(60_000_000 // 8)  # 60 MB, touched
    assert held.sum() > 0
    status = open("/proc/self/status", encoding="ascii").read()
    hwm_kb = int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1))
    assert abs(peak_rss_gb() - hwm_kb / 1e6) < 0.05
    assert peak_rss_gb() >= 0.06


def test_log_writes_one_stamped_line_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    log("indexing 3 pools")
    out = capsys.readouterr()
    assert out.out == "" and re.fullmatch(r"\[\d\d:\d\d:\d\d\] indexing 3 pools\n", out.err)

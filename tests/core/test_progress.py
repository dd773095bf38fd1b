"""The progress protocol: one callback type, adapters for counting and (done, total) code."""

from __future__ import annotations

from skbsearch.core.progress import Progress, counter, no_progress, scoped


def test_protocol_and_adapters() -> None:
    seen: list[tuple[str, int, int]] = []

    def report(stage: str, done: int, total: int) -> None:
        seen.append((stage, done, total))

    assert isinstance(report, Progress) and isinstance(no_progress, Progress)
    assert no_progress("x", 1, 2) is None
    add = counter(report, "pairs", 5)
    add(2)
    add(3)
    pairs = scoped(report, "fold 1")
    assert pairs is not None
    pairs(4, 9)
    assert seen == [("pairs", 2, 5), ("pairs", 5, 5), ("fold 1", 4, 9)]
    assert scoped(None, "x") is None
    counter(None, "x", 1)(1)  # reports nowhere, without error

"""LazyRun: a Run whose dicts are built on first use reads exactly as the eager Run."""

from __future__ import annotations

import copy
import json
import pickle
import threading

import pytest

from skbsearch.core.run_lazy import LazyRun
from skbsearch.core.types import Run

PAIRS = [("q2", {"d1": 2.0, "d0": 2.0, "d9": 0.5}), ("q1", {}), ("q3", {"d3": 1.25})]


def _lazy(calls: list[int] | None = None) -> LazyRun:
    def fill(rows):
        if calls is not None:
            calls.append(1)
        for q, d in PAIRS:
            rows[q].update(d)

    return LazyRun([q for q, _ in PAIRS], fill, name="bm25")


def _eager() -> Run:
    return Run(dict(PAIRS), name="bm25")


READS = [
    lambda r: r["q2"], lambda r: len(r), lambda r: list(r), lambda r: "q1" in r,
    lambda r: r.get("q3"), lambda r: list(r.items()), lambda r: list(r.keys()),
    lambda r: list(r.values()), lambda r: r == _eager(), lambda r: _eager() == r,
    lambda r: dict(r), lambda r: {**r}, lambda r: json.dumps(r), lambda r: bool(r),
    lambda r: r.ranked("q2"), lambda r: r.top(1), lambda r: r.to_dict(), lambda r: repr(r),
    lambda r: list(reversed(r)), lambda r: r.copy(), lambda r: r | {},
    lambda r: pickle.loads(pickle.dumps(r)), lambda r: copy.deepcopy(r), lambda r: copy.copy(r),
]


@pytest.mark.parametrize("read", READS)
def test_any_read_sees_the_eager_run(read) -> None:
    calls: list[int] = []
    lazy = _lazy(calls)
    assert calls == []  # nothing built yet
    got, want = read(lazy), read(_eager())
    assert got == want
    assert calls == [1]
    assert type(lazy) is Run  # now a plain Run
    assert list(lazy.items()) == list(_eager().items())  # same keys, same order, same values
    assert lazy.name == "bm25"
    read(lazy)
    assert calls == [1]  # built once


def test_writes_go_after_the_built_rows() -> None:
    lazy = _lazy()
    lazy["q9"] = {"d": 1.0}
    assert list(lazy) == ["q2", "q1", "q3", "q9"]
    lazy = _lazy()
    assert lazy.setdefault("q2", {}) == PAIRS[0][1]
    lazy = _lazy()
    del lazy["q1"]
    assert list(lazy) == ["q2", "q3"]


def test_ensure_rows_adds_missing_queries_after_the_built_ones() -> None:
    calls: list[int] = []
    lazy = _lazy(calls)
    lazy.ensure_rows(["q1", "q7", "q2", "q8"])
    assert calls == []  # still not filled
    assert list(lazy) == ["q2", "q1", "q3", "q7", "q8"]
    assert lazy["q7"] == {} and lazy["q2"] == PAIRS[0][1]


def test_confidence_and_fusion_work_on_a_lazy_run() -> None:
    lazy, eager = _lazy(), _eager()
    lazy.confidence["q2"] = eager.confidence["q2"] = 0.5
    assert lazy + _eager() == eager + _eager()
    assert lazy.top(2).confidence == {"q2": 0.5}


def test_concurrent_first_reads_build_once_and_see_everything() -> None:
    calls: list[int] = []
    lazy = _lazy(calls)
    seen: list[int] = []
    start = threading.Barrier(8)

    def read() -> None:
        start.wait()
        seen.append(len(lazy["q2"]) + len(lazy))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1]
    assert seen == [6] * 8


def test_a_fill_may_read_another_lazy_run() -> None:
    inner = _lazy()

    def fill(rows):
        rows["a"].update(inner["q3"])

    outer = LazyRun(["a"], fill)
    assert outer == {"a": {"d3": 1.25}}

"""Input and filter stages: a saved TREC run as a stage, and ``filter`` over the incoming
candidates by node type and attribute predicate."""

from __future__ import annotations

from pathlib import Path

import pytest

import skbsearch as skb
from skbsearch.core.errors import InputError
from skbsearch.core.types import Query
from skbsearch.kb.store import SKB

QUERIES = [Query("q1", "warm jacket"), Query("q2", "tent"), Query("q3", "nothing saved")]


@pytest.fixture
def run_file(tmp_path: Path) -> Path:
    f = tmp_path / "bm25.trec"
    f.write_text("q1 Q0 p1 1 3.0 bm25\nq1 Q0 b1 2 2.0 bm25\nq1 Q0 p2 3 1.5 bm25\n"
                 "q1 Q0 gone 4 1.0 bm25\nq2 Q0 p3 1 9.0 bm25\n")
    return f


def _shop() -> SKB:
    return SKB.from_columns(["p1", "p2", "b1", "p3"], ["product", "product", "brand", "product"],
                            ["Jacket", "Boot", "Acme", "Tent"],
                            attributes={"price": [30.0, 80.0, None, 45.0]})


def test_a_saved_run_answers_its_queries_and_nothing_for_others(run_file: Path) -> None:
    stage = skb.pipeline(f"run(path='{run_file}')")
    out = stage(QUERIES)
    assert out["q1"] == {"p1": 3.0, "b1": 2.0, "p2": 1.5, "gone": 1.0}
    assert out["q2"] == {"p3": 9.0} and out["q3"] == {}
    out["q1"].clear()  # the caller's copy: the saved run is read once and kept whole
    assert stage(QUERIES[:1])["q1"]["p1"] == 3.0
    assert repr(stage) == f"run(path='{run_file}')"


def test_filter_keeps_candidates_of_the_types_that_pass_the_predicate(run_file: Path) -> None:
    spec = f"run(path='{run_file}') >> filter(types=[product], where='price < 50')"
    out = skb.pipeline(spec, kb=_shop()).run(QUERIES)
    # b1 is a brand, p2 costs 80, 'gone' is no node of the SKB
    assert out == {"q1": {"p1": 3.0}, "q2": {"p3": 9.0}, "q3": {}}
    only_types = skb.pipeline(f"run(path='{run_file}') >> filter(types=[brand])", kb=_shop())
    assert only_types.run(QUERIES)["q1"] == {"b1": 2.0}


def test_filter_needs_a_run_to_narrow() -> None:
    with pytest.raises(InputError, match="filter narrows a run: put a retriever before it"):
        skb.pipeline("filter(types=[product])", kb=_shop()).run(QUERIES)


def test_a_missing_run_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="missing.trec"):
        skb.pipeline(f"run(path='{tmp_path / 'missing.trec'}')")(QUERIES)

"""PairwiseReranker: depth, the order past it, batching (sizes, length order), rendering, hooks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.types import Query, Run
from skbsearch.rerank.pairwise import PairwiseReranker

DOCS = {"a": "x", "b": "xxxxx", "c": "xxx", "d": "xx", "e": "xxxx"}


class LengthScorer(PairwiseReranker):
    """Scores a pair by its document's length; records every batch it is given."""

    short_name = "length"

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - the base's arguments
        super().__init__(*args, **kwargs)
        self.batches: list[list[str]] = []

    def score_pairs(self, query_texts: Sequence[str], doc_texts: Sequence[str],
                    contexts: Sequence[str] | None = None) -> np.ndarray:
        self.batches.append(list(doc_texts))
        return np.array([len(d) for d in doc_texts], dtype=np.float32)


RUN = Run({"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}, name="bm25")
Q = [Query("q", "query")]


def test_rescores_the_depth_and_keeps_the_rest_in_order_below() -> None:
    out = LengthScorer(DOCS, top_k=3)(Q, RUN)
    ranked = [d for d, _ in out.ranked("q")]
    assert ranked[:3] == ["b", "c", "a"]  # re-scored by length: 5, 3, 1
    assert ranked[3:] == ["d", "e"]  # past the depth: the incoming order, below every re-scored
    assert out["q"]["d"] < out["q"]["a"] and out.name == "bm25>>length"
    deep = LengthScorer(DOCS, top_k=10)(Q, RUN)
    assert [d for d, _ in deep.ranked("q")] == ["b", "e", "c", "d", "a"]


def test_batches_of_batch_size_with_optional_length_order() -> None:
    plain = LengthScorer(DOCS, top_k=5, batch_size=2)
    plain(Q, RUN)
    assert plain.batches == [["x", "xxxxx"], ["xxx", "xx"], ["xxxx"]]  # run order
    LengthScorer.sort_by_length = True
    try:
        short_first = LengthScorer(DOCS, top_k=5, batch_size=2)
        out = short_first(Q, RUN)
    finally:
        LengthScorer.sort_by_length = False
    assert short_first.batches == [["x", "xx"], ["xxx", "xxxx"], ["xxxxx"]]
    assert out == LengthScorer(DOCS, top_k=5, batch_size=5)(Q, RUN)  # same scores either way


def test_progress_context_render_and_adjust_hooks() -> None:
    seen: list[tuple[str, int, int]] = []
    ctx = LengthScorer(DOCS, top_k=4, batch_size=3, context=lambda q, d: d.upper(),
                       progress=lambda s, d, t: seen.append((s, d, t)), label="scoring")
    got: list[Sequence[str] | None] = []
    ctx.score_pairs = lambda q, d, c=None: (got.append(c), np.zeros(len(d)))[1]  # type: ignore[method-assign]
    ctx(Q, RUN)
    assert seen == [("scoring", 3, 4), ("scoring", 4, 4)]
    assert got == [["A", "B", "C"], ["D"]]

    class TieBreak(LengthScorer):
        def adjust(self, scores: np.ndarray, ranks: np.ndarray) -> np.ndarray:
            return scores - ranks  # ranks: positions in the incoming run

    out = TieBreak({k: "x" for k in DOCS}, top_k=5)(Q, RUN)
    assert [d for d, _ in out.ranked("q")] == ["a", "b", "c", "d", "e"]


def test_errors_and_empty_runs() -> None:
    with pytest.raises(InputError, match="top_k"):
        LengthScorer(DOCS, top_k=0)
    with pytest.raises(InputError, match="batch_size"):
        LengthScorer(DOCS, batch_size=0)
    with pytest.raises(InputError, match="no text for document 'a'"):
        LengthScorer({}, top_k=2)(Q, RUN)
    with pytest.raises(ValueError, match="re-ranks a run"):
        LengthScorer(DOCS)(Q, None)
    empty = LengthScorer(DOCS)([Query("q", "x"), Query("z", "x")], Run({"q": {}}))
    assert empty == Run({"q": {}, "z": {}})  # a row for every query asked, empty when nothing came

    class Short(LengthScorer):
        def score_pairs(self, query_texts, doc_texts, contexts=None):  # noqa: ANN001, ANN201
            return np.zeros(1)

    with pytest.raises(ValueError, match="returned 1 scores for 2 pairs"):
        Short(DOCS, top_k=2, batch_size=2)(Q, RUN)

"""Stage protocol, Pipeline composition and the % cut-off."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from skbsearch.core.operators import Cutoff, FunctionStage, Pipeline, Stage, StageBase
from skbsearch.core.types import Query, Run


class CountWords(StageBase):
    """Scores docs by how many query words they contain (a real, tiny retriever)."""

    def __init__(self, docs: dict[str, str]) -> None:
        self.docs = docs

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        out = Run()
        for q in queries:
            words = set(q.text.lower().split())
            pool = run[q.id] if run is not None else self.docs
            out[q.id] = {
                d: float(len(words & set(self.docs[d].lower().split())))
                for d in pool
            }
        return out

    def __repr__(self) -> str:
        return "CountWords"


class Boost(StageBase):
    """Re-ranker: adds 10 to docs whose id is in ``ids``."""

    def __init__(self, ids: set[str]) -> None:
        self.ids = ids

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        assert run is not None
        return Run({q: {d: s + (10 if d in self.ids else 0) for d, s in docs.items()} for q, docs in run.items()})

    def __repr__(self) -> str:
        return "Boost"


DOCS = {"a": "red mug", "b": "blue mug ceramic", "c": "red ceramic mug", "d": "lamp"}


def test_stage_protocol_and_compose():
    ret = CountWords(DOCS)
    assert isinstance(ret, Stage)
    pipe = ret % 2 >> Boost({"a"})
    assert repr(pipe) == "CountWords % 2 >> Boost"
    run = pipe([Query("q", "red ceramic mug")])
    # c scores 3; a and b tie at 2 and the tie goes to the larger id (trec_eval order),
    # so 'a' is cut before the booster sees it.
    assert set(run["q"]) == {"c", "b"}
    assert run.ranked("q")[0][0] == "c"


def test_cutoff_then_rerank_only_sees_top_k():
    pipe = CountWords(DOCS) % 1 >> Boost({"d"})
    run = pipe.run(["red ceramic mug"])
    assert list(run["q0"]) == ["c"]


def test_pipeline_flattens_and_search_helper():
    p = Pipeline(Pipeline(CountWords(DOCS)), Cutoff(3))
    assert len(p.stages) == 2
    assert p.search("blue mug", k=1) == [("b", 2.0)]


def test_function_stage_and_errors():
    f = FunctionStage(lambda qs, run: Run({q.id: {"x": 1.0} for q in qs}), name="const")
    assert f.run({"q9": "anything"}) == {"q9": {"x": 1.0}}
    assert "const" in repr(f)
    with pytest.raises(ValueError):
        Pipeline()
    with pytest.raises(ValueError):
        Cutoff(-1)
    with pytest.raises(ValueError):
        Cutoff(3)([Query("q", "x")])

"""Cross-validation: the fold scheme, fitting a pipeline's trainable stages, held-out honesty."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.operators import Cutoff, FunctionStage, Pipeline
from skbsearch.core.stage import SpecStage
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.eval.cv import cross_validate, fit_pipeline, folds_of, trainable_stages
from skbsearch.eval.latency import LatencyRecorder
from skbsearch.stages import stage


class Memorise(SpecStage):
    """Puts the relevant documents it was trained on first (it can only cheat on training queries)."""

    name = "memorise"
    category = "reranker"
    trainable = True

    def __init__(self) -> None:
        super().__init__(None)
        self.known: dict[str, set[str]] = {}
        self.trained_on: list[set[str]] = []

    def fit(self, queries: Sequence[Query], qrels: Qrels, run: Run | None = None) -> SpecStage:
        self.known = {q.id: {d for d, g in qrels[q.id].items() if g > 0} for q in queries}
        self.trained_on.append({q.id for q in queries})
        self.last_fit = {"n": len(queries)}
        return self

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        assert run is not None
        return Run({q.id: {d: s + (100.0 if d in self.known.get(q.id, ()) else 0.0)
                           for d, s in run.get(q.id, {}).items()} for q in queries})


QUERIES = [Query(f"q{i}", f"query {i}") for i in range(10)]
RUN = Run({q.id: {"good": 1.0, "bad": 2.0} for q in QUERIES})
QRELS = Qrels({q.id: {"good": 1} for q in QUERIES})


def test_folds_partition_is_seeded_and_order_free() -> None:
    ids = [str(i) for i in range(43)]
    folds = folds_of(ids, 5, seed=0)
    assert sorted(x for f in folds for x in f) == sorted(ids) and {len(f) for f in folds} <= {8, 9}
    assert folds == folds_of(list(reversed(ids)), 5, seed=0) != folds_of(ids, 5, seed=1)
    with pytest.raises(InputError):
        folds_of(ids, 1)
    with pytest.raises(InputError):
        folds_of(ids[:3], 4)


def test_held_out_queries_are_never_trained_on() -> None:
    m = Memorise()
    rec = LatencyRecorder()
    cv = cross_validate(m, QUERIES, QRELS, RUN, folds=5, recorder=rec)
    assert sorted(q for f in cv.folds for q in f) == sorted(q.id for q in QUERIES)
    for fold, trained in zip(cv.folds, m.trained_on, strict=True):
        assert trained.isdisjoint(fold) and len(trained) == 8
    # memorising did not help any held-out query: "bad" stays first everywhere
    assert all(cv.run.ranked(q.id)[0][0] == "bad" for q in QUERIES)
    assert [f["held_out"] for f in cv.fits] == [2] * 5
    assert cv.fits[0]["stages"] == {"memorise": {"n": 8}} and rec.samples("memorise")
    cheat = fit_pipeline(Memorise(), QUERIES, QRELS, RUN)(QUERIES, RUN)  # no CV: it cheats
    assert all(cheat.ranked(q.id)[0][0] == "good" for q in QUERIES)


def test_training_pool_larger_than_the_scored_queries() -> None:
    m = Memorise()
    scored = QUERIES[:3]
    cv = cross_validate(m, scored, QRELS, RUN, folds=2, train_queries=QUERIES)
    folds = folds_of([q.id for q in QUERIES], 2)
    assert cv.folds == [[q for q in f if q in {"q0", "q1", "q2"}] for f in folds]
    for fold, trained in zip(folds, m.trained_on, strict=True):
        assert trained == {q.id for q in QUERIES} - set(fold)  # unscored queries train too
    assert set(cv.run) == {"q0", "q1", "q2"}


def test_fit_pipeline_walks_chains_and_fusions() -> None:
    a, b = Memorise(), Memorise()
    calls: list[int] = []
    before = FunctionStage(lambda qs, run: (calls.append(1), run)[1])
    fused = stage("rrf")
    fused.children = [a, Pipeline(before, b)]
    pipe = Pipeline(fused, Cutoff(1), FunctionStage(lambda qs, run: pytest.fail("not run")))
    assert trainable_stages(pipe) == [a, b]
    fit_pipeline(pipe, QUERIES, QRELS, RUN)
    assert a.trained_on and b.trained_on and calls == [1]  # b got the run 'before' made
    assert trainable_stages(Pipeline(before)) == []


def test_cross_validate_names_its_run() -> None:
    cv = cross_validate(Memorise(), QUERIES, QRELS, RUN, folds=2, seed=3)
    assert cv.run.name == "memorise-cv" and len(cv.fits) == 2
    assert cv.folds == folds_of([q.id for q in QUERIES], 2, seed=3)
    assert isinstance(cv.fits[0]["fit_s"], float)



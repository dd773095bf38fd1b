"""The training loops stages name (train/fitters.py): judged queries from a run and qrels,
unjudged candidates kept ungraded for distillation."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from skbsearch.core.errors import InputError  # noqa: E402


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))  # never the user's cache


def test_fit_groups_keep_unjudged_candidates_ungraded() -> None:
    from skbsearch.core.types import Qrels, Query, Run
    from skbsearch.rerank.cross_encoder_ft import FineTunedCrossEncoderReranker
    from skbsearch.train.fitters import judged_queries

    qrels = Qrels({"1": {"d0": 2, "d1": 0}})
    run = Run({"1": {"d0": 3.0, "d1": 2.0, "d2": 1.0, "d3": 0.5}})
    texts = {f"d{i}": f"passage {i}" for i in range(4)}
    args = ([Query("1", "q")], qrels, run, texts.__getitem__, texts.__contains__)
    (plain,) = judged_queries(*args)
    (graded,) = judged_queries(*args, negatives="run")
    (ungraded,) = judged_queries(*args, negatives="unjudged")
    assert plain.unjudged == [] and len(plain.judged) == 2
    assert len(graded.judged) == 4 and graded.unjudged == []
    assert len(ungraded.judged) == 2 and ungraded.unjudged == ["passage 2", "passage 3"]
    with pytest.raises(InputError, match="teacher"):
        FineTunedCrossEncoderReranker.Params(negatives="unjudged").check()
    FineTunedCrossEncoderReranker.Params(negatives="unjudged", teacher="minilm").check()

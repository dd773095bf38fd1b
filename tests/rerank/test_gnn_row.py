"""The ``gnn-row`` stage (rerank/gnn_row.py): row names and parameter checks, the features a
row builds, the refusals before a model exists, and scoring with a saved model (``model=DIR``)
on a small catalogue SKB, its features rebuilt as the model was trained."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.registry import get_stage
from skbsearch.rerank.gnn_row import GNNRowReranker
from skbsearch.stages import StageContext, pipeline
from skbsearch.synth.catalogue import generate_catalogue


def test_old_row_names_print_as_the_papers() -> None:
    assert repr(pipeline("gnn-row(row='gnn-rl')")) == "gnn-row"  # grag-rl: the default
    assert repr(pipeline("gnn-row(row='gnn')")) == "gnn-row(row='grag')"
    assert get_stage("grag-row") is GNNRowReranker


@pytest.mark.parametrize(("kw", "match"), [({"row": "gat"}, "unknown GNN row 'gat'"),
                                           ({"min_common": 0}, "must be >= 1"),
                                           ({"hidden": 0}, "must be >= 1"),
                                           ({"device": "tpu"}, "unknown device")])
def test_bad_parameters_are_refused(kw: dict, match: str) -> None:
    with pytest.raises(InputError, match=match):
        GNNRowReranker(None, **kw)


def test_features_follow_the_row_unless_given() -> None:
    assert pipeline("gnn-row(row='mlp')").features().use_paths is False
    assert pipeline("gnn-row(row='grag')").features().use_paths is True
    given = pipeline("gnn-row(row='grag', use_paths=false, min_common=3, per_text=true)").features()
    assert (given.use_paths, given.min_common_nodes, given.per_text) == (False, 3, True)
    assert pipeline("gnn-row(first_stage=0.2)").features().first_stage_weight == 0.2
    # candidates to choose from: the largest by size sizes the feature (any non-zero will do)
    assert pipeline("gnn-row(select_first_stage=[0.1, -0.4])").features().first_stage_weight == -0.4
    assert pipeline("gnn-row(select_first_stage=[0.0])").features().first_stage_weight == 1.0


def test_without_a_model_or_a_run_it_refuses() -> None:
    data = generate_catalogue(30, seed=1, n_queries=2)
    ctx = StageContext(data.skb, notify=lambda _m: None)
    with pytest.raises(InputError, match="has no model: fit it") as e:
        pipeline("bm25 % 5 >> gnn-row(row='mlp')", ctx)(data.queries)
    assert e.value.field == "model"
    with pytest.raises(InputError, match="re-ranks a run"):
        pipeline("gnn-row(row='mlp')", ctx)(data.queries)


def test_a_saved_model_scores_every_candidate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch_geometric")
    pytest.importorskip("spacy")
    from judged_data import WordEncoder

    from skbsearch.encoders import registry
    from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer, save_model

    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setitem(registry.ENCODERS, WordEncoder.name, lambda _device: WordEncoder())
    save_model(GNNScorer(GNNConfig(kind="mlp", in_dim=WordEncoder.dim, hidden_dim=8)),
               tmp_path / "m", {"encoder": WordEncoder.name, "use_paths": False})
    data = generate_catalogue(30, seed=1, n_queries=3)
    ctx = StageContext(data.skb, notify=lambda _m: None)
    first = pipeline("bm25 % 4", ctx)(data.queries)
    run = pipeline(f"bm25 % 4 >> gnn-row(row='mlp', model='{tmp_path / 'm'}')", ctx)(data.queries)
    assert {q: set(d) for q, d in run.items()} == {q: set(d) for q, d in first.items()}
    assert run.name == "mlp" and len({s for d in run.values() for s in d.values()}) > 1
    assert (tmp_path / "cache" / "semgraphs").is_dir()  # parses cached under the cache root

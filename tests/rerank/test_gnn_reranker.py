"""The GNNReranker stage end to end (its training loop: tests/train/test_gnn.py)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.core.types import Qrels, Query, Run  # noqa: E402
from skbsearch.rerank.gnn import GraphFeaturizer  # noqa: E402
from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer  # noqa: E402
from skbsearch.rerank.gnn_reranker import GNNReranker  # noqa: E402
from skbsearch.train.gnn import TrainConfig, train_gnn  # noqa: E402

DOCS = {
    "d1": "The flea life cycle has four stages: egg, larva, pupa and adult.",
    "d2": "An adult flea can live up to a year if it finds a host.",
    "d3": "Paris is the capital of France and home of the Eiffel Tower.",
    "d4": "The Eiffel Tower was built in 1889 in Paris for the World's Fair.",
    "d5": "Fleas are small insects that feed on the blood of dogs and cats.",
}
QUERIES = [Query("q1", "how long is the life cycle of a flea"),
           Query("q2", "when was the eiffel tower built")]  # fmt: skip
RUN = Run({q.id: {d: float(-i) for i, d in enumerate(DOCS)} for q in QUERIES})
QRELS = Qrels({"q1": {"d1": 2, "d2": 1, "d5": 1}, "q2": {"d4": 3, "d3": 1}})


@pytest.mark.slow
def test_reranker_end_to_end(tmp_path) -> None:
    pytest.importorskip("spacy")
    pytest.importorskip("sentence_transformers")
    feat = GraphFeaturizer(embedding_cache=tmp_path / "emb")
    graphs = feat.featurize(QUERIES, RUN, DOCS, qrels=QRELS)
    assert [g.x.shape for g in graphs] == [(5, 384), (5, 384)]
    assert graphs[0].labels.tolist() == [2.0, 1.0, 0.0, 0.0, 1.0]
    assert graphs[1].edge_index.shape[1] > 0  # d3, d4 share 'paris' / 'eiffel tower'
    model = GNNScorer(GNNConfig(in_dim=384, hidden_dim=16))
    train_gnn(model, graphs, graphs, TrainConfig(epochs=3), out_dir=tmp_path / "m",
              feature_settings=feat.settings(), progress=False)  # fmt: skip
    stage = GNNReranker.load(tmp_path / "m", DOCS, embedding_cache=tmp_path / "emb")
    out = stage(QUERIES, RUN)
    assert {q: set(d) for q, d in out.items()} == {q: set(d) for q, d in RUN.items()}
    assert out.ranked("q2")[0][0] in {"d3", "d4"}
    top2 = GNNReranker.load(tmp_path / "m", DOCS, embedding_cache=tmp_path / "emb", k=2)(
        QUERIES, RUN
    )
    assert [d for d, _ in top2.ranked("q1")[2:]] == ["d3", "d4", "d5"]  # tail keeps run order
    with pytest.raises(InputError, match="no text for document"):
        GNNReranker(model, {"d1": "x"})(QUERIES, RUN)

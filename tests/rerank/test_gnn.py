"""G-RAG features (skbsearch.rerank.gnn): document texts, semantic graphs given as AMR or
parsed, the document graph, labels and the first-stage feature of each query's candidates;
scoring the graphs with a model and turning the scores into a Run."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from judged_data import WordEncoder  # noqa: E402

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.core.types import Qrels, Query, Run  # noqa: E402
from skbsearch.rerank.gnn import (  # noqa: E402
    GraphFeaturizer,
    graphs_to_run,
    resolve_doc_text,
    score_graphs,
)
from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer  # noqa: E402
from skbsearch.semgraph.concepts import ROOT_CONCEPT, ConceptGraph  # noqa: E402
from skbsearch.semgraph.depparse import DependencyParser  # noqa: E402

DOCS = {"a": "Paris is the capital of France.", "b": "France borders Spain.",
        "c": "Bananas are yellow."}
RUN = Run({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
QUERY = [Query("q", "What is the capital of France?")]


def _amr(*concepts: str) -> ConceptGraph:
    """A question-rooted star over ``concepts``."""
    g = ConceptGraph(root=ROOT_CONCEPT)
    g.add_node(ROOT_CONCEPT)
    for c in concepts:
        g.add_node(c)
        g.add_edge(ROOT_CONCEPT, "q", c)
    return g


AMR = {("q", "a"): _amr("paris", "capital", "france"), ("q", "b"): _amr("france", "spain"),
       ("q", "c"): _amr("banana")}


class NoParser(DependencyParser):
    """A parser that must not be asked: every pair has its AMR."""

    def parse_many(self, pairs, *, progress=None):  # noqa: ANN001, ANN201
        raise AssertionError(f"parsed {pairs}")


def _featurizer(**kw) -> GraphFeaturizer:  # noqa: ANN003
    return GraphFeaturizer(WordEncoder(), NoParser(), amr=AMR, **kw)


def test_doc_text_from_a_mapping_names_a_missing_document() -> None:
    assert resolve_doc_text(DOCS)("a") == DOCS["a"]
    assert resolve_doc_text(str.upper)("x") == "X"
    with pytest.raises(InputError, match="no text for document 'z'") as e:
        resolve_doc_text(DOCS)("z")
    assert e.value.field == "doc_text"


def test_documents_sharing_a_concept_are_linked_and_labels_come_from_qrels() -> None:
    (g,) = _featurizer(use_paths=False).featurize(QUERY, RUN, DOCS, qrels=Qrels({"q": {"a": 2}}))
    assert g.doc_ids == ["a", "b", "c"] and g.x.shape == (3, WordEncoder.dim)
    assert torch.allclose(g.x[0], torch.from_numpy(WordEncoder().encode([DOCS["a"]])[0]))
    assert sorted(map(tuple, g.edge_index.T.tolist())) == [(0, 1), (1, 0)]  # 'france' only
    assert g.labels is not None and g.labels.tolist() == [2.0, 0.0, 0.0]
    assert g.first_stage.tolist() == [3.0, 2.0, 1.0]
    (top2,) = _featurizer().featurize(QUERY, RUN, DOCS, k=2)
    assert top2.doc_ids == ["a", "b"] and top2.labels is None


def test_path_text_and_the_first_stage_feature_change_the_inputs() -> None:
    (plain,) = _featurizer(use_paths=False).featurize(QUERY, RUN, DOCS)
    (paths,) = _featurizer(use_paths=True).featurize(QUERY, RUN, DOCS)
    assert not torch.equal(plain.x, paths.x)  # document text + the concepts on its paths
    (fs,) = _featurizer(use_paths=False, first_stage_weight=0.5).featurize(QUERY, RUN, DOCS)
    assert fs.x.shape[1] == plain.x.shape[1] + 1 and float(fs.y[-1]) == 0.5
    assert fs.x[:, -1].tolist() == pytest.approx([1.0, 0.0, -1.0])  # z-scores of 3, 2, 1
    assert torch.equal(fs.x[:, :-1], plain.x)
    settings = _featurizer(first_stage_weight=0.5, min_common_nodes=3).settings()
    assert settings["encoder"] == "test-words" and settings["min_common_nodes"] == 3
    assert settings["first_stage_weight"] == 0.5 and settings["use_paths"] is True


def test_scores_become_a_run_and_the_models_mode_is_kept() -> None:
    graphs = _featurizer(use_paths=False).featurize(QUERY, RUN, DOCS)
    model = GNNScorer(GNNConfig(kind="mlp", in_dim=WordEncoder.dim, hidden_dim=8))
    model.train()
    scores = score_graphs(model, graphs)
    assert model.training and not scores[0].requires_grad and scores[0].shape == (3,)
    run = graphs_to_run(graphs, scores, name="g")
    assert run.name == "g" and list(run["q"]) == ["a", "b", "c"]
    assert run["q"]["b"] == pytest.approx(float(scores[0][1]))


@pytest.mark.slow
def test_featurizer_min_common_nodes_and_first_stage_feature(tmp_path):
    """Both feature options live in the featurizer, are saved with a model and reloaded."""
    from skbsearch.core.types import Query, Run
    from skbsearch.rerank.gnn import GraphFeaturizer
    from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer, save_model
    from skbsearch.rerank.gnn_reranker import GNNReranker

    docs = {"a": "Paris is the capital of France.", "b": "France borders Spain.", "c": "Bananas are yellow."}
    run = Run({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    q = [Query("q", "What is the capital of France?")]
    base = GraphFeaturizer(use_paths=False, embedding_cache=tmp_path / "emb")
    g0 = base.featurize(q, run, docs)[0]
    fz = GraphFeaturizer(use_paths=False, min_common_nodes=50, first_stage_weight=0.5,
                         embedding_cache=tmp_path / "emb")
    g = fz.featurize(q, run, docs)[0]
    assert g.x.shape[1] == g0.x.shape[1] + 1 and float(g.y[-1]) == 0.5
    assert abs(float(g.x[:, -1].mean())) < 1e-6 and float(g.x[0, -1]) > float(g.x[2, -1])
    assert g.edge_index.shape[1] == 0  # no two documents share 50 concepts
    model = GNNScorer(GNNConfig(kind="mlp", in_dim=g.x.shape[1]))
    save_model(model, tmp_path / "m", fz.settings())
    rr = GNNReranker.load(tmp_path / "m", docs, embedding_cache=tmp_path / "emb")
    assert rr.featurizer.min_common_nodes == 50 and rr.featurizer.first_stage_weight == 0.5
    assert set(rr(q, run)["q"]) == {"a", "b", "c"}

"""G-RAG rows and their features (skbsearch.rerank.gnn_features): the row names, the feature
settings saved with a model, the first-stage weight of a built graph, and the graphs of a run
built with the spaCy parser (parses cached, per-query timings, progress by chunk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.rerank.gnn_features import (
    GNN_ROWS,
    GNNFeatures,
    build_graphs,
    row_name,
    with_first_stage_weight,
)


def test_row_names_old_and_new_name_one_row() -> None:
    assert row_name("grag") == row_name("gnn") == "gnn"
    assert row_name("grag-rl") == "gnn-rl" and GNN_ROWS["gnn-rl"] == ("grag", "pairwise", True)
    assert [row_name(r) for r in ("mlp", "gcn")] == ["mlp", "gcn"]
    with pytest.raises(InputError, match="unknown GNN row 'gat'; use one of gcn, gnn, gnn-rl, "
                                         "grag, grag-rl, mlp") as e:
        row_name("gat")
    assert e.value.field == "row"


def test_settings_round_trip_and_unknown_keys_are_ignored() -> None:
    f = GNNFeatures(encoder="static", use_paths=True, min_common_nodes=2, first_stage_weight=0.3)
    assert GNNFeatures.from_settings(f.settings()) == f
    saved = {**f.settings(), "training": {"epochs": 3}, "best_dev": 0.5}  # a model's extra
    assert GNNFeatures.from_settings(saved) == f
    assert GNNFeatures.from_settings({}) == GNNFeatures()


def test_with_first_stage_weight_sets_the_last_entry_of_a_copy() -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch_geometric")
    from query_graphs import synthetic_graphs

    g = synthetic_graphs(1, seed=0, n=4, d=5)[0]
    w = with_first_stage_weight(g, 0.75)
    assert float(w.y[-1]) == 0.75 and torch.equal(w.y[:-1], g.y[:-1])
    assert float(g.y[-1]) != 0.75 and w.x is g.x and w.doc_ids == g.doc_ids


def test_build_graphs_labels_times_and_reports_every_query(tmp_path: Path) -> None:
    pytest.importorskip("torch_geometric")
    pytest.importorskip("spacy")
    from judged_data import WordEncoder

    from skbsearch.core.types import Qrels, Query, Run

    docs = {"a": "Paris is the capital of France.", "b": "France borders Spain.",
            "c": "Bananas are yellow."}
    queries = [Query("q1", "What is the capital of France?"), Query("q2", "Which fruit is yellow?"),
               Query("q3", "What borders Spain?")]
    run = Run({q.id: {"a": 3.0, "b": 2.0, "c": 1.0} for q in queries})
    features = GNNFeatures(encoder=WordEncoder(), use_paths=True)  # any Encoder, or its name
    seen: list[tuple[str, int, int]] = []
    timings: dict[str, float] = {}
    graphs = build_graphs(queries, run, docs, features, qrels=Qrels({"q2": {"c": 1}}),
                          cache_dir=tmp_path, chunk=2, timings=timings,
                          progress=lambda what, done, total: seen.append((what, done, total)))
    assert [g.query_id for g in graphs] == ["q1", "q2", "q3"]
    assert all(g.doc_ids == ["a", "b", "c"] for g in graphs)
    assert graphs[1].labels.tolist() == [0.0, 0.0, 1.0] and graphs[0].labels.tolist() == [0.0] * 3
    assert seen == [("gnn features", 2, 3), ("gnn features", 3, 3)]
    assert set(timings) == {"q1", "q2", "q3"} and all(t > 0 for t in timings.values())
    assert (tmp_path / "semgraphs").is_dir()  # the parses' cache, under the given root
    with pytest.raises(InputError, match="no text for document 'c'"):
        build_graphs(queries[:1], run, {"a": "x", "b": "y"}, features, cache_dir=tmp_path)

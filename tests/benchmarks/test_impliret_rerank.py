"""IMPLIRET re-ranking rows (bm25>NAME): fold split, held-out training, a tiny end-to-end run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from skbsearch.benchmarks.impliret import run_impliret
from skbsearch.benchmarks.impliret_rerank import (
    assign_folds,
    fold_of,
    is_rerank_pipeline,
    load_rerank_data,
    parse_pipeline,
    run_impliret_rerank,
)
from skbsearch.errors import InputError

TOPICS = [
    ("Mia", "kayaking on the lake", "Who went kayaking on the lake?"),
    ("Noah", "baking sourdough bread", "Who baked sourdough bread?"),
    ("Ola", "repairing an old bicycle", "Who repaired an old bicycle?"),
    ("Pia", "painting the garden fence", "Who painted the garden fence?"),
    ("Quinn", "learning to play the violin", "Who is learning the violin?"),
    ("Rui", "planting tomatoes and basil", "Who planted tomatoes?"),
    ("Sara", "running a marathon in Berlin", "Who ran a marathon?"),
    ("Tom", "building a wooden bookshelf", "Who built a bookshelf?"),
]


def _write_pool(path: Path, shift: int) -> None:
    rows = []
    for i in range(len(TOPICS)):
        name, activity, question = TOPICS[(i + shift) % len(TOPICS)]
        doc = (f"2024-03-0{i + 1} 10:00, {name}: Last weekend I spent the whole day {activity}. "
               f"It was tiring but fun, and my friends joined me for dinner afterwards.")
        rows.append({"id": i, "tuple_set_id": i // 2, "document": doc, "question": question,
                     "answer": name})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture()
def tiny(tmp_path: Path) -> Path:
    """A 2-pool IMPLIRET folder, 8 records a pool."""
    d = tmp_path / "impliret"
    d.mkdir()
    _write_pool(d / "temporal_multispeaker.jsonl", 0)
    _write_pool(d / "wknow_unispeaker.jsonl", 3)
    return d


def test_fold_split_is_a_deterministic_partition() -> None:
    ids = [f"{p}/{i}" for p in ("arithmetic_unispeaker", "wknow_multispeaker") for i in range(150)]
    folds = assign_folds(ids, 3, seed=0)
    assert sorted(q for f in folds for q in f) == sorted(ids)
    assert sum(len(f) for f in folds) == len(ids) and all(len(f) > 60 for f in folds)
    again = assign_folds(list(reversed(ids)), 3, seed=0)  # deterministic, order-free
    assert [sorted(f) for f in again] == [sorted(f) for f in folds]
    for i, f in enumerate(folds):
        assert all(fold_of(q, 3, 0) == i for q in f)
    # a query's fold does not depend on which other queries are loaded (limits are safe)
    sub = assign_folds(ids[::7], 3, seed=0)
    assert all(fold_of(q, 3, 0) == i for i, f in enumerate(sub) for q in f)
    assert assign_folds(ids, 3, seed=1) != folds
    with pytest.raises(InputError, match="folds"):
        assign_folds(ids, 1)
    with pytest.raises(InputError, match="empty"):
        assign_folds(ids[:2], 5)


def test_bad_pipeline_names_are_input_errors(tiny: Path) -> None:
    assert is_rerank_pipeline("bm25>grag") and not is_rerank_pipeline("bm25")
    assert parse_pipeline("bm25 > grag-rl").components == ("grag-rl",)
    fused = parse_pipeline("bm25>fusion:grag-rl+bm25")
    assert (fused.reranker, fused.components, str(fused)) == ("fusion", ("grag-rl", "bm25"),
                                                              "bm25>fusion:grag-rl+bm25")
    for bad in ("bm25>transformer", "dense>grag", "bm25>", "bm25>fusion:grag", "bm25>fusion:x+bm25"):
        with pytest.raises(InputError) as e:
            parse_pipeline(bad)
        assert e.value.field == "pipeline" and "bi-encoder" in str(e.value)
    with pytest.raises(InputError, match="transformer"):
        run_impliret(tiny, pipeline="bm25>transformer")
    import skbsearch.cli.bench_impliret  # noqa: F401  (registers the command)
    from skbsearch.cli import app

    res = CliRunner().invoke(app, ["bench", "impliret", "--data", str(tiny), "--pipeline", "bm25>nope"])
    assert res.exit_code == 2 and "nope" in res.output


def test_data_ids_qrels_and_candidates(tiny: Path) -> None:
    d = load_rerank_data(tiny, limit_per_pool=3)
    assert [q.id for q in d.queries] == [f"{p}/{i}" for p in ("temporal_multispeaker", "wknow_unispeaker")
                                         for i in range(3)]
    assert len(d.all_queries) == 16 and len(d.doc_text) == 16
    for q in d.all_queries:
        assert d.qrels[q.id] == {q.id: 1}
        assert {c.split("/")[0] for c in d.run[q.id]} == {d.pool_of(q.id)}  # own pool only


@pytest.mark.slow
def test_end_to_end_bi_encoder_and_gnn_rows_held_out(tiny: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch_geometric")
    pytest.importorskip("spacy")
    from skbsearch.benchmarks import trecdl_gnn

    cache = tmp_path / "cache"
    bi = run_impliret_rerank(tiny, "bm25>bi-encoder", cache_dir=cache)
    assert set(bi.groups) >= {"temporal_multispeaker", "wknow_unispeaker", "temporal", "wknow"}
    assert bi.metrics["ndcg@10"] > 0.8  # MiniLM matches these questions to their documents
    assert bi.config["bm25_recall@100"] == 1.0 and bi.config["folds"] is None

    trained: list[set[str]] = []
    real = trecdl_gnn.train_row_model

    def spy(graphs: Any, row: Any, **kw: Any) -> Any:  # the real training, recording its data
        trained.append({g.query_id for g in graphs})
        return real(graphs, row, **kw)

    monkeypatch.setattr(trecdl_gnn, "train_row_model", spy)
    res = run_impliret_rerank(tiny, "bm25>grag-rl", folds=2, cache_dir=cache,
                              options={"gnn": {"epochs": 3, "use_paths": False}})
    folds = assign_folds([f"{p}/{i}" for p in ("temporal_multispeaker", "wknow_unispeaker")
                          for i in range(8)], 2)
    assert res.config["fold_sizes"] == [len(f) for f in folds]
    assert len(trained) == 2
    for i, ids in enumerate(trained):  # fold i's model never saw a fold-i query
        assert ids and not ids & set(folds[i]) and all(fold_of(q, 2, 0) != i for q in ids)
    for pool in ("temporal_multispeaker", "wknow_unispeaker"):
        assert set(res.groups[pool]) == {"ndcg@10", "mrr@10", "recall@10"}
    assert res.config["gnn"]["features"]["per_text"] is True
    assert len(res.config["gnn_folds"]) == 2 and res.config["n_queries"] == 16


@pytest.mark.slow
def test_cross_encoder_trains_on_other_folds_only(tiny: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("transformers")
    import skbsearch.train.cross_encoder as ce_train

    seen: list[set[str]] = []
    real = ce_train.train_cross_encoder

    def spy(model: Any, queries: Any, config: Any = None, **kw: Any) -> Any:
        seen.append({q.id for q in queries})
        return real(model, queries, config, **kw)

    monkeypatch.setattr(ce_train, "train_cross_encoder", spy)
    res = run_impliret_rerank(tiny, "bm25>cross-encoder", limit_per_pool=4, folds=2,
                              options={"cross_encoder": {"max_steps": 1, "max_length": 64}})
    scored = [f"{p}/{i}" for p in ("temporal_multispeaker", "wknow_unispeaker") for i in range(4)]
    folds = assign_folds(scored, 2)
    for i, ids in enumerate(seen):  # trained on every other-fold query, never a fold-i one
        assert ids == {f"{p}/{j}" for p in ("temporal_multispeaker", "wknow_unispeaker")
                       for j in range(8) if fold_of(f"{p}/{j}", 2, 0) != i}
        assert not ids & set(folds[i])
    assert res.config["n_queries"] == 8 and [f["steps"] for f in res.config["cross_encoder_folds"]] == [1, 1]

"""IMPLIRET pipelines: specs, the gazetteer, first stage per pool, held-out training, tiny runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from skbsearch.benchmarks.impliret import run_impliret
from skbsearch.benchmarks.impliret.rerank import load_rerank_data, split_first_stage, with_gazetteer
from skbsearch.core.errors import InputError
from skbsearch.eval.cv import folds_of
from skbsearch.stages import pipeline

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


POOLS = ("temporal_multispeaker", "wknow_unispeaker")


def test_enrich_stages_get_the_gazetteer(tmp_path: Path) -> None:
    gaz = tmp_path / "g.jsonl"
    assert with_gazetteer("enrich", gaz) == f"enrich(gazetteer='{gaz}')"
    assert with_gazetteer("enrich", None) == "enrich"
    assert with_gazetteer("enrich(mode='constraints')", gaz) == (
        f"enrich(mode='constraints', gazetteer='{gaz}')")
    # every enrich stage (a fusion's child too) that names none; one that names its own keeps it
    assert with_gazetteer("rrf(bm25, enrich(k=5)) >> enrich(gazetteer='x.jsonl')", gaz) == (
        f"rrf(bm25, enrich(k=5, gazetteer='{gaz}')) >> enrich(gazetteer='x.jsonl')")
    assert with_gazetteer("bm25 >> dense %10", gaz) == "bm25 >> dense % 10"


def test_bad_pipeline_names_are_input_errors(tiny: Path) -> None:
    for bad in ("dense>mlp", "bm25>", "bm25>transformer", "bm25 >> fusion", "nope"):
        with pytest.raises(InputError):
            run_impliret(tiny, pipeline=bad)
    with pytest.raises(InputError, match="transformer"):
        run_impliret(tiny, pipeline="bm25 > transformer")
    with pytest.raises(InputError, match="cut-off"):
        split_first_stage(pipeline("bm25 % 5 >> dense").stages[1])
    import skbsearch.cli.bench_impliret  # noqa: F401  (registers the command)
    from skbsearch.cli import app

    res = CliRunner().invoke(app, ["bench", "impliret", "--data", str(tiny), "--pipeline", "bm25>nope"])
    assert res.exit_code == 2 and "nope" in res.output
    ok = CliRunner().invoke(app, ["bench", "impliret", "--data", str(tiny), "--pipeline",
                                  "bm25 >> input % 3", "--json", "-", "--quiet"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["config"]["rerank"] == "input % 3"


def test_first_stage_per_pool_then_rest(tiny: Path) -> None:
    first, rest = split_first_stage(pipeline("bm25 + dense >> dense % 3"))
    assert first == "bm25 + dense" and repr(rest) == "dense % 3"
    assert split_first_stage(pipeline("bm25"))[1] is None
    res = run_impliret(tiny, pipeline="bm25 >> input % 3", limit_per_pool=3)
    assert res.config["rerank"] == "input % 3" and res.config["n_queries"] == 6
    assert res.config["first_stage_recall@100"] == 1.0  # each pool has 8 documents
    plain = run_impliret(tiny, pipeline="bm25", limit_per_pool=3)
    for pool in POOLS:  # the rest only cuts: top-10 metrics of a top-3 cut can only drop
        assert res.groups[pool]["recall@10"] <= plain.groups[pool]["recall@10"]
        assert res.groups[pool]["mrr@10"] == pytest.approx(plain.groups[pool]["mrr@10"])


def test_rerank_data_every_query_over_its_own_pool(tiny: Path) -> None:
    d = load_rerank_data(tiny)  # what 'skb train gnn-reranker --data impliret:DIR' trains on
    assert len(d.all_queries) == 16 and len(d.doc_text) == 16 and d.pools == list(POOLS)
    for q in d.all_queries:
        assert d.qrels[q.id] == {q.id: 1}
        assert {c.split("/")[0] for c in d.run[q.id]} == {q.meta["pool"]}  # own pool only


@pytest.mark.slow
def test_end_to_end_bi_encoder_and_gnn_rows_held_out(tiny: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch_geometric")
    pytest.importorskip("spacy")
    from skbsearch.train import gnn_rows

    bi = run_impliret(tiny, "bm25 >> dense")
    assert set(bi.groups) >= {*POOLS, "temporal", "wknow"}
    assert bi.metrics["ndcg@10"] > 0.8  # MiniLM matches these questions to their documents
    assert bi.config["first_stage_recall@100"] == 1.0 and "folds" not in bi.config

    trained: list[set[str]] = []
    real = gnn_rows.train_row_model

    def spy(graphs: Any, row: Any, **kw: Any) -> Any:  # the real training, recording its data
        trained.append({g.query_id for g in graphs})
        return real(graphs, row, **kw)

    monkeypatch.setattr(gnn_rows, "train_row_model", spy)
    res = run_impliret(tiny, "bm25 >> gnn-row(use_paths=false, per_text=true, "
                       "only_positive=true, epochs=3)", cv_folds=2)
    folds = folds_of([f"{p}/{i}" for p in POOLS for i in range(8)], 2)
    assert res.config["fold_sizes"] == [len(f) for f in folds]
    assert len(trained) == 2
    for i, ids in enumerate(trained):  # fold i's model never saw a fold-i query
        assert ids and not ids & set(folds[i])
    for pool in POOLS:
        assert set(res.groups[pool]) == {"ndcg@10", "mrr@10", "recall@10"}
    fit = next(iter(res.config["fits"][0]["stages"].values()))
    assert fit["row"]["features"]["per_text"] is True
    assert len(res.config["fits"]) == 2 and res.config["n_queries"] == 16


@pytest.mark.slow
def test_cross_encoder_trains_on_other_folds_only(tiny: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("transformers")
    import skbsearch.train.fitters as fitters

    seen: list[set[str]] = []
    real = fitters.train_cross_encoder

    def spy(model: Any, queries: Any, config: Any = None, **kw: Any) -> Any:
        seen.append({q.id for q in queries})
        return real(model, queries, config, **kw)

    monkeypatch.setattr(fitters, "train_cross_encoder", spy)  # where it is used
    res = run_impliret(tiny, "bm25 >> cross-encoder-ft(steps=1, lr=0.0001, max_length=64, "
                       "negatives='run')", limit_per_pool=4, cv_folds=2)
    every = [f"{p}/{j}" for p in POOLS for j in range(8)]
    folds = folds_of(every, 2)  # drawn from every query of the pools, scored or not
    for i, ids in enumerate(seen):  # trained on every other-fold query, never a fold-i one
        assert ids == set(every) - set(folds[i])
    fits = [next(iter(f["stages"].values())) for f in res.config["fits"]]
    assert res.config["n_queries"] == 8 and [f["steps"] for f in fits] == [1, 1]

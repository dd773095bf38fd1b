"""`skb train gnn-reranker`: writes a model that GNNReranker.load and the harness can use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

from skbsearch.cli import app  # noqa: E402
from skbsearch.cli.train_gnn import parse_benchmark  # noqa: E402
from skbsearch.core.errors import InputError  # noqa: E402

TOPICS = {
    "q1": ("how do volcanoes erupt", "volcano", "magma rises through the crust and the volcano erupts lava"),
    "q2": ("what causes ocean tides", "tide", "the moon's gravity pulls the ocean and causes the tides"),
    "q3": ("why do leaves change colour in autumn", "leaf", "in autumn the leaves lose chlorophyll and turn red"),
    "q4": ("how do bees make honey", "bee", "bees collect nectar from flowers and turn it into honey"),
}
FILLER = ["the stock market closed higher on friday", "a recipe for tomato soup with basil",
          "the football team won the league title", "new smartphones have larger screens"]


def write_tiny_trecdl(folder: Path, year: str = "dl19") -> dict[str, str]:
    """A synthetic TREC DL year: 4 queries, 6 candidates each (1-2 relevant); returns doc texts."""
    folder.mkdir(parents=True, exist_ok=True)
    records, qrels, texts = [], {}, {}
    for qid, (query, word, answer) in TOPICS.items():
        docs = [(f"{qid}-rel", answer, 3), (f"{qid}-part", f"a short note about the {word}", 1)]
        docs += [(f"{qid}-f{i}", f, 0) for i, f in enumerate(FILLER)]
        hits = [{"qid": qid, "docid": d, "content": t, "score": 10.0 - r, "rank": r + 1}
                for r, (d, t, _) in enumerate(reversed(docs))]
        records.append({"query": query, "hits": hits})
        qrels[qid] = {d: str(g) for d, _, g in docs}
        texts.update({d: t for d, t, _ in docs})
    (folder / f"{year}_bm25_top100.json").write_text(json.dumps(records), encoding="utf-8")
    (folder / f"{year}_qrels.json").write_text(json.dumps(qrels), encoding="utf-8")
    return texts


def test_parse_benchmark() -> None:
    assert parse_benchmark("trecdl:/data/trec-dl/dl19") == (Path("/data/trec-dl"), "dl19")
    assert parse_benchmark("impliret:/data/impliret") == (Path("/data/impliret"), "impliret")
    with pytest.raises(InputError, match="trecdl:DIR/dl19"):
        parse_benchmark("msmarco:/x")


def test_bad_benchmark_and_kind_are_input_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["train", "gnn-reranker", "--benchmark", "nq:/x", "--out", str(tmp_path / "m")])
    assert res.exit_code != 0 and "trecdl:DIR/dl19" in res.output
    write_tiny_trecdl(tmp_path / "d")
    res = runner.invoke(app, ["train", "gnn-reranker", "--benchmark", f"trecdl:{tmp_path / 'd' / 'dl19'}",
                              "--kind", "transformer", "--out", str(tmp_path / "m")])
    assert res.exit_code != 0 and "unknown GNN kind" in res.output
    assert not (tmp_path / "m").exists()


@pytest.mark.slow
@pytest.mark.parametrize("kind,first_stage", [("grag", 0.0), ("mlp", 0.1)])
def test_train_cli_writes_a_loadable_model(tmp_path: Path, kind: str, first_stage: float) -> None:
    from skbsearch.benchmarks.trecdl import run_trecdl
    from skbsearch.core.types import Query, Run
    from skbsearch.rerank.gnn_models import load_model
    from skbsearch.rerank.gnn_reranker import GNNReranker

    texts = write_tiny_trecdl(tmp_path / "d")
    out = tmp_path / "model"
    res = CliRunner().invoke(app, [
        "train", "gnn-reranker", "--benchmark", f"trecdl:{tmp_path / 'd' / 'dl19'}", "--kind", kind,
        "--loss", "pairwise", "--out", str(out), "--epochs", "3", "--dev-fraction", "0.25",
        "--first-stage-weight", str(first_stage), "--cache", str(tmp_path / "cache"), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["queries"] == 4 and summary["kind"] == kind and summary["epochs_run"] >= 1
    model, extra = load_model(out)
    assert model.config.kind == kind
    assert extra["first_stage_weight"] == first_stage and extra["training"]["loss"] == "pairwise"
    assert model.config.in_dim == 384 + (1 if first_stage else 0)
    if not first_stage:  # the library stage loads it and re-ranks every candidate
        stage = GNNReranker.load(out, texts, embedding_cache=tmp_path / "cache" / "embeddings")
        run = Run({"q1": {d: 1.0 for d in texts if d.startswith("q1-")}})
        ranked = stage([Query("q1", TOPICS["q1"][0])], run)
        assert set(ranked["q1"]) == set(run["q1"])
    # the harness scores with the saved model, features built as trained
    spec = f"gnn-row(row={kind}, model={str(out)!r})"
    result = run_trecdl(tmp_path / "d", "dl19", spec, embeddings=tmp_path / "cache" / "embeddings")
    assert result.config["n_queries"] == 4 and 0.0 <= result.metrics["ndcg@10"] <= 1.0
    assert any(key.endswith(".p50") for key in result.latency_ms), result.latency_ms


@pytest.mark.slow
def test_train_cli_on_impliret_pools(tmp_path: Path) -> None:
    from skbsearch.rerank.gnn_models import load_model

    d = tmp_path / "impliret"
    d.mkdir()
    rows = []
    for i, (query, word, answer) in enumerate(TOPICS.values()):
        for j, text in enumerate([answer, *FILLER[:2]]):
            rows.append({"id": 3 * i + j, "tuple_set_id": i, "document": f"{text} ({word} {j})",
                         "question": query, "answer": word})
    (d / "temporal_unispeaker.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows),
                                                 encoding="utf-8")
    out = tmp_path / "model"
    res = CliRunner().invoke(app, [
        "train", "gnn-reranker", "--benchmark", f"impliret:{d}", "--kind", "mlp", "--out", str(out),
        "--epochs", "2", "--dev-fraction", "0.25", "--cache", str(tmp_path / "cache"), "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["queries"] == len(rows) and summary["features"]["per_text"] is True
    _, extra = load_model(out)
    assert extra["per_text"] is True  # GNNReranker.load rebuilds the per-text parser

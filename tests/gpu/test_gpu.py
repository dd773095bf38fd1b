"""CPU and GPU agree: exact dense search (same top-100 ids), dense encoding, cross-encoder
order on a DL19 sample (nDCG@10 within 0.3 points), GNN scores and AMP training steps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from skbsearch.core.devices import DeviceSpec, resolve  # noqa: E402
from skbsearch.index.dense import exact_topk, normalize  # noqa: E402
from skbsearch.index.torch_search import TorchSearcher  # noqa: E402

pytestmark = pytest.mark.gpu


def _vectors(n: int, d: int, seed: int) -> np.ndarray:
    return normalize(np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32))


def test_auto_resolves_to_the_gpu() -> None:
    spec = resolve()
    assert spec.device == "cuda:0" and spec.precision == "fp16"
    assert spec.record()["gpu"] == torch.cuda.get_device_name(0)


def test_exact_search_same_top100_ids_as_numpy() -> None:
    """fp32 on the GPU: the same ids in the same order (TF32 is off for torch matmuls by
    default); fp16: the same top-100 sets up to near-ties at the cut (at most 3 of 100; measured on
    CPU with fp16-rounded inputs: at most 1)."""
    docs, queries = _vectors(200_000, 384, 0), _vectors(32, 384, 1)
    want = exact_topk(docs, queries, 100)
    for chunk in (None, 30_000):
        got = TorchSearcher(docs, DeviceSpec("cuda:0", "fp32"), chunk_rows=chunk).search(queries, 100)
        for (r, s), (w, ws) in zip(got, want, strict=True):
            np.testing.assert_array_equal(r, w)
            np.testing.assert_allclose(s, ws, atol=1e-4)
    half = TorchSearcher(docs, DeviceSpec("cuda:0", "fp16")).search(queries, 100)
    for (r, _), (w, _) in zip(half, want, strict=True):
        assert len(set(r.tolist()) & set(w.tolist())) >= 97  # fp16 scores: ties at the cut


def test_overlapped_gpu_encoding_matches_cpu(minilm_dir: Path) -> None:
    from skbsearch.encoders.registry import load_encoder

    texts = [f"document {i}: " + "word " * (i % 60) for i in range(300)]
    cpu = load_encoder(str(minilm_dir), "cpu").encode(texts, batch_size=64)
    gpu32 = load_encoder(str(minilm_dir), "cuda", "fp32")
    assert gpu32.overlap
    np.testing.assert_allclose(gpu32.encode(texts, batch_size=64), cpu, atol=1e-4)
    gpu16 = load_encoder(str(minilm_dir), "cuda", "fp16").encode(texts, batch_size=64)
    assert ((gpu16 * cpu).sum(axis=1) > 0.999).all()


def test_cross_encoder_same_order_on_dl19(minilm_dir: Path, shared_data: Path) -> None:
    from skbsearch.core.types import Qrels, Run
    from skbsearch.datasets.trecdl import load_trecdl
    from skbsearch.eval.metrics.ndcg import ndcg_at_k
    from skbsearch.rerank.cross_encoder import CrossEncoderModel, CrossEncoderReranker

    data = load_trecdl(shared_data / "trec-dl", "dl19")
    queries = data.queries[:20]
    run = Run({q.id: dict(list(data.run[q.id].items())[:50]) for q in queries})
    model = CrossEncoderModel.from_encoder(str(minilm_dir), max_length=256, seed=0)
    runs = {}
    for device in ("cpu", "cuda"):
        model.to(device, "fp32" if device == "cpu" else "fp16")
        runs[device] = CrossEncoderReranker(model, data.doc_text, top_k=50)(queries, run)
    qrels = Qrels({q.id: data.qrels.get(q.id, {}) for q in queries})
    cpu, gpu = (float(np.mean(list(ndcg_at_k(runs[d], qrels, 10).values()))) for d in ("cpu", "cuda"))
    assert abs(cpu - gpu) <= 0.003, (cpu, gpu)
    for q in queries:
        a = np.array([runs["cpu"][q.id][d] for d in run[q.id]])
        b = np.array([runs["cuda"][q.id][d] for d in run[q.id]])
        assert np.corrcoef(np.argsort(np.argsort(a)), np.argsort(np.argsort(b)))[0, 1] > 0.98


def test_fp16_training_step_with_grad_scaler(minilm_dir: Path) -> None:
    from skbsearch.rerank.cross_encoder import CrossEncoderModel
    from skbsearch.train.cross_encoder import JudgedQuery, TrainConfig, train_cross_encoder

    model = CrossEncoderModel.from_encoder(str(minilm_dir), max_length=64, seed=0)
    qs = [JudgedQuery(str(i), f"question {i}", [(f"answer {i} passage", 1), ("noise", 0)])
          for i in range(16)]
    res = train_cross_encoder(model, qs, TrainConfig(epochs=2, batch_size=8, device="cuda",
                                                     precision="fp16"))
    assert res.steps == 4 and all(np.isfinite(res.losses))
    assert next(model.model.parameters()).device.type == "cuda"
    assert next(model.model.parameters()).dtype == torch.float32  # fp32 master weights


def test_gnn_scores_match_on_gpu() -> None:
    pytest.importorskip("torch_geometric")
    from skbsearch.rerank.gnn import QueryGraph, score_graphs
    from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer

    torch.manual_seed(0)
    model = GNNScorer(GNNConfig(kind="grag", in_dim=16, hidden_dim=16, dropout=0.0))
    ei = torch.tensor([[0, 1, 2], [1, 2, 0]])
    g = QueryGraph("q", ["a", "b", "c"], torch.randn(3, 16), torch.randn(16), ei,
                   torch.ones(3, 2), torch.zeros(3))
    cpu = score_graphs(model, [g])[0]
    gpu = score_graphs(model.to("cuda"), [g], DeviceSpec("cuda:0", "fp32"))[0]
    assert gpu.device.type == "cpu"
    torch.testing.assert_close(cpu, gpu, atol=1e-4, rtol=1e-4)


def test_onnx_backend_provider_on_the_gpu() -> None:
    ort = pytest.importorskip("onnxruntime")
    from skbsearch.rerank.cross_encoder_onnx import onnx_providers

    if "CUDAExecutionProvider" in ort.get_available_providers():
        assert onnx_providers(ort, "cuda")[0][0] == "CUDAExecutionProvider"
    else:  # the CPU build of onnxruntime: scored on the CPU, with a warning
        with pytest.warns(UserWarning, match="onnxruntime-gpu"):
            assert onnx_providers(ort, "cuda") == ["CPUExecutionProvider"]
    assert onnx_providers(ort, "cpu") == ["CPUExecutionProvider"]

"""The dense index's torch backend: exact top-k with torch (chunked or resident) gives the
numpy backend's ranking on the same vectors (CPU device here; the GPU test is in tests/gpu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from skbsearch.core.devices import DeviceSpec  # noqa: E402
from skbsearch.index.dense import DenseIndex, exact_topk, normalize  # noqa: E402
from skbsearch.index.torch_search import TorchSearcher  # noqa: E402


def _vectors(n: int, d: int, seed: int) -> np.ndarray:
    return normalize(np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32))


@pytest.mark.parametrize("chunk_rows", [None, 1, 7, 64, 999, 5000])
def test_chunked_equals_numpy_exact(chunk_rows: int | None) -> None:
    docs, queries = _vectors(1000, 32, 0), _vectors(23, 32, 1)
    want = exact_topk(docs, queries, 50)
    got = TorchSearcher(docs, DeviceSpec("cpu", "fp32"), chunk_rows=chunk_rows,
                        query_block=5).search(queries, 50)
    assert len(got) == len(want)
    for (r1, s1), (r2, s2) in zip(got, want, strict=True):
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_allclose(s1, s2, atol=1e-5)


def test_k_larger_than_the_matrix_and_ties_by_row() -> None:
    docs = normalize(np.array([[1, 0], [1, 0], [0, 1], [1, 0]], np.float32))
    q = np.array([[1, 0]], np.float32)
    for chunk in (None, 1, 3):
        rows, scores = TorchSearcher(docs, DeviceSpec(), chunk_rows=chunk).search(q, 10)[0]
        assert rows.tolist() == [0, 1, 3, 2] and scores.dtype == np.float32


def test_chunking_is_used_when_asked() -> None:
    docs = _vectors(100, 8, 2)
    s = TorchSearcher(docs, DeviceSpec(), chunk_rows=10)
    assert s.resident is None and s.chunk_rows == 10
    whole = TorchSearcher(docs, DeviceSpec())
    assert whole.resident is not None and whole.chunk_rows is None


def test_bf16_on_cpu_keeps_the_top_hits() -> None:
    docs, queries = _vectors(500, 32, 3), _vectors(5, 32, 4)
    want = exact_topk(docs, queries, 1)
    got = TorchSearcher(docs, DeviceSpec("cpu", "bf16")).search(queries, 10)
    for (r, _), (w, _) in zip(got, want, strict=True):
        assert w[0] in r  # bf16 rounding may swap near ties, not lose the best


def test_index_backend_saves_and_searches_like_numpy(tmp_path: Path) -> None:
    emb = _vectors(300, 16, 5)
    ids = [f"d{i}" for i in range(300)]
    tidx = DenseIndex(ids, emb, backend="torch", chunk_rows=40)
    nidx = DenseIndex(ids, emb, backend="numpy")
    q = _vectors(4, 16, 6)
    for (r1, _), (r2, _) in zip(tidx.search(q, 25, device="cpu"), nidx.search(q, 25), strict=True):
        np.testing.assert_array_equal(r1, r2)
    tidx.save(tmp_path / "t")
    back = DenseIndex.load(tmp_path / "t")
    assert back.backend == "torch" and back.built_on == {"device": "cpu", "dtype": "float32",
                                                         "gpu": None, "torch": None}
    r, _ = back.search(q[:1], 5, device="cpu")[0]
    np.testing.assert_array_equal(r, nidx.search(q[:1], 5)[0][0])
    # filtered searches use the exact path over the allowed rows
    allowed = np.arange(0, 300, 3)
    rows, _ = back.search(q[:1], 5, allowed=allowed, device="cpu")[0]
    assert set(rows.tolist()) <= set(allowed.tolist())

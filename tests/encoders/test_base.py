"""The encoder protocol: what a subclass sets (name, model id, dimension), unit-length rows,
and the base class refusing to embed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from skbsearch.encoders.base import Encoder


class Letters(Encoder):
    """A tiny encoder of this test: letter counts a..d, L2-normalised."""

    name = "letters"
    model_id = "letters-v1"
    dim = 4
    cache_vectors = False

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        out = np.array([[t.count(c) for c in "abcd"] for t in texts], dtype=np.float32)
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def test_a_subclass_names_itself_and_embeds_unit_rows() -> None:
    enc = Letters()
    vecs = enc.encode(["abba", "cd", "dddd"])
    assert vecs.shape == (3, enc.dim) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0)
    assert repr(enc) == "Letters('letters', dim=4)" and not enc.cache_vectors


def test_the_base_class_has_defaults_and_no_vectors() -> None:
    enc = Encoder()
    assert (enc.name, enc.model_id, enc.dim, enc.cache_vectors) == ("encoder", "encoder", 0, True)
    with pytest.raises(NotImplementedError):
        enc.encode(["text"])

"""The on-disk embedding cache: storage, keys, and cache hits that skip encoding."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np
import pytest

from skbsearch.encoders import EmbeddingCache, Encoder, encode_texts, load_encoder, text_key


def test_put_get_roundtrip_by_model(tmp_path):
    cache = EmbeddingCache(tmp_path / "c")
    vecs = np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32)
    cache.put("m1", ["a", "b", "c"], vecs)
    got = cache.get("m1", ["c", "x", "a", "a"])
    np.testing.assert_array_equal(got[0], vecs[2])
    assert got[1] is None
    np.testing.assert_array_equal(got[2], vecs[0])
    np.testing.assert_array_equal(got[3], vecs[0])
    assert cache.get("m2", ["a"]) == [None]  # keyed by model id too
    assert cache.count("m1") == 3 and len(cache) == 3
    assert cache.models() == {"m1": 3}
    cache.clear("m1")
    assert len(cache) == 0


def test_persisted_as_plain_sqlite_floats(tmp_path):
    cache = EmbeddingCache(tmp_path)
    cache.put("m", ["hello"], np.array([[1.0, -2.0]], dtype=np.float32))
    cache.close()
    con = sqlite3.connect(tmp_path / "embeddings.sqlite")
    model, key, dim, vec = con.execute("SELECT model, key, dim, vec FROM embeddings").fetchone()
    assert (model, dim) == ("m", 2)
    assert key == text_key("hello") and len(key) == 16
    assert np.frombuffer(vec, "<f4").tolist() == [1.0, -2.0]
    reopened = EmbeddingCache(tmp_path)
    assert reopened.get("m", ["hello"])[0].tolist() == [1.0, -2.0]


def test_many_keys_and_wrong_shapes(tmp_path):
    cache = EmbeddingCache(tmp_path)
    texts = [f"text {i}" for i in range(1234)]  # more than one lookup batch
    vecs = np.arange(1234 * 2, dtype=np.float32).reshape(1234, 2)
    cache.put("m", texts, vecs)
    got = np.stack(cache.get("m", texts[::-1]))
    np.testing.assert_array_equal(got, vecs[::-1])
    with pytest.raises(ValueError):
        cache.put("m", ["a", "b"], vecs[:3])


class CountingEncoder(Encoder):
    """Delegates to a real encoder and records every text it is asked to encode."""

    def __init__(self, inner: Encoder) -> None:
        self.inner, self.name, self.model_id, self.dim = inner, inner.name, inner.model_id, inner.dim
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        self.seen.extend(texts)
        return self.inner.encode(texts, batch_size)


@pytest.mark.slow
def test_cache_hits_skip_the_encoder(tmp_path):
    enc = CountingEncoder(load_encoder("minilm"))
    cache = EmbeddingCache(tmp_path)
    texts = ["red apples", "green pears", "red apples", "blue plums"]
    first = encode_texts(enc, texts, cache)
    assert sorted(enc.seen) == ["blue plums", "green pears", "red apples"]  # duplicates once
    np.testing.assert_array_equal(first[0], first[2])
    enc.seen.clear()
    progress = []
    second = encode_texts(enc, ["green pears", "yellow lemons", "red apples"], cache,
                          progress=lambda stage, done, total: progress.append((done, total)))
    assert enc.seen == ["yellow lemons"]  # only the uncached text was encoded
    assert progress == [(1, 1)]
    np.testing.assert_allclose(second[0], first[1], atol=1e-6)
    np.testing.assert_allclose(second[2], first[0], atol=1e-6)
    enc.seen.clear()
    encode_texts(enc, texts, cache)
    assert enc.seen == []
    assert cache.count(enc.model_id) == 4


@pytest.mark.slow
def test_lookups_never_count_the_whole_cache(tmp_path):
    """A cached text is one keyed SELECT: ``if cache`` on the cache object ran ``COUNT(*)``
    over every stored vector on each call (12 ms a query at 26K vectors)."""
    enc = load_encoder("minilm")
    cache = EmbeddingCache(tmp_path)
    encode_texts(enc, ["red apples", "green pears"], cache)
    statements: list[str] = []
    cache._con.set_trace_callback(statements.append)
    out = encode_texts(enc, ["green pears"], cache)
    cache._con.set_trace_callback(None)
    assert out.shape == (1, enc.dim)
    assert statements and not [s for s in statements if "COUNT(" in s.upper()]

"""A dense stage built over a CorpusContext caches its query vectors in the context's
embedding cache, as it does the documents' (the benchmarks' queries are not re-encoded on
every run)."""

from __future__ import annotations

import pytest

from skbsearch.core.types import Query
from skbsearch.encoders import EmbeddingCache, load_encoder
from skbsearch.kb.corpus import corpus_skb
from skbsearch.stages import pipeline
from skbsearch.stages.corpus import CorpusContext

pytestmark = pytest.mark.slow

TEXTS = ["The Eiffel Tower is a wrought-iron lattice tower in Paris.",
         "Bananas are rich in potassium and easy to digest.",
         "Penguins are flightless birds of the Southern Hemisphere."]


def test_dense_stage_caches_query_vectors(tmp_path):
    kb = corpus_skb(["d0", "d1", "d2"], TEXTS, node_type="document", name="cache-test")
    stage = pipeline("dense", CorpusContext(kb, embeddings=tmp_path))
    query = "which birds cannot fly?"
    run = stage([Query("q0", query)])
    assert run.ranked("q0")[0][0] == "d2"
    cache = EmbeddingCache(tmp_path)
    model_id = load_encoder("minilm", "cpu").model_id
    assert cache.get(model_id, TEXTS + [query])[-1] is not None  # the query's vector too
    assert all(v is not None for v in cache.get(model_id, TEXTS))


def test_dense_stage_answers_from_cached_query_vectors(tmp_path):
    """A second context over the same cache reuses the stored query vector (a vector put
    there for the query text is what the stage searches with)."""
    kb = corpus_skb(["d0", "d1", "d2"], TEXTS, node_type="document", name="cache-test")
    pipeline("dense", CorpusContext(kb, embeddings=tmp_path))([Query("q0", "x")])
    cache = EmbeddingCache(tmp_path)
    model_id = load_encoder("minilm", "cpu").model_id
    banana = cache.get(model_id, [TEXTS[1]])[0]
    cache.put(model_id, ["which birds cannot fly?"], banana[None, :])  # stored vector wins
    run = pipeline("dense", CorpusContext(kb, embeddings=tmp_path))(
        [Query("q0", "which birds cannot fly?")])
    assert run.ranked("q0")[0][0] == "d1"

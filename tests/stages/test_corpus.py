"""Stages over passage corpora (stages/corpus.py): a CorpusContext's passages verbatim, its
indexes built in memory on first use (a saved one preferred), a dense index per encoder, and
the ``input`` stage. A dense stage built over a CorpusContext caches its query vectors in the
context's embedding cache, as it does the documents' (the benchmarks' queries are not
re-encoded on every run)."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.types import Query, Run
from skbsearch.encoders import EmbeddingCache, load_encoder
from skbsearch.kb.corpus import corpus_skb
from skbsearch.stages import pipeline
from skbsearch.stages.corpus import CorpusContext


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Corpus SKBs are written under the cache root: never the user's."""
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path_factory.mktemp("skb-cache")))


TEXTS = ["The Eiffel Tower is a wrought-iron lattice tower in Paris.",
         "Bananas are rich in potassium and easy to digest.",
         "Penguins are flightless birds of the Southern Hemisphere."]


@pytest.mark.slow
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


@pytest.mark.slow
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


def _kb():  # noqa: ANN202
    return corpus_skb(["d0", "d1", "d2"], TEXTS, node_type="document", name="cache-test")


def test_documents_are_the_passages_and_bm25_is_built_in_memory(tmp_path) -> None:  # noqa: ANN001
    notes: list[str] = []
    ctx = CorpusContext(_kb(), embeddings=tmp_path, notify=notes.append)
    assert ctx.doc_text("d1") == TEXTS[1] and ctx.doc_text("nope") == ""
    index = ctx.index("bm25")
    assert index.source["fields"] == ["text"] and index.source["num_nodes"] == 3
    assert ctx.index("bm25") is index and notes == []  # once, and no note: a corpus has no dir
    run = pipeline("bm25", ctx)([Query("q", "flightless birds")])
    assert run.ranked("q")[0][0] == "d2"


def test_a_saved_index_is_preferred_to_building_one(tmp_path) -> None:  # noqa: ANN001
    from skbsearch.index.sparse import BM25Index

    kb = _kb()
    saved = tmp_path / "bm25"
    BM25Index.from_skb(kb).save(saved)
    ctx = CorpusContext(kb, index_dirs={"bm25": saved})
    assert ctx.index("bm25").path == saved  # opened, not built
    with pytest.raises(InputError, match="no dense index at"):
        CorpusContext(kb, index_dirs={"dense": tmp_path / "none"}).index_at("dense", tmp_path / "none")


def test_other_encoders_each_get_their_own_dense_index(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    from judged_data import WordEncoder

    from skbsearch.encoders import registry

    monkeypatch.setitem(registry.ENCODERS, WordEncoder.name, lambda _device: WordEncoder())
    ctx = CorpusContext(_kb(), embeddings=tmp_path)
    from skbsearch.index.dense import DenseIndex

    index = ctx.embedding_index("dense", WordEncoder.name)
    assert isinstance(index, DenseIndex) and ctx.embedding_index("dense", WordEncoder.name) is index
    assert index.encoder == WordEncoder.name and index.doc_ids == ["d0", "d1", "d2"]
    assert ctx.index("bm25") is ctx.embedding_index("bm25", WordEncoder.name)  # not a dense kind


def test_input_is_the_given_run_and_refuses_none() -> None:
    stage = pipeline("input")
    given = Run({"q1": {"d0": 2.0}, "q2": {"d1": 1.0}}, name="bm25-top100")
    out = stage([Query("q1", "x"), Query("q3", "y")], given)
    assert out == {"q1": {"d0": 2.0}, "q3": {}} and out.name == "bm25-top100"
    assert pipeline("first-stage") == stage and repr(stage) == "input"
    with pytest.raises(InputError, match="'input' is the run given to the pipeline") as e:
        stage([Query("q1", "x")])
    assert e.value.field == "pipeline"

"""BM25 index builds on Ray Data (``index.distributed_bm25``) equal the single-process build:
the same vocabulary and bit-identical scores over uneven shards, with fields, weights and a
variant with a non-occurrence constant; piece vocabularies merged as one pass numbers them;
settings the Ray build cannot make and an unsaved SKB refused before Ray starts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.index.bm25_build import make_tokenizer  # noqa: E402
from skbsearch.index.distributed_bm25 import _VocabMerger, build_bm25_ray  # noqa: E402
from skbsearch.index.sparse import BM25Index  # noqa: E402
from skbsearch.kb.store import SKB  # noqa: E402
from skbsearch.retrieve.sparse import BM25Retriever  # noqa: E402
from skbsearch.synth.catalogue import generate_catalogue  # noqa: E402


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory):
    """A generated catalogue SKB of about 10K nodes (saved: Ray workers load it) + queries."""
    ds = generate_catalogue(9800, n_queries=40, seed=3)
    path = tmp_path_factory.mktemp("kb") / "skb"
    ds.skb.save(path)
    kb = SKB.load(path)
    assert 9_900 <= kb.num_nodes <= 10_500
    return kb, ds.queries


def _arrays(index: BM25Index) -> dict[str, np.ndarray]:
    return {k: np.asarray(index.bm25.scores[k]) for k in ("data", "indices", "indptr")}


def test_ray_bm25_equals_single_process(local_ray, catalogue, tmp_path: Path) -> None:
    kb, queries = catalogue
    single = BM25Index.from_skb(kb, add_rel=True)
    # 7 shards of uneven size, so pieces and vocabularies really are merged
    dist = build_bm25_ray(kb, add_rel=True, shard_rows=1500)
    assert dist.doc_ids == single.doc_ids
    assert list(dist.tokenizer.word_to_id.items()) == list(single.tokenizer.word_to_id.items())
    assert list(dist.tokenizer.stem_to_sid.items()) == list(single.tokenizer.stem_to_sid.items())
    a, b = _arrays(single), _arrays(dist)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    assert dist.source["engine"] == "ray" and dist.params == single.params
    # saved and loaded (memory-mapped), it answers queries exactly as the single build
    loaded = BM25Index.load(dist.save(tmp_path / "bm25"))
    r1 = BM25Retriever(single, k=20)(queries)
    r2 = BM25Retriever(loaded, k=20)(queries)
    assert sum(len(v) for v in r1.values()) > 100
    for q in queries:
        assert list(r1[q.id]) == list(r2[q.id])
        np.testing.assert_allclose(list(r2[q.id].values()), list(r1[q.id].values()), atol=1e-6)


def test_ray_bm25_fields_weights_and_bm25plus(local_ray, catalogue) -> None:
    kb, _ = catalogue
    opts = {"fields": ["name", "title", "description"], "field_weights": {"name": 2.0},
            "add_rel": True, "method": "bm25+"}
    single = BM25Index.from_skb(kb, **opts)
    dist = build_bm25_ray(kb, shard_rows=4000, **opts)
    a, b = _arrays(single), _arrays(dist)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    np.testing.assert_array_equal(single.nonoccurrence, dist.nonoccurrence)
    assert dist.params["field_weights"] == {"name": 2.0, "title": 1.0, "description": 1.0,
                                            "relations": 1.0}


def test_vocab_merge_reproduces_one_pass() -> None:
    texts = ["Running runners run", "the cat sat", "", "cats running fast", "Fast cat"]
    one = make_tokenizer("english", "en")
    list(one.streaming_tokenize(texts, update_vocab=True, allow_empty=False))
    merged = make_tokenizer("english", "en")
    m = _VocabMerger(merged)
    for part in (texts[:2], texts[2:3], texts[3:]):
        tok = make_tokenizer("english", "en")
        list(tok.streaming_tokenize(part, update_vocab=True, allow_empty=False))
        m.add({"terms": list(tok.stem_to_sid), "words": list(tok.word_to_id.items()),
               "stems": list(tok.word_to_stem.items())})
    for d in ("word_to_id", "stem_to_sid", "word_to_stem"):
        assert list(getattr(merged, d).items()) == list(getattr(one, d).items()), d


def test_vocab_merge_without_a_stemmer_keeps_words() -> None:
    merged = make_tokenizer(None, None)
    m = _VocabMerger(merged)
    assert m.add({"terms": ["red", "shoe"], "words": [], "stems": []}).tolist() == [0, 1]
    assert m.add({"terms": ["blue", "red"], "words": [], "stems": []}).tolist() == [2, 0]
    assert merged.word_to_id == {"red": 0, "shoe": 1, "blue": 2}


def test_settings_the_ray_build_cannot_make_are_refused_before_ray_starts() -> None:
    skb = SKB.from_columns(["a", "b"], ["t", "t"], ["red shoe", "blue hat"])
    with pytest.raises(InputError, match="combine='sum'.*engine local") as e:
        build_bm25_ray(skb, combine="bm25f")
    assert e.value.field == "combine"
    with pytest.raises(InputError, match="combine='sum'"):
        build_bm25_ray(skb, field_b={"document": 0.3})
    with pytest.raises(InputError, match="unknown BM25 setting"):
        build_bm25_ray(skb, k_1=1.0)
    with pytest.raises(InputError, match="save the SKB first") as e:
        build_bm25_ray(skb)
    assert e.value.field == "skb"

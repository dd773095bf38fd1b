"""The BM25 measurements' shared corpus (skbsearch.benchmarks.bm25_corpus): the seeded
catalogue as ``skb index`` renders it, our index over it re-opened memory-mapped, the common
options, and queries drawn by document-frequency band."""

from __future__ import annotations

import numpy as np

from skbsearch.benchmarks.bm25_corpus import (
    DF_BANDS,
    catalogue_corpus,
    corpus_parser,
    df_band_queries,
    sizes,
)
from skbsearch.documents import DocumentRenderer
from skbsearch.synth.catalogue import generate_catalogue


def test_the_corpus_is_the_rendered_seeded_catalogue(tmp_path) -> None:
    corpus = catalogue_corpus(300, n_queries=12, seed=4)
    ds = generate_catalogue(300, seed=4, n_queries=12)
    assert corpus.texts == DocumentRenderer().render_many(ds.skb) and corpus.ids == list(ds.skb.ids)
    assert [q.text for q in corpus.queries] == [q.text for q in ds.queries]
    assert corpus.stats()["n_docs"] == len(corpus.texts) > 300
    index = corpus.build_index(tmp_path / "ix")
    assert index.path == tmp_path / "ix" and not np.asarray(index.bm25.scores["data"]).flags.writeable
    assert index.params["method"] == "lucene" and index.params["stemmer"] == "english"
    assert index.num_docs == len(corpus.ids)


def test_options_and_sizes() -> None:
    args = corpus_parser("x", n_queries=7).parse_args(["--sizes", "100, 2000,", "--k", "5"])
    assert sizes(args) == [100, 2000] and args.n_queries == 7 and args.k == 5 and args.json is None


def test_band_queries_use_words_of_their_document_frequency(tmp_path) -> None:
    """Each query's two words are vocabulary words whose terms hold the band's share of the
    documents (tokenized back by the index to exactly two terms of that band)."""
    corpus = catalogue_corpus(400, n_queries=2, seed=0)
    index = corpus.build_index(tmp_path / "ix")
    share = np.diff(np.asarray(index.bm25.scores["indptr"])) / index.num_docs
    bands = df_band_queries(index, n=15, seed=1)
    assert len(bands) >= 3 and all(len(v) == 15 for v in bands.values())
    expected = {f"df {lo:g}-{min(hi, 1):g}": (lo, hi) for lo, hi in DF_BANDS}
    for label, texts in bands.items():
        lo, hi = expected[label]
        for toks in index.tokenize(texts):
            assert 1 <= len(toks) <= 2 and all(lo <= share[t] < hi for t in toks), label
    assert df_band_queries(index, n=15, seed=1) == bands  # seeded

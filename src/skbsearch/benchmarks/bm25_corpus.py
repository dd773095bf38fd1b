"""The corpus the BM25 measurements share (``benchmarks/bm25_throughput.py``,
``benchmarks/bm25_pruning_headroom.py``): the seeded synthetic catalogue rendered as ``skb
index`` renders it by default, its queries, our index over it saved and re-opened
memory-mapped (as ``skb search`` opens it), and their common command-line options."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from skbsearch.core.types import Query
from skbsearch.documents import DocumentRenderer
from skbsearch.index.sparse import BM25Index
from skbsearch.synth.catalogue import generate_catalogue

#: the BM25 of every system compared: Lucene's variant, bm25s's defaults, English stopwords
#: and PyStemmer's English stemmer
SETTINGS: dict[str, object] = {"k1": 1.5, "b": 0.75, "method": "lucene", "stopwords": "en",
                               "stemmer": "english"}
#: where the corpus comes from, for a result's ``config.data``
DATA = "skbsearch.synth.catalogue.generate_catalogue (synthetic), DocumentRenderer()"


@dataclass
class Corpus:
    """One corpus size: every node's document text and id, and the catalogue's queries."""

    size: int
    texts: list[str]
    ids: list[str]
    queries: list[Query]
    generate_s: float

    def build_index(self, directory: Path) -> BM25Index:
        """Our index over the texts with :data:`SETTINGS`, saved to ``directory`` and opened
        again memory-mapped."""
        BM25Index.build(self.texts, self.ids, k1=1.5, b=0.75, method="lucene", stemmer="english",
                        stopwords="en").save(directory)
        return BM25Index.load(directory, mmap=True)

    def stats(self) -> dict[str, float]:
        """Documents, queries and the mean document length in characters."""
        return {"n_docs": len(self.texts), "n_queries": len(self.queries),
                "avg_doc_chars": round(float(np.mean([len(x) for x in self.texts])), 1)}


def catalogue_corpus(size: int, n_queries: int, seed: int = 0) -> Corpus:
    """The seeded catalogue of ``size`` products (plus its brands and categories), rendered
    with ``DocumentRenderer()``, and ``n_queries`` of its queries."""
    t = time.perf_counter()
    ds = generate_catalogue(size, seed=seed, n_queries=n_queries)
    generate_s = round(time.perf_counter() - t, 1)
    texts = DocumentRenderer().render_many(ds.skb)
    return Corpus(size, texts, list(ds.skb.ids), [Query(q.id, q.text) for q in ds.queries], generate_s)


def corpus_parser(description: str, n_queries: int) -> argparse.ArgumentParser:
    """The options every BM25 measurement takes: ``--sizes``, ``--n-queries``, ``--k``,
    ``--seed``, ``--json`` and ``--note``."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--sizes", default="100000", help="comma-separated product counts")
    p.add_argument("--n-queries", type=int, default=n_queries)
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, default=None, help="write the result JSON here")
    p.add_argument("--note", default="", help="a note shown under the table (e.g. the machine's load)")
    return p


def sizes(args: argparse.Namespace) -> list[int]:
    """The corpus sizes of ``--sizes``."""
    return [int(s) for s in str(args.sizes).split(",") if s.strip()]


#: document-frequency bands (share of the documents holding a term) for :func:`df_band_queries`
DF_BANDS: tuple[tuple[float, float], ...] = ((0.0, 0.001), (0.001, 0.01), (0.01, 0.1), (0.1, 1.01))


def df_band_queries(index: BM25Index, n: int, seed: int = 0,
                    bands: tuple[tuple[float, float], ...] = DF_BANDS) -> dict[str, list[str]]:
    """Per band ``[lo, hi)`` of document frequency (share of the index's documents), ``n``
    query texts of two vocabulary words whose terms fall in it (a band without two such
    words is left out): queries whose postings are few (rare words) or many (common ones),
    whatever the catalogue's own queries look like."""
    indptr = np.asarray(index.bm25.scores["indptr"])
    share = np.diff(indptr) / max(index.num_docs, 1)
    tok = index.tokenizer
    if tok.stemmer is not None:
        ids = {w: tok.stem_to_sid.get(stem) for w, stem in tok.word_to_stem.items()}
    else:
        ids = dict(tok.word_to_id)
    words = sorted(w for w, t in ids.items() if t is not None and w.isalpha())
    rng = np.random.default_rng(seed)
    out: dict[str, list[str]] = {}
    for lo, hi in bands:
        pool = [w for w in words if lo <= share[ids[w]] < hi]
        if len(pool) >= 2:
            out[f"df {lo:g}-{min(hi, 1):g}"] = [" ".join(rng.choice(pool, size=2, replace=False)) for _ in range(n)]
    return out

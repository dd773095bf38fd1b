"""Text-only KGQA: BM25 over entity-centric documents, answers = entities in them.

The retrieve-then-read baseline of Sun et al. (2024) without re-ranker or generator:
retrieve the top ``k_docs`` entity-centric documents for the question, then rank the
entities named in their triples. An entity's score is its best

    doc_score * (1 + 0.5 * |query terms in the triple's sentence|)

over the triples that mention it (the triple's own words break ties inside a document),
and entities whose name occurs in the question (the topic entity) are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.operators import StageBase
from skbsearch.core.types import Query, Run
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.exact_names import normalise, strip_brackets
from skbsearch.retrieve.sparse import BM25Retriever
from skbsearch.verbalise import EntityDocument


def build_document_index(documents: Sequence[EntityDocument], **params: Any) -> BM25Index:
    """A BM25 index over entity-centric documents (ids = document ids)."""
    return BM25Index.build(
        [d.text for d in documents],
        [d.id for d in documents],
        source={"kind": "entity-documents", "count": len(documents)},
        **params,
    )


def document_index(documents: Sequence[EntityDocument], cache: str | Path | None = None) -> BM25Index:
    """:func:`build_document_index`, loaded from / saved to ``cache`` when given."""
    if cache is not None and (Path(cache) / "manifest.json").is_file():
        return BM25Index.load(cache)
    index = build_document_index(documents)
    if cache is not None:
        index.save(cache)
    return index


class EntityDocumentAnswerer(StageBase):
    """Answer entities from BM25-retrieved entity-centric documents.

    Args:
        skb: the knowledge base the documents were made from.
        documents: the documents (same ids as the index).
        index: a BM25 index over them (:func:`build_document_index`).
        k_docs: documents retrieved per question.
        k: answers kept per question.
        n_threads: bm25s threads.
    """

    def __init__(
        self,
        skb: SKB,
        documents: Sequence[EntityDocument],
        index: BM25Index,
        *,
        k_docs: int = 10,
        k: int = 100,
        n_threads: int = 1,
        name: str = "text",
    ) -> None:
        self.skb = skb
        self.documents = {d.id: d for d in documents}
        self.index = index
        self.retriever = BM25Retriever(index, k=k_docs, n_threads=n_threads, backend="numpy")
        self.k = k
        self.name = name
        self._names = skb.column("name")

    def _sentence_overlap(self, query: str, sentences: list[str]) -> np.ndarray:
        q = {t for toks in self.index.tokenize([query]) for t in toks}
        return np.array([len(q.intersection(t)) for t in self.index.tokenize(sentences)], float)

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        """A Run over answer node ids (``run`` is ignored)."""
        queries = list(queries)
        plain = [Query(q.id, strip_brackets(q.text), q.meta) for q in queries]
        docs_run = self.retriever(plain)
        ids = self.skb.ids
        out = Run(name=self.name)
        for q in plain:
            norm_q = f" {normalise(q.text)} "
            scores: dict[int, float] = {}
            ranked = docs_run.ranked(q.id)
            sentences = [s for d, _ in ranked for s in self.documents[d].sentences]
            overlap = self._sentence_overlap(q.text, sentences) if sentences else np.zeros(0)
            pos = 0
            for doc_id, doc_score in ranked:
                doc = self.documents[doc_id]
                for e in doc.edges:
                    # the -1e-6 * pos term orders ties: better document, earlier triple
                    s = doc_score * (1.0 + 0.5 * overlap[pos]) - 1e-6 * pos
                    pos += 1
                    # the triple's object before its subject (ties otherwise)
                    for node, t in ((int(self.skb.edge_dst[e]), s), (int(self.skb.edge_src[e]), s - 5e-7)):
                        if t > scores.get(node, -np.inf):
                            scores[node] = float(t)
            kept = {
                n: s
                for n, s in scores.items()
                if f" {normalise(self._names[n] or ids[n])} " not in norm_q
            }
            top = sorted(kept.items(), key=lambda kv: (-kv[1], kv[0]))[: self.k]
            out[q.id] = {ids[n]: s for n, s in top}
        return out

    def __repr__(self) -> str:
        return f"EntityDocumentAnswerer(k_docs={self.retriever.k}, k={self.k})"

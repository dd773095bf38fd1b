"""Text-only KGQA over entity-centric documents (``retrieve.entity_docs``): the BM25 index of
the documents (built, or loaded from its cache), and the answerer: entities of the retrieved
documents' triples, those of the best-matching triple first, the question's own entity left
out."""

from __future__ import annotations

from pathlib import Path

import pytest
from kgqa_fixtures import movie_kb

from skbsearch.core.types import Query
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.store import SKB
from skbsearch.retrieve.entity_docs import (
    EntityDocumentAnswerer,
    build_document_index,
    document_index,
)
from skbsearch.verbalise import EntityDocument, entity_documents


@pytest.fixture(scope="module")
def kb() -> tuple[SKB, list[EntityDocument]]:
    skb = movie_kb()
    return skb, entity_documents(skb, max_triples=10)


def test_document_index_is_built_once_and_cached(kb: tuple[SKB, list[EntityDocument]], tmp_path: Path) -> None:
    _, docs = kb
    index = build_document_index(docs, k1=1.2)
    assert index.doc_ids == [d.id for d in docs] and index.params["k1"] == 1.2
    assert index.source == {"kind": "entity-documents", "count": len(docs)}
    cached = document_index(docs, tmp_path / "docs-bm25")
    assert (tmp_path / "docs-bm25" / "manifest.json").is_file()
    again = document_index(docs[:1], tmp_path / "docs-bm25")  # loaded: the documents given are not indexed
    assert isinstance(again, BM25Index) and again.doc_ids == cached.doc_ids == index.doc_ids
    assert document_index(docs[:1]).doc_ids == [docs[0].id]  # no cache: built


def test_answers_are_the_entities_of_the_best_triples(kb: tuple[SKB, list[EntityDocument]]) -> None:
    skb, docs = kb
    answer = EntityDocumentAnswerer(skb, docs, build_document_index(docs), k_docs=2, k=5, name="docs")
    run = answer([Query("q1", "who directed [Kismet]"), Query("q2", "what films did Marlene Dietrich star in"),
                  Query("q3", "zzz qqq")])
    assert run.name == "docs"
    # the triple that shares "directed" with the question ranks its object first; the
    # topic entity (Kismet, named in the question) is never an answer
    assert next(iter(run["q1"])) == "William Dieterle" and "Kismet" not in run["q1"]
    assert list(run["q2"])[:2] == ["Kismet", "Dishonored"] and "Marlene Dietrich" not in run["q2"]
    assert all(len(v) <= 5 for v in run.values()) and run["q3"] == {}
    scores = list(run["q1"].values())
    assert scores == sorted(scores, reverse=True)
    assert repr(answer) == "EntityDocumentAnswerer(k_docs=2, k=5)"

"""Triple verbalisation and entity-centric document invariants."""

from __future__ import annotations

import numpy as np
import pytest
from kgqa_fixtures import movie_kb, random_kb

from skbsearch.verbalise import Verbaliser, document_of_edge, entity_documents, group_edges


def test_template_sentence() -> None:
    v = Verbaliser()
    assert v.sentence("Kismet", "directed_by", "William Dieterle") == "Kismet directed by William Dieterle"
    assert v.sentence("A", "some_new_relation", "B") == "A some new relation B"
    assert Verbaliser({"x": "{tail} is the x of {head}"}).sentence("A", "x", "B") == "B is the x of A"


@pytest.mark.parametrize("seed", [None, 0, 7])
@pytest.mark.parametrize("max_triples", [1, 3, 10])
def test_group_edges_invariants(seed: int | None, max_triples: int) -> None:
    rng = np.random.default_rng(1)
    subjects = rng.integers(0, 12, 400)
    order, doc = group_edges(subjects, max_triples, seed)
    assert sorted(order.tolist()) == list(range(len(subjects)))  # each edge exactly once
    assert np.all(np.diff(doc) >= 0) and doc[0] == 0 and np.all(np.diff(doc) <= 1)
    sizes = np.bincount(doc)
    assert sizes.max() <= max_triples and sizes.min() >= 1
    for d in range(doc.max() + 1):
        assert len(set(subjects[order[doc == d]].tolist())) == 1  # one subject a document
    for s in np.unique(subjects):  # as few documents as possible, balanced
        docs = np.unique(doc[subjects[order] == s])
        n = int((subjects == s).sum())
        assert len(docs) == -(-n // max_triples)
        assert np.ptp(sizes[docs]) <= 1


def test_entity_documents_cover_every_triple_once() -> None:
    skb = random_kb(n=30, m=300, seed=3)
    docs = entity_documents(skb, max_triples=10)
    edges = [e for d in docs for e in d.edges]
    assert sorted(edges) == list(range(skb.num_edges))
    assert all(1 <= len(d.edges) <= 10 for d in docs)
    assert len({d.id for d in docs}) == len(docs)
    for d in docs:
        assert all(int(skb.edge_src[e]) == d.subject for e in d.edges)
        assert d.id.startswith(skb.ids[d.subject] + "#")
        assert len(d.sentences) == len(d.edges)
    where = document_of_edge(docs, skb.num_edges)
    assert (where >= 0).all()
    assert all(e in docs[where[e]].edges for e in range(skb.num_edges))


def test_entity_document_text_and_context() -> None:
    skb = movie_kb()
    docs = entity_documents(skb, max_triples=10, seed=None)
    kismet = next(d for d in docs if d.id == "Kismet#0")
    assert "Kismet directed by William Dieterle" in kismet.sentences
    assert kismet.text == ". ".join(kismet.sentences)
    assert len(kismet.context(0)) == len(kismet.sentences) - 1
    assert kismet.sentences[0] not in kismet.context(0)
    two = entity_documents(skb, max_triples=2, seed=None)
    assert sum(1 for d in two if d.subject == kismet.subject) == 3  # 5 triples -> 2 + 2 + 1

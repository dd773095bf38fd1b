"""Triple-level and document-level labels, gold-document inference (hand-made KB)."""

from __future__ import annotations

import numpy as np
from kgqa_fixtures import movie_kb

from skbsearch.rerank.labels import (
    IncidentEdges,
    document_level_labels,
    infer_gold_documents,
    label_candidates,
    triple_level_labels,
)
from skbsearch.verbalise import document_of_edge, entity_documents


def edge(skb, h: str, r: str, t: str) -> int:  # noqa: ANN001
    i, j, k = skb.index_of(h), skb.schema.relations.index(r), skb.index_of(t)
    return int(np.flatnonzero((skb.edge_src == i) & (skb.edge_rel == j) & (skb.edge_dst == k))[0])


def test_triple_level_needs_topic_and_answer() -> None:
    skb = movie_kb()
    kismet, dishonored = skb.index_of("Kismet"), skb.index_of("Dishonored")
    marlene, ronald = skb.index_of("Marlene Dietrich"), skb.index_of("Ronald Colman")
    edges = np.arange(skb.num_edges)
    # "what films did Marlene Dietrich act in" -> Kismet, Dishonored
    lab = triple_level_labels(skb, edges, [marlene], [kismet, dishonored])
    pos = set(edges[lab == 1].tolist())
    assert pos == {edge(skb, "Kismet", "starred_actors", "Marlene Dietrich"),
                   edge(skb, "Dishonored", "starred_actors", "Marlene Dietrich")}
    # without the topic: every triple that contains an answer (Kismet/Dishonored docs)
    fallback = triple_level_labels(skb, edges, [], [kismet, dishonored])
    assert fallback.sum() == 10
    # topic never co-occurs with answers in the candidates -> fallback to answer alone
    cands = [edge(skb, "Kismet", "release_year", "1944"), edge(skb, "Random Harvest", "starred_actors", "Ronald Colman")]
    assert triple_level_labels(skb, cands, [ronald], [kismet]).tolist() == [1, 0]


def test_document_level_labels_whole_documents() -> None:
    skb = movie_kb()
    docs = entity_documents(skb, max_triples=10)
    labels = document_level_labels(skb, docs, [skb.index_of("1944")])
    for d, lab in zip(docs, labels, strict=True):
        assert len(lab) == len(d.edges)
        assert set(lab.tolist()) == ({1} if d.id == "Kismet#0" else {0})


def test_gold_documents_and_candidates() -> None:
    skb = movie_kb()
    docs = entity_documents(skb, max_triples=2)
    where = document_of_edge(docs, skb.num_edges)
    topic, answer = [skb.index_of("William Dieterle")], [skb.index_of("Kismet"), skb.index_of("The Story of Louis Pasteur")]
    gold = infer_gold_documents(skb, where, topic, answer, IncidentEdges(skb))
    expected = {where[edge(skb, "Kismet", "directed_by", "William Dieterle")],
                where[edge(skb, "The Story of Louis Pasteur", "directed_by", "William Dieterle")]}
    assert set(gold.tolist()) == expected
    assert infer_gold_documents(skb, where, [], answer).size == 0
    other = next(i for i, d in enumerate(docs) if d.subject == skb.index_of("Random Harvest"))
    triple = label_candidates(skb, docs, [other], topic, answer, doc_of_edge=where)
    assert {t.document for t in triple} == {other, *expected}
    assert {t.edge for t in triple if t.label} == {
        edge(skb, "Kismet", "directed_by", "William Dieterle"),
        edge(skb, "The Story of Louis Pasteur", "directed_by", "William Dieterle"),
    }
    assert all(t.label == 0 for t in triple if t.document == other)
    doc_level = label_candidates(skb, docs, [other], topic, answer, strategy="document", doc_of_edge=where)
    assert sum(t.label for t in doc_level) > sum(t.label for t in triple)  # coarser: more positives

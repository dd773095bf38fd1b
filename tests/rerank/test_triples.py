"""The triple retriever's path triples come through its own typed interface (``PathSource``),
not by driving a benchmark class's private parts."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import skbsearch.rerank.triples as triples
from skbsearch.benchmarks.metaqa.paths import RelationPathRetriever
from skbsearch.kb.store import SKB
from skbsearch.rerank.triples import PathAnswers, TripleRetriever
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.graph.relpath import RelationPathModel
from skbsearch.verbalise import entity_documents


def _films() -> SKB:
    ids = ["M1", "M2", "P1", "P2", "Drama"]
    types = ["movie", "movie", "person", "person", "genre"]
    at = {n: i for i, n in enumerate(ids)}
    edges = [("M1", "directed_by", "P1"), ("M2", "directed_by", "P2"), ("M1", "has_genre", "Drama"),
             ("M2", "has_genre", "Drama")]
    src, rel, dst = zip(*edges, strict=True)
    return SKB.from_columns(ids, types, ids, edges=(np.array([at[s] for s in src]), list(rel),
                                                    np.array([at[d] for d in dst])))


def test_triples_uses_no_private_attribute_of_another_object_nor_a_benchmark() -> None:
    tree = ast.parse(Path(triples.__file__).read_text(encoding="utf-8"))
    private = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr.startswith("_")
               and not n.attr.startswith("__") and not (isinstance(n.value, ast.Name) and n.value.id == "self")]
    assert private == []
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not any(m and m.startswith("skbsearch.benchmarks") for m in imported)


def test_path_answers_are_the_retrievers_own_scores_and_give_last_hop_triples() -> None:
    skb = _films()
    model = RelationPathModel(min_df=1).fit(["who directed ENT", "who was the director of ENT",
                                             "what genre is ENT", "which genre is ENT"],
                                            [("directed_by",)] * 2 + [("has_genre",)] * 2)
    graph = RelationPathRetriever(skb, model, link_mode="brackets", min_path_prob=0.3)
    texts = ["who directed [M1]", "what genre is [M2]"]
    got = graph.path_answers(texts)
    _, preds, scored = graph.score(texts)
    assert all(isinstance(g, PathAnswers) for g in got)
    assert [g.seeds for g in got] == [[skb.index_of("M1")], [skb.index_of("M2")]]
    for g, paths, (nodes, scores) in zip(got, preds, scored, strict=True):
        assert g.paths == [(p, x) for p, x in paths if x >= 0.3] and g.paths  # the followed ones only
        assert np.array_equal(g.nodes, nodes) and np.array_equal(g.scores, scores)
    retriever = TripleRetriever(skb, entity_documents(skb, max_triples=10), None, graph, k_paths=1,
                                link_mode="brackets")
    (first,), (second,) = retriever.path_triples(texts)
    assert (int(skb.edge_src[first[0]]), first[1]) == (skb.index_of("M1"), skb.index_of("P1"))
    assert (int(skb.edge_src[second[0]]), second[1]) == (skb.index_of("M2"), skb.index_of("Drama"))


def test_topics_come_from_the_one_linker_shared_with_the_path_retriever() -> None:
    skb = _films()
    graph = RelationPathRetriever(skb, RelationPathModel(min_df=1).fit(["who directed ENT"], [("directed_by",)]))
    docs = entity_documents(skb, max_triples=10)
    retriever = TripleRetriever(skb, docs, None, graph, link_mode="brackets")
    assert isinstance(graph.linker, NameLinker) and retriever.linker is graph.linker
    assert retriever.topics("who directed [M1]") == [skb.index_of("M1")]
    own = TripleRetriever(skb, docs, None, graph, linker=NameLinker(skb), link_mode="ngram")
    assert own.topics("who directed m2") == [skb.index_of("M2")] and own.topics("who directed") == []

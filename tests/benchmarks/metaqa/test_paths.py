"""Graph-aware retrieval: path following vs brute force, end-to-end on a tiny KB."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from kgqa_fixtures import movie_kb, random_kb

from skbsearch.benchmarks.metaqa.paths import RelationPathRetriever
from skbsearch.core.types import Query
from skbsearch.kb.schema import split_direction
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.graph.relpath import RelationPathModel


def brute_force(skb, seed: int, path: list[str], no_return: bool) -> set[int]:  # noqa: ANN001
    triples = [(int(s), skb.schema.relations[int(r)], int(t))
               for s, r, t in zip(skb.edge_src, skb.edge_rel, skb.edge_dst, strict=True)]
    frontier = {seed}
    for step in path:
        rel, inv = split_direction(step)
        nxt = {t for s, r, t in triples if r == rel and s in frontier and not inv}
        nxt |= {s for s, r, t in triples if r == rel and t in frontier and inv}
        frontier = nxt - {seed} if no_return else nxt
    return frontier


@pytest.mark.parametrize("no_return", [False, True])
def test_follow_matches_brute_force(no_return: bool) -> None:
    skb = random_kb(n=25, m=90, seed=5)
    stage = RelationPathRetriever(skb, RelationPathModel(), NameLinker(skb), no_return=no_return)
    steps = ["a", "b", "c", "a^-1", "b^-1", "c^-1"]
    paths = [list(p) for n in (1, 2, 3) for p in itertools.islice(itertools.product(steps, repeat=n), 0, None, 7)]
    seeds = list(range(skb.num_nodes))
    for path in paths:
        got = stage.follow(seeds, path)
        for s in seeds:
            assert set(got[s].tolist()) == brute_force(skb, s, path, no_return), (s, path)


def trained_stage(**kw) -> tuple[RelationPathRetriever, object]:  # noqa: ANN003
    skb = movie_kb()
    texts = ["who directed ENT", "who was the director of ENT", "what films did ENT act in",
             "what movies did ENT star in", "who acted with ENT", "who co-starred with ENT",
             "when was ENT released", "what year was ENT released"]
    paths = [("directed_by",)] * 2 + [("starred_actors^-1",)] * 2 + \
            [("starred_actors^-1", "starred_actors")] * 2 + [("release_year",)] * 2
    model = RelationPathModel(min_df=1).fit(texts, paths)
    return RelationPathRetriever(skb, model, **kw), skb


def test_graph_retriever_end_to_end() -> None:
    stage, skb = trained_stage()
    run = stage([Query("q1", "who directed [Kismet]"),
                 Query("q2", "what films did [Marlene Dietrich] act in"),
                 Query("q3", "who co-starred with [Ronald Colman]"),
                 Query("q4", "who directed [No Such Film]")])
    assert run.ranked("q1")[0][0] == "William Dieterle"
    assert {d for d, _ in run.ranked("q2")[:2]} == {"Kismet", "Dishonored"}
    top3 = {d for d, _ in run.ranked("q3")[:2]}
    assert top3 == {"Marlene Dietrich", "Greer Garson"}  # the topic itself is excluded
    assert "Ronald Colman" not in run["q3"]
    assert run["q4"] == {}
    ex = stage.trace("when was Kismet released")  # no brackets: n-gram linking
    assert ex.paths[0][0] == ("release_year",)
    assert ex.answers[0][0] == "1944"
    assert ex.link == stage.linker.link_exact("when was Kismet released", "auto", 1)
    # ``explain`` keeps the stage protocol's meaning: evidence lines for one returned node
    assert isinstance(stage.explain("when was [Kismet] released", "1944"), list)


def test_graph_retriever_filters_by_run() -> None:
    stage, _ = trained_stage(k=5)
    q = [Query("q", "what films did [Marlene Dietrich] act in")]
    full = stage(q)
    assert len(full["q"]) == 2 and np.all(np.diff([s for _, s in full.ranked("q")]) <= 0)
    assert set(stage(q, run=type(full)({"q": {"Kismet": 1.0}}))["q"]) == {"Kismet"}

"""RelationPathRetriever back-off when the predicted path reaches nothing (a KB lacking the fact)."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.benchmarks.metaqa.paths import RelationPathRetriever
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.graph.relpath import RelationPathModel

WROTE = ("written_by",)
DIRECTED = ("directed_by",)
GENRE = ("has_genre",)


def auteur_kb() -> SKB:
    """Six films, each directed by its own person; M1, M2 written by their director too,
    M3..M6 have no writer (missing facts); every film has the genre Drama."""
    films = [f"M{i}" for i in range(1, 7)]
    people = [f"P{i}" for i in range(1, 7)]
    ids = [*films, *people, "Drama"]
    types = ["movie"] * 6 + ["person"] * 6 + ["genre"]
    src, rel, dst = [], [], []
    for i in range(6):
        src += [i, i]
        rel += ["directed_by", "has_genre"]
        dst += [6 + i, 12]
        if i < 2:
            src.append(i)
            rel.append("written_by")
            dst.append(6 + i)
    return SKB.from_columns(ids, types, ids, edges=(np.array(src), rel, np.array(dst)))


def stage(skb: SKB, **kw: object) -> RelationPathRetriever:
    texts = [f"who wrote [{m}]" for m in ("M1", "M2")] + [f"who directed [{m}]" for m in ("M1", "M2")] + \
        [f"what genre is [{m}]" for m in ("M1", "M2")]
    model = RelationPathModel(min_df=1).fit(texts, [WROTE, WROTE, DIRECTED, DIRECTED, GENRE, GENRE])
    return RelationPathRetriever(skb, model, NameLinker(skb), link_mode="brackets", **kw)  # type: ignore[arg-type]


def top_name(g: RelationPathRetriever, text: str) -> str | None:
    _, _, scored = g.score([text])
    nodes = scored[0][0]
    return str(g.skb.column("name")[int(nodes[0])]) if len(nodes) else None


def test_fit_backoff_learns_the_path_that_answers_instead() -> None:
    skb = auteur_kb()
    g = stage(skb, top_paths=1)
    assert top_name(g, "who wrote [M5]") is None  # no written_by edge: nothing
    idx = {n: int(skb.index_of(n)) for n in ("P3", "P4", "P1")}
    learned = g.fit_backoff(["who wrote [M3]", "who wrote [M4]", "who wrote [M1]"],
                            [WROTE, WROTE, WROTE], [[idx["P3"]], [idx["P4"]], [idx["P1"]]])
    assert learned == {WROTE: [DIRECTED]}  # genre never answered; M1's path reached its writer
    assert top_name(g, "who wrote [M5]") == "P5"
    assert top_name(g, "who wrote [M1]") == "P1"  # the path reaches something: no back-off
    # answers as a function: asked only for the questions whose path reaches nothing
    asked: list[int] = []
    gold = [[idx["P3"]], [idx["P4"]], [idx["P1"]]]
    assert g.fit_backoff(["who wrote [M3]", "who wrote [M4]", "who wrote [M1]"], [WROTE] * 3,
                         lambda i: asked.append(i) or gold[i]) == {WROTE: [DIRECTED]}
    assert sorted(asked) == [0, 1]
    # fewer than min_hits successes: nothing learned
    assert g.fit_backoff(["who wrote [M3]"], [WROTE], [[idx["P3"]]]) == {}
    with pytest.raises(ValueError):
        g.fit_backoff(["who wrote [M3]"], [WROTE, WROTE], [[idx["P3"]]])


def test_model_order_backoff_follows_the_next_paths() -> None:
    skb = auteur_kb()
    assert top_name(stage(skb, top_paths=1), "who wrote [M5]") is None
    # the next most probable paths, one at a time, until one reaches something
    assert top_name(stage(skb, top_paths=1, backoff=2), "who wrote [M5]") in {"P5", "Drama"}
    with_backoff = stage(skb, top_paths=1, backoff=2)
    assert top_name(with_backoff, "who wrote [M1]") == "P1"  # unchanged where the path answers

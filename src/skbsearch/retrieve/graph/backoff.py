"""Metapath back-off: what the graph stage follows when a query's metapaths reach nothing.

Knowledge bases lack facts ("who wrote [X]" when X has no writer edge): then every
metapath the stage planned for a query reaches nothing from its anchors, and only text
evidence is left. With back-off the stage follows further metapaths, one at a time, until
one reaches something:

1. when the most probable metapath reaches nothing: the metapaths that answered instead on
   training queries in the same situation (:func:`learn_backoff`, stored in the fitted
   model: for each metapath, the others whose top answer was right most often when it
   reached nothing), with the failed metapath's probability;
2. when that anchor reached nothing at all: its metapaths too improbable to be planned and
   its next most probable ones (beyond ``top_paths``), with the failed metapath's probability.

Learned from judged queries only; no rule names a relation or a type.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from skbsearch.retrieve.graph.metapaths import Metapath

#: ``(anchor position, metapath, probability)``, as in a query's plan
PlannedPath = tuple[int, Metapath, float]


def back_off(paths: Sequence[PlannedPath], spare: Sequence[PlannedPath],
             learned: dict[Metapath, list[Metapath]], reached: Sequence[tuple[Any, ...]],
             follow: Callable[[int, Metapath], np.ndarray]) -> list[tuple[int, Metapath, float, np.ndarray]]:
    """The back-off walks of one query, ``(anchor, metapath, probability, reached nodes)``.

    When the most probable of the planned ``paths`` reached nothing, its learned substitutes
    are followed in turn, with its probability, until one reaches something. When none
    does and none of that path's anchor's planned paths reached anything either, the
    anchor's ``spare`` metapaths (too improbable to be planned, or beyond ``top_paths``)
    are followed, most probable first, with the failed path's probability, until one
    does; with no planned path at all, the spare ones of every anchor (their own).
    """
    if not paths:
        return [] if reached else _first(sorted(spare, key=lambda x: -x[2]), follow)
    ai, top, prob = max(paths, key=lambda x: x[2])
    if any(r[0] == ai and r[1] == top for r in reached):
        return []
    got = _first([(ai, alt, prob) for alt in learned.get(top, ())], follow)
    if got or any(r[0] == ai for r in reached):
        return got
    return _first([(ai, m, prob) for _, m, _ in sorted((x for x in spare if x[0] == ai), key=lambda x: -x[2])],
                  follow)


def _first(todo: Sequence[PlannedPath], follow: Callable[[int, Metapath], np.ndarray]
           ) -> list[tuple[int, Metapath, float, np.ndarray]]:
    """The first of ``todo`` that reaches something, as a one-walk list (``[]``: none does)."""
    for ai, path, prob in todo:
        nodes = follow(ai, path)
        if len(nodes):
            return [(ai, path, prob, nodes)]
    return []


def learn_backoff(plans: Sequence[Any], answers: Sequence[np.ndarray], classes: Sequence[Metapath],
                  follow: Callable[[int, Metapath], np.ndarray], popularity: np.ndarray, *,
                  max_paths: int = 3, min_hits: int = 2) -> dict[Metapath, list[Metapath]]:
    """For each metapath, the metapaths to follow instead when it reaches nothing.

    On the training queries whose most probable planned metapath reaches nothing from its
    anchor, every other known metapath from the most probable path's anchor type is followed, and
    its top answer (the most popular node it reaches, as the stage breaks ties) checked
    against the query's answers; per failed metapath, the ``max_paths`` substitutes that
    were right most often (at least ``min_hits`` times) are kept, most hits first.

    Args:
        plans: the queries' plans (``anchors`` and ``paths`` as :meth:`SKBGraphRetriever.plan`).
        answers: each query's answer node indices.
        classes: the metapaths the fitted model knows.
        follow: ``follow(anchor node, metapath)`` -> the nodes it reaches.
        popularity: a score per node; the reached node with the highest is the "top answer".
    """
    hits: dict[Metapath, Counter[Metapath]] = {}
    for plan, gold in zip(plans, answers, strict=True):
        if not plan.paths:
            continue
        ai, top, _ = max(plan.paths, key=lambda x: x[2])
        node = plan.anchors[ai].node
        if len(follow(node, top)):
            continue
        for other in classes:
            if other == top or other[0] != top[0]:
                continue
            reached = follow(node, other)
            if len(reached) and int(reached[np.argmax(popularity[reached])]) in gold:
                hits.setdefault(top, Counter())[other] += 1
    out: dict[Metapath, list[Metapath]] = {}
    for path, counts in sorted(hits.items()):
        best = [q for q, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n >= min_hits]
        if best:
            out[path] = best[:max_paths]
    return out


def fit_backoff(retriever: Any, texts: Sequence[str], answers: Sequence[np.ndarray],
                classes: Sequence[Metapath]) -> dict[Metapath, list[Metapath]]:
    """:func:`learn_backoff` over a :class:`~skbsearch.retrieve.graph.retriever.SKBGraphRetriever`'s
    own plans of ``texts`` (with its fitted model) and its walks; popularity = node degree."""
    plans = retriever.plan(texts)
    tg = retriever.tg
    walked: dict[tuple[int, Metapath], np.ndarray] = {}

    def follow(node: int, path: Metapath) -> np.ndarray:
        got = walked.get((node, path))
        if got is None:
            got = walked[(node, path)] = tg.follow(node, path, no_return=retriever.no_return,
                                                   max_frontier=retriever.max_frontier)
        return got

    degree = retriever.skb.graph.degree(direction="both")
    return learn_backoff(plans, answers, classes, follow, degree)

"""Metapath back-off: what the graph stage follows when a query's metapaths reach nothing.

Knowledge bases lack facts ("who wrote [X]" when X has no writer edge): then every
metapath the stage planned for a query reaches nothing from its anchors, and only text
evidence is left. With back-off the stage follows further metapaths, one at a time, until
one reaches something:

1. the metapaths that answered instead on training queries in the same situation
   (:func:`learn_backoff`, stored in the fitted model: for each metapath, the others whose
   top answer was right most often when it reached nothing), with the failed metapath's
   probability;
2. then the next most probable metapaths of the anchors (beyond ``top_paths``).

Learned from judged queries only; no rule names a relation or a type.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from skbsearch.retrieve.graph.metapaths import Metapath

#: ``(anchor position, metapath, probability)``, as in a query's plan
PlannedPath = tuple[int, Metapath, float]


def backoff_order(paths: Sequence[PlannedPath], spare: Sequence[PlannedPath],
                  learned: dict[Metapath, list[Metapath]]) -> Iterator[PlannedPath]:
    """The metapaths to try, in order, when none of ``paths`` reached anything: the learned
    substitutes of the most probable planned path (with its probability), then ``spare``
    (the anchors' next most probable paths) best first."""
    if paths:
        ai, top, prob = max(paths, key=lambda x: x[2])
        for alt in learned.get(top, ()):
            yield ai, alt, prob
    yield from sorted(spare, key=lambda x: -x[2])


def learn_backoff(plans: Sequence[Any], answers: Sequence[np.ndarray], classes: Sequence[Metapath],
                  follow: Callable[[int, Metapath], np.ndarray], popularity: np.ndarray, *,
                  max_paths: int = 3, min_hits: int = 2) -> dict[Metapath, list[Metapath]]:
    """For each metapath, the metapaths to follow instead when it reaches nothing.

    On the training queries whose planned metapaths all reach nothing from their anchors,
    every other known metapath from the most probable path's anchor type is followed, and
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
        if not plan.paths or any(len(follow(plan.anchors[ai].node, m)) for ai, m, _ in plan.paths):
            continue
        ai, top, _ = max(plan.paths, key=lambda x: x[2])
        node = plan.anchors[ai].node
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
    tg, walked = retriever.tg, {}

    def follow(node: int, path: Metapath) -> np.ndarray:
        got = walked.get((node, path))
        if got is None:
            got = walked[(node, path)] = tg.follow(node, path, no_return=retriever.no_return,
                                                   max_frontier=retriever.max_frontier)
        return got

    degree = retriever.skb.graph.degree(direction="both")
    return learn_backoff(plans, answers, classes, follow, degree)

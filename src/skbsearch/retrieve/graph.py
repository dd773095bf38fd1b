"""Graph-aware retrieval: link the topic entity, predict the relation path, follow it.

For a question ``q`` with linked candidates ``e`` (link score ``l(e)``) and predicted
paths ``p`` (probability ``P(p|q)``), an answer node ``a`` scores::

    score(a) = sum_p sum_e  P(p|q) * l(e) * [a reached from e by walking p]

Paths that reach nothing from the linked entities add nothing, so a path the topic
entity cannot take (an actor question about a movie) falls away by itself. The topic
entity's own candidates are never answers (MetaQA's convention: "co-stars of X" excludes
X). All queries are processed as one batch: one ``follow_each`` per distinct path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from skbsearch.kb.store import SKB
from skbsearch.pipeline import StageBase
from skbsearch.retrieve.linking import EntityLinker, LinkResult
from skbsearch.retrieve.relpath import RelationPathModel
from skbsearch.types import Query, Run


@dataclass(frozen=True)
class Explanation:
    """What the stage did for one query: links, scored paths and the answers."""

    link: LinkResult
    paths: list[tuple[tuple[str, ...], float]]
    answers: list[tuple[str, float]]


class GraphRetriever(StageBase):
    """Answer nodes by relation-path following from linked entities.

    Args:
        skb: the knowledge base.
        model: a trained :class:`RelationPathModel`.
        linker: an :class:`EntityLinker` (default: one over all nodes of ``skb``).
        link_mode: ``auto`` (brackets when present, else n-grams), ``brackets``, ``ngram``.
        top_paths: follow the ``top_paths`` most probable paths.
        min_path_prob: skip paths less probable than this.
        max_candidates: at most this many nodes per mention (most likely first).
        max_mentions: use this many mentions per question (n-gram mode).
        exclude_topic: never return a linked topic candidate as an answer.
        no_return: walks may not pass through their seed again (MetaQA's convention:
            "films that share actors with X" means films other than X).
        k: answers kept per query.
        name: the name of the Runs it returns.
    """

    def __init__(
        self,
        skb: SKB,
        model: RelationPathModel,
        linker: EntityLinker | None = None,
        *,
        link_mode: str = "auto",
        top_paths: int = 3,
        min_path_prob: float = 1e-3,
        max_candidates: int = 10,
        max_mentions: int = 1,
        exclude_topic: bool = True,
        no_return: bool = True,
        k: int = 100,
        name: str = "graph",
    ) -> None:
        self.skb = skb
        self.model = model
        self.linker = linker or EntityLinker(skb)
        self.link_mode = link_mode
        self.top_paths = top_paths
        self.min_path_prob = min_path_prob
        self.max_candidates = max_candidates
        self.max_mentions = max_mentions
        self.exclude_topic = exclude_topic
        self.no_return = no_return
        self.k = k
        self.name = name
        deg = np.log1p(skb.graph.degree(direction="both").astype(float))
        #: a tiny popularity bonus that orders otherwise tied answers (more linked first)
        self._tie = 1e-6 * deg / max(float(deg.max()), 1.0) if len(deg) else deg

    def _seeds(self, link: LinkResult) -> list[tuple[int, float]]:
        mentions = [m for m in link.mentions[: self.max_mentions] if m.candidates]
        total = sum(m.score for m in mentions) or 1.0
        return [
            (c.node, (m.score / total) * c.score)
            for m in mentions
            for c in m.candidates[: self.max_candidates]
        ]

    def follow(self, seeds: Sequence[int], path: Sequence[str]) -> list[np.ndarray]:
        """Nodes reached from each seed along ``path``; with ``no_return``, walks that come
        back to their seed are cut ("films sharing a director with X" are not X)."""
        if not self.no_return:
            return self.skb.graph.follow_each([[s] for s in seeds], list(path))
        groups: list[np.ndarray] = [np.array([s], np.int64) for s in seeds]
        for step in path:
            groups = self.skb.graph.follow_each(groups, [step])
            groups = [g[g != s] for g, s in zip(groups, seeds, strict=True)]
        return groups

    def score(self, texts: Sequence[str]) -> tuple[list[LinkResult], list, list[tuple[np.ndarray, np.ndarray]]]:
        """Links, predicted paths and ``(answer node indices, scores)`` per question."""
        links = self.linker.link_many(texts, self.link_mode, max(self.max_mentions, 1))
        preds = self.model.predict([lk.masked for lk in links], self.top_paths)
        seeds = [self._seeds(lk) for lk in links]
        jobs: dict[tuple[str, ...], list[tuple[int, int, float]]] = {}
        for qi, (paths, sd) in enumerate(zip(preds, seeds, strict=True)):
            for path, prob in paths:
                if prob < self.min_path_prob:
                    continue
                for node, w in sd:
                    jobs.setdefault(path, []).append((qi, node, prob * w))
        parts: list[list[tuple[np.ndarray, float]]] = [[] for _ in texts]
        for path, items in jobs.items():
            reached = self.follow([node for _, node, _ in items], path)
            for (qi, _, w), nodes in zip(items, reached, strict=True):
                if len(nodes):
                    parts[qi].append((nodes, w))
        out = []
        for qi, ps in enumerate(parts):
            if not ps:
                out.append((np.zeros(0, np.int64), np.zeros(0)))
                continue
            nodes = np.concatenate([n for n, _ in ps]).astype(np.int64)
            weights = np.concatenate([np.full(len(n), w) for n, w in ps])
            uniq, inv = np.unique(nodes, return_inverse=True)
            s = np.bincount(inv, weights=weights) + self._tie[uniq]
            if self.exclude_topic:
                keep = ~np.isin(uniq, [n for n, _ in seeds[qi]])
                uniq, s = uniq[keep], s[keep]
            order = np.lexsort((uniq, -s))[: self.k]
            out.append((uniq[order], s[order]))
        return links, preds, out

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        """A Run over answer node ids; with ``run``, only its candidates are kept."""
        queries = list(queries)
        _, _, scored = self.score([q.text for q in queries])
        ids = self.skb.ids_array
        result = Run(name=self.name)
        for q, (nodes, s) in zip(queries, scored, strict=True):
            docs = dict(zip(ids[nodes].tolist(), s.tolist(), strict=True))
            if run is not None:
                allowed = run.get(q.id, {})
                docs = {d: v for d, v in docs.items() if d in allowed}
            result[q.id] = docs
        return result

    def explain(self, text: str, k: int = 10) -> Explanation:
        """Links, predicted paths and top answers for one question (for debugging/CLI)."""
        links, preds, scored = self.score([text])
        nodes, s = scored[0]
        ids = self.skb.ids_array
        return Explanation(links[0], preds[0], list(zip(ids[nodes[:k]].tolist(), s[:k].tolist(), strict=True)))

    def __repr__(self) -> str:
        return f"GraphRetriever(link_mode={self.link_mode!r}, top_paths={self.top_paths}, k={self.k})"

"""MetaQA's relation-path retriever: link the topic entity, predict the relation path, follow it.

Not a stage: the library's graph retriever is the ``graph`` stage
(:mod:`skbsearch.retrieve.graph`), which ``skb bench metaqa`` runs. This one is trained on
MetaQA's question-type labels and kept for the experiments built on it: the candidate
triples of the contextual triple re-ranker (:mod:`.rerank`, ``skb train triple-reranker``,
``benchmarks/metaqa_ablation.py``) and the miss analysis (:mod:`.misses`).

For a question ``q`` with linked candidates ``e`` (link score ``l(e)``) and predicted
paths ``p`` (probability ``P(p|q)``), an answer node ``a`` scores::

    score(a) = sum_p sum_e  P(p|q) * l(e) * [a reached from e by walking p]

Paths that reach nothing from the linked entities add nothing, so a path the topic
entity cannot take (an actor question about a movie) falls away by itself. The topic
entity's own candidates are never answers (MetaQA's convention: "co-stars of X" excludes
X). All queries are processed as one batch: one ``follow_each`` per distinct path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field

import numpy as np

from skbsearch.core.operators import StageBase
from skbsearch.core.types import Query, Run
from skbsearch.kb.store import SKB
from skbsearch.rerank.triples import PathAnswers
from skbsearch.retrieve.graph.exact_names import LinkResult
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.graph.relpath import RelationPathModel


@dataclass(frozen=True)
class Explanation:
    """What the stage did for one query: links, scored paths and the answers."""

    link: LinkResult
    paths: list[tuple[tuple[str, ...], float]]
    answers: list[tuple[str, float]]


@dataclass(eq=False, repr=False)
class RelationPathRetriever(StageBase):
    """Answer nodes by relation-path following from linked entities.

    Args:
        skb: the knowledge base.
        model: a trained :class:`RelationPathModel`.
        linker: the :class:`~skbsearch.retrieve.graph.linking.NameLinker` that finds the topic
            entity by whole names (its ``link_exact``; default: one over ``skb``).
        link_mode: ``auto`` (brackets when present, else n-grams), ``brackets``, ``ngram``.
        top_paths: follow the ``top_paths`` most probable paths.
        min_path_prob: skip paths less probable than this.
        max_candidates: at most this many nodes per mention (most likely first).
        max_mentions: use this many mentions per question (n-gram mode).
        exclude_topic: never return a linked topic candidate as an answer.
        no_return: walks may not pass through their seed again (MetaQA's convention:
            "films that share actors with X" means films other than X).
        backoff: when none of the ``top_paths`` paths reaches an answer from the linked
            entities (the KB lacks the asked facts), follow the next most probable paths,
            one at a time, up to ``backoff`` more, until one reaches something (ignoring
            ``min_path_prob``); 0: no back-off.
        k: answers kept per query.
        name: the name of the Runs it returns.
    """

    skb: SKB
    model: RelationPathModel
    linker: NameLinker = None  # type: ignore[assignment]  # None: one over all nodes
    _: KW_ONLY
    link_mode: str = "auto"
    top_paths: int = 3
    min_path_prob: float = 1e-3
    max_candidates: int = 10
    max_mentions: int = 1
    exclude_topic: bool = True
    no_return: bool = True
    backoff: int = 0
    k: int = 100
    name: str = "graph"
    #: learned back-off paths (:meth:`fit_backoff`): labelled path -> paths to try instead
    backoff_paths: dict[tuple[str, ...], list[tuple[str, ...]]] = field(
        default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.linker = self.linker or NameLinker(self.skb)
        deg = np.log1p(self.skb.graph.degree(direction="both").astype(float))
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
        links = self.linker.link_exact_many(texts, self.link_mode, max(self.max_mentions, 1))
        ranked = self.model.predict([lk.masked for lk in links], self.top_paths + max(self.backoff, 0))
        preds = [p[: self.top_paths] for p in ranked]
        seeds = [self._seeds(lk) for lk in links]
        parts: list[list[tuple[np.ndarray, float]]] = [[] for _ in texts]
        reached = self._walk([(qi, path, prob) for qi, paths in enumerate(preds) for path, prob in paths
                              if prob >= self.min_path_prob], seeds, parts)
        # learned back-off: the most probable path reaches nothing from the linked entities
        todo = [(qi, *preds[qi][0]) for qi in range(len(texts))
                if preds[qi] and seeds[qi] and (qi, preds[qi][0][0]) not in reached
                and preds[qi][0][0] in self.backoff_paths]
        for step in range(max((len(self.backoff_paths[p]) for _, p, _ in todo), default=0)):
            jobs = [(qi, self.backoff_paths[p][step], prob) for qi, p, prob in todo
                    if step < len(self.backoff_paths[p])]
            got = self._walk(jobs, seeds, parts)
            done = {qi for qi, _ in got}
            todo = [t for t in todo if t[0] not in done]
        for rank in range(self.top_paths, self.top_paths + max(self.backoff, 0)):
            empty = [qi for qi, ps in enumerate(parts) if not ps and seeds[qi] and rank < len(ranked[qi])]
            if not empty:
                break
            self._walk([(qi, *ranked[qi][rank]) for qi in empty], seeds, parts)
        out = [self._rank(ps, seeds[qi]) for qi, ps in enumerate(parts)]
        return links, preds, out

    def path_answers(self, texts: Sequence[str]) -> list[PathAnswers]:
        """Per question, what the contextual triple retriever takes
        (:class:`~skbsearch.rerank.triples.PathSource`): the seed nodes, the predicted paths
        of at least ``min_path_prob`` and the scored answers of :meth:`score`."""
        links, preds, scored = self.score(texts)
        return [PathAnswers([n for n, _ in self._seeds(link)], [(p, x) for p, x in paths if x >= self.min_path_prob],
                            nodes, scores)
                for link, paths, (nodes, scores) in zip(links, preds, scored, strict=True)]

    def _rank(self, parts: list[tuple[np.ndarray, float]], seeds: list[tuple[int, float]]
              ) -> tuple[np.ndarray, np.ndarray]:
        """One question's ``(answer nodes, scores)``, best first, from its reached parts."""
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0)
        nodes = np.concatenate([n for n, _ in parts]).astype(np.int64)
        weights = np.concatenate([np.full(len(n), w) for n, w in parts])
        uniq, inv = np.unique(nodes, return_inverse=True)
        s = np.bincount(inv, weights=weights) + self._tie[uniq]
        if self.exclude_topic:
            keep = ~np.isin(uniq, [n for n, _ in seeds])
            uniq, s = uniq[keep], s[keep]
        order = np.lexsort((uniq, -s))[: self.k]
        return uniq[order], s[order]

    def _walk(self, todo: Sequence[tuple[int, tuple[str, ...], float]], seeds: Sequence[list[tuple[int, float]]],
              parts: list[list[tuple[np.ndarray, float]]]) -> set[tuple[int, tuple[str, ...]]]:
        """Follow ``(question, path, probability)`` jobs from each question's seeds (one
        ``follow`` per distinct path); append ``(reached nodes, weight)`` to ``parts``.
        Returns the ``(question, path)`` pairs that reached something."""
        got: set[tuple[int, tuple[str, ...]]] = set()
        jobs: dict[tuple[str, ...], list[tuple[int, int, float]]] = {}
        for qi, path, prob in todo:
            for node, w in seeds[qi]:
                jobs.setdefault(path, []).append((qi, node, prob * w))
        for path, items in jobs.items():
            reached = self.follow([node for _, node, _ in items], path)
            for (qi, _, w), nodes in zip(items, reached, strict=True):
                if len(nodes):
                    parts[qi].append((nodes, w))
                    got.add((qi, path))
        return got

    def fit_backoff(self, texts: Sequence[str], paths: Sequence[Sequence[str]],
                    answers: Sequence[Sequence[int]] | Callable[[int], Sequence[int]],
                    *, max_paths: int = 3, min_hits: int = 2) -> dict[tuple[str, ...], list[tuple[str, ...]]]:
        """Learn which paths to follow when a question's path reaches nothing.

        Knowledge bases lack facts: "who wrote [X]" when X has no ``written_by`` edge.
        On training questions whose labelled path reaches nothing from the linked
        entities, every other path the model knows is followed and its top answer (this
        stage's ranking) checked against the question's answer nodes; for each labelled
        path, the ``max_paths`` paths whose top answer was right most often (at least
        ``min_hits`` times) become its back-off, in that order. At prediction time, when
        the most probable path reaches nothing, they are followed in turn (with its
        probability) until one reaches something. Learned from training pairs only; sets
        and returns :attr:`backoff_paths`.

        Args:
            texts: training questions (linked as at prediction time).
            paths: their relation paths.
            answers: their answer node indices, or a function of a question's position
                that returns them (called only for questions whose path reaches nothing).
        """
        if len(texts) != len(paths) or (not callable(answers) and len(answers) != len(texts)):
            raise ValueError("need as many paths and answer lists as questions")
        answers_of = answers if callable(answers) else answers.__getitem__
        links = self.linker.link_exact_many(texts, self.link_mode, max(self.max_mentions, 1))
        seeds = [self._seeds(lk) for lk in links]
        labelled = [tuple(p) for p in paths]
        parts: list[list[tuple[np.ndarray, float]]] = [[] for _ in texts]
        reached = self._walk([(qi, p, 1.0) for qi, p in enumerate(labelled) if seeds[qi]], seeds, parts)
        empty = [qi for qi in range(len(texts)) if seeds[qi] and (qi, labelled[qi]) not in reached]
        gold = {qi: set(answers_of(qi)) for qi in empty}
        hits: dict[tuple[str, ...], Counter[tuple[str, ...]]] = {}
        for other in self.model.classes:
            jobs = [(qi, other, 1.0) for qi in empty if labelled[qi] != other]
            tried: list[list[tuple[np.ndarray, float]]] = [[] for _ in texts]
            for qi, _ in self._walk(jobs, seeds, tried):
                nodes, _ = self._rank(tried[qi], seeds[qi])
                if len(nodes) and int(nodes[0]) in gold[qi]:
                    hits.setdefault(labelled[qi], Counter())[other] += 1
        self.backoff_paths = {
            p: [q for q, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])) if n >= min_hits][:max_paths]
            for p, c in sorted(hits.items())
        }
        self.backoff_paths = {p: qs for p, qs in self.backoff_paths.items() if qs}
        return self.backoff_paths

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

    def trace(self, text: str, k: int = 10) -> Explanation:
        """Links, predicted paths and top answers for one question, for debugging (a stage's
        ``explain(query, doc_id)`` is the pipeline's evidence lines: not overridden here)."""
        links, preds, scored = self.score([text])
        nodes, s = scored[0]
        ids = self.skb.ids_array
        return Explanation(links[0], preds[0], list(zip(ids[nodes[:k]].tolist(), s[:k].tolist(), strict=True)))

    def __repr__(self) -> str:
        return f"RelationPathRetriever(link_mode={self.link_mode!r}, top_paths={self.top_paths}, k={self.k})"

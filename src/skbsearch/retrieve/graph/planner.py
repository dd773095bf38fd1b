"""The graph stage's plan part: each query's anchors, metapaths (with probabilities) and
answer types (:class:`Planner`).

The plan is the first step of the graph stage (:class:`~skbsearch.retrieve.graph.work.GraphWork`):
the linker finds the anchors, a fitted model (or, untrained, the schema's relation and type
names) gives each anchor its metapaths ``P(m | q, a)`` and the query its answer types
``P(t | q)``. The walks, the scores and their combination follow in
:mod:`~skbsearch.retrieve.graph.work`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.answer_types import AnswerTypes, answer_phrase, singular
from skbsearch.retrieve.graph.exact_names import bracket_mentions, normalise, strip_brackets
from skbsearch.retrieve.graph.linking import Anchor, NameLinker
from skbsearch.retrieve.graph.metapaths import Metapath, TypeGraph, steps_of
from skbsearch.retrieve.graph.model import KGModel, anchor_view, path_view, text_types
from skbsearch.retrieve.graph.plan import Plan
from skbsearch.retrieve.graph.zero_shot import zero_shot_paths, zero_shot_types


@dataclass
class Planner:
    """Plans queries over one SKB: links anchors, chooses metapaths and answer types.

    Args:
        skb: the knowledge base.
        tg: its :class:`TypeGraph`.
        linker: the :class:`NameLinker` that finds the anchors.
        answer_types: the SKB's :class:`AnswerTypes` (untrained answer types, class nodes).
        target: answers only of these node types (empty: learned / from the schema).
        max_hops: the longest untrained metapath is ``min(max_hops, 2)``.
        top_paths: metapaths followed per anchor.
        backoff: further metapaths per anchor kept as back-off candidates.
        min_path_prob: less probable metapaths are not followed (kept for back-off).
    """

    skb: SKB
    tg: TypeGraph
    linker: NameLinker
    answer_types: AnswerTypes
    target: tuple[str, ...] = ()
    max_hops: int = 3
    top_paths: int = 3
    backoff: int = 3
    min_path_prob: float = 0.01
    #: node types whose documents carry text (:func:`~skbsearch.retrieve.graph.model.text_types`)
    text_types: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.text_types = text_types(self.skb)
        self._codes = self.skb.node_type_codes

    def type_name(self, node: int) -> str:
        """The type name of a node."""
        return self.skb.type_names[int(self._codes[node])]

    def plan(self, texts: Sequence[str], model: KGModel | None) -> list[Plan]:
        """Anchors, metapaths (with probabilities) and target types of each query, with
        ``model`` (``None``: untrained)."""
        anchors = self.linker.link_many(texts)
        words = [normalise(strip_brackets(t)).split() for t in texts]
        types = self._types(words, model)
        plans = [Plan(w, a, [], t) for w, a, t in zip(words, anchors, types, strict=True)]
        owners = [(qi, ai) for qi, anc in enumerate(anchors) for ai in range(len(anc))]
        starts = [self.type_name(anchors[qi][ai].node) for qi, ai in owners]
        real = None
        if model is not None:
            real = model.anchor_probs([
                anchor_view(words[qi], anchors[qi][ai], ai + 1, st, bool(bracket_mentions(texts[qi])))
                for (qi, ai), st in zip(owners, starts, strict=True)])
        P = classes = None
        if model is not None and model.path_model is not None and owners:
            P = model.path_model.predict_proba(
                [path_view(words[qi], anchors[qi][ai], st) for (qi, ai), st in zip(owners, starts, strict=True)])
            classes = model.path_model.classes
        for row, ((qi, ai), start) in enumerate(zip(owners, starts, strict=True)):
            plan = plans[qi]
            a = plan.anchors[ai]
            weight = float(real[row]) if real is not None else self._class_weight(a, plan.words)
            opts: list[tuple[Metapath, float]] = []
            if P is not None and classes is not None:
                cols = [j for j, c in enumerate(classes) if c[0] == start and len(c) > 1]
                if cols:
                    p = P[row, cols] / max(float(P[row, cols].sum()), 1e-12)
                    opts = sorted(((classes[j], float(v)) for j, v in zip(cols, p, strict=True)),
                                  key=lambda x: -x[1])
            if not opts:
                qwords = [w for i, w in enumerate(plan.words) if i not in set(a.words)]
                found = zero_shot_paths(self.tg, start, qwords, list(plan.types) or None, min(self.max_hops, 2),
                                        limit=self.top_paths, first=self.tg.node_steps(a.node))
                opts = list({**dict(found), **dict(self._class_paths(a.node, start, plan.types))}.items())
                opts.sort(key=lambda x: -x[1])
            kept = [(m, weight * v) for m, v in opts if steps_of(m)]
            plan.paths.extend((ai, m, v) for m, v in kept[: self.top_paths] if v >= self.min_path_prob)
            # how sure a followed chain is: its probability, or its share of the followed
            # chains' (an anchor with one way out is followed surely, named or not)
            total = sum(v for _, v in kept[: self.top_paths])
            plan.certainty.update({(ai, m): max(v, weight * v / total) for m, v in kept[: self.top_paths]
                                   if total > 0})
            # back-off candidates: the top paths too improbable to follow, then the next ones
            plan.spare.extend((ai, m, v) for k, (m, v) in enumerate(kept[: self.top_paths + self.backoff])
                              if k >= self.top_paths or v < self.min_path_prob)
        return plans

    def _class_weight(self, a: Anchor, words: list[str]) -> float:
        """An untrained anchor's weight: its link confidence, or, for a class node the
        question's answer phrase names ("Which *painters* ..."), the share of the class's
        in-links its members make: a word common in the KG's text is expected of a class
        the question asks for (its members are the answers), so its name share does not
        weaken that link."""
        cls = self.answer_types.class_nodes.get(a.node)
        if cls is None or not a.whole or not a.words:
            return a.conf
        phrase = {singular(w) for w in answer_phrase(words)}
        if not all(singular(words[i]) in phrase for i in a.words):
            return a.conf
        return max(a.conf, cls[1])

    def _class_paths(self, node: int, start: str, types: dict[str, float]) -> list[tuple[Metapath, float]]:
        """A class node of an answer type ("Comedian" for people) leads to its members by
        the step most of them link to it with: that path first, fully weighted."""
        cls = self.answer_types.class_nodes.get(node)
        if cls is None or types.get(self.skb.type_names[cls[0]], 0.0) < 0.1:
            return []
        return [((start, cls[2]), 1.0)]

    def _types(self, words: list[list[str]], model: KGModel | None) -> list[dict[str, float]]:
        if self.target:
            return [{t: 1.0 / len(self.target) for t in self.target} for _ in words]
        m = model
        if m is not None and (m.type_model is not None or m.answer_types):
            return m.type_probs([" ".join(w) for w in words])
        return [self._guess_types(w) for w in words]

    def _guess_types(self, words: list[str]) -> dict[str, float]:
        """Untrained answer types: the question's answer phrase against the SKB's type
        vocabulary (:class:`AnswerTypes`), beside the document types; the schema's named
        types when the phrase says none."""
        guess = self.answer_types.guess(words)
        if not guess:
            return zero_shot_types(self.skb, set(words), self.text_types, self.answer_types.informative)
        if not self.text_types:
            return guess
        docs = {t: 0.5 / len(self.text_types) for t in self.text_types}
        return {t: docs.get(t, 0.0) + 0.5 * guess.get(t, 0.0) for t in {**docs, **guess}}

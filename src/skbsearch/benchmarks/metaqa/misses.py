"""Why does the MetaQA graph pipeline miss? K-fold held-out dev and one cause per miss.

The test-like protocol (:func:`kfold_misses`): dev questions of every hop are split into
``k`` folds by a hash of their text (identical texts share a fold); for each fold, the
relation-path model is trained on the other folds' questions of every hop (as
``--split test`` trains on all of dev) and the fold's questions are answered by the
:class:`~skbsearch.benchmarks.metaqa.paths.RelationPathRetriever`. Nothing fitted sees the fold it scores.

Every miss (top answer's name not a gold answer) gets one cause, checked in this order
(:func:`classify`):

1. ``kb gap``: no gold answer name is a KB node, the bracketed topic is no node's name
   (these names occur nowhere in ``kb.tsv``: facts the rebuilt KB lost), or the gold
   relation path (``qtype``) from the topic's nodes reaches no gold answer;
2. ``linking``: the top answer is reached only from a node of the mention's name whose
   gold path reaches no gold answer (the wrong node of a shared name outweighed the
   right one);
3. ``relation path``: the model's most probable path is not the gold path;
4. ``tie``: the top answer is on the gold path from the right node and scores the same as
   the best gold answer up to the popularity tie-break (the gold path reaches gold and
   non-gold answers: a merged title or a KB with more facts than the gold set);
5. ``ranking``: the top answer outscores every gold answer by more than a tie, its score
   summed over other predicted paths or nodes.

Two ceilings per hop: ``ceiling_path`` (a gold answer on the gold path, what
``--split dev`` reports) and ``ceiling_hops`` (a gold answer within h hops, what
``--split test`` reports: test files carry no qtype). ``kb gap`` misses are split by
whether a gold answer is within h hops (``kb gap (within h hops)``), the part of the
test ceiling no path model can reach. The ambiguity split of ``--split dev``
(:func:`~skbsearch.benchmarks.metaqa.protocol.ambiguity_split`: questions whose gold path
reaches gold and non-gold answers, a merged title) is measured the same way on every hop.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from skbsearch.benchmarks.metaqa.paths import RelationPathRetriever
from skbsearch.benchmarks.metaqa.protocol import (
    MetaQAQuestion,
    ambiguity_split,
    answer_nodes,
    fit_backoff,
    reachable,
    train_path_model,
)
from skbsearch.core.errors import InputError
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.graph.relpath import RelationPathModel, label_paths

CAUSES = ("kb gap", "linking", "relation path", "tie", "ranking")
#: Scores closer than this are a tie (the retriever's popularity tie-break adds < 1e-6).
TIE = 2e-6


def fold_of(question: str, k: int) -> int:
    """The fold (0..k-1) of a question, by a hash of its text."""
    h = int.from_bytes(hashlib.sha1(question.encode("utf-8")).digest()[8:16], "big")
    return h % k


@dataclass(frozen=True)
class Miss:
    """One classified question: its cause (``None`` when answered right) and details."""

    question: MetaQAQuestion
    cause: str | None
    detail: str
    within_hops: bool = True


def classify(retriever: RelationPathRetriever, linker: NameLinker, q: MetaQAQuestion,
             top_path: tuple[str, ...] | None, nodes: np.ndarray, scores: np.ndarray) -> Miss:
    """The cause of one question's miss (see the module docstring), or ``cause=None``.

    Args:
        retriever: the stage that answered (its ``follow`` walks the gold path).
        linker: the linker the stage used (bracket mentions -> candidate nodes).
        q: the question, with its ``qtype``.
        top_path: the model's most probable path (``None``: none predicted).
        nodes, scores: the stage's ranked answers (all of them, best first).
    """
    skb = retriever.skb
    names = skb.column("name")
    if len(nodes) and names[int(nodes[0])] in q.answers:
        return Miss(q, None, "")
    top = int(nodes[0]) if len(nodes) else -1
    got = f"top {names[top]!r}" if top >= 0 else "no answer"
    gold = set(answer_nodes(skb, linker, q.answers))
    if not gold:
        return Miss(q, "kb gap", f"no gold answer is a KB node ({'|'.join(q.answers)})", within_hops=False)
    link = linker.link_exact(q.text, "brackets")
    cands = [c.node for m in link.mentions for c in m.candidates]
    if not cands:  # checked by hand: such names occur nowhere in kb.tsv (facts the rebuilt KB lost)
        mention = link.mentions[0].text if link.mentions else "?"
        return Miss(q, "kb gap", f"the topic {mention!r} is no KB node's name", within_hops=False)
    if q.qtype is None:
        raise InputError("classify needs the question's qtype", field="qtype")
    path = label_paths([q.qtype], skb.schema)[0]
    reach = dict(zip(cands, retriever.follow(cands, path), strict=True))
    right = [c for c in cands if gold & set(reach[c].tolist())]
    if not right:
        return Miss(q, "kb gap", f"gold path {' -> '.join(path)} reaches no gold answer; {got}",
                    within_hops=False)
    on_path = {int(n) for c in right for n in reach[c]}
    if top >= 0 and top not in on_path and any(top in set(reach[c].tolist()) for c in cands):
        return Miss(q, "linking", f"{got} via node {names[next(c for c in cands if top in reach[c])]!r} "
                    f"of {len(cands)} named like the mention")
    if top_path != tuple(path):
        pred = " -> ".join(top_path) if top_path else "none"
        return Miss(q, "relation path", f"predicted {pred}, gold {' -> '.join(path)}; {got}")
    s = dict(zip(nodes.tolist(), scores.tolist(), strict=True))
    best_gold = max((s.get(g, 0.0) for g in gold), default=0.0)
    if top in on_path and s.get(top, 0.0) - best_gold <= TIE:
        share = len(on_path & gold) / max(len(on_path), 1)
        return Miss(q, "tie", f"{got} ties the gold answers; gold path reaches {len(on_path)} answers, "
                    f"{share:.0%} gold")
    share = len(on_path & gold) / max(len(on_path), 1)
    where = "on" if top in on_path else "off"
    return Miss(q, "ranking", f"{got} ({where} the gold path) scores {s.get(top, 0.0):.4g} > best gold "
                f"{best_gold:.4g}; gold path reaches {len(on_path)} answers, {share:.0%} gold")


def summarise(misses: Sequence[Miss], ceiling_path: np.ndarray, ceiling_hops: np.ndarray,
              path_acc: float, top1: np.ndarray | None = None) -> dict[str, float]:
    """Per-hop numbers: Hits@1, both ceilings, path accuracy and each cause's share; with
    ``top1`` (:func:`~skbsearch.benchmarks.metaqa.protocol.reachable`'s random-pick Hits@1
    on the gold path) also the ambiguous / decidable split (:func:`ambiguity_split`)."""
    n = max(len(misses), 1)
    causes = Counter(m.cause for m in misses if m.cause is not None)
    out = {
        "n_questions": float(len(misses)),
        "hits@1": sum(m.cause is None for m in misses) / n,
        "ceiling_path": float(np.mean(ceiling_path)) if len(ceiling_path) else 0.0,
        "ceiling_hops": float(np.mean(ceiling_hops)) if len(ceiling_hops) else 0.0,
        "path_acc": path_acc,
    }
    out["gap_hops"] = out["ceiling_hops"] - out["hits@1"]
    for c in CAUSES:
        out[c] = causes.get(c, 0) / n
    out["kb gap (within h hops)"] = sum(m.cause == "kb gap" and m.within_hops for m in misses) / n
    if top1 is not None and len(misses):
        hits = np.array([m.cause is None for m in misses], float)
        out.update(ambiguity_split(hits, np.asarray(ceiling_path, bool), top1))
    return out


def kfold_misses(
    skb: SKB,
    linker: NameLinker,
    questions: dict[int, list[MetaQAQuestion]],
    k: int = 5,
    *,
    top_paths: int = 3,
    backoff: bool = False,
    cache_dir: Any = None,
    model_factory: Callable[[list[MetaQAQuestion]], RelationPathModel] | None = None,
    retriever_factory: Callable[[RelationPathModel], RelationPathRetriever] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[dict[str, dict[str, float]], list[Miss]]:
    """K-fold held-out classification of every question of every hop.

    Args:
        skb, linker: the MetaQA KB and its linker.
        questions: hop -> questions with qtypes (all of dev).
        k: folds (by :func:`fold_of`).
        model_factory: trains the path model on the other folds (default
            :func:`~skbsearch.benchmarks.metaqa.protocol.train_path_model`, cached).
        retriever_factory: the stage for a trained model (default: the benchmark's
            ``RelationPathRetriever`` with ``top_paths``).
        backoff: as ``skb bench metaqa`` (graph pipeline) does by default: fit the stage's
            back-off paths on the training folds
            (:func:`~skbsearch.benchmarks.metaqa.protocol.fit_backoff`) and, when they too
            reach nothing, follow the model's next paths in order.

    Returns:
        ``{"{h}-hop": summary}`` (:func:`summarise`) and every question's :class:`Miss`.
    """
    if k < 2:
        raise InputError("need at least 2 folds", field="folds")
    say = progress or (lambda stage, done, total: None)
    train_model = model_factory or (lambda qs: train_path_model(skb, linker, qs, cache_dir))
    make = retriever_factory or (lambda m: RelationPathRetriever(
        skb, m, linker, link_mode="brackets", top_paths=top_paths, backoff=len(m.classes) if backoff else 0, k=10**9))
    fold = {h: [fold_of(q.text, k) for q in qs] for h, qs in questions.items()}
    results: dict[int, dict[int, Miss]] = {h: {} for h in questions}
    correct_path: dict[int, int] = dict.fromkeys(questions, 0)
    for f in range(k):
        train = [q for h, qs in questions.items() for q, g in zip(qs, fold[h], strict=True) if g != f]
        say(f"fold {f + 1}/{k}: train ({len(train)} questions)", f, k)
        retriever = make(train_model(train))
        if backoff:
            fit_backoff(skb, linker, retriever, train)
        for h, qs in questions.items():
            idx = [i for i, g in enumerate(fold[h]) if g == f]
            texts = [qs[i].text for i in idx]
            _, preds, scored = retriever.score(texts)
            for i, pred, (nodes, s) in zip(idx, preds, scored, strict=True):
                top_path = tuple(pred[0][0]) if pred else None
                gold_path = label_paths([qs[i].qtype or ""], skb.schema)[0]
                correct_path[h] += top_path == tuple(gold_path)
                results[h][i] = classify(retriever, linker, qs[i], top_path, nodes, s)
    say("ceilings", 0, 1)
    groups: dict[str, dict[str, float]] = {}
    every: list[Miss] = []
    for h, qs in questions.items():
        misses = [results[h][i] for i in range(len(qs))]
        gold = [answer_nodes(skb, linker, q.answers) for q in qs]
        c_path, top1 = reachable(skb, linker, qs, gold)
        c_hops, _ = reachable(skb, linker, [replace(q, qtype=None) for q in qs], gold)
        misses = [replace(m, within_hops=bool(c)) if m.cause == "kb gap" else m
                  for m, c in zip(misses, c_hops, strict=True)]
        groups[f"{h}-hop"] = summarise(misses, c_path, c_hops, correct_path[h] / max(len(qs), 1), top1)
        every += misses
    say("ceilings", 1, 1)
    return groups, every

"""Fitting the general graph stage from (query, answer node ids) pairs.

:func:`fit_kg_model` learns, from judged queries only (no benchmark labels):

1. template words of the queries (they stop counting as mentions), and aliases: words
   that name a node the answers share without saying its name ("cup" -> *Mugs*);
2. the answers' node type per query -> a target-type model;
3. for every linked anchor of every query, the metapath (up to ``max_hops`` steps) that
   best covers the query's answers (:func:`~skbsearch.retrieve.graph.metapaths.mine_metapaths`),
   or "no path" for anchors that do not lead to the answers or add nothing to the other
   anchors' constraints (:func:`_keep_constraints`) -> an anchor model (which links are real) and a metapath model over the real anchors (which words predict which
   metapath; equally good metapaths resolved by one round of hard EM);
4. whether named anchors are ever answers (if not, they are excluded);
5. the evidence weights, by grid search for MRR on a held-out quarter of the queries
   (scored with a metapath model fitted on the other three quarters);
6. its blend with the untrained stage (:mod:`~skbsearch.retrieve.graph.blend`): each
   quarter of the queries scored by models fitted on the other three and by the untrained
   stage; the blend moves off the untrained stage only as far as these held-out quarters
   support (from :data:`MIN_BLEND_QUERIES` judged queries; fewer: the fitted model alone).
   The final models are then fitted on all queries.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.backoff import learn_backoff
from skbsearch.retrieve.graph.blend import choose_blend, inner_fitted_run
from skbsearch.retrieve.graph.exact_names import bracket_mentions, normalise, strip_brackets
from skbsearch.retrieve.graph.linking import learn_aliases
from skbsearch.retrieve.graph.metapaths import Metapath, MinedPath, mine_metapaths, path_text
from skbsearch.retrieve.graph.model import (
    DEFAULT_WEIGHTS,
    FEATURES,
    KGModel,
    anchor_view,
    path_view,
)
from skbsearch.retrieve.graph.plan import Scored
from skbsearch.retrieve.graph.relpath import RelationPathModel
from skbsearch.retrieve.graph.work import GraphWork

#: fewer judged queries than this cannot validate a blend: the fitted model is used alone
MIN_BLEND_QUERIES = 12
#: at most this many training queries are scored to choose the blend (:func:`_blend_sample`)
MAX_BLEND_QUERIES = 2000
GRID = {"rel": (0.0, 1.0), "text": (0.0, 0.02, 0.1, 0.3, 1.0, 3.0), "attr": (0.0, 0.5, 1.0, 2.0),
        "type": (0.0, 0.25, 1.0)}


def _quarter(qid: str) -> int:
    return hashlib.sha1(qid.encode("utf-8")).digest()[0] % 4


def _held_out(qid: str) -> bool:
    return _quarter(qid) == 0


def _judged(retriever: GraphWork, queries: Sequence[Query], qrels: Qrels) -> list[tuple[Query, np.ndarray]]:
    skb = retriever.skb
    out = []
    for q in queries:
        docs = [d for d, g in qrels.get(q.id, {}).items() if g > 0 and skb.has_node(d)]
        if docs:
            out.append((q, np.unique(np.asarray(skb.index_of(docs), np.int64))))
    return out


def _mrr(scored: Sequence[Scored], answers: Sequence[np.ndarray], w: np.ndarray, k: int) -> float:
    total = 0.0
    for sc, ans in zip(scored, answers, strict=True):
        if not len(sc.nodes):
            continue
        rel = np.isin(sc.nodes, ans)
        if not rel.any():
            continue
        s = sc.features @ w + sc.tie
        rank = 1 + int((s > s[rel].max()).sum())
        total += 1.0 / rank if rank <= k else 0.0
    return total / max(len(scored), 1)


def tune_weights(retriever: GraphWork, scored: Sequence[Scored], answers: Sequence[np.ndarray]) -> tuple[dict[str, float], float]:
    """The grid point (:data:`GRID`) with the best MRR; ties keep the earlier point."""
    best, best_w = -1.0, dict(DEFAULT_WEIGHTS)
    has_attr = any(bool(sc.features[:, 2].any()) for sc in scored)
    for combo in itertools.product(*(GRID[f] for f in FEATURES)):
        w = dict(zip(FEATURES, combo, strict=True))
        if (w["rel"] == 0 and w["text"] == 0) or (not has_attr and w["attr"] != GRID["attr"][0]):
            continue
        m = _mrr(scored, answers, np.array(combo), retriever.k)
        if m > best + 1e-9:
            best, best_w = m, w
    return best_w, best


def fit_kg_model(
    retriever: GraphWork,
    queries: Sequence[Query],
    qrels: Qrels,
    *,
    min_recall: float = 0.5,
    min_count: int = 2,
    min_mine_conf: float = 0.1,
    tune: bool = True,
    blend_check: bool = True,
    progress: Callable[[str], None] | None = None,
) -> KGModel:
    """Learn a :class:`KGModel` for ``retriever``'s SKB from judged queries (module docstring).

    The retriever is left using the fitted model.

    Raises:
        InputError: when no query has a judged answer that is a node of the SKB.
    """
    say = progress or (lambda _m: None)
    judged = _judged(retriever, queries, qrels)
    if not judged:
        raise InputError("fit needs judged queries whose relevant documents are nodes of the SKB",
                         field="qrels")
    skb = retriever.skb
    texts = [q.text for q, _ in judged]
    answers = [a for _, a in judged]
    say(f"linking {len(texts)} training queries")
    retriever.linker.fit_background(texts)
    background = retriever.linker.exact.background
    words = [normalise(strip_brackets(t)).split() for t in texts]
    type_model, answer_types, counts = _learn_types(skb, words, answers)
    aliases, anchors = _link_with_aliases(retriever, texts, answers)
    named = [(a.node, qi) for qi, anc in enumerate(anchors) for a in anc
             if a.source in ("bracket", "exact") or a.conf >= 0.99]
    named_answers = sum(bool(np.isin(n, answers[qi])) for n, qi in named)
    exclude = named_answers < 0.1 * max(len(named), 1)
    pairs = [(qi, ai) for qi, anc in enumerate(anchors) for ai in range(len(anc))]
    say(f"mining metapaths for the {len(pairs)} (query, anchor) pairs")
    tied = _label_anchors(retriever, pairs, anchors, answers, min_recall, min_count, min_mine_conf)
    starts = [skb.type_names[int(skb.node_type_codes[anchors[qi][ai].node])] for qi, ai in pairs]
    real = [bool(t) for t in tied]
    a_views = [anchor_view(words[qi], anchors[qi][ai], ai + 1, st, bool(bracket_mentions(texts[qi])))
               for (qi, ai), st in zip(pairs, starts, strict=True)]
    p_views = [path_view(words[qi], anchors[qi][ai], st) for (qi, ai), st in zip(pairs, starts, strict=True)]
    info: dict = {"n_queries": len(judged), "n_pairs": len(pairs), "n_real_pairs": int(sum(real)),
                  "exclude_anchors": exclude, "answer_types": dict(counts.most_common(10))}
    weights = dict(DEFAULT_WEIGHTS)
    held = np.array([_held_out(q.id) for q, _ in judged])
    if tune and 8 <= held.sum() < len(held) - 8:
        keep = [k for k, (qi, _) in enumerate(pairs) if not held[qi]]
        say(f"tuning weights on {int(held.sum())} held-out queries")
        amodel, pmodel, _ = _fit_anchor_path([a_views[k] for k in keep], [p_views[k] for k in keep],
                                             [tied[k] for k in keep])
        retriever.set_model(KGModel(pmodel, amodel, type_model, answer_types, dict(DEFAULT_WEIGHTS),
                                    exclude, background, aliases=aliases))
        tq = [q for (q, _), h in zip(judged, held, strict=True) if h]
        ta = [a for a, h in zip(answers, held, strict=True) if h]
        _, scored = retriever.score(tq)
        weights, mrr = tune_weights(retriever, scored, ta)
        info["tuning"] = {"held_out": len(tq), "mrr": round(mrr, 4)}
    blend = 1.0  # too few queries to validate a blend: the fitted model alone
    if blend_check and len(judged) >= MIN_BLEND_QUERIES:
        say(f"choosing the blend with the untrained stage ({len(judged)} queries, 4 inner folds)")
        fold = _FoldFit(skb, pairs, a_views, p_views, tied, words, answers,
                        KGModel(weights=weights, exclude_anchors=exclude, background=background, aliases=aliases))
        blend, info["blend"] = _inner_blend(retriever, [q for q, _ in judged], answers, fold)
    say(f"fitting the anchor and metapath models on {len(pairs)} pairs")
    anchor_model, path_model, labels = _fit_anchor_path(a_views, p_views, tied)
    info.update(metapaths={path_text(p): c for p, c in Counter(labels).most_common(15)}, aliases=len(aliases))
    model = KGModel(path_model, anchor_model, type_model, answer_types, weights, exclude, background, info,
                    aliases, blend)
    retriever.set_model(model)
    if path_model is not None:
        model.backoff = _fit_backoff(retriever, texts, answers, path_model.classes)
        info["backoff"] = {path_text(p): [path_text(q) for q in qs] for p, qs in model.backoff.items()}
    return model


def _fit_backoff(retriever: GraphWork, texts: Sequence[str], answers: Sequence[np.ndarray],
                classes: Sequence[Metapath]) -> dict[Metapath, list[Metapath]]:
    """:func:`learn_backoff` over a :class:`~skbsearch.retrieve.graph.work.GraphWork`'s
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


def _link_with_aliases(retriever: GraphWork, texts: list[str],
                       answers: list[np.ndarray]) -> tuple[dict, list]:
    """Learn the linker's aliases from the training answers (left on ``retriever.linker``);
    the aliases as saved (``group -> [(node id, weight)]``) and each query's anchors."""
    retriever.linker.aliases = {}
    first = retriever.linker.link_many(texts)
    retriever.linker.aliases = learn_aliases(retriever.linker, texts, answers, first)
    ids = retriever.skb.ids
    aliases = {g: [(ids[n], round(x, 4)) for n, x in v] for g, v in retriever.linker.aliases.items()}
    return aliases, (retriever.linker.link_many(texts) if aliases else first)


@dataclass
class _FoldFit:
    """Fits the anchor, metapath and type models on some of the training queries (by index)."""

    skb: SKB
    pairs: list[tuple[int, int]]
    a_views: list[str]
    p_views: list[str]
    tied: list[tuple[Metapath, ...]]
    words: list[list[str]]
    answers: list[np.ndarray]
    template: KGModel

    def __call__(self, train: list[int]) -> KGModel:
        sub = set(train)
        ks = [k for k, (qi, _) in enumerate(self.pairs) if qi in sub]
        am, pm, _ = _fit_anchor_path([self.a_views[k] for k in ks], [self.p_views[k] for k in ks],
                                     [self.tied[k] for k in ks])
        tm, at, _ = _learn_types(self.skb, [self.words[i] for i in train], [self.answers[i] for i in train])
        return replace(self.template, path_model=pm, anchor_model=am, type_model=tm, answer_types=at)


def _blend_sample(queries: list[Query]) -> list[int]:
    """The training queries a blend is judged on: all of them, or :data:`MAX_BLEND_QUERIES`
    chosen by query-id hash (the inner fits still use every other query), so the check's
    scoring cost stays bounded on large training sets."""
    if len(queries) <= MAX_BLEND_QUERIES:
        return list(range(len(queries)))
    key = [hashlib.sha1(q.id.encode("utf-8")).digest()[1:5] for q in queries]
    return sorted(sorted(range(len(queries)), key=key.__getitem__)[:MAX_BLEND_QUERIES])


def _inner_blend(retriever: GraphWork, queries: list[Query], answers: list[np.ndarray],
                 fold_model: Callable[[list[int]], KGModel]) -> tuple[float, dict]:
    """The blend strength with the untrained stage (:func:`~skbsearch.retrieve.graph.blend.
    choose_blend`), each judged training query (:func:`_blend_sample`) scored by a model
    fitted on the other three quarters (by query-id hash) and by the untrained stage."""
    ids = retriever.skb.ids_array
    sample = _blend_sample(queries)
    judged = [queries[i] for i in sample]
    truth = {queries[i].id: set(ids[answers[i]].tolist()) for i in sample}
    parts = [_quarter(q.id) for q in queries]

    def fit_and_run(test: list[int]) -> Run:
        held = {i for i in range(len(queries)) if parts[i] == parts[sample[test[0]]]}
        retriever.set_model(fold_model([i for i in range(len(queries)) if i not in held]))
        return retriever([judged[j] for j in test])

    fitted = inner_fitted_run(judged, [parts[i] for i in sample], fit_and_run)
    plain = retriever.untrained()(judged)  # the cached untrained twin
    scored = [j for j, q in enumerate(judged) if q.id in fitted]
    return choose_blend(plain, fitted, {judged[j].id: truth[judged[j].id] for j in scored}, retriever.k,
                        [parts[sample[j]] for j in scored])


def _learn_types(skb: SKB, words: list[list[str]], answers: list[np.ndarray]
                 ) -> tuple[RelationPathModel | None, list[str], Counter[str]]:
    """The target-type model (``None`` when every answer has one type), the answer types
    seen in at least 1 % of the queries, and the per-query majority type counts."""
    codes, names = skb.node_type_codes, skb.type_names
    labels = [names[Counter(codes[a].tolist()).most_common(1)[0][0]] for a in answers]
    counts = Counter(labels)
    answer_types = [t for t, c in counts.most_common() if c >= 0.01 * len(labels)]
    model = None
    if len(counts) > 1:
        model = RelationPathModel(solver="numpy").fit([" ".join(w) for w in words], [(t,) for t in labels])
    return model, answer_types, counts


def _label_anchors(retriever: GraphWork, pairs: list[tuple[int, int]], anchors: list,
                   answers: list[np.ndarray], min_recall: float, min_count: int,
                   min_mine_conf: float) -> list[tuple[Metapath, ...]]:
    """Per (query, anchor) pair: the equally best metapaths to the answers (empty: no path).

    Weak links (not bracketed, confidence below ``min_mine_conf``) are not mined; a metapath
    mined fewer than ``min_count`` times cannot be learned from words and counts as none;
    anchors that add nothing to the others' constraints are dropped (:func:`_keep_constraints`).
    """
    skb = retriever.skb
    mine = [k for k, (qi, ai) in enumerate(pairs)
            if anchors[qi][ai].source == "bracket" or anchors[qi][ai].conf >= min_mine_conf]
    found = mine_metapaths(retriever.tg, [anchors[pairs[k][0]][pairs[k][1]].node for k in mine],
                           [answers[pairs[k][0]] for k in mine], max_hops=retriever.planner.max_hops,
                           min_recall=min_recall)
    mined = [MinedPath((skb.type_names[int(skb.node_type_codes[anchors[qi][ai].node])],), 0.0, 0.0)
             for qi, ai in pairs]
    for k, m in zip(mine, found, strict=True):
        mined[k] = m
    seen = Counter(p for m in mined for p in m.tied)
    tied = [tuple(p for p in m.tied if seen[p] >= min_count) for m in mined]
    return _keep_constraints(retriever, pairs, anchors, tied, answers)


def _f1(reached: np.ndarray, answers: np.ndarray) -> float:
    hit = int(np.isin(reached, answers).sum())
    return 2.0 * hit / (len(reached) + len(answers)) if hit else 0.0


def _keep_constraints(retriever: GraphWork, pairs: list[tuple[int, int]], anchors: list,
                      tied: list[tuple[Metapath, ...]], answers: list[np.ndarray],
                      min_gain: float = 0.01) -> list[tuple[Metapath, ...]]:
    """Keep, per query, only the anchors whose metapaths pin the answers down together.

    Greedy forward selection: the anchor whose reached set matches the answers best (F1),
    then, while it raises F1 by at least ``min_gain``, the anchor whose reached set
    intersected with the current one does. An anchor that reaches the answers only through
    a generic path ("films of the same genre as *Movie Movie*") adds nothing and becomes
    "no path"; a brand, a category and a colour that each narrow a product query all stay.
    """
    by_query: dict[int, list[int]] = {}
    for k, (qi, _) in enumerate(pairs):
        if tied[k]:
            by_query.setdefault(qi, []).append(k)
    out = list(tied)
    tg = retriever.tg
    for qi, ks in by_query.items():
        if len(ks) < 2:
            continue
        reach = {k: tg.follow(anchors[qi][pairs[k][1]].node, tied[k][0], no_return=retriever.no_return,
                              max_frontier=retriever.max_frontier) for k in ks}
        left = sorted(ks, key=lambda k: -_f1(reach[k], answers[qi]))
        current, best = reach[left[0]], _f1(reach[left[0]], answers[qi])
        left = left[1:]
        while left:
            gains = [(_f1(np.intersect1d(current, reach[k]), answers[qi]), k) for k in left]
            f, k = max(gains)
            if f < best + min_gain:
                break
            current, best = np.intersect1d(current, reach[k]), f
            left.remove(k)
        for k in left:
            out[k] = ()
    return out


def _fit_anchor_path(a_views: list[str], p_views: list[str], tied: list[tuple[Metapath, ...]]
                     ) -> tuple[RelationPathModel | None, RelationPathModel | None, list[Metapath]]:
    """The anchor model (real vs none), and the metapath model on the real anchors with
    ties between equally good metapaths resolved by one round of hard EM (the tied path
    the first model, fitted on the untied pairs, finds most probable)."""
    labels = [("real",) if t else ("none",) for t in tied]
    anchor_model = RelationPathModel(solver="numpy").fit(a_views, labels) if len(set(labels)) > 1 else None
    idx = [k for k, t in enumerate(tied) if t]
    if not idx:
        return anchor_model, None, []
    texts = [p_views[k] for k in idx]
    first = [tied[k][0] for k in idx]
    clear = [r for r, k in enumerate(idx) if len(tied[k]) == 1]  # ties are resolved by what these teach
    if len(clear) < len(idx) and len({first[r] for r in clear}) > 1:
        model = RelationPathModel(solver="numpy").fit([texts[r] for r in clear], [first[r] for r in clear])
    else:
        model = RelationPathModel(solver="numpy").fit(texts, first)
    if any(len(tied[k]) > 1 for k in idx):
        P = model.predict_proba(texts)
        col = {c: j for j, c in enumerate(model.classes)}
        chosen = [_most_probable(tied[k], P[r], col) for r, k in enumerate(idx)]
        if chosen != first:
            model = RelationPathModel(solver="numpy").fit(texts, chosen)
            first = chosen
    return anchor_model, model, first


def _most_probable(paths: tuple[Metapath, ...], probs: np.ndarray, col: dict[Metapath, int]) -> Metapath:
    """The first of ``paths`` most probable by ``probs`` (a row over ``col``'s classes; unknown: -1)."""
    return max(paths, key=lambda p: probs[col[p]] if p in col else -1.0)

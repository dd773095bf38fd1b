"""Why the graph stage returned a node: the anchor and metapath instance that reach it, its
own text match, the attribute bounds it meets."""

from __future__ import annotations

import numpy as np

from skbsearch.core.types import Query
from skbsearch.retrieve.graph.bounds import parse_attribute_bounds
from skbsearch.retrieve.graph.exact_names import strip_brackets
from skbsearch.retrieve.graph.metapaths import steps_of
from skbsearch.retrieve.graph.work import GraphWork


def explain_node(retriever: GraphWork, query: Query, doc_id: str) -> list[str]:
    """Evidence lines of a built graph stage (:class:`~skbsearch.retrieve.graph.work.GraphWork`)
    for ``doc_id`` as a result of ``query``."""
    skb = retriever.skb
    if not skb.has_node(doc_id):
        return []
    if retriever.model is not None and retriever.model.blend <= 0.0:
        return explain_node(retriever.untrained(), query, doc_id)
    node = int(skb.index_of(doc_id))
    got = retriever.explained_plans.get(query.text)
    if got is None:  # explain runs once per shown result: plan and walk each query once
        if len(retriever.explained_plans) >= 8:
            try:
                retriever.explained_plans.pop(next(iter(retriever.explained_plans)), None)
            except (StopIteration, RuntimeError):  # another thread changed it meanwhile
                pass
        got = retriever.explained_plans[query.text] = (retriever.plan([query.text])[0], {})
    plan, walks = got
    names = skb.column("name")
    lines = []
    followed = sorted(retriever.walks(plan, walks), key=lambda x: -x[2])
    for ai, path, prob, reached in followed:
        a = plan.anchors[ai]  # (walks: the query's, shared by its results)
        chain = None
        if bool(np.any(reached == node)):
            fronts = [np.array([a.node], np.int64)]
            fronts += [retriever.follow(a.node, path[: k + 1], walks) for k in range(1, len(path))]
            chain = retriever.tg.witness(a.node, path, node, fronts)
        if chain is None:
            continue
        hops = "".join(f" --{s}--> {names[n]}" for s, n in zip(steps_of(path), chain[1:], strict=True))
        lines.append(f"path: {names[a.node]}{hops} (query '{a.mention}', {a.source} link, p={prob:.2f})")
    bounds = parse_attribute_bounds(query.text)
    if bounds.bounds and bounds.mask(retriever.attribute, np.array([node]))[0] > 0:
        lines.append(f"attribute: {bounds.describe()}")
    toks = retriever.text_index.tokenize([strip_brackets(query.text)])[0]
    row = int(retriever.row_of_node[node])
    if toks and row >= 0:
        t = float(retriever.text_index.score_docs(toks, np.array([row]))[0])
        if t > 0:
            lines.append(f"text: BM25 {t:.2f} on its own document")
    if row >= 0 and followed:  # (the reached nodes' rows: where a word's derived forms count)
        reached_rows = retriever.row_of_node[np.unique(np.concatenate([r for *_, r in followed]))]
        extra = float(retriever.word_forms.back_off(plan.words, reached_rows[reached_rows >= 0],
                                                    np.array([row]))[0])
        if extra > 0:
            lines.append(f"text: BM25 {extra:.2f} from derived forms of words no reached node says")
    return lines

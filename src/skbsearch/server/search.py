"""Searching and explaining over HTTP: a pipeline per request, results with evidence.

Runs on a worker thread against one :class:`~skbsearch.server.snapshot.Snapshot`; the
pipeline comes from the snapshot's cache (:mod:`skbsearch.server.pipelines`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError
from skbsearch.core.types import Query
from skbsearch.server.errors import UnknownNode
from skbsearch.server.pipelines import PipelinePolicy, PipelineRequest
from skbsearch.stages.explain import explain

logger = logging.getLogger("skbsearch.server")


def _score(value: float) -> float | None:
    """A score JSON can carry (non-finite scores become ``null``)."""
    value = float(value)
    return value if math.isfinite(value) else None


def run_pipeline(stage: Any, queries: list[Query]) -> Any:
    """``stage(queries)``; a file the pipeline names that cannot be read is the client's error.

    Only a spec allowed to name files (a named pipeline, or ``--allow-spec-files``) gets
    here with one; the client is told the pipeline could not be evaluated, nothing more.
    """
    try:
        return stage(queries)
    except (OSError, InputError) as e:
        named_file = e.filename if isinstance(e, OSError) else e.file
        if named_file is None:
            raise
        logger.warning("pipeline %r could not read a file: %r", stage, e)
        raise InputError("a file named by the pipeline could not be read",
                         field="pipeline") from None


def get_pipeline(snap: Any, policy: PipelinePolicy, preq: PipelineRequest) -> Any:
    """The bound pipeline for ``preq`` on ``snap`` (cached per snapshot)."""
    return snap.pipelines.get(preq.key(), lambda: policy.build(preq, snap.context))


def warm_pipelines(snap: Any, policy: PipelinePolicy) -> None:
    """Build and run once every named pipeline of the server on ``snap`` (no deadline).

    Stages build their parts, and the indexes they share (name index, type graph, an
    enriched index), on first use; doing it here, when a snapshot loads, keeps that
    one-time work out of the first requests and their deadline. A pipeline that fails
    (a missing model file, say) is logged and left to fail on request.
    """
    for name in policy.pipelines(snap.skb.num_edges):
        preq = PipelineRequest(name)
        try:
            run_pipeline(get_pipeline(snap, policy, preq), [Query("warm", "warm up")])
            snap.pipelines.measure(preq.key())
        except Exception as e:  # noqa: BLE001 - a named pipeline must not stop the service
            logger.warning("named pipeline %r could not be prepared: %r", name, e)


def run_search(snap: Any, policy: PipelinePolicy, preq: PipelineRequest, texts: Sequence[str],
               *, evidence: int, evidence_budget: int, batch: bool) -> dict[str, Any]:
    """``POST /search``: the top ``preq.k`` hits of every query, with evidence lines.

    Evidence (at most ``evidence`` lines from each explaining stage) is computed for the
    first ``evidence_budget`` hits of the response, in order; later hits get none.
    """
    skb = snap.skb
    stage = get_pipeline(snap, policy, preq)
    queries = [Query(f"q{j}", t) for j, t in enumerate(texts)]
    run = run_pipeline(stage, queries)
    snap.pipelines.measure(preq.key())  # its parts are built now: count them in the budget
    names, codes = skb.column("name"), skb.node_type_codes
    budget = evidence_budget if evidence > 0 else 0
    results = []
    for q in queries:
        check_deadline()
        hits = []
        for rank, (doc, score) in enumerate(run.ranked(q.id)[: preq.k], start=1):
            known = skb.has_node(doc)
            i = int(skb.index_of(doc)) if known else -1
            ev: list[str] = []
            if known and budget > 0:
                ev = explain(stage, q, doc, max_lines=evidence)
                budget -= 1
            hits.append({"rank": rank, "id": doc, "score": _score(score),
                         "name": names[i] if known else None,
                         "type": skb.type_names[int(codes[i])] if known else None,
                         "evidence": ev})
        results.append({"query": q.text, "hits": hits})
    return {"retriever": preq.retriever if preq.pipeline is None else None,
            "pipeline": repr(stage), "snapshot": snap.identity,
            "results": results if batch else results[0]}


def explain_node(snap: Any, policy: PipelinePolicy, preq: PipelineRequest, text: str,
                 node_id: str, *, evidence: int) -> dict[str, Any]:
    """``POST /explain``: where ``node_id`` ranks for ``text`` under a pipeline, and why.

    ``rank`` and ``score`` are ``null`` when the pipeline does not return the node;
    the evidence lines are given either way.

    Raises:
        UnknownNode: ``node_id`` is not in the SKB (404).
    """
    skb = snap.skb
    if not skb.has_node(node_id):  # a dict lookup: ids never reach the file system
        raise UnknownNode(node_id)
    stage = get_pipeline(snap, policy, preq)
    q = Query("q0", text)
    ranked = run_pipeline(stage, [q]).ranked("q0")
    snap.pipelines.measure(preq.key())
    rank = score = None
    for r, (doc, s) in enumerate(ranked, start=1):
        if doc == node_id:
            rank, score = r, _score(s)
            break
    node = skb.node(node_id)
    above = ranked[rank - 2] if rank and rank > 1 else None
    return {"query": text, "id": node_id, "name": node.name, "type": node.type,
            "pipeline": repr(stage), "rank": rank, "score": score, "retrieved": len(ranked),
            "above": {"id": above[0], "score": _score(above[1])} if above else None,
            "evidence": explain(stage, q, node_id, max_lines=evidence),
            "snapshot": snap.identity}

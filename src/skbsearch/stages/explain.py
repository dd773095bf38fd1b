"""Why a pipeline returned a node: evidence lines from the stages that can tell.

Registered stages that know why they scored a node implement ``explain(query, doc_id)``
(BM25: matching document lines; graph-aware retrieval: the linked anchor and relation
path, attribute bounds, its own text). :func:`explain` collects those lines for one
result of a whole pipeline (fusions and chains included); when no stage can explain,
it falls back to the node document's lines that share most terms with the query. The
CLI (``skb search --pipeline``) and the HTTP service share it.
"""

from __future__ import annotations

from typing import Any

from skbsearch.core.operators import Pipeline
from skbsearch.core.stage import SpecStage
from skbsearch.core.types import Query


def explainers(stage: Any) -> list[SpecStage]:
    """Registered stages of a pipeline (fusion children included) that can explain a result."""
    parts = stage.stages if isinstance(stage, Pipeline) else [stage]
    out: list[SpecStage] = []
    for p in parts:
        if not isinstance(p, SpecStage):
            continue
        kids = getattr(p, "children", None)
        if kids:
            for c in kids:
                out.extend(explainers(c))
        elif type(p).explain is not SpecStage.explain or (
                p.inner is not p and hasattr(p.inner, "explain")):
            out.append(p)
    return out


def _context(stage: Any) -> Any:
    """The :class:`~skbsearch.stages.context.StageContext` of the first bound stage, if any."""
    parts = stage.stages if isinstance(stage, Pipeline) else [stage]
    for p in parts:
        ctx = getattr(p, "context", None)
        if ctx is not None:
            return ctx
        for c in getattr(p, "children", ()) or ():
            ctx = _context(c)
            if ctx is not None:
                return ctx
    return None


def explain(stage: Any, query: Query, doc_id: str, *, max_lines: int = 2,
            fallback: bool = True) -> list[str]:
    """Evidence lines for why ``stage`` (a bound pipeline) returned ``doc_id`` for ``query``.

    Args:
        stage: a pipeline built by :func:`skbsearch.stages.pipeline` (bound to an SKB).
        query: the query it ran.
        doc_id: a node id it returned.
        max_lines: at most this many lines from each explaining stage.
        fallback: with no line from any stage, the node document's best-matching lines.

    Returns:
        Lines such as ``"path: A --has_brand--> B (linked from the query, 1.00)"``,
        ``"attribute: rating >= 4"`` or ``"text: …"``, without duplicates.
    """
    if max_lines <= 0:
        return []
    lines: list[str] = []
    for ex in explainers(stage):
        lines.extend(ex.explain(query, doc_id)[:max_lines])
    if not lines and fallback:
        lines = _document_lines(stage, query, doc_id, max_lines)
    return list(dict.fromkeys(lines))


def _document_lines(stage: Any, query: Query, doc_id: str, max_lines: int) -> list[str]:
    from skbsearch.retrieve.sparse import evidence_lines

    ctx = _context(stage)
    if ctx is None or not ctx.kb.has_node(doc_id):
        return []
    body = "\n".join(ctx.doc_text(doc_id).split("\n")[1:])  # drop the "type: name" header
    return evidence_lines(query.text, body, None, max_lines=max_lines)

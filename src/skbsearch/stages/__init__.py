"""Named stages and the pipeline language shared by Python, the CLI, HTTP and benchmarks.

Every retriever, fusion and re-ranker is registered by name with typed parameters, a
one-line doc and a ``repr`` that prints back as the spec that builds it::

    from skbsearch.stages import pipeline
    p = pipeline("bm25(k=200) + dense(k=200) >> cross-encoder(model='ce/') % 10", kb)
    run = p.run(["waterproof hiking jacket"])

The same objects come from the Python operators::

    from skbsearch.stages import stage
    p = (stage("bm25", k=200) + stage("dense", k=200)) >> stage("cross-encoder", model="ce/") % 10

Adding a stage = one class (a :class:`SpecStage` with ``name``, ``Params``, ``build`` and
``__call__``) decorated with :func:`register_stage`, in the module of its capability
(``retrieve/*``, ``rerank/*``; operators here) imported below: the retriever or re-ranker is
the stage.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skbsearch.core.registry import available_stages, describe, get_stage, register_stage
from skbsearch.core.stage import SpecStage
from skbsearch.kb.store import SKB
from skbsearch.rerank import (  # noqa: F401 - registrations (a stage is its class)
    cross_encoder,
    cross_encoder_ft,
    gnn_reranker,
    gnn_row,
    llm,
)
from skbsearch.retrieve import constrained, dense, sparse  # noqa: F401 - registrations (a stage is its class)
from skbsearch.retrieve.graph import retriever  # noqa: F401 - registration
from skbsearch.stages import (  # noqa: F401 - registrations
    corpus,
    fusion,
)
from skbsearch.stages.base import bind, fit, prepare
from skbsearch.stages.context import StageContext
from skbsearch.stages.grammar import parse_spec
from skbsearch.stages.spec import build, parse


def _context(kb: SKB | str | Path | StageContext | None) -> StageContext | None:
    if kb is None or isinstance(kb, StageContext):
        return kb
    return StageContext(kb)


def pipeline(spec: str | Any, kb: SKB | str | Path | StageContext | None = None) -> Any:
    """A pipeline from a spec string (or stage objects), bound to ``kb`` when given."""
    ctx = _context(kb)
    obj = parse(spec, ctx) if isinstance(spec, str) else spec
    return bind(obj, ctx) if ctx is not None else obj


def stage(name: str, /, **params: Any) -> SpecStage:
    """One registered stage by name with parameters (``stage("bm25", k=200)``)."""
    return get_stage(name)(None, **params)


__all__ = [
    "SpecStage",
    "StageContext",
    "available_stages",
    "bind",
    "build",
    "describe",
    "fit",
    "get_stage",
    "parse",
    "parse_spec",
    "pipeline",
    "prepare",
    "register_stage",
    "stage",
]

"""A pipeline spec fitted for MetaQA (``skb bench metaqa --pipeline SPEC``).

The pipeline runs on the MetaQA SKB; its trainable stages (e.g. the graph stage) are
fitted on the training questions and their answer nodes only, without the question-type
labels. A fitted single stage that can save its model (``graph``) is cached under the
cache directory, keyed by the spec, the training data and skbsearch's source code.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.metaqa.protocol import (
    MetaQAQuestion,
    answer_nodes,
    cache_root,
    content_digest,
)
from skbsearch.core.stage import SpecStage
from skbsearch.core.types import Qrels, Query
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.exact_names import strip_brackets
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.stages import fit, pipeline
from skbsearch.stages.context import StageContext


def training_data(skb: SKB, linker: NameLinker, questions: Sequence[MetaQAQuestion],
                  brackets: bool = True) -> tuple[list[Query], Qrels]:
    """Judged queries from MetaQA questions: answer names -> answer nodes (no qtype)."""
    ids = skb.ids
    queries = [Query(q.id, q.text if brackets else strip_brackets(q.text)) for q in questions]
    qrels = Qrels({q.id: {ids[n]: 1 for n in answer_nodes(skb, linker, q.answers)} for q in questions})
    return queries, qrels


def spec_stage(skb: SKB, linker: NameLinker, spec: str, train: Sequence[MetaQAQuestion], *,
               brackets: bool = True, cache_dir: str | Path | None = None,
               report: Callable[[str, int, int], None] | None = None) -> tuple[Any, dict[str, Any]]:
    """The pipeline of ``spec`` on ``skb``, fitted on ``train``; and what to record of it."""
    say = report or (lambda stage, done, total: None)
    ctx = StageContext(skb, notify=lambda msg: None)
    stage = pipeline(spec, ctx)
    info: dict[str, Any] = {"spec": spec, "n_train": len(train)}
    if not _trainable(stage):
        return stage, info
    queries, qrels = training_data(skb, linker, train, brackets)
    # A chain whose only trainable part is its first stage (e.g. ``graph >> llm``) fits and
    # caches that stage alone: the same model as ``--pipeline graph``, reused across runs.
    target = _first_trainable(stage)
    cached = _cache_dir(target, queries, qrels, cache_dir)
    if cached is not None and (cached / "model.json").is_file():
        target.params.model = str(cached)
        info["model"] = str(cached)
        return stage, info
    say(f"fit {spec} ({len(queries)} questions)", 0, 1)
    fit(target, queries, qrels)
    say(f"fit {spec} ({len(queries)} questions)", 1, 1)
    if cached is not None:
        target.save_model(cached)
        info["model"] = str(cached)
    fitted = getattr(target, "fitted", None)
    if fitted is not None:
        info["fit"] = fitted.info
    return stage, info


def _trainable(stage: Any) -> bool:
    parts = getattr(stage, "stages", [stage])
    return any(isinstance(p, SpecStage) and p.trainable for p in parts)


def _first_trainable(stage: Any) -> Any:
    """The first stage of a chain when no later part is trainable, else ``stage`` itself."""
    parts = getattr(stage, "stages", None)
    if not parts or not isinstance(parts[0], SpecStage):
        return stage
    if any(isinstance(p, SpecStage) and p.trainable for p in parts[1:]):
        return stage
    return parts[0]


#: the skbsearch package directory (this file is skbsearch/benchmarks/metaqa/spec.py)
_PACKAGE = Path(__file__).resolve().parents[2]


@functools.cache
def _source_digest() -> str:
    """A digest of every ``.py`` of the installed skbsearch package (once a process)."""
    return content_digest(*(f"{f.relative_to(_PACKAGE)}\n".encode() + f.read_bytes()
                            for f in sorted(_PACKAGE.rglob("*.py"))))


def _code_digest(stage: Any) -> str:
    """The code a fitted model depends on: skbsearch's source, plus the module of a stage class
    defined elsewhere (a plugin). A fitted model cached by older code is not reused once the
    code changes (a cache keyed by the spec and the data alone served a model fitted before the
    graph fit's blend check, and its numbers, for a day)."""
    try:
        own = Path(inspect.getfile(type(stage))).resolve()
    except (TypeError, OSError):  # a class defined in __main__ (a notebook): skbsearch's source
        own = None
    if own is None or _PACKAGE in own.parents or not own.is_file():
        return _source_digest()
    return content_digest(_source_digest().encode(), own.read_bytes())


def _cache_dir(stage: Any, queries: list[Query], qrels: Qrels, cache_dir: str | Path | None) -> Path | None:
    """Where a fitted single stage with ``save_model`` is cached (``None``: not cacheable)."""
    if not isinstance(stage, SpecStage) or not hasattr(stage, "save_model"):
        return None
    key = content_digest(repr(stage).encode(), str(getattr(stage, "model_format", "")).encode(),
                         _code_digest(stage).encode(), *(
        f"{q.text}\t{json.dumps(sorted(qrels.get(q.id, {})))}".encode() for q in queries))
    return cache_root(cache_dir) / "metaqa" / f"{stage.name}-{key}"

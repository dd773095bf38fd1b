"""Input and filter stages: a saved TREC run as a stage (``run(path=...)``), and ``filter``
(types and an attribute predicate over the incoming candidates)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.core.registry import register_stage
from skbsearch.core.stage import Context, SpecStage
from skbsearch.core.types import Query, Run
from skbsearch.retrieve.filters import NodeFilter


@register_stage
class SavedRunStage(SpecStage):
    """A saved TREC run file as a stage (first stage, or to fuse with live stages)."""

    name = "run"
    category = "input"

    @dataclass
    class Params:
        path: str = field(metadata={"help": "TREC run file (qid Q0 doc rank score tag)"})

    def build(self, context: Context | None) -> Any:
        return _RunFile(Run.from_trec(self.params.path))

    @property
    def inner(self) -> Any:
        if self._built is None:
            self._built = self.build(self.context)
        return self._built


class _RunFile:
    def __init__(self, run: Run) -> None:
        self.run = run

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        return Run({q.id: dict(self.run.get(q.id, {})) for q in queries}, name=self.run.name)


@register_stage
class FilterStage(SpecStage):
    """Keep the incoming candidates whose node has one of ``types`` and passes ``where``."""

    name = "filter"
    category = "filter"

    @dataclass
    class Params:
        types: tuple[str, ...] = ()
        where: str | None = None

    def build(self, context: Context) -> Any:
        flt = NodeFilter(self.params.types, self.params.where)
        allowed = np.zeros(context.kb.num_nodes, dtype=bool)
        allowed[flt.node_indices(context.kb)] = True
        kb = context.kb

        def keep(queries: Sequence[Query], run: Run | None = None) -> Run:
            if run is None:
                raise InputError("filter narrows a run: put a retriever before it",
                                 field="pipeline")
            out = Run()
            for q in queries:
                out[q.id] = {d: s for d, s in run.get(q.id, {}).items()
                             if kb.has_node(d) and allowed[int(kb.index_of(d))]}
            return out

        return keep

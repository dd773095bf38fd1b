"""The stage protocol and its composition operators (PyTerrier's ``>>``, ``%`` and ``+``).

A *stage* is any object with ``__call__(queries, run=None) -> Run``. Retrievers ignore
``run`` (or use it as a candidate filter), re-rankers re-score it.

(This module was ``skbsearch.pipeline`` until the front door's ``skbsearch.pipeline``
became the function that builds a pipeline from a spec.)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from skbsearch.core.deadline import check_deadline
from skbsearch.core.types import Query, Run, as_queries

#: What ``a + b`` builds: reciprocal rank fusion, a registered stage of layer L2, named by
#: its import path and loaded on first use (this layer never imports the stage layer).
FUSION = "skbsearch.stages.fusion:fuse"


def load_object(path: str) -> Any:
    """The object named by ``"package.module:attribute"`` (imported on first use)."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


@runtime_checkable
class Stage(Protocol):
    """Maps many queries (and optionally a Run of candidates) to a Run."""

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run: ...


class StageBase:
    """Convenience base: ``a >> b`` chains, ``a % k`` cuts to top-k, ``.search`` for one query."""

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:  # pragma: no cover
        raise NotImplementedError

    def __rshift__(self, other: Stage) -> Pipeline:
        return Pipeline(self, other)

    def __mod__(self, k: int) -> Pipeline:
        return Pipeline(self, Cutoff(k))

    def __add__(self, other: Stage) -> Stage:
        """``a + b``: fuse the two stages' Runs (score-aware fusion, ``fuse``)."""
        fuse: Callable[[Stage, Stage], Stage] = load_object(FUSION)
        return fuse(self, other)

    def run(self, queries, run: Run | None = None) -> Run:  # noqa: ANN001 - accepts many forms
        """Call the stage on queries given as ``Query`` objects, strings or ``{id: text}``."""
        return self(as_queries(queries), run)

    def search(self, text: str, k: int = 10) -> list[tuple[str, float]]:
        """Single-query helper: the top-k ``(doc_id, score)`` pairs for ``text``."""
        return self([Query("q0", text)]).ranked("q0")[:k]


class Cutoff(StageBase):
    """Keep the top ``k`` candidates of every query."""

    def __init__(self, k: int) -> None:
        if k < 0:
            raise ValueError("cut-off k must be >= 0")
        self.k = k

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        if run is None:
            raise ValueError("Cutoff needs a run from a previous stage")
        return run.top(self.k)

    def __repr__(self) -> str:
        return f"% {self.k}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Cutoff) and other.k == self.k

    __hash__ = None  # type: ignore[assignment]


class FunctionStage(StageBase):
    """Wrap a plain function ``f(queries, run) -> Run`` as a stage."""

    def __init__(self, fn: Callable[[Sequence[Query], Run | None], Run], name: str | None = None):
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "fn")

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        return self.fn(queries, run)

    def __repr__(self) -> str:
        return f"FunctionStage({self.name})"


class Pipeline(StageBase):
    """Stages applied in order; each gets the previous stage's Run."""

    def __init__(self, *stages: Stage) -> None:
        flat: list[Stage] = []
        for s in stages:
            flat.extend(s.stages if isinstance(s, Pipeline) else [s])
        if not flat:
            raise ValueError("a Pipeline needs at least one stage")
        self.stages = flat

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        queries = list(queries)
        for stage in self.stages:
            check_deadline()
            run = stage(queries, run)
        assert run is not None
        return run

    def evidence(self) -> tuple[str, ...]:
        """Its first stage's evidence when the rest only cut the list (``graph % 20``), else
        none known (a re-ranker's scores are its own)."""
        if all(isinstance(s, Cutoff) for s in self.stages[1:]):
            return tuple(getattr(self.stages[0], "evidence", tuple)())
        return ()

    def __repr__(self) -> str:
        parts = []
        for i, s in enumerate(self.stages):
            if isinstance(s, Cutoff):
                parts.append(repr(s))
                continue
            r = repr(s)
            cut_next = i + 1 < len(self.stages) and isinstance(self.stages[i + 1], Cutoff)
            if cut_next and " + " in r:  # '%' binds tighter than '+'
                r = f"({r})"
            parts.append(f">> {r}")
        return " ".join(parts).removeprefix(">> ")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pipeline) and self.stages == other.stages

    __hash__ = None  # type: ignore[assignment]

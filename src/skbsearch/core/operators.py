"""The stage protocol and its composition operators (PyTerrier's ``>>``, ``%`` and ``+``).

A *stage* is any object with ``__call__(queries, run=None) -> Run``. Retrievers ignore
``run`` (or use it as a candidate filter), re-rankers re-score it.

(This module was ``skbsearch.pipeline`` until the front door's ``skbsearch.pipeline``
became the function that builds a pipeline from a spec.)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import SkbError
from skbsearch.core.frames import is_frame
from skbsearch.core.lazy import load_object
from skbsearch.core.run_lazy import LazyRun
from skbsearch.core.types import Query, Run, as_queries, as_query

#: What ``a + b`` builds (score-aware fusion, the ``fuse`` stage of layer L2): the stage layer
#: registers it here when it is imported (:func:`register_fusion`); this layer never imports it.
_FUSION: list[Callable[[Stage, Stage], Stage]] = []


def register_fusion(fuse: Callable[[Stage, Stage], Stage]) -> None:
    """Make ``fuse(a, b)`` what ``a + b`` builds (:mod:`skbsearch.stages.fusion` calls this
    when it is imported, as a stage registers itself with its name)."""
    _FUSION[:] = [fuse]


#: What ``pipeline.explain(query, doc_id)`` calls: the stage layer's evidence collector.
EXPLAIN = "skbsearch.stages.explain:explain"


def _any_queries(call: Callable[..., Any]) -> Callable[..., Any]:
    """``call`` taking queries in any shape (:func:`as_queries`) and returning a Run with a
    row for every query asked, empty when the stage found nothing (so the Run says which
    queries ran: ``evaluate`` scores those)."""
    if getattr(call, "_any_queries", False):
        return call

    @functools.wraps(call)
    def wrapper(self: Any, queries: Any, run: Run | None = None) -> Any:
        qs = as_queries(queries)
        out = call(self, qs, run)
        if isinstance(out, LazyRun):  # (its dicts stay unbuilt until read)
            out.ensure_rows(q.id for q in qs)
        elif isinstance(out, dict):
            for q in qs:
                out.setdefault(q.id, {})
        return out

    wrapper._any_queries = True  # type: ignore[attr-defined]  # a marker on the function object
    return wrapper


@runtime_checkable
class Stage(Protocol):
    """Maps many queries (and optionally a Run of candidates) to a Run."""

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run: ...


class StageBase:
    """Convenience base: ``a >> b`` chains, ``a % k`` cuts to top-k, ``.search`` for one query.

    Every subclass's ``__call__`` takes queries in any shape :func:`as_queries` reads (a
    DataFrame, strings, ``{id: text}``…) and returns a row for every query asked."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        call = cls.__dict__.get("__call__")
        if call is not None:
            cls.__call__ = _any_queries(call)  # type: ignore[method-assign]  # wraps the subclass's own, once

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:  # pragma: no cover
        raise NotImplementedError

    def __rshift__(self, other: Stage) -> Pipeline:
        return Pipeline(self, other)

    def __mod__(self, k: int) -> Pipeline:
        return Pipeline(self, Cutoff(k))

    def __add__(self, other: Stage) -> Stage:  # (Run + Run: skbsearch.core.types.Run.__add__)
        """``a + b``: fuse the two stages' Runs (score-aware fusion, ``fuse``)."""
        if not _FUSION:
            raise SkbError("'a + b' fuses with the stage layer's 'fuse' stage, which is not loaded: "
                           "import skbsearch.stages (skb.stage and skb.pipeline do) first")
        return _FUSION[0](self, other)

    def run(self, queries: Any, run: Run | None = None) -> Run:
        """The Run of ``queries`` in any shape: ``Query`` objects, strings, ``{id: text}``, a
        pandas DataFrame (``qid``/``query`` or ``id``/``text``), a ``Path`` of a query file
        (:func:`~skbsearch.core.types.as_queries`). Same as calling the stage."""
        return self(as_queries(queries), run)

    def transform(self, queries: Any, run: Run | None = None) -> Any:
        """PyTerrier's ``transform``: a DataFrame in (or any shape :meth:`run` takes), a
        DataFrame out, ``qid, query, docno, rank, score`` (``rank`` from 0, best first). A
        results frame in (with ``docno`` and ``score``, as ``transform`` gives) is the queries
        and the candidates at once, so a re-ranker or a cut-off takes what a retriever gave."""
        if run is None and is_frame(queries) and "docno" in [str(c) for c in queries.columns]:
            run = Run.from_df(queries)
            queries = queries.drop_duplicates("qid")[[c for c in ("qid", "query") if c in queries.columns]]
        qs = as_queries(queries)
        frame = self(qs, run).to_df()
        texts = {q.id: q.text for q in qs}
        frame.insert(1, "query", [texts.get(q, "") for q in frame["qid"].tolist()])
        return frame

    def explain(self, query: Query | str, doc_id: str) -> list[str]:
        """Why this pipeline returned ``doc_id`` for ``query``: the evidence lines of every
        stage that can tell (a fusion's children included), else the node's best lines."""
        return load_object(EXPLAIN)(self, as_query(query), doc_id)

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

    __hash__ = None  # type: ignore[assignment]  # None marks it unhashable (equal by value); mypy expects a method


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

    stages: list[Stage]

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

    __hash__ = None  # type: ignore[assignment]  # None marks it unhashable (equal by value); mypy expects a method

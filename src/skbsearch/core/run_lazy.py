"""A :class:`~skbsearch.core.types.Run` whose per-query dicts are built on first use.

A retrieval stage holds its results as arrays (row numbers, scores); turning them into
``{doc_id: score}`` dicts costs about a tenth of a batch's retrieval at 100K documents, and a
caller that cuts, fuses or only counts the Run may never need most of them. A
:class:`LazyRun` holds a row (an empty dict) for every query and a function that fills the
rows, called the first time the Run is read through Python in any way (an item, ``len``,
iteration, ``==``, a method, ``json.dumps``, pickling, ``repr``); it then *becomes* a plain
:class:`Run` (its class is switched), so later reads cost what a Run's do and ``type(run) is
Run``. What a reader sees is exactly what the eager Run would have held: the same keys in the
same order, the same values. Only C code that reads a dict's storage without its methods
(``dict.items(run)``, orjson) would see the rows still empty: call :meth:`LazyRun.materialize`
before handing a fresh Run to such code.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping

from skbsearch.core.types import Run

#: one Run is made real at a time (a second reader waits for the first one's dicts; re-entrant:
#: a fill that reads another LazyRun fills that one too)
_LOCK = threading.RLock()

#: every dict (and Run) method that reads or writes the contents: each makes the Run real first
_FORWARDED = (
    "__getitem__", "__setitem__", "__delitem__", "__contains__", "__iter__", "__len__",
    "__eq__", "__ne__", "__repr__", "__str__", "__reversed__", "__or__", "__ror__", "__ior__",
    "__reduce__", "__reduce_ex__", "__sizeof__", "get", "keys", "values", "items", "pop",
    "popitem", "setdefault", "update", "copy", "clear",
)


class LazyRun(Run):
    """A Run with a row for each of ``query_ids`` (in that order, each an empty dict until
    the Run is first read), filled then by ``fill(rows)``, which adds the documents of each
    query into ``rows[query id]`` (the row's own dict)."""

    __hash__ = None  # type: ignore[assignment]  # (as dict: a Run is not hashable)

    def __init__(self, query_ids: Iterable[str], fill: Callable[[Mapping[str, dict[str, float]]], None],
                 name: str = "run"):
        super().__init__(name=name)
        for qid in query_ids:
            dict.__setitem__(self, qid, {})
        self._fill: Callable[[Mapping[str, dict[str, float]]], None] | None = fill

    def ensure_rows(self, query_ids: Iterable[str]) -> None:
        """An empty row for each of ``query_ids`` not in the Run (``run.setdefault(qid, {})``),
        without filling the rows now."""
        for qid in query_ids:
            dict.setdefault(self, qid, {})

    def materialize(self) -> Run:
        """Fill the rows now (once; thread-safe) and return this Run, now a plain :class:`Run`."""
        with _LOCK:
            if type(self) is LazyRun:
                fill = self.__dict__.pop("_fill")
                fill(dict(dict.items(self)))
                self.__class__ = Run  # type: ignore[assignment]  # same layout: a dict subclass
        return self


def _forward(name: str) -> Callable[..., object]:
    def method(self: LazyRun, *args: object, **kwargs: object) -> object:
        self.materialize()
        return getattr(self, name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"``Run.{name}`` (the dicts built first)."
    return method


for _name in _FORWARDED:
    setattr(LazyRun, _name, _forward(_name))

"""The progress protocol (layer L0): ``progress(stage, done, total)``.

Anything that takes a while reports through one callback type, whatever draws it (the
CLI's rich bars, :func:`skbsearch.cli.output.stage_progress`; a log; nothing)::

    def build(..., progress: Progress = no_progress) -> ...:
        for i, x in enumerate(xs, start=1):
            ...
            progress("embedding", i, len(xs))

A stage named ``"name (detail)"`` is the same stage with a changing detail (the CLI keeps
one bar for it). :func:`counter` and :func:`scoped` adapt the protocol to code that counts
items or reports ``(done, total)`` only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable


@runtime_checkable
class Progress(Protocol):
    """Report that ``done`` of ``total`` units of ``stage`` are finished."""

    def __call__(self, stage: str, done: int, total: int) -> None: ...


#: The same protocol as a plain callable type (for annotations that want one).
ProgressFn = Callable[[str, int, int], None]


def no_progress(stage: str, done: int, total: int) -> None:
    """A :class:`Progress` that reports nothing."""
    return None


def scoped(progress: ProgressFn | None, stage: str) -> Callable[[int, int], None] | None:
    """A ``(done, total)`` callback reporting as ``stage`` (``None`` when ``progress`` is)."""
    if progress is None:
        return None
    return lambda done, total: progress(stage, done, total)


def counter(progress: ProgressFn | None, stage: str, total: int) -> Callable[[int], None]:
    """A callback adding ``n`` finished units per call and reporting the running count."""
    done = [0]

    def add(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress(stage, done[0], total)

    return add

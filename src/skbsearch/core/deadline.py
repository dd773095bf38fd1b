"""Cooperative deadlines: long loops stop when the work they belong to runs out of time.

A caller (the HTTP service, for one request) runs work inside :func:`deadline`; the long
loops of stages, index builds and enrichers call :func:`check_deadline` now and then (a
context-variable read and a clock read: ~100 ns), which raises
:class:`~skbsearch.core.errors.DeadlineExceeded` once the time is up or the work was cancelled.
The exception unwinds the work, so what it built is dropped and its memory freed. Without
an active deadline :func:`check_deadline` does nothing, so library and CLI use is
unaffected::

    with deadline(30.0) as d:         # d.cancel() from another thread stops it early too
        run = pipeline(queries)
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from skbsearch.core.errors import DeadlineExceeded


class Deadline:
    """A point in time after which work should stop, and a cancel flag.

    Args:
        seconds: the time allowed (``None``: no time limit, cancel only).
        start: count the time from now; else from :meth:`start` (e.g. when queued work
            begins to run), and only cancelling stops it until then.
    """

    def __init__(self, seconds: float | None, *, start: bool = True) -> None:
        self.seconds = seconds
        self.expires = float("inf")
        self.started = False
        self._cancelled = threading.Event()
        if start:
            self.start()

    def start(self) -> None:
        """Start counting the time (once; later calls do nothing)."""
        if not self.started:
            self.started = True
            if self.seconds is not None:
                self.expires = time.monotonic() + self.seconds

    def cancel(self) -> None:
        """Stop the work at its next check (thread-safe)."""
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._cancelled.is_set()

    def remaining(self) -> float:
        """Seconds left (negative once expired; ``inf`` without a time limit)."""
        return self.expires - time.monotonic()

    def check(self) -> None:
        """Raise :class:`DeadlineExceeded` if the time is up or the work was cancelled."""
        if self._cancelled.is_set():
            raise DeadlineExceeded(self.seconds, "was cancelled")
        if time.monotonic() > self.expires:
            raise DeadlineExceeded(self.seconds)


_current: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar(
    "skbsearch_deadline", default=None)


@contextmanager
def deadline(limit: float | Deadline | None) -> Iterator[Deadline]:
    """Run the ``with`` block under a deadline (seconds from now, or a :class:`Deadline`)."""
    d = limit if isinstance(limit, Deadline) else Deadline(limit)
    token = _current.set(d)
    try:
        yield d
    finally:
        _current.reset(token)


def current_deadline() -> Deadline | None:
    """The deadline the running code is under, if any."""
    return _current.get()


def check_deadline() -> None:
    """Raise :class:`DeadlineExceeded` if the current work's deadline passed (else nothing)."""
    d = _current.get()
    if d is not None:
        d.check()

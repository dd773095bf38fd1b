"""Worker lanes by cost class, each bounded, and a deadline on every job.

Work runs off the event loop on one of three thread pools (``light``, ``normal``,
``heavy``; the class comes from :mod:`skbsearch.server.budget`), so a queue of expensive
requests never delays a cheap one. Each pool refuses new work when ``max_pending`` jobs
are running or queued in it (503). Every job runs under a
:class:`~skbsearch.core.deadline.Deadline` of ``request_timeout`` seconds from the moment it
starts to run (the queue is bounded by ``max_pending`` instead): a running job stops at the
next :func:`~skbsearch.core.deadline.check_deadline` of its stages, and the response does not
wait more than :data:`GRACE` seconds past the deadline even for a stage that does not
check (504; the work is cancelled at its next check). A client that goes away cancels its
job, queued (it never runs) or running.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from skbsearch.core.deadline import Deadline, deadline
from skbsearch.core.errors import DeadlineExceeded
from skbsearch.server.budget import COST_CLASSES
from skbsearch.server.limits import Limits

T = TypeVar("T")
#: Seconds past the deadline the response waits for work that has not checked it yet.
GRACE = 1.0
#: Seconds between looks at a queued or running job's deadline.
POLL = 0.25


class Busy(Exception):
    """More work is running or queued in a lane than ``Limits.max_pending`` allows."""


class BoundedExecutor:
    """A thread pool that refuses new work when ``max_pending`` jobs are running or queued."""

    def __init__(self, workers: int, max_pending: int, name: str = "skb-worker") -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._max_pending = max_pending
        self._pending = 0
        self._lock = threading.Lock()

    @property
    def pending(self) -> int:
        """Jobs running or queued now."""
        return self._pending

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        """Schedule ``fn``; raises :class:`Busy` when the queue is full."""
        with self._lock:
            if self._pending >= self._max_pending:
                raise Busy
            self._pending += 1
        try:
            future = self._pool.submit(fn)
        except BaseException:
            self._done(None)
            raise
        future.add_done_callback(self._done)
        return future

    def _done(self, _: object) -> None:
        with self._lock:
            self._pending -= 1

    def shutdown(self) -> None:
        """Stop the workers; queued jobs are cancelled."""
        self._pool.shutdown(wait=False, cancel_futures=True)


class Lanes:
    """One :class:`BoundedExecutor` per cost class, and the request deadline."""

    def __init__(self, limits: Limits) -> None:
        self._workers = {"light": limits.search_workers, "normal": limits.search_workers,
                         "heavy": limits.heavy_workers}
        self._max_pending = limits.max_pending
        self.pools = self._new_pools()
        self.timeout = float(limits.request_timeout)

    def _new_pools(self) -> dict[str, BoundedExecutor]:
        return {c: BoundedExecutor(self._workers[c], self._max_pending, f"skb-{c}")
                for c in COST_CLASSES}

    def start(self) -> Deadline:
        """A deadline for a request arriving now (its time counts once its job runs)."""
        return Deadline(self.timeout, start=False)

    async def run(self, lane: str, fn: Callable[[], T], limit: Deadline | None = None,
                  disconnected: Callable[[], Awaitable[Any]] | None = None) -> T:
        """``fn()`` on ``lane``'s pool under ``limit`` (default: a new deadline).

        Args:
            disconnected: an awaitable factory that returns when the client has gone
                (the ASGI ``receive`` after the body: ``http.disconnect``); the work is then
                cancelled at its next check, or never starts.

        Raises:
            Busy: the lane's queue is full.
            DeadlineExceeded: the deadline passed or the client went away (the work
                stops at its next check).
        """
        d = limit or self.start()

        def job() -> T:
            d.start()
            with deadline(d):
                d.check()  # cancelled while queued: do nothing
                return fn()

        work = asyncio.wrap_future(self.pools[lane].submit(job))
        gone = asyncio.ensure_future(_wait_disconnect(disconnected)) if disconnected else None
        waiting = {work, *([gone] if gone else [])}
        try:
            while True:
                wait = d.remaining() + GRACE if d.started else POLL
                done, _ = await asyncio.wait(waiting, timeout=max(0.0, min(wait, POLL)),
                                             return_when=asyncio.FIRST_COMPLETED)
                if work in done:
                    return work.result()
                if gone is not None and gone in done:
                    reason = "was cancelled: the client went away"
                elif d.started and d.remaining() < -GRACE:
                    reason = "ran past its time limit"
                else:
                    continue
                d.cancel()
                work.cancel()  # a job still queued never starts
                raise DeadlineExceeded(d.seconds, reason)
        except asyncio.CancelledError:
            d.cancel()
            raise
        finally:
            if gone is not None:
                gone.cancel()

    def shutdown(self) -> None:
        """Stop every pool (queued jobs are cancelled); fresh, idle pools replace them, so
        an app whose lifespan starts again (a test client per request) keeps working."""
        old, self.pools = self.pools, self._new_pools()
        for pool in old.values():
            pool.shutdown()


async def _wait_disconnect(receive: Callable[[], Awaitable[Any]]) -> None:
    """Return once ``receive`` reports ``http.disconnect`` (other messages are skipped)."""
    while True:
        message = await receive()
        if isinstance(message, dict) and message.get("type") == "http.disconnect":
            return
        await asyncio.sleep(0.05)  # never a busy loop, whatever the server sends

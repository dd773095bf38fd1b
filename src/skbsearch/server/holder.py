"""The snapshot being served, and the one background thread that loads newer ones
(:class:`SnapshotHolder`; a snapshot itself is :class:`skbsearch.server.snapshot.Snapshot`)."""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from skbsearch.server.errors import SnapshotChanged
from skbsearch.server.snapshot import PIPELINE_CACHE_BYTES, Snapshot, Stamp, skb_stamp

logger = logging.getLogger("skbsearch.server")

#: Seconds to wait before retrying a snapshot that failed to load (a rebuild in progress).
RETRY_AFTER_FAILURE = 1.0


class SnapshotHolder:
    """The snapshot being served; a newer build or generation on disk is loaded in the
    background and swapped in whole.

    Requests never load: :meth:`get` answers the served snapshot at once and, when the
    directory holds something newer, starts the one loader thread (if it is not running).
    :meth:`refresh` waits for the loader (``POST /admin/update`` answers only once the
    service serves what it committed: read-your-writes).

    Args:
        skb_dir: the served directory.
        cache_bytes: the pipeline cache budget of each snapshot.
        warm: called on every snapshot before it is served (in the loader, outside any
            request deadline): the server builds its named pipelines there, so the indexes
            they share are ready before the first request (see ``server.app``).
    """

    def __init__(self, skb_dir: str | Path, cache_bytes: int = PIPELINE_CACHE_BYTES,
                 warm: Callable[[Snapshot], None] | None = None) -> None:
        self.skb_dir = Path(skb_dir)
        self.cache_bytes = cache_bytes
        self._warm = warm or (lambda _snap: None)
        self._current = Snapshot.load(self.skb_dir, cache_bytes=cache_bytes)
        self._warm(self._current)
        self._current.prime()  # made now, never by a request
        self._cond = threading.Condition()
        self._loader: threading.Thread | None = None
        #: the stamp whose load failed last, when it may be retried, and when it failed
        self._failed: tuple[Stamp | None, float, float] | None = None

    @property
    def current(self) -> Snapshot:
        """The snapshot served now, without looking at the disk (no locks, no I/O)."""
        return self._current

    def changed_on_disk(self) -> bool:
        """Whether the directory holds a different build than the one served (one ``stat``)."""
        return not self._current.is_current()

    def get(self) -> Snapshot:
        """The snapshot to answer from: the served one, at once (one ``stat``, one ``listdir``).

        When the directory holds a newer build or generation, the loader thread starts (one
        at a time); the swap happens when the new snapshot is complete and warmed. A build
        that fails to load (half-written, or missing while being replaced) is logged, the old
        snapshot stays in service, and loading is retried after :data:`RETRY_AFTER_FAILURE`.
        """
        current = self._current
        stamp = skb_stamp(self.skb_dir)
        if stamp is not None and stamp != current.stamp:
            self._start_loader(stamp, force=False)
        return current

    def refresh(self, min_generation: int | None = None, timeout: float | None = None) -> Snapshot:
        """Wait until the served snapshot is what the directory holds now (or, with
        ``min_generation``, a snapshot of at least that generation), loading it in the
        background thread; returns it.

        Raises:
            SnapshotChanged: the new build could not be loaded (its error is logged), or
                ``timeout`` seconds passed first.
        """
        started = time.monotonic()
        target = skb_stamp(self.skb_dir)
        limit = float("inf") if timeout is None else started + timeout
        while True:
            current = self._current
            if _reached(current, target, min_generation):
                return current
            failed = self._failed
            if failed is not None and failed[2] >= started and failed[0] == skb_stamp(self.skb_dir):
                raise SnapshotChanged(f"{self.skb_dir}: the new generation could not be loaded")
            if time.monotonic() > limit:
                raise SnapshotChanged(f"{self.skb_dir}: the new generation is still loading")
            self._start_loader(skb_stamp(self.skb_dir), force=True)
            with self._cond:
                self._cond.wait(0.05)

    def _start_loader(self, stamp: Stamp | None, *, force: bool) -> None:
        failed = self._failed
        if not force and failed and failed[0] == stamp and time.monotonic() < failed[1]:
            return
        with self._cond:
            if self._loader is not None:
                return
            self._loader = threading.Thread(target=self._load_newest, daemon=True,
                                            name="skb-snapshot-loader")
            self._loader.start()

    def _load_newest(self) -> None:
        """The loader thread: load and swap in snapshots until the served one is the newest.

        It runs at the request threads' CPU priority: a lowered (``nice``) thread that holds
        the GIL when the OS preempts it stalls every request thread waiting for the GIL (20
        searching clients starved a +10 loader to ~5 % of a core, and updates waited minutes)."""
        try:
            while True:
                current = self._current
                stamp = skb_stamp(self.skb_dir)
                if stamp is None or stamp == current.stamp:
                    return
                try:
                    snapshot = Snapshot.load(self.skb_dir, cache_bytes=self.cache_bytes, previous=current)
                    snapshot.reuse(current)
                    self._warm(snapshot)
                    snapshot.prime()  # made here, never by a request
                except Exception as e:  # noqa: BLE001 - a half-written build must not stop the service
                    logger.warning("keeping snapshot %s: cannot load the rebuilt %s yet: %s",
                                   current.identity, self.skb_dir, e)
                    now = time.monotonic()
                    self._failed = (stamp, now + RETRY_AFTER_FAILURE, now)
                    return
                logger.info("serving snapshot %s generation %d of %s (was %s)", snapshot.identity,
                            snapshot.generation, self.skb_dir, current.identity)
                with self._cond:
                    self._current = snapshot
                    self._cond.notify_all()
                # The replaced snapshot is freed when its last request ends: nothing it holds
                # is in a reference cycle (no ``gc.collect``, a pause of every thread).
                del current, snapshot
        finally:
            with self._cond:
                self._loader = None
                self._cond.notify_all()


def _reached(snap: Snapshot, target: Stamp | None, min_generation: int | None) -> bool:
    """Whether ``snap`` is what a :meth:`SnapshotHolder.refresh` waits for: a generation of
    at least ``min_generation`` if given, else the ``target`` stamp (or a later generation
    of the same build)."""
    if min_generation is not None:
        return snap.generation >= min_generation
    if target is None or snap.stamp == target:
        return True
    return snap.stamp[:-1] == target[:-1] and snap.stamp[-1] >= target[-1]


def freeze_loaded_heap() -> int:
    """Collect what loading left behind, then move every object alive now (the first
    snapshot, its indexes and caches, the modules) out of the cyclic garbage collector's
    sight (``gc.freeze``); returns how many. ``skb serve`` calls it once, before it listens.

    A full collection scans every tracked object of the process while it holds the GIL: over
    a served 100K-node SKB (~175,000 objects) one took 0.16-0.34 s, a stall of every request,
    and the allocations of a few reloads trigger one. Frozen objects are still freed when their
    last reference goes (a replaced snapshot holds no reference cycle); later collections scan
    only what came after (a full one took 1.3 ms)."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


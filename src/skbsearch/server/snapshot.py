"""One consistent view of the SKB being served, swapped whole when the directory is rebuilt.

A :class:`Snapshot` holds one build of the SKB (detached from its directory, so nothing it
answers is read from a newer build's files) and the indexes loaded for that build. The
:class:`~skbsearch.server.holder.SnapshotHolder` checks on every request, with one ``stat`` of ``meta.json``,
whether the directory was rebuilt (``SKB.save`` replaces the whole directory, so the file
is new), and with one ``listdir`` whether a newer generation was committed (``skb kb
update``); if so a background thread loads a new snapshot (requests never do) while they
keep answering from the old one, and the reference is swapped when the new one is complete
and warmed. Requests in flight finish on the snapshot they started with.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skbsearch.core.errors import ArtefactError, SkbError
from skbsearch.index import open_index
from skbsearch.kb.generations import newest_generation
from skbsearch.kb.segments import Segment
from skbsearch.server.browse import kb_overview, overview_with_attributes
from skbsearch.server.cache import PipelineCache, estimate_bytes
from skbsearch.server.errors import IndexNotBuilt, SnapshotChanged, StaleIndex
from skbsearch.server.pipelines import SnapshotContext
from skbsearch.server.reuse import (
    carried_graph_values,
    changed_values,
    new_segments,
    unchanged_index,
)

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

logger = logging.getLogger("skbsearch.server")

Stamp = tuple[int, ...]
#: The stage-context key of the shared name index (``retrieve.graph.retriever``).
NAME_INDEX_KEY = "name-index"
#: Estimated memory of the built pipelines kept per snapshot (keyed by pipeline, filters
#: and, for aliases, k); ``skb serve --pipeline-cache-mb``.
PIPELINE_CACHE_BYTES = 256 * 2**20


def skb_stamp(skb_dir: Path) -> Stamp | None:
    """The stamp of what ``skb_dir`` holds now: its ``meta.json`` (a rebuild replaces it) and
    its newest committed generation (``skb kb update`` / ``compact`` add one), or ``None``."""
    st = read_stamp(skb_dir / "meta.json")
    return None if st is None else (*st, newest_generation(skb_dir))


def read_stamp(path: Path) -> Stamp | None:
    """``(device, inode, mtime_ns, size)`` of ``path``, or ``None`` if it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)


@dataclass
class _LoadedIndex:
    spec: Any
    index: Any
    stamp: Stamp | None


class Snapshot:
    """One build of the SKB at ``skb_dir`` and the indexes loaded for it.

    Attributes:
        skb_dir: the served directory.
        skb: the loaded SKB (graph loaded, detached from the directory).
        stamp: the ``meta.json`` stamp the SKB was loaded at.
        identity: the build's id (``build_id``/``content_hash`` from ``meta.json`` when
            present, else derived from the stamp); reported by ``/health`` and ``/kb``.
        loaded_at: Unix time the snapshot was loaded.
    """

    def __init__(self, skb_dir: Path, skb: SKB, stamp: Stamp,
                 cache_bytes: int = PIPELINE_CACHE_BYTES) -> None:
        self.skb_dir = skb_dir
        self.skb = skb
        self.stamp = stamp
        build = skb.meta.get("build_id") or skb.meta.get("content_hash")
        self.identity = str(build)[:16] if build else f"{stamp[1]:x}-{stamp[2]:x}"
        #: the SKB generation served (0: as built; see ``skbsearch.kb.generations``)
        self.generation = int(skb.meta.get("generation", 0))
        self.loaded_at = time.time()
        self._indexes: dict[str, _LoadedIndex] = {}
        self._stale: dict[str, Stamp] = {}  # kind -> manifest stamp of an index found stale
        self._index_lock = threading.Lock()
        self._context: Any = None
        self._context_lock = threading.Lock()
        self._overview: dict[str, Any] | None = None  # ``kb_info``, made on first use
        #: Pipelines built for this snapshot's requests (an LRU bounded by their estimated
        #: memory, see ``server.cache``; what the context shares is not counted).
        me = weakref.ref(self)  # no cycle through the cache: freed without ``gc.collect``
        self.pipelines = PipelineCache(cache_bytes, sizeof=lambda p: _alive(me)._pipeline_bytes(p))

    def _pipeline_bytes(self, pipeline: Any) -> int:
        """The memory a built pipeline holds beyond what the snapshot shares."""
        shared: list[Any] = [self.skb, self._context, self._indexes]
        shared += [v.index for v in list(self._indexes.values())]
        if self._context is not None:
            shared += [*self._context.shared_values(), *self._context.loaded_indexes()]
        return estimate_bytes(pipeline, exclude=shared)

    @classmethod
    def load(cls, skb_dir: Path, attempts: int = 3, cache_bytes: int = PIPELINE_CACHE_BYTES,
             previous: Snapshot | None = None) -> Snapshot:
        """Load the SKB at ``skb_dir``; retries when the directory changes during the load.
        Given the ``previous`` snapshot of the same build, a newer generation is opened from
        its SKB, only the segments since applied (``kb.live_next``; the same SKB)."""
        from skbsearch.kb.store import SKB

        for _ in range(attempts):
            before = skb_stamp(skb_dir)
            same = previous is not None and before is not None and previous.stamp[:-1] == before[:-1]
            skb = SKB.load(skb_dir, previous=previous.skb if same and previous is not None else None)
            skb.graph  # noqa: B018 - memory-map the graph now, from this build's files
            if before is not None and skb_stamp(skb_dir) == before and int(
                    skb.meta.get("generation", 0)) == before[-1]:
                # Detach: SQL then runs over the tables in memory, never over files on disk
                # that a rebuild may have replaced since.
                skb.path = None
                return cls(skb_dir, skb, before, cache_bytes)
        raise SnapshotChanged(f"{skb_dir} kept changing while it was being loaded")

    def inherit(self, old: Snapshot) -> None:
        """Seed the name index the graph stages share from ``old``'s (an earlier generation of
        the same build), caught up to this generation: only the names the new segments touch
        are tokenised (``index.bm25_live.catch_up``), not every node's. Anything that does
        not fit is left to be built as usual."""
        prev = old._context.shared_value(NAME_INDEX_KEY) if old._context is not None else None
        if prev is None or old.stamp[:-1] != self.stamp[:-1]:
            return
        try:  # caught up, checked, sharing this generation's node ids
            names = open_index(prev, self.skb, root=self.skb_dir, warm=False)
        except SkbError as e:
            logger.info("name index of %s rebuilt, not caught up: %s", self.identity, e)
            return
        self.context.shared(NAME_INDEX_KEY, lambda: names)

    def reuse(self, old: Snapshot) -> None:
        """Take over from ``old`` (an earlier generation of the same build) what this
        generation did not change (``server.reuse``): its name index (:meth:`inherit`) and
        loaded indexes caught up with the new segments only, and the graph stage's type
        graph, name tables and answer types when the segments changed attribute values
        only (the type graph also when they changed names or text but no row, type or
        edge: ``server.reuse.carried_graph_values``). What cannot be taken over is built as
        on a fresh load; the answers are the same.
        Indexes taken over are not warmed again: their query kernels, compiled for the same
        array types, are loaded in this process already (a warm-up query costs ~0.06 s at
        100K documents)."""
        if old.stamp[:-1] != self.stamp[:-1]:
            return
        try:
            segments = new_segments(old.skb, self.skb, self.skb_dir)
        except SkbError as e:
            logger.info("snapshot %s loaded whole, nothing taken over: %s", self.identity, e)
            return
        if segments is None:
            return
        changed = changed_values(old.skb, self.skb, segments)
        same = changed == set()
        if not (same and self._carry_names(old, segments)):
            self.inherit(old)
        self._inherit_indexes(old, segments if same else None)
        if changed is not None and old._context is not None:
            for key, value in carried_graph_values(old._context, self.skb, changed).items():
                self.context.shared(key, lambda v=value: v)
        if same:  # the same types, names and edges: only what reads attribute values changes
            carried = overview_with_attributes(old.kb_info, self.skb)
            carried.pop("snapshot", None)
            with self._context_lock:
                self._overview = {"snapshot": self.identity, **carried}

    def _carry_names(self, old: Snapshot, segments: list[Segment]) -> bool:
        """Take ``old``'s name index over as it is when the segments left every name as it
        was (``server.reuse.unchanged_index``); whether it was."""
        prev = old._context.shared_value(NAME_INDEX_KEY) if old._context is not None else None
        names = unchanged_index(prev, old.skb, self.skb, segments) if prev is not None else None
        if names is None:
            return False
        try:  # checked, sharing this generation's node ids (nothing to catch up)
            names = open_index(names, self.skb, root=self.skb_dir, follow=False, warm=False)
        except SkbError:
            return False
        self.context.shared(NAME_INDEX_KEY, lambda: names)
        return True

    def _inherit_indexes(self, old: Snapshot, segments: list[Segment] | None) -> None:
        """``old``'s loaded indexes caught up to this generation (only the new segments'
        documents tokenised), unless the index on disk was rebuilt since ``old`` loaded it;
        taken over as they are when ``segments`` (given when only attribute values changed)
        leave every document of theirs as it was."""
        with old._index_lock:
            loaded = dict(old._indexes)
        for kind, item in loaded.items():
            manifest = self.skb_dir / "indexes" / item.spec.index_dir_name / "manifest.json"
            if read_stamp(manifest) != item.stamp:
                continue  # rebuilt (or removed): opened from disk on first use
            same = unchanged_index(item.index, old.skb, self.skb, segments) if segments is not None else None
            try:
                # caught up with the new segments only (or taken over as it is), checked
                index = open_index(item.index if same is None else same, self.skb,
                                   root=self.skb_dir, follow=same is None, warm=False)
            except SkbError as e:
                logger.info("%s index of %s opened from disk, not caught up: %s", kind, self.identity, e)
                continue
            with self._index_lock:
                self._indexes.setdefault(kind, _LoadedIndex(item.spec, index, item.stamp))

    def prime(self) -> None:
        """Make what the first request on this snapshot would otherwise make: the ``/kb``
        overview, the SKB's id look-up and the columns a search's hits and evidence read
        (name, text fields, attributes: ``SKB.node``). The holder calls it before a swap, so
        no search pays for it (the first ``bm25`` search after a reload at 100K cost ~0.1 s
        of CPU instead of ~0.01 s)."""
        skb = self.skb
        self.kb_info  # noqa: B018
        skb.has_node("")
        for col in ("name", *skb.schema.text_fields, *skb.schema.attributes):
            skb.column(col)

    @property
    def kb_info(self) -> dict[str, Any]:
        """The ``/kb`` overview of this snapshot (``server.browse.kb_overview``), made once:
        by the loader thread before the snapshot is served, or taken over by :meth:`reuse`."""
        with self._context_lock:
            if self._overview is None:
                self._overview = {"snapshot": self.identity, **kb_overview(self.skb)}
            return self._overview

    @property
    def context(self) -> Any:
        """The stage context pipelines of this snapshot run in (its SKB, its indexes)."""
        with self._context_lock:
            if self._context is None:
                me = weakref.ref(self)  # no cycle: a replaced snapshot is freed when unused
                self._context = SnapshotContext(self.skb, lambda kind: _alive(me).index(kind)[1])
            return self._context

    def is_current(self) -> bool:
        """Whether the directory on disk still holds this snapshot's build and generation."""
        return skb_stamp(self.skb_dir) == self.stamp

    def same_build(self) -> bool:
        """Whether the directory still holds this snapshot's build (later generations of it
        leave the index files this snapshot catches up from in place)."""
        now = skb_stamp(self.skb_dir)
        return now is not None and now[:-1] == self.stamp[:-1]

    def index(self, kind: str) -> tuple[Any, Any]:
        """``(kind spec, loaded index)`` for this build.

        Raises:
            IndexNotBuilt: the build has no index of that kind.
            StaleIndex: the index was built from another SKB.
            SnapshotChanged: the directory was rebuilt and this build's index is gone
                (retry on the new snapshot).
        """
        from skbsearch.index import get_kind
        from skbsearch.index.base import IndexMismatch

        spec = get_kind(kind)
        manifest = self.skb_dir / "indexes" / spec.index_dir_name / "manifest.json"
        with self._index_lock:
            loaded = self._indexes.get(kind)
            stamp = read_stamp(manifest)
            # A removed (or half-swapped) index directory: this build's index stays usable.
            if loaded is not None and (stamp in (None, loaded.stamp) or not self.is_current()):
                return loaded.spec, loaded.index
            if not self.same_build():
                raise SnapshotChanged(f"{self.skb_dir} was rebuilt")
            if stamp is None:
                raise IndexNotBuilt(kind)
            if self._stale.get(kind) == stamp:
                raise StaleIndex(kind)
            try:  # opened for this build: caught up with its generation, checked, ids shared
                index = open_index(manifest.parent, self.skb, kind=kind, root=self.skb_dir)
            except IndexMismatch as e:
                if read_stamp(manifest) != stamp or not self.same_build():
                    raise SnapshotChanged(f"{self.skb_dir} changed while loading its {kind} index") from None
                logger.error("%s", e)  # the full message (paths, the rebuild command) to the log
                self._stale[kind] = stamp  # not reloaded until the index is rebuilt
                raise StaleIndex(kind) from None
            except ArtefactError:
                # replaced while being read, or this generation's segments already collected
                if read_stamp(manifest) != stamp or not self.is_current():
                    raise SnapshotChanged(f"{manifest.parent} changed while loading") from None
                raise
            # The index must belong to this build: neither it nor the SKB changed meanwhile.
            if read_stamp(manifest) != stamp or not self.same_build():
                raise SnapshotChanged(f"{self.skb_dir} changed while loading its {kind} index")
            self._indexes[kind] = _LoadedIndex(spec, index, stamp)
            return spec, index




def _alive(ref: weakref.ref[Snapshot]) -> Snapshot:
    snap = ref()
    if snap is None:  # a pipeline of a replaced snapshot, used after it was freed
        raise SnapshotChanged("the snapshot was replaced")
    return snap

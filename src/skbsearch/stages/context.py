"""What stages are built against: an SKB, its directory, and a cache of loaded indexes."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skbsearch.core.atomic import recover_dir
from skbsearch.core.errors import InputError
from skbsearch.documents import DocumentRenderer
from skbsearch.index import get_kind
from skbsearch.index.base import MANIFEST_FILE, check_index_matches
from skbsearch.index.live import catch_up
from skbsearch.kb.store import SKB


class StageContext:
    """The SKB a pipeline runs on, plus indexes and document texts shared by its stages.

    Indexes are read from ``SKB_DIR/indexes/<kind>`` (as ``skb index`` writes them); a
    missing BM25 index is built in memory on first use (a note goes to stderr: build it
    once with ``skb index`` to skip that). Loaded indexes are cached and shared, so
    ``bm25 + dense >> dense`` loads each index once.

    Args:
        kb: the SKB (or its directory).
        index_dirs: overrides ``{kind: directory}``.
        notify: where notes go (default: stderr).
    """

    def __init__(self, kb: SKB | str | Path, *, index_dirs: dict[str, str | Path] | None = None,
                 notify: Callable[[str], None] | None = None) -> None:
        self.kb = kb if isinstance(kb, SKB) else SKB.load(kb)
        self.kb_dir = Path(self.kb.path) if self.kb.path is not None else None
        self.index_dirs = {k: Path(v) for k, v in (index_dirs or {}).items()}
        self.notify = notify or (lambda msg: print(msg, file=sys.stderr))
        self._indexes: dict[str, Any] = {}
        self._shared: dict[str, Any] = {}
        self._building: dict[str, threading.Lock] = {}
        self._lock = threading.RLock()
        self._renderer = DocumentRenderer(add_rel=True, max_per_relation=10)

    def index_dir(self, kind: str) -> Path | None:
        """Where the ``kind`` index of this SKB lives (``None`` for an unsaved SKB)."""
        if kind in self.index_dirs:
            return self.index_dirs[kind]
        if self.kb_dir is None:
            return None
        return self.kb_dir / "indexes" / get_kind(kind).index_dir_name

    def index(self, kind: str) -> Any:
        """The loaded (or, for BM25, built-on-demand) index of ``kind``."""
        with self._lock:
            if kind not in self._indexes:
                self._indexes[kind] = self._load_index(kind)
            return self._indexes[kind]

    def _load_index(self, kind: str) -> Any:
        spec = get_kind(kind)
        path = self.index_dir(kind)
        if path is not None:  # a killed index writer: restore its previous version, drop its litter
            recover_dir(path)
        if path is not None and (path / MANIFEST_FILE).is_file():
            index = catch_up(spec.load(path), self.kb)  # an index behind the SKB's generation
            _check_matches(index, self.kb)
            share = getattr(index, "share_node_ids", None)
            if share is not None:  # one id list for the SKB and its node-order indexes
                share(self.kb)
            return index
        where = f" at {path}" if path is not None else ""
        if kind != "bm25":
            hint = (f"skb index {self.kb_dir} --kind {kind}" if self.kb_dir is not None
                    else f"{spec.builder} on the SKB")
            raise InputError(f"no {kind} index{where}; build it with '{hint}'", field="index")
        if self.kb_dir is not None:
            self.notify(f"note: no bm25 index{where}; building one in memory "
                        f"(save it once with 'skb index {self.kb_dir} --kind bm25')")
        return spec.build(self.kb)  # the defaults of `skb index`: the same spec, the same index

    def shared(self, key: str, factory: Callable[[], Any]) -> Any:
        """A value built once per context and shared by stages (e.g. a name index).

        One build per key at a time (other threads asking for the same key wait for it);
        building one key never blocks another. A build that fails (or runs past its
        deadline) stores nothing: the next caller builds again.
        """
        with self._lock:
            if key in self._shared:
                return self._shared[key]
            key_lock = self._building.setdefault(key, threading.Lock())
        with key_lock:
            with self._lock:
                if key in self._shared:
                    return self._shared[key]
            value = factory()
            with self._lock:
                self._shared[key] = value
                self._building.pop(key, None)
            return value

    def shared_value(self, key: str) -> Any:
        """The value :meth:`shared` built for ``key``, or ``None`` (nothing is built)."""
        with self._lock:
            return self._shared.get(key)

    def shared_values(self) -> list[Any]:
        """The values built by :meth:`shared` so far (name indexes, enriched indexes...)."""
        with self._lock:
            return list(self._shared.values())

    def loaded_indexes(self) -> list[Any]:
        """The indexes loaded so far."""
        with self._lock:
            return list(self._indexes.values())

    def doc_text(self, doc_id: str) -> str:
        """The rendered document of a node (fields and relations), for re-rankers."""
        if not self.kb.has_node(doc_id):
            return ""
        return self._renderer.render(self.kb, int(self.kb.index_of(doc_id)))

    def resolve_path(self, value: str) -> Path:
        """A user-given file path, as is (relative paths from the working directory)."""
        return Path(value).expanduser()


def _check_matches(index: Any, kb: SKB) -> None:
    """Refuse an index built on another SKB (when the index layer can tell)."""
    check_index_matches(index, kb)

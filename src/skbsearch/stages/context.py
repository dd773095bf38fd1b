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
from skbsearch.index import get_kind, open_index
from skbsearch.index.base import MANIFEST_FILE, Index
from skbsearch.kb.store import SKB


class StageContext:
    """The SKB a pipeline runs on, plus indexes and document texts shared by its stages.

    Indexes are read from ``SKB_DIR/indexes/<kind>`` (as ``skb index`` writes them); a
    missing BM25 index is built in memory on first use (a note goes to stderr: build it
    once with ``skb index`` to skip that); a stage's ``index`` parameter names another
    directory (:meth:`index_at`). Loaded indexes are cached and shared, so
    ``bm25 + dense >> dense`` loads each index once, and their compiled query kernels are
    loaded with them (set-up, not the first query).

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
        self._indexes: dict[str, Index] = {}
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

    def index(self, kind: str) -> Index:
        """The loaded (or, for BM25, built-on-demand) index of ``kind``."""
        with self._lock:
            if kind not in self._indexes:
                self._indexes[kind] = self._load_index(kind)
            return self._indexes[kind]

    def embedding_index(self, kind: str, encoder: str | None) -> Index:
        """The ``kind`` (dense, multivector) index a stage asking for ``encoder`` reads: here
        the saved one whatever its encoder (the stage checks that they match)."""
        return self.index(kind)

    def _load_index(self, kind: str) -> Index:
        spec = get_kind(kind)
        path = self.index_dir(kind)
        if path is not None:  # a killed index writer: restore its previous version, drop its litter
            recover_dir(path)
        if path is not None and (path / MANIFEST_FILE).is_file():
            return self._open_saved(kind, path)
        where = f" at {path}" if path is not None else ""
        if kind != "bm25":
            hint = (f"skb index {self.kb_dir} --kind {kind}" if self.kb_dir is not None
                    else f"{spec.builder} on the SKB")
            raise InputError(f"no {kind} index{where}; build it with '{hint}'", field="index")
        if self.kb_dir is not None:
            self.notify(f"note: no bm25 index{where}; building one in memory "
                        f"(save it once with 'skb index {self.kb_dir} --kind bm25')")
        return spec.build(self.kb)  # the defaults of `skb index`: the same spec, the same index

    def index_at(self, kind: str, path: str | Path) -> Index:
        """The ``kind`` index saved in the directory ``path`` (a stage's ``index`` parameter:
        an index built with ``skb index --out DIR``), loaded once per context, caught up with
        and checked against its SKB like the default one.

        Raises:
            InputError: nothing of that kind at ``path`` (with the command that builds it).
            ArtefactError: an index of another SKB build, or a damaged one.
        """
        where = self.resolve_path(str(path))
        key = f"{kind}@{where.absolute()}"
        with self._lock:
            if key not in self._indexes:
                recover_dir(where)
                if not (where / MANIFEST_FILE).is_file():
                    skb = self.kb_dir if self.kb_dir is not None else "SKB_DIR"
                    raise InputError(f"no {kind} index at {where}; build it with 'skb index {skb} "
                                     f"--kind {kind} --out {where}'", field="index")
                self._indexes[key] = self._open_saved(kind, where)
            return self._indexes[key]

    def _open_saved(self, kind: str, path: Path) -> Any:
        """The saved ``kind`` index at ``path``, opened for this SKB (caught up, checked,
        sharing its node ids: :func:`skbsearch.index.open_index`); its query kernels are
        loaded by the first query, or by :func:`skbsearch.core.stage.prepare`."""
        return open_index(path, self.kb, kind=kind, warm=False)

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

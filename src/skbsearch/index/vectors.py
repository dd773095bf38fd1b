"""What the vector indexes (:mod:`.dense`, :mod:`.multivector`) share: rows of document ids
(:class:`DocRows`), and their directory: :func:`saving` writes what every vector index has
around the kind's own arrays, :func:`open_saved` reads it back, :meth:`DocRows.save` and
:meth:`DocRows.load` do both around a kind's :meth:`~DocRows.write_arrays` and
:meth:`~DocRows.from_saved`. Nothing is pickled."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.index.base import (
    Manifest,
    read_doc_ids,
    read_manifest,
    rebuild_hint,
    write_doc_ids,
    write_manifest,
)


class DocRows:
    """A vector index's rows (doc ids, optional SKB node index per row) and its directory
    (:meth:`save`, :meth:`load`: a kind writes and reads only its own arrays)."""

    doc_ids: list[str]
    node_index: np.ndarray | None
    path: Path | None

    def __len__(self) -> int:
        return len(self.doc_ids)

    @property
    def num_docs(self) -> int:
        """Number of documents."""
        return len(self.doc_ids)

    def row_of(self, doc_id: str) -> int | None:
        """Row of a doc id, or ``None`` if it is not indexed."""
        if self.__dict__.get("_row_of") is None:
            self._row_of = {d: i for i, d in enumerate(self.doc_ids)}
        return self._row_of.get(doc_id)

    def rows_for(self, nodes: np.ndarray | Sequence[int]) -> np.ndarray:
        """Sorted rows of internal doc indices: SKB node indices if the index has a
        ``node_index`` (nodes not indexed are dropped), else the rows themselves."""
        a = np.unique(np.asarray(nodes, dtype=np.int64).ravel())
        if self.node_index is None:
            return self.check_rows(a)
        if self.__dict__.get("_node_to_row") is None:
            self._node_to_row = {int(n): i for i, n in enumerate(self.node_index)}
        rows = [self._node_to_row[int(n)] for n in a if int(n) in self._node_to_row]
        return np.array(sorted(rows), dtype=np.int64)

    def check_rows(self, rows: np.ndarray | Sequence[int]) -> np.ndarray:
        """``rows`` as sorted unique int64; out-of-range rows raise :class:`InputError`."""
        a = np.unique(np.asarray(rows, dtype=np.int64).ravel())
        if len(a) and (a[0] < 0 or a[-1] >= len(self)):
            raise InputError(f"row out of range 0..{len(self) - 1} of this index", field="allowed")
        return a

    # ------------------------------------------------------------------ persistence
    #: the manifest's kind of the index class
    kind: ClassVar[str]
    #: the manifest's format version: of the layout :func:`saving` writes and the kind's
    #: arrays (a kind that changes its arrays sets its own)
    format_version: ClassVar[int] = 1

    def save(self, path: str | Path, *, overwrite: bool = True) -> Path:
        """Write the index directory atomically: the kind's own arrays (:meth:`write_arrays`)
        and what every vector index has (:func:`saving`)."""
        with saving(self, path, self.kind, self.format_version, overwrite=overwrite) as tmp:
            self.write_arrays(tmp)
        return Path(path)

    @classmethod
    def load(cls, path: str | Path, *, mmap: bool = True) -> Self:
        """Open a saved index; its embeddings are memory-mapped unless ``mmap=False``."""
        path = Path(path)
        man, doc_ids, node_index = open_saved(path, cls.kind, cls.format_version)
        index = cls.from_saved(path, man, doc_ids, node_index, mmap=mmap)
        index.path = path
        return index

    def write_arrays(self, tmp: Path) -> None:
        """Write the kind's own arrays into the directory being saved."""
        raise NotImplementedError

    @classmethod
    def from_saved(cls, path: Path, man: Manifest, doc_ids: list[str],
                   node_index: np.ndarray | None, *, mmap: bool) -> Self:
        """The index from its saved directory (the manifest, doc ids and node index read)."""
        raise NotImplementedError


def load_npy(path: Path, mmap: bool, kind: str) -> np.ndarray:
    """``np.load`` without pickle (memory-mapped if asked); problems raise ArtefactError."""
    try:
        return np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
    except FileNotFoundError:
        raise ArtefactError(f"{path} is missing; {rebuild_hint(kind)}") from None
    except (OSError, ValueError) as e:
        raise ArtefactError(f"{path}: unreadable ({e}); {rebuild_hint(kind)}") from None


@contextmanager
def saving(index: Any, path: str | Path, kind: str, version: int, *,
           overwrite: bool = True) -> Iterator[Path]:
    """Write a vector index's directory atomically: yields the temporary directory for the
    kind's own arrays, then adds what every vector index has (doc ids, the node index if
    any, the manifest from ``index.params``) and renames it into place at ``path``."""
    path = Path(path)
    skb_dir = index.source.get("path")  # never replace the SKB it indexes
    with atomic_dir(path, overwrite=overwrite, kind="index", inputs=[skb_dir]) as tmp:
        yield tmp
        write_doc_ids(tmp, index.doc_ids)
        if index.node_index is not None:
            np.save(tmp / "node_index.npy", index.node_index)
        write_manifest(tmp, Manifest(kind, version, len(index), index.params, index.source,
                                     built_on=index.built_on))
    index.path = path


def open_saved(path: Path, kind: str, version: int) -> tuple[Manifest, list[str], np.ndarray | None]:
    """What :func:`saving` wrote besides the kind's arrays: the manifest, the doc ids and
    the node index (``None`` when the index has none)."""
    man = read_manifest(path, kind, version)
    doc_ids = read_doc_ids(path, man.num_docs, kind)
    node_file = path / "node_index.npy"
    node_index = load_npy(node_file, False, kind) if node_file.is_file() else None
    return man, doc_ids, node_index

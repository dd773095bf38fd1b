"""Conventions every index directory follows, whatever its kind.

An index directory holds ``manifest.json``::

    {"kind": "bm25", "version": 1, "num_docs": 1000, "params": {...},
     "source": {"kind": "skb", "path": "...", ...}, "created": "2025-01-01T00:00:00+00:00"}

plus ``doc_ids.json`` (the external id of every document, in index order) and whatever
files the kind needs. Directories are written with :func:`skbsearch.atomic.atomic_dir`
(a temp sibling renamed into place), so a crash never leaves a half-written index; every
problem found while loading raises :class:`skbsearch.errors.IndexError_` naming the file
and saying how to rebuild.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.errors import IndexError_

MANIFEST_FILE = "manifest.json"
DOC_IDS_FILE = "doc_ids.json"

#: Progress callback: ``progress(stage, done, total)``; ``total`` may be 0 when unknown.
ProgressFn = Callable[[str, int, int], None]


def no_progress(stage: str, done: int, total: int) -> None:
    """A progress callback that does nothing."""


@dataclass
class Manifest:
    """What an index directory holds: its kind, format version, size and build parameters."""

    kind: str
    version: int
    num_docs: int
    params: dict[str, Any] = field(default_factory=dict)
    source: dict[str, Any] = field(default_factory=dict)
    created: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        d = asdict(self)
        if not d["created"]:
            d["created"] = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        return d


def rebuild_hint(kind: str) -> str:
    """The advice to print when an index cannot be used."""
    return f"rebuild it with 'skb index SKB_DIR --kind {kind}'"


def write_manifest(directory: Path, manifest: Manifest) -> None:
    """Write ``manifest.json`` into ``directory`` (normally a temp dir inside ``atomic_dir``)."""
    (Path(directory) / MANIFEST_FILE).write_text(
        json.dumps(manifest.to_dict(), indent=2), encoding="utf-8"
    )


def read_manifest(
    directory: str | Path, kind: str | None = None, version: int | None = None
) -> Manifest:
    """Read and check ``manifest.json``.

    Args:
        directory: the index directory.
        kind: if given, the kind the caller expects.
        version: if given, the only supported format version.

    Raises:
        IndexError_: missing or corrupt manifest, wrong kind or version.
    """
    directory = Path(directory)
    path = directory / MANIFEST_FILE
    if not directory.is_dir():
        raise IndexError_(f"{directory}: no such index directory; {rebuild_hint(kind or 'bm25')}")
    if not path.is_file():
        raise IndexError_(f"{directory} is not an index directory (no {MANIFEST_FILE}); "
                          f"{rebuild_hint(kind or 'bm25')}")
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise IndexError_(f"{path}:{e.lineno}: corrupt manifest ({e.msg}); "
                          f"{rebuild_hint(kind or 'bm25')}") from None
    try:
        m = Manifest(
            kind=str(d["kind"]),
            version=int(d["version"]),
            num_docs=int(d["num_docs"]),
            params=dict(d.get("params", {})),
            source=dict(d.get("source", {})),
            created=str(d.get("created", "")),
        )
    except (KeyError, TypeError, ValueError) as e:
        raise IndexError_(f"{path}: manifest lacks or mangles {e}; "
                          f"{rebuild_hint(kind or 'bm25')}") from None
    if kind is not None and m.kind != kind:
        raise IndexError_(f"{directory} holds a '{m.kind}' index, not '{kind}'")
    if version is not None and m.version != version:
        raise IndexError_(f"{directory}: {m.kind} index format version {m.version} is not "
                          f"supported (expected {version}); {rebuild_hint(m.kind)}")
    return m


def write_doc_ids(directory: Path, doc_ids: Sequence[str]) -> None:
    """Write ``doc_ids.json`` (a JSON list of strings, index order)."""
    (Path(directory) / DOC_IDS_FILE).write_text(
        json.dumps(list(doc_ids), ensure_ascii=False), encoding="utf-8"
    )


def read_doc_ids(directory: str | Path, expected: int, kind: str) -> list[str]:
    """Read ``doc_ids.json`` and check it has ``expected`` entries."""
    path = Path(directory) / DOC_IDS_FILE
    if not path.is_file():
        raise IndexError_(f"{path} is missing; {rebuild_hint(kind)}")
    try:
        ids = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise IndexError_(f"{path}:{e.lineno}: corrupt doc ids ({e.msg}); {rebuild_hint(kind)}") from None
    if not isinstance(ids, list) or len(ids) != expected:
        n = len(ids) if isinstance(ids, list) else "no"
        raise IndexError_(f"{path}: {n} doc ids for {expected} documents; {rebuild_hint(kind)}")
    return [str(x) for x in ids]

"""Delta segments: what one update adds to and removes from an SKB (immutable once written).

A segment directory ``segments/seg-NNNNNNNN`` holds ``nodes.parquet`` (the upserted nodes, in
the node-table layout of :class:`skbsearch.kb.SKB`), ``edges.parquet`` (added edges as string
ids: ``src``, ``relation``, ``dst``), ``deletes.json`` (``{"nodes": [...], "edges": [[s, r,
t], ...], "affected": [...]}``, see :attr:`Segment.affected`) and ``segment.json`` (the marker, with the content hash of the three files and
the update's schema). Within one segment deletions apply first, then upserts and new edges.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from skbsearch.core.atomic import ARTEFACT_MARKERS, atomic_dir
from skbsearch.core.errors import ArtefactError

SEGMENT_FILES = ("nodes.parquet", "edges.parquet", "deletes.json")
ARTEFACT_MARKERS.setdefault("skb-segment", ("segment.json", lambda d: False))
ARTEFACT_MARKERS.setdefault("skb-base", ("meta.json", lambda d: False))

EDGE_SCHEMA = pa.schema([("src", pa.string()), ("relation", pa.string()), ("dst", pa.string())])


@dataclass
class Segment:
    """One update's nodes, edges and deletions (see the module docstring)."""

    nodes: pa.Table
    edges: pa.Table
    deleted_nodes: list[str] = field(default_factory=list)
    deleted_edges: list[tuple[str, str, str]] = field(default_factory=list)
    text_fields: list[str] = field(default_factory=list)
    name: str = ""
    #: ids whose neighbourhood the update changed (neighbours of replaced and deleted nodes
    #: before the update, ends of added and deleted edges): the nodes whose relation lines
    #: (neighbours' names) an index must render again. ``None``: a segment written before
    #: this was recorded (indexes with relation lines then re-index).
    affected: list[str] | None = None

    @property
    def is_empty(self) -> bool:
        """Whether the segment changes nothing."""
        return not (self.nodes.num_rows or self.edges.num_rows or self.deleted_nodes
                    or self.deleted_edges)


def files_hash(directory: Path) -> str:
    """BLAKE2b-128 of a segment's data files (the segment's content hash)."""
    h = hashlib.blake2b(digest_size=16)
    for name in SEGMENT_FILES:
        h.update((Path(directory) / name).read_bytes())
    return h.hexdigest()


def write_segment(path: Path, seg: Segment) -> str:
    """Write ``seg`` atomically to the directory ``path``; returns its content hash."""
    with atomic_dir(path, overwrite=False, kind="skb-segment") as tmp:
        pq.write_table(seg.nodes, tmp / "nodes.parquet")
        pq.write_table(seg.edges.cast(EDGE_SCHEMA), tmp / "edges.parquet")
        deletes: dict[str, Any] = {"nodes": list(seg.deleted_nodes),
                                   "edges": [list(e) for e in seg.deleted_edges]}
        if seg.affected is not None:
            deletes["affected"] = list(seg.affected)
        (tmp / "deletes.json").write_text(json.dumps(deletes), encoding="utf-8")
        digest = files_hash(tmp)
        marker = {"artefact": "skb-segment", "content_hash": digest, "text_fields": seg.text_fields,
                  "num_nodes": seg.nodes.num_rows, "num_edges": seg.edges.num_rows,
                  "deleted_nodes": len(seg.deleted_nodes), "deleted_edges": len(seg.deleted_edges)}
        (tmp / "segment.json").write_text(json.dumps(marker, indent=1), encoding="utf-8")
    return digest


def read_segment(path: Path, content_hash: str) -> Segment:
    """Read a segment and check it against the hash its generation recorded."""
    hint = "the SKB directory is damaged; rebuild it with 'skb kb build'"
    try:
        if files_hash(path) != content_hash:
            raise ArtefactError(f"{path}: segment content does not match its generation manifest; {hint}")
        marker: dict[str, Any] = json.loads((path / "segment.json").read_text(encoding="utf-8"))
        deletes = json.loads((path / "deletes.json").read_text(encoding="utf-8"))
        nodes = pq.read_table(path / "nodes.parquet")
        edges = pq.read_table(path / "edges.parquet")
    except (OSError, ValueError, pa.ArrowException) as e:
        raise ArtefactError(f"{path}: unreadable segment ({type(e).__name__}: {str(e)[:120]}); {hint}") from None
    return Segment(nodes=nodes, edges=edges, deleted_nodes=[str(x) for x in deletes["nodes"]],
                   deleted_edges=[(str(a), str(b), str(c)) for a, b, c in deletes["edges"]],
                   text_fields=[str(x) for x in marker.get("text_fields", [])], name=path.name,
                   affected=[str(x) for x in deletes["affected"]] if "affected" in deletes else None)

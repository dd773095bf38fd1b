"""Delta segments (``kb.segments``): written atomically and read back whole, checked against
the hash their generation recorded, never overwritten; a segment from before affected ids
were recorded reads as ``affected = None``; a damaged one is refused with the rebuild hint."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from skbsearch.core.errors import ArtefactError
from skbsearch.kb.segments import EDGE_SCHEMA, Segment, files_hash, read_segment, write_segment


def _segment(affected: tuple[str, ...] | None = ("p2",)) -> Segment:
    nodes = pa.table({"id": ["p1", "p3"], "type": ["product", "product"], "name": ["Red shoe", "Tan belt"],
                      "description": ["a shoe", None]})
    edges = pa.table({"src": ["p1"], "relation": ["brand"], "dst": ["b1"]})
    return Segment(nodes=nodes, edges=edges, deleted_nodes=["p9"], deleted_edges=[("p2", "brand", "b1")],
                   text_fields=["description"], affected=None if affected is None else list(affected))


def test_written_and_read_back_whole(tmp_path: Path) -> None:
    digest = write_segment(tmp_path / "seg-00000001", _segment())
    assert digest == files_hash(tmp_path / "seg-00000001") and len(digest) == 32
    marker = json.loads((tmp_path / "seg-00000001" / "segment.json").read_text())
    assert marker["artefact"] == "skb-segment" and marker["content_hash"] == digest
    assert (marker["num_nodes"], marker["num_edges"], marker["deleted_nodes"], marker["deleted_edges"]) == (2, 1, 1, 1)
    seg = read_segment(tmp_path / "seg-00000001", digest)
    assert seg.name == "seg-00000001" and seg.nodes.equals(_segment().nodes)
    assert seg.edges.schema == EDGE_SCHEMA and seg.edges.to_pylist() == [{"src": "p1", "relation": "brand", "dst": "b1"}]
    assert seg.deleted_nodes == ["p9"] and seg.deleted_edges == [("p2", "brand", "b1")]
    assert seg.text_fields == ["description"] and seg.affected == ["p2"] and not seg.is_empty


def test_a_segment_without_affected_ids_and_an_empty_one(tmp_path: Path) -> None:
    old = write_segment(tmp_path / "old", _segment(affected=None))
    assert read_segment(tmp_path / "old", old).affected is None
    assert "affected" not in json.loads((tmp_path / "old" / "deletes.json").read_text())
    empty = Segment(nodes=pa.table({"id": pa.array([], pa.string())}),
                    edges=pa.table({"src": [], "relation": [], "dst": []}))
    assert empty.is_empty and empty.affected is None
    assert not Segment(nodes=empty.nodes, edges=empty.edges, deleted_nodes=["x"]).is_empty


def test_never_overwritten(tmp_path: Path) -> None:
    write_segment(tmp_path / "seg", _segment())
    with pytest.raises(FileExistsError):
        write_segment(tmp_path / "seg", _segment(affected=()))


@pytest.mark.parametrize("damage", ["other hash", "deletes.json", "nodes.parquet", "segment.json"])
def test_a_damaged_segment_is_refused(tmp_path: Path, damage: str) -> None:
    d = tmp_path / "seg"
    digest = write_segment(d, _segment())
    if damage == "other hash":
        digest = "0" * 32
    elif damage == "segment.json":  # the marker is not hashed: unreadable JSON is caught on read
        (d / "segment.json").write_text("{oops")
    else:
        (d / damage).write_bytes(b"garbage")
    with pytest.raises(ArtefactError, match="segment.*skb kb build"):
        read_segment(d, digest)

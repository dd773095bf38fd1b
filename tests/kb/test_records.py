"""An update given in Python (records, DataFrames, id lists) becomes the files `skb kb update`
reads; errors about those files are named by argument and record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.records import update_files
from skbsearch.kb.store import SKB
from skbsearch.kb.update import update


def _contents(root: Any, **paths: Any) -> dict[str, Any]:
    """What each argument became: a path's text (or the path given, or None)."""
    return {arg: (Path(p).read_text() if p is not None and Path(p).parent.name.startswith("skb-update-")
                  else p) for arg, p in paths.items()}


def test_records_frames_tuples_and_ids_are_written_as_update_files(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"id": ["p9", "p10"], "type": ["product"] * 2, "price": [np.float64(3.5), np.nan]})
    given = tmp_path / "edges.jsonl"
    with update_files(nodes=frame, edges=given, delete_nodes=[np.int64(7), " p3 "],
                      delete_edges=[("p1", "brand", "b1")]) as call:
        got = call(_contents, "root")
    assert [json.loads(line) for line in got["nodes"].splitlines()] == [
        {"id": "p9", "type": "product", "price": 3.5}, {"id": "p10", "type": "product"}]  # NaN dropped
    assert got["edges"] == given  # a path is passed on as is
    assert got["delete_nodes"] == "7\np3\n"
    assert json.loads(got["delete_edges"]) == {"source": "p1", "relation": "brand", "target": "b1"}


@pytest.mark.parametrize(("kwargs", "says"), [
    ({"nodes": "p9"}, None),  # a string is a path, not records
    ({"nodes": 5}, "nodes= takes a file path, records (dicts) or a DataFrame; got int"),
    ({"nodes": [{"id": "a"}, ["b"]]}, "record 2 is list"),
    ({"delete_nodes": ["a", "two\nlines"]}, "node id 'two\\nlines' to delete is not a one-line"),
    ({"nodes": [{"id": "a", "price": float("inf")}]}, "nodes= holds a value JSON cannot carry"),
])
def test_what_cannot_be_an_update_file_is_named(kwargs: dict, says: str | None) -> None:
    if says is None:
        with update_files(**kwargs) as call:
            assert call(_contents, "root") == kwargs
        return
    with pytest.raises(InputError) as e, update_files(**kwargs):
        pass
    assert says in str(e.value)


def test_an_update_error_names_the_argument_and_record_not_the_temporary_file(tmp_path: Path) -> None:
    root = SKB.from_columns(["p1"], ["product"], ["Jacket"]).save(tmp_path / "skb")
    records = [{"id": "p2", "type": "product", "name": "Boot"}, {"type": "product", "name": "no id"}]
    with pytest.raises(InputError) as e, update_files(nodes=records) as call:
        call(update, root)
    assert str(e.value).startswith("field 'id': nodes= record 2: ")
    assert "skb-update-" not in str(e.value)
    with update_files(nodes=records[:1]) as call:
        call(update, root)
    assert SKB.load(root).ids == ["p1", "p2"]

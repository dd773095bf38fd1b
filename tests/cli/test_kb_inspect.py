"""What `skb kb info` and `skb kb show` report, as data: counts per type and relation, main
types at each end with their share, degree statistics, one node's neighbourhood."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from skbsearch.cli.kb_inspect import kb_info, kb_show, largest_rows, node_label, type_counts
from skbsearch.core.errors import InputError
from skbsearch.kb.store import SKB


@pytest.fixture
def movies(tmp_path: Path) -> Path:
    """Two movies, two people and a genre; three `starred` edges, one `genre` edge."""
    skb = SKB.from_columns(
        ["m1", "m2", "p1", "p2", "g1"], ["movie", "movie", "person", "person", "genre"],
        ["Heat", "Kismet", "Al", "Ronald", "g1"], fields={"plot": ["A heist.", None, None, None, None]},
        edges=(np.array([0, 1, 1, 0]), ["starred", "starred", "starred", "genre"], np.array([2, 3, 2, 4])))
    return skb.save(tmp_path / "skb")


def test_info_counts_types_relations_and_degrees(movies: Path) -> None:
    info = kb_info(movies)
    assert (info["nodes"], info["edges"]) == (5, 4)
    assert info["node_types"] == {"genre": 1, "movie": 2, "person": 2}
    starred = next(r for r in info["relations"] if r["relation"] == "starred")
    assert (starred["edges"], starred["sources"], starred["targets"]) == (3, 2, 2)
    assert (starred["main source type"], starred["main target type"]) == ("movie", "person")
    assert starred["main target share"] == 1.0 and starred["max out-degree"] == 2
    # degree = in + out: m1, m2, p1 have 2; p2, g1 have 1
    assert info["degree"] == {"mean": 1.6, "median": 2.0, "max": 2, "zero": 0}
    assert info["text_fields"] == ["plot"]


def test_show_gives_fields_document_and_neighbours_both_ways(movies: Path) -> None:
    m1 = kb_show(movies, "m1")
    assert (m1["type"], m1["name"], m1["fields"]) == ("movie", "Heat", {"plot": "A heist."})
    assert m1["neighbors"]["starred"] == {"count": 1, "nodes": [{"id": "p1", "name": "Al",
                                                                   "type": "person"}]}
    p1 = kb_show(movies, "p1", limit=1)
    assert p1["neighbors"]["starred^-1"]["count"] == 2 and len(p1["neighbors"]["starred^-1"]["nodes"]) == 1
    assert "starred (reverse): Heat, Kismet" in p1["document"]


def test_show_of_a_name_suggests_its_id(movies: Path) -> None:
    with pytest.raises(InputError, match=r"no node with id 'Heat' .*nodes named 'Heat' have ids \['m1'\]"):
        kb_show(movies, "Heat")


def test_the_small_helpers() -> None:
    assert type_counts(["a", "b", "c"], np.array([2, 0, 2], dtype=np.int8)) == {"a": 1, "b": 0, "c": 2}
    assert type_counts([], np.array([], dtype=np.int8)) == {}
    rows = [{"r": "x", "edges": 5}, {"r": "y", "edges": 50}, {"r": "z", "edges": 7}]
    assert largest_rows(rows, "edges", 0, "relations") == (rows, "relations")
    top, title = largest_rows(rows, "edges", 2, "relations")
    assert [r["r"] for r in top] == ["y", "z"] and title == "relations: the 2 largest of 3"
    assert node_label({"id": "m1", "name": "Heat"}) == "Heat (id m1)"
    assert node_label({"id": "g1", "name": "g1"}) == node_label({"id": "g1", "name": ""}) == "g1"

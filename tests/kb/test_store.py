"""SKB store: round trips, nulls, SQL, select, accessor errors (the builder's errors:
test_builder.py; the files on disk, atomic save and load errors: test_store_files.py)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest
from store_data import assert_same, small_skb

import skbsearch.kb.store as store_mod
from skbsearch.core.errors import InputError
from skbsearch.kb import SKB


def test_builder_fields_attributes_nulls() -> None:
    skb = small_skb()
    assert skb.num_nodes == 5 and skb.num_edges == 4
    assert skb.schema.text_fields == ["plot", "bio"]
    assert skb.schema.attributes == {"year": "int64", "rating": "double", "color": "bool", "lang": "string"}
    assert skb.schema.relation_roles == {"directed_by": ["movie", "person"], "starred_in": ["person", "movie"]}
    m1 = skb.node("m1")
    assert (m1.type, m1.name, m1.fields, m1.attributes) == (
        "movie", "Heat", {"plot": "A heist in LA."}, {"year": 1995, "rating": 8.3, "color": True}
    )
    m3 = skb.node("m3")
    assert m3.fields == {} and m3.attributes == {"lang": "fr"}
    assert skb.column("plot") == ["A heist in LA.", "Mercenaries chase a case.", None, None, None]
    assert skb.node(3).id == "a1"
    assert skb.index_of("d1") == 4 and skb.index_of(["d1", "m1"]).tolist() == [4, 0]
    assert skb.id_of([4, 0]) == ["d1", "m1"] and skb.has_node("m2") and not skb.has_node("zz")
    assert skb.nodes_of_type("person").tolist() == [3, 4]
    assert skb.graph.follow(skb.index_of(["a1"]), ["starred_in", "directed_by"]).tolist() == [4]
    assert skb.meta["source"] == "test"


@pytest.mark.parametrize("mmap", [True, False])
def test_save_load_round_trip(tmp_path, mmap: bool) -> None:
    skb = small_skb()
    skb.save(tmp_path / "kb")
    assert {p.name for p in (tmp_path / "kb").iterdir()} == {"nodes.parquet", "nodes.arrow", "edges.parquet",
                                                            "meta.json", "graph"}
    meta = json.loads((tmp_path / "kb" / "meta.json").read_text())
    assert meta["num_nodes"] == 5 and meta["num_edges"] == 4 and meta["source"] == "test"
    back = SKB.load(tmp_path / "kb", mmap=mmap)
    assert_same(skb, back)
    assert back.path == tmp_path / "kb"
    assert back.graph.degree("directed_by", "in").tolist() == [0, 0, 0, 0, 2]


def test_from_columns_relation_names_or_codes(tmp_path) -> None:
    ids, types, names = ["x", "y", "z"], ["a", "a", "b"], ["X", "Y", "Z"]
    by_name = SKB.from_columns(
        ids, types, names, fields={"text": ["hi", None, "yo"]}, attributes={"w": [1.5, None, 2.0]},
        edges=(np.array([0, 1]), ["r2", "r1"], np.array([2, 2])),
    )
    by_code = SKB.from_columns(
        ids, types, names, fields={"text": ["hi", None, "yo"]}, attributes={"w": pa.array([1.5, None, 2.0])},
        edges=(np.array([0, 1]), np.array([1, 0]), np.array([2, 2])), relations=["r1", "r2"],
    )
    assert_same(by_name, by_code)
    by_name.save(tmp_path / "s")
    assert_same(by_name, SKB.load(tmp_path / "s"))
    empty = SKB.from_columns(ids, types, names)
    empty.save(tmp_path / "e")
    back = SKB.load(tmp_path / "e")
    assert back.num_edges == 0 and back.graph.neighbor_set([0]).tolist() == []
    with pytest.raises(InputError, match="out of range"):
        SKB.from_columns(ids, types, names, edges=(np.array([0]), ["r"], np.array([3])))
    with pytest.raises(InputError) as e:
        SKB.from_columns(ids, types, names, fields={"text": ["a"]})
    assert e.value.field == "text"


@pytest.mark.parametrize("saved", [False, True])
def test_sql_and_select(tmp_path, saved: bool) -> None:
    skb = small_skb()
    if saved:
        skb.save(tmp_path / "kb")
        skb = SKB.load(tmp_path / "kb")
    t = skb.sql("SELECT id, year FROM nodes WHERE type = 'movie' AND year > 1990 ORDER BY id")
    assert t.to_pydict() == {"id": ["m1", "m2"], "year": [1995, 1998]}
    t = skb.sql("SELECT src, relation, dst FROM edges WHERE relation = 'starred_in' ORDER BY dst")
    assert t.to_pydict() == {"src": ["a1", "a1"], "relation": ["starred_in"] * 2, "dst": ["m1", "m2"]}
    assert skb.sql("SELECT count(*) AS n FROM nodes WHERE plot IS NULL").column("n").to_pylist() == [3]
    assert skb.select("year >= 1995").tolist() == [0, 1]
    assert skb.select("year > 1900", types=["person"]).tolist() == [3]
    assert skb.select("", types=["movie"]).tolist() == [0, 1, 2]
    assert skb.select("rating > 9").dtype == np.int32 and len(skb.select("rating > 9")) == 0
    with pytest.raises(InputError, match="SQL error") as e:
        skb.sql("SELECT nope FROM nodes")
    assert e.value.field == "query"


def test_accessor_errors() -> None:
    skb = small_skb()
    with pytest.raises(InputError, match="unknown node id 'zz'"):
        skb.index_of("zz")
    with pytest.raises(InputError, match="unknown node id"):
        skb.index_of(["m1", "zz"])
    with pytest.raises(InputError, match="no node column") as e:
        skb.column("nope")
    assert e.value.field == "nope"
    with pytest.raises(InputError, match="unknown node type"):
        skb.nodes_of_type("alien")
    with pytest.raises(InputError, match="out of range"):
        skb.node(99)


def test_arrow_numpy_views_and_fallbacks() -> None:
    a = pa.array([1, 2, 3, 4], pa.int32()).slice(1)
    assert store_mod.arrow_numpy(a).tolist() == [2, 3, 4] and store_mod.arrow_numpy(a).dtype == np.int32
    b = pa.array([True, False, True, True, False, False, True, True, True, False]).slice(3)
    assert store_mod.arrow_numpy(b).tolist() == [True, False, False, True, True, True, False]
    assert store_mod.arrow_numpy(pa.chunked_array([[1.5], [2.5]])).tolist() == [1.5, 2.5]
    assert np.isnan(store_mod.arrow_numpy(pa.array([1.0, None]))[1])  # nulls: to_numpy
    assert store_mod.arrow_numpy(pa.array([], pa.int64())).tolist() == []
    assert store_mod.positions(["b", "zz", "a"], ["a", "b"]).tolist() == [1, -1, 0]


def test_numeric_column_nulls_to_nan_through_buffers():
    import pyarrow as pa

    from skbsearch.kb.store import numeric_column

    chunked = pa.chunked_array([pa.array([1, None, 3], pa.int64()), pa.array([None, 5], pa.int64())])
    assert np.array_equal(numeric_column(chunked), [1, np.nan, 3, np.nan, 5], equal_nan=True)
    sliced = pa.array([1.5, None, 2.0, None], pa.float32())[1:3]
    assert np.array_equal(numeric_column(sliced), [np.nan, 2.0], equal_nan=True)
    assert numeric_column(pa.array([7, 8], pa.int32())).dtype == np.float64
    assert np.isnan(numeric_column(pa.array([None, None], pa.float64()))).all()

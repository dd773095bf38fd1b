"""SKB builder and store: round trips, nulls, SQL, select, atomic save, builder errors."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

import skbsearch.kb.store as store_mod
import skbsearch.kb.store_columns as columns_mod
import skbsearch.kb.store_files as files_mod
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.kb import SKB, SKBBuilder


def small_skb() -> SKB:
    b = SKBBuilder()
    b.add_node("m1", "movie", "Heat", {"plot": "A heist in LA."}, {"year": 1995, "rating": 8.3, "color": True})
    b.add_node("m2", "movie", "Ronin", {"plot": "Mercenaries chase a case."}, {"year": 1998, "rating": 7.2})
    b.add_node("m3", "movie", "Untitled", {}, {"lang": "fr"})
    b.add_node("a1", "person", "Robert De Niro", {"bio": "Actor."}, {"year": 1943})
    b.add_node("d1", "person", "Michael Mann")
    b.add_edge("a1", "starred_in", "m1")
    b.add_edge("a1", "starred_in", "m2")
    b.add_edge("m1", "directed_by", "d1")
    b.add_edge("m1", "directed_by", "d1")  # duplicate edges are kept (multigraph)
    return b.build(meta={"source": "test"})


def assert_same(a: SKB, b: SKB) -> None:
    assert a.ids == b.ids
    assert a.schema == b.schema
    assert a.type_names == b.type_names
    for nid in a.ids:
        assert a.node(nid) == b.node(nid)
    assert np.array_equal(a.edge_src, b.edge_src)
    assert np.array_equal(a.edge_dst, b.edge_dst)
    rels_a = [a.schema.relations[r] for r in a.edge_rel]
    rels_b = [b.schema.relations[r] for r in b.edge_rel]
    assert rels_a == rels_b


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


def test_atomic_save_keeps_old_dir(tmp_path, monkeypatch) -> None:
    old = small_skb()
    old.save(tmp_path / "kb")
    b = SKBBuilder()
    b.add_node("only", "thing", "Only")
    new = b.build()
    real = files_mod.pq.write_table
    calls = []

    def failing(table, where, *args, **kwargs):
        calls.append(where)
        if len(calls) == 2:  # nodes.parquet written, edges.parquet fails
            raise OSError("disk full")
        return real(table, where, *args, **kwargs)

    monkeypatch.setattr(files_mod.pq, "write_table", failing)
    with pytest.raises(OSError, match="disk full"):
        new.save(tmp_path / "kb")
    monkeypatch.setattr(files_mod.pq, "write_table", real)
    assert len(calls) == 2
    assert [p.name for p in tmp_path.iterdir()] == ["kb"]  # no temp or .old dirs left
    assert_same(old, SKB.load(tmp_path / "kb"))
    with pytest.raises(FileExistsError, match="overwrite"):
        new.save(tmp_path / "kb", overwrite=False)
    new.save(tmp_path / "kb")
    assert SKB.load(tmp_path / "kb").ids == ["only"]
    assert [p.name for p in tmp_path.iterdir()] == ["kb"]


def test_load_maps_nodes_and_reads_edges_on_first_use(tmp_path) -> None:
    skb = small_skb()
    skb.save(tmp_path / "kb")
    before = pa.total_allocated_bytes()
    back = SKB.load(tmp_path / "kb")
    # The node table is memory-mapped from nodes.arrow: no Arrow heap memory for it.
    assert pa.total_allocated_bytes() - before < 1024
    assert back._edges is None and back.num_edges == 4  # from meta.json, nothing read yet
    assert back.node("m1").fields == {"plot": "A heist in LA."}
    assert back.graph.degree("starred_in", "out").tolist() == [0, 0, 0, 2, 0]  # CSR, edges untouched
    assert back._edges is None
    assert_same(skb, back)  # edge arrays read here
    assert back._edges is not None


@pytest.mark.parametrize("damage", ["truncate", "other rows", "garbage"])
def test_damaged_nodes_arrow_falls_back_to_parquet(tmp_path, damage: str) -> None:
    skb = small_skb()
    skb.save(tmp_path / "kb")
    f = tmp_path / "kb" / "nodes.arrow"
    if damage == "truncate":
        f.write_bytes(f.read_bytes()[:100])
    elif damage == "garbage":
        f.write_bytes(b"not arrow at all" * 10)
    else:  # a consistent file of another table: row count does not match meta.json
        files_mod._write_arrow(skb.nodes.slice(0, 2), f)
    assert_same(skb, SKB.load(tmp_path / "kb"))


def test_edges_checked_at_load_and_first_use(tmp_path) -> None:
    small_skb().save(tmp_path / "kb")
    meta = tmp_path / "kb" / "meta.json"
    m = json.loads(meta.read_text())
    m["num_edges"] = 7
    meta.write_text(json.dumps(m))
    with pytest.raises(ArtefactError, match="4 edges but meta.json says 7"):
        SKB.load(tmp_path / "kb")
    m["num_edges"] = 4
    meta.write_text(json.dumps(m))
    import pyarrow.parquet as pq

    e = pq.read_table(tmp_path / "kb" / "edges.parquet")
    e = e.set_column(e.schema.get_field_index("dst_idx"), "dst_idx", pa.array([0, 1, 2, 99], pa.int32()))
    pq.write_table(e, tmp_path / "kb" / "edges.parquet")
    back = SKB.load(tmp_path / "kb")  # the footer is fine: the values are read on first use
    with pytest.raises(ArtefactError, match="dst_idx points outside the 5 nodes"):
        _ = back.edge_src


def test_load_errors(tmp_path) -> None:
    with pytest.raises(ArtefactError, match="not an SKB directory"):
        SKB.load(tmp_path)
    small_skb().save(tmp_path / "kb")
    meta = tmp_path / "kb" / "meta.json"
    good = meta.read_text()
    meta.write_text(good.replace('"format_version": 1', '"format_version": 99'))
    with pytest.raises(ArtefactError, match="format version 99"):
        SKB.load(tmp_path / "kb")
    meta.write_text("{\n  oops")
    with pytest.raises(ArtefactError, match="meta.json:2"):
        SKB.load(tmp_path / "kb")


def test_builder_duplicate_ids() -> None:
    b = SKBBuilder()
    b.add_node("x", "t", file="a.jsonl", line=3)
    with pytest.raises(InputError) as e:
        b.add_node("x", "t", file="b.jsonl", line=7)
    assert "first defined at a.jsonl:3" in str(e.value)
    assert (e.value.file, e.value.line, e.value.field) == ("b.jsonl", 7, "id")
    assert str(e.value).startswith("b.jsonl:7")
    keep = SKBBuilder(on_duplicate="first")
    keep.add_node("x", "t", "first")
    assert keep.add_node("x", "t", "second") == 0 and keep.build().node("x").name == "first"
    with pytest.raises(ValueError):
        SKBBuilder(on_duplicate="last")


@pytest.mark.parametrize("which", ["source", "target"])
def test_builder_unknown_endpoint(which: str) -> None:
    b = SKBBuilder()
    b.add_node("a", "t")
    b.add_edge("a", "r", "a", file="edges.tsv", line=1)
    src, dst = ("ghost", "a") if which == "source" else ("a", "ghost")
    b.add_edge(src, "r", dst, file="edges.tsv", line=2)
    with pytest.raises(InputError, match="unknown node 'ghost'") as e:
        b.build()
    assert (e.value.file, e.value.line, e.value.field) == ("edges.tsv", 2, which)


def test_builder_field_errors() -> None:
    b = SKBBuilder()
    for kwargs, field in [
        ({"fields": {"type": "x"}}, "type"),
        ({"fields": {"name": "x"}}, "name"),
        ({"attributes": {"id": 1}}, "id"),
        ({"attributes": {"tags": ["a", "b"]}}, "tags"),
    ]:
        with pytest.raises(InputError) as e:
            b.add_node("n", "t", file="f.jsonl", line=4, **kwargs)
        assert (e.value.field, e.value.line) == (field, 4)
    assert len(b) == 0 and not b.has_node("n")  # a rejected node leaves no trace
    with pytest.raises(InputError) as e:
        SKB.from_columns(["a"], ["t"], ["A"], attributes={"type": [1]})
    assert e.value.field == "type"
    with pytest.raises(InputError, match="no id"):
        b.add_node("  ", "t")
    with pytest.raises(InputError, match="no type"):
        b.add_node("z", "")
    with pytest.raises(InputError, match="reserved") as e:
        b.add_edge("a", "r^-1", "b", line=9)
    assert e.value.field == "relation" and e.value.line == 9
    with pytest.raises(InputError) as e:
        b.add_edge("a", "r", None)
    assert e.value.field == "target"


def test_builder_mixed_attribute_types() -> None:
    ok = SKBBuilder()
    ok.add_node("a", "t", attributes={"v": 1})
    ok.add_node("b", "t", attributes={"v": 2.5})
    assert ok.build().column("v") == [1.0, 2.5]
    bad = SKBBuilder()
    bad.add_node("a", "t", attributes={"v": 1})
    bad.add_node("b", "t", attributes={"v": "one"})
    with pytest.raises(InputError, match="mixed types") as e:
        bad.build()
    assert e.value.field == "v"


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


@pytest.mark.parametrize("chunk", [3, 1 << 18])
def test_relation_roles_read_in_pieces_equal_a_direct_count(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each relation's one source and one target type (None where several), read off the
    edges piece by piece, as counted edge by edge."""
    monkeypatch.setattr(columns_mod, "_ROLE_CHUNK", chunk)
    rng = np.random.default_rng(3)
    n, m = 30, 200
    types = rng.choice(["a", "b", "c"], n)
    rel = rng.choice(["r0", "r1", "r2"], m)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    pure = rel == "r2"  # r2: always from a type-a node to a type-b node
    src[pure], dst[pure] = rng.choice(np.flatnonzero(types == "a"), pure.sum()), rng.choice(np.flatnonzero(types == "b"), pure.sum())
    skb = SKB.from_columns([f"n{i}" for i in range(n)], types.tolist(), [f"x{i}" for i in range(n)],
                           edges=(src, rel.tolist(), dst))
    want = {}
    for r in ("r0", "r1", "r2"):
        ends = [{types[s] for s in src[rel == r]}, {types[t] for t in dst[rel == r]}]
        want[r] = [next(iter(e)) if len(e) == 1 else None for e in ends]
    assert skb.schema.relation_roles == want
    assert want["r2"] == ["a", "b"]

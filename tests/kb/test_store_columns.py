"""An SKB's tables from columns (``kb.store_columns``): the node table and its checks, edge
codes from relation names or int codes, and each relation's one source and target type read
off the edges piece by piece."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import skbsearch.kb.store_columns as columns_mod
from skbsearch.core.errors import InputError
from skbsearch.kb import SKB
from skbsearch.kb.store_columns import edge_codes, node_table, relation_roles


def test_node_table_columns_and_types() -> None:
    t = node_table(["a", "b"], ["film", "person"], ["Jaws", "Roy"], {"plot": ["a shark", None]},
                   {"year": [1975, None], "score": pa.array([7.5, 8.0])})
    assert t.column_names == ["id", "type", "name", "plot", "year", "score"]
    assert pa.types.is_dictionary(t.schema.field("type").type)
    assert t.column("plot").to_pylist() == ["a shark", None] and t.column("year").to_pylist() == [1975, None]
    assert t.schema.field("plot").type == pa.string() and t.schema.field("score").type == pa.float64()


@pytest.mark.parametrize(("fields", "attributes", "field", "says"), [
    ({"name": ["x"]}, {}, "name", "reserved"), ({}, {"id": [1]}, "id", "reserved"),
    ({"plot": ["x", "y"]}, {}, "plot", "2 values for 1 nodes"), ({}, {"year": []}, "year", "0 values")])
def test_node_table_refuses_reserved_names_and_wrong_lengths(fields, attributes, field: str, says: str) -> None:
    with pytest.raises(InputError, match=says) as e:
        node_table(["a"], ["t"], ["A"], fields, attributes)
    assert e.value.field == field


def test_edge_codes_from_names_or_codes() -> None:
    src, rel, dst, names = edge_codes((np.array([0, 1, 2]), ["r2", "r1", "r2"], np.array([1, 2, 0])), None, 3)
    assert names == ["r1", "r2"] and rel.tolist() == [1, 0, 1] and rel.dtype == np.int16
    assert src.dtype == dst.dtype == np.int32 and src.tolist() == [0, 1, 2]
    _, rel, _, names = edge_codes((np.array([0]), np.array([1]), np.array([1])), ["x", "y"], 2)
    assert rel.tolist() == [1] and names == ["x", "y"]
    none = edge_codes(None, ["kept"], 5)
    assert [len(a) for a in none[:3]] == [0, 0, 0] and none[3] == ["kept"]
    for bad in ((np.array([-1]), ["r"], np.array([0])), (np.array([0]), ["r"], np.array([2]))):
        with pytest.raises(InputError, match="out of range"):
            edge_codes(bad, None, 2)


def test_relation_roles_one_type_or_none() -> None:
    # nodes: 0 film, 1 film, 2 person; r0 film->person; r1 film->film and person->film
    roles = relation_roles(["film", "person"], np.array([0, 0, 1]), ["r0", "r1", "unused"],
                           np.array([0, 1, 0, 2]), np.array([0, 0, 1, 1]), np.array([2, 2, 1, 0]))
    assert roles == {"r0": ["film", "person"], "r1": [None, "film"], "unused": [None, None]}


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

"""Vectorised name normalisation and the Arrow-grouped name tables of the linker's exact-name part."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from skbsearch.retrieve.graph.name_table import (
    NameTable,
    hash_array,
    key_hash,
    normalise,
    normalise_array,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(max_size=30),
                          st.text(alphabet="abcXYZ09 -_.,'éüÅßİ\u0301\t", max_size=20)), max_size=30))
def test_normalise_array_is_normalise(names: list[str | None]) -> None:
    got = normalise_array(pa.array(names, pa.string())).to_pylist()
    assert got == [None if n is None else normalise(n) for n in names]


def test_name_table_groups_like_a_dict() -> None:
    names = pa.array(["Heat", "heat", None, "", "Heat", "Ronin", "Heat"])
    allowed = np.array([True, True, True, True, True, True, False])
    t = NameTable.build(names, allowed)
    assert t.get("Heat") == [0, 4] and t.get("heat") == [1] and t.get("Ronin") == [5]
    assert t.get("nope") == () and "Heat" in t and "" not in t and len(t) == 3
    norm = NameTable.build(normalise_array(names), allowed)
    assert norm.get("heat") == [0, 1, 4] and norm.max_tokens() == 1
    assert NameTable.build(normalise_array(pa.array(["a b  c", "x"]))).max_tokens() == 3
    assert NameTable.build(pa.array([], pa.string())).max_tokens() == 1


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=20))
def test_hash_array_is_key_hash(keys: list[str]) -> None:
    arr = pa.array(["pad", *keys], pa.string()).slice(1)  # a non-zero array offset too
    assert hash_array(arr).tolist() == [key_hash(k) for k in keys]


def test_colliding_hashes_compare_the_keys() -> None:
    keys = pa.array(["a", "b", "c"])
    same = np.zeros(3, np.uint64) + np.uint64(key_hash("b"))
    t = NameTable(keys, same, np.array([0, 1, 2]), np.array([0, 1, 2, 3]), np.array([7, 8, 9]))
    assert t.get("b") == [8] and "c" not in t and t.get("zz") == ()


def test_tables_persist_beside_the_skb_and_rebuild_when_stale(tmp_path) -> None:
    from skbsearch.kb import SKBBuilder
    from skbsearch.retrieve.graph.exact_names import ExactNames
    from skbsearch.retrieve.graph.name_table import load_or_build_name_tables

    b = SKBBuilder()
    for i, name in enumerate(["Heat", "heat", "Café Society", "Heat"]):
        b.add_node(f"n{i}", "movie", name)
    b.build().save(tmp_path / "kb")
    from skbsearch.kb import SKB

    kb = SKB.load(tmp_path / "kb")
    exact = ExactNames(kb)
    d = tmp_path / "kb" / "indexes" / "linker"
    assert (d / "manifest.json").is_file() and (d / "norm.keys.arrow").is_file()
    assert sorted(c.node for c in exact.lookup("heat")) == [0, 1, 3]
    assert [c.node for c in ExactNames(SKB.load(tmp_path / "kb")).lookup("cafe society")] == [2]
    (d / "norm.nodes.npy").write_bytes(b"")  # damaged: rebuilt, with a note
    notes: list[str] = []
    exact, norm, longest = load_or_build_name_tables(kb, notify=notes.append)
    assert norm.get("cafe society") == [2] and longest == 2 and "rebuilding" in notes[0]
    np.save(d / "norm.nodes.npy", np.array([0, 1, 3, 99]))  # points outside the SKB
    notes.clear()
    assert load_or_build_name_tables(kb, notify=notes.append)[1].get("heat") == [0, 1, 3]
    assert "do not agree" in notes[0]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(0, 5))
def test_top_k_sampled_threshold_is_exact(k: int, seed: int) -> None:
    from skbsearch.index.sparse import top_k

    rng = np.random.default_rng(seed)
    v = rng.integers(0, 50, 60_000 + 500 * seed).astype(np.float32)  # many ties
    got = top_k(v, k)
    assert len(got) == k == len(set(got.tolist()))
    kth = np.sort(v)[::-1][k - 1]
    assert (v[got] >= kth).all() and (v > kth).sum() <= k


def test_unique_sorted_bitmap_equals_sort() -> None:
    from skbsearch.kb.graph import unique_sorted

    rng = np.random.default_rng(0)
    a = rng.integers(0, 10_000, 50_000)
    assert np.array_equal(unique_sorted(a, 10_000), np.unique(a))
    assert np.array_equal(unique_sorted(a[:10], 10_000), np.unique(a[:10]))

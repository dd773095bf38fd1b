"""kb.graph_merge: a generation's CSR graph merged from the base's and the delta equals the
graph built from scratch over the generation's edges (deleted nodes, explicitly deleted
edges, repeated edges, added edges; few of them, one row look-up each, and many, the
sorted pass)."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.kb import graph_merge
from skbsearch.kb.graph import Graph, rows_unique_sorted
from skbsearch.kb.graph_merge import GraphDelta, merged_graph
from skbsearch.kb.schema import INVERSE_SUFFIX


def _case(seed: int) -> tuple[Graph, GraphDelta, Graph]:
    rng = np.random.default_rng(seed)
    n, rels = int(rng.integers(5, 60)), ["a", "b", "c"]
    m = int(rng.integers(0, 300))
    src, dst, rel = rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(0, 2, m)  # "c": none
    base = Graph.build(n, src, rel, dst, rels)
    alive = rng.random(n) > 0.2
    n_new = int(rng.integers(0, 5))
    nob = np.where(alive, np.cumsum(alive) - 1, -1).astype(np.int64)
    n_final = int(alive.sum()) + n_new
    d = GraphDelta(n_final, nob, relations=rels)
    keep = alive[src] & alive[dst]
    gone = rng.random(m) < 0.1  # explicitly deleted (every copy of the pair goes)
    for r in range(2):
        sel = gone & (rel == r)
        if sel.any():
            d.dropped[rels[r]] = (src[sel].astype(np.int64), dst[sel].astype(np.int64))
            pairs = set(zip(src[sel].tolist(), dst[sel].tolist(), strict=True))
            keep &= ~((rel == r) & np.array([(s, t) in pairs for s, t in zip(src, dst, strict=True)], bool))
    fs, fr, fd = [nob[src[keep]]], [rel[keep]], [nob[dst[keep]]]
    for r in range(3):
        k = int(rng.integers(0, 12)) if n_final else 0
        if k:
            a, b = rng.integers(0, n_final, k), rng.integers(0, n_final, k)
            d.added[rels[r]] = (a.astype(np.int32), b.astype(np.int32))
            fs.append(a), fr.append(np.full(k, r)), fd.append(b)
    final = Graph.build(n_final, np.concatenate(fs), np.concatenate(fr), np.concatenate(fd), rels)
    return base, d, final


@pytest.mark.parametrize("few", [20_000, 0])
@pytest.mark.parametrize("seed", range(25))
def test_merged_graph_equals_a_build(seed: int, few: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graph_merge, "_FEW_EDGES", few)  # 0: the sorted pass for any number
    base, d, final = _case(seed)
    got = merged_graph(base, d)
    for step in [r + s for r in ("a", "b", "c") for s in ("", INVERSE_SUFFIX)]:
        want_ptr, want_idx = final.adjacency(step)
        ptr, idx = got.adjacency(step)
        assert np.array_equal(ptr, want_ptr) and np.array_equal(idx, want_idx), step
        # a row that is a slice without repeats is what neighbour look-ups read without a sort
        assert got.unique_rows(step) <= rows_unique_sorted(ptr, idx), step
        assert got.unique_rows(step) == (base.unique_rows(step) and rows_unique_sorted(ptr, idx)) or (
            not base.unique_rows(step)), step



def test_added_edges_land_in_their_rows_on_a_large_graph() -> None:
    """Edges added by segments come as int32 rows (kb.live): their sorted places among 70K
    rows must be computed without overflowing (row * n_nodes > 2**31 in int32 put them in
    the wrong rows on a 1M-node generation)."""
    rng = np.random.default_rng(7)
    n, m = 70_000, 2_000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    base = Graph.build(n, src, np.zeros(m, np.int64), dst, ["a"])
    a, b = rng.integers(0, n + 3, 50).astype(np.int32), rng.integers(0, n + 3, 50).astype(np.int32)
    d = GraphDelta(n + 3, np.arange(n, dtype=np.int64), added={"a": (a, b)}, relations=["a"])
    want = Graph.build(n + 3, np.concatenate([src, a]), np.zeros(m + 50, np.int64), np.concatenate([dst, b]), ["a"])
    got = merged_graph(base, d)
    for step in ("a", "a" + INVERSE_SUFFIX):
        assert all(np.array_equal(x, y) for x, y in zip(got.adjacency(step), want.adjacency(step), strict=True))

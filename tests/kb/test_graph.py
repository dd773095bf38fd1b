"""CSR graph traversal against a brute-force reference (python sets over edge lists)."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.kb import graph as graph_mod
from skbsearch.kb.graph import Graph, unique_sorted
from skbsearch.kb.schema import INVERSE_SUFFIX
from skbsearch.kb.store import SKB

RELS = ["acted_in", "directed_by", "likes"]


@pytest.fixture(autouse=True, params=["dense", "compact"])
def layout(request, monkeypatch):
    """Every test twice: dense row pointers, and compact steps (non-empty rows only, as a
    graph with many relations over many nodes is stored)."""
    if request.param == "compact":
        monkeypatch.setattr(graph_mod, "DENSE_BUDGET_BYTES", 0)
        monkeypatch.setattr(graph_mod, "COMPACT_ROW_SHARE", 1.01)
    return request.param


class Ref:
    """Brute-force reference: edge list + python sets."""

    def __init__(self, n: int, edges: list[tuple[int, str, int]]) -> None:
        self.n = n
        self.edges = edges

    def names(self, relations: list[str] | None, direction: str) -> list[tuple[str, bool]]:
        out = []
        for r in relations if relations is not None else RELS:
            base, inv = (r[:-3], True) if r.endswith("^-1") else (r, False)
            if direction in ("out", "both"):
                out.append((base, inv))
            if direction in ("in", "both"):
                out.append((base, not inv))
        return out

    def nbrs(self, node: int, relations: list[str] | None, direction: str) -> set[int]:
        res: set[int] = set()
        for base, inv in self.names(relations, direction):
            for s, r, d in self.edges:
                if r != base:
                    continue
                if not inv and s == node:
                    res.add(d)
                if inv and d == node:
                    res.add(s)
        return res

    def follow(self, seeds: list[int], path: list[str]) -> set[int]:
        frontier = set(seeds)
        for step in path:
            frontier = set().union(*(self.nbrs(x, [step], "out") for x in frontier))
        return frontier

    def k_hop(self, seeds: list[int], k: int, relations: list[str] | None, direction: str) -> set[int]:
        seen = set(seeds)
        frontier = set(seeds)
        for _ in range(k):
            frontier = set().union(*(self.nbrs(x, relations, direction) for x in frontier)) - seen
            seen |= frontier
        return seen

    def degree(self, relation: str | None, direction: str) -> np.ndarray:
        deg = np.zeros(self.n, np.int64)
        for base, inv in self.names(None if relation is None else [relation], direction):
            for s, r, d in self.edges:
                if r == base:
                    deg[s if not inv else d] += 1
        return deg


def random_graph(n: int, m: int, seed: int) -> tuple[Graph, Ref, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """A multigraph over ``n`` nodes: self-loops, duplicate edges, and isolated nodes."""
    rng = np.random.default_rng(seed)
    active = max(1, int(n * 0.8))  # nodes >= active never get an edge
    src = rng.integers(0, active, m)
    dst = rng.integers(0, active, m)
    rel = rng.integers(0, len(RELS), m)
    if m >= 4:
        src[:2] = dst[:2]  # self-loops
        src[2:4], dst[2:4], rel[2:4] = src[0], dst[0], rel[0]  # duplicates of a self-loop
        src = np.concatenate([src, src[-3:]])  # duplicate ordinary edges
        dst = np.concatenate([dst, dst[-3:]])
        rel = np.concatenate([rel, rel[-3:]])
    edges = [(int(s), RELS[int(r)], int(d)) for s, r, d in zip(src, rel, dst, strict=True)]
    return Graph.build(n, src, rel, dst, RELS), Ref(n, edges), (src, rel, dst)


CASES = [(1, 0, 0), (1, 3, 1), (7, 20, 2), (50, 150, 3), (300, 1200, 4)]
REL_CHOICES = [None, ["acted_in"], ["acted_in^-1", "likes"], ["directed_by^-1"]]


@pytest.mark.parametrize(("n", "m", "seed"), CASES)
def test_neighbors_and_neighbor_set(n: int, m: int, seed: int) -> None:
    g, ref, _ = random_graph(n, m, seed)
    rng = np.random.default_rng(seed + 100)
    seeds = rng.integers(0, n, min(n, 12))
    seeds = np.concatenate([seeds, seeds[:2]])  # repeated seeds keep their own row
    for relations in REL_CHOICES:
        for direction in ("out", "in", "both"):
            offsets, nb = g.neighbors(seeds, relations, direction)
            assert len(offsets) == len(seeds) + 1
            for i, s in enumerate(seeds):
                got = nb[offsets[i] : offsets[i + 1]].tolist()
                assert got == sorted(ref.nbrs(int(s), relations, direction))
            union = set().union(*(ref.nbrs(int(s), relations, direction) for s in seeds))
            assert g.neighbor_set(seeds, relations, direction).tolist() == sorted(union)


@pytest.mark.parametrize(("n", "m", "seed"), CASES)
def test_k_hop(n: int, m: int, seed: int) -> None:
    g, ref, _ = random_graph(n, m, seed)
    seeds = list(range(0, n, max(1, n // 5)))
    for relations in REL_CHOICES:
        for direction in ("out", "in", "both"):
            for k in (0, 1, 2, 3):
                want = ref.k_hop(seeds, k, relations, direction)
                assert g.k_hop(seeds, k, relations, direction).tolist() == sorted(want)
                got = g.k_hop(seeds, k, relations, direction, include_seeds=False).tolist()
                assert got == sorted(want - set(seeds))


PATHS = [
    ["acted_in"],
    ["acted_in^-1", "directed_by"],
    ["likes", "likes", "likes^-1"],
    ["directed_by^-1", "acted_in", "acted_in^-1"],
    [],
]


@pytest.mark.parametrize(("n", "m", "seed"), CASES)
def test_follow_and_follow_each(n: int, m: int, seed: int) -> None:
    g, ref, _ = random_graph(n, m, seed)
    rng = np.random.default_rng(seed)
    groups = [rng.integers(0, n, int(rng.integers(0, 5))).tolist() for _ in range(6)]
    for path in PATHS:
        for grp in groups:
            assert g.follow(grp, path).tolist() == sorted(ref.follow(grp, path))
        each = g.follow_each(groups, path)
        assert len(each) == len(groups)
        for grp, got in zip(groups, each, strict=True):
            assert got.tolist() == sorted(ref.follow(grp, path))
            assert got.dtype == np.int32
    assert g.follow_each([], ["likes"]) == []


@pytest.mark.parametrize(("n", "m", "seed"), CASES)
def test_degree(n: int, m: int, seed: int) -> None:
    g, ref, (src, _, dst) = random_graph(n, m, seed)
    for relation in [None, *RELS, "likes^-1"]:
        for direction in ("out", "in", "both"):
            assert g.degree(relation, direction).tolist() == ref.degree(relation, direction).tolist()
    assert g.degree(None, "both").sum() == 2 * len(src)
    isolated = np.setdiff1d(np.arange(n), np.concatenate([src, dst]))
    assert (g.degree(None, "both")[isolated] == 0).all()


@pytest.mark.parametrize(("n", "m", "seed"), CASES)
def test_steps_of_a_node(n: int, m: int, seed: int) -> None:
    """The steps that lead anywhere from one node, dense and compact layouts alike."""
    g, ref, _ = random_graph(n, m, seed)
    steps = [*RELS, *(r + "^-1" for r in RELS)]
    for node in range(n):
        want = [s for s in steps if ref.degree(s, "out")[node] > 0]
        assert g.steps_of(node, steps) == want


def test_save_load_mmap_round_trip(tmp_path) -> None:
    g, ref, (src, rel, dst) = random_graph(300, 1200, 9)
    g.save(tmp_path / "g")
    loaded = Graph.load(tmp_path / "g")
    assert isinstance(loaded._csr["likes"][0], np.memmap)
    in_memory = Graph.load(tmp_path / "g", mmap=False)
    assert not isinstance(in_memory._csr["likes"][0], np.memmap)
    seeds = [0, 5, 17, 299]
    for h in (loaded, in_memory):
        assert h.relations == RELS and h.n_nodes == 300
        assert h.follow(seeds, ["acted_in^-1", "directed_by"]).tolist() == sorted(
            ref.follow(seeds, ["acted_in^-1", "directed_by"])
        )
        assert h.k_hop(seeds, 2).tolist() == g.k_hop(seeds, 2).tolist()
        assert h.degree().tolist() == g.degree().tolist()
    # Through the SKB: saved graph is found and memory-mapped on load.
    ids = [f"n{i}" for i in range(300)]
    skb = SKB.from_columns(ids, ["t"] * 300, ids, edges=(src, rel, dst), relations=RELS)
    skb.save(tmp_path / "skb")
    back = SKB.load(tmp_path / "skb")
    assert isinstance(back.graph._csr["acted_in"][1], np.memmap)
    assert back.graph.neighbor_set(seeds).tolist() == g.neighbor_set(seeds).tolist()


def test_corrupt_graph_dir(tmp_path) -> None:
    g, _, _ = random_graph(7, 20, 2)
    g.save(tmp_path / "g")
    (tmp_path / "g" / "r0.indptr.npy").unlink()
    with pytest.raises(ArtefactError, match="rebuild"):
        Graph.load(tmp_path / "g")


def test_errors() -> None:
    g, _, _ = random_graph(7, 20, 2)
    with pytest.raises(InputError, match="unknown relation 'nope'") as e:
        g.neighbors([0], ["nope"])
    assert e.value.field == "relation"
    with pytest.raises(InputError, match="unknown relation"):
        g.neighbor_set([0], ["acted_in", "nope^-1"])
    with pytest.raises(InputError, match="unknown relation"):
        g.k_hop([0], 2, ["nope"])
    with pytest.raises(InputError, match="unknown relation"):
        g.degree("nope")
    # An unknown relation fails even when the walk has died out before reaching it.
    with pytest.raises(InputError, match="unknown relation"):
        g.follow([], ["acted_in", "nope"])
    with pytest.raises(InputError, match="unknown relation"):
        g.follow_each([[0], []], ["nope"])
    with pytest.raises(ValueError, match="direction"):
        g.neighbors([0], None, "sideways")
    with pytest.raises(ValueError, match="k must be"):
        g.k_hop([0], -1)
    with pytest.raises(InputError, match="out of range") as e:
        g.follow([7], ["likes"])
    assert e.value.field == "seeds"
    with pytest.raises(InputError, match="out of range"):
        g.neighbors([-1])


def test_unique_sorted() -> None:
    rng = np.random.default_rng(0)
    for size in (0, 1, 2, 1000):
        a = rng.integers(0, 50, size)
        assert unique_sorted(a).tolist() == sorted(set(a.tolist()))


def test_rows_sorted_at_build_and_single_seed_slice(tmp_path):
    """Edges in any order (repeats included): every CSR row is sorted at build, one node's
    neighbours are a slice when its step has no repeated edge, and the flags are saved."""
    from skbsearch.kb.graph import rows_unique_sorted

    rng = np.random.default_rng(0)
    src, dst, rel = rng.integers(0, 50, 400), rng.integers(0, 50, 400), rng.integers(0, 2, 400)
    g = Graph.build(50, src, rel, dst, ["a", "b"])
    clean = Graph.build(50, np.arange(49), np.zeros(49, int), np.arange(1, 50)[::-1], ["a", "b"])
    assert not g.unique_rows("a") and clean.unique_rows("a") and clean.unique_rows("a^-1")
    for graph, (s_, r_, d_) in ((g, (src, rel, dst)), (clean, (np.arange(49), np.zeros(49, int), np.arange(1, 50)[::-1]))):
        for step, r, inv in (("a", 0, False), ("a^-1", 0, True), ("b", 1, False)):
            indptr, indices = graph.adjacency(step)
            for node in range(50):
                assert (np.diff(np.asarray(indices[indptr[node]:indptr[node + 1]])) >= 0).all()
                frm, to = (d_, s_) if inv else (s_, d_)
                expect = sorted({int(t) for f, rr, t in zip(frm, r_, to, strict=True) if f == node and rr == r})
                assert graph.neighbor_set([node], [step]).tolist() == expect
    g.save(tmp_path / "g")
    assert Graph.load(tmp_path / "g")._unique_rows == {k: g.unique_rows(k) for k in g._csr}
    assert not rows_unique_sorted(np.array([0, 2]), np.array([3, 3]))
    assert rows_unique_sorted(np.array([0, 2, 3]), np.array([1, 3, 0]))


def test_compact_steps_round_trip_and_expand(tmp_path, layout) -> None:
    g, ref, _ = random_graph(40, 90, 7)
    assert bool(g._rows) == (layout == "compact")
    g.save(tmp_path / "g")
    h = Graph.load(tmp_path / "g")
    for step in ["acted_in", "likes^-1"]:
        indptr, indices = h.adjacency(step)
        assert len(indptr) == 41  # dense pointers, whatever the layout on disk
        for node in range(40):
            row = sorted(indices[indptr[node]:indptr[node + 1]].tolist())
            base, inv = (step[:-3], True) if step.endswith("^-1") else (step, False)
            want = sorted(d if not inv else s for s, r, d in ref.edges
                          if r == base and (s if not inv else d) == node)
            assert row == want


@pytest.mark.parametrize("seed", range(5))
def test_neighbors_of_one_step_read_the_rows_as_the_merge_does(seed: int) -> None:
    """One step whose rows are sorted without repeats answers with slices of its rows: the
    same per-seed lists as the sorting path (seeds repeated, out of order, empty rows)."""
    rng = np.random.default_rng(seed)
    n, m = 40, 120
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    pairs = sorted(set(zip(src.tolist(), dst.tolist(), strict=True)))  # no repeated edge
    g = Graph.build(n, [a for a, _ in pairs], np.zeros(len(pairs), np.int64), [b for _, b in pairs], ["r"])
    seeds = rng.integers(0, n, 30)
    for step in ("r", "r" + INVERSE_SUFFIX):
        assert g.unique_rows(step)
        fast = g.neighbors(seeds, [step], "out")
        g._unique_rows[step] = False  # the general path: gather, sort, dedupe
        slow = g.neighbors(seeds, [step], "out")
        assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(fast, slow, strict=True))

"""CSR adjacency per relation and direction, with batch traversal.

For every relation ``r`` two CSR matrices are kept: ``r`` (source -> targets) and
``r^-1`` (target -> sources). Saved as ``.npy`` files and memory-mapped on load. All
operations are vectorised over many seed nodes at once.

A graph with many relations over many nodes (Wikidata5M: 822 relations, 4.6M nodes) would
need ``2 x relations x nodes`` row pointers (60 GB) in dense CSR. When the dense pointers
of all steps would pass :data:`DENSE_BUDGET_BYTES`, a step whose rows are mostly empty is
kept *compact*: the sorted ids of its non-empty rows plus pointers for those rows only
(looked up by binary search). :meth:`Graph.adjacency` still returns dense pointers,
expanded on demand for a compact step.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from skbsearch.core.atomic import atomic_dir
from skbsearch.core.csr import check_compressed
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.kb.schema import INVERSE_SUFFIX, split_direction

#: Above this many bytes of dense row pointers (all steps together), sparse steps go compact.
DENSE_BUDGET_BYTES = 256 << 20
#: ... and a step goes compact when fewer than this share of the nodes have a row in it.
COMPACT_ROW_SHARE = 0.25


def _csr(n: int, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.lexsort((cols, rows))  # by row, then by neighbour: every row sorted
    indices = np.ascontiguousarray(cols[order], dtype=np.int32)
    counts = np.bincount(rows, minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr, indices


def _compact_csr(rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(row ids, pointers over those rows, indices)``: CSR without the empty rows."""
    order = np.lexsort((cols, rows))
    r = rows[order]
    indices = np.ascontiguousarray(cols[order], dtype=np.int32)
    starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]]) if len(r) else np.zeros(0, np.int64)
    ptr = np.append(starts, len(r)).astype(np.int64)
    return r[starts].astype(np.int32), ptr, indices


def _dense_indptr(n: int, rows: np.ndarray, ptr: np.ndarray) -> np.ndarray:
    counts = np.zeros(n, np.int64)
    counts[np.asarray(rows)] = np.diff(np.asarray(ptr))
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr


def rows_unique_sorted(indptr: np.ndarray, indices: np.ndarray) -> bool:
    """Whether every CSR row lists its neighbours strictly increasing (sorted, no repeats)."""
    indices = np.asarray(indices)
    if len(indices) < 2:
        return True
    ok = np.diff(indices) > 0
    starts = np.asarray(indptr[1:-1])
    starts = starts[(starts > 0) & (starts < len(indices))]
    ok[starts - 1] = True  # a new row may start lower
    return bool(ok.all())


def unique_sorted(a: np.ndarray, bound: int | None = None) -> np.ndarray:
    """Sorted unique values (sort + mask: much faster than ``np.unique`` on numpy >= 2.3,
    whose hash-based path is ~100x slower on large int arrays).

    With ``bound`` (all values are ints in ``[0, bound)``) and many values, a bitmap of
    ``bound`` flags replaces the sort: linear instead of ``n log n`` (a 300K-node frontier of
    a 1M-node graph: ~2 ms instead of ~20 ms).
    """
    a = np.asarray(a)
    if bound is not None and len(a) > max(bound // 16, 4096):
        seen = np.zeros(bound, dtype=bool)
        seen[a] = True
        return np.flatnonzero(seen).astype(a.dtype, copy=False)
    a = np.sort(a)
    if len(a) < 2:
        return a
    keep = np.empty(len(a), dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def _gather(indptr: np.ndarray, indices: np.ndarray, seeds: np.ndarray,
            rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Neighbours of every seed, concatenated, and per-seed counts (vectorised); ``rows``:
    the row ids of a compact CSR."""
    starts, counts = _spans(indptr, seeds, rows)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, np.int32), counts
    # positions = starts repeated, plus 0..count-1 within each run
    offs = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    pos = offs + np.arange(total)
    return np.asarray(indices[pos]), counts


def _spans(indptr: np.ndarray, seeds: np.ndarray, rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Start and length of each seed's row (dense pointers, or compact with ``rows``)."""
    if rows is None:
        starts = np.asarray(indptr[seeds])
        return starts, np.asarray(indptr[seeds + 1]) - starts
    if len(rows) == 0:
        z = np.zeros(len(seeds), np.int64)
        return z, z.copy()
    pos = np.minimum(np.searchsorted(rows, seeds), len(rows) - 1)
    hit = np.asarray(rows)[pos] == seeds
    starts = np.asarray(indptr[pos])
    return np.where(hit, starts, 0), np.where(hit, np.asarray(indptr[pos + 1]) - starts, 0)


class Graph:
    """Typed directed multigraph over ``n_nodes`` dense int32 node indices."""

    def __init__(self, n_nodes: int, relations: Sequence[str], csr: dict[str, tuple[np.ndarray, np.ndarray]],
                 unique_rows: dict[str, bool] | None = None, rows: dict[str, np.ndarray] | None = None):
        self.n_nodes = int(n_nodes)
        self.relations = list(relations)
        self._csr = csr
        self._rows = dict(rows or {})  # compact steps: the ids of their non-empty rows
        self._dense: dict[str, np.ndarray] = {}  # dense pointers expanded for compact steps
        # per step: every row sorted without repeats (one node's neighbours are then a
        # slice, no sort); checked on first use when not known from the build
        self._unique_rows: dict[str, bool] = dict(unique_rows or {})

    @classmethod
    def build(
        cls,
        n_nodes: int,
        src: np.ndarray,
        rel: np.ndarray,
        dst: np.ndarray,
        relations: Sequence[str],
    ) -> Graph:
        """Build CSR matrices for every relation in both directions."""
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        rel = np.asarray(rel)
        order = np.argsort(rel, kind="stable")
        bounds = np.searchsorted(rel[order], np.arange(len(relations) + 1))
        squeeze = 2 * len(relations) * (n_nodes + 1) * 8 > DENSE_BUDGET_BYTES
        csr: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        compact: dict[str, np.ndarray] = {}
        for r, name in enumerate(relations):
            sel = order[bounds[r]:bounds[r + 1]]
            s, t = src[sel], dst[sel]
            for step, a, b in ((name, s, t), (name + INVERSE_SUFFIX, t, s)):
                if squeeze and len(unique_sorted(a)) < COMPACT_ROW_SHARE * n_nodes:
                    compact[step], ptr, idx = _compact_csr(a, b)
                    csr[step] = (ptr, idx)
                else:
                    csr[step] = _csr(n_nodes, a, b)
        return cls(n_nodes, relations, csr, {k: rows_unique_sorted(*v) for k, v in csr.items()}, compact)

    def unique_rows(self, step: str) -> bool:
        """Whether every row of a step's CSR is sorted without repeats (cached)."""
        got = self._unique_rows.get(step)
        if got is None:
            got = self._unique_rows[step] = rows_unique_sorted(*self._csr[step])
        return got

    def save(self, path: str | Path) -> None:
        """Write ``graph.json`` and two ``.npy`` files per relation direction, atomically."""
        with atomic_dir(path, kind="graph") as tmp:
            files = {}
            for k, name in enumerate(self._csr):
                indptr, indices = self._csr[name]
                np.save(tmp / f"r{k}.indptr.npy", np.asarray(indptr))
                np.save(tmp / f"r{k}.indices.npy", np.asarray(indices))
                if name in self._rows:
                    np.save(tmp / f"r{k}.rows.npy", np.asarray(self._rows[name]))
                files[name] = f"r{k}"
            meta = {"artefact": "graph", "n_nodes": self.n_nodes, "relations": self.relations,
                    "files": files, "unique_rows": {k: self.unique_rows(k) for k in self._csr},
                    "compact": [k for k in self._csr if k in self._rows]}
            (tmp / "graph.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path, mmap: bool = True) -> Graph:
        """Open a saved graph; arrays are memory-mapped unless ``mmap=False``."""
        path = Path(path)
        try:
            meta = json.loads((path / "graph.json").read_text(encoding="utf-8"))
            mode: Literal["r"] | None = "r" if mmap else None
            n_nodes = int(meta["n_nodes"])
            relations = [str(r) for r in meta["relations"]]
            csr = {}
            compact = {str(x) for x in meta.get("compact", [])}
            rows: dict[str, np.ndarray] = {}
            for name, stem in meta["files"].items():
                arrays = []
                for part in ("indptr", "indices", "rows") if name in compact else ("indptr", "indices"):
                    file = path / f"{stem}.{part}.npy"
                    try:
                        arrays.append(np.load(file, mmap_mode=mode, allow_pickle=False))
                    except EOFError:  # a 0-byte or truncated .npy
                        raise ArtefactError(f"{file}: empty or truncated array file; rebuild the SKB") from None
                csr[str(name)] = (arrays[0], arrays[1])
                if name in compact:
                    rows[str(name)] = arrays[2]
        except (OSError, KeyError, ValueError, TypeError, AttributeError) as e:
            raise ArtefactError(f"{path}: corrupt or incomplete graph ({e}); rebuild the SKB") from None
        missing = [k for r in relations for k in (r, r + INVERSE_SUFFIX) if k not in csr]
        if missing:
            raise ArtefactError(f"{path}: no adjacency arrays for {missing[:3]}; rebuild the SKB")
        for name, (indptr, indices) in csr.items():
            where = f"{path} relation {name!r}"
            r = rows.get(name)
            check_compressed(indptr, indices, n_nodes if r is None else len(r), n_nodes, where=where,
                             hint="rebuild the SKB")
            if r is not None and len(r) and (int(r[0]) < 0 or int(r[-1]) >= n_nodes
                                             or not bool(np.all(np.diff(r) > 0))):
                raise ArtefactError(f"{where}: corrupt row ids (not increasing node ids); rebuild the SKB")
        known = meta.get("unique_rows")
        return cls(n_nodes, relations, csr,
                   {str(k): bool(v) for k, v in known.items()} if isinstance(known, dict) else None, rows)

    # ------------------------------------------------------------------ helpers
    def _rel_names(self, relations: Iterable[str] | None, direction: str) -> list[str]:
        if direction not in ("out", "in", "both"):
            raise ValueError("direction must be 'out', 'in' or 'both'")
        base = self.relations if relations is None else list(relations)
        out = []
        for r in base:
            name, inv = split_direction(r)
            if name not in self.relations:
                raise InputError(f"unknown relation {r!r}; relations are {self.relations}", field="relation")
            fwd = name + INVERSE_SUFFIX if inv else name
            bwd = name if inv else name + INVERSE_SUFFIX
            if direction in ("out", "both"):
                out.append(fwd)
            if direction in ("in", "both"):
                out.append(bwd)
        return out

    def _seeds(self, seeds: Iterable[int] | np.ndarray) -> np.ndarray:
        s = np.asarray(seeds if isinstance(seeds, np.ndarray) else list(seeds), dtype=np.int64).ravel()
        if len(s) and (s.min() < 0 or s.max() >= self.n_nodes):
            raise InputError("seed node index out of range", field="seeds")
        return s

    # ------------------------------------------------------------------ operations
    def adjacency(self, step: str) -> tuple[np.ndarray, np.ndarray]:
        """The CSR ``(indptr, indices)`` of one step: a relation ``r`` (out-edges) or ``r^-1``."""
        if step not in self._csr:
            raise InputError(f"unknown relation step {step!r}", field="relation")
        if step not in self._rows:
            return self._csr[step]
        if step not in self._dense:
            if len(self._dense) >= 32:  # bound the expanded copies (n + 1 pointers each)
                self._dense.pop(next(iter(self._dense)))
            self._dense[step] = _dense_indptr(self.n_nodes, self._rows[step], self._csr[step][0])
        return self._dense[step], self._csr[step][1]

    def steps_of(self, node: int, steps: Iterable[str]) -> list[str]:
        """Those of ``steps`` (``r`` or ``r^-1``) that lead anywhere from one node (O(1) a
        step on dense pointers, a binary search on compact ones)."""
        out = []
        for step in steps:
            indptr, _ = self._csr[step]
            rows = self._rows.get(step)
            if rows is None:
                if indptr[node + 1] > indptr[node]:
                    out.append(step)
                continue
            i = int(np.searchsorted(rows, node))
            if i < len(rows) and rows[i] == node and indptr[i + 1] > indptr[i]:
                out.append(step)
        return out

    def degree(self, relation: str | None = None, direction: str = "out") -> np.ndarray:
        """Per-node degree over one relation (or all) in a direction."""
        deg = np.zeros(self.n_nodes, dtype=np.int64)
        for name in self._rel_names(None if relation is None else [relation], direction):
            if name in self._rows:
                deg[np.asarray(self._rows[name])] += np.diff(np.asarray(self._csr[name][0]))
            else:
                deg += np.diff(self._csr[name][0])
        return deg

    def neighbors(
        self,
        seeds: Iterable[int] | np.ndarray,
        relations: Iterable[str] | None = None,
        direction: str = "out",
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per-seed neighbour lists as ``(offsets, neighbours)`` (CSR over the seeds).

        The neighbours of ``seeds[i]`` are ``neighbours[offsets[i]:offsets[i+1]]``,
        sorted and unique, over the given relations (``r`` or ``r^-1``) and direction.
        """
        s = self._seeds(seeds)
        names = self._rel_names(relations, direction)
        if len(names) == 1 and self.unique_rows(names[0]):  # each seed's row is its answer: no sort
            indptr, indices = self._csr[names[0]]
            nb, counts = _gather(indptr, indices, s, self._rows.get(names[0]))
            offsets = np.zeros(len(s) + 1, np.int64)
            np.cumsum(counts, out=offsets[1:])
            return offsets, np.asarray(nb, np.int32)
        parts, owners = [], []
        for name in names:
            indptr, indices = self._csr[name]
            nb, counts = _gather(indptr, indices, s, self._rows.get(name))
            parts.append(nb)
            owners.append(np.repeat(np.arange(len(s)), counts))
        if not parts:
            return np.zeros(len(s) + 1, np.int64), np.zeros(0, np.int32)
        nb = np.concatenate(parts).astype(np.int64)
        ow = np.concatenate(owners)
        key = unique_sorted(ow * self.n_nodes + nb)
        ow_u, nb_u = key // self.n_nodes, key % self.n_nodes
        offsets = np.zeros(len(s) + 1, np.int64)
        np.cumsum(np.bincount(ow_u, minlength=len(s)), out=offsets[1:])
        return offsets, nb_u.astype(np.int32)

    def neighbor_set(
        self,
        seeds: Iterable[int] | np.ndarray,
        relations: Iterable[str] | None = None,
        direction: str = "out",
    ) -> np.ndarray:
        """Union of the neighbours of all seeds (sorted, unique)."""
        s = self._seeds(seeds)
        names = self._rel_names(relations, direction)
        if len(s) == 1 and len(names) == 1 and self.unique_rows(names[0]):
            indptr, indices = self._csr[names[0]]  # one sorted row: a slice
            (start,), (count,) = _spans(indptr, s, self._rows.get(names[0]))
            return np.array(indices[int(start) : int(start + count)], dtype=np.int32)
        parts = [_gather(*self._csr[n], s, self._rows.get(n))[0] for n in names]
        if not parts:
            return np.zeros(0, np.int32)
        return unique_sorted(np.concatenate(parts), self.n_nodes).astype(np.int32)

    def k_hop(
        self,
        seeds: Iterable[int] | np.ndarray,
        k: int,
        relations: Iterable[str] | None = None,
        direction: str = "both",
        include_seeds: bool = True,
    ) -> np.ndarray:
        """All nodes within ``k`` hops of any seed (sorted, unique)."""
        if k < 0:
            raise ValueError("k must be >= 0")
        frontier = unique_sorted(self._seeds(seeds))
        seen = frontier.copy()
        for _ in range(k):
            if len(frontier) == 0:
                break
            nxt = self.neighbor_set(frontier, relations, direction).astype(np.int64)
            frontier = np.setdiff1d(nxt, seen, assume_unique=True)
            seen = unique_sorted(np.concatenate([seen, frontier]))
        if not include_seeds:
            seen = np.setdiff1d(seen, self._seeds(seeds))
        return seen.astype(np.int32)

    def follow(self, seeds: Iterable[int] | np.ndarray, path: Sequence[str]) -> np.ndarray:
        """Nodes reached from any seed by walking the relation ``path`` (sorted, unique).

        ``path`` is a list of relation names; ``r^-1`` walks ``r`` backwards, e.g.
        ``["starred_actors^-1", "directed_by"]``: movies an actor starred in, then their
        directors.
        """
        self._rel_names(list(path), "out")  # unknown relations fail even if the walk dies early
        frontier = unique_sorted(self._seeds(seeds))
        for step in path:
            if len(frontier) == 0:
                break
            frontier = self.neighbor_set(frontier, [step], "out")
        return frontier.astype(np.int32)

    def follow_each(
        self, seed_groups: Sequence[Iterable[int]], path: Sequence[str]
    ) -> list[np.ndarray]:
        """:meth:`follow` for many independent seed groups (one per query), batched."""
        groups = [unique_sorted(self._seeds(g)) for g in seed_groups]
        owners = np.concatenate([np.full(len(g), i, np.int64) for i, g in enumerate(groups)] or [np.zeros(0, np.int64)])
        nodes = np.concatenate(groups or [np.zeros(0, np.int64)]).astype(np.int64)
        for name in self._rel_names(list(path), "out"):
            if len(nodes) == 0:
                break
            nb, counts = _gather(*self._csr[name], nodes, self._rows.get(name))
            key = unique_sorted(np.repeat(owners, counts) * self.n_nodes + nb.astype(np.int64))
            owners, nodes = key // self.n_nodes, key % self.n_nodes
        bounds = np.searchsorted(owners, np.arange(len(groups) + 1))
        return [nodes[bounds[i] : bounds[i + 1]].astype(np.int32) for i in range(len(groups))]

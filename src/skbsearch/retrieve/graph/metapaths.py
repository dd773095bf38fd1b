"""Metapaths over an SKB: typed relation chains, following them, mining them from answers.

A *metapath* is a start node type and a chain of relation steps (``r`` or ``r^-1``),
written as a tuple ``(start_type, step_1, ..., step_k)``: ``("brand", "has_brand^-1")``
(products of a brand), ``("person", "starred_actors^-1", "directed_by")`` (directors of
an actor's films). ``k = 0`` — just ``(start_type,)`` — means "this anchor names no path".

:class:`TypeGraph` holds which steps lead from which node type to which (read from the
edges, so it is right even where the schema's relation roles are ambiguous).
:func:`mine_metapaths` finds, for many (anchor, answer set) pairs at once, the metapaths
whose reached set covers the answers best (STaRK's relational templates, learned rather
than written). Walks never pass through their own anchor again (``no_return``): "films
that share a director with X" are films other than X.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from skbsearch.kb.graph import unique_sorted
from skbsearch.kb.schema import INVERSE_SUFFIX
from skbsearch.kb.store import SKB

Metapath = tuple[str, ...]


def steps_of(path: Metapath) -> tuple[str, ...]:
    """The relation steps of a metapath (without its start type)."""
    return tuple(path[1:])


def path_text(path: Metapath) -> str:
    """Readable form: ``brand -has_brand^-1->``."""
    return " -> ".join(path)


def _unique_inverse(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(a, return_inverse=True)`` by one sort (numpy's hash-based path is slow here)."""
    if not len(a):
        return a, np.zeros(0, np.int64)
    order = np.argsort(a, kind="stable")
    s = a[order]
    first = np.empty(len(s), dtype=bool)
    first[0] = True
    np.not_equal(s[1:], s[:-1], out=first[1:])
    inv = np.empty(len(a), np.int64)
    inv[order] = np.cumsum(first) - 1
    return s[first], inv


def type_triples(skb: SKB, codes: np.ndarray, n_types: int) -> list[tuple[str, int, int]]:
    """The distinct ``(relation, source type code, target type code)`` of the SKB's edges.

    Read off the CSR graph's degrees: a relation whose sources (or targets) all have one
    type links every source type to every target type it reaches, so only relations with
    several types at both ends scan their edges (their CSR rows), never ``edges.parquet``.
    """
    g = skb.graph
    out: list[tuple[str, int, int]] = []
    for rel in skb.schema.relations:
        indptr, indices = g.adjacency(rel)
        deg = np.diff(np.asarray(indptr))
        if not deg.any():
            continue
        src_t = np.flatnonzero(np.bincount(codes[deg > 0], minlength=n_types))
        in_deg = np.diff(np.asarray(g.adjacency(rel + INVERSE_SUFFIX)[0]))
        dst_t = np.flatnonzero(np.bincount(codes[in_deg > 0], minlength=n_types))
        if len(src_t) == 1 or len(dst_t) == 1:
            out += [(rel, int(a), int(b)) for a in src_t for b in dst_t]
            continue
        src = np.repeat(np.arange(len(deg)), deg)
        key = np.unique(codes[src] * n_types + codes[np.asarray(indices)])
        out += [(rel, int(k // n_types), int(k % n_types)) for k in key.tolist()]
    return out


class TypeGraph:
    """Which relation steps lead from each node type to which types, as seen in the edges.

    A metapath's steps are followed from all nodes of the frontier whatever their type
    (a KB may give a relation's targets several types), so a walk's position is a *set*
    of node types.

    Args:
        skb: the knowledge base.
    """

    def __init__(self, skb: SKB) -> None:
        self.skb = skb
        self.types = list(skb.type_names)
        codes = skb.node_type_codes.astype(np.int64)
        self.codes = codes
        #: nodes per type
        self.type_count = np.bincount(codes, minlength=len(self.types)).astype(np.float64)
        T = max(len(self.types), 1)
        rels = skb.schema.relations
        found: dict[str, dict[str, set[str]]] = {t: {} for t in self.types}
        for rel, st, dt in type_triples(skb, codes, T):
            a, b = self.types[st], self.types[dt]
            found[a].setdefault(rel, set()).add(b)
            found[b].setdefault(rel + INVERSE_SUFFIX, set()).add(a)
        order = {r: i for i, r in enumerate(rels)}
        #: type -> [(step, destination types)], in relation order
        self.steps_from: dict[str, list[tuple[str, frozenset[str]]]] = {
            t: sorted(((step, frozenset(d)) for step, d in steps.items()),
                      key=lambda x: (order[x[0].removesuffix(INVERSE_SUFFIX)], x[0]))
            for t, steps in found.items()}
        self._enumerated: dict[tuple[str, int, tuple[str, ...] | None], list[Metapath]] = {}
        self._ends: dict[Metapath, frozenset[str]] = {}
        self._degrees: dict[str, np.ndarray] = {}
        self._next: dict[frozenset[str], list[tuple[str, frozenset[str]]]] = {}

    def next_steps(self, types: frozenset[str]) -> list[tuple[str, frozenset[str]]]:
        """Steps that leave any of ``types``, with the types they lead to (cached per set:
        walks over a schema of many types meet the same type sets again and again)."""
        got = self._next.get(types)
        if got is None:
            merged: dict[str, set[str]] = {}
            for t in sorted(types):
                for step, dst in self.steps_from.get(t, ()):
                    merged.setdefault(step, set()).update(dst)
            got = [(step, frozenset(d)) for step, d in merged.items()]
            if len(self._next) < 100_000:
                self._next[types] = got
        return got

    def node_steps(self, node: int) -> frozenset[str]:
        """The steps that lead anywhere from one node (its type's steps with a neighbour)."""
        steps = self.steps_from.get(self.types[int(self.codes[node])], ())
        return frozenset(self.skb.graph.steps_of(int(node), [step for step, _ in steps]))

    def enumerate(self, start: str, max_hops: int, end_types: Sequence[str] | None = None) -> list[Metapath]:
        """Metapaths from ``start`` with 1..``max_hops`` steps (ending in ``end_types`` if given)."""
        key = (start, max_hops, tuple(sorted(end_types)) if end_types is not None else None)
        if key not in self._enumerated:
            self._enumerated[key] = self._enumerate(start, max_hops, end_types)
        return self._enumerated[key]

    def _enumerate(self, start: str, max_hops: int, end_types: Sequence[str] | None) -> list[Metapath]:
        out: list[Metapath] = []
        ends = set(end_types) if end_types is not None else None

        def walk(path: Metapath, cur: frozenset[str]) -> None:
            if len(path) > 1 and (ends is None or cur & ends):
                out.append(path)
            if len(path) - 1 >= max_hops:
                return
            for step, nxt in self.next_steps(cur):
                walk((*path, step), nxt)

        walk((start,), frozenset([start]))
        return out

    def end_types(self, path: Metapath) -> frozenset[str]:
        """The node types a metapath can end in (empty if its steps do not fit the schema)."""
        got = self._ends.get(path)
        if got is None:
            got = frozenset([path[0]])
            for step in steps_of(path):
                got = next((d for s, d in self.next_steps(got) if s == step), frozenset())
            self._ends[path] = got
        return got

    def out_degree(self, step: str) -> np.ndarray:
        """Per-node number of ``step`` neighbours (cached per step)."""
        if step not in self._degrees:
            self._degrees[step] = self.skb.graph.degree(step, "out").astype(np.float64)
        return self._degrees[step]

    def step(self, owners: np.ndarray, nodes: np.ndarray, step: str,
             seeds: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """One step for many walks at once: ``(owner, node)`` pairs -> the next pairs.

        Pairs come back sorted by owner then node, unique; with ``seeds`` (one per owner),
        a walk never returns to its seed.
        """
        n = self.skb.num_nodes
        uniq, inv = _unique_inverse(nodes)  # walks share nodes: look each up once
        offsets, found = self.skb.graph.neighbors(uniq, [step], "out")
        counts = np.diff(offsets)[inv]
        total = int(counts.sum())
        own = np.repeat(owners, counts)
        starts = np.repeat(offsets[:-1][inv] - (np.cumsum(counts) - counts), counts)
        nb = found[starts + np.arange(total)].astype(np.int64)
        if seeds is not None:
            keep = nb != seeds[own]
            own, nb = own[keep], nb[keep]
        key = unique_sorted(own * n + nb)
        return key // n, key % n

    def follow(self, seed: int, path: Metapath, *, no_return: bool = True,
               max_frontier: int | None = None) -> np.ndarray:
        """Nodes reached from ``seed`` along ``path`` (sorted; empty if a frontier grows too big)."""
        frontier = np.array([seed], np.int64)
        for step in steps_of(path):
            frontier = self.extend(frontier, seed, step, no_return=no_return, max_frontier=max_frontier)
            if not len(frontier):
                break
        return frontier

    def extend(self, frontier: np.ndarray, seed: int, step: str, *, no_return: bool = True,
               max_frontier: int | None = None) -> np.ndarray:
        """One step of :meth:`follow`: the nodes one ``step`` away from ``frontier`` (sorted;
        empty if more than ``max_frontier``; ``no_return``: never the walk's ``seed``)."""
        nxt = self.skb.graph.neighbor_set(frontier, [step], "out").astype(np.int64)
        if no_return:
            nxt = nxt[nxt != seed]
        if max_frontier is not None and len(nxt) > max_frontier:
            return np.zeros(0, np.int64)
        return nxt

    def witness(self, seed: int, path: Metapath, target: int,
                frontiers: Sequence[np.ndarray] | None = None) -> list[int] | None:
        """One chain of nodes ``seed, n1, ..., target`` that instantiates ``path`` (or ``None``).

        ``frontiers``: the nodes reached after each step (``[seed]`` first), when the
        caller has walked the path already (as the graph stage has, for every result).
        """
        if frontiers is None:
            frontiers = [np.array([seed], np.int64)]
            for step in steps_of(path):
                _, nxt = self.step(np.zeros(len(frontiers[-1]), np.int64), frontiers[-1], step,
                                   np.array([seed], np.int64))
                frontiers.append(nxt)
        if not bool(np.any(frontiers[-1] == target)):
            return None
        chain = [target]
        for k in range(len(frontiers) - 1, 0, -1):
            step = path[k]
            inv = step[: -len(INVERSE_SUFFIX)] if step.endswith(INVERSE_SUFFIX) else step + INVERSE_SUFFIX
            _, back = self.skb.graph.neighbors([chain[-1]], [inv], "out")
            prev = _members(back.astype(np.int64), frontiers[k - 1])
            if not len(prev):
                return None
            chain.append(int(prev.min()))
        return chain[::-1]


def _members(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """The ``values`` found in the sorted array ``sorted_set`` (binary search, no sort of it)."""
    if not len(values) or not len(sorted_set):
        return values[:0]
    pos = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return values[sorted_set[pos] == values]


@dataclass(frozen=True)
class MinedPath:
    """The metapath that best connects one anchor to one answer set (``tied``: every
    metapath with the same best F1, the chosen one first)."""

    path: Metapath
    f1: float
    recall: float
    tied: tuple[Metapath, ...] = ()


def mine_metapaths(
    tg: TypeGraph,
    seeds: Sequence[int],
    answers: Sequence[np.ndarray],
    *,
    max_hops: int = 3,
    min_recall: float = 0.5,
    min_lift: float = 3.0,
    hop_cost: float = 0.05,
    max_frontier: int = 5000,
    chunk: int = 2000,
    max_paths: int = 5000,
) -> list[MinedPath]:
    """For each ``(seed, answer set)`` pair: the metapath covering the answers best.

    Candidates are the metapaths from the seed's type (up to ``max_hops`` steps, walks
    never returning to the seed) whose reached set holds at least ``min_recall`` of the
    answers and is informative: its precision is at least ``min_lift`` times the answers'
    share ``b`` of the nodes of their (majority) type, or at least ``(1 + b) / 2`` when that is lower
    (reaching every year "covers" any year answer, but says nothing). The best F1 of reached set vs answers, less ``hop_cost`` per step beyond
    the first, wins (a longer path must explain the answers clearly better); ties go to the
    shorter path, then to the path most often tied-best over all pairs. Pairs with no candidate
    get the empty metapath ``(start_type,)`` ("no path"). Beyond the first hop, a step
    that would reach more than ``max_frontier`` nodes is not taken (walks into hubs such as
    every product of a category are far bigger than an answer set; the first hop may be,
    as the anchor itself may be such a hub). The work is bounded per seed type: when its
    schema has more than ``max_paths`` metapaths of ``max_hops - 1`` steps (a KG of hundreds
    of relations), one hop fewer is mined from it.
    """
    seeds_a = np.asarray(seeds, np.int64)
    n = tg.skb.num_nodes
    records: list[tuple[int, Metapath, float, float]] = []
    by_type: dict[int, list[int]] = {}
    for i, s in enumerate(seeds_a.tolist()):
        by_type.setdefault(int(tg.codes[s]), []).append(i)
    for code, items in by_type.items():
        start = tg.types[code]
        hops = max_hops
        while hops > 1 and len(tg.enumerate(start, hops - 1)) > max_paths:
            hops -= 1
        for c in range(0, len(items), chunk):
            idx = np.asarray(items[c : c + chunk], np.int64)
            ans = [np.asarray(answers[i], np.int64) for i in idx.tolist()]
            akey = unique_sorted(np.concatenate(
                [np.full(len(a), j, np.int64) * n + a for j, a in enumerate(ans)] or [np.zeros(0, np.int64)]))
            n_ans = np.array([len(np.unique(a)) for a in ans], np.float64)
            pool = np.array([tg.type_count[np.bincount(tg.codes[a]).argmax()] if len(a) else 1.0
                             for a in ans])
            ends = frozenset(tg.types[int(c)] for c in np.unique(tg.codes[akey % n])) if len(akey) else frozenset()
            _mine_dfs(tg, start, idx, seeds_a[idx], akey, (n_ans, pool), hops, (min_recall, min_lift),
                      max_frontier, records, ends)
    return _choose(records, [tg.types[int(tg.codes[s])] for s in seeds_a.tolist()], hop_cost)


def _mine_dfs(tg: TypeGraph, start: str, idx: np.ndarray, seeds: np.ndarray, akey: np.ndarray,
              sizes: tuple[np.ndarray, np.ndarray], max_hops: int, limits: tuple[float, float],
              max_frontier: int, records: list[tuple[int, Metapath, float, float]],
              ends: frozenset[str] | None = None) -> None:
    """Depth-first over metapaths from ``start`` for many seeds at once; the last hop only
    by steps that can reach one of the answers' types ``ends`` (others cannot recall any)."""
    n = tg.skb.num_nodes
    m = len(idx)
    n_ans, pool = sizes
    min_recall, min_lift = limits
    base = n_ans / np.maximum(pool, 1.0)

    def visit(path: Metapath, cur: frozenset[str], owners: np.ndarray, nodes: np.ndarray) -> None:
        last = len(path) == max_hops  # the step taken now is the last one
        for step, dst in tg.next_steps(cur):
            if last and ends is not None and not dst & ends:
                continue
            if len(path) > 1:  # beyond the first hop, walks into hubs are not followed
                est = np.bincount(owners, weights=tg.out_degree(step)[nodes], minlength=m)
                fits = est[owners] <= max_frontier
                if not fits.any():
                    continue
                own, nxt = tg.step(owners[fits], nodes[fits], step, seeds)
            else:
                own, nxt = tg.step(owners, nodes, step, seeds)
            if not len(nxt):
                continue
            new = (*path, step)
            size = np.bincount(own, minlength=m).astype(np.float64)
            pos = np.searchsorted(akey, own * n + nxt)
            hit = (pos < len(akey)) & (akey[np.minimum(pos, len(akey) - 1)] == own * n + nxt)
            inter = np.bincount(own[hit], minlength=m).astype(np.float64)
            with np.errstate(invalid="ignore", divide="ignore"):
                recall = np.where(n_ans > 0, inter / np.maximum(n_ans, 1), 0.0)
                f1 = np.where(inter > 0, 2 * inter / (size + n_ans), 0.0)
                precision = inter / np.maximum(size, 1)
                informative = (precision >= np.minimum(min_lift * base, (1.0 + base) / 2)) & (precision > base + 1e-9)
            for j in np.flatnonzero((recall >= min_recall) & informative).tolist():
                records.append((int(idx[j]), new, float(f1[j]), float(recall[j])))
            if len(new) - 1 < max_hops:
                visit(new, dst, own, nxt)

    visit((start,), frozenset([start]), np.arange(m, dtype=np.int64), seeds.astype(np.int64))


def _choose(records: list[tuple[int, Metapath, float, float]], starts: list[str],
            hop_cost: float) -> list[MinedPath]:
    best: dict[int, float] = {}
    for i, p, f1, _ in records:
        best[i] = max(best.get(i, -1.0), f1 - hop_cost * (len(p) - 2))
    tied: dict[int, list[tuple[Metapath, float, float]]] = {}
    for i, p, f1, rec in records:
        if f1 - hop_cost * (len(p) - 2) >= best[i] - 1e-9:
            tied.setdefault(i, []).append((p, f1, rec))
    freq: Counter[Metapath] = Counter(p for opts in tied.values() for p, _, _ in opts)
    out = []
    for i, start in enumerate(starts):
        opts = tied.get(i)
        if not opts:
            out.append(MinedPath((start,), 0.0, 0.0))
            continue
        opts.sort(key=lambda o: (len(o[0]), -freq[o[0]], o[0]))
        p, f1, rec = opts[0]
        out.append(MinedPath(p, f1, rec, tuple(o[0] for o in opts)))
    return out

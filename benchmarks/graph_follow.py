"""Graph traversal latency: skbsearch's memory-mapped CSR ``Graph`` vs scipy.sparse vs networkx.

Protocol:

1. Build the synthetic catalogue SKB without text (``generate_catalogue(N,
   with_text=False)``, seeded): N products + brands/categories/colours, ~10 edges per
   product over 5 relations. Save it (``SKB.save``: parquet + CSR ``.npy``) and load it
   back memory-mapped, as ``skb`` commands do.
2. Pick ``--seeds`` random products. Operations (each checked to give the same node set
   in every implementation):
   - ``follow_ab_av``: ``follow(seeds, ["also_bought", "also_viewed"])`` (2-hop path);
   - ``follow_brand``: ``follow(seeds, ["has_brand", "has_brand^-1"])`` (through hub nodes);
   - ``k_hop_ab_av``: ``k_hop(seeds, 2, ["also_bought", "also_viewed"], "both")``;
   - ``k_hop_all``: ``k_hop(seeds, 2)`` over every relation, both directions (reaches the
     colour/category hubs, so a large part of the graph);
   - ``neighbors``: per-seed neighbour lists over every relation, both directions.
3. Peers, in the same process on the same arrays: scipy.sparse CSR matrices (a sparse
   frontier row vector times the relation matrix per hop, the usual SpMV formulation;
   for ``neighbors``, row slicing of the summed adjacency), and ``--peer-dense`` a dense
   0/1 frontier vector (``A.T @ x``). networkx (if installed) on a smaller catalogue
   (``--nx-products``) with skbsearch re-timed on that same small graph.
4. Each op: one warm-up, then ``--repeats`` timed calls; median and p95 in ms.

Usage::

    python benchmarks/graph_follow.py --products 1000000 --json graph_follow.json
"""

from __future__ import annotations

import argparse
import gc
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from skbsearch.benchmarks.measure import log, peak_rss_gb
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.kb.graph import Graph, unique_sorted
from skbsearch.kb.store import SKB
from skbsearch.synth.catalogue import generate_catalogue

AB_AV = ["also_bought", "also_viewed"]
OPS = {
    "follow_ab_av": ("follow", AB_AV),
    "follow_brand": ("follow", ["has_brand", "has_brand^-1"]),
    "k_hop_ab_av": ("k_hop", AB_AV),
    "k_hop_all": ("k_hop", None),
    "neighbors": ("neighbors", None),
}


def timed(fn: Callable[[], Any], repeats: int) -> tuple[dict[str, float], Any]:
    """Warm up once, then time ``repeats`` calls: median/p95/min in ms, and the last result."""
    out = fn()
    ms = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        ms.append((time.perf_counter() - t) * 1e3)
    return {"p50": float(np.median(ms)), "p95": float(np.percentile(ms, 95)), "min": float(min(ms))}, out


def ours(g: Graph, op: str, seeds: np.ndarray) -> Callable[[], Any]:
    """The skbsearch call for ``op``."""
    kind, rels = OPS[op]
    if kind == "follow":
        return lambda: g.follow(seeds, rels)
    if kind == "k_hop":
        return lambda: g.k_hop(seeds, 2, rels, "both")
    return lambda: g.neighbors(seeds, None, "both")


class ScipyPeer:
    """The same traversals with scipy.sparse CSR matrices (built from the same CSR arrays)."""

    def __init__(self, g: Graph, dense: bool = False) -> None:
        n = g.n_nodes
        self.n, self.dense = n, dense
        self.mats = {}
        for name, (indptr, indices) in g._csr.items():
            data = np.ones(len(indices), dtype=np.float32)
            self.mats[name] = sp.csr_matrix((data, np.asarray(indices), np.asarray(indptr)), shape=(n, n))
        both_ab = [self.mats[r] + self.mats[r + "^-1"] for r in AB_AV]
        self.union = {"ab_av": (both_ab[0] + both_ab[1]).tocsr(), "all": sum(self.mats.values()).tocsr()}
        self.t_union = {k: m.T.tocsr() for k, m in self.union.items()} if dense else {}

    def _step(self, frontier: np.ndarray, m: sp.csr_matrix, mt: sp.csr_matrix | None) -> np.ndarray:
        if self.dense:
            x = np.zeros(self.n, np.float32)
            x[frontier] = 1.0
            return np.flatnonzero(mt @ x)
        x = sp.csr_matrix((np.ones(len(frontier), np.float32), frontier, [0, len(frontier)]), shape=(1, self.n))
        return np.sort((x @ m).indices)

    def call(self, op: str, seeds: np.ndarray) -> Callable[[], Any]:
        """The scipy version of ``op``."""
        kind, rels = OPS[op]
        if kind == "follow":
            mts = {r: self.mats[r].T.tocsr() for r in rels} if self.dense else {}

            def follow() -> np.ndarray:
                f = np.unique(seeds)
                for r in rels:
                    f = self._step(f, self.mats[r], mts.get(r))
                return f

            return follow
        if kind == "k_hop":
            key = "ab_av" if rels else "all"

            def k_hop() -> np.ndarray:
                seen = np.unique(seeds)
                frontier = seen
                for _ in range(2):
                    nxt = self._step(frontier, self.union[key], self.t_union.get(key))
                    frontier = nxt[~np.isin(nxt, seen)]
                    seen = np.union1d(seen, frontier)
                return seen

            return k_hop
        rows = self.union["all"]
        return lambda: [np.sort(rows[int(s)].indices) for s in seeds]


def nx_follow(G: Any, seeds: list[int], path: list[str]) -> set[int]:
    """follow() with networkx: walk out-edges (or in-edges for ``r^-1``) with key == relation."""
    frontier = set(seeds)
    for step in path:
        inv = step.endswith("^-1")
        rel = step[:-3] if inv else step
        nxt: set[int] = set()
        for u in frontier:
            edges = G.in_edges(u, keys=True) if inv else G.out_edges(u, keys=True)
            nxt.update(a if inv else b for a, b, k in edges if k == rel)
        frontier = nxt
    return frontier


def nx_k_hop(G: Any, seeds: list[int], rels: set[str]) -> set[int]:
    """k_hop(2, both directions) with networkx over relations ``rels``."""
    seen, frontier = set(seeds), set(seeds)
    for _ in range(2):
        nxt: set[int] = set()
        for u in frontier:
            nxt.update(b for _, b, k in G.out_edges(u, keys=True) if k in rels)
            nxt.update(a for a, _, k in G.in_edges(u, keys=True) if k in rels)
        frontier = nxt - seen
        seen |= frontier
    return seen


def run_networkx(n_products: int, n_seeds: int, repeats: int, seed: int) -> dict[str, Any]:
    """networkx vs skbsearch on a smaller catalogue (in memory, same process)."""
    import networkx as nx

    ds = generate_catalogue(n_products, seed=seed, n_queries=0, with_text=False)
    skb = ds.skb
    rels = skb.schema.relations
    t = time.perf_counter()
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(skb.num_nodes))
    G.add_edges_from(zip(skb.edge_src.tolist(), skb.edge_dst.tolist(), [rels[r] for r in skb.edge_rel], strict=True))
    build_s = time.perf_counter() - t
    seeds = np.random.default_rng(seed + 1).choice(n_products, n_seeds, replace=False)
    out: dict[str, Any] = {"products": n_products, "nodes": skb.num_nodes, "edges": skb.num_edges,
                           "nx_build_s": round(build_s, 2), "ops": {}}
    for op, fn_nx in (
        ("follow_ab_av", lambda: nx_follow(G, seeds.tolist(), AB_AV)),
        ("follow_brand", lambda: nx_follow(G, seeds.tolist(), ["has_brand", "has_brand^-1"])),
        ("k_hop_ab_av", lambda: nx_k_hop(G, seeds.tolist(), set(AB_AV))),
    ):
        lat_o, res_o = timed(ours(skb.graph, op, seeds), repeats)
        lat_n, res_n = timed(fn_nx, max(3, repeats // 4))
        assert set(res_o.tolist()) == res_n, f"networkx disagrees on {op}"
        out["ops"][op] = {"skbsearch": lat_o, "networkx": lat_n, "size": len(res_n)}
    return out


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print / write the result."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--products", type=int, default=1_000_000)
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workdir", type=Path, default=None, help="where to save the SKB (default: a temp dir)")
    p.add_argument("--peer-dense", action="store_true", help="also time scipy with a dense frontier vector")
    p.add_argument("--nx-products", type=int, default=50_000, help="networkx graph size (0: skip)")
    p.add_argument("--json", type=Path, default=None, help="write the result JSON here")
    args = p.parse_args(argv)

    tmp = tempfile.TemporaryDirectory(prefix="graph_follow-") if args.workdir is None else None
    workdir = Path(tmp.name) if tmp else args.workdir
    log(f"generating {args.products:,} products (with_text=False, seed={args.seed})")
    t = time.perf_counter()
    ds = generate_catalogue(args.products, seed=args.seed, n_queries=0, with_text=False)
    gen_s = time.perf_counter() - t
    t = time.perf_counter()
    ds.skb.save(workdir / "skb")
    save_s = time.perf_counter() - t
    n_nodes, n_edges = ds.skb.num_nodes, ds.skb.num_edges
    del ds
    gc.collect()
    t = time.perf_counter()
    skb = SKB.load(workdir / "skb")
    g = skb.graph
    load_s = time.perf_counter() - t
    log(f"{n_nodes:,} nodes, {n_edges:,} edges; generate {gen_s:.1f}s, save {save_s:.1f}s, load {load_s*1e3:.0f} ms")
    seeds = np.random.default_rng(args.seed + 1).choice(args.products, args.seeds, replace=False)

    t = time.perf_counter()
    peers = {"scipy_sparse": ScipyPeer(g)}
    if args.peer_dense:
        peers["scipy_dense"] = ScipyPeer(g, dense=True)
    peer_build_s = time.perf_counter() - t
    groups: dict[str, dict[str, float]] = {}
    latency: dict[str, float] = {}
    metrics: dict[str, float] = {}
    for op in OPS:
        lat, res = timed(ours(g, op, seeds), args.repeats)
        row = {"skbsearch_ms": lat["p50"]}
        size = len(res[1]) if op == "neighbors" else len(res)
        for name, peer in peers.items():
            plat, pres = timed(peer.call(op, seeds), args.repeats)
            if op == "neighbors":
                offsets, nb = res
                ok = all(np.array_equal(nb[offsets[i]:offsets[i + 1]], pres[i]) for i in range(len(seeds)))
            else:
                ok = np.array_equal(unique_sorted(res), pres.astype(np.int32))
            assert ok, f"{name} disagrees with skbsearch on {op}"
            row[f"{name}_ms"] = plat["p50"]
            row[f"speedup_vs_{name}"] = plat["p50"] / lat["p50"]
            latency.update({f"{op}.{name}.{k}": v for k, v in plat.items()})
        row["result_size"] = size
        groups[op] = row
        latency.update({f"{op}.skbsearch.{k}": v for k, v in lat.items()})
        metrics[f"{op}_ms"] = lat["p50"]
        log(f"{op}: " + ", ".join(f"{k}={v:.3g}" for k, v in row.items()))

    if args.nx_products > 0:
        try:
            log(f"networkx on {args.nx_products:,} products")
            nxr = run_networkx(args.nx_products, args.seeds, args.repeats, args.seed)
            for op, r in nxr["ops"].items():
                groups[f"nx@{args.nx_products}:{op}"] = {
                    "skbsearch_ms": r["skbsearch"]["p50"], "networkx_ms": r["networkx"]["p50"],
                    "speedup_vs_networkx": r["networkx"]["p50"] / r["skbsearch"]["p50"], "result_size": r["size"],
                }
        except ImportError:
            log("networkx not installed; skipped")

    config = {
        "products": args.products, "nodes": n_nodes, "edges": n_edges, "seeds": args.seeds,
        "repeats": args.repeats, "seed": args.seed, "generate_s": round(gen_s, 2), "save_s": round(save_s, 2),
        "load_ms": round(load_s * 1e3, 1), "scipy_build_s": round(peer_build_s, 2), "peak_rss_gb": round(peak_rss_gb(), 2),
        "python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
        "graph": "memory-mapped CSR (.npy) loaded from the saved SKB",
    }
    result = BenchmarkResult("graph_follow", config=config, metrics=metrics, groups=groups, latency_ms=latency)
    from skbsearch.cli.output import print_table

    print(f"graph_follow: {n_nodes:,} nodes, {n_edges:,} edges, {args.seeds} seeds, median of {args.repeats}")
    short = {"skbsearch_ms": "ours ms", "result_size": "nodes", "scipy_sparse_ms": "scipy ms",
             "speedup_vs_scipy_sparse": "x scipy", "scipy_dense_ms": "dense ms",
             "speedup_vs_scipy_dense": "x dense", "networkx_ms": "nx ms", "speedup_vs_networkx": "x nx"}
    rows = [{"op": op, **{short[k]: v for k, v in r.items()}} for op, r in groups.items()]
    cols = [c for c in short.values() if any(c in r for r in rows)]
    print_table(rows, columns=["op", *cols], floatfmt="{:.3g}")
    print(f"peak RSS {config['peak_rss_gb']} GB")
    if args.json:
        result.to_json(args.json)
        print(f"wrote {args.json}")
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()

"""Latency of GNN re-ranking once features exist: 100 candidates a query, CPU.

Times ``score_graphs`` (model forward, no gradients) on query graphs of n candidates
with 384-d node features and a document graph of the given edge density (top-100
candidates of one query share many concepts, so their graphs are dense). The target is
< 50 ms a query.

    .venv/bin/python benchmarks/gnn_rerank_latency.py [--n 100] [--density 0.5] [--queries 50] \
        [--threads 1] [--json benchmarks/results/gnn_rerank_latency.json]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.rerank.gnn import QueryGraph, score_graphs
from skbsearch.rerank.gnn_models import KINDS, GNNConfig, GNNScorer


def make_graphs(n: int, dim: int, density: float, count: int, seed: int = 0) -> list[QueryGraph]:
    """Random query graphs: unit-length features, an undirected graph of ``density``."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for qi in range(count):
        x = torch.nn.functional.normalize(torch.randn(n, dim, generator=g), dim=1)
        y = torch.nn.functional.normalize(torch.randn(dim, generator=g), dim=0)
        upper = torch.triu(torch.rand(n, n, generator=g) < density, diagonal=1)
        src, dst = upper.nonzero(as_tuple=True)
        ei = torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])
        ea = torch.rand(src.shape[0], 2, generator=g).repeat(2, 1)
        out.append(QueryGraph(f"q{qi}", [f"d{i}" for i in range(n)], x, y, ei, ea, torch.zeros(n)))
    return out


def main() -> None:
    """Print per-query latency (median, mean, p95) for every model kind."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100, help="candidates per query")
    ap.add_argument("--dim", type=int, default=384, help="feature dimension (MiniLM: 384)")
    ap.add_argument("--density", type=float, default=0.5, help="document-graph edge density")
    ap.add_argument("--queries", type=int, default=50, help="queries to time")
    ap.add_argument("--hidden", type=int, default=64, help="GNN hidden dimension")
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    ap.add_argument("--json", help="write the result (common JSON shape) to this file")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    graphs = make_graphs(args.n, args.dim, args.density, args.queries)
    edges = sum(g.edge_index.shape[1] for g in graphs) // (2 * len(graphs))
    print(f"GNN re-rank latency: {args.queries} queries x {args.n} candidates, dim {args.dim}, "
          f"~{edges} undirected edges/query, torch {torch.__version__}, {args.threads} thread(s)")  # fmt: skip
    print(f"{'model':<6} {'median ms':>10} {'mean ms':>9} {'p95 ms':>8}")
    groups: dict[str, dict[str, float]] = {}
    for kind in KINDS:
        torch.manual_seed(0)
        model = GNNScorer(GNNConfig(kind=kind, in_dim=args.dim, hidden_dim=args.hidden)).eval()
        score_graphs(model, graphs[:3])  # warm-up
        times = []
        for g in graphs:
            t0 = time.perf_counter()
            score_graphs(model, [g])
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"{kind:<6} {statistics.median(times):>10.2f} {statistics.fmean(times):>9.2f} "
              f"{p95:>8.2f}")  # fmt: skip
        groups[kind] = {"median_ms": statistics.median(times), "mean_ms": statistics.fmean(times),
                        "p95_ms": p95}
    if args.json:
        config = {
            "title": "G-RAG re-ranking latency once features exist (issue 6: target < 50 ms a query)",
            "command": f"python benchmarks/gnn_rerank_latency.py --n {args.n} --density {args.density} --queries {args.queries} "
                       f"--threads {args.threads} --json {args.json}",
            "protocol": f"{args.queries} queries x {args.n} candidates, {args.dim}-d node features, "
                        f"~{edges} undirected document-graph edges a query (density {args.density}), "
                        f"hidden {args.hidden}; model forward without gradients, one query a call",
            "n": args.n, "density": args.density, "threads": args.threads, "torch": torch.__version__,
            "order": 48, "overall_row": False, "show_latency": False,
        }
        BenchmarkResult("gnn_rerank_latency", config, {}, groups, {}).to_json(args.json)


if __name__ == "__main__":
    main()

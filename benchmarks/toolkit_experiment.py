"""Compare pipelines on a user's SKB with paired significance tests; write a result JSON.

The library side of ``skb experiment`` (same specs, same statistics), recorded for
BENCHMARKS.md::

    python benchmarks/toolkit_experiment.py --skb demo-out/cat/skb \
        --queries demo-out/cat/queries.jsonl --qrels demo-out/cat/qrels.trec \
        --pipeline bm25='bm25(types=[product])' --pipeline graph='graph(target=[product])' \
        --baseline bm25 --name toolkit_demo --json benchmarks/results/toolkit_demo.json
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

import skbsearch as skb
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.datasets import read_qrels


def main(argv: list[str] | None = None) -> BenchmarkResult:
    """Run the experiment and write (and print) its result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skb", required=True, type=Path)
    ap.add_argument("--queries", required=True, type=Path)
    ap.add_argument("--qrels", required=True, type=Path)
    ap.add_argument("--pipeline", action="append", required=True, help="NAME=SPEC, repeatable")
    ap.add_argument("--metrics", default="hit@1,hit@5,recall@20,mrr")
    ap.add_argument("--baseline", default=None)
    ap.add_argument("--test", default="t")
    ap.add_argument("--correction", default="holm")
    ap.add_argument("--limit", type=int, default=0, help="first N queries only (0: all)")
    ap.add_argument("--name", default="toolkit_experiment")
    ap.add_argument("--title", default="")
    ap.add_argument("--note", default="", help="set-up commands etc., shown in BENCHMARKS.md")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)

    kb = skb.SKB.load(args.skb)
    queries = skb.read_queries(args.queries)
    if args.limit:
        queries = queries[: args.limit]
    qrels = read_qrels(args.qrels)
    systems = {}
    for item in args.pipeline:
        name, _, spec = item.partition("=")
        systems[name] = kb.pipeline(spec)
    res = skb.Experiment(systems, queries, qrels, args.metrics, baseline=args.baseline,
                         test=args.test, correction=args.correction)
    print(res)
    groups = {}
    for s in res.systems:
        g: dict[str, float | str] = {m: float(res.means[s][m]) for m in res.metrics}
        if res.baseline is not None and s != res.baseline:
            for m in res.metrics:
                p = res.p_value(s, m)
                g[f"p {m}"] = "—" if p is None else f"{p:.2g}{res.mark(s, m)}"
        ms = res.ms_per_query.get(s)
        if ms is not None:
            g["latency ms/query"] = round(ms, 2)
        groups[s] = g
    best = max(res.systems, key=lambda s: res.means[s][res.metrics[-1]])
    command = "python " + " ".join(shlex.quote(a) for a in [sys.argv[0], *(argv or sys.argv[1:])])
    result = BenchmarkResult(
        args.name,
        config={"command": command, "title": args.title or f"Pipelines on {args.skb}",
                "skb": str(args.skb), "queries": len(queries),
                "pipelines": {n: repr(p) for n, p in systems.items()},
                "baseline": args.baseline, "test": args.test, "correction": args.correction,
                "best": best, "overall_row": False,
                "note": args.note or None},
        metrics={m: float(res.means[best][m]) for m in res.metrics},
        groups=groups,
    )
    if args.json:
        result.to_json(args.json)
    return result


if __name__ == "__main__":
    main()

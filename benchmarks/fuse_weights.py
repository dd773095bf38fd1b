"""``bm25 + graph`` fusion weights on query sets: the BM25 list's weight and ``fuse``'s max term.

The graph stage's score holds the BM25 score of the index a ``bm25`` stage reads, so ``fuse``
weighs the BM25 list ``1 / 2`` at full confidence (``stages/fusion.shared_evidence_weights``:
shared evidence counts once); per query, the weights follow the graph list's confidence
(``core.fusion.confident_weights``: the row "per-query confidence"). This script measures that choice against equal weights and a grid of
BM25 weights (``--weights``) x max terms (``--tops``), with ``bm25`` and ``graph`` alone beside
them, untrained, each query set an SKB with queries and answers (a STaRK CSV with
``answer_ids``, or queries + TREC qrels). Hit@1, Hit@10 and MRR per set; mean MRR and Hit@10
over the sets. The issue-22 choice was made on six development sets::

    python benchmarks/fuse_weights.py \\
        --set fb15k237=/tmp/fb.skb,/tmp/fbq/queries.jsonl,/tmp/fbq/qrels.trec \\
        --set catalogue=/tmp/cat/skb,/tmp/cat/queries.jsonl,/tmp/cat/qrels.trec \\
        --set demo-catalogue=demo-out/cat/skb,demo-out/cat/queries.jsonl,demo-out/cat/qrels.trec \\
        --set synth-catalogue=bench-out/synthq/catalogue/skb,bench-out/synthq/q-catalogue/stark_qa/stark_qa.csv \\
        --set synth-gazetteer=bench-out/synthq/gazetteer-skb,bench-out/synthq/q-gazetteer/stark_qa/stark_qa.csv \\
        --set synth-metaqa=bench-out/synthq/metaqa-skb,bench-out/synthq/q-metaqa/stark_qa/stark_qa.csv \\
        --json benchmarks/results/fuse_weights.json

(the sets as ``benchmarks/bm25_layouts.py``'s docstring makes them; ``make demo`` makes
``demo-out``.)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from skbsearch.api import SKB
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.fusion import score_fusion
from skbsearch.core.types import Qrels
from skbsearch.datasets.qrels import read_qrels
from skbsearch.datasets.queries import read_queries
from skbsearch.eval import evaluate
from skbsearch.stages.fusion import child_evidence

METRICS = ("hit@1", "hit@10", "mrr")


def load_set(spec: str, limit: int | None) -> tuple[str, SKB, list[Any], Qrels]:
    """``name=SKB,QUERIES[,QRELS]`` -> the SKB, its queries (the first ``limit``) and qrels."""
    name, _, paths = spec.partition("=")
    parts = [Path(p) for p in paths.split(",")]
    queries = read_queries(parts[1])[:limit]
    qrels = read_qrels(parts[2] if len(parts) > 2 else parts[1])
    return name, SKB.load(parts[0]), queries, Qrels({q.id: qrels[q.id] for q in queries if q.id in qrels})


def measure(kb: SKB, queries: list[Any], qrels: Qrels, weights: list[float], tops: list[float]
            ) -> dict[str, dict[str, float]]:
    """Per system: the metrics (bm25, graph, the default ``bm25 + graph`` and the grid)."""
    runs = [kb.pipeline(s).run(queries) for s in ("bm25", "graph")]
    fused = kb.pipeline("bm25 + graph")
    systems = {"bm25": runs[0], "graph": runs[1], "bm25 + graph (default)": fused.run(queries),
               # the default's per-query weights from the lists' evidence and confidence
               "per-query confidence": score_fusion(runs, None, 2.0, 100, evidence=child_evidence(fused.children))}
    for w in weights:
        for top in tops:
            systems[f"w_bm25={w:g} top={top:g}"] = score_fusion(runs, [w, 1.0], top, 100)
    out = {}
    for name, run in systems.items():
        m = evaluate(run, qrels, list(METRICS))
        out[name] = {k: round(float(v), 4) for k, v in dict(getattr(m, "aggregate", m)).items()}
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the grid on every set; print the table; write the JSON when asked."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", action="append", required=True, help="NAME=SKB,QUERIES[,QRELS]")
    ap.add_argument("--weights", default="1,0.75,0.5,0.25", help="BM25 list weights (graph: 1)")
    ap.add_argument("--tops", default="0,1,2,4", help="fuse's max-term weights")
    ap.add_argument("--limit", type=int, default=None, help="first N queries of each set")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    weights = [float(x) for x in a.weights.split(",")]
    tops = [float(x) for x in a.tops.split(",")]
    groups: dict[str, dict[str, float]] = {}
    t0 = time.time()
    for spec in a.set:
        name, kb, queries, qrels = load_set(spec, a.limit)
        for system, m in measure(kb, queries, qrels, weights, tops).items():
            groups.setdefault(system, {}).update({f"{k} {name}": v for k, v in m.items()})
        print(f"{name}: {len(queries)} queries ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    names = [s.partition("=")[0] for s in a.set]
    for m in groups.values():
        m["mean mrr"] = round(sum(m[f"mrr {n}"] for n in names) / len(names), 4)
        m["mean hit@10"] = round(sum(m[f"hit@10 {n}"] for n in names) / len(names), 4)
    for system, m in groups.items():
        print(f"{system:28s}", " ".join(f"{100 * m[f'hit@10 {n}']:.1f}/{100 * m[f'mrr {n}']:.2f}" for n in names),
              f"| mean {100 * m['mean hit@10']:.2f} / {100 * m['mean mrr']:.2f}")
    best = max(groups, key=lambda s: groups[s]["mean mrr"])
    res = BenchmarkResult("fuse_weights", {
        "sets": a.set, "limit": a.limit, "overall_row": False,
        "title": f"`bm25 + graph` fusion weights on {len(names)} development sets (issue 22)",
        "note": "A row per system (untrained), a column per metric and set; `bm25 + graph (default)` "
                "weighs BM25 1/2 (shared evidence counts once), `w_bm25=W top=T` fuses with BM25 "
                "weight W and max term T. Analysis: benchmarks/NOTES.md, 'Shared evidence counts once'.",
        "command": "python benchmarks/fuse_weights.py " + " ".join(sys.argv[1:] if argv is None else argv)},
                          metrics=dict(groups["bm25 + graph (default)"]), groups=groups)
    print(f"best mean MRR: {best}", file=sys.stderr)
    if a.json:
        res.to_json(a.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

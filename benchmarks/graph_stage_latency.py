"""Latency of the general graph stage (``graph``) on a large generated catalogue, one query at a time.

Protocol:

1. A synthetic catalogue made by ``skb synth catalogue DIR --products N --queries Q``
   (``--data DIR``); its BM25 index is read from ``DIR/skb/indexes/bm25`` (built and saved
   there once if missing, as ``skb index DIR/skb --kind bm25`` does).
2. The stages are built once (name index, type graph, linker dictionaries: timed apart).
   ``graph`` is fitted on the first half of the catalogue's queries (``stages.fit``:
   answers only) and timed on the other half, one query per call after one warm-up query;
   the untrained ``graph`` (zero-shot) is timed
   on the same queries for comparison. Quality (Hit@1, MRR) on the timed queries is reported too.
3. p50/p95 ms per query; peak resident memory of the process.

Usage::

    skb synth catalogue /tmp/cat1m --products 1000000 --queries 200
    python benchmarks/graph_stage_latency.py --data /tmp/cat1m --json benchmarks/results/graph_stage_latency_1m.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.benchmarks.measure import log, peak_rss_gb
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.types import Qrels, Run
from skbsearch.eval import evaluate
from skbsearch.index import get_kind
from skbsearch.stages import fit, pipeline
from skbsearch.stages.context import StageContext
from skbsearch.synth.catalogue import CatalogueDataset

SYSTEMS = {"graph (fitted)": "graph", "graph (zero-shot)": "graph"}


def one_at_a_time(stage: Any, queries: list) -> tuple[Run, np.ndarray]:
    """Run ``stage`` on each query alone (after one warm-up call); the run and ms per query."""
    stage(queries[:1])
    run, ms = Run(), []
    for q in queries:
        t = time.perf_counter()
        run.update(stage([q]))
        ms.append((time.perf_counter() - t) * 1e3)
    return run, np.asarray(ms)


def main() -> None:
    """Time the stages and write the result."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="a 'skb synth catalogue' directory")
    ap.add_argument("--json", help="write the result (common JSON shape) to this file")
    args = ap.parse_args()
    t0 = time.perf_counter()
    ds = CatalogueDataset.load(args.data)
    kb = ds.skb
    load_s = time.perf_counter() - t0
    log(f"loaded {kb.num_nodes} nodes, {kb.num_edges} edges, {len(ds.queries)} queries in {load_s:.1f} s")
    bm25_dir = Path(args.data) / "skb" / "indexes" / "bm25"
    if not (bm25_dir / "manifest.json").is_file():
        log("building the BM25 index (once, as 'skb index DIR/skb --kind bm25' does)")
        t = time.perf_counter()
        get_kind("bm25").build(kb).save(bm25_dir)
        log(f"BM25 index built in {time.perf_counter() - t:.0f} s")
    bm25_fields = json.loads((bm25_dir / "manifest.json").read_text())["params"].get("fields") or ["document"]
    half = len(ds.queries) // 2
    train, timed = ds.queries[:half], ds.queries[half:]
    train_qrels = Qrels({q.id: ds.qrels[q.id] for q in train})
    timed_qrels = Qrels({q.id: ds.qrels[q.id] for q in timed})
    ctx = StageContext(kb, notify=lambda m: log(m))
    groups: dict[str, dict[str, float]] = {}
    latency: dict[str, float] = {}
    config: dict[str, Any] = {"products": int(kb.nodes_of_type("product").size), "nodes": kb.num_nodes,
                              "edges": kb.num_edges, "train_queries": len(train), "timed_queries": len(timed),
                              "load_s": round(load_s, 2)}
    for name, spec in SYSTEMS.items():
        stage = pipeline(spec, ctx)
        t = time.perf_counter()
        stage.inner  # noqa: B018 - build now (indexes, name index, type graph, linker)
        config[f"{name} build_s"] = round(time.perf_counter() - t, 2)
        if name == "graph (fitted)":
            t = time.perf_counter()
            fit(stage, train, train_qrels)
            config["fit_s"] = round(time.perf_counter() - t, 2)
            config["fit"] = {k: v for k, v in stage.fitted.info.items() if k != "metapaths"}
        log(f"timing {name}")
        run, ms = one_at_a_time(stage, timed)
        groups[name] = evaluate(run, timed_qrels, ["hit@1", "mrr"])
        groups[name]["p50 ms"] = float(np.percentile(ms, 50))
        groups[name]["p95 ms"] = float(np.percentile(ms, 95))
        latency[f"{name}.p50"], latency[f"{name}.p95"] = groups[name]["p50 ms"], groups[name]["p95 ms"]
        log(f"{name}: p50 {groups[name]['p50 ms']:.1f} ms, p95 {groups[name]['p95 ms']:.1f} ms, "
            f"hit@1 {groups[name]['hit@1']:.3f}")
    config.update({
        "peak_rss_gb": round(peak_rss_gb(), 2), "python": platform.python_version(), "machine": platform.machine(),
        "title": f"General graph stage latency: {kb.num_nodes:,}-node synthetic catalogue (issue 12)",
        "command": f"python benchmarks/graph_stage_latency.py --data {args.data}"
                   + (f" --json {args.json}" if args.json else ""),
        "note": "One query per call on 2 shared CPU cores; graph fitted on the first half of the catalogue's "
                "queries, all systems timed and scored on the other half. Synthetic data. The BM25 index "
                f"({', '.join(bm25_fields)} fields) is built once beforehand, as skb index does. Build = name "
                "index, type graph, linker dictionaries and row maps (the first system only; the other shares "
                "them). Quality on 100 queries of a 1M-product catalogue is noisy; see the demo and MetaQA "
                "rows for quality.",
        "show_latency": False, "overall_row": False, "order": 2, "percent": True,
    })
    result = BenchmarkResult("graph_stage_latency", config, groups["graph (fitted)"], groups, latency)
    print(result.to_json(args.json))


if __name__ == "__main__":
    main()

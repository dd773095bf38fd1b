"""Live SKB updates (issue 25): one update of 1,000 upserts + 100 deletions, timed against a
full rebuild, and query latency with 10 pending delta segments vs after compaction.

Protocol (``--products N``, default 100,000; the issue's target size is 1,000,000, e.g. a
catalogue saved by ``skb synth catalogue DIR -n 1000000`` + ``skb index DIR/skb``, reused with
``--dataset DIR``):

1. The seeded synthetic catalogue (:func:`skbsearch.synth.catalogue.generate_catalogue`) with
   its CSR graph and the default BM25 index (``skb index --kind bm25``: the node document plus
   its relation lines, the neighbours' names); generated, or copied from ``--dataset``.
2. One update (``skb kb update`` semantics, :func:`skbsearch.kb.update.update`): 500 existing
   products changed (description and price), 500 new products (copies of random products
   under new ids, with the template's out-edges), 100 products deleted. Timed parts: the
   commit (read + validate + write the segment + manifest), opening the new generation
   (merge), the CSR graph of the generation, the BM25 catch-up. "BM25 + graph" = all four.
3. Nine more updates of 100 upserts + 10 deletions each (10 pending segments); that
   generation is opened (its indexes caught up), then ``skb kb compact`` (indexes rewritten) and
   the compacted generation opened too; query latency (single queries, one thread, after an
   untimed pass over the same queries) of ``bm25``, ``bm25(where='price < 100')`` and ``graph``
   over ``--n-queries`` catalogue queries on both, interleaved query by query so that the
   machine's changing load weighs on both alike. p95 ratio = pending / compacted.
4. With ``--dense``: a dense (MiniLM, CPU, numpy) index over a ``--dense-products`` catalogue,
   the same kind of update (1,000 upserts + 100 deletions), catch-up time vs a full
   re-embedding (embedding cache off for both, so the rebuild really encodes).
5. Last (unless ``--no-rebuild``): the data after the first update rebuilt from scratch from
   JSONL files (``skb kb build`` + ``skb index``: load, save with the graph, default BM25).

The result JSON is rewritten after every phase (``config.complete`` says whether all ran),
with the machine's load average at the start and at the end.

Usage::

    python benchmarks/live_updates.py --products 100000 --json benchmarks/results/live_updates_100k.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.benchmarks.measure import log
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.index import bm25_scoring
from skbsearch.index.live import catch_up, compact_indexes
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKB
from skbsearch.kb.loaders import load
from skbsearch.kb.update import compact, update
from skbsearch.stages import pipeline
from skbsearch.stages.context import StageContext
from skbsearch.synth.catalogue import CatalogueDataset, generate_catalogue


def records(skb: SKB, rows: np.ndarray) -> list[dict[str, Any]]:
    """Node records (``skb kb build`` JSONL) of ``rows``."""
    out = []
    for i in rows:
        n = skb.node(int(i))
        out.append({"id": n.id, "type": n.type, "name": n.name, "fields": n.fields, "attributes": n.attributes})
    return out


def out_edges(skb: SKB, row: int, new_id: str) -> list[dict[str, str]]:
    """The out-edges of ``row``, re-sourced at ``new_id``."""
    out = []
    for rel in skb.schema.relations:
        for j in skb.graph.neighbor_set([row], [rel], "out"):
            out.append({"source": new_id, "relation": rel, "target": skb.ids[int(j)]})
    return out


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """JSONL file of ``rows``."""
    with open(path, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    return path


def make_update(skb: SKB, rng: np.random.Generator, tag: str, n_change: int, n_new: int, n_delete: int,
                work: Path) -> dict[str, Path]:
    """Files of one update: changed and new products, their edges, deleted products."""
    products = skb.nodes_of_type("product")
    pick = rng.choice(products, n_change + n_new + n_delete, replace=False)
    changed = records(skb, pick[:n_change])
    for r in changed:
        r["fields"]["description"] = (r["fields"].get("description") or "") + " now also in recycled packaging"
        r["attributes"]["price"] = round(float(rng.uniform(5, 500)), 2)
    new, edges = [], []
    dels = [skb.ids[int(i)] for i in pick[n_change + n_new:]]
    gone = set(dels)
    for k, i in enumerate(pick[n_change:n_change + n_new]):
        r = records(skb, [i])[0]
        r["id"] = f"{tag}-n{k}"
        r["name"] = r["name"] + " II"
        new.append(r)
        edges += [e for e in out_edges(skb, int(i), r["id"]) if e["target"] not in gone]
    (work / f"{tag}.del").write_text("".join(d + "\n" for d in dels), encoding="utf-8")
    return {"nodes": write_jsonl(work / f"{tag}.nodes.jsonl", changed + new),
            "edges": write_jsonl(work / f"{tag}.edges.jsonl", edges), "delete_nodes": work / f"{tag}.del"}


def timed(fn: Any) -> tuple[Any, float]:
    """``(fn(), seconds)``."""
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def one_update(skb_dir: Path, files: dict[str, Path]) -> dict[str, float]:
    """Commit one update and bring the generation, its graph and BM25 up to date (timed)."""
    _, t_commit = timed(lambda: update(skb_dir, **files))
    live, t_open = timed(lambda: SKB.load(skb_dir))
    _, t_graph = timed(lambda: live.graph)
    _, t_bm25 = timed(lambda: catch_up(BM25Index.load(skb_dir / "indexes" / "bm25"), live).warm())
    return {"commit_s": t_commit, "open_s": t_open, "graph_s": t_graph, "bm25_catch_up_s": t_bm25,
            "bm25_graph_total_s": t_commit + t_open + t_graph + t_bm25}


def write_final(skb: SKB, out: Path) -> Path:
    """``skb``'s data as ``skb kb build`` input (flat JSONL node and edge records)."""
    out.mkdir()
    with open(out / "nodes.jsonl", "w", encoding="utf-8") as fh:
        for batch in skb.nodes.to_batches(max_chunksize=50_000):
            for rec in batch.to_pylist():
                fh.write(json.dumps({k: v for k, v in rec.items() if v is not None}) + "\n")
    t = skb.edges_table()
    with open(out / "edges.jsonl", "w", encoding="utf-8") as fh:
        for b in t.to_batches(max_chunksize=200_000):
            cols = [b.column(c).to_pylist() for c in ("src", "relation", "dst")]
            fh.writelines(f'{{"source": {json.dumps(x)}, "relation": {json.dumps(r)}, "target": {json.dumps(y)}}}\n'
                          for x, r, y in zip(*cols, strict=True))
    return out


def rebuild(src: Path, work: Path) -> float:
    """Seconds for ``skb kb build`` + ``skb index`` (the default BM25 index) of the files in ``src``."""
    t0 = time.perf_counter()
    built = load(src, "jsonl")
    built.save(work / "rebuilt")
    BM25Index.default_for_skb(SKB.load(work / "rebuilt")).save(work / "rebuilt" / "indexes" / "bm25")
    return time.perf_counter() - t0


def latency(pending: StageContext, compacted: StageContext, queries: list[Any],
            specs: list[str]) -> dict[str, float]:
    """p50/p95 ms of single queries per spec on both generations, interleaved query by query
    (which one goes first alternates from query to query): a shared machine's changing load,
    and whatever the previous query left behind, weigh on both alike. After one untimed pass
    over the same queries on each."""
    out = {}
    for spec in specs:
        pipes = {"pending": pipeline(spec, pending), "compacted": pipeline(spec, compacted)}
        for p in pipes.values():
            for q in queries:  # a full warm-up pass: memory-mapped pages in, caches built
                p([q])
        ms: dict[str, list[float]] = {k: [] for k in pipes}
        for i, q in enumerate(queries):
            for k, p in (list(pipes.items()) if i % 2 == 0 else list(pipes.items())[::-1]):
                t0 = time.perf_counter()
                p([q])
                ms[k].append((time.perf_counter() - t0) * 1000)
        for k, v in ms.items():
            out[f"{k} {spec} p50_ms"] = float(np.percentile(v, 50))
            out[f"{k} {spec} p95_ms"] = float(np.percentile(v, 95))
    return out


def context(skb_dir: Path) -> StageContext:
    """A stage context on the newest generation (its indexes caught up on first use)."""
    return StageContext(SKB.load(skb_dir), notify=lambda m: None)


def dense_part(n: int, work: Path, rng: np.random.Generator) -> dict[str, float]:
    """Dense catch-up after 1,000 upserts + 100 deletions vs a full re-embedding (CPU)."""
    from skbsearch.index.dense import DenseIndex

    before = os.environ.get("SKB_CACHE_DIR")
    os.environ["SKB_CACHE_DIR"] = str(work / "cache")  # a cold embedding cache for both
    try:
        ds = generate_catalogue(n, seed=1, n_queries=10)
        d = work / "dense-skb"
        ds.skb.save(d)
        skb = SKB.load(d)
        _, t_full = timed(lambda: DenseIndex.from_skb(skb).save(d / "indexes" / "dense"))
        files = make_update(skb, rng, "d", 500, 500, 100, work)
        update(d, **files)
        live = SKB.load(d)
        idx, t_cu = timed(lambda: catch_up(DenseIndex.load(d / "indexes" / "dense"), live))
        assert idx.source["skb_hash"] == live.meta["content_hash"]
    finally:  # the rest of the run keeps its caches (numba's compiled kernels live there too)
        if before is None:
            os.environ.pop("SKB_CACHE_DIR", None)
        else:
            os.environ["SKB_CACHE_DIR"] = before
    return {"dense_products": n, "dense_full_build_s": t_full, "dense_catch_up_s": t_cu}


def prepare(a: argparse.Namespace, skb_dir: Path) -> tuple[Any, dict[str, float]]:
    """The base SKB with its default BM25 index at ``skb_dir``: a copy of ``--dataset``, or
    generated; ``(dataset, build timings)``."""
    metrics: dict[str, float] = {}
    if a.dataset is not None:
        log(f"copying {a.dataset}")
        ds = CatalogueDataset.load(a.dataset)
        shutil.copytree(a.dataset / "skb", skb_dir)
    else:
        log(f"generating {a.products:,} products")
        ds = generate_catalogue(a.products, seed=a.seed, n_queries=a.n_queries)
        _, metrics["initial_build_s"] = timed(lambda: ds.skb.save(skb_dir))
    bm25_scoring.warm()  # compiled once per machine (cached on disk), as `skb index` does
    if not (skb_dir / "indexes" / "bm25").is_dir():
        _, metrics["initial_bm25_s"] = timed(lambda: BM25Index.default_for_skb(SKB.load(skb_dir)).save(
            skb_dir / "indexes" / "bm25"))
    return ds, metrics


def pending_vs_compacted(skb_dir: Path, queries: list[Any], work: Path, rng: np.random.Generator,
                         metrics: dict[str, float]) -> None:
    """Nine more updates (10 pending segments); compaction; latency of both generations
    (the pending one stays open: its files outlive the compaction while it reads them)."""
    for k in range(1, 10):
        update(skb_dir, **make_update(SKB.load(skb_dir), rng, f"u{k}", 50, 50, 10, work))
    specs = ["bm25", "bm25(where='price < 100')", "graph"]
    log("opening the generation with 10 pending segments")
    pending = context(skb_dir)
    for spec in specs:
        pipeline(spec, pending)([queries[0]])  # indexes caught up now, before the compaction
    _, metrics["compact_s"] = timed(lambda: compact(skb_dir, before_commit=compact_indexes))
    log("latency: pending vs compacted, interleaved")
    metrics.update(latency(pending, context(skb_dir), queries, specs))
    for s in specs:
        metrics[f"{s} p95 ratio"] = metrics[f"pending {s} p95_ms"] / metrics[f"compacted {s} p95_ms"]


def main(argv: list[str] | None = None) -> None:
    """Run the protocol; print and optionally write the result."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--products", type=int, default=100_000)
    p.add_argument("--dataset", type=Path, default=None,
                   help="reuse a catalogue saved by 'skb synth catalogue' (its skb/ is copied; an index "
                        "saved under skb/indexes/bm25 by 'skb index' is the base index)")
    p.add_argument("--n-queries", type=int, default=200)
    p.add_argument("--no-rebuild", action="store_true", help="skip the full rebuild")
    p.add_argument("--dense", action="store_true", help="also time the dense index (CPU)")
    p.add_argument("--dense-products", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--work", type=Path, default=None, help="work directory (default: a temp dir)")
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="skb-live-", dir=a.work))
    rng = np.random.default_rng(a.seed)
    try:
        skb_dir = work / "skb"
        ds, metrics = prepare(a, skb_dir)
        queries = ds.queries[: a.n_queries]
        cfg = {"products": int(ds.config.get("n_products", a.products)),
               "dataset": str(a.dataset) if a.dataset is not None else None,
               "bm25_index": "default (skb index --kind bm25: document + relation lines)",
               "n_queries": len(queries), "seed": a.seed,
               "update": "500 changed + 500 new products (with edges) + 100 deleted",
               "pending": "10 segments", "machine": platform.platform(), "cpus": os.cpu_count(),
               "load_average_at_start": list(os.getloadavg()),
               "command": "python benchmarks/live_updates.py " + " ".join(sys.argv[1:] if argv is None else argv)}

        def report(done: bool) -> None:  # after every phase: a long run killed still leaves numbers
            cfg["complete"] = done
            cfg["load_average_now"] = list(os.getloadavg())
            res = BenchmarkResult("live_updates", cfg, {k: round(v, 4) for k, v in metrics.items()})
            text = res.to_json(a.json)
            if done:
                print(text)

        log(f"base ready {metrics}; updating")
        files = make_update(SKB.load(skb_dir), rng, "u0", 500, 500, 100, work)
        metrics.update(one_update(skb_dir, files))
        log(f"update: {metrics}")
        report(False)
        if not a.no_rebuild:  # the data after the first update, as files for the rebuild (timed last)
            final = write_final(SKB.load(skb_dir), work / "final")
        pending_vs_compacted(skb_dir, queries, work, rng, metrics)
        report(False)
        if a.dense:
            log("dense part")
            metrics.update(dense_part(a.dense_products, work, rng))
            report(False)
        if not a.no_rebuild:
            log("rebuilding the data after the first update from files")
            metrics["full_rebuild_s"] = rebuild(final, work)
            metrics["full_rebuild_nodes"] = float(SKB.load(work / "rebuilt").num_nodes)
        report(True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

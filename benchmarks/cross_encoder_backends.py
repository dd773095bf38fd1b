"""Cross-encoder backends side by side: torch (native) vs ONNX Runtime fp32 vs ONNX int8.

Protocol:

1. One model directory (``--model``: e.g. from ``skb train cross-encoder``; without it a
   fresh-head MiniLM scorer is saved to a temp dir, latency only). Every backend loads the
   same directory through ``load_scorer(model, backend, max_length, quantize=...)``; ONNX
   exports are cached by content hash (export and quantisation time reported separately,
   first run only). sentence-transformers' ``CrossEncoder.predict`` on the same directory is
   the peer when it loads.
2. Latency: for ``--queries`` TREC DL 2019 queries (or, without the data, generated
   catalogue queries and product documents), re-rank the top ``--top`` BM25 candidates, one
   query per call (``score`` of ``--top`` pairs, one batch); one warm-up query, then the
   median / p95 over queries, in ms per query. Backends run interleaved query by query, so
   the machine's load hits them alike. torch and onnxruntime use 2 threads.
3. Quality (with ``--model`` and ``../shared/data/trec-dl``): each backend re-ranks every
   judged DL19 query's BM25 top-100 (``--rerank-depth``); nDCG@10 with trec_eval gains
   (the TREC DL protocol of ``skb bench trecdl``), and the int8 / fp32 score agreement
   (max |Δ| and Spearman ρ per query, averaged).

Usage::

    python benchmarks/cross_encoder_backends.py --model ~/.cache/skbsearch/models/ce-nq-quick \
        --json benchmarks/results/cross_encoder_backends.json
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from scipy.stats import spearmanr  # noqa: E402

from skbsearch.benchmarks.result import BenchmarkResult  # noqa: E402
from skbsearch.core.types import Run  # noqa: E402
from skbsearch.eval.evaluate import evaluate  # noqa: E402
from skbsearch.rerank.cross_encoder import CrossEncoderModel, load_scorer  # noqa: E402

BACKENDS = {"torch": ("native", None), "onnx": ("onnx", None), "onnx-int8": ("onnx", "int8")}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def workload(data: Path | None, n_queries: int, top: int) -> tuple[list[tuple[str, list[str]]], Any]:
    """``[(query, [passage, ...])]`` for latency, and the DL19 data (or ``None``)."""
    if data is not None and (data / "dl19_bm25_top100.json").is_file():
        from skbsearch.datasets.trecdl import load_trecdl

        d = load_trecdl(data, "dl19")
        work = [(q.text, [d.doc_text[doc] for doc, _ in d.run.ranked(q.id)[:top]])
                for q in d.queries[:n_queries]]
        return work, d
    from skbsearch.documents import DocumentRenderer
    from skbsearch.retrieve.sparse import BM25Retriever
    from skbsearch.synth.catalogue import generate_catalogue

    ds = generate_catalogue(2000, n_queries=n_queries, seed=0)
    kb = ds.skb
    bm = BM25Retriever(__import__("skbsearch.index.sparse", fromlist=["x"]).BM25Index.from_skb(kb), k=top)
    run = bm(ds.queries)
    render = DocumentRenderer()
    work = [(q.text, [render.render(kb, int(kb.index_of(doc))) for doc, _ in run.ranked(q.id)])
            for q in ds.queries]
    return work, None


def st_peer(model: str, max_length: int) -> Any:
    """sentence-transformers' CrossEncoder on the same directory (``None`` if it fails)."""
    try:
        import torch
        from sentence_transformers import CrossEncoder

        torch.set_num_threads(2)
        return CrossEncoder(model, max_length=max_length, device="cpu")
    except Exception as e:  # noqa: BLE001 - a peer that does not load is reported, not fatal
        log(f"sentence-transformers peer unavailable: {e}")
        return None


def latency(scorers: dict[str, Any], work: list[tuple[str, list[str]]], top: int) -> dict[str, list[float]]:
    """Per-query ms of each scorer, interleaved query by query (first query = warm-up)."""
    times: dict[str, list[float]] = {name: [] for name in scorers}
    for i, (q, docs) in enumerate(work):
        for name, s in scorers.items():
            t = time.perf_counter()
            if name == "sentence-transformers":
                s.predict([[q, d] for d in docs], batch_size=top, show_progress_bar=False)
            else:
                s.score([q] * len(docs), docs, batch_size=top)
            if i > 0:
                times[name].append((time.perf_counter() - t) * 1000)
    return times


def quality(scorers: dict[str, Any], data: Any, depth: int) -> tuple[dict[str, dict[str, float]], dict[str, Run]]:
    """nDCG@10 (and MRR@10 with grade >= 2) of each backend re-ranking DL19's BM25 top-``depth``."""
    out, runs = {}, {}
    for name, s in scorers.items():
        if name == "sentence-transformers":
            continue
        t0 = time.perf_counter()
        run = Run(name=name)
        for q in data.queries:
            docs = [d for d, _ in data.run.ranked(q.id)[:depth]]
            sc = s.score([q.text] * len(docs), [data.doc_text[d] for d in docs], batch_size=32)
            run[q.id] = {d: float(v) for d, v in zip(docs, sc, strict=True)}
        m = evaluate(run, data.qrels, ["ndcg@10"])
        m.update(evaluate(run, data.qrels, ["mrr@10"], min_grade=2))
        m["rerank_s"] = round(time.perf_counter() - t0, 1)
        out[name], runs[name] = m, run
        log(f"{name}: nDCG@10 {m['ndcg@10']:.4f} in {m['rerank_s']} s")
    return out, runs


def agreement(a: Run, b: Run) -> dict[str, float]:
    """Mean per-query Spearman rho and max |score difference| between two runs."""
    rhos, diffs = [], []
    for qid, scores in a.items():
        x = np.array([scores[d] for d in scores])
        y = np.array([b[qid][d] for d in scores])
        rhos.append(float(spearmanr(x, y).statistic))
        diffs.append(float(np.abs(x - y).max()))
    return {"spearman_mean": round(float(np.mean(rhos)), 4), "spearman_min": round(min(rhos), 4),
            "max_abs_diff": round(max(diffs), 5)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="cross-encoder directory (default: fresh-head MiniLM, latency only)")
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared/data/trec-dl"))
    ap.add_argument("--queries", type=int, default=21, help="latency queries (first is a warm-up)")
    ap.add_argument("--top", type=int, default=20, help="candidates re-ranked per query (latency)")
    ap.add_argument("--rerank-depth", type=int, default=100)
    ap.add_argument("--max-length", type=int, default=None, help="default: the model's own")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", help="write the result here")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    tmp = None
    model = args.model
    if model is None:
        tmp = tempfile.TemporaryDirectory()
        model = str(CrossEncoderModel.from_encoder("minilm", max_length=256).save(Path(tmp.name) / "ce"))
    model = str(Path(model).expanduser())
    max_length = args.max_length or int(CrossEncoderModel.load(model).max_length)
    scorers: dict[str, Any] = {}
    setup: dict[str, float] = {}
    for name, (backend, quant) in BACKENDS.items():
        t = time.perf_counter()
        scorers[name] = load_scorer(model, backend, max_length, quantize=quant, threads=args.threads)
        setup[name] = round(time.perf_counter() - t, 2)
        log(f"loaded {name} in {setup[name]} s")
    peer = st_peer(model, max_length)
    if peer is not None:
        scorers["sentence-transformers"] = peer
    data_dir = Path(args.data)
    work, data = workload(data_dir if data_dir.is_dir() else None, args.queries, args.top)
    log(f"latency: {len(work) - 1} queries x top-{args.top} (+1 warm-up)")
    times = latency(scorers, work, args.top)
    groups: dict[str, dict[str, float]] = {}
    for name, ts in times.items():
        groups[name] = {"p50_ms": round(float(np.percentile(ts, 50)), 1),
                        "p95_ms": round(float(np.percentile(ts, 95)), 1),
                        "load_s": setup.get(name, float("nan"))}
    base = groups["torch"]["p50_ms"]
    for name in groups:
        groups[name]["speedup_vs_torch"] = round(base / groups[name]["p50_ms"], 2)
    metrics: dict[str, float] = {}
    if args.model and data is not None:
        q, runs = quality({k: v for k, v in scorers.items() if k in BACKENDS}, data, args.rerank_depth)
        for name, m in q.items():
            groups[name].update({"ndcg@10": round(m["ndcg@10"], 4), "mrr@10": round(m["mrr@10"], 4),
                                 "rerank_dl19_s": m["rerank_s"]})
            groups[name]["ndcg@10_delta_vs_torch_points"] = round(
                100 * (m["ndcg@10"] - q["torch"]["ndcg@10"]), 2)
        for name in ("onnx", "onnx-int8"):
            for k, v in agreement(runs["torch"], runs[name]).items():
                groups[name][f"{k}_vs_torch"] = v
    for name, g in groups.items():
        print(f"{name:22s} " + "  ".join(f"{k} {v}" for k, v in g.items()))
    metrics = {f"{name}@{k}": v for name, g in groups.items() for k, v in g.items()}
    cfg = {
        "title": "Cross-encoder backends: torch vs ONNX Runtime fp32 vs int8 (issue 15)",
        "protocol": ("same model directory; latency = one query's top-20 BM25 candidates scored "
                     "in one batch, backends interleaved query by query, 2 threads each, median/p95 "
                     "over the queries after one warm-up; quality = each backend re-ranks DL19's "
                     "BM25 top-100 for the 43 judged queries (nDCG@10, trec_eval gains)"),
        "model": model, "max_length": max_length, "top": args.top,
        "latency_queries": len(work) - 1, "data": str(data_dir) if data is not None else "synthetic",
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "onnxruntime": __import__("onnxruntime").__version__},
        "command": "python benchmarks/cross_encoder_backends.py " + " ".join(sys.argv[1:]),
        "pivot": True, "percent": False, "order": 40,
    }
    if args.json:
        BenchmarkResult("cross_encoder_backends", cfg, metrics, {}, {}).to_json(args.json)
        log(f"wrote {args.json}")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()

"""BM25 query throughput: skbsearch's BM25 stage vs bm25s called directly vs rank_bm25.

Protocol, per corpus size (``--sizes``):

1. Generate the synthetic catalogue (:func:`skbsearch.synth.catalogue.generate_catalogue`,
   seeded) and render every node with ``DocumentRenderer()`` (the ``skb index`` default).
   Its queries are the query set.
2. Build three indexes over the *same* texts, with the same tokenization (lower-case,
   English stopwords, PyStemmer English) and BM25 (k1=1.5, b=0.75; Lucene variant where
   configurable): ours (``BM25Index``, saved and re-loaded memory-mapped, as ``skb search``
   uses it), bm25s (``bm25s.tokenize`` + ``BM25.index``, its README recipe) and rank_bm25
   (``BM25Okapi`` on the same token strings).
3. Throughput: all queries in one batch, top-``k``, ``--threads`` threads, end to end from
   query *text* (tokenization included) to results: a ``Run`` of string ids for ours (a
   ``LazyRun``: its ``{doc_id: score}`` dicts are filled on first read), arrays of row
   numbers for bm25s; the ``*_to_dicts`` rows add every query's dict to both. numba kernels
   are compiled before timing; each timed pass is repeated ``--repeats`` times, ours and bm25s interleaved, and the best pass counts.
4. rank_bm25 is pure Python and scores every document per query, so it runs on a random
   subsample of ``--rank-bm25-queries`` queries only; its queries/s is *extrapolated*
   from that subsample (per-query cost does not depend on the other queries).
5. Latency: single-query calls (one thread) for up to 200 queries: p50/p95/mean ms; and, to
   see queries of few and of many postings, ``--band-queries`` queries of two vocabulary words
   from each document-frequency band (words in under 0.1% of the documents, 0.1-1%, 1-10%,
   10% or more), ours and bm25s interleaved query by query
   (:func:`skbsearch.benchmarks.bm25_corpus.df_band_queries`).

Usage::

    python benchmarks/bm25_throughput.py --sizes 100000,1000000 --json bm25.json
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import Stemmer

from skbsearch.benchmarks.bm25_corpus import (
    DATA,
    SETTINGS,
    catalogue_corpus,
    corpus_parser,
    df_band_queries,
    sizes,
)
from skbsearch.benchmarks.measure import best_time, log
from skbsearch.retrieve.sparse import NUMBA_AVAILABLE, BM25Retriever


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = corpus_parser(__doc__.split("\n\n")[0], n_queries=1000)
    p.add_argument("--threads", type=int, default=-1, help="-1: all cores")
    p.add_argument("--backends", default="numba,numpy" if NUMBA_AVAILABLE else "numpy")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--rank-bm25-queries", type=int, default=20)
    p.add_argument("--band-queries", type=int, default=100,
                   help="one-query latency: queries of two words per document-frequency band")
    return p.parse_args(argv)


def _summary(ms: list[float]) -> dict[str, float]:
    a = np.array(ms)
    return {"p50": round(float(np.percentile(a, 50)), 3), "p95": round(float(np.percentile(a, 95)), 3),
            "mean": round(float(a.mean()), 3), "n": len(ms)}


def latency(fn, texts: list[str]) -> dict[str, float]:
    """p50 / p95 / mean milliseconds of single-query calls."""
    ms = []
    for t in texts:
        s = time.perf_counter()
        fn(t)
        ms.append((time.perf_counter() - s) * 1000)
    return _summary(ms)


def paired_latency(fns: dict[str, Any], texts: list[str]) -> dict[str, dict[str, float]]:
    """:func:`latency` of several systems, interleaved query by query (a busy moment of a
    shared machine falls on all of them)."""
    ms: dict[str, list[float]] = {name: [] for name in fns}
    for t in texts:
        for name, fn in fns.items():
            s = time.perf_counter()
            fn(t)
            ms[name].append((time.perf_counter() - s) * 1000)
    return {name: _summary(v) for name, v in ms.items()}


def as_dicts(res: Any, ids: np.ndarray) -> list[dict[str, float]]:
    """bm25s results as ``{doc_id: score}`` dicts of matching docs (what a Run holds)."""
    names = ids[res.documents].tolist()
    scores = res.scores.tolist()
    counts = (res.scores > 0).sum(axis=1).tolist()
    return [dict(zip(n[:c], s[:c], strict=True)) for n, s, c in zip(names, scores, counts, strict=True)]


def bench_size(size: int, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """Run every system at one corpus size; returns the size's group of results."""
    group: dict[str, Any] = {"n_products": size}
    corpus = catalogue_corpus(size, args.n_queries, args.seed)
    texts, ids, queries = corpus.texts, corpus.ids, corpus.queries
    ids_arr = np.array(ids, dtype=object)
    qtexts = [q.text for q in queries]
    group.update(generate_s=corpus.generate_s, **corpus.stats())
    log(f"{size}: {len(texts)} docs, {len(queries)} queries (generated in {group['generate_s']} s)")

    # ---- ours: build, save, reload memory-mapped
    t = time.perf_counter()
    index = corpus.build_index(workdir / f"ours-{size}")
    group["build_s_ours"] = round(time.perf_counter() - t, 1)
    log(f"ours built in {group['build_s_ours']} s")

    # ---- bm25s directly
    stemmer = Stemmer.Stemmer("english")
    t = time.perf_counter()
    corpus_tok = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    ref = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    ref.index(corpus_tok, show_progress=False)
    group["build_s_bm25s"] = round(time.perf_counter() - t, 1)
    log(f"bm25s built in {group['build_s_bm25s']} s")

    def bm25s_batch(texts_: list[str], n_threads: int) -> Any:
        qt = bm25s.tokenize(texts_, stopwords="en", stemmer=stemmer, show_progress=False)
        return ref.retrieve(qt, k=args.k, n_threads=n_threads, show_progress=False)

    systems: dict[str, dict[str, Any]] = {}
    for backend in [b for b in args.backends.split(",") if b]:
        ours = BM25Retriever(index, k=args.k, n_threads=args.threads, backend=backend)
        ref.backend = backend  # retrieve() dispatches on this attribute
        if backend == "numba":
            ours.warmup()
        bm25s_batch(qtexts[:4], args.threads)  # warm (compile) both before timing
        ours(queries[:4])
        t_ours, t_ref, t_dict, t_ours_dict = [], [], [], []
        for _ in range(args.repeats):  # interleaved, best pass counts
            t_ours.append(best_time(lambda o=ours: o(queries), 1))
            t_ref.append(best_time(lambda: bm25s_batch(qtexts, args.threads), 1))
            t_dict.append(best_time(lambda: as_dicts(bm25s_batch(qtexts, args.threads), ids_arr), 1))
            t_ours_dict.append(best_time(lambda o=ours: o(queries).materialize(), 1))
        run = ours(queries)
        res = bm25s_batch(qtexts, args.threads)
        overlap = np.mean([
            len(set(run.ranked(q.id)[i][0] for i in range(min(10, len(run[q.id]))))
                & {ids[j] for j, s in zip(res.documents[r][:10], res.scores[r][:10], strict=True)
                   if s > 0}) / max(1, min(10, len(run[q.id])))
            for r, q in enumerate(queries)])
        def stats(times: list[float], backend: str = backend) -> dict[str, Any]:
            return {"qps": round(len(queries) / min(times), 1), "best_s": round(min(times), 4),
                    "median_qps": round(len(queries) / float(np.median(times)), 1),
                    "backend": backend}

        systems[f"skbsearch_{backend}"] = stats(t_ours)
        systems[f"bm25s_{backend}"] = stats(t_ref)
        systems[f"bm25s_{backend}_to_dicts"] = {
            **stats(t_dict), "note": "bm25s + the same {doc_id: score} dicts a Run holds"}
        systems[f"skbsearch_{backend}_to_dicts"] = {
            **stats(t_ours_dict), "note": "ours + every query's {doc_id: score} dict filled (a Run's "
                                          "dicts are otherwise filled on its first read)"}
        systems[f"skbsearch_{backend}"]["top10_overlap_with_bm25s"] = round(float(overlap), 4)
        log(f"{backend}: ours {systems[f'skbsearch_{backend}']['qps']} q/s, "
            f"bm25s {systems[f'bm25s_{backend}']['qps']} q/s, top-10 overlap {overlap:.3f}")

    # ---- latency (single query, one thread), fastest available backend
    lat_backend = "numba" if "numba" in args.backends and NUMBA_AVAILABLE else "numpy"
    ref.backend = lat_backend
    ours1 = BM25Retriever(index, k=args.k, n_threads=1, backend=lat_backend)
    sample = qtexts[:200]
    ours1.search(sample[0], args.k)  # compile the single-thread kernels before timing
    bm25s_batch(sample[:1], 1)
    lat = {"skbsearch": latency(lambda x: ours1.search(x, args.k), sample),
           "bm25s": latency(lambda x: bm25s_batch([x], 1), sample), "backend": lat_backend}
    # queries of two words from one document-frequency band: few postings (rare words) to
    # many (common ones), interleaved with bm25s query by query
    bands = df_band_queries(index, args.band_queries, args.seed)
    lat["by_df_band"] = {band: paired_latency({"skbsearch": lambda x: ours1.search(x, args.k),
                                                "bm25s": lambda x: bm25s_batch([x], 1)}, texts_)
                         for band, texts_ in bands.items()}

    # ---- rank_bm25 on a subsample (extrapolated)
    ref = corpus_tok = None  # free memory before rank_bm25
    gc.collect()
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        log("rank_bm25 not installed: skipped")
    else:
        t = time.perf_counter()
        tok = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False,
                             return_ids=False)
        okapi = BM25Okapi(tok, k1=1.5, b=0.75)
        del tok
        group["build_s_rank_bm25"] = round(time.perf_counter() - t, 1)
        rng = np.random.default_rng(args.seed)
        sub = [qtexts[i] for i in rng.choice(len(qtexts), min(args.rank_bm25_queries, len(qtexts)),
                                             replace=False)]

        def okapi_one(text: str) -> np.ndarray:
            q = bm25s.tokenize([text], stopwords="en", stemmer=stemmer, show_progress=False,
                               return_ids=False)[0]
            s = okapi.get_scores(q)
            top = np.argpartition(-s, min(args.k, len(s) - 1))[: args.k]
            return top[np.argsort(-s[top])]

        t = time.perf_counter()
        for x in sub:
            okapi_one(x)
        el = time.perf_counter() - t
        systems["rank_bm25"] = {"qps": round(len(sub) / el, 3), "best_s": round(el, 3),
                                "measured_queries": len(sub), "extrapolated": True}
        lat["rank_bm25"] = {"mean": round(el / len(sub) * 1000, 1), "n": len(sub)}
        log(f"rank_bm25: {systems['rank_bm25']['qps']} q/s on {len(sub)} queries (extrapolated)")
        del okapi
        gc.collect()

    group["systems"] = systems
    group["latency_ms"] = lat
    return group


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark, print a summary table and optionally write JSON."""
    args = parse_args(argv)
    config = {
        "protocol": "same corpus + queries; tokenization included; best of repeats; "
                    "rank_bm25 extrapolated from a query subsample",
        "data": DATA,
        "sizes": sizes(args), "n_queries": args.n_queries, "k": args.k, "threads": args.threads,
        "cpu_count": os.cpu_count(), "backends": args.backends, "repeats": args.repeats,
        "rank_bm25_queries": args.rank_bm25_queries, "seed": args.seed,
        "bm25": SETTINGS, "band_queries": args.band_queries,
        "versions": {"python": platform.python_version(), "bm25s": bm25s.__version__,
                     "numpy": np.__version__},
        # how make_report.py shows it in BENCHMARKS.md
        "title": "BM25 throughput vs bm25s and rank_bm25 (issue 3)", "order": 2, "percent": False,
        "pivot": True, "show_latency": True, **({"note": args.note} if args.note else {}),
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
    }
    groups: dict[str, Any] = {}
    metrics: dict[str, float | str] = {}
    latency_ms: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bm25bench-") as tmp:
        for size in sizes(args):
            g = bench_size(size, args, Path(tmp))
            latency_ms[str(size)] = lat = g.pop("latency_ms")
            metrics[f"one_query_p50_ms_skbsearch@{size}"] = lat["skbsearch"]["p50"]
            metrics[f"one_query_p50_ms_bm25s@{size}"] = lat["bm25s"]["p50"]
            for band, by in lat["by_df_band"].items():
                metrics[f"p50_ms_{band.replace(' ', '_')}_skbsearch/bm25s@{size}"] = (
                    f"{by['skbsearch']['p50']} / {by['bm25s']['p50']}")
            groups[str(size)] = g
            s = g["systems"]
            for backend in args.backends.split(","):
                if f"skbsearch_{backend}" not in s:
                    continue
                ours = s[f"skbsearch_{backend}"]["qps"]
                metrics[f"qps_skbsearch_{backend}@{size}"] = ours
                metrics[f"qps_bm25s_{backend}@{size}"] = s[f"bm25s_{backend}"]["qps"]
                metrics[f"ratio_vs_bm25s_{backend}@{size}"] = round(ours / s[f"bm25s_{backend}"]["qps"], 3)
                if "rank_bm25" in s:
                    metrics[f"ratio_vs_rank_bm25_{backend}@{size}"] = round(ours / s["rank_bm25"]["qps"], 1)
            if "rank_bm25" in s:
                metrics[f"qps_rank_bm25@{size}"] = s["rank_bm25"]["qps"]
    result = {"benchmark": "bm25_throughput", "config": config, "metrics": metrics,
              "groups": groups, "latency_ms": latency_ms}
    print(f"protocol: {config['protocol']}\ndata: {config['data']}")
    for key, value in metrics.items():
        print(f"{key:40s} {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")
        print(f"wrote {args.json}")
    return result


if __name__ == "__main__":
    main()

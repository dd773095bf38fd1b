"""How much of a BM25 query's work an *exact* dynamic pruning could skip, at best.

Protocol, per corpus size (``--sizes``): the synthetic catalogue (seeded) rendered with
``DocumentRenderer()``, indexed as in ``bm25_throughput.py`` (Lucene BM25, k1=1.5, b=0.75,
English stopwords and stemmer), and the first ``--n-queries`` of its queries. For each query,
the final ``k``-th best score (the highest threshold a top-``k`` search can ever hold) is
computed exhaustively, then:

- **block-max**: the share of ``--block``-row document blocks whose summed per-term block
  maxima do not exceed that threshold (blocks a block-max search could skip, even knowing the
  threshold from its first block);
- **MaxScore**: the terms whose maxima sum to at most the threshold are non-essential; the
  share of the query's postings in the essential terms, the share of documents holding one
  (the candidates), and the share of candidates whose essential score plus the non-essential
  maxima still exceeds the threshold (those a MaxScore search must score in full);
- the query's postings over the number of documents (the exhaustive kernel's work).

Usage::

    python benchmarks/bm25_pruning_headroom.py --sizes 100000,1000000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.benchmarks.bm25_corpus import DATA, SETTINGS, catalogue_corpus, corpus_parser, sizes
from skbsearch.benchmarks.measure import log
from skbsearch.index.sparse import BM25Index


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = corpus_parser(__doc__.split("\n\n")[0], n_queries=200)
    p.add_argument("--block", type=int, default=2048, help="rows per block-max block")
    return p.parse_args(argv)


def query_headroom(index: BM25Index, toks: list[int], k: int, block: int) -> dict[str, float]:
    """The shares described in the module's doc, for one query's token ids."""
    index.check_terms([toks])  # the postings are read here directly: checked first, as a query does
    indptr, indices, data = (np.asarray(index.bm25.scores[key]) for key in ("indptr", "indices", "data"))
    n = index.num_docs
    scores = index.score_docs(toks, np.arange(n))
    kth = float(np.sort(scores)[-k]) if int((scores > 0).sum()) >= k else 0.0
    n_blocks = (n + block - 1) // block
    bound = np.zeros(n_blocks, np.float64)
    maxima, dfs = [], []
    for t in toks:
        rows, vals = indices[indptr[t]:indptr[t + 1]], data[indptr[t]:indptr[t + 1]]
        bm = np.zeros(n_blocks, np.float64)
        np.maximum.at(bm, rows // block, vals)
        bound += bm
        maxima.append(float(vals.max()) if len(vals) else 0.0)
        dfs.append(len(rows))
    order = np.argsort(maxima)
    non_essential = set(order[np.cumsum(np.array(maxima)[order]) <= kth].tolist())
    ne_sum = float(sum(maxima[i] for i in non_essential))
    ess = [i for i in range(len(toks)) if i not in non_essential]
    essential = [toks[i] for i in ess]
    cand = np.unique(np.concatenate([indices[indptr[t]:indptr[t + 1]] for t in essential])) \
        if essential else np.zeros(0, np.int64)
    partial = index.score_docs(essential, cand) if len(cand) else np.zeros(0)
    survivors = int((partial + ne_sum > kth).sum())
    return {"blockmax_skippable": float((bound <= kth).mean()),
            "maxscore_essential_postings": sum(dfs[i] for i in ess) / max(1, sum(dfs)),
            "maxscore_candidates": len(cand) / n, "maxscore_survivors": survivors / max(1, len(cand)),
            "n_postings_per_doc": sum(dfs) / n}


def bench_size(size: int, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """The mean shares over the queries at one corpus size."""
    corpus = catalogue_corpus(size, args.n_queries, args.seed)
    index = corpus.build_index(workdir / f"idx-{size}")
    rows = [query_headroom(index, t, args.k, args.block)
            for t in index.tokenize([q.text for q in corpus.queries[: args.n_queries]]) if t]
    out: dict[str, Any] = {"n_docs": index.num_docs, "n_queries": len(rows)}
    out.update({key: round(float(np.mean([r[key] for r in rows])), 4) for key in rows[0]})
    log(f"{size}: {out}")
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the measurement, print it and optionally write JSON."""
    args = parse_args(argv)
    config = {
        "protocol": f"exhaustive top-{args.k} threshold per query; shares of blocks, postings and "
                    "documents an exact pruning could skip at best (means over queries)",
        "data": DATA, "bm25": SETTINGS,
        "sizes": sizes(args), "n_queries": args.n_queries, "k": args.k, "block": args.block, "seed": args.seed,
        "title": "BM25: headroom for exact dynamic pruning (issue 35)", "percent": True,
        **({"note": args.note} if args.note else {}),
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
    }
    with tempfile.TemporaryDirectory(prefix="bm25prune-") as tmp:
        groups = {str(s): bench_size(s, args, Path(tmp)) for s in sizes(args)}
    result = {"benchmark": "bm25_pruning_headroom", "config": config, "metrics": {}, "groups": groups}
    print(f"protocol: {config['protocol']}\ndata: {config['data']}")
    for size, g in groups.items():
        print(size, g)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")
        print(f"wrote {args.json}")
    return result


if __name__ == "__main__":
    main()

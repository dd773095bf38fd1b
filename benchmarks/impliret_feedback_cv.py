"""Choose the `enrich` pipeline's feedback settings by cross-validation over tuple sets.

The constrained retriever's text score adds a pseudo-relevance-feedback expansion
(``feedback_docs`` documents, ``feedback_terms`` terms, ``feedback_weight``). This script
scores every setting of a small grid on the IMPLIRET development halves (each pool
enriched once; each query ranks its whole pool, as in the Table 2 protocol), then runs a
K-fold cross-validation whose folds are whole tuple sets: each fold's setting is the one
with the best mean nDCG@10 (pools averaged per category, then over categories, as the
protocol does) on the other folds' queries, and is scored on the fold's own queries. The
setting chosen on all development queries is the one to use as the default; the CV
number estimates what choosing that way gives on unseen tuple sets.

    .venv/bin/python benchmarks/impliret_feedback_cv.py --data ../shared/data/impliret \
        --json benchmarks/results/impliret_feedback_cv.json
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.benchmarks.impliret import (
    CATEGORIES,
    POOLS,
    default_gazetteer,
    discover_pools,
    enrich_pool,
    load_gazetteer,
    load_pool,
)
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.retrieve.constrained import ConstrainedRetriever

# lambda (the expansion's share) within RM3's usual range; 0 = no feedback.
GRID = {"feedback_docs": (10, 20, 30), "feedback_terms": (10, 20, 40), "feedback_weight": (0.0, 0.1, 0.2, 0.35, 0.5)}


def ndcg_at_10(scores: np.ndarray, ids: np.ndarray, pos: int) -> float:
    """nDCG@10 of one query with one positive (trec_eval's tie order: doc id descending)."""
    higher = int((scores > scores[pos]).sum())
    tied = np.flatnonzero(scores == scores[pos])
    rank = higher + 1 + int(sum(1 for r in tied if str(ids[r]) > str(ids[pos])))
    return 1.0 / np.log2(rank + 1) if rank <= 10 else 0.0


def protocol_mean(values: dict[str, list[float]]) -> float:
    """Mean per pool, then per category (over its styles), then over categories."""
    cats = []
    for c in CATEGORIES:
        pools = [np.mean(v) for p, v in values.items() if p.startswith(c + "_") and v]
        if pools:
            cats.append(float(np.mean(pools)))
    return float(np.mean(cats)) if cats else 0.0


def score_grid(data: Path, pools: list[str]) -> tuple[list[dict[str, Any]], dict[str, list[tuple[str, str]]],
                                                    dict[str, np.ndarray]]:
    """nDCG@10 of every query under every grid setting: settings, queries, {pool: [setting, query]}."""
    present, _ = discover_pools(data)
    gaz = load_gazetteer(default_gazetteer(data))
    settings = [dict(zip(GRID, v, strict=True)) for v in itertools.product(*GRID.values())]
    settings = [s for s in settings if s["feedback_weight"] > 0 or (s["feedback_docs"], s["feedback_terms"]) == (20, 20)]
    queries: dict[str, list[tuple[str, str]]] = {}
    table: dict[str, np.ndarray] = {}
    for pool in pools:
        records = load_pool(present[pool])
        docs = enrich_pool(records, gaz)
        base = ConstrainedRetriever(docs, places=gaz.gazetteer if gaz else None, feedback_weight=0.0)
        queries[pool] = [(r.id, r.tuple_set_id) for r in records]
        table[pool] = np.zeros((len(settings), len(records)))
        for i, st in enumerate(settings):
            stage = ConstrainedRetriever(docs, base.index, places=base.places, **st)
            for j, r in enumerate(records):
                table[pool][i, j] = ndcg_at_10(stage.score(r.question), stage.index.ids_array, stage.index.position[r.id])
        best = int(np.argmax(table[pool].mean(axis=1)))
        print(f"{pool}: no feedback {100 * table[pool][settings.index({'feedback_docs': 20, 'feedback_terms': 20, 'feedback_weight': 0.0})].mean():.2f}, "
              f"best {100 * table[pool][best].mean():.2f} {settings[best]}", flush=True)
    return settings, queries, table


def cross_validate(settings: list[dict[str, Any]], queries: dict[str, list[tuple[str, str]]],
                   table: dict[str, np.ndarray], folds: int) -> dict[str, Any]:
    """Tuple-set folds: choose on the others, score on the fold; also the all-data choice."""
    sets = sorted({t for qs in queries.values() for _, t in qs}, key=lambda x: (len(x), x))
    fold_of = {t: k % folds for k, t in enumerate(sets)}

    def mean(i: int, keep: Any) -> float:
        return protocol_mean({p: [table[p][i, j] for j, (_, t) in enumerate(qs) if keep(t)] for p, qs in queries.items()})

    def outside(f: int) -> Any:
        return lambda t: fold_of[t] != f

    held: dict[str, list[float]] = {p: [] for p in queries}
    chosen = []
    for f in range(folds):
        keep = outside(f)
        best = max(range(len(settings)), key=lambda i: mean(i, keep))
        chosen.append(settings[best])
        for p, qs in queries.items():
            held[p] += [table[p][best, j] for j, (_, t) in enumerate(qs) if fold_of[t] == f]
    final = max(range(len(settings)), key=lambda i: mean(i, lambda t: True))
    none = settings.index({"feedback_docs": 20, "feedback_terms": 20, "feedback_weight": 0.0})
    return {"cv": protocol_mean(held), "fold_choices": chosen, "final": settings[final],
            "final_dev": mean(final, lambda t: True), "no_feedback_dev": mean(none, lambda t: True),
            "per_pool_cv": {p: float(np.mean(v)) for p, v in held.items()}}


def main() -> None:
    """Command line."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--pool", action="append", choices=POOLS, help="pools (default: all)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    t0 = time.perf_counter()
    settings, queries, table = score_grid(args.data, args.pool or list(POOLS))
    res = cross_validate(settings, queries, table, args.folds)
    print(f"\nno feedback (dev): {100 * res['no_feedback_dev']:.2f}")
    print(f"{args.folds}-fold CV over tuple sets: {100 * res['cv']:.2f}  (fold choices: {res['fold_choices']})")
    print(f"chosen on all dev queries: {res['final']} -> {100 * res['final_dev']:.2f}")
    if args.json:
        groups = {p: {"ndcg@10 (cv)": v} for p, v in res["per_pool_cv"].items()}
        config = {"title": "IMPLIRET dev halves: feedback settings of `enrich`, chosen by cross-validation (issue 16)",
                  "command": "python benchmarks/impliret_feedback_cv.py --data ../shared/data/impliret "
                             f"--folds {args.folds} --json {args.json}",
                  "grid": GRID, "folds": args.folds, "fold_choices": res["fold_choices"], "final": res["final"],
                  "order": 12, "show_latency": False, "seconds": round(time.perf_counter() - t0, 1),
                  "note": (f"{args.folds} folds of whole tuple sets; each fold's setting is the best on the "
                           "other folds (protocol mean of nDCG@10). Fold choices: "
                           + "; ".join(f"{c['feedback_docs']}/{c['feedback_terms']}/{c['feedback_weight']:g}"
                                       for c in res["fold_choices"])
                           + f". Chosen on all development queries (the default): {res['final']}.")}
        metrics = {"ndcg@10 (cv)": res["cv"], "ndcg@10 (no feedback)": res["no_feedback_dev"],
                   "ndcg@10 (chosen, dev)": res["final_dev"]}
        BenchmarkResult("impliret_feedback_cv", config, metrics, groups, {}).to_json(args.json)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()

"""Our STaRK evaluator against STaRK's own numbers on real rankings.

    python benchmarks/stark_evaluator_check.py --data ../shared/data/stark-queries \
        --json benchmarks/results/stark_evaluator_check.json

For each dataset folder with ``avatar-vss-ada002/eval_results_human_generated_eval.csv``
(text-embedding-ada-002 top-1000 rankings of STaRK's human-generated queries, with the
per-query metrics STaRK's evaluator computed over every candidate), re-score the saved
rankings with :mod:`skbsearch.eval.stark` and report the largest per-query difference.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from skbsearch.benchmarks.stark import evaluator_check

COMMAND = ("python benchmarks/stark_evaluator_check.py --data ../shared/data/stark-queries "
           "--json benchmarks/results/stark_evaluator_check.json")
COLUMNS = ["queries", "exact_max_abs_diff", "mrr_queries_in_reach", "mrr_max_abs_diff_in_reach",
           "mrr_max_abs_diff_all", "map_queries_in_reach", "map_differ_in_reach",
           "map_max_abs_diff_in_reach", "mrr_mean_ours", "mrr_mean_stark", "map_mean_ours",
           "map_mean_stark", "answers_not_candidates"]
NOTE = """\
Rows: STaRK's human-generated queries (81 Amazon, 84 MAG, 109 Prime) with real
text-embedding-ada-002 rankings (top 1000 of every candidate, saved by AvaTaR's evaluation
of STaRK) and the per-query metrics STaRK's `Evaluator` computed over **all** candidates.
`exact_max_abs_diff` is the largest per-query |ours − STaRK| over hit@1/3/5/10/20/50,
recall@5/10/20/50/100 and R-precision: these only look at the top 1000, so they must agree
exactly, and they do (differences are float32 rounding, < 3e-8). MRR is exact wherever the
saved top 1000 holds an answer (`mrr_queries_in_reach`); elsewhere the true rank is past
1000 and only known to give RR ≤ 1/1001 (`mrr_max_abs_diff_all`). MAP is exact where every
answer is in the top 1000, except one MAG query (83) whose second answer is rank 516 in the
saved list while STaRK's value implies 517 (presumably equal ada scores
ordered differently; |diff| 3.8e-6). Candidates without
the SKBs: the ranked ids plus the answers within their id range (each node type has a
contiguous id range in the official SKBs); 3 MAG answers (e.g. node 15775 of query 50) are
not papers, so STaRK drops them and so do we. Means are over every query (`*_mean_*`).

With the official STaRK SKBs (processed files from the `stark_qa` download), run:

    skb kb build ~/stark/amazon/processed skb-amazon --format stark --trust-pickles
    skb bench stark --skb skb-amazon --qa ../shared/data/stark-queries/amazon --split test \\
        --json benchmarks/results/stark_amazon_test_bm25.json
    skb bench stark --skb skb-amazon --qa ../shared/data/stark-queries/amazon --split human \\
        --pipeline "bm25(k=1000, types=[product]) + graph(target=[product])"
    # MAG and Prime alike (candidates: paper / every node); or skip the build:
    skb bench stark --skb ~/stark/mag/processed --trust-pickles \\
        --qa ../shared/data/stark-queries/mag --split val --limit 500

`skb bench stark` prints the protocol, the data paths and Hit@1/3/5/10/20/50,
Recall@5/10/20/50/100, MRR, MAP and R-precision as STaRK's evaluator computes them
(`--ties stable|optimistic|pessimistic|torch` for equal scores). No STaRK SKB is on these
machines, so no retrieval numbers are reported here yet."""


def main() -> None:
    """Run the check over every dataset folder present; print and optionally save it."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path,
                    default=Path(__file__).resolve().parents[2] / "shared/data/stark-queries")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    res = evaluator_check(args.data)
    res.config.update({
        "data": "../shared/data/stark-queries" if args.data.resolve() == (
            Path(__file__).resolve().parents[2] / "shared/data/stark-queries").resolve() else str(args.data),
        "title": "STaRK: our evaluator vs STaRK's on real ada-002 rankings (issue 12)",
        "order": 4, "percent": False, "command": COMMAND, "columns": COLUMNS,
        "overall_row": False, "note": NOTE,
    })
    for name, g in res.groups.items():
        print(f"{name:8s} queries {int(g['queries']):4d}  hit/recall/rprecision max |diff| "
              f"{g['exact_max_abs_diff']:.1e}  mrr: {int(g['mrr_queries_in_reach'])} decided, "
              f"max |diff| {g['mrr_max_abs_diff_in_reach']:.1e} (all {g['mrr_max_abs_diff_all']:.1e})  "
              f"map: {int(g['map_queries_in_reach'])} decided, {int(g['map_differ_in_reach'])} "
              f"differ, max |diff| {g['map_max_abs_diff_in_reach']:.1e} (all {g['map_max_abs_diff_all']:.1e})")
    if args.json:
        res.to_json(args.json)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()

"""STaRK Table 4 query-set statistics on the official query files.

    python benchmarks/stark_query_stats.py --data ../shared/data/stark-queries \
        --json benchmarks/results/stark_query_stats.json

Published (paper, Table 4): entropy 10.39 / 10.25 / 9.63, TTR 0.179 / 0.180 / 0.143
(Amazon / MAG / Prime).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.eval.query_stats import query_file_stats

PUBLISHED = {"amazon": (10.39, 0.179), "mag": (10.25, 0.180), "primekg": (9.63, 0.143)}


def main() -> None:
    """Compute the statistics for every dataset folder present and print / save them."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/stark-queries")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    res = BenchmarkResult(
        "stark_query_stats",
        config={"data": str(args.data), "tokenizer": "whitespace", "ttr_stopwords": "nltk"},
    )
    for name, (ent, ttr) in PUBLISHED.items():
        f = args.data / name / "stark_qa" / "stark_qa.csv"
        if not f.is_file():
            print(f"skip {name}: {f} not found")
            continue
        st = query_file_stats(f)
        res.groups[name] = {
            "queries": st.n_queries,
            "query_length_mean": round(st.query_length_mean, 2),
            "answers_mean": round(st.answers_mean or 0.0, 2),
            "entropy": round(st.entropy, 3),
            "entropy_published": ent,
            "ttr": round(st.ttr, 4),
            "ttr_published": ttr,
        }
        print(name, res.groups[name])
    if args.json:
        res.to_json(args.json)


if __name__ == "__main__":
    main()

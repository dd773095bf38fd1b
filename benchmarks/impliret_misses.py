"""Why does the `enrich` pipeline miss an IMPLIRET query? Classify every miss by cause.

Each query of the development halves whose positive is not at rank 1 gets one cause (query
constraint misread, fact not extracted, wrong reference, wrong binding, tie, other), checked
in the order :mod:`skbsearch.benchmarks.impliret.misses` gives.

The classification is :mod:`skbsearch.benchmarks.impliret.misses`; this script prints its
counts per pool and cause (for rank > 1 and for rank > 10), a few examples per cause, and writes
a JSON result that ``benchmarks/make_report.py`` lays out in BENCHMARKS.md.

    .venv/bin/python benchmarks/impliret_misses.py --data ../shared/data/impliret \
        [--pool arithmetic_multispeaker ...] [--json benchmarks/results/impliret_misses.json]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.impliret import POOLS
from skbsearch.benchmarks.impliret.misses import CAUSES, run


def main() -> None:
    """Command line."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--pool", action="append", choices=POOLS, help="pools to analyse (default: all)")
    ap.add_argument("--examples", type=int, default=3, help="examples kept per cause")
    ap.add_argument("--json", type=Path, default=None, help="write the result here")
    args = ap.parse_args()
    result = run(args.data, args.pool or list(POOLS), args.examples)
    print("\nper cause (all pools):")
    for k in CAUSES:
        print(f"  {k:28s} {result.metrics[k]:5d}")
    by_cause: dict[str, list[dict[str, Any]]] = {}
    for m in result.config["examples"]:
        by_cause.setdefault(m["cause"], []).append(m)
    for cause, ms in by_cause.items():
        print(f"\n{cause}:")
        for m in ms:
            print(f"  [{m['pool']} #{m['query']} rank {m['rank']}] {m['question']}\n      {m['detail']}")
    if args.json:
        result.to_json(args.json)
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()

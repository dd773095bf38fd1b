"""Why does the `enrich` pipeline miss an IMPLIRET query? Classify every miss by cause.

Runs the `enrich` pipeline (the Table 2 protocol: each query ranks all documents of its own
pool) on the development halves and, for every query whose positive is not at rank 1,
names one cause, checked in this order:

1. ``query constraint misread``: the constraints parsed from the question differ from the
   price, date, time or place the question states (read here by independent regexes);
2. ``fact not extracted``: the positive has no fact with the asked value (nor one that a
   different reference would give);
3. ``wrong reference price/date``: the positive has a derived fact of the right kind, but
   computed from another reference (another stated price or factor direction; another
   message date), and the asked value is what that other reference gives; documents that
   state the opposite direction of their own tuple land here too;
4. ``wrong entity-fact binding``: the asked value is there but bound loosely or wrongly: an
   undecided side of a comparison (confidence < 1), a clock time attached to another event,
   a speaker other than the one the question names; or a document ranked above the
   positive meets the constraint only through a fact of another speaker;
5. ``tie``: the positive's facts meet the constraint and it shares the top score;
6. ``other``: the positive's facts meet the constraint, but a document that meets it too
   has more of the question's words (BM25 decides); or the positive states the asked
   amount in another currency.

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

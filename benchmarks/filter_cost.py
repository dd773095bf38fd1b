"""The filter cost model against measured time (issue 31): ``kb.predicate_cost`` estimates,
per pattern, against what pyarrow's kernels take over the demo catalogue's node table.

For each predicate the time of one evaluation (best of ``--repeats``, ``select_mask`` over
the whole node table) is divided by the time of ``price < 50`` (one numeric comparison a
row: the cost unit), giving the *measured* cost in units; the *estimated* cost is
``predicate_cost``. The model is conservative when estimated / measured >= 1 for the
dangerous shapes (long ``_`` runs) and within a small factor for the cheap ones.

Usage::

    .venv/bin/python benchmarks/filter_cost.py --products 20000 --json benchmarks/results/filter_cost.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from skbsearch.benchmarks.measure import best_time
from skbsearch.kb.predicate import select_mask
from skbsearch.kb.predicate_cost import predicate_cost
from skbsearch.synth.catalogue import generate_catalogue

CHAIN = "%" + "%".join("abcdefghijklmnop"[i % 16] for i in range(480)) + "%"
PREDICATES = {
    "price < 50": "price < 50",
    "price IN (5 values)": "price IN (9.99, 19.99, 29.99, 39.99, 49.99)",
    "name LIKE 'Acme%' (prefix)": "name LIKE 'Acme%'",
    "description LIKE '%wool%' (substring)": "description LIKE '%wool%'",
    "description ILIKE '%wool%'": "description ILIKE '%wool%'",
    "description ILIKE 1,000-char '%a%b%...' chain": f"description ILIKE '{CHAIN}'",
    "description ILIKE '%a' + 30 '_' + 'b%'": "description ILIKE '%a" + "_" * 30 + "b%'",
    "description ILIKE '%a' + 60 '_' + 'b%'": "description ILIKE '%a" + "_" * 60 + "b%'",
    "description ILIKE '%a' + 120 '_' + 'b%'": "description ILIKE '%a" + "_" * 120 + "b%'",
}


def main(argv: list[str] | None = None) -> int:
    """Measure every predicate, print and optionally write the result."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--products", type=int, default=20000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    table = generate_catalogue(args.products, n_queries=2, seed=0).skb.nodes
    unit = best_time(lambda: select_mask("price < 50", table), 5 * args.repeats)
    groups = {}
    for name, text in PREDICATES.items():
        took = best_time(lambda text=text: select_mask(text, table), args.repeats)
        est = predicate_cost(text, table)
        measured = took / unit * table.num_rows
        groups[name] = {"time_ms": round(1000 * took, 2), "measured_cost": round(measured),
                        "estimated_cost": round(est), "estimated_over_measured": round(est / measured, 2)}
        print(f"{name:50s} {groups[name]}", flush=True)
    result = {"benchmark": "filter_cost", "config": {
        "title": "Filter cost model: estimated against measured cost of where predicates (issue 31)",
        "order": 62, "percent": False, "overall_row": False,
        "protocol": (f"demo catalogue of {args.products:,} products ({table.num_rows:,} node rows); "
                     "one select_mask over the node table, best of "
                     f"{args.repeats}; measured cost = time / time of 'price < 50' x rows (the unit: "
                     "one numeric comparison a row); estimated = kb.predicate_cost"),
        "note": "2 shared CPU cores; the ratio column is what matters (>= 1: the estimate is conservative).",
        "command": f"python benchmarks/filter_cost.py --products {args.products} --repeats {args.repeats}"
                   + (f" --json {args.json}" if args.json else ""),
        "cpu_count": os.cpu_count(),
        "columns": ["time_ms", "measured_cost", "estimated_cost", "estimated_over_measured"]},
        "metrics": {"rows": table.num_rows, "unit_ms": round(1000 * unit, 3)}, "groups": groups}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

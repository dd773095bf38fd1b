"""A ``where`` filter over a generation with pending segments (issue 31): its time now, as it
was evaluated before (each block of rows on its slices as they are), and over the same rows
in one chunk, side by side in one process.

Protocol: the demo catalogue of ``--products`` products (as ``serve_load.py`` prepares it,
under ``--skb-root``) copied to a scratch directory (without its indexes); ``--updates``
updates committed as ``POST /admin/update`` commits them (``serve_reload.one_update``:
:data:`UPDATE_NODES` products re-priced, the generation opened from the served one each
time, as the server does). On the last generation, for each predicate, the best of
``--repeats`` wall times of

- *pending, now*: ``kb.predicate.select_mask`` (each block of 16,384 rows in one chunk);
- *pending, per slice (before)*: the same blocks evaluated on their slices as they are
  (``kb.predicate.evaluate`` on ``table.slice``: ``select_mask`` before this change);
- *one chunk*: the same rows with every column in one chunk (what a fresh build holds).

The storm predicate is the 1,000-character ``description ILIKE '%a%b%…'`` chain of
``serve_abuse.storm_where`` (what ``serve_load.py --filter-storm`` sends). The masks of the
three ways are checked equal.

Usage::

    .venv/bin/python benchmarks/filter_pending.py --products 100000 --updates 14 \\
        --skb-root /tmp/cat100k --json benchmarks/results/filter_pending_100k.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from serve_abuse import UPDATE_NODES, product_records, storm_where
from serve_load import prepare
from serve_reload import one_update

from skbsearch.benchmarks.measure import best_time, log
from skbsearch.kb.predicate import EVAL_CHUNK_ROWS, evaluate, parse_predicate, select_mask
from skbsearch.kb.store import SKB

PREDICATES = {
    "storm: description ILIKE 1,000-char '%a%b%...' chain": storm_where(1),
    "description ILIKE '%yellow%'": "description ILIKE '%yellow%'",
    "price < 150": "price < 150",
}


def per_slice(text: str, table: pa.Table) -> np.ndarray:
    """``select_mask`` as it was before: each block evaluated on its slices as they are."""
    expr = parse_predicate(text, set(table.column_names))
    return np.concatenate([evaluate(expr, table.slice(s, EVAL_CHUNK_ROWS))
                           for s in range(0, table.num_rows, EVAL_CHUNK_ROWS)])


def pending_generation(skb_dir: Path, updates: int, seed: int) -> SKB:
    """``updates`` re-pricing updates of ``skb_dir``, each generation opened from the one
    before; the last one."""
    served = SKB.load(skb_dir)
    products = product_records(served)
    rng = random.Random(seed)
    for k in range(updates):
        one_update(skb_dir, "reprice", products, rng, served)
        served = SKB.load(skb_dir, previous=served)
        log(f"generation {k + 1}: {served.nodes.column('description').num_chunks} description chunks")
    return served


def main(argv: list[str] | None = None) -> int:
    """Prepare, measure, print and optionally write the result."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--products", type=int, default=100_000)
    p.add_argument("--updates", type=int, default=14)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skb-root", type=Path, default=None)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    groups: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="skb-filter-") as tmp:
        root = args.skb_root or Path(tmp) / "data"
        prepare(root, args.products, args.seed)
        work = Path(tmp) / "skb"
        shutil.copytree(root / "skb", work, ignore=shutil.ignore_patterns("indexes"))
        skb = pending_generation(work, args.updates, args.seed)
        table = skb.nodes
        whole = table.combine_chunks()
        chunks = table.column("description").num_chunks
        for name, text in PREDICATES.items():
            now = select_mask(text, table)
            assert np.array_equal(now, per_slice(text, table)) and np.array_equal(now, select_mask(text, whole))
            t_now = best_time(lambda t=text: select_mask(t, table), args.repeats)
            t_before = best_time(lambda t=text: per_slice(t, table), args.repeats)
            t_one = best_time(lambda t=text: select_mask(t, whole), args.repeats)
            groups[name] = {"rows_selected": int(now.sum()), "pending_now_ms": round(1000 * t_now, 1),
                            "pending_before_ms": round(1000 * t_before, 1),
                            "one_chunk_ms": round(1000 * t_one, 1),
                            "before_over_now": round(t_before / t_now, 1),
                            "now_over_one_chunk": round(t_now / t_one, 2)}
            print(f"{name:55s} {groups[name]}", flush=True)
    result = {"benchmark": "filter_pending", "config": {
        "title": f"A where filter over {args.updates} pending generations, {args.products:,} products",
        "order": 63, "percent": False, "overall_row": False,
        "protocol": (f"demo catalogue of {args.products:,} products, {args.updates} updates of "
                     f"{UPDATE_NODES} products re-priced, each generation opened from the one before "
                     f"(its text columns then in {chunks} slices); best of {args.repeats} wall times "
                     "of select_mask now, of the per-slice evaluation before, and over the same rows "
                     "in one chunk"),
        "note": ("Wall time on 2 cores shared with other jobs; the three ways run one after another "
                 "in one process, so their ratios hold better than their times. A LIKE/ILIKE that "
                 "is a regular expression is compiled once per chunk Arrow evaluates."),
        "command": (f"python benchmarks/filter_pending.py --products {args.products} --updates {args.updates} "
                    f"--repeats {args.repeats}" + (f" --skb-root {args.skb_root}" if args.skb_root else "")
                    + (f" --json {args.json}" if args.json else "")),
        "products": args.products, "updates": args.updates, "description_chunks": chunks,
        "cpu_count": os.cpu_count(),
        "columns": ["rows_selected", "pending_now_ms", "pending_before_ms", "one_chunk_ms",
                    "before_over_now", "now_over_one_chunk"]},
        "metrics": {}, "groups": groups}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

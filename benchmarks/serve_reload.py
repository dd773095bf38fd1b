"""What one reload of the served SKB costs after an update: a whole load vs taking over the
previous snapshot (issue 31, ``server.reuse``), side by side in one process.

Protocol: the demo catalogue of ``--products`` products and its BM25 index (as
``serve_load.py`` prepares it, under ``--skb-root``), copied to a scratch directory. A
first snapshot is loaded and warmed with the server's default named
pipelines (``bm25``, ``graph``, ``bm25 + graph``). Then ``--updates`` times: one update is
committed as ``POST /admin/update`` commits it (``--kind reprice``: 20 products re-priced,
their text unchanged, as ``serve_abuse.py``'s updater sends; ``rename``: 20 products
renamed; the generation it changes opened from the served SKB: *update: commit*), and the new
generation is opened twice — *whole* (``Snapshot.load`` with every pending segment merged +
warming every named pipeline, the indexes caught up from disk with every pending segment, +
``Snapshot.prime``: the ``/kb`` overview, the id look-up and the columns a search's hits
read) and *reusing* the served snapshot (``Snapshot.load`` from the served one, only the new
segment applied, + ``Snapshot.reuse`` + warming + priming), as the server's loader thread
does before a swap; then the first ``bm25`` search on it (the probe's request, with evidence)
— each timed in process CPU seconds
(``time.process_time``: every thread, Arrow's included; wall time is meaningless on a shared
machine). The reused snapshot is then served. Reported: the mean and max CPU of each step.

Usage::

    .venv/bin/python benchmarks/serve_reload.py --products 100000 --updates 5 \\
        --skb-root /tmp/cat100k --json benchmarks/results/serve_reload_100k.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from serve_abuse import UPDATE_NODES, product_records
from serve_load import prepare

from skbsearch.kb.store import SKB
from skbsearch.server.admin import commit_update
from skbsearch.server.pipelines import PipelinePolicy, PipelineRequest
from skbsearch.server.search import run_search, warm_pipelines
from skbsearch.server.snapshot import Snapshot

#: the request ``serve_abuse.py``'s probe sends: ``{"query": ..., "k": 10, "pipeline": "bm25"}``
PROBE = PipelineRequest("bm25", None, (), None, 10)


def cpu(fn: Any) -> tuple[Any, float]:
    """``fn()`` and the process CPU seconds it took."""
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


def one_update(skb_dir: Path, kind: str, products: list[dict[str, Any]], rng: random.Random,
               served: SKB | None = None) -> None:
    """Commit one update of :data:`UPDATE_NODES` products (re-priced or renamed), as
    ``POST /admin/update`` does (the generation it changes opened from the ``served`` SKB)."""
    nodes = rng.sample(products, UPDATE_NODES)
    if kind == "reprice":
        nodes = [{**p, "price": round(rng.uniform(1, 500), 2)} for p in nodes]
    else:
        nodes = [{**p, "name": f"{p['name']} {rng.choice(['mk2', 'plus', 'lite', 'pro'])}"} for p in nodes]
    commit_update(skb_dir, {"nodes": nodes}, served)


def measure(skb_dir: Path, kind: str, updates: int, seed: int) -> dict[str, list[float]]:
    """CPU seconds of each step of each reload (see the module docstring)."""
    policy = PipelinePolicy()
    current = Snapshot.load(skb_dir)
    warm_pipelines(current, policy)
    current.prime()
    products = product_records(SKB.load(skb_dir))
    rng = random.Random(seed)
    steps: dict[str, list[float]] = {}
    for _ in range(updates):
        _, t_commit = cpu(partial(one_update, skb_dir, kind, products, rng, current.skb))
        whole, t_load = cpu(lambda: Snapshot.load(skb_dir))
        _, t_warm = cpu(partial(warm_pipelines, whole, policy))
        _, t_kb = cpu(whole.prime)
        del whole
        snap, r_load = cpu(partial(Snapshot.load, skb_dir, previous=current))
        _, r_reuse = cpu(partial(snap.reuse, current))
        _, r_warm = cpu(partial(warm_pipelines, snap, policy))
        _, r_kb = cpu(snap.prime)
        current = snap  # served from now on (the loader thread's swap)
        _, first = cpu(partial(run_search, snap, policy, PROBE, [products[0]["name"]], evidence=5,
                               evidence_budget=50, batch=False))
        for name, v in (("update: commit", t_commit), ("whole: load", t_load), ("whole: warm", t_warm),
                        ("whole: prime", t_kb), ("whole: total", t_load + t_warm + t_kb),
                        ("reusing: load", r_load), ("reusing: reuse", r_reuse), ("reusing: warm", r_warm),
                        ("reusing: prime", r_kb), ("reusing: total", r_load + r_reuse + r_warm + r_kb),
                        ("served: first bm25 search", first)):
            steps.setdefault(name, []).append(v)
    return steps


def main(argv: list[str] | None = None) -> int:
    """Prepare, measure, print and optionally write the result."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--products", type=int, default=100_000)
    p.add_argument("--updates", type=int, default=5)
    p.add_argument("--kind", choices=("reprice", "rename"), nargs="+", default=["reprice", "rename"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skb-root", type=Path, default=None)
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    groups: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="skb-reload-") as tmp:
        root = args.skb_root or Path(tmp) / "data"
        prepare(root, args.products, args.seed)
        for kind in args.kind:
            work = Path(tmp) / f"skb-{kind}"
            shutil.copytree(root / "skb", work)
            steps = measure(work, kind, args.updates, args.seed)
            shutil.rmtree(work)
            for name, v in steps.items():
                groups[f"{kind}: {name}"] = {"n": len(v), "mean_cpu_s": round(sum(v) / len(v), 3),
                                             "max_cpu_s": round(max(v), 3)}
            ratio = sum(steps["whole: total"]) / max(sum(steps["reusing: total"]), 1e-9)
            groups[f"{kind}: whole / reusing"] = {"n": args.updates, "mean_cpu_s": round(ratio, 2)}
    for name, g in groups.items():
        print(f"{name:34s} {g}")
    result = {"benchmark": "serve_reload", "config": {
        "title": f"One reload after an update: whole vs reusing the served snapshot, {args.products:,} products",
        "order": 62, "percent": False, "overall_row": False,
        "protocol": (f"{args.updates} updates of {UPDATE_NODES} products each ({', '.join(args.kind)}) on the "
                     "demo catalogue + BM25 index; after each, the new generation opened whole and "
                     "reusing the served snapshot (server.reuse), each warmed with the default named "
                     "pipelines; process CPU seconds (all threads) per step"),
        "note": ("Process CPU time, not wall time: the 2 cores were shared with other jobs. The "
                 "'whole / reusing' rows give the ratio of the total CPU in their mean_cpu_s column. "
                 "The first update after the build reuses the served snapshot like the others "
                 "(generation 1 keeps the build's relation numbering). 'prime' (Snapshot.prime) is "
                 "work the first search after a swap used to do; 'served: first bm25 search' is "
                 "that search now."),
        "command": (f"python benchmarks/serve_reload.py --products {args.products} --updates {args.updates} "
                    f"--kind {' '.join(args.kind)}" + (f" --skb-root {args.skb_root}" if args.skb_root else "")
                    + (f" --json {args.json}" if args.json else "")),
        "products": args.products, "cpu_count": os.cpu_count(),
        "columns": ["n", "mean_cpu_s", "max_cpu_s"]},
        "metrics": {}, "groups": groups}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Is a caught-up BM25 index slower than the same index saved and memory-mapped? (issue 25)

After one update (500 changed + 500 new products + 100 deleted, as ``live_updates.py``) of a
catalogue SKB, the index caught up in memory and the same index saved and reopened answer the
catalogue's queries interleaved (``top_rows``, k = 100), twice over, with Python's GC on and then
frozen; prints p50 / p95 / max ms of each::

    python benchmarks/live_bm25_tail.py --dataset /tmp/h25l/cat1m --work /tmp/h25l/tail
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import live_updates as lu  # noqa: E402

from skbsearch.index.live import catch_up  # noqa: E402
from skbsearch.index.sparse import BM25Index  # noqa: E402
from skbsearch.kb import SKB  # noqa: E402
from skbsearch.kb.update import update  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    """Run the comparison (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", type=Path, required=True, help="a catalogue dataset (skb synth catalogue)")
    p.add_argument("--work", type=Path, required=True, help="a new work directory")
    p.add_argument("--queries", type=int, default=200)
    a = p.parse_args(argv)
    d = a.work / "skb"
    a.work.mkdir(parents=True)
    shutil.copytree(a.dataset / "skb", d)
    update(d, **lu.make_update(SKB.load(d), np.random.default_rng(0), "u0", 500, 500, 100, a.work))
    live = SKB.load(d)
    mem = catch_up(BM25Index.load(d / "indexes" / "bm25"), live)
    mem.save(a.work / "saved")
    disk = BM25Index.load(a.work / "saved")
    disk.share_node_ids(live)
    disk.warm()
    with open(a.dataset / "queries.jsonl", encoding="utf-8") as f:
        texts = [json.loads(line).get("text", "") for line in f][: a.queries]
    toks = [mem.tokenize([t])[0] for t in texts]
    for label in ("gc on", "gc frozen"):
        if label == "gc frozen":
            gc.freeze()
        ms: dict[str, list[float]] = {"in memory": [], "memory-mapped": []}
        for _ in range(2):
            for tk in toks:
                for name, idx in (("in memory", mem), ("memory-mapped", disk)):
                    t0 = time.perf_counter()
                    idx.top_rows(tk, 100)
                    ms[name].append((time.perf_counter() - t0) * 1000)
        for name, v in ms.items():
            print(f"{label:9s} {name:13s} p50 {np.percentile(v, 50):.2f}  p95 {np.percentile(v, 95):.2f}  "
                  f"max {max(v):.1f} ms")


if __name__ == "__main__":
    main()

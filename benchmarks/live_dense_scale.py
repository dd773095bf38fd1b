"""A dense index's catch-up after one update, over every node of a large SKB (issue 25: "with
the dense index on CPU, target under 60 s", at 1M products).

Embedding a 1M-node base with MiniLM takes hours on 2 CPU cores, and a catch-up never reads the
base vectors' values (it embeds the new and changed documents, maps every live document to its
row and copies the rows it keeps). So the base here is an index of the right shape and
metadata — what ``skb index --kind dense`` writes for this SKB: every node, the packaged MiniLM,
384 dimensions — holding random unit vectors; the update's documents are embedded for real, on
the CPU. Timed: ``catch_up`` of the saved (memory-mapped) index to the updated generation, the
same call a search or ``skb serve`` makes; and, for scale, the MiniLM rate on the update's own
documents times the node count (what re-embedding would cost).

Usage::

    python benchmarks/live_dense_scale.py --dataset /tmp/h25l/cat1m --work /tmp/dense1m \\
        --json benchmarks/results/live_dense_1m.json
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from skbsearch.benchmarks.measure import log
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.devices import cpu_record
from skbsearch.encoders import load_encoder
from skbsearch.index.dense import DenseIndex
from skbsearch.index.docsource import DocSource, skb_renderer
from skbsearch.index.live import catch_up
from skbsearch.kb import SKB
from skbsearch.kb.update import update

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_updates import make_update  # noqa: E402


def random_base(skb: SKB, dim: int, rng: np.random.Generator) -> DenseIndex:
    """The default dense index of ``skb`` in shape and metadata, with random unit vectors."""
    enc = load_encoder("minilm", "cpu")
    info = DocSource.from_any(skb, skb_renderer(None, None, False, 10), indices=np.zeros(0, np.int64)).source
    info["num_nodes"] = skb.num_nodes
    emb = rng.standard_normal((skb.num_nodes, dim), dtype=np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    return DenseIndex(list(skb.ids), emb, encoder=enc.name, model_id=enc.model_id, normalized=True,
                      source=info, built_on=cpu_record())


def main(argv: list[str] | None = None) -> None:
    """Build the random base, apply one update, time the catch-up."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", required=True, type=Path, help="a 'skb synth catalogue' directory")
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(a.seed)
    os.environ["SKB_CACHE_DIR"] = str(a.work / "cache")  # a cold embedding cache
    d = a.work / "skb"
    if d.exists():
        shutil.rmtree(d)
    a.work.mkdir(parents=True, exist_ok=True)
    log("copying the SKB (its indexes left out)")
    shutil.copytree(a.dataset / "skb", d, ignore=shutil.ignore_patterns("indexes"))
    skb = SKB.load(d)
    log(f"random base over {skb.num_nodes:,} nodes")
    random_base(skb, 384, rng).save(d / "indexes" / "dense")
    files = make_update(skb, rng, "d", 500, 500, 100, a.work)
    log("update: 500 changed + 500 new products, 100 deleted")
    update(d, **files)
    live = SKB.load(d)
    log("catch-up")
    t = time.perf_counter()
    idx = catch_up(DenseIndex.load(d / "indexes" / "dense"), live)
    seconds = time.perf_counter() - t
    assert idx.source["skb_hash"] == live.meta["content_hash"] and len(idx.doc_ids) == live.num_nodes
    texts = [live.node(i).name or "" for i in range(200)]  # the encoder's rate on short texts, for scale
    enc = load_encoder("minilm", "cpu")
    t = time.perf_counter()
    enc.encode(texts)
    per_doc = (time.perf_counter() - t) / len(texts)
    metrics = {"nodes": live.num_nodes, "dense_catch_up_s": round(seconds, 2),
               "re_embedding_estimate_h": round(per_doc * live.num_nodes / 3600, 2)}
    config = {"command": "python " + " ".join(sys.argv), "cpus": os.cpu_count(),
              "load_average": list(os.getloadavg()), "order": 41,
              "title": "Live updates: dense catch-up over every node of a 1M-product SKB (issue 25)",
              "note": "Base vectors random (a catch-up copies them, never reads their values); the "
                      "1,000 upserted documents embedded for real with MiniLM on the CPU. "
                      "re_embedding_estimate_h: MiniLM's rate on 200 node names times the node count "
                      "(a lower bound: whole documents are longer)."}
    log(f"{metrics}")
    print(BenchmarkResult("live_dense_scale", config, metrics, {}, {}).to_json(a.json))


if __name__ == "__main__":
    main()

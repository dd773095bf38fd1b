"""Sanity run of the G-RAG GNN re-ranker on TREC DL 2019 (BM25 top-100), CPU.

Not a benchmark table: it shows that the training loop learns and gives a first number.

Protocol: the first ``--queries`` queries of ``dl19_bm25_top100.json`` (file order);
semantic graphs from the built-in spaCy parser, node features MiniLM(document ⊕ path
text), question MiniLM(question). The first half of the queries is split into train
(all but ``--dev`` queries) and dev (early stopping); the second half is held out.
nDCG@10 on the held-out half with ir_measures (trec_eval semantics: linear gain, ideal
from all judged passages). Parses and embeddings are cached under ``--cache-dir``.

    .venv/bin/python benchmarks/gnn_dl19_sanity.py --queries 20
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import torch

from skbsearch.core.types import Qrels, Query, Run
from skbsearch.encoders import default_cache_dir
from skbsearch.rerank.gnn import GraphFeaturizer, graphs_to_run, score_graphs
from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer
from skbsearch.semgraph import DependencyParser
from skbsearch.train.gnn import TrainConfig, train_gnn

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec-dl"


def ndcg10(run: Run, qrels: Qrels) -> float:
    """Mean nDCG@10 as trec_eval computes it (ir_measures)."""
    import ir_measures
    from ir_measures import nDCG

    return float(ir_measures.calc_aggregate([nDCG @ 10], qrels.to_dict(), run.to_dict())[nDCG @ 10])


def main() -> None:
    """Featurize, train variants, print held-out nDCG@10 against the BM25 order."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("SKB_DL19", DATA)))
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--dev", type=int, default=3, help="dev queries taken from the train half")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--cache-dir", type=Path, default=default_cache_dir().parent)
    ap.add_argument("--json", type=Path, default=None, help="write the numbers here")
    args = ap.parse_args()

    records = json.loads((args.data / "dl19_bm25_top100.json").read_text())[: args.queries]
    qrels = Qrels.from_json(args.data / "dl19_qrels.json")
    queries = [Query(str(r["hits"][0]["qid"]), r["query"]) for r in records]
    texts = {h["docid"]: h["content"] for r in records for h in r["hits"]}
    bm25 = Run({str(r["hits"][0]["qid"]): {h["docid"]: h["score"] for h in r["hits"]}
                for r in records}, name="bm25")  # fmt: skip
    half = len(queries) // 2
    train_q, dev_q, test_q = (
        queries[: half - args.dev],
        queries[half - args.dev : half],
        queries[half:],
    )
    print(f"TREC DL19 BM25 top-100, {len(queries)} queries: train {len(train_q)}, "
          f"dev {len(dev_q)}, held-out {len(test_q)}; data {args.data}")  # fmt: skip

    parser = DependencyParser(cache_dir=args.cache_dir / "semgraphs")
    feats = {}
    for use_paths in (True, False):
        t0 = time.perf_counter()
        fz = GraphFeaturizer(parser=parser, use_paths=use_paths,
                             embedding_cache=args.cache_dir / "embeddings", progress=True)  # fmt: skip
        feats[use_paths] = (fz, fz.featurize(queries, bm25, texts, qrels=qrels))
        print(f"features (use_paths={use_paths}): {time.perf_counter() - t0:.1f} s")
    graphs = feats[True][1]
    n_edges = [g.edge_index.shape[1] // 2 for g in graphs]
    print(f"document graphs: mean {sum(n_edges) / len(n_edges):.0f} undirected edges of "
          f"{100 * 99 // 2} possible")  # fmt: skip

    test_ids = {q.id for q in test_q}
    held = Qrels({q: d for q, d in qrels.items() if q in test_ids})
    results: dict[str, float] = {"bm25": ndcg10(Run({q: bm25[q] for q in test_ids}), held)}

    def split(gs):  # noqa: ANN001, ANN202
        by_id = {g.query_id: g for g in gs}
        return ([by_id[q.id] for q in train_q], [by_id[q.id] for q in dev_q],
                [by_id[q.id] for q in test_q])  # fmt: skip

    for use_paths, name in ((True, "dense(doc+path), untrained"), (False, "dense(doc), untrained")):
        _, _, test = split(feats[use_paths][1])
        model = GNNScorer(GNNConfig(kind="mlp")).eval()  # residual gate 0: y . x
        results[name] = ndcg10(graphs_to_run(test, score_graphs(model, test)), held)

    variants = [("grag", "pairwise", True), ("grag", "ce", True), ("grag", "pairwise", False),
                ("gcn", "pairwise", True), ("gat", "pairwise", True), ("sage", "pairwise", True),
                ("mlp", "pairwise", True)]  # fmt: skip
    for kind, loss, use_paths in variants:
        train, dev, test = split(feats[use_paths][1])
        torch.manual_seed(0)
        model = GNNScorer(GNNConfig(kind=kind))
        t0 = time.perf_counter()
        res = train_gnn(model, train, dev, TrainConfig(loss=loss, epochs=args.epochs, lr=1e-3,
                        patience=15), progress=False)  # fmt: skip
        losses = [h["train_loss"] for h in res.history[1:]]
        name = f"{kind}/{loss}{'' if use_paths else '/no-paths'}"
        results[name] = ndcg10(graphs_to_run(test, score_graphs(model, test)), held)
        print(f"{name:<22} epochs {len(losses):>3} loss {losses[0]:.4f} -> {min(losses):.4f} "
              f"(last {losses[-1]:.4f}), best dev epoch {res.best_epoch} "
              f"dev nDCG@10 {res.history[0]['dev_ndcg']:.4f} -> {res.best_dev:.4f}, "
              f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
    print(f"\nheld-out nDCG@10 ({len(test_q)} queries):")
    for name, v in results.items():
        print(f"  {name:<28} {100 * v:6.2f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()

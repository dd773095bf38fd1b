"""MetaQA re-ranker ablation (Sun et al., 2024, Table 2) on the dev eval half.

Rows: no re-ranker (retrieval order: BM25 documents' triples, then path triples), no
re-ranker (graph order: path triples first, by graph score), document-level labels,
triple-level labels, triple-level labels without context. Columns per hop:

- ``retriever_hit``: a candidate triple holds a gold answer (the re-ranker's ceiling);
- ``rerank_hit@K``: a gold answer is an end (not the topic) of one of the top-K triples;
- ``gt_hit@K``: a gold triple is among the top K (1-hop: ``qa_dev_triples.jsonl``;
  2/3-hop: triple-level labels of the candidates);
- ``hits@1``: the top extractive answer's name is a gold answer (the full pipeline).

Also the graph pipeline's Hits@1 and the KB ceilings on the same questions. Models come
from ``skb train triple-reranker --scope half`` (trained on the train half of dev only).

    python benchmarks/metaqa_ablation.py --data ../shared/data/metaqa \
        --models ~/.cache/skbsearch/metaqa/ablation --per-hop 300,150,150 \
        --json benchmarks/results/metaqa_ablation.json
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from skbsearch.benchmarks.metaqa import (
    answer_nodes,
    in_train_half,
    reachable,
    read_split,
    topic_nodes,
)
from skbsearch.benchmarks.metaqa.rerank import MetaQAComponents
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.types import Query
from skbsearch.read.kgqa import fused_scores, order, rank_answers, retrieval_scores
from skbsearch.rerank.labels import triple_level_labels
from skbsearch.rerank.triples import TripleReranker

ROWS = {"document-level labels": "document-half", "triple-level labels": "triple-half",
        "triple-level, no context": "triple-noctx-half"}
KS = (1, 5)


def gold_triples_1hop(comp: MetaQAComponents, data: Path) -> dict[str, set[int]]:
    """Question text -> SKB edges of its gold triples (``1-hop/qa_dev_triples.jsonl``)."""
    skb, lk = comp.skb, comp.linker
    rels = skb.schema.relations
    key = {(int(s), int(r), int(t)): e for e, (s, r, t) in
           enumerate(zip(skb.edge_src, skb.edge_rel, skb.edge_dst, strict=True))}
    out: dict[str, set[int]] = {}
    for line in (data / "1-hop" / "qa_dev_triples.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        edges = out.setdefault(rec["question"], set())
        for t in rec["triples"]:
            rel, inv = t["r"].replace(" [inverse]", ""), t["r"].endswith("[inverse]")
            head, tail = (t["t"], t["h"]) if inv else (t["h"], t["t"])
            for s in [c.node for c in lk.lookup(head) if c.exact]:
                for d in [c.node for c in lk.lookup(tail) if c.exact]:
                    e = key.get((s, rels.index(rel), d))
                    if e is not None:
                        edges.add(e)
    return out


def metrics(skb, cands, scores, topics, gold_nodes, gold_names, gt) -> dict[str, float]:  # noqa: ANN001
    """One question's row values."""
    ranked = [cands[int(i)] for i in order(scores)]
    gold = set(gold_nodes) - set(topics)
    names = skb.column("name")

    def holds(c) -> bool:  # noqa: ANN001
        return int(skb.edge_src[c.edge]) in gold or int(skb.edge_dst[c.edge]) in gold

    out = {"retriever_hit": float(any(holds(c) for c in cands))}
    for k in KS:
        out[f"rerank_hit@{k}"] = float(any(holds(c) for c in ranked[:k]))
        out[f"gt_hit@{k}"] = float(any(c.edge in gt for c in ranked[:k]))
    top = rank_answers(cands, scores, topics, 1)
    out["hits@1"] = float(bool(top) and names[top[0][0]] in gold_names)
    return out


def to_result(table: dict, extra: dict, args: argparse.Namespace, seconds: float) -> BenchmarkResult:
    """The common result shape: ``groups`` keyed ``"<row> · <hop>"``, fractions in 0..1."""
    groups = {f"{row} · {hop}": {m: v / 100 for m, v in per.items()} for row, hops in table.items()
              for hop, per in hops.items()}
    for hop, ctx in extra.items():
        groups[f"graph pipeline, KB ceiling · {hop}"] = {
            "hits@1": ctx["graph_hits@1"] / 100, "ceiling": ctx["ceiling"] / 100,
            "ceiling_top1": ctx["ceiling_top1"] / 100}
    return BenchmarkResult("metaqa-rerank-ablation", groups=groups, config={
        "title": "MetaQA re-ranker ablation (paper Table 2; dev eval half, seeded sample; issue 5)",
        "command": "python benchmarks/metaqa_ablation.py --data ../shared/data/metaqa --models "
                   f"~/.cache/skbsearch/metaqa/ablation --per-hop {args.per_hop} --json {args.json}",
        "protocol": "dev: models trained on the hash train-half of dev (skb train triple-reranker "
                    "--scope half --questions 1200); scored on a seeded sample of the other half",
        "per_hop": args.per_hop, "seed": args.seed, "order": 23, "show_latency": False, "overall_row": False,
        "models": {r: str(args.models / d) for r, d in ROWS.items()},
        "n_questions": {h: c["n"] for h, c in extra.items()}, "seconds": round(seconds, 1)})


def main() -> None:
    """Parse arguments, run the ablation, print and write the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--models", type=Path, required=True, help="folder with triple-half, document-half, triple-noctx-half")
    ap.add_argument("--per-hop", default="300,150,150", help="questions per hop (seeded sample of the eval half)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t0 = time.perf_counter()
    comp = MetaQAComponents(args.data, "half")
    skb, names = comp.skb, comp.skb.column("name")
    retriever = comp.retriever()
    gt1 = gold_triples_1hop(comp, args.data)
    rerankers = {row: TripleReranker(args.models / d, skb, comp.documents) for row, d in ROWS.items()
                 if (args.models / d / "skb_cross_encoder.json").is_file()}
    table: dict[str, dict[str, dict[str, float]]] = {}
    extra: dict[str, dict[str, float]] = {}
    for h, n in zip((1, 2, 3), (int(x) for x in args.per_hop.split(",")), strict=False):
        pool = [q for q in read_split(args.data, h, "dev") if not in_train_half(q.text)]
        qs = random.Random(args.seed).sample(pool, min(n, len(pool)))
        got = retriever.retrieve([q.text for q in qs])
        gold = [answer_nodes(skb, comp.linker, q.answers) for q in qs]
        gts = []
        for q, r, g in zip(qs, got, gold, strict=True):
            if h == 1 and q.text in gt1:
                gts.append(gt1[q.text])
            else:
                lab = triple_level_labels(skb, [c.edge for c in r.candidates], r.topics, g)
                gts.append({c.edge for c, y in zip(r.candidates, lab, strict=True) if y})
        runs = {"no re-ranker (retrieval order)": [retrieval_scores(len(r.candidates)) for r in got],
                "no re-ranker (graph order)": [
                    np.array([(1e3 + c.graph_score if c.source != "docs" else 0.0) - 1e-9 * i
                              for i, c in enumerate(r.candidates)]) for r in got]}
        for row, rr in rerankers.items():
            t = time.perf_counter()
            runs[row] = rr.score([q.text for q in qs], [r.candidates for r in got])
            print(f"{h}-hop {row}: {time.perf_counter() - t:.0f} s", flush=True)
        if "triple-level labels" in runs:  # the re-ranker times the relation-path prior
            runs["triple-level + graph prior"] = [fused_scores(r.candidates, s, 1.0)
                                                  for r, s in zip(got, runs["triple-level labels"], strict=True)]
        for row, scores in runs.items():
            vals = [metrics(skb, r.candidates, s, r.topics, g, q.answers, gt)
                    for q, r, s, g, gt in zip(qs, got, scores, gold, gts, strict=True)]
            table.setdefault(row, {})[f"{h}-hop"] = {m: 100 * float(np.mean([v[m] for v in vals])) for m in vals[0]}
        graph_run = comp.graph([Query(str(i), q.text) for i, q in enumerate(qs)])
        g_hits = [float(bool(graph_run.ranked(str(i))) and names[int(skb.index_of(graph_run.ranked(str(i))[0][0]))]
                        in q.answers) for i, q in enumerate(qs)]
        ceil, top1 = reachable(skb, comp.linker, qs, gold)
        extra[f"{h}-hop"] = {"n": len(qs), "graph_hits@1": 100 * float(np.mean(g_hits)),
                             "ceiling": 100 * float(ceil.mean()), "ceiling_top1": 100 * float(np.nanmean(top1)),
                             "n_candidates": float(np.mean([len(r.candidates) for r in got])),
                             "topic_linked": 100 * float(np.mean([bool(topic_nodes(comp.linker, q.text)) for q in qs]))}
    cols = ["retriever_hit", "rerank_hit@1", "rerank_hit@5", "gt_hit@1", "gt_hit@5", "hits@1"]
    for hop in extra:
        print(f"\n{hop} (n={extra[hop]['n']}, {extra[hop]['n_candidates']:.1f} candidates/question; graph pipeline "
              f"Hits@1 {extra[hop]['graph_hits@1']:.1f}, ceiling {extra[hop]['ceiling']:.1f} / top-1 "
              f"{extra[hop]['ceiling_top1']:.1f})")
        print(f"{'row':34s}" + "".join(f"{c:>15s}" for c in cols))
        for row, per in table.items():
            print(f"{row:34s}" + "".join(f"{per[hop][c]:15.1f}" for c in cols))
    result = to_result(table, extra, args, time.perf_counter() - t0)
    if args.json is not None:
        result.to_json(args.json)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()

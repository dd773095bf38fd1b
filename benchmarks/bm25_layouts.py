"""BM25 index layouts of an SKB compared on query sets: how the node's own text and its relation
lines (neighbours' names) are indexed and combined.

Each layout is a set of :meth:`BM25Index.default_for_skb` options (``combine``, ``field_b``,
``rel_weight``, ``add_rel``); each query set is an SKB directory with queries and their answers
(a STaRK CSV with ``answer_ids``, a JSONL with ``answer_ids``, or JSONL + TREC qrels). Every
query is run through the index alone (top 100); Hit@1, Hit@10 and MRR per layout and set, and
the mean MRR over the sets; ``--names`` adds name look-ups (a node's name as the query, the node
as its answer). The issue-22 comparison of the default layout (the fields' BM25 added) with
BM25F (``skb index --combine bm25f``) was made with this script on seven development sets::

    python benchmarks/bm25_layouts.py \\
        --set fb15k237=/tmp/fb.skb,/tmp/fbq/queries.jsonl \\
        --set synth-catalogue=bench-out/synthq/catalogue/skb,bench-out/synthq/q-catalogue/stark_qa/stark_qa.csv \\
        --set synth-gazetteer=bench-out/synthq/gazetteer-skb,bench-out/synthq/q-gazetteer/stark_qa/stark_qa.csv \\
        --set synth-metaqa=bench-out/synthq/metaqa-skb,bench-out/synthq/q-metaqa/stark_qa/stark_qa.csv \\
        --set catalogue=/tmp/cat/skb,/tmp/cat/queries.jsonl,/tmp/cat/qrels.trec \\
        --names fb15k237-names=/tmp/fb.skb --names catalogue-names=/tmp/cat/skb \\
        --json benchmarks/results/bm25_layouts.json

(``skb kb build ../shared/data/fb15k237 /tmp/fb.skb --format kg``; ``python
benchmarks/real_kg_questions.py ../shared/data/fb15k237 /tmp/fbq``; the synthesised catalogue
queries as ``synth_queries_report``'s command makes them; ``skb synth catalogue /tmp/cat -n 2000
--queries 300 --seed 1``.)
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKB

#: name -> default_for_skb options
LAYOUTS: dict[str, dict[str, Any]] = {
    "document only": {"add_rel": False},
    "one document with relation lines": {"add_rel": True, "rel_weight": None, "concat": True},
    "sum, relations b=0.75 (default)": {"combine": "sum"},
    "bm25f, relations b=0.75": {"combine": "bm25f", "field_b": {"relations": 0.75}},
    "bm25f, relations b=0.3 (--combine bm25f)": {"combine": "bm25f", "field_b": {"relations": 0.3}},
    "bm25f, relations b=0": {"combine": "bm25f", "field_b": {"relations": 0.0}},
    "bm25f, relations weight 0.5, b=0.3": {"combine": "bm25f", "rel_weight": 0.5, "field_b": {"relations": 0.3}},
    "bm25f, relations weight 0.3, b=0.3": {"combine": "bm25f", "rel_weight": 0.3, "field_b": {"relations": 0.3}},
    "bm25f, relations weight 2, b=0.3": {"combine": "bm25f", "rel_weight": 2.0, "field_b": {"relations": 0.3}},
}


def read_queries(path: Path, qrels: Path | None) -> list[tuple[str, set[str]]]:
    """``(text, answer ids)`` pairs from a STaRK CSV, a JSONL with ``answer_ids``, or JSONL + qrels."""
    if path.suffix == ".csv":
        with path.open(encoding="utf-8") as f:
            return [(r["query"], set(json.loads(r["answer_ids"]))) for r in csv.DictReader(f)]
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if qrels is None:
        return [(r.get("query") or r["text"], set(r["answer_ids"])) for r in recs]
    rel: dict[str, set[str]] = {}
    for line in qrels.read_text(encoding="utf-8").splitlines():
        q, _, d, g = line.split()
        if int(g) > 0:
            rel.setdefault(q, set()).add(d)
    return [(r.get("text") or r["query"], rel.get(r["id"], set())) for r in recs]


def name_lookups(skb: SKB, n: int, seed: int = 0) -> list[tuple[str, set[str]]]:
    """``n`` random nodes' names as queries, each answered by its own node."""
    rows = np.random.default_rng(seed).choice(skb.num_nodes, min(n, skb.num_nodes), replace=False)
    names = skb.column("name")
    return [(str(names[int(r)]), {skb.ids[int(r)]}) for r in rows]


def build(skb: SKB, options: dict[str, Any]) -> BM25Index:
    """The index of one layout."""
    opts = dict(options)
    if opts.pop("concat", False):
        return BM25Index.from_skb(skb, add_rel=True, max_per_relation=10)
    return BM25Index.default_for_skb(skb, **opts)


def evaluate(index: BM25Index, skb: SKB, queries: list[tuple[str, set[str]]]) -> dict[str, float]:
    """Hit@1, Hit@10, MRR (top 100) of ``index`` alone."""
    ranks = []
    for text, answers in queries:
        rows, _ = index.top_rows(index.tokenize([text])[0], 100)
        ranks.append(next((i + 1 for i, r in enumerate(rows) if skb.ids[int(r)] in answers), 0))
    r = np.array(ranks)
    return {"hit@1": float(np.mean(r == 1)), "hit@10": float(np.mean((r >= 1) & (r <= 10))),
            "mrr": float(np.mean(np.where(r > 0, 1.0 / np.maximum(r, 1), 0.0)))}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Print (and write) the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", required=True, metavar="NAME=SKB,QUERIES[,QRELS]")
    ap.add_argument("--names", action="append", default=[], metavar="NAME=SKB",
                    help="a name look-up set: 300 random nodes' names, each answered by its node")
    ap.add_argument("--layout", action="append", choices=list(LAYOUTS), help="default: all")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    sets = {}
    for item in args.set:
        name, _, rest = item.partition("=")
        parts = rest.split(",")
        sets[name] = (Path(parts[0]), read_queries(Path(parts[1]), Path(parts[2]) if len(parts) > 2 else None))
    for item in args.names:
        name, _, path = item.partition("=")
        sets[name] = (Path(path), name_lookups(SKB.load(path), 300))
    results: dict[str, dict[str, dict[str, float]]] = {}
    for layout in args.layout or list(LAYOUTS):
        results[layout] = {}
        for name, (skb_dir, queries) in sets.items():
            skb = SKB.load(skb_dir)
            t0 = time.perf_counter()
            index = build(skb, LAYOUTS[layout])
            results[layout][name] = {**evaluate(index, skb, queries), "build_s": round(time.perf_counter() - t0, 2)}
        means = np.mean([m["mrr"] for m in results[layout].values()])
        cells = "  ".join(f"{n} {m['hit@1'] * 100:5.1f}/{m['hit@10'] * 100:5.1f}/{m['mrr'] * 100:5.2f}"
                          for n, m in results[layout].items())
        print(f"{layout:38s} {cells}  mean MRR {means * 100:5.2f}", flush=True)
    groups = {f"{layout} / {name}": m for layout, per in results.items() for name, m in per.items()}
    out = {"benchmark": "bm25_layouts",
           "config": {"command": " ".join(["python", *sys.argv]), "order": 58,
                      "title": "BM25 index layouts: node text and relation lines (issue 22)",
                      "note": "Each index alone, top 100; query sets: "
                              + ", ".join(f"{n} ({len(s[1])} queries)" for n, s in sets.items())
                              + ". Hit@1 / Hit@10 / MRR; build_s: index build seconds.",
                      "sets": {n: [str(s[0]), len(s[1])] for n, s in sets.items()}},
           "groups": groups}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return out


if __name__ == "__main__":
    main()

"""Why does `skb bench metaqa` miss? Held-out dev folds, one cause per miss, every hop.

The test-like protocol: the dev questions of every hop are split into K folds by a hash
of their text; per fold the relation-path model trains on the other folds' questions of
every hop (as ``--split test`` trains on all of dev) and answers the fold with the graph
pipeline. Each miss gets one cause (checked in this order; see
:mod:`skbsearch.benchmarks.metaqa.misses`): ``kb gap`` (the topic or every gold
answer is no KB node, or no gold answer on the gold relation path), ``linking`` (the top
answer comes from the wrong node of a shared name), ``relation path`` (the predicted path is not the qtype's),
``tie`` (the top answer is on the gold path and ties the gold answers up to the
popularity tie-break), ``ranking`` (a wrong answer outscores the gold ones through other
paths or nodes). Both ceilings are reported: ``ceiling_path`` (gold path; what
``--split dev`` reports) and ``ceiling_hops`` (within h hops; what ``--split test``
reports, since test files have no qtype), with ``gap_hops`` = ceiling_hops - Hits@1, the
gap quoted for test.

    .venv/bin/python benchmarks/metaqa_misses.py --data ../shared/data/metaqa \
        --json benchmarks/results/metaqa_misses.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from skbsearch.benchmarks.metaqa import load_kb, read_split
from skbsearch.benchmarks.metaqa.misses import CAUSES, kfold_misses
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.retrieve.graph.linking import NameLinker


def main() -> None:
    """Classify every held-out miss per hop; print and save the summary."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--hops", default="1,2,3")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--top-paths", type=int, default=3)
    ap.add_argument("--no-backoff", action="store_true",
                    help="no path back-off (the graph pipeline before issue 16; default: as skb bench metaqa)")
    ap.add_argument("--limit", type=int, help="at most N questions per hop (quick checks)")
    ap.add_argument("--examples", type=int, default=2, help="examples kept per hop and cause")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--misses-out", type=Path, help="write every miss (hop, id, cause, question, detail) as JSONL")
    args = ap.parse_args()
    t0 = time.perf_counter()
    skb = load_kb(args.data)
    linker = NameLinker(skb)
    hops = [int(h) for h in args.hops.split(",")]
    questions = {h: read_split(args.data, h, "dev")[: args.limit] for h in hops}

    def say(stage: str, done: int, total: int) -> None:
        print(f"[{time.perf_counter() - t0:6.0f} s] {stage}", file=sys.stderr, flush=True)

    groups, misses = kfold_misses(skb, linker, questions, args.folds, top_paths=args.top_paths,
                                  backoff=not args.no_backoff, progress=say)
    examples = []
    kept: dict[tuple[int, str], int] = defaultdict(int)
    for m in misses:
        if m.cause is None or kept[(m.question.hop, m.cause)] >= args.examples:
            continue
        kept[(m.question.hop, m.cause)] += 1
        examples.append({"pool": f"{m.question.hop}-hop", "query": m.question.id, "cause": m.cause,
                         "question": m.question.text, "detail": m.detail})
    if args.misses_out:
        args.misses_out.write_text("".join(json.dumps({
            "hop": m.question.hop, "id": m.question.id, "cause": m.cause, "within_hops": m.within_hops,
            "question": m.question.text, "qtype": m.question.qtype, "detail": m.detail}) + "\n"
            for m in misses if m.cause is not None), encoding="utf-8")
    examples.sort(key=lambda e: (CAUSES.index(e["cause"]), e["pool"]))
    for name, g in groups.items():
        print(name, {k: round(v, 4) for k, v in g.items()})
    total = sum(g["n_questions"] for g in groups.values())
    metrics = {k: sum(g[k] * g["n_questions"] for g in groups.values()) / total
               for k in next(iter(groups.values())) if k != "n_questions"}
    command = f"python benchmarks/metaqa_misses.py --data ../shared/data/metaqa --folds {args.folds}" + (
        f" --hops {args.hops}" if args.hops != "1,2,3" else "") + (
        f" --limit {args.limit}" if args.limit else "") + (" --no-backoff" if args.no_backoff else "") + (f" --json {args.json}" if args.json else "")
    config = {
        "title": "MetaQA dev, held-out folds: why the graph pipeline misses (issue 16)"
                 + (", before the path back-off" if args.no_backoff else ""),
        "command": command,
        "protocol": f"{args.folds}-fold over all dev questions (folds by a hash of the text); the "
                    "relation-path model (and the learned path back-off) trains on the other folds of every hop; "
                    f"graph pipeline (brackets, top {args.top_paths} paths, "
                    + ("no back-off)" if args.no_backoff else "back-off as `skb bench metaqa`)"),
        "note": "Fractions of each hop's questions (shown in %). `ceiling_path`: a gold answer on the gold "
                "relation path (qtype), the ceiling `--split dev` reports; `ceiling_hops`: a gold answer "
                "within h hops, the ceiling `--split test` reports (no qtype in test files); `gap_hops` = "
                "ceiling_hops - hits@1. Misses by cause (they sum to 1 - hits@1): `kb gap` (the topic or every "
                "gold answer is no KB node, or the gold path reaches no gold answer; `kb gap (within h hops)` "
                "of them have one within h hops by another path), `linking` (the top answer comes from "
                "another node of the same name), `relation path` (top predicted path not the qtype's), "
                "`tie` (top answer on the "
                "gold path, tied with the gold answers up to the popularity tie-break: the gold path also "
                "reaches non-gold answers), `ranking` (a wrong answer outscores the gold ones by more than a "
                "tie). `ambiguous`, `hits@1_ambiguous`, `random_ambiguous`, `hits@1_decidable`, "
                "`ceiling_decidable`: the split `--split dev` reports (a question is ambiguous when its gold "
                "path reaches gold and non-gold answers), here on the held-out folds of every hop.",
        "examples": examples,
        "order": 24 if args.no_backoff else 23, "show_latency": False,
        "folds": args.folds, "limit": args.limit,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    result = BenchmarkResult("metaqa_misses", config, metrics, groups, {})
    if args.json:
        result.to_json(args.json)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()

"""One result JSON from the ``report.json`` of each ``skb synth queries`` run (the query-set row).

Nothing is computed here: each group lists numbers of one query set's own ``report.json``
(written by ``skb synth queries``), binned as the row shows them. Generate the sets first
(the row's ``config.command``), then::

    python benchmarks/synth_queries_report.py \
        "demo catalogue (2,000 products)=bench-out/synthq/q-catalogue" \
        "MetaQA KB (43K nodes, no text)=bench-out/synthq/q-metaqa" \
        "gazetteer (Wikidata landmarks)=bench-out/synthq/q-gazetteer" \
        --json benchmarks/results/synth_queries_report.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.result import BenchmarkResult

#: How the sets were made (the row's command), run from the repository root.
COMMAND = (
    "skb synth catalogue bench-out/synthq/catalogue --products 2000 --queries 0 --seed 0; "
    "skb synth queries bench-out/synthq/catalogue/skb bench-out/synthq/q-catalogue --n 500 "
    "--seed 0; skb kb build ../shared/data/metaqa/kb.tsv bench-out/synthq/metaqa-skb --format "
    "triples --types metaqa; skb synth queries bench-out/synthq/metaqa-skb "
    "bench-out/synthq/q-metaqa --n 500 --seed 0; skb synth gazetteer-skb "
    "../shared/data/gazetteer/wikidata_landmarks.jsonl bench-out/synthq/gazetteer-skb; "
    "skb synth queries bench-out/synthq/gazetteer-skb bench-out/synthq/q-gazetteer --n 500 "
    "--seed 0")

NOTE = (
    "SYNTHETIC queries made by `skb synth queries` without an LLM (seed 0): relation templates "
    "discovered from each SKB's edges (1-3 hops), spaCy noun-chunk properties of a sampled gold "
    "answer (MetaQA has no text: one of the gold's other neighbours instead), role sentence "
    "templates, lexical filtering. Gold verified = share of gold answers passing their own "
    "checks (1.0 by construction with the lexical proxy; STaRK's LLM filter: 86.6 / 98.9 / "
    "92.3 %). Entropy and TTR as `skb stats queries` (STaRK Table 4: 9.6-10.4 bits, TTR "
    "0.14-0.18 on 9-13K queries). Answer columns: queries per answer-count bin. Numbers are "
    "from each run's `report.json` (`python benchmarks/synth_queries_report.py`).")


def _bins(hist: dict[str, int], names: list[str]) -> int:
    return sum(int(hist.get(n, 0)) for n in names)


def group(report: dict[str, Any]) -> dict[str, Any]:
    """The row's columns from one ``report.json``."""
    hops, answers = report["hops"], report["answers_per_query"]
    words, stats = report["query_length_words"], report["stats"]
    rel = report["relational_textual_words"]
    hist = answers["histogram"]
    extractors = sorted(set(report["settings"]["property_extractor"].values()))
    return {
        "queries": report["queries"],
        "templates used / grounded":
            f"{sum(1 for t in report['templates'] if t['queries'] > 0)} / "
            f"{len(report['templates'])}",
        "hops 1/2/3": " / ".join(str(hops.get(h, 0)) for h in ("1", "2", "3")),
        "query length (mean)": words["mean"], "query length (max)": words["max"],
        "answers (mean)": answers["mean"], "answers (max)": answers["max"],
        "1 answer": _bins(hist, ["1"]), "2-5": _bins(hist, ["2", "3-5"]),
        "6-20": _bins(hist, ["6-10", "11-20"]), ">20": _bins(hist, ["21-50", "51+"]),
        "candidates kept": report["filtering"]["kept_rate"],
        "entropy": round(stats["entropy"], 3), "TTR": round(stats["ttr"], 4),
        "rel : text words": f"{rel['relational']} : {rel['textual']}",
        "gold verified": report["verification"]["gold_verified_rate"],
        "extractor": ", ".join(extractors),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Write (and print) the result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", help="LABEL=DIR: a query set's output directory")
    ap.add_argument("--json", type=Path, required=True)
    args = ap.parse_args(argv)
    groups = {}
    for item in args.sets:
        label, _, where = item.partition("=")
        groups[label] = group(json.loads((Path(where) / "report.json").read_text()))
    config = {"title": "Synthesised queries (synthetic data): query sets (issue 13)",
              "order": 60, "percent": False,
              "command": COMMAND + "; python benchmarks/synth_queries_report.py "
              + " ".join(f"'{s}'" for s in args.sets) + f" --json {args.json}",
              "note": NOTE}
    result = BenchmarkResult("synth_queries_report", config, groups=groups)
    print(result.to_json(args.json))
    return result.to_dict()


if __name__ == "__main__":
    main()

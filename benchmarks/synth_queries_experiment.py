"""One result JSON from the two ``skb experiment --json`` runs of the synthesised-queries row.

The row compares pipelines on the demo catalogue's synthesised queries twice: over indexes of
each node's own text, then over indexes that add the related nodes' names. Each run is an
``skb experiment ... --json`` file; this script lays both out as one result (no number is
computed here except the listing of the experiment's own paired tests on one metric)::

    python benchmarks/synth_queries_experiment.py \
        --text bench-out/synthq/exp-catalogue.json --rel bench-out/synthq/exp-catalogue-rel.json \
        --setup "COMMANDS" --json benchmarks/results/synth_queries_catalogue.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.result import BenchmarkResult


def rows(exp: dict[str, Any], suffix: str) -> dict[str, dict[str, float]]:
    """The experiment's means per system (and ms/query), names suffixed with ``suffix``."""
    out = {}
    for s in exp["systems"]:
        name = f"{s} ({suffix})" if suffix else s
        out[name] = {**exp["results"][s], "latency ms": round(exp["ms_per_query"][s], 2)}
    return out


def tests(exp: dict[str, Any], metric: str, suffix: str) -> list[str]:
    """``a vs b +delta`` (``*`` when the experiment's paired test was significant)."""
    out = []
    for c in exp["comparisons"]:
        if c["metric"] == metric:
            tag = f" ({suffix})" if suffix else ""
            out.append(f"{c['system']} vs {c['other']}{tag} {c['delta']:+.3f}"
                       + (" *" if c["significant"] else ""))
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Write (and print) the combined result."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--text", required=True, type=Path, help="experiment over node-text indexes")
    ap.add_argument("--rel", required=True, type=Path, help="experiment over + relations indexes")
    ap.add_argument("--metric", default="hit@1", help="metric whose paired tests the note lists")
    ap.add_argument("--title", default="Synthesised queries (synthetic data): retrieval on the demo "
                                        "catalogue (2,000 products)")
    ap.add_argument("--order", type=int, default=61)
    ap.add_argument("--benchmark", default="synth_queries_experiment",
                    help="the result's benchmark name (one per SKB: synth_queries_gazetteer...)")
    ap.add_argument("--note", default="", help="what the rows mean (prepended to the tests)")
    ap.add_argument("--setup", default="", help="the commands, in order")
    ap.add_argument("--json", type=Path, required=True)
    args = ap.parse_args(argv)
    text, rel = json.loads(args.text.read_text()), json.loads(args.rel.read_text())
    groups = {**rows(text, "node text"), **rows(rel, "+ relations")}
    for name in [g for g in groups if g.startswith("graph (")]:  # one graph row: no text index
        groups["graph"] = groups.pop(name)
    listed = tests(text, args.metric, "") + tests(rel, args.metric, "+rel")
    note = (f"{args.note} Paired {text['test']}-test on {args.metric} (* p < {text['alpha']:g}, "
            f"correction: {text['correction'] or 'none'}): " + "; ".join(listed) + ".")
    if args.setup:
        note += f" Commands, in order: {args.setup}"
    command = f"python benchmarks/synth_queries_experiment.py --text {args.text} --rel {args.rel}"
    if args.benchmark != "synth_queries_experiment":
        command += f" --benchmark {args.benchmark} --order {args.order}"
    config = {"title": args.title, "order": args.order, "percent": True,
              "queries": text["queries"], "command": command, "note": note.strip()}
    result = BenchmarkResult(args.benchmark, config, groups=groups)
    print(result.to_json(args.json))
    return result.to_dict()


if __name__ == "__main__":
    main()

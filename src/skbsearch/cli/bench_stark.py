"""`skb bench stark`: STaRK retrieval scored with STaRK's evaluator semantics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from skbsearch.cli import bench_options
from skbsearch.cli.bench import bench_command
from skbsearch.cli.output import console, stage_progress


@bench_command("stark")
def stark(
    skb: Path = typer.Option(..., "--skb", help="SKB directory ('skb kb build SRC DIR --format stark') or STaRK's processed folder (with --trust-pickles)."),
    qa: Path = typer.Option(..., "--qa", help="The dataset's query folder: stark_qa/stark_qa.csv and split/*.index (e.g. stark-queries/amazon)."),
    split: str = bench_options.split_option("test", "train | val | test | test-0.1 | human (the human-generated queries)"),
    pipeline: list[str] | None = bench_options.pipeline_option(
        "It ranks the SKB's nodes (default: bm25(k=1000) over the candidate type, e.g. "
        "types=['product'])."),
    limit: int | None = bench_options.limit_option(" of the split"),
    dataset: str | None = typer.Option(None, "--dataset", help="amazon | mag | prime (default: from the SKB or the query folder)."),
    candidate_types: str | None = typer.Option(None, "--candidate-types", help="Comma-separated candidate node types (default: STaRK's: product / paper / every node)."),
    ties: str = typer.Option("stable", "--ties", help="Order of equal scores: stable (candidate order) | optimistic | pessimistic | torch."),
    trust_pickles: bool = typer.Option(False, "--trust-pickles", help="Allow unpickling STaRK's processed files (only files you trust: unpickling runs code)."),
    latency: str = typer.Option("query", "--latency", help="query: run and time queries one at a time (p50/p95 ms) | batch: batches of 64 (mean ms a query only)."),
    json_out: Path | None = bench_options.json_option(),
    quiet: bool = bench_options.quiet_option(),
) -> None:
    """Run a pipeline over a STaRK split: Hit@k, Recall@k, MRR, MAP, R-precision as STaRK scores them."""
    from skbsearch.benchmarks.stark import run_stark

    types = None
    if candidate_types is not None:
        types = tuple(t.strip() for t in candidate_types.split(",") if t.strip())
    with stage_progress(disable=quiet) as progress:
        results = [run_stark(skb, qa, split, pipeline_spec=spec, limit=limit,
                             trust_pickles=trust_pickles, dataset=dataset, candidate_types=types,
                             ties=ties, progress=progress, latency=latency)
                   for spec in bench_options.specs_or(pipeline, None)]
    bench_options.show_results(results, json_out, quiet, lambda r: _print(r, split))


def _print(result: Any, split: str) -> None:
    """One result: the data, the protocol, the candidates and the metrics table."""
    cfg = result.config
    name = cfg["dataset"] or Path(cfg["skb"]).name  # no dataset name with --candidate-types
    console.print(f"[bold]STaRK {escape(str(name))}[/] split {escape(split)}, "
                  f"pipeline {escape(cfg['pipeline'])}", highlight=False)
    console.print(f"data: SKB {cfg['skb']}; queries {cfg['qa']}"
                  + (f" ({cfg['split_file']})" if cfg["split_file"] else ""),
                  highlight=False, markup=False)
    console.print(f"protocol: {cfg['protocol']}", highlight=False, markup=False)
    types = cfg["candidate_types"]
    console.print(f"queries: {cfg['n_queries']}  candidates: {cfg['n_candidates']:,} "
                  f"({types if isinstance(types, str) else ', '.join(types)})  "
                  f"answers outside the candidates: {cfg['answers_not_candidates']}  "
                  f"({cfg['seconds']} s)", highlight=False, markup=False)
    result.print(title=f"STaRK {name} {split} (metrics in %)")

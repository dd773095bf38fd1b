"""`skb bench trecdl`: TREC DL passage re-ranking of the BM25 top-100 (DL19 / DL20).

``--pipeline SPEC`` takes the pipeline language of ``skb run`` (the BM25 top-k is the
pipeline's input run, ``input``); repeat it for one result a spec. (The old ``--reranker
NAME`` and its flags were retired after a release of warnings: they are unknown options now.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from skbsearch.cli import bench_options
from skbsearch.cli.arguments import output_option
from skbsearch.cli.bench import bench_command
from skbsearch.cli.output import console, print_table, stage_progress


@bench_command("trecdl")
def trecdl(
    data: Path = typer.Option(..., "--data", help="Folder with {split}_bm25_top100.json and {split}_qrels.json."),
    pipeline: list[str] | None = bench_options.pipeline_option(
        "Its input run ('input') is the BM25 top-k, e.g. 'dense', \"gnn-row(row='grag')\", "
        "'cross-encoder-ft(steps=90) + dense' (default: input, BM25 itself)."),
    split: str = bench_options.split_option("dl19", "dl19 or dl20 (the TREC DL year)"),
    top_k: int = typer.Option(100, "--top-k", min=1, help="Re-rank the BM25 top-k."),
    limit: int | None = bench_options.limit_option(" (their qrels cut alike)"),
    cv_folds: int | None = bench_options.cv_folds_option(None),
    fold_seed: int = bench_options.fold_seed_option(),
    cache: Path | None = bench_options.cache_option(),
    input_run: Path | None = typer.Option(None, "--input-run", help="A TREC run whose scores replace BM25's on "
                                          "the same candidates (e.g. a cross-encoder run as the GNN's first-stage feature)."),
    save_run: Path | None = typer.Option(None, "--save-run", help="Write the final run as a TREC run file (one --pipeline).", callback=output_option),
    json_out: Path | None = bench_options.json_option(),
    quiet: bool = bench_options.quiet_option(),
) -> None:
    """Re-rank TREC DL's BM25 top-100: nDCG@10, MRR@10, MTRR, TMHits@10 and latency per stage."""
    from skbsearch.benchmarks.trecdl import run_trecdl
    from skbsearch.core.errors import InputError

    specs = bench_options.specs_or(pipeline, None)
    if save_run is not None and len(specs) > 1:
        raise InputError("--save-run writes one run: give one --pipeline", field="--save-run")
    results = []
    with stage_progress(disable=quiet) as progress:
        for spec in specs:
            results.append(run_trecdl(data, split, spec, top_k=top_k, limit=limit,
                                      cv_folds=cv_folds, fold_seed=fold_seed, embeddings=cache,
                                      save_run=save_run, input_run=input_run, progress=progress))
    bench_options.show_results(results, json_out, quiet, lambda r: _print(r, split, data))


def _print(result: Any, split: str, data: Path) -> None:
    """One result as tables: the protocol, metrics and latency per stage."""
    console.print(f"[bold]TREC DL {split}[/] pipeline {escape(result.config['pipeline'])}, "
                  f"data: {escape(str(data))}", highlight=False)
    console.print(f"protocol: {result.config['protocol']}", highlight=False, markup=False)
    console.print(f"queries: {result.config['n_queries']}  ({result.config['seconds']} s)",
                  highlight=False, markup=False)
    result.print(title=f"TREC DL {split} (metrics in %; 'all' = the re-ranked run)")
    stages = sorted({k.rsplit(".", 1)[0] for k in result.latency_ms if "." in k})
    if stages:
        rows = [{"stage": s, "p50 ms": result.latency_ms[f"{s}.p50"],
                 "p95 ms": result.latency_ms[f"{s}.p95"]} for s in stages]
        print_table(rows, title="latency per query", floatfmt="{:.1f}")

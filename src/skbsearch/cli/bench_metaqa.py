"""`skb bench metaqa`: KGQA on MetaQA (graph-aware retrieval or the text-only baseline)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from skbsearch.cli.arguments import output_option
from skbsearch.cli.bench import bench_app
from skbsearch.cli.output import (
    DeviceOpt,
    PrecisionOpt,
    apply_device,
    console,
    handle_errors,
    save_result,
    stage_progress,
)
from skbsearch.core.errors import InputError


def _parse_hops(text: str) -> tuple[int, ...]:
    try:
        hops = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InputError(f"--hops must be a comma-separated list like 1,2,3, got {text!r}", field="hops") from None
    if not hops:
        raise InputError("--hops is empty; give e.g. 1,2,3", field="hops")
    return hops


@bench_app.command("metaqa")
@handle_errors
def metaqa(
    data: Path = typer.Option(..., "--data", help="MetaQA folder: kb.tsv and {1,2,3}-hop/qa_*.txt."),
    split: str = typer.Option("dev", "--split", help="dev (train on a hash half, score the other) or test."),
    hops: str = typer.Option("1,2,3", "--hops", help="Hops to score, e.g. 1,2,3."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="At most N questions per hop."),
    pipeline: str = typer.Option("graph", "--pipeline", help="graph (linking + relation paths), text (BM25 baseline), "
                                 "rerank (BM25 + path triples -> contextual re-ranker -> answer), or a pipeline "
                                 "spec such as kg (fitted on the training questions' answers, no question types)."),
    model: Path | None = typer.Option(None, "--model", help="rerank: a 'skb train triple-reranker' directory "
                                      "(--scope half for --split dev; default: trained on first use and cached)."),
    graph_weight: float = typer.Option(0.0, "--graph-weight", min=0.0, help="rerank: add this times the log "
                                       "relation-path score to the re-ranker logits (0: re-ranker alone)."),
    backoff: bool = typer.Option(True, "--backoff/--no-backoff", help="graph: when the predicted path reaches "
                                 "nothing (a missing fact), follow the paths that answered instead on the training "
                                 "questions, then the model's next paths."),
    link: str = typer.Option("brackets", "--link", help="brackets (topic given) or ngram (brackets removed)."),
    train_on: str = typer.Option("all", "--train-on", help="all: dev questions of every hop; hop: same hop only."),
    cache: Path | None = typer.Option(None, "--cache", help="Cache dir (default $SKB_CACHE_DIR or ~/.cache/skbsearch)."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the result as JSON to this file ('-': stdout).", callback=output_option),
    device: DeviceOpt = None,
    precision: PrecisionOpt = None,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or table."),
) -> None:
    """Score KGQA on MetaQA: Hits@1, Hit@k/Recall@20/MRR over answer nodes, the KB ceiling, latency."""
    apply_device(device, precision)
    from skbsearch.benchmarks.metaqa import run_metaqa

    hop_list = _parse_hops(hops)
    with stage_progress(disable=quiet) as progress:
        result = run_metaqa(
            data, split=split, hops=hop_list, limit=limit, pipeline=pipeline, train_on=train_on,
            cache_dir=cache, link_mode=link, progress=progress, model_dir=model,
            graph_weight=graph_weight, backoff=backoff,
        )
    if save_result(result, json_out):
        return
    if not quiet:
        console.print(f"[bold]MetaQA[/] {escape(pipeline)} pipeline, data: {escape(str(data))}", highlight=False)
        console.print(f"protocol: {result.config['protocol']}", highlight=False, markup=False)
        console.print(f"questions: {result.config['n_questions']}  "
                      f"({result.config['seconds']} s)", highlight=False, markup=False)
        result.print(title=f"MetaQA {split} ({pipeline}, metrics in %, latency per question)")
        if json_out is not None:
            console.print(f"wrote {json_out}", highlight=False, markup=False)

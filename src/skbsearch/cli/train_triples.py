"""`skb train triple-reranker`: the contextual triple re-ranker on MetaQA dev questions."""

from __future__ import annotations

from pathlib import Path

import typer

from skbsearch.cli.arguments import artefact_dir_option
from skbsearch.cli.output import (
    console,
    device_options,
    handle_errors,
    print_json,
)
from skbsearch.cli.train import train_app


@train_app.command("triple-reranker")
@handle_errors
@device_options
def triple_reranker(
    data: Path = typer.Option(..., "--data", help="MetaQA folder: kb.tsv and {1,2,3}-hop/qa_dev*.txt."),
    out: Path = typer.Option(..., "--out", help="Model directory to write.", callback=artefact_dir_option("cross-encoder-model")),
    labels: str = typer.Option("triple", "--labels", help="triple (paper) or document (ablation) labels."),
    no_context: bool = typer.Option(False, "--no-context", help="Train without the context segment (ablation)."),
    scope: str = typer.Option("all", "--scope", help="half: the train hash-half of dev (for --split dev); "
                              "all: all of dev (for --split test)."),
    questions: int = typer.Option(600, "--questions", min=1, help="Training questions, sampled evenly over hops."),
    max_minutes: float | None = typer.Option(None, "--max-minutes", min=0.1, help="Stop training after N minutes."),
    max_length: int = typer.Option(96, "--max-length", min=16, help="Tokens per (question, triple, context)."),
    lr: float = typer.Option(1e-4, "--lr", help="AdamW learning rate."),
    group_loss: float = typer.Option(1.0, "--group-loss", min=0.0, help="Weight of the listwise per-question loss (0: BCE only)."),
    head_lr: float = typer.Option(2e-3, "--head-lr", min=0.0, help="Learning rate of the new scoring head (pooler + classifier)."),
    batch_size: int = typer.Option(16, "--batch-size", min=1, help="Triples per step."),
    start: str = typer.Option("minilm", "--start", help="Start weights: minilm (packaged) or a BERT directory."),
    threads: int = typer.Option(1, "--threads", min=1, help="torch threads."),
    seed: int = typer.Option(0, "--seed", help="Seed of sampling and head initialisation."),
    cache: Path | None = typer.Option(None, "--cache", help="Cache dir (default $SKB_CACHE_DIR or ~/.cache/skbsearch)."),
    json_out: bool = typer.Option(False, "--json", help="Print the training summary as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Label retrieved triples (triple- or document-level), fine-tune MiniLM with BCE, save to --out."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from skbsearch.benchmarks.metaqa.rerank import MetaQAComponents, train_metaqa_reranker
    from skbsearch.train.triples import TripleTrainConfig

    config = TripleTrainConfig(labels=labels, context=not no_context, max_length=max_length, lr=lr, group_loss=group_loss, head_lr=head_lr or None,
                               batch_size=batch_size, seed=seed, threads=threads,
                               time_budget_s=max_minutes * 60 if max_minutes else None)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True, disable=quiet) as bar:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            key = stage.split(" (")[0]
            if key not in tasks:
                tasks[key] = bar.add_task(stage, total=total)
            bar.update(tasks[key], completed=done, total=total, description=stage)

        comp = MetaQAComponents(data, scope, cache, progress)
        summary = train_metaqa_reranker(comp, out, config, questions, start, progress)
    if json_out:
        print_json(summary)
    elif not quiet:
        console.print(f"trained on {summary['questions']} questions ({summary['examples']} triples, "
                      f"{labels} labels, context {'on' if config.context else 'off'}): {summary['steps']} "
                      f"steps in {summary['seconds']} s, loss {summary['first_loss']:.3f} -> "
                      f"{summary['final_loss']:.3f} (stopped by {summary['stopped_by']}); wrote {out}",
                      highlight=False, markup=False)

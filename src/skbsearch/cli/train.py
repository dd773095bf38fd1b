"""`skb train ...`: train re-rankers. ``cross-encoder`` lives here; other trainers are
sibling modules (``train_<name>.py``) that add their command to :data:`train_app` when
imported (``@train_app.command("<name>")``): write the module and add its name to
:data:`TRAINERS`.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import typer

from skbsearch.cli.arguments import artefact_dir_option
from skbsearch.cli.output import (
    console,
    device_options,
    handle_errors,
    print_json,
)

train_app = typer.Typer(
    name="train",
    help="Train re-rankers (cross-encoder, GNN, ...) on CPU.",
    no_args_is_help=True,
)


@train_app.command("cross-encoder")
@handle_errors
@device_options
def cross_encoder(
    data: list[str] = typer.Option(..., "--data", help="Training data, repeatable: trecdl:DIR/dl19, nq:FILE, or trecdl-candidates:DIR/dl19 (the BM25 top-100 without judgements; needs --teacher)."),
    out: Path = typer.Option(..., "--out", help="Model directory to write (CrossEncoder-compatible).", callback=artefact_dir_option("cross-encoder-model")),
    start: str = typer.Option("minilm", "--start", help="Start weights: minilm (packaged), a BERT dir, or a model dir from this command."),
    epochs: int = typer.Option(1, "--epochs", min=1, help="Passes over the (better, worse) passage pairs."),
    max_steps: int | None = typer.Option(None, "--max-steps", min=1, help="Stop after this many optimiser steps."),
    time_budget: float | None = typer.Option(None, "--time-budget", min=1, help="Stop after this many seconds."),
    batch_size: int = typer.Option(16, "--batch-size", min=2, help="Pairs per step (even)."),
    lr: float = typer.Option(5e-5, "--lr", help="AdamW learning rate (linear warm-up and decay)."),
    max_length: int | None = typer.Option(None, "--max-length", min=16, help="Tokens per query-passage pair (default: the --start model's, 256 for minilm)."),
    nq_limit: int | None = typer.Option(None, "--nq-limit", min=1, help="Use at most N NQ questions."),
    dense_negatives: int = typer.Option(0, "--dense-negatives", min=0, help="NQ: add N negatives mined with the bi-encoder (--teacher, default minilm) to the 3 BM25 ones."),
    teacher: str | None = typer.Option(None, "--teacher", help="Distil from this bi-encoder's query-passage cosines (minilm: the packaged all-MiniLM-L6-v2, or a sentence-transformers name/path)."),
    distill_loss: str = typer.Option("kl", "--distill-loss", help="kl (pair KL against sigmoid(teacher margin / T)) or margin-mse."),
    distill_weight: float = typer.Option(1.0, "--distill-weight", min=0.0, help="Weight of the distillation loss."),
    distill_temperature: float = typer.Option(0.05, "--distill-temperature", min=1e-6, help="T: the teacher's cosine margin is divided by T."),
    seed: int = typer.Option(0, "--seed", help="Seed of the head initialisation and sampling."),
    threads: int | None = typer.Option(None, "--threads", min=1, help="torch threads (default: torch's)."),
    json_out: bool = typer.Option(False, "--json", help="Print the training summary as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Fine-tune a cross-encoder (BCE + pairwise loss, + distillation with --teacher) and save it to --out."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from skbsearch.core.errors import InputError
    from skbsearch.rerank.cross_encoder import CrossEncoderModel
    from skbsearch.train.cross_encoder import (
        TrainConfig,
        add_teacher_scores,
        load_data_spec,
        train_cross_encoder,
    )

    config = TrainConfig(epochs=epochs, max_steps=max_steps, batch_size=batch_size, lr=lr,
                         time_budget_s=time_budget, seed=seed, threads=threads,
                         distill_loss=distill_loss, distill_weight=distill_weight,
                         distill_temperature=distill_temperature)
    with _torch_threads(threads):  # the bi-encoder (dense negatives, teacher) too
        queries = [q for spec in data for q in load_data_spec(
            spec, nq_limit=nq_limit, seed=seed, dense_negatives=dense_negatives, encoder=teacher)]
        if teacher is None and any(q.unjudged for q in queries):
            raise InputError("trecdl-candidates passages have no grades: they train only by "
                             "distillation, so give --teacher (e.g. minilm)", field="teacher")
        if teacher is not None:
            add_teacher_scores(queries, teacher)
    model = CrossEncoderModel.start_from(start, max_length=max_length, seed=seed)
    # A model trained further (--start DIR) keeps the data it saw before: NQ, then dl19.
    model.info["data"] = [*model.info.get("data", []), *data]
    if teacher is not None or dense_negatives:
        model.info.setdefault("distillation", []).append(
            {"data": list(data), "teacher": teacher, "dense_negatives": dense_negatives})
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True, disable=quiet) as bar:
        task = bar.add_task("training", total=None)

        def progress(step: int, total: int, loss: float) -> None:
            bar.update(task, completed=step, total=total, description=f"training (loss {loss:.3f})")

        result = train_cross_encoder(model, queries, config, out_dir=out, progress=progress)
    summary = {"out": str(out), "queries": len(queries), "steps": result.steps,
               "examples": result.examples, "seconds": round(result.seconds, 1),
               "stopped_by": result.stopped_by,
               "final_loss": model.info.get("training", {}).get("final_loss")}
    if json_out:
        print_json(summary)
    elif not quiet:
        console.print(f"trained on {len(queries)} queries: {result.steps} steps, "
                      f"{result.examples} pairs in {summary['seconds']} s "
                      f"(stopped by {result.stopped_by}); wrote {out}", highlight=False, markup=False)


def _torch_threads(threads: int | None) -> Any:
    """torch's thread count set to ``threads`` for the block (no-op for ``None``)."""
    from skbsearch.rerank.gnn_models import torch_threads

    return torch_threads(threads)


#: Sibling trainer modules ``skbsearch.cli.train_<name>`` (each registers on ``train_app``).
TRAINERS: tuple[str, ...] = ("gnn", "triples")


def register(app: typer.Typer) -> None:
    """Add the ``train`` command group (with every trainer's command) to ``app``."""
    for name in TRAINERS:
        importlib.import_module(f"skbsearch.cli.train_{name}")
    app.add_typer(train_app, name="train")

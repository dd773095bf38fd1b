"""`skb train ...`: train re-rankers. ``cross-encoder`` lives here; other trainers are
sibling modules (``train_<name>.py``) that add their command to :data:`train_app` when
imported (``@train_app.command("<name>")``): write the module and add its name to
:data:`TRAINERS`.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import typer

from skbsearch.cli.output import console, handle_errors, print_json

train_app = typer.Typer(
    name="train",
    help="Train re-rankers (cross-encoder, GNN, ...) on CPU.",
    no_args_is_help=True,
)


@train_app.command("cross-encoder")
@handle_errors
def cross_encoder(
    data: list[str] = typer.Option(..., "--data", help="Training data, repeatable: trecdl:DIR/dl19 or nq:FILE."),
    out: Path = typer.Option(..., "--out", help="Model directory to write (CrossEncoder-compatible)."),
    start: str = typer.Option("minilm", "--start", help="Start weights: minilm (packaged), a BERT dir, or a model dir from this command."),
    epochs: int = typer.Option(1, "--epochs", min=1, help="Passes over the (better, worse) passage pairs."),
    max_steps: int | None = typer.Option(None, "--max-steps", min=1, help="Stop after this many optimiser steps."),
    time_budget: float | None = typer.Option(None, "--time-budget", min=1, help="Stop after this many seconds."),
    batch_size: int = typer.Option(16, "--batch-size", min=2, help="Pairs per step (even)."),
    lr: float = typer.Option(5e-5, "--lr", help="AdamW learning rate (linear warm-up and decay)."),
    max_length: int | None = typer.Option(None, "--max-length", min=16, help="Tokens per query-passage pair (default: the --start model's, 256 for minilm)."),
    nq_limit: int | None = typer.Option(None, "--nq-limit", min=1, help="Use at most N NQ questions."),
    seed: int = typer.Option(0, "--seed", help="Seed of the head initialisation and sampling."),
    threads: int | None = typer.Option(None, "--threads", min=1, help="torch threads (default: torch's)."),
    json_out: bool = typer.Option(False, "--json", help="Print the training summary as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Fine-tune a cross-encoder (BCE + pairwise loss) and save it to --out."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from skbsearch.rerank.cross_encoder import CrossEncoderModel
    from skbsearch.train.cross_encoder import TrainConfig, load_data_spec, train_cross_encoder

    config = TrainConfig(epochs=epochs, max_steps=max_steps, batch_size=batch_size, lr=lr,
                         time_budget_s=time_budget, seed=seed, threads=threads)
    queries = [q for spec in data for q in load_data_spec(spec, nq_limit=nq_limit, seed=seed)]
    model = CrossEncoderModel.start_from(start, max_length=max_length, seed=seed)
    # A model trained further (--start DIR) keeps the data it saw before: NQ, then dl19.
    model.info["data"] = [*model.info.get("data", []), *data]
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


#: Sibling trainer modules ``skbsearch.cli.train_<name>`` (each registers on ``train_app``).
TRAINERS: tuple[str, ...] = ("gnn", "triples")


def register(app: typer.Typer) -> None:
    """Add the ``train`` command group (with every trainer's command) to ``app``."""
    for name in TRAINERS:
        importlib.import_module(f"skbsearch.cli.train_{name}")
    app.add_typer(train_app, name="train")

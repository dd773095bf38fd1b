"""`skb fit`: fit a pipeline's trainable stages on judged queries, keep it only if it helps."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from skbsearch.cli.arguments import artefact_dir_option
from skbsearch.cli.output import console, err_console, handle_errors, print_json, print_table
from skbsearch.cli.run import (
    IdFieldOpt,
    JsonOpt,
    QueriesOpt,
    QuietOpt,
    TextFieldOpt,
    build_pipeline,
    load_queries,
)

SkbArg = Annotated[Path, typer.Argument(help="An SKB directory (from 'skb kb build').")]


@handle_errors
def fit_cmd(
    skb_dir: SkbArg,
    pipeline: Annotated[str, typer.Option("--pipeline", "-p", help="Pipeline spec with trainable stages, e.g. \"bm25 + graph\".")],
    queries: QueriesOpt,
    qrels: Annotated[Path, typer.Option("--qrels", help="Judgements: TREC, JSON or a query file with an answers column.")],
    out: Annotated[Path, typer.Option("--out", help="Directory for the fitted models, pipeline.txt and fit.json "
                                                    "(new, empty, or an earlier 'skb fit' output, replaced whole).",
                                      callback=artefact_dir_option("fit"))],
    folds: Annotated[int, typer.Option("--folds", min=2, help="Held-out folds that decide fitted vs untrained.")] = 5,
    metric: Annotated[str, typer.Option("--metric", help="The metric that decides (hit@k, mrr, ndcg@k, ...).")] = "mrr",
    seed: Annotated[int, typer.Option("--seed", help="Fold shuffle seed.")] = 0,
    id_field: IdFieldOpt = None,
    text_field: TextFieldOpt = None,
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Fit a pipeline on judged queries; kept (models + spec in OUT) only if it beats the
    untrained pipeline on held-out folds, and says so with the numbers of both."""
    from skbsearch.cli.run import load_skb
    from skbsearch.datasets import read_qrels
    from skbsearch.train.select import METRICS, choose_fit, save_fitted

    kb = load_skb(skb_dir)
    qs = load_queries(queries, id_field, text_field)
    judged = read_qrels(qrels)
    metrics = [*METRICS, *([metric] if metric not in METRICS else [])]

    def progress(stage: str, done: int, total: int) -> None:
        if not quiet and not json_out:
            err_console.print(f"{stage}: fold {done}/{total}", highlight=False)

    choice, fitted = choose_fit(lambda: build_pipeline(pipeline, kb), qs, judged, folds=folds, metric=metric,
                                metrics=metrics, seed=seed, progress=progress)
    choice = save_fitted(fitted, out, choice)
    if json_out:
        print_json({**choice.to_dict(), "out": str(out)})
        return
    if quiet:
        return
    rows = [{"pipeline": "untrained", **choice.untrained}, {"pipeline": f"fitted ({folds}-fold held out)", **choice.fitted}]
    print_table(rows, title=f"{pipeline}: {choice.queries} judged queries, fit {choice.fit_seconds} s")
    if choice.keep:
        console.print(f"kept: the fitted pipeline beats the untrained one on held-out {metric} "
                      f"({choice.fitted[metric]:.4f} > {choice.untrained[metric]:.4f}); refitted on all "
                      f"queries and saved to {out}\nuse it: -p \"$(cat {out / 'pipeline.txt'})\"",
                      highlight=False, markup=False)
    else:
        console.print(f"not kept: the fitted pipeline does not beat the untrained one on held-out {metric} "
                      f"({choice.fitted[metric]:.4f} <= {choice.untrained[metric]:.4f}); keep using "
                      f"-p \"{pipeline}\" (numbers in {out / 'fit.json'})", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    """Add ``skb fit``."""
    app.command("fit")(fit_cmd)

"""`skb bench trecdl`: TREC DL passage re-ranking of the BM25 top-100 (DL19 / DL20).

``--pipeline SPEC`` takes the pipeline language of ``skb run`` (the BM25 top-k is the
pipeline's input run, ``input``); ``--reranker NAME`` and its option flags are the old
names, mapped to a spec by :func:`skbsearch.benchmarks.trecdl.legacy_spec`.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from skbsearch.cli.arguments import output_dir_option, output_option
from skbsearch.cli.bench import bench_app
from skbsearch.cli.output import (
    DeviceOpt,
    PrecisionOpt,
    apply_device,
    console,
    handle_errors,
    print_table,
    save_result,
    stage_progress,
)


@bench_app.command("trecdl")
@handle_errors
def trecdl(
    data: Path = typer.Option(..., "--data", help="Folder with {year}_bm25_top100.json and {year}_qrels.json."),
    year: str = typer.Option("dl19", "--year", help="dl19 or dl20."),
    pipeline: str | None = typer.Option(None, "--pipeline", help="Pipeline spec over the BM25 top-k (its input run, 'input'), e.g. 'dense', 'gnn-row(grag-rl)', 'cross-encoder-ft(steps=90) + dense' (see skb stages)."),
    reranker: str | None = typer.Option(None, "--reranker", help="Old names (aliases of specs): none | bi-encoder | cross-encoder | llm | mlp | gcn | gnn (G-RAG) | gnn-rl (G-RAG-RL) | fusion:<a>+<b> | run:FILE."),
    model: str | None = typer.Option(None, "--model", help="Model of the re-ranker: a cross-encoder / GNN dir, an encoder, a GGUF (llm); with --cv-folds the start weights."),
    top_k: int = typer.Option(100, "--top-k", min=1, help="Re-rank the BM25 top-k."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N queries (qrels cut alike)."),
    cv_folds: int | None = typer.Option(None, "--cv-folds", min=2, help="Cross-encoder / mlp / gcn / gnn / gnn-rl: train with K-fold query-level cross-validation."),
    cv_steps: int | None = typer.Option(None, "--cv-steps", min=1, help="Training steps per fold."),
    cv_time: float | None = typer.Option(None, "--cv-time-budget", min=1, help="Training seconds per fold."),
    cv_epochs: int = typer.Option(1, "--cv-epochs", min=1, help="Training epochs per fold."),
    cv_lr: float = typer.Option(5e-5, "--cv-lr", help="Learning rate of each fold's training."),
    train_data: list[str] = typer.Option([], "--train-data", help="Extra training data per fold (nq:FILE), repeatable."),
    save_models: Path | None = typer.Option(None, "--save-models", help="Write each fold's model under this dir.", callback=output_dir_option),
    gnn_paths: bool | None = typer.Option(None, "--gnn-paths/--gnn-no-paths", help="GNN rows: path text in node features (default: the paper's, on for gnn/gnn-rl)."),
    gnn_min_common: int | None = typer.Option(None, "--gnn-min-common", min=1, help="GNN rows: join documents sharing at least N concepts (default 1)."),
    gnn_first_stage: float | None = typer.Option(None, "--gnn-first-stage", help="GNN rows: add the z-scored BM25 score as a node feature with this weight."),
    gnn_select: str | None = typer.Option(None, "--gnn-select-first-stage", help="GNN rows: comma-separated BM25-feature weights, chosen per fold by dev nDCG@10 on the training folds (e.g. 0,0.05,0.1,0.2)."),
    gnn_epochs: int | None = typer.Option(None, "--gnn-epochs", min=1, help="GNN rows: max epochs per fold (default 40)."),
    gnn_lr: float | None = typer.Option(None, "--gnn-lr", help="GNN rows: learning rate (default 1e-3)."),
    gnn_hidden: int | None = typer.Option(None, "--gnn-hidden", min=1, help="GNN rows: hidden dimension (default 64)."),
    gnn_seed: int | None = typer.Option(None, "--gnn-seed", help="GNN rows: seed of init and dev split (default 0)."),
    fusion: str = typer.Option("rrf", "--fusion", help="rrf or wsum, for fusion:<a>+<b>."),
    fold_seed: int = typer.Option(0, "--fold-seed", help="Seed of the query folds (--cv-folds)."),
    batch_size: int = typer.Option(32, "--batch-size", min=1, help="Pairs per forward pass."),
    threads: int | None = typer.Option(None, "--threads", min=1, help="torch threads while training."),
    cache: Path | None = typer.Option(None, "--cache", help="Embedding cache of dense indexes (default ~/.cache/skbsearch/embeddings); GNN rows cache under ~/.cache/skbsearch ($SKB_CACHE_DIR)."),
    input_run: Path | None = typer.Option(None, "--input-run", help="A TREC run whose scores replace BM25's on "
                                          "the same candidates (e.g. a cross-encoder run as the GNN's first-stage feature)."),
    save_run: Path | None = typer.Option(None, "--save-run", help="Write the final run as a TREC run file.", callback=output_option),
    json_out: Path | None = typer.Option(None, "--json", help="Write the result as JSON to this file ('-': stdout).", callback=output_option),
    device: DeviceOpt = None,
    precision: PrecisionOpt = None,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or table."),
) -> None:
    """Re-rank TREC DL's BM25 top-100: nDCG@10, MRR@10, MTRR, TMHits@10 and latency per stage."""
    apply_device(device, precision)

    from skbsearch.benchmarks.trecdl import legacy_spec, run_trecdl
    from skbsearch.core.errors import InputError

    if pipeline is not None and reranker is not None:
        raise InputError("give --pipeline SPEC or --reranker NAME, not both", field="pipeline")
    record = {}
    if pipeline is None:
        reranker = reranker or "none"
        record["reranker"] = reranker
        ce = {"steps": cv_steps, "time_budget": cv_time, "epochs": cv_epochs, "lr": cv_lr,
              "threads": threads, "train_data": tuple(train_data) or None,
              "save_dir": str(save_models) if save_models else None}
        gnn = {"use_paths": gnn_paths, "min_common": gnn_min_common, "first_stage": gnn_first_stage,
               "select_first_stage": _floats(gnn_select) if gnn_select else None,
               "epochs": gnn_epochs, "lr": gnn_lr, "hidden": gnn_hidden, "seed": gnn_seed,
               "save_dir": str(save_models) if save_models else None}
        pipeline = legacy_spec(reranker, model=model, cv_folds=cv_folds, top_k=top_k,
                               batch_size=batch_size, fusion=fusion, cross_encoder=ce, gnn=gnn)
    with stage_progress(disable=quiet) as progress:
        result = run_trecdl(data, year, pipeline, top_k=top_k, limit=limit, cv_folds=cv_folds,
                            fold_seed=fold_seed, embeddings=cache, save_run=save_run,
                            input_run=input_run, progress=progress, record=record)
    if save_result(result, json_out):
        return
    if not quiet:
        console.print(f"[bold]TREC DL {year}[/] pipeline {escape(result.config['pipeline'])}, "
                      f"data: {escape(str(data))}", highlight=False)
        console.print(f"protocol: {result.config['protocol']}", highlight=False, markup=False)
        console.print(f"queries: {result.config['n_queries']}  ({result.config['seconds']} s)",
                      highlight=False, markup=False)
        result.print(title=f"TREC DL {year} (metrics in %; 'all' = the re-ranked run)")
        stages = sorted({k.rsplit(".", 1)[0] for k in result.latency_ms if "." in k})
        if stages:
            rows = [{"stage": s, "p50 ms": result.latency_ms[f"{s}.p50"],
                     "p95 ms": result.latency_ms[f"{s}.p95"]} for s in stages]
            print_table(rows, title="latency per query", floatfmt="{:.1f}")
        if json_out is not None:
            console.print(f"wrote {json_out}", highlight=False, markup=False)


def _floats(text: str) -> tuple[float, ...]:
    """``"0,0.1"`` -> ``(0.0, 0.1)`` (InputError naming the option otherwise)."""
    from skbsearch.core.errors import InputError

    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InputError(f"--gnn-select-first-stage expects comma-separated numbers, got {text!r}",
                         field="gnn_select_first_stage") from None

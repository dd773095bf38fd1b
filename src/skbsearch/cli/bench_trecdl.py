"""`skb bench trecdl`: TREC DL passage re-ranking of the BM25 top-100 (DL19 / DL20)."""

from __future__ import annotations

from pathlib import Path

import typer

from skbsearch.cli.bench import bench_app
from skbsearch.cli.output import console, handle_errors, print_table, save_result, stage_progress


@bench_app.command("trecdl")
@handle_errors
def trecdl(
    data: Path = typer.Option(..., "--data", help="Folder with {year}_bm25_top100.json and {year}_qrels.json."),
    year: str = typer.Option("dl19", "--year", help="dl19 or dl20."),
    reranker: str = typer.Option("none", "--reranker", help="none | bi-encoder | cross-encoder | llm | mlp | gcn | gnn (G-RAG) | gnn-rl (G-RAG-RL) | fusion:<a>+<b> | run:FILE."),
    model: str | None = typer.Option(None, "--model", help="Model of the re-ranker: a cross-encoder / GNN dir, an encoder, a GGUF (llm); with --cv-folds the start weights."),
    top_k: int = typer.Option(100, "--top-k", min=1, help="Re-rank the BM25 top-k."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N queries (qrels cut alike)."),
    cv_folds: int | None = typer.Option(None, "--cv-folds", min=2, help="Cross-encoder / mlp / gcn / gnn / gnn-rl: train with K-fold query-level cross-validation."),
    cv_steps: int | None = typer.Option(None, "--cv-steps", min=1, help="Training steps per fold."),
    cv_time: float | None = typer.Option(None, "--cv-time-budget", min=1, help="Training seconds per fold."),
    cv_epochs: int = typer.Option(1, "--cv-epochs", min=1, help="Training epochs per fold."),
    cv_lr: float = typer.Option(5e-5, "--cv-lr", help="Learning rate of each fold's training."),
    train_data: list[str] = typer.Option([], "--train-data", help="Extra training data per fold (nq:FILE), repeatable."),
    save_models: Path | None = typer.Option(None, "--save-models", help="Write each fold's model under this dir."),
    gnn_paths: bool | None = typer.Option(None, "--gnn-paths/--gnn-no-paths", help="GNN rows: path text in node features (default: the paper's, on for gnn/gnn-rl)."),
    gnn_min_common: int | None = typer.Option(None, "--gnn-min-common", min=1, help="GNN rows: join documents sharing at least N concepts (default 1)."),
    gnn_first_stage: float | None = typer.Option(None, "--gnn-first-stage", help="GNN rows: add the z-scored BM25 score as a node feature with this weight."),
    gnn_select: str | None = typer.Option(None, "--gnn-select-first-stage", help="GNN rows: comma-separated BM25-feature weights, chosen per fold by dev nDCG@10 on the training folds (e.g. 0,0.05,0.1,0.2)."),
    gnn_epochs: int | None = typer.Option(None, "--gnn-epochs", min=1, help="GNN rows: max epochs per fold (default 40)."),
    gnn_lr: float | None = typer.Option(None, "--gnn-lr", help="GNN rows: learning rate (default 1e-3)."),
    gnn_hidden: int | None = typer.Option(None, "--gnn-hidden", min=1, help="GNN rows: hidden dimension (default 64)."),
    gnn_seed: int | None = typer.Option(None, "--gnn-seed", help="GNN rows: seed of init and dev split (default 0)."),
    fusion: str = typer.Option("rrf", "--fusion", help="rrf or wsum, for fusion:<a>+<b>."),
    batch_size: int = typer.Option(32, "--batch-size", min=1, help="Pairs per forward pass."),
    threads: int | None = typer.Option(None, "--threads", min=1, help="torch threads while training."),
    cache: Path | None = typer.Option(None, "--cache", help="bi-encoder: embedding cache dir; mlp/gcn/gnn/gnn-rl: cache root (embeddings/, semgraphs/; default ~/.cache/skbsearch)."),
    input_run: Path | None = typer.Option(None, "--input-run", help="A TREC run whose scores replace BM25's on "
                                          "the same candidates (e.g. a cross-encoder run as the GNN's first-stage feature)."),
    save_run: Path | None = typer.Option(None, "--save-run", help="Write the final run as a TREC run file."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the result as JSON to this file ('-': stdout)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or table."),
) -> None:
    """Re-rank TREC DL's BM25 top-100: nDCG@10, MRR@10, MTRR, TMHits@10 and latency per stage."""

    from skbsearch.benchmarks.trecdl import run_trecdl

    cv_options = None
    if cv_folds:
        from skbsearch.train.cross_encoder import TrainConfig

        cv_options = {"train_data": list(train_data), "save_dir": save_models,
                      "config": TrainConfig(epochs=cv_epochs, max_steps=cv_steps,
                                            time_budget_s=cv_time, threads=threads,
                                            lr=cv_lr)}
    gnn_options = {k: v for k, v in {
        "use_paths": gnn_paths, "min_common_nodes": gnn_min_common,
        "first_stage_weight": gnn_first_stage, "epochs": gnn_epochs, "lr": gnn_lr,
        "hidden_dim": gnn_hidden, "seed": gnn_seed,
        "select_first_stage": _floats(gnn_select) if gnn_select else None, "save_dir": save_models}.items() if v is not None}
    with stage_progress(disable=quiet) as progress:
        result = run_trecdl(data, year, reranker, model=model, top_k=top_k, limit=limit,
                            cv_folds=cv_folds, cv_options=cv_options, gnn_options=gnn_options,
                            fusion=fusion,
                            batch_size=batch_size, cache_dir=cache, save_run=save_run, input_run=input_run,
                            progress=progress)
    if save_result(result, json_out):
        return
    if not quiet:
        console.print(f"[bold]TREC DL {year}[/] re-ranker {reranker}, data: {data}", highlight=False)
        console.print(f"protocol: {result.config['protocol']}", highlight=False)
        console.print(f"queries: {result.config['n_queries']}  ({result.config['seconds']} s)",
                      highlight=False)
        result.print(title=f"TREC DL {year} ({reranker}; metrics in %; 'all' = the re-ranked run)")
        stages = sorted({k.rsplit(".", 1)[0] for k in result.latency_ms if "." in k})
        if stages:
            rows = [{"stage": s, "p50 ms": result.latency_ms[f"{s}.p50"],
                     "p95 ms": result.latency_ms[f"{s}.p95"]} for s in stages]
            print_table(rows, title="latency per query", floatfmt="{:.1f}")
        if json_out is not None:
            console.print(f"wrote {json_out}", highlight=False)


def _floats(text: str) -> tuple[float, ...]:
    """``"0,0.1"`` -> ``(0.0, 0.1)`` (InputError naming the option otherwise)."""
    from skbsearch.errors import InputError

    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InputError(f"--gnn-select-first-stage expects comma-separated numbers, got {text!r}",
                         field="gnn_select_first_stage") from None

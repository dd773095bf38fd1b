"""`skb train gnn-reranker`: train a G-RAG GNN re-ranker on TREC DL judgements or IMPLIRET pools (CPU)."""

from __future__ import annotations

from dataclasses import dataclass
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
from skbsearch.cli.train import train_app
from skbsearch.core.errors import InputError

BENCHMARK_HELP = ("write trecdl:DIR/dl19 (the folder holding dl19_bm25_top100.json and "
                  "dl19_qrels.json, then the year) or impliret:DIR (the IMPLIRET pools)")


def parse_benchmark(spec: str) -> tuple[Path, str]:
    """``trecdl:DIR/dl19`` -> ``(DIR, "dl19")``; ``impliret:DIR`` -> ``(DIR, "impliret")``."""
    kind, _, where = spec.partition(":")
    if kind not in ("trecdl", "impliret") or not where:
        raise InputError(f"cannot read benchmark {spec!r}; {BENCHMARK_HELP}", field="benchmark")
    p = Path(where).expanduser()
    return (p.parent, p.name) if kind == "trecdl" else (p, "impliret")


@dataclass
class TrainingData:
    """Judged queries over first-stage candidates, as the GNN trainer needs them."""

    name: str
    queries: list[Any]
    run: Any
    doc_text: dict[str, str]
    qrels: Any
    #: parse questions and documents apart (long documents, many queries per document)
    per_text: bool


def load_benchmark(spec: str, limit: int | None = None) -> TrainingData:
    """The training data of ``trecdl:DIR/dl19`` (judged queries, BM25 top-100) or
    ``impliret:DIR`` (every query of the pools over BM25's top-100 of its own pool)."""
    where, name = parse_benchmark(spec)
    if name == "impliret":
        from skbsearch.benchmarks.impliret.rerank import load_rerank_data

        data = load_rerank_data(where)
        return TrainingData(name, data.all_queries[:limit], data.run, data.doc_text, data.qrels, True)
    from skbsearch.datasets.trecdl import load_trecdl

    tdata = load_trecdl(where, name)
    queries = [q for q in tdata.queries if q.id in tdata.qrels][:limit]
    return TrainingData(name, queries, tdata.run, tdata.doc_text, tdata.qrels, False)


def train_gnn_reranker(benchmark: str, out: Path, *, kind: str = "grag", loss: str = "pairwise",
                       use_paths: bool = False, min_common_nodes: int = 1,
                       first_stage_weight: float = 0.0, epochs: int = 40, lr: float = 1e-3,
                       hidden_dim: int = 64, dropout: float = 0.1, patience: int = 8,
                       dev_fraction: float = 0.15, limit: int | None = None, seed: int = 0,
                       threads: int = 1, cache: Path | None = None,
                       progress: bool = True, per_text: bool | None = None) -> dict[str, Any]:
    """Featurize the benchmark's judged queries, train (seeded dev split), save to ``out``.

    Returns a summary (queries, best epoch, dev nDCG@10, seconds, model directory).
    ``per_text``: semantic graphs from separately parsed questions and documents (default:
    on for IMPLIRET, off for TREC DL).
    """
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from skbsearch.rerank.gnn_models import GNNConfig
    from skbsearch.train.gnn_rows import (
        GNNFeatures,
        GNNRowConfig,
        build_graphs,
        train_row_model,
    )

    GNNConfig(kind=kind)  # validates the kind before the slow feature building
    data = load_benchmark(benchmark, limit)
    queries = data.queries
    features = GNNFeatures(use_paths=use_paths, min_common_nodes=min_common_nodes,
                           first_stage_weight=first_stage_weight,
                           per_text=data.per_text if per_text is None else per_text)
    row = GNNRowConfig(kind=kind, loss=loss, features=features, hidden_dim=hidden_dim,
                       dropout=dropout, lr=lr, epochs=epochs, patience=patience,
                       dev_fraction=dev_fraction, seed=seed)
    start = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True,
                  disable=not progress) as bar:
        task = bar.add_task("features (parse + encode)", total=len(queries))

        def tick(stage: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        graphs = build_graphs(queries, data.run, data.doc_text, features, qrels=data.qrels,
                              cache_dir=cache, progress=tick)
    feat_s = time.perf_counter() - start
    _, result = train_row_model(graphs, row, out_dir=out, threads=threads, progress=progress)
    return {"out": str(out), "benchmark": benchmark, "queries": len(graphs), "kind": kind,
            "loss": loss, "features": features.settings(), "best_epoch": result.best_epoch,
            "epochs_run": len(result.history) - 1,
            "dev_ndcg@10_start": round(result.history[0]["dev_ndcg"], 4),
            "dev_ndcg@10": round(result.best_dev, 4), "feature_seconds": round(feat_s, 1),
            "seconds": round(time.perf_counter() - start, 1)}


@train_app.command("gnn-reranker")
@handle_errors
@device_options
def gnn_reranker(
    benchmark: str = typer.Option(..., "--benchmark", help="Training data: trecdl:DIR/dl19 (judged queries over the BM25 top-100) "
                                  "or impliret:DIR (every pool query over BM25's top-100 of its pool)."),
    out: Path | None = typer.Option(None, "--out", help="Model directory to write (default: <cache>/models/gnn-<year>-<kind>-<loss>).", callback=artefact_dir_option("gnn-model")),
    kind: str = typer.Option("grag", "--kind", help="grag | gcn | sage | gat | mlp."),
    loss: str = typer.Option("pairwise", "--loss", help="pairwise (G-RAG-RL, Eq. 13) or ce (Eq. 12)."),
    paths: bool = typer.Option(False, "--paths/--no-paths", help="Append semantic-graph path text to each document (Eq. 2)."),
    min_common_nodes: int = typer.Option(1, "--min-common-nodes", min=1, help="Join documents sharing at least N concepts."),
    first_stage_weight: float = typer.Option(0.0, "--first-stage-weight", help="Add the z-scored BM25 score as a node feature with this weight (0: off)."),
    epochs: int = typer.Option(40, "--epochs", min=1, help="Maximum epochs (one step per query)."),
    lr: float = typer.Option(1e-3, "--lr", help="Adam learning rate."),
    hidden_dim: int = typer.Option(64, "--hidden-dim", min=1, help="Hidden dimension."),
    dropout: float = typer.Option(0.1, "--dropout", min=0.0, max=0.9, help="Dropout rate."),
    patience: int = typer.Option(8, "--patience", min=1, help="Stop after N epochs without dev gain."),
    dev_fraction: float = typer.Option(0.15, "--dev-fraction", min=0.01, max=0.9, help="Share of queries held back for early stopping."),
    limit: int | None = typer.Option(None, "--limit", min=2, help="Only the first N judged queries."),
    seed: int = typer.Option(0, "--seed", help="Seed of the initialisation and the dev split."),
    threads: int = typer.Option(1, "--threads", min=1, help="torch threads (1 is fastest for these graphs)."),
    per_text: bool | None = typer.Option(None, "--per-text/--pair-text", help="Parse questions and documents apart "
                                         "(default: on for impliret, off for trecdl)."),
    cache: Path | None = typer.Option(None, "--cache", help="Cache root for parses and embeddings (default $SKB_CACHE_DIR or ~/.cache/skbsearch)."),
    json_out: bool = typer.Option(False, "--json", help="Print the training summary as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars."),
) -> None:
    """Train a G-RAG / GCN / MLP re-ranker on TREC DL judgements or IMPLIRET pools and save it (load with GNNReranker.load)."""
    from skbsearch.core.paths import cache_root

    if out is None:
        out = cache_root() / "models" / f"gnn-{parse_benchmark(benchmark)[1]}-{kind}-{loss}"
    summary = train_gnn_reranker(
        benchmark, out, kind=kind, loss=loss, use_paths=paths, min_common_nodes=min_common_nodes,
        first_stage_weight=first_stage_weight, epochs=epochs, lr=lr, hidden_dim=hidden_dim,
        dropout=dropout, patience=patience, dev_fraction=dev_fraction, limit=limit, seed=seed,
        threads=threads, cache=cache, progress=not quiet and not json_out, per_text=per_text)
    if json_out:
        print_json(summary)
    elif not quiet:
        console.print(f"trained {kind}/{loss} on {summary['queries']} queries: best epoch "
                      f"{summary['best_epoch']} of {summary['epochs_run']}, dev nDCG@10 "
                      f"{summary['dev_ndcg@10_start']:.4f} -> {summary['dev_ndcg@10']:.4f} "
                      f"({summary['seconds']} s); wrote {out}", highlight=False, markup=False)

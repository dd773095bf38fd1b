"""`skb bench impliret`: IMPLIRET retrieval (Table 2 protocol) and readers (Table 3, oracle RAG).

``--pipeline`` takes a spec in the language of ``skb run`` (its first stage ranks each
query's own pool; later stages re-rank) or an old name (``enrich``, ``bm25>grag-rl``...),
mapped by :func:`skbsearch.benchmarks.impliret.rerank.legacy_spec`.
"""

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
    print_table,
    save_result,
    stage_progress,
)


@bench_app.command("impliret")
@handle_errors
def impliret(
    data: Path = typer.Option(..., "--data", help="Folder of {arithmetic,temporal,wknow}_{multispeaker,unispeaker}.jsonl."),
    pipeline: str = typer.Option("enrich", "--pipeline", help="A spec (skb run's language; the first stage ranks the query's own pool, e.g. 'bm25 >> gnn-row(grag-rl)'), or an old name: enrich (default), bm25+enrich, constraints-only, bm25, dense, hybrid; 'bm25>NAME' with NAME bi-encoder, mlp, gcn, grag, grag-rl, cross-encoder, or 'bm25>fusion:A+B' (RRF)."),
    limit_per_pool: int | None = typer.Option(None, "--limit-per-pool", min=1, help="Score only the first N queries of each pool (all documents are still ranked)."),
    gazetteer: Path | None = typer.Option(None, "--gazetteer", help="Landmark JSONL (default: DIR/../gazetteer/wikidata_landmarks.jsonl)."),
    reader: str | None = typer.Option(None, "--reader", help="Score a reader instead: extractive or llm."),
    reader_k: str = typer.Option("1,10,all", "--reader-k", help="Reader context sizes, e.g. 1,10,all (all = the tuple set)."),
    reader_source: str = typer.Option("oracle", "--reader-source", help="oracle (positive always included) or retriever (our top-k)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Reader: at most N queries per pool (the LLM reader is slow)."),
    llm: str = typer.Option("smollm2", "--llm", help="LLM reader model: smollm2, a .gguf path or an http(s):// OpenAI-compatible URL."),
    cache: Path | None = typer.Option(None, "--cache", help="Embedding cache of dense indexes (default ~/.cache/skbsearch/embeddings); GNN rows cache under ~/.cache/skbsearch ($SKB_CACHE_DIR)."),
    folds: int = typer.Option(2, "--folds", min=2, help="Query-level cross-validation folds for trained re-rankers."),
    fold_seed: int = typer.Option(0, "--fold-seed", help="Seed of the query folds."),
    gnn_paths: bool | None = typer.Option(None, "--gnn-paths/--gnn-no-paths", help="GNN rows: path text in node features (default: the paper's, on for grag/grag-rl)."),
    gnn_min_common: int | None = typer.Option(None, "--gnn-min-common", min=1, help="GNN rows: join documents sharing at least N concepts (default 1)."),
    gnn_first_stage: float | None = typer.Option(None, "--gnn-first-stage", help="GNN rows: add the z-scored BM25 score as a node feature with this weight."),
    gnn_select: str | None = typer.Option(None, "--gnn-select-first-stage", help="GNN rows: comma-separated BM25-feature weights, chosen per fold by dev nDCG@10 on the training folds."),
    gnn_epochs: int | None = typer.Option(None, "--gnn-epochs", min=1, help="GNN rows: max epochs per fold (default 40)."),
    gnn_patience: int | None = typer.Option(None, "--gnn-patience", min=1, help="GNN rows: early-stopping patience in epochs (default 8)."),
    gnn_lr: float | None = typer.Option(None, "--gnn-lr", help="GNN rows: learning rate (default 1e-3)."),
    gnn_seed: int | None = typer.Option(None, "--gnn-seed", help="GNN rows: seed of init and dev split (default 0)."),
    ce_start: str | None = typer.Option(None, "--ce-start", help="cross-encoder: start weights, minilm (default) "
                                        "or a 'skb train cross-encoder' directory."),
    ce_steps: int | None = typer.Option(None, "--ce-steps", min=1, help="cross-encoder: training steps per fold (default 80)."),
    ce_lr: float | None = typer.Option(None, "--ce-lr", help="cross-encoder: learning rate (default 1e-4)."),
    ce_max_length: int | None = typer.Option(None, "--ce-max-length", min=16, help="cross-encoder: tokens per (question, document) pair (default 256)."),
    ce_time: float | None = typer.Option(None, "--ce-time-budget", min=1, help="cross-encoder: training seconds per fold."),
    threads: int | None = typer.Option(None, "--threads", min=1, help="cross-encoder: torch threads while training."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the result as JSON to this file ('-': stdout).", callback=output_option),
    device: DeviceOpt = None,
    precision: PrecisionOpt = None,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or table."),
) -> None:
    """Run IMPLIRET's official protocol: nDCG@10 / MRR@10 / Recall@10 per pool, category and overall."""
    apply_device(device, precision)

    from skbsearch.benchmarks.impliret import run_impliret, table_rows
    from skbsearch.benchmarks.impliret.read import parse_ks, reader_table, run_impliret_reader

    ks = parse_ks(reader_k) if reader else None
    gnn = {"use_paths": gnn_paths, "min_common": gnn_min_common, "first_stage": gnn_first_stage,
           "epochs": gnn_epochs, "patience": gnn_patience, "lr": gnn_lr, "seed": gnn_seed,
           "select_first_stage": _floats(gnn_select) if gnn_select else None}
    ce = {"start": ce_start, "steps": ce_steps, "lr": ce_lr, "max_length": ce_max_length,
          "time_budget": ce_time, "threads": threads}
    with stage_progress(disable=quiet or str(json_out) == "-") as progress:
        if reader:
            result = run_impliret_reader(data, reader=reader, ks=ks or [1], source=reader_source, pipeline=pipeline,
                                         limit_per_pool=limit or limit_per_pool, gazetteer=gazetteer, llm=llm,
                                         progress=progress)
        else:
            result = run_impliret(data, pipeline, limit_per_pool=limit_per_pool, gazetteer=gazetteer,
                                  embeddings=cache, folds=folds, fold_seed=fold_seed,
                                  gnn={k: v for k, v in gnn.items() if v is not None},
                                  cross_encoder={k: v for k, v in ce.items() if v is not None},
                                  progress=progress)
    if save_result(result, json_out):
        return
    if quiet:
        return
    cfg = result.config
    console.print(f"[bold]IMPLIRET[/] data: {escape(str(cfg['data']))}", highlight=False)
    console.print(f"protocol: {cfg['protocol']}", highlight=False, markup=False)
    for p in cfg.get("missing_pools", []):
        console.print(f"[yellow]note:[/] pool {escape(str(p))} not found in {escape(str(data))}; skipped",
                      highlight=False)
    if reader:
        console.print(f"reader: {cfg['reader']}  source: {cfg['source']}  queries: {cfg['n_queries']}  "
                      f"({cfg['seconds']} s)", highlight=False, markup=False)
        print_table(reader_table(result), title="ROUGE-1 recall (%) by k, as Table 3", floatfmt="{:.2f}")
    elif "rerank" in cfg:
        console.print(f"pipeline: {cfg['pipeline']}  documents: {cfg['n_documents']}  queries: "
                      f"{cfg['n_queries']}  first-stage recall@100: "
                      f"{100 * cfg['first_stage_recall@100']:.2f}  folds: {cfg.get('folds') or '-'}  "
                      f"total: {cfg['seconds']} s", highlight=False, markup=False)
        print_table(table_rows(result), title=f"nDCG@10 (%), as Table 2 ({pipeline})", floatfmt="{:.2f}")
        result.print(title=f"IMPLIRET {pipeline}: metrics in %, per pool and category")
    else:
        console.print(f"pipeline: {cfg['pipeline']}  documents: {cfg['n_documents']}  queries: "
                      f"{cfg['n_queries']}  index build: {cfg['build_seconds']} s  total: {cfg['seconds']} s",
                      highlight=False, markup=False)
        print_table(table_rows(result), title=f"nDCG@10 (%), as Table 2 ({pipeline})", floatfmt="{:.2f}")
        result.print(title=f"IMPLIRET {pipeline}: metrics in %, latency per query (ms)")
    if json_out is not None:
        console.print(f"wrote {json_out}", highlight=False, markup=False)


def _floats(text: str) -> list[float]:
    """``"0,0.1"`` -> ``[0.0, 0.1]`` (InputError naming the option otherwise)."""
    from skbsearch.core.errors import InputError

    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"expected comma-separated numbers, got {text!r}",
                         field="gnn_select_first_stage") from None

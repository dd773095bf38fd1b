"""`skb bench impliret`: IMPLIRET retrieval (Table 2 protocol) and readers (Table 3, oracle RAG)."""

from __future__ import annotations

from pathlib import Path

import typer

from skbsearch.cli.bench import bench_app
from skbsearch.cli.output import console, handle_errors, print_table, save_result, stage_progress


@bench_app.command("impliret")
@handle_errors
def impliret(
    data: Path = typer.Option(..., "--data", help="Folder of {arithmetic,temporal,wknow}_{multispeaker,unispeaker}.jsonl."),
    pipeline: str = typer.Option("enrich", "--pipeline", help="enrich (default), bm25+enrich, constraints-only, bm25, dense, hybrid."),
    limit_per_pool: int | None = typer.Option(None, "--limit-per-pool", min=1, help="Score only the first N queries of each pool (all documents are still ranked)."),
    gazetteer: Path | None = typer.Option(None, "--gazetteer", help="Landmark JSONL (default: DIR/../gazetteer/wikidata_landmarks.jsonl)."),
    reader: str | None = typer.Option(None, "--reader", help="Score a reader instead: extractive or llm."),
    reader_k: str = typer.Option("1,10,all", "--reader-k", help="Reader context sizes, e.g. 1,10,all (all = the tuple set)."),
    reader_source: str = typer.Option("oracle", "--reader-source", help="oracle (positive always included) or retriever (our top-k)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Reader: at most N queries per pool (the LLM reader is slow)."),
    llm: str = typer.Option("smollm2", "--llm", help="LLM reader model: smollm2, a .gguf path or an http(s):// OpenAI-compatible URL."),
    cache: Path | None = typer.Option(None, "--cache", help="Embedding cache dir for dense/hybrid (default ~/.cache/skbsearch/embeddings)."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the result as JSON to this file ('-': stdout)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or table."),
) -> None:
    """Run IMPLIRET's official protocol: nDCG@10 / MRR@10 / Recall@10 per pool, category and overall."""

    from skbsearch.benchmarks.impliret import run_impliret, table_rows
    from skbsearch.benchmarks.impliret_read import parse_ks, reader_table, run_impliret_reader

    ks = parse_ks(reader_k) if reader else None
    with stage_progress(disable=quiet or str(json_out) == "-") as progress:
        if reader:
            result = run_impliret_reader(data, reader=reader, ks=ks or [1], source=reader_source, pipeline=pipeline,
                                         limit_per_pool=limit or limit_per_pool, gazetteer=gazetteer, llm=llm,
                                         progress=progress)
        else:
            result = run_impliret(data, pipeline=pipeline, limit_per_pool=limit_per_pool, gazetteer=gazetteer,
                                  cache_dir=cache, progress=progress)
    if save_result(result, json_out):
        return
    if quiet:
        return
    cfg = result.config
    console.print(f"[bold]IMPLIRET[/] data: {cfg['data']}", highlight=False)
    console.print(f"protocol: {cfg['protocol']}", highlight=False)
    for p in cfg.get("missing_pools", []):
        console.print(f"[yellow]note:[/] pool {p} not found in {data}; skipped", highlight=False)
    if reader:
        console.print(f"reader: {cfg['reader']}  source: {cfg['source']}  queries: {cfg['n_queries']}  "
                      f"({cfg['seconds']} s)", highlight=False)
        print_table(reader_table(result), title="ROUGE-1 recall (%) by k, as Table 3", floatfmt="{:.2f}")
    else:
        console.print(f"pipeline: {cfg['pipeline']}  documents: {cfg['n_documents']}  queries: "
                      f"{cfg['n_queries']}  index build: {cfg['build_seconds']} s  total: {cfg['seconds']} s",
                      highlight=False)
        print_table(table_rows(result), title=f"nDCG@10 (%), as Table 2 ({pipeline})", floatfmt="{:.2f}")
        result.print(title=f"IMPLIRET {pipeline}: metrics in %, latency per query (ms)")
    if json_out is not None:
        console.print(f"wrote {json_out}", highlight=False)

"""`skb bench impliret`: IMPLIRET retrieval (Table 2 protocol) and readers (Table 3, oracle RAG).

``--pipeline SPEC`` takes the language of ``skb run`` (its first stage ranks each query's
own pool; later stages re-rank); repeat it for one result a spec. (The old names ``hybrid``,
``bm25+enrich``, ``constraints-only``, ``bm25>NAME`` and flags ``--gnn-*``, ``--ce-*``,
``--folds``, ``--limit-per-pool`` were retired after a release of warnings.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from skbsearch.cli import bench_options
from skbsearch.cli.bench import bench_command
from skbsearch.cli.output import console, print_table, stage_progress
from skbsearch.core.errors import InputError


@bench_command("impliret")
def impliret(
    data: Path = typer.Option(..., "--data", help="Folder of {arithmetic,temporal,wknow}_{multispeaker,unispeaker}.jsonl."),
    pipeline: list[str] | None = bench_options.pipeline_option(
        "Its first stage ranks the query's own pool, later stages re-rank, e.g. 'bm25', "
        "'rrf(bm25, dense)', \"enrich(mode='text')\", 'bm25 >> gnn-row(grag-rl)' (default: "
        "enrich; enrich stages get the --gazetteer)."),
    limit: int | None = bench_options.limit_option(" of each pool (all documents are still ranked)"),
    cv_folds: int = bench_options.cv_folds_option(2),
    fold_seed: int = bench_options.fold_seed_option(),
    gazetteer: Path | None = typer.Option(None, "--gazetteer", help="Landmark JSONL of the enrich stages that name none (default: DIR/../gazetteer/wikidata_landmarks.jsonl)."),
    reader: str | None = typer.Option(None, "--reader", help="Score a reader instead: extractive or llm."),
    reader_k: str = typer.Option("1,10,all", "--reader-k", help="Reader context sizes, e.g. 1,10,all (all = the tuple set)."),
    reader_source: str = typer.Option("oracle", "--reader-source", help="oracle (positive always included) or retriever (the --pipeline's top k)."),
    llm: str = typer.Option("smollm2", "--llm", help="LLM reader model: smollm2, a .gguf path or an http(s):// OpenAI-compatible URL."),
    cache: Path | None = bench_options.cache_option(),
    json_out: Path | None = bench_options.json_option(),
    quiet: bool = bench_options.quiet_option(),
) -> None:
    """Run IMPLIRET's official protocol: nDCG@10 / MRR@10 / Recall@10 per pool, category and overall."""
    specs = bench_options.specs_or(pipeline, "enrich")
    if reader and reader_source == "oracle" and pipeline:
        raise InputError("the oracle reader reads no retriever's run: drop --pipeline, or give "
                         "--reader-source retriever", field="--pipeline")
    settings = {"limit_per_pool": limit, "gazetteer": gazetteer}
    with stage_progress(disable=quiet or str(json_out) == "-") as progress:
        if reader:
            results = [_read(data, spec, reader, reader_k, reader_source, llm, progress, settings)
                       for spec in specs]
        else:
            results = [_retrieve(data, spec, cache, cv_folds, fold_seed, progress, settings)
                       for spec in specs]
    show = _print_reader if reader else _print_retrieval
    bench_options.show_results(results, json_out, quiet, lambda r: show(r, data))


def _retrieve(data: Path, spec: str, cache: Path | None, cv_folds: int, fold_seed: int,
              progress: Any, settings: dict[str, Any]) -> Any:
    """The retrieval protocol over one spec."""
    from skbsearch.benchmarks.impliret import run_impliret

    return run_impliret(data, spec, embeddings=cache, cv_folds=cv_folds, fold_seed=fold_seed,
                        progress=progress, **settings)


def _read(data: Path, spec: str, reader: str, reader_k: str, source: str, llm: str,
          progress: Any, settings: dict[str, Any]) -> Any:
    """A reader's protocol (its retriever: ``spec`` with ``source="retriever"``)."""
    from skbsearch.benchmarks.impliret.read import parse_ks, run_impliret_reader

    return run_impliret_reader(data, reader=reader, ks=parse_ks(reader_k), source=source,
                               pipeline=spec, llm=llm, progress=progress, **settings)


def _header(result: Any, data: Path) -> None:
    cfg = result.config
    console.print(f"[bold]IMPLIRET[/] data: {escape(str(cfg['data']))}", highlight=False)
    console.print(f"protocol: {cfg['protocol']}", highlight=False, markup=False)
    for p in cfg.get("missing_pools", []):
        console.print(f"[yellow]note:[/] pool {escape(str(p))} not found in {escape(str(data))}; skipped",
                      highlight=False)


def _print_reader(result: Any, data: Path) -> None:
    """A reader's result: ROUGE-1 recall by k and category (Table 3)."""
    from skbsearch.benchmarks.impliret.read import reader_table

    _header(result, data)
    cfg = result.config
    console.print(f"reader: {cfg['reader']}  source: {cfg['source']}  queries: {cfg['n_queries']}  "
                  f"({cfg['seconds']} s)", highlight=False, markup=False)
    print_table(reader_table(result), title="ROUGE-1 recall (%) by k, as Table 3", floatfmt="{:.2f}")


def _print_retrieval(result: Any, data: Path) -> None:
    """A retrieval result: nDCG@10 as Table 2, then every metric per pool and category."""
    from skbsearch.benchmarks.impliret import table_rows

    _header(result, data)
    cfg, spec = result.config, result.config["pipeline"]
    line = f"pipeline: {spec}  documents: {cfg['n_documents']}  queries: {cfg['n_queries']}  "
    if "rerank" in cfg:
        line += (f"first-stage recall@100: {100 * cfg['first_stage_recall@100']:.2f}  "
                 f"folds: {cfg.get('folds') or '-'}  total: {cfg['seconds']} s")
        what = "metrics in %, per pool and category"
    else:
        line += f"index build: {cfg['build_seconds']} s  total: {cfg['seconds']} s"
        what = "metrics in %, latency per query (ms)"
    console.print(line, highlight=False, markup=False)
    print_table(table_rows(result), title=f"nDCG@10 (%), as Table 2 ({spec})", floatfmt="{:.2f}")
    result.print(title=f"IMPLIRET {spec}: {what}")

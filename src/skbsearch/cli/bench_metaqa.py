"""`skb bench metaqa`: KGQA on MetaQA with any pipeline spec (default: the graph stage)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.cli import bench_options
from skbsearch.cli.bench import bench_command
from skbsearch.cli.output import console, err_console, stage_progress
from skbsearch.core.errors import InputError

#: Old ``--pipeline`` names -> the spec that runs instead (``None``: retired).
OLD_NAMES: dict[str, str | None] = {"kg": "graph", "text": "bm25", "rerank": None}


def _parse_hops(text: str) -> tuple[int, ...]:
    try:
        hops = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InputError(f"--hops must be a comma-separated list like 1,2,3, got {text!r}", field="hops") from None
    if not hops:
        raise InputError("--hops is empty; give e.g. 1,2,3", field="hops")
    return hops


def _deprecated(message: str) -> None:
    err_console.print(f"[yellow]deprecated:[/] {escape(message)}", highlight=False)


def _specs(pipelines: list[str] | None, backoff: bool | None, link: str | None,
           graph_weight: float | None, model: Path | None) -> tuple[list[str], bool]:
    """The specs to run and whether the questions keep their brackets; the flags of the
    retired MetaQA pipelines print the spec (or flag) to use instead, for one release."""
    if graph_weight is not None or model is not None:
        raise InputError("--graph-weight and --model belonged to the retired 'rerank' pipeline; the triple "
                         "re-ranker experiment is benchmarks/metaqa_ablation.py", field="pipeline")
    specs = list(pipelines or ["graph"])
    for i, spec in enumerate(specs):
        if not spec.strip():
            raise InputError("--pipeline is empty; give a spec such as 'graph'", field="pipeline")
        if spec in OLD_NAMES:
            new = OLD_NAMES[spec]
            if new is None:
                raise InputError("--pipeline rerank is retired; the triple re-ranker experiment is "
                                 "benchmarks/metaqa_ablation.py", field="pipeline")
            _deprecated(f"--pipeline {spec} is now --pipeline {new!r}")
            specs[i] = new
    if backoff is False:
        if specs != ["graph"]:
            raise InputError("--no-backoff is retired: give the graph stage's parameter, e.g. "
                             "--pipeline 'graph(backoff=0)'", field="backoff")
        _deprecated("--no-backoff is now --pipeline 'graph(backoff=0)'")
        specs = ["graph(backoff=0)"]
    brackets = True
    if link is not None:
        if link not in ("brackets", "ngram"):
            raise InputError(f"--link must be brackets or ngram, got {link!r}", field="link")
        brackets = link == "brackets"
        _deprecated(f"--link {link} is now {'--brackets' if brackets else '--no-brackets'}")
    return specs, brackets


@bench_command("metaqa")
def metaqa(
    data: Path = typer.Option(..., "--data", help="MetaQA folder: kb.tsv and {1,2,3}-hop/qa_*.txt."),
    pipeline: list[str] | None = typer.Option(
        None, "--pipeline", metavar="SPEC", help="A pipeline spec in the language of 'skb run' (see "
        "'skb stages'); repeat it to compare pipelines (one result a spec). Its trainable stages fit on the "
        "training questions' answers. Default: graph."),
    split: str = typer.Option("dev", "--split", help="Which questions to score: dev (fit on a hash half, "
                              "score the other) or test (fit on all of dev)."),
    hops: str = typer.Option("1,2,3", "--hops", help="Hops to score, e.g. 1,2,3."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Score only the first N questions per hop."),
    brackets: bool = typer.Option(True, "--brackets/--no-brackets", help="Whether the pipeline sees the "
                                  "questions' topic markup (\\[Kismet])."),
    train_on: str = typer.Option("all", "--train-on", help="all: dev questions of every hop; hop: same hop only."),
    cache: Path | None = typer.Option(None, "--cache", help="Cache dir (default $SKB_CACHE_DIR or ~/.cache/skbsearch)."),
    json_out: Path | None = bench_options.json_option(),
    quiet: bool = bench_options.quiet_option(),
    backoff: bool | None = typer.Option(None, "--backoff/--no-backoff", hidden=True),
    link: str | None = typer.Option(None, "--link", hidden=True),
    graph_weight: float | None = typer.Option(None, "--graph-weight", hidden=True),
    model: Path | None = typer.Option(None, "--model", hidden=True),
) -> None:
    """Score KGQA on MetaQA: Hits@1, Hit@k/Recall@20/MRR over answer nodes, the KB ceiling, latency."""
    from skbsearch.benchmarks.metaqa import run_metaqa

    hop_list = _parse_hops(hops)
    specs, old_brackets = _specs(pipeline, backoff, link, graph_weight, model)
    results = []
    for spec in specs:
        with stage_progress(disable=quiet) as progress:
            results.append(run_metaqa(data, spec, split, hop_list, limit, train_on, cache_dir=cache,
                                      brackets=brackets and old_brackets, progress=progress))
    bench_options.show_results(results, json_out, quiet, lambda r: _print(r, data, split))


def _print(result: BenchmarkResult, data: Path, split: str) -> None:
    spec = result.config["pipeline"]
    console.print(f"[bold]MetaQA[/] pipeline {escape(spec)}, data: {escape(str(data))}", highlight=False)
    console.print(f"protocol: {result.config['protocol']}", highlight=False, markup=False)
    console.print(f"questions: {result.config['n_questions']}  ({result.config['seconds']} s)",
                  highlight=False, markup=False)
    result.print(title=f"MetaQA {split} ({spec}, metrics in %, latency per question)")

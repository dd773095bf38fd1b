"""`skb experiment`: compare pipelines and saved runs with paired significance tests."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from skbsearch.cli.arguments import output_option, plot_option
from skbsearch.cli.output import (
    console,
    device_options,
    handle_errors,
    print_json,
    print_table,
    stage_progress,
)
from skbsearch.cli.run import (
    IdFieldOpt,
    JsonOpt,
    MetricsOpt,
    QuietOpt,
    TextFieldOpt,
    build_pipeline,
    load_queries,
    load_skb,
    split_named,
)
from skbsearch.core.errors import InputError


def collect_systems(
    pipelines: list[str], runs: list[str], skb_dir: Path | None
) -> dict[str, Any]:
    """``{name: stage_or_run}`` from ``--pipeline [NAME=]SPEC`` and ``--run [NAME=]FILE``."""
    from skbsearch.core.types import Run

    systems: dict[str, Any] = {}

    def add(name: str, system: Any, option: str) -> None:
        if name in systems:
            raise InputError(f"two systems are named {name!r}; name them NAME=...", field=option)
        systems[name] = system

    kb = load_skb(skb_dir) if pipelines else None
    for value in pipelines:
        name, spec = split_named(value, "--pipeline")
        stage = build_pipeline(spec, kb)
        add(name or spec, stage, "--pipeline")
    for value in runs:
        name, file = split_named(value, "--run")
        path = Path(file)
        if not path.is_file():
            raise FileNotFoundError(f"run file not found: {path}")
        add(name or path.stem, Run.from_trec(path, name=name or path.stem), "--run")
    if not systems:
        raise InputError("nothing to compare: give --pipeline NAME=SPEC and/or --run NAME=FILE",
                         field="--pipeline")
    return systems


def experiment_cmd(
    skb_dir: Annotated[Path | None, typer.Argument(
        help="The SKB directory pipelines run on (not needed with only --run).")] = None,
    queries_path: Annotated[Path | None, typer.Option(
        "--queries", help="Query file (JSONL, CSV/TSV with a header, TREC topics, text lines); "
        "needed with --pipeline. The qrels are restricted to these queries.")] = None,
    qrels_path: Annotated[Path | None, typer.Option(
        "--qrels", help="TREC, JSON or a query file with an answers column (STaRK CSV).")] = None,
    pipelines: Annotated[list[str] | None, typer.Option(
        "--pipeline", "-p", help="A system: NAME=SPEC (or just SPEC). Repeatable.")] = None,
    runs: Annotated[list[str] | None, typer.Option(
        "--run", help="A saved TREC run: NAME=FILE (or just FILE). Repeatable.")] = None,
    metrics: MetricsOpt = "ndcg@10,mrr@10,recall@100",
    baseline: Annotated[str | None, typer.Option(
        "--baseline", help="Test every system against this one (▲/▼); default: every pair "
        "(superscripts name the systems a mean beats).")] = None,
    test: Annotated[str, typer.Option("--test", help="t | wilcoxon | randomization.")] = "t",
    correction: Annotated[str | None, typer.Option(
        "--correction", help="holm | bonferroni, per metric across the comparisons.")] = None,
    alpha: Annotated[float, typer.Option("--alpha", help="Significance level.")] = 0.05,
    permutations: Annotated[int, typer.Option(
        "--permutations", min=1, help="Randomization test draws.")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="Randomization test seed.")] = 42,
    per_query: Annotated[bool, typer.Option("--per-query", help="Also show per-query scores.")] = False,
    csv_out: Annotated[Path | None, typer.Option(
        "--csv", help="Write the table as CSV.", callback=output_option)] = None,
    latex_out: Annotated[Path | None, typer.Option(
        "--latex", help="Write a LaTeX table.", callback=output_option)] = None,
    plot: Annotated[Path | None, typer.Option(
        "--plot", help="Write a bar chart (format from the suffix: .png, .svg, .pdf, ...).",
        callback=plot_option)] = None,
    id_field: IdFieldOpt = None,
    text_field: TextFieldOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Compare pipelines and saved runs on one query set: means, paired tests, ms/query."""
    from skbsearch.datasets import read_qrels
    from skbsearch.eval.experiment import Experiment

    if qrels_path is None:
        raise InputError("give the judgements with --qrels FILE", field="--qrels")
    if pipelines and queries_path is None:
        raise InputError("pipelines need a query file: --queries FILE", field="--queries")
    queries = load_queries(queries_path, id_field, text_field) if queries_path else None
    qrels = read_qrels(qrels_path)
    systems = collect_systems(pipelines or [], runs or [], skb_dir)
    with stage_progress(disable=quiet or as_json) as progress:
        res = Experiment(systems, queries, qrels, metrics, baseline=baseline, test=test,
                         correction=correction, alpha=alpha, per_query=per_query,
                         n_permutations=permutations, seed=seed, progress=progress)
    written = _write_outputs(res, csv_out, latex_out, plot, title=qrels_path.name)
    if as_json:
        print_json({"qrels": str(qrels_path), **res.to_dict(), "files": written})
        return
    if per_query:
        print_table(res.per_query_rows(), title="per query")
    print_table(res.table_rows(), title=f"{qrels_path.name} ({len(res.query_ids)} queries)")
    if not quiet:
        console.print(res.caption(), markup=False, highlight=False)
        for kind, path in written.items():
            console.print(f"{kind} written to {path}", markup=False, highlight=False)


def _write_outputs(
    res: Any, csv_out: Path | None, latex_out: Path | None, plot: Path | None, title: str
) -> dict[str, str]:
    written: dict[str, str] = {}
    if csv_out is not None:
        res.to_csv(csv_out)
        written["csv"] = str(csv_out)
    if latex_out is not None:
        res.to_latex(latex_out)
        written["latex"] = str(latex_out)
    if plot is not None:
        res.plot(plot, title=title)
        written["plot"] = str(plot)
    return written


def register(app: typer.Typer) -> None:
    """Add ``skb experiment`` to ``app``."""
    app.command("experiment")(handle_errors(device_options(experiment_cmd)))

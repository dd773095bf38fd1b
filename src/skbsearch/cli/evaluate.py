"""`skb eval` (metrics of TREC runs against qrels) and `skb stats queries` (query-set stats)."""

from __future__ import annotations

from pathlib import Path

import typer

from skbsearch.cli.arguments import plot_option
from skbsearch.cli.output import console, handle_errors, print_json, print_table
from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels

stats_app = typer.Typer(help="Statistics of data sets.", no_args_is_help=True)


def load_qrels(path: Path) -> Qrels:
    """Read qrels as TREC (``qid iter docid grade``) or JSON (``{qid: {docid: grade}}``)."""
    if not path.is_file():
        raise FileNotFoundError(f"qrels file not found: {path}")
    with path.open("rb") as fh:
        head = fh.read(256).decode("utf-8", errors="replace").lstrip()
    if path.suffix.lower() == ".json" or head.startswith("{"):
        try:
            return Qrels.from_json(path)
        except (TypeError, ValueError, AttributeError) as e:
            if isinstance(e, InputError):
                raise
            raise InputError(
                f"expected JSON {{qid: {{docid: grade}}}} with integer grades ({e})", file=path
            ) from None
    return Qrels.from_trec(path)


def eval_command(
    files: list[Path] = typer.Argument(
        ...,
        help="One or more TREC run files ('qid Q0 docid rank score tag'), then the qrels "
        "file (TREC 'qid iter docid grade' or JSON {qid: {docid: grade}}).",
        metavar="RUN... QRELS",
    ),
    metrics: str = typer.Option(
        "ndcg@10,mrr@10,recall@100",
        "--metrics",
        "-m",
        help="Comma-separated: hit@k recall@k precision@k mrr mrr@k map map@k ndcg@k "
        "mrr_all mhits@k mtrr tmhits@k.",
    ),
    per_query: bool = typer.Option(False, "--per-query", help="Also show per-query values."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON for machines."),
    plot: Path | None = typer.Option(
        None, "--plot", help="Write a bar chart comparing runs (format from the suffix: .png, "
        ".svg, .pdf, ...).", callback=plot_option),
    min_grade: int = typer.Option(1, "--min-grade", help="Smallest grade counted as relevant."),
    gains: str = typer.Option("linear", "--gains", help="nDCG gains: linear (trec_eval) or exp."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress output."),
) -> None:
    """Evaluate TREC runs against qrels, as trec_eval does.

    Ties by doc id descending; qrels queries missing from a run score 0; a grade >=
    --min-grade is relevant.
    """
    from rich.progress import Progress

    from skbsearch.core.types import Run
    from skbsearch.eval.evaluate import evaluate, parse_metrics
    from skbsearch.eval.report import plot_results, results_table

    if len(files) < 2:
        raise InputError("give at least one RUN file and then the QRELS file", field="files")
    *run_paths, qrels_path = files
    specs = parse_metrics(metrics)
    names = [s.name for s in specs]
    results: dict[str, dict[str, float]] = {}
    per_q: dict[str, dict[str, dict[str, float]]] = {}
    with Progress(transient=True, disable=quiet or as_json, console=console) as progress:
        task = progress.add_task("evaluating", total=len(run_paths) + 1)
        qrels = load_qrels(qrels_path)
        progress.advance(task)
        for p in run_paths:
            if not p.is_file():
                raise FileNotFoundError(f"run file not found: {p}")
            run = Run.from_trec(p)
            name = _unique(run.name, results)
            opts = {"min_grade": min_grade, "gains": gains, "complete": True}  # trec_eval -c
            results[name] = evaluate(run, qrels, names, **opts)
            if per_query:
                per_q[name] = evaluate(run, qrels, names, per_query=True, **opts)
            progress.advance(task)
    if plot is not None:
        plot_results(results, plot, names, title=qrels_path.name)
    if as_json:
        payload: dict = {"qrels": str(qrels_path), "queries": len(qrels), "metrics": names}
        payload["results"] = results
        if per_query:
            payload["per_query"] = per_q
        if plot is not None:
            payload["plot"] = str(plot)
        print_json(payload)
        return
    if per_query:
        rows = [
            {"run": name, "query": qid, **vals} if len(per_q) > 1 else {"query": qid, **vals}
            for name, table in per_q.items()
            for qid, vals in table.items()
        ]
        print_table(rows, title="per query")
    console.print(results_table(results, names, title=f"{qrels_path.name} ({len(qrels)} queries)"))
    if plot is not None and not quiet:
        console.print(f"plot written to {plot}", markup=False)


def _unique(name: str, taken: dict) -> str:
    out, n = name, 2
    while out in taken:
        out, n = f"{name}-{n}", n + 1
    return out


@stats_app.command("queries")
@handle_errors
def stats_queries(
    file: Path = typer.Argument(
        ..., help="CSV with a 'query' column (STaRK: id,query,answer_ids)."
    ),
    tokenizer: str = typer.Option(
        "whitespace",
        "--tokenizer",
        help="whitespace (default; case and punctuation kept, reproduces STaRK Table 4), "
        "lower, or words (\\w+, lowercased).",
    ),
    ttr_stopwords: str = typer.Option(
        "nltk",
        "--ttr-stopwords",
        help="Stopwords left out of the type-token ratio: nltk (default, reproduces STaRK) or none.",
    ),
    query_column: str = typer.Option("query", "--query-column", help="The CSV column holding the queries."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON for machines."),
) -> None:
    """Query length, answers per query, word entropy (bits, whole set) and type-token ratio,
    as STaRK (Table 4) defines them."""
    from skbsearch.eval.query_stats import query_file_stats

    if not file.is_file():
        raise FileNotFoundError(f"query file not found: {file}")
    stats = query_file_stats(file, tokenizer=tokenizer, ttr_stopwords=ttr_stopwords,
                             query_field=query_column)
    if as_json:
        print_json({"file": str(file), **stats.to_dict()})
        return
    rows = [{"statistic": k, "value": v} for k, v in stats.to_dict().items() if v is not None]
    print_table(rows, title=str(file))


def register(app: typer.Typer) -> None:
    """Add ``skb eval`` and ``skb stats queries`` to ``app``."""
    app.command("eval")(handle_errors(eval_command))
    app.add_typer(stats_app, name="stats")

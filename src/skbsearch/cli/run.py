"""`skb run`: run a pipeline over a query file, write a TREC run, optionally evaluate it."""

from __future__ import annotations

import contextlib
import re
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from skbsearch.cli.arguments import output_option
from skbsearch.cli.output import (
    console,
    device_options,
    err_console,
    handle_errors,
    print_json,
    print_table,
)
from skbsearch.core.errors import InputError

QueriesOpt = Annotated[Path, typer.Option(
    "--queries", help="Query file: JSONL (id/text), CSV or TSV with a header (STaRK: "
    "id,query,answer_ids), TREC topics 'id<TAB>text', or one query a line.")]
IdFieldOpt = Annotated[str | None, typer.Option(
    "--id-field", help="Query id column/key (default: id, qid, query_id or _id).")]
TextFieldOpt = Annotated[str | None, typer.Option(
    "--text-field", help="Query text column/key (default: text, query, question or query_text).")]
MetricsOpt = Annotated[str, typer.Option(
    "--metrics", "-m", help="Comma-separated: hit@k recall@k precision@k mrr mrr@k map map@k "
    "ndcg@k mrr_all mhits@k mtrr tmhits@k.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")]

_NAME = re.compile(r"^[\w.\-]+$")


def split_named(value: str, option: str) -> tuple[str | None, str]:
    """``"NAME=VALUE"`` -> ``(NAME, VALUE)``; ``(None, value)`` when no plain name precedes
    the first ``=`` (so ``bm25(k=10)`` is a spec, not a name)."""
    name, sep, rest = value.partition("=")
    if sep and _NAME.match(name.strip()) and rest.strip():
        return name.strip(), rest.strip()
    if not value.strip():
        raise InputError("empty value; write NAME=VALUE", field=option)
    return None, value.strip()


def load_queries(path: Path, id_field: str | None, text_field: str | None) -> list[Any]:
    """The query file as :class:`Query` objects (see ``--queries``)."""
    from skbsearch.datasets import read_queries

    return read_queries(path, id_field=id_field, text_field=text_field)


def build_pipeline(spec: str, kb: Any) -> Any:
    """The stage a pipeline spec describes, built against ``kb`` (an SKB)."""
    try:
        from skbsearch.stages import pipeline
    except ImportError:
        raise InputError("pipelines need skbsearch.stages, which this installation lacks; "
                         "evaluate saved runs with --run NAME=FILE", field="--pipeline") from None
    return pipeline(spec, kb)


def load_skb(skb_dir: Path | None) -> Any:
    """Open the SKB directory pipelines run on."""
    from skbsearch.kb.store import SKB

    if skb_dir is None:
        raise InputError("pipelines run on an SKB: give its directory as the first argument",
                         field="SKB")
    if not skb_dir.is_dir():
        raise FileNotFoundError(f"SKB directory not found: {skb_dir}")
    return SKB.load(skb_dir)


def prepare_pipeline(stage: Any, quiet: bool) -> float:
    """Set up the pipeline's stages (indexes, name tables, type graph) before the queries,
    with a note while it runs; the seconds it took (reported apart from ms a query)."""
    from skbsearch.core.stage import prepare

    start = time.perf_counter()
    with err_console.status("setting up the pipeline (indexes, name tables)", spinner="dots") \
            if not quiet and err_console.is_terminal else contextlib.nullcontext():
        prepare(stage)
    return time.perf_counter() - start


def run_batched(stage: Any, queries: list[Any], batch_size: int, quiet: bool) -> tuple[Any, float]:
    """Run ``stage`` over ``queries`` in batches with a progress bar; (run, seconds)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from skbsearch.core.types import Run

    merged: dict[str, dict[str, float]] = {}
    start = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=err_console,
                  transient=True, disable=quiet) as bar:
        task = bar.add_task("queries", total=len(queries))
        for i in range(0, len(queries), batch_size):
            batch = queries[i:i + batch_size]
            out = stage(batch)
            if not isinstance(out, dict):
                raise InputError(f"the pipeline returned {type(out).__name__}, not a run",
                                 field="--pipeline")
            merged.update(out)
            bar.advance(task, len(batch))
    return Run(merged), time.perf_counter() - start


def run_cmd(
    skb_dir: Annotated[Path, typer.Argument(help="An SKB directory (from 'skb kb build').")],
    queries_path: QueriesOpt,
    spec: Annotated[str, typer.Option("--pipeline", "-p", help="Pipeline spec, e.g. "
                                      "\"bm25(k=200) >> cross-encoder % 10\".")],
    save_run: Annotated[Path | None, typer.Option(
        "--save-run", help="Write the TREC run here (never over an input file or into an SKB or "
        "index directory; written whole or not at all). Optional with --qrels.",
        callback=output_option)] = None,
    qrels_path: Annotated[Path | None, typer.Option(
        "--qrels", help="Evaluate against these qrels: TREC, JSON or a query file with an "
        "answers column (STaRK CSV).")] = None,
    metrics: MetricsOpt = "ndcg@10,mrr@10,recall@100,hit@1,hit@10,mrr",
    k: Annotated[int, typer.Option("--k", "-k", min=1, help="Candidates kept a query.")] = 100,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1,
                                            help="Queries a pipeline call.")] = 64,
    tag: Annotated[str | None, typer.Option(help="TREC run tag (default: the file's stem).")] = None,
    id_field: IdFieldOpt = None,
    text_field: TextFieldOpt = None,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Run a pipeline over a query file: write its TREC run (--save-run), print its metrics
    (--qrels), or both."""
    from skbsearch.eval.evaluate import evaluate, parse_metrics

    if save_run is None and qrels_path is None:
        raise InputError("nothing to do: give --save-run FILE (the TREC run), --qrels FILE "
                         "(its metrics), or both", field="--save-run")

    queries = load_queries(queries_path, id_field, text_field)
    names = [s.name for s in parse_metrics(metrics)] if qrels_path is not None else []
    qrels = _judged_qrels(qrels_path, queries) if qrels_path is not None else None
    run_tag = tag or (save_run.stem if save_run is not None else "skb")
    if not run_tag or any(ch.isspace() for ch in run_tag):
        raise InputError(f"a TREC run tag has no spaces, got {run_tag!r}", field="--tag")
    stage = build_pipeline(spec, load_skb(skb_dir))
    setup = prepare_pipeline(stage, quiet or as_json)
    run, seconds = run_batched(stage, queries, batch_size, quiet or as_json)
    run = run.top(k)
    if save_run is not None:
        save_run.parent.mkdir(parents=True, exist_ok=True)
        run.to_trec(save_run, tag=run_tag)
    summary: dict[str, Any] = {
        "skb": str(skb_dir), "pipeline": repr(stage), "queries": len(queries),
        "run": str(save_run) if save_run is not None else None, "k": k, "seconds": round(seconds, 3),
        "ms_per_query": round(1000.0 * seconds / max(1, len(queries)), 3),
        "setup_seconds": round(setup, 3),
    }
    if qrels is not None:
        summary["qrels"] = str(qrels_path)
        summary["judged_queries"] = len(qrels)
        summary["results"] = evaluate(run, qrels, names)
    if as_json:
        print_json(summary)
        return
    if not quiet:
        what = (f"wrote {len(run)} queries × ≤{k} candidates to {save_run}" if save_run is not None
                else f"ran {len(run)} queries × ≤{k} candidates (not saved: --save-run FILE keeps them)")
        console.print(f"{what} ({summary['ms_per_query']} ms a query; set-up {summary['setup_seconds']} s "
                      "before the first)", markup=False, highlight=False)
    if qrels is not None:
        print_table([{"pipeline": summary["pipeline"], **summary["results"]}],
                    title=f"{queries_path.name} ({len(qrels)} judged queries)")


def _judged_qrels(path: Path, queries: list[Any]) -> Any:
    """The qrels of the queries in the query file (an error when none is judged)."""
    from skbsearch.core.types import Qrels
    from skbsearch.datasets import read_qrels

    qrels = read_qrels(path)
    ids = {q.id for q in queries}
    judged = Qrels({q: d for q, d in qrels.items() if q in ids})
    if not judged:
        raise InputError(f"none of the {len(ids)} queries has qrels here; check that the "
                         "query ids match the qrels' ids", file=path)
    return judged


def register(app: typer.Typer) -> None:
    """Add ``skb run`` to ``app``."""
    app.command("run")(handle_errors(device_options(run_cmd)))

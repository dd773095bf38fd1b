"""The options every ``skb bench ...`` command shares, with one name and one help text each.

A benchmark command declares them with these factories (``pipeline: list[str] | None =
bench_options.pipeline_option(...)``), so that ``--pipeline`` (repeatable: one result a
spec), ``--cv-folds``, ``--fold-seed``, ``--limit``, ``--split``, ``--cache``, ``--json`` and
``-q/--quiet`` mean the same thing in every benchmark; ``--device`` / ``--precision`` are
:data:`skbsearch.cli.output.DeviceOpt` / ``PrecisionOpt``. :func:`specs_or` gives the
specs to run (one result each), :func:`save_results` writes one JSON result (a list of
them for several specs) and :func:`show_results` saves them, then prints them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import typer

from skbsearch.cli.arguments import output_option
from skbsearch.cli.output import console, print_json
from skbsearch.core.errors import InputError

#: The help text of ``--pipeline`` before the benchmark's own sentence.
PIPELINE_HELP = ("A pipeline spec in the language of 'skb run' (see 'skb stages'); repeat it "
                 "to compare pipelines (one result a spec).")


def pipeline_option(what: str) -> Any:
    """``--pipeline SPEC`` (repeatable); ``what``: what the spec runs over, its default."""
    return typer.Option(None, "--pipeline", metavar="<spec>", help=f"{PIPELINE_HELP} {what}")


def cv_folds_option(default: int | None) -> Any:
    """``--cv-folds N``: query-level cross-validation of the pipeline's trainable stages."""
    return typer.Option(default, "--cv-folds", min=2, help=(
        "Fit the pipeline's trainable stages (cross-encoder-ft, gnn-row) with N-fold "
        "query-level cross-validation: each query is scored by a model that never saw it."))


def fold_seed_option() -> Any:
    """``--fold-seed N``: the seed of the query folds."""
    return typer.Option(0, "--fold-seed", help="Seed of the query folds (--cv-folds).")


def limit_option(what: str = "") -> Any:
    """``--limit N``: score only the first N queries (``what``: per what, if anything)."""
    return typer.Option(None, "--limit", min=1, help=f"Score only the first N queries{what}.")


def split_option(default: str, choices: str) -> Any:
    """``--split NAME``: which queries (and judgements) the protocol scores."""
    return typer.Option(default, "--split", help=f"Which queries to score: {choices}.")


def cache_option() -> Any:
    """``--cache DIR``: where dense embeddings (and GNN rows) are cached."""
    return typer.Option(None, "--cache", help=(
        "Embedding cache of dense indexes (default ~/.cache/skbsearch/embeddings); GNN rows "
        "cache under ~/.cache/skbsearch ($SKB_CACHE_DIR)."))


def json_option() -> Any:
    """``--json PATH`` (``-``: stdout)."""
    return typer.Option(None, "--json", callback=output_option, help=(
        "Write the result as JSON to this file ('-': stdout); with several --pipeline, a "
        "JSON list of results in their order."))


def quiet_option() -> Any:
    """``-q/--quiet``."""
    return typer.Option(False, "--quiet", "-q", help="No progress bar or table.")


def specs_or(pipelines: Sequence[str] | None, default: str | None) -> list[str | None]:
    """The ``--pipeline`` values, or ``[default]`` when none is given (empty specs refused)."""
    specs = list(pipelines or [])
    for spec in specs:
        if not spec.strip():
            raise InputError("--pipeline is empty; give a spec such as 'bm25'", field="pipeline")
    return specs or [default]


def save_results(results: Sequence[Any], json_out: Path | None) -> bool:
    """Write the results to ``json_out`` (``-``: stdout): one result as an object, several
    as a list. True when they went to stdout (print nothing else then)."""
    if json_out is None:
        return False
    data: Any = (results[0].to_dict() if len(results) == 1
                 else [r.to_dict() for r in results])
    if str(json_out) == "-":
        print_json(data)
        return True
    if len(results) == 1:
        results[0].to_json(json_out)
    else:
        import json

        from skbsearch.core.outfile import write_output

        write_output(json_out, json.dumps(data, indent=2, default=str) + "\n")
    return False


def show_results(results: Sequence[Any], json_out: Path | None, quiet: bool,
                 show: Callable[[Any], None]) -> None:
    """Save the results (:func:`save_results`); unless they went to stdout or ``quiet``,
    print each with ``show``, then the file the JSON went to."""
    if save_results(results, json_out) or quiet:
        return
    for result in results:
        show(result)
    if json_out is not None:
        console.print(f"wrote {json_out}", highlight=False, markup=False)

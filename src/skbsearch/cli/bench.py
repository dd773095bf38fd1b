"""`skb bench ...`: benchmark commands, one sibling module a benchmark.

Each ``bench_<name>.py`` module adds its command to :data:`bench_app` when imported
(``@bench_app.command("<name>")``); to add a benchmark, write the module and add one
name to ``BENCHMARKS``.
"""

from __future__ import annotations

import importlib

import typer

bench_app = typer.Typer(
    name="bench",
    help="Run a benchmark's official protocol and print (or save) its numbers.",
    no_args_is_help=True,
)

#: One name a benchmark: ``skbsearch.cli.bench_<name>`` registers its command on ``bench_app``.
BENCHMARKS = ("impliret", "metaqa", "trecdl", "stark")


def register(app: typer.Typer) -> None:
    """Add the ``bench`` command group (with every benchmark's command) to ``app``."""
    for name in BENCHMARKS:
        importlib.import_module(f"skbsearch.cli.bench_{name}")
    app.add_typer(bench_app, name="bench")

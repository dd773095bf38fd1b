"""`skb bench ...`: benchmark commands, one sibling module a benchmark.

Each ``bench_<name>.py`` module adds its command to :data:`bench_app` when imported
(``@bench_command("<name>")``); to add a benchmark, write the module and add one
name to ``BENCHMARKS``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import typer

from skbsearch.cli.output import F, device_options, handle_errors

bench_app = typer.Typer(
    name="bench",
    help="Run a benchmark's official protocol and print (or save) its numbers.",
    no_args_is_help=True,
)

#: One name a benchmark: ``skbsearch.cli.bench_<name>`` registers its command on ``bench_app``.
BENCHMARKS = ("impliret", "metaqa", "trecdl", "stark")


def bench_command(name: str, **settings: Any) -> Callable[[F], F]:
    """Register a function as ``skb bench NAME`` (``settings``: typer's command settings) with
    what every benchmark has: its arguments checked and its errors one clean line
    (:func:`handle_errors`), ``--device`` and ``--precision`` (:func:`device_options`)."""

    def add(fn: F) -> F:
        bench_app.command(name, **settings)(handle_errors(device_options(fn)))
        return fn

    return add


def register(app: typer.Typer) -> None:
    """Add the ``bench`` command group (with every benchmark's command) to ``app``."""
    for name in BENCHMARKS:
        importlib.import_module(f"skbsearch.cli.bench_{name}")
    app.add_typer(bench_app, name="bench")

"""`skb bench ...`: benchmark commands, one sibling module a benchmark.

Each ``bench_<name>.py`` module adds its command to :data:`bench_app` when imported
(``@bench_app.command("<name>")``); to add a benchmark, write the module and add one
import line below.
"""

from __future__ import annotations

import typer

bench_app = typer.Typer(
    name="bench",
    help="Run a benchmark's official protocol and print (or save) its numbers.",
    no_args_is_help=True,
)

# One line a benchmark (each module registers its command on ``bench_app``).
from skbsearch.cli import bench_metaqa  # noqa: E402,F401


def register(app: typer.Typer) -> None:
    """Add the ``bench`` command group to ``app``."""
    app.add_typer(bench_app, name="bench")

"""Shared CLI output: rich tables for humans, JSON for machines, clean errors."""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from skbsearch.errors import SkbError

console = Console()
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def handle_errors(fn: F) -> F:
    """Turn :class:`SkbError` (and missing files) into a one-line message and exit code 2."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (SkbError, FileNotFoundError, FileExistsError) as e:
            err_console.print(f"[bold red]error:[/] {e}", highlight=False, markup=True)
            raise typer.Exit(2) from None

    return wrapper  # type: ignore[return-value]


def print_json(obj: Any) -> None:
    """Print JSON to stdout (no rich markup)."""
    sys.stdout.write(json.dumps(obj, indent=2, default=str) + "\n")


def print_table(
    rows: Sequence[dict[str, Any]],
    title: str | None = None,
    columns: Sequence[str] | None = None,
    floatfmt: str = "{:.4f}",
) -> None:
    """Print rows of dicts as a rich table (floats formatted with ``floatfmt``)."""
    cols = list(columns or (rows[0].keys() if rows else []))
    table = Table(title=title, show_lines=False)
    for c in cols:
        table.add_column(str(c), overflow="fold")
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c, "")
            cells.append(floatfmt.format(v) if isinstance(v, float) else str(v))
        table.add_row(*cells)
    console.print(table)


@contextlib.contextmanager
def stage_progress(disable: bool = False) -> Iterator[Callable[[str, int, int], None]]:
    """A transient progress display and its ``progress(stage, done, total)`` callback.

    One bar a stage; a stage named ``"name (detail)"`` keeps its bar while the detail changes.
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(),
                  TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                  console=console, transient=True, disable=disable) as bar:
        tasks: dict[str, Any] = {}

        def progress(stage: str, done: int, total: int) -> None:
            key = stage.split(" (")[0]
            if key not in tasks:
                tasks[key] = bar.add_task(stage, total=total)
            bar.update(tasks[key], completed=done, total=total, description=stage)

        yield progress


def save_result(result: Any, json_out: Path | None) -> bool:
    """Write a benchmark result to ``json_out`` (``-``: stdout). True when it went to stdout."""
    if json_out is not None and str(json_out) == "-":
        print_json(result.to_dict())
        return True
    if json_out is not None:
        result.to_json(json_out)
    return False

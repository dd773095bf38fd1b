"""Shared CLI output: rich tables for humans, JSON for machines, clean errors.

The console and :func:`print_table` are defined in :mod:`skbsearch.eval.report` (so reports and
benchmark results print without importing the CLI) and re-exported here.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import math
import numbers
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from skbsearch.cli.arguments import check_arguments
from skbsearch.core.errors import SkbError
from skbsearch.core.progress import ProgressFn
from skbsearch.eval.report import console, print_table  # noqa: F401 (re-exported)

err_console = Console(stderr=True)

DeviceOpt = Annotated[str | None, typer.Option(
    "--device", help="Where models run: auto | cpu | cuda | cuda:N (default: $SKBSEARCH_DEVICE, "
    "else auto: a GPU when torch sees one).")]
PrecisionOpt = Annotated[str | None, typer.Option(
    "--precision", help="Model precision: fp32 | fp16 | bf16 (default: fp32 on the CPU, fp16 "
    "on a GPU).")]


def apply_device(device: str | None, precision: str | None = None) -> Any:
    """Check ``--device``/``--precision`` (a device that is not there is a one-line error)
    and make them the default of every model this command runs."""
    from skbsearch.core.devices import set_default_device

    return set_default_device(device, precision)


F = TypeVar("F", bound=Callable[..., Any])


def device_options(fn: F) -> F:
    """Give a command ``--device`` and ``--precision`` (:data:`DeviceOpt`, :data:`PrecisionOpt`)
    and apply them (:func:`apply_device`) before its body runs; the body does not see them.

    They are listed before ``--quiet`` when the command has a ``quiet`` parameter, else last.
    Put it under ``@handle_errors`` so that a device that is not there is a one-line error.
    """
    sig = inspect.signature(fn, eval_str=True)
    params = list(sig.parameters.values())
    at = next((i for i, p in enumerate(params) if p.name == "quiet"), len(params))
    added = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                               annotation=ann)
             for name, ann in (("device", DeviceOpt), ("precision", PrecisionOpt))]
    params[at:at] = added

    @functools.wraps(fn)
    def wrapper(*args: Any, device: str | None = None, precision: str | None = None,
                **kwargs: Any) -> Any:
        apply_device(device, precision)
        return fn(*args, **kwargs)

    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {**fn.__annotations__, "device": DeviceOpt,
                               "precision": PrecisionOpt}
    return wrapper  # type: ignore[return-value]


def handle_errors(fn: F) -> F:
    """Check the command's arguments (:func:`skbsearch.cli.arguments.check_arguments`: text
    is UTF-8, output files clobber no input), run it, and turn :class:`SkbError` (and missing
    files, and text that is not UTF-8) into a one-line message and exit code 2; running out of
    memory is a one-line message and exit code 1, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            check_arguments(kwargs)
            return fn(*args, **kwargs)
        except (SkbError, FileNotFoundError, FileExistsError, UnicodeError) as e:
            msg = str(e)
            if isinstance(e, UnicodeError):  # a reader that does not name its file yet
                msg = f"text that is not valid UTF-8 ({getattr(e, 'reason', e)})"
            # The message quotes user data (ids, queries, paths): never parse it as markup;
            # and it may quote undecodable bytes: print them escaped.
            msg = msg.encode("utf-8", "backslashreplace").decode("utf-8")
            err_console.print(Text.assemble(("error:", "bold red"), " ", msg), highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except MemoryError:  # what the readers bound still cannot exceed memory: say so, briefly
            err_console.print(Text.assemble(("error:", "bold red"), " out of memory; the input is "
                                            "too large for this machine's memory"), highlight=False)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def json_safe(obj: Any) -> Any:
    """``obj`` with NaN and infinite floats replaced by ``None`` (valid JSON: ``null``)."""
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, numbers.Real) and not isinstance(obj, numbers.Integral):
        return float(obj) if math.isfinite(float(obj)) else None
    return obj


def print_json(obj: Any) -> None:
    """Print JSON to stdout (no rich markup); NaN and infinities become ``null``."""
    sys.stdout.write(json.dumps(json_safe(obj), indent=2, default=str, allow_nan=False) + "\n")


def text(value: Any) -> Text:
    """``value`` as literal rich text: brackets in data are shown, never parsed as markup."""
    return Text(str(value))


@contextlib.contextmanager
def stage_progress(disable: bool = False, min_interval: float = 2.0) -> Iterator[ProgressFn]:
    """A progress display on stderr and its ``progress(stage, done, total)`` callback
    (the protocol of :mod:`skbsearch.core.progress`).

    On a terminal: one transient bar a stage; a stage named ``"name (detail)"`` keeps its
    bar while the detail changes. Elsewhere (a log, a pipe): plain lines, at most one a
    stage every ``min_interval`` seconds, and each stage's last.
    """
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    if not disable and not err_console.is_terminal:
        yield _line_progress(min_interval)
        return
    with Progress(TextColumn("{task.description}"), BarColumn(),
                  TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                  console=err_console, transient=True, disable=disable) as bar:
        tasks: dict[str, Any] = {}

        def progress(stage: str, done: int, total: int) -> None:
            key = stage.split(" (")[0]
            if key not in tasks:
                tasks[key] = bar.add_task(stage, total=total)
            bar.update(tasks[key], completed=done, total=total, description=stage)

        yield progress


def _line_progress(min_interval: float) -> ProgressFn:
    """``progress(stage, done, total)`` printing throttled plain lines to stderr."""
    import sys
    import time

    start = time.perf_counter()
    last: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        key = stage.split(" (")[0]
        final = bool(total) and done >= total
        if not final and now - last.get(key, -min_interval) < min_interval:
            return
        last[key] = now
        of = f"/{total}" if total else ""
        print(f"[{now - start:6.1f} s] {stage}: {done}{of}", file=sys.stderr, flush=True)

    return progress


def save_result(result: Any, json_out: Path | None) -> bool:
    """Write a benchmark result to ``json_out`` (``-``: stdout). True when it went to stdout."""
    if json_out is not None and str(json_out) == "-":
        print_json(result.to_dict())
        return True
    if json_out is not None:
        result.to_json(json_out)
    return False

"""Checks on every command's arguments before its body runs (``output.handle_errors`` calls
:func:`check_arguments`), so that no command repeats them:

- **text**: every string and path argument is UTF-8 text. Python hands command-line bytes
  that are not UTF-8 (``--where $'name = \\'\\xff\\''``) to the program as lone surrogates,
  which fail later, deep inside, with a traceback; here they fail first, naming the option.
- **output files**: an option declared with ``callback=output_option`` (or ``plot_option``
  for an image) names a file that is not a directory, not one of the command's inputs (any
  other path argument, ``NAME=FILE`` values included), not inside an SKB, index or other
  artefact directory (:func:`skbsearch.core.outfile.check_output_file`), and not the file
  another output option names; a plot's suffix is a format matplotlib writes. An output
  *directory* (``callback=output_dir_option``, or ``artefact_dir_option(KIND)`` for one the
  command replaces whole) goes through :func:`skbsearch.core.outfile.check_output_dir`: not
  a file, not inside an artefact, not an input or a parent of one, and (with a kind) not a
  non-empty directory that is not that artefact, nor one the command's ``--force`` was not
  given for. All before any work is done, so a mistyped option costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer

try:  # typer >= 0.20 carries its own copy of click: its context is the one commands run in
    from typer._click.globals import get_current_context
except ImportError:  # pragma: no cover - older typer on the click package
    from click import get_current_context

from skbsearch.core.errors import InputError
from skbsearch.core.outfile import check_output_dir, check_output_file

#: ``ctx.meta`` key: {parameter name: "file" | "plot"} of the command's output options.
OUTPUTS_KEY = "skbsearch.outputs"


def _mark(ctx: typer.Context, param: typer.CallbackParam, kind: str) -> None:
    if param.name:
        ctx.meta.setdefault(OUTPUTS_KEY, {})[param.name] = kind


def output_option(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
    """Option callback declaring an output file (``typer.Option(..., callback=output_option)``)."""
    _mark(ctx, param, "file")
    return value


def plot_option(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
    """Option callback declaring an output image (its suffix must be a plot format)."""
    _mark(ctx, param, "plot")
    return value


def output_dir_option(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
    """Callback declaring an output directory (:func:`skbsearch.core.outfile.check_output_dir`)."""
    _mark(ctx, param, "dir")
    return value


def artefact_dir_option(kind: str) -> Callable[[typer.Context, typer.CallbackParam, Any], Any]:
    """Callback declaring an output directory that the command replaces whole with an
    artefact of ``kind`` (``"skb"``, ``"fit"``...): checked by
    :func:`skbsearch.core.outfile.check_output_dir` with that kind and the command's
    ``--force`` (when it has one) before the command runs."""

    def callback(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
        _mark(ctx, param, f"dir:{kind}")
        return value

    return callback


def check_text(value: str, field: str) -> None:
    """Raise :class:`InputError` naming ``field`` when ``value`` is not UTF-8 text."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        code = ord(value[e.start])
        what = (f"byte 0x{code - 0xDC00:02x}, which is not UTF-8," if 0xDC80 <= code <= 0xDCFF
                else f"an unpaired surrogate (U+{code:04X})")
        raise InputError(f"has {what} at character {e.start + 1}; give UTF-8 text",
                         field=field) from None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, (str, Path)):
        yield str(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def _existing_paths(value: Any) -> Iterator[Path]:
    """Paths named by an argument value: path values, and strings (or ``NAME=FILE``) that
    name an existing file or directory."""
    if isinstance(value, Path):
        yield value
        return
    for text in _strings(value):
        for cand in {text, text.partition("=")[2]}:
            try:
                if cand and Path(cand).exists():
                    yield Path(cand)
            except (OSError, ValueError):  # too long, an embedded NUL: not a path
                continue


def _label(param: Any, name: str) -> str:
    """How the user wrote the parameter: its longest option name, or the argument's name."""
    if param is None:
        return name
    if getattr(param, "param_type_name", "") == "option" and param.opts:
        return max(param.opts, key=len)
    return str(getattr(param, "metavar", None) or (param.name or name).upper())


def check_arguments(values: dict[str, Any]) -> None:
    """Check a command's parsed arguments (``{parameter name: value}``); see the module doc.

    Raises:
        InputError: naming the option at fault.
    """
    ctx = get_current_context(silent=True)
    params = {p.name: p for p in ctx.command.params} if ctx is not None else {}
    outputs: dict[str, str] = dict(ctx.meta.get(OUTPUTS_KEY, {})) if ctx is not None else {}
    for name, value in values.items():
        for text in _strings(value):
            if not text.isascii():  # (ASCII is always fine: skip the encoding on most values)
                check_text(text, _label(params.get(name), name))
    inputs = [p for name, v in values.items() if name not in outputs for p in _existing_paths(v)]
    seen: dict[Path, str] = {}
    for name, kind in outputs.items():
        value = values.get(name)
        if value is None or str(value) == "-":
            continue
        label = _label(params.get(name), name)
        if kind == "dir" or kind.startswith("dir:"):
            force = values.get("force") if isinstance(values.get("force"), bool) else None
            check_output_dir(value, inputs=inputs, field=label, kind=kind[4:] or None,
                             force=force if kind != "dir" else None)
            continue
        real = check_output_file(value, inputs=inputs, field=label)
        if real in seen:
            raise InputError(f"names the same file as {seen[real]}; give each output its own "
                             "file", file=value, field=label)
        seen[real] = label
        if kind == "plot":
            from skbsearch.eval.report import plot_format

            plot_format(value, field=label)

"""The ``skb`` command line (typer + rich).

Each command group lives in its own module with a ``register(app)`` function.
"""

from __future__ import annotations

import contextlib
import importlib
import sys

import typer

from skbsearch.cli.help_format import fold_help_text

fold_help_text()  # help wraps to the terminal; a long word folds, never cut with '…'

app = typer.Typer(
    name="skb",
    help="skbsearch: retrieval and re-ranking over semi-structured knowledge bases.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Command bodies import skbsearch modules inside the function on purpose (an exception to the
# module-level-imports rule, docs/architecture.md "Layers"): `skb --help` stays fast.
#: Modules that add commands; imported lazily-light (heavy deps load inside commands).
COMMAND_MODULES = ("kb", "kb_update", "synth", "search", "encoders", "stages", "evaluate", "run", "experiment", "bench", "train", "fit", "serve", "demo", "env")


def _register_all() -> None:
    for name in COMMAND_MODULES:
        mod = importlib.import_module(f"skbsearch.cli.{name}")
        mod.register(app)


_register_all()


def main() -> None:
    """Console-script entry point. Text that cannot be encoded for the terminal (a file name
    with bytes that are not UTF-8, echoed in a usage error) prints escaped, never as a
    traceback; arguments themselves are checked by ``output.handle_errors``."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    app()

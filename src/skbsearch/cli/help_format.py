"""How ``skb … --help`` lays out text: wrapped to the terminal, never cut.

Typer prints help through rich tables sized to the terminal (``$COLUMNS``, or 80 columns
when the output is not a terminal). A word longer than its column (an option's
``bm25|dense|multivector`` list, a default such as ``ndcg@10,mrr@10,…``) was cut with
``…``; every help text, default and note is made to fold such a word onto the next line
instead, so nothing of it is lost at any width.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

#: The rich overflow of help text: fold a word longer than its column, never cut it.
HELP_OVERFLOW = "fold"

#: typer.rich_utils functions that return help text (a rich ``Text`` or ``Columns`` of them).
_HELP_BUILDERS = ("_make_rich_text", "_get_parameter_help")
#: typer.rich_utils highlighters that make the option-name and type cells.
_HIGHLIGHTERS = ("highlighter", "negative_highlighter", "types_highlighter")


def _fold(renderable: Any) -> Any:
    """Set :data:`HELP_OVERFLOW` on a rich ``Text`` and on the texts of a ``Columns``."""
    if hasattr(renderable, "overflow"):  # rich Text (Markdown wraps by itself)
        renderable.overflow = HELP_OVERFLOW
    for part in getattr(renderable, "renderables", None) or ():
        _fold(part)
    return renderable


def _folding(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return _fold(fn(*args, **kwargs))

    wrapper._skb_folds = True  # type: ignore[attr-defined]
    return wrapper


def fold_help_text() -> None:
    """Make typer's help texts (commands' and options', with their defaults) fold long
    words instead of cutting them; idempotent, and a no-op without typer's rich help."""
    try:
        from typer import rich_utils
    except ImportError:  # typer without rich: click's plain help wraps and never cuts
        return
    for name in _HELP_BUILDERS:
        fn = getattr(rich_utils, name, None)
        if fn is not None and not getattr(fn, "_skb_folds", False):
            setattr(rich_utils, name, _folding(fn))
    for name in _HIGHLIGHTERS:
        h = getattr(rich_utils, name, None)
        if h is not None and not getattr(h, "_skb_folds", False):
            setattr(rich_utils, name, _folding_highlighter(h))


def _folding_highlighter(h: Any) -> Any:
    """A highlighter of ``h``'s class whose texts fold (option names such as
    ``--pipeline-cache-mb`` in a narrow column)."""

    class Folding(type(h)):  # type: ignore[misc]
        _skb_folds = True

        def __call__(self, text: Any) -> Any:
            return _fold(super().__call__(text))

    return Folding()

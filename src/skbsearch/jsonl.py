"""Reading JSON Lines with errors that name the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skbsearch.errors import InputError


def iter_jsonl(path: str | Path, *, what: str = "one JSON object a line") -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for every non-blank line of a JSONL file.

    Raises:
        InputError: the file cannot be read, a line is not JSON, or not a JSON object
            (the message names the file and line; ``what`` says what a line should be).
    """
    path = Path(path)
    try:
        fh = path.open("rb")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", file=path) from None
    with fh:
        for n, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start}); expected {what}",
                                 file=path, line=n) from None
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"malformed JSON ({e.msg}); expected {what}", file=path, line=n) from None
            except (ValueError, RecursionError) as e:  # a number too long, nesting too deep
                raise InputError(f"unreadable JSON ({str(e)[:80] or type(e).__name__}); expected {what}",
                                 file=path, line=n) from None
            if not isinstance(rec, dict):
                raise InputError(f"expected {what}", file=path, line=n)
            yield n, rec

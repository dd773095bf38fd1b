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
        fh = path.open(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", file=path) from None
    with fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"malformed JSON ({e.msg}); expected {what}", file=path, line=n) from None
            if not isinstance(rec, dict):
                raise InputError(f"expected {what}", file=path, line=n)
            yield n, rec

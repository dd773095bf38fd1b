"""Reading JSON Lines with errors that name the file and line."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.lines import iter_lines

#: A ``\\uD800``-``\\uDFFF`` escape in JSON text: the only way a lone surrogate (not text) gets in.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate_at(value: Any, where: str = "") -> str | None:
    """The key path (``a.b[2]``) of the first string in ``value`` that is not valid text."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where or "value"
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            key = f"{where}.{k}" if where else str(k)
            bad = _lone_surrogate_at(k, key) or _lone_surrogate_at(v, key)
            if bad is not None:
                return bad
    elif isinstance(value, list):
        for i, v in enumerate(value):
            bad = _lone_surrogate_at(v, f"{where}[{i}]")
            if bad is not None:
                return bad
    return None


def check_json_text(raw: str, value: Any, *, file: str | Path | None = None,
                    line: int | None = None) -> None:
    """Refuse decoded JSON whose strings hold an unpaired surrogate escape (``"\\ud800"``):
    such a string is not text, and fails later (writing Parquet, printing) with a traceback.
    Cheap: the decoded value is walked only when the raw text has such an escape.

    Raises:
        InputError: naming the file, line and field.
    """
    if not _SURROGATE_ESCAPE.search(raw):
        return
    bad = _lone_surrogate_at(value)
    if bad is not None:
        raise InputError("an unpaired surrogate escape (\\ud800-\\udfff) is not text; write "
                         "the character itself, or a valid surrogate pair",
                         file=file, line=line, field=bad)


def iter_jsonl(path: str | Path, *, what: str = "one JSON object a line") -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for every non-blank line of a JSONL file.

    Raises:
        InputError: the file cannot be read, a line is not JSON, or not a JSON object
            (the message names the file and line; ``what`` says what a line should be).
    """
    path = Path(path)
    for n, raw in iter_lines(path):
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
        check_json_text(line, rec, file=path, line=n)
        yield n, rec

"""CSV/TSV rows: node rows and the reader shared with edges files (the loaders, any node
format with any edge format, are in :mod:`skbsearch.kb.loaders.files`).

``nodes.csv`` has a header row. Columns:

- ``id`` (required), ``type`` (required unless a ``default_type`` is given), ``name``;
- ``fields.X``: text field ``X``; ``attributes.X``: attribute ``X`` (parsed as below);
- any other column: a text field, unless listed in ``attributes=`` (CLI
  ``--attributes``), when its cells are parsed: ``true``/``false`` -> bool, integer
  and decimal literals -> numbers, anything else -> string.

Empty cells are absent values. ``edges.csv`` has a header with ``source,relation,target``
(or ``src``/``dst``, ``head``/``tail``, ``rel``/``predicate``); other columns are ignored.
Files ending in ``.tsv`` are read tab-separated. Errors name file, line and column.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.lines import MAX_LINE_BYTES, iter_text_lines
from skbsearch.kb.builder import INT64_MAX, INT64_MIN, SKBBuilder
from skbsearch.kb.loaders.jsonl import ColumnKinds, attribute_kind

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


def parse_scalar(text: str) -> Any:
    """``"true"`` -> True, ``"12"`` -> 12, ``"1.5"`` -> 1.5, anything else unchanged.

    Raises:
        ValueError: an integer literal that does not fit in 64 bits.
    """
    t = text.strip()
    low = t.lower()
    if low in ("true", "false"):
        return low == "true"
    if _INT.fullmatch(t):
        value = int(t) if len(t) <= 20 else None  # int() refuses > 4300 digits; int64 has 19
        if value is None or not INT64_MIN <= value <= INT64_MAX:
            raise ValueError("integer does not fit in 64 bits; give it as text or a decimal number")
        return value
    if _FLOAT.fullmatch(t):
        return float(t)
    return text


def iter_csv(path: Path, delimiter: str | None = None) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(line number, row)`` per record; ragged rows fail naming line and column.

    Lines are read through :func:`skbsearch.core.lines.iter_text_lines` (none longer than
    :data:`~skbsearch.core.lines.MAX_LINE_BYTES`) and a cell, quoted across lines or not, is
    at most that long too: a longer one fails naming its line."""
    file = str(path)
    delim = delimiter or ("\t" if path.suffix.lower() == ".tsv" else ",")
    if csv.field_size_limit() < MAX_LINE_BYTES:  # the stdlib's 128 KiB refuses long texts
        csv.field_size_limit(MAX_LINE_BYTES)
    reader = csv.reader(iter_text_lines(path), delimiter=delim)
    try:
        header = next(reader, None)
        if header is None:
            raise InputError("empty file; expected a header row", file=file, line=1)
        header = [h.strip() for h in header]
        seen = set()
        for col in header:
            if not col:
                raise InputError("empty column name in the header", file=file, line=1)
            if col in seen:
                raise InputError("duplicate column in the header", file=file, line=1, field=col)
            seen.add(col)
        for row in reader:
            ln = reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(header):
                missing = header[len(row)] if len(row) < len(header) else None
                raise InputError(
                    f"row has {len(row)} values but the header has {len(header)} columns",
                    file=file,
                    line=ln,
                    field=missing,
                )
            yield ln, dict(zip(header, row, strict=True))
    except csv.Error as e:
        raise InputError(f"malformed CSV ({e})", file=file, line=reader.line_num or None) from None


def first_column(row: Mapping[str, str], keys: tuple[str, ...], file: str, line: int) -> str:
    """The value of the first of ``keys`` (alternative column names) that ``row`` has.

    Raises:
        InputError: the value is empty, or the file has none of the columns.
    """
    for k in keys:
        if k in row:
            v = row[k].strip()
            if not v:
                raise InputError(f"edge has an empty {keys[0]}", file=file, line=line, field=k)
            return v
    alt = "/".join(keys)
    raise InputError(f"edges file has no '{keys[0]}' column (expected one of {alt})", file=file, line=1, field=keys[0])


def add_csv_nodes(b: SKBBuilder, nodes_path: Path, delimiter: str | None, attr_cols: set[str],
                  default_type: str | None) -> None:
    """Add every row of a CSV/TSV nodes file to ``b``; a column keeps one kind (text, or one
    attribute kind) across all rows."""
    kinds = ColumnKinds()
    nfile = str(nodes_path)
    first = True
    for ln, row in iter_csv(nodes_path, delimiter):
        if first:
            _check_header(row, attr_cols, nfile)
            first = False
        nid, ntype, fields, attrs = _node_row(row, attr_cols, default_type, nfile, ln)
        for k in fields:
            kinds.check(k, "text", nfile, ln)
        for k, v in attrs.items():
            kinds.check(k, attribute_kind(v), nfile, ln)
        b.add_node(nid, ntype, row.get("name"), fields, attrs, file=nfile, line=ln)


def _check_header(row: dict[str, str], attr_cols: set[str], nfile: str) -> None:
    """The nodes file needs an ``id`` column, and every ``--attributes`` column must exist."""
    if "id" not in row:
        raise InputError("nodes file has no 'id' column", file=nfile, line=1, field="id")
    missing = attr_cols - {c.removeprefix("attributes.") for c in row}
    if missing:
        raise InputError(
            f"--attributes names columns that do not exist: {sorted(missing)}",
            file=nfile,
            line=1,
            field=sorted(missing)[0],
        )


def _node_row(
    row: dict[str, str], attr_cols: set[str], default_type: str | None, nfile: str, ln: int
) -> tuple[str, str, dict[str, str], dict[str, Any]]:
    """One nodes row -> ``(id, type, text fields, attributes)``; empty cells are absent."""
    nid = row["id"].strip()
    if not nid:
        raise InputError("node has an empty id", file=nfile, line=ln, field="id")
    ntype = (row.get("type") or "").strip() or default_type
    if not ntype:
        hint = "" if default_type else " (or pass a default type)"
        raise InputError(f"node {nid!r} has no type{hint}", file=nfile, line=ln, field="type")
    fields: dict[str, str] = {}
    attrs: dict[str, Any] = {}
    for col, cell in row.items():
        if col in ("id", "type", "name") or cell == "":
            continue
        if col.startswith("fields."):
            fields[col.removeprefix("fields.")] = cell
        elif col.startswith("attributes.") or col in attr_cols:
            try:
                attrs[col.removeprefix("attributes.")] = parse_scalar(cell)
            except ValueError as e:
                raise InputError(str(e), file=nfile, line=ln, field=col) from None
        else:
            fields[col] = cell
    return nid, ntype, fields, attrs

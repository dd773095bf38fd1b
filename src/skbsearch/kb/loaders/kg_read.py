"""Streaming readers for the public KG layout: triple files and by-id text files.

Triples are parsed by Arrow's CSV reader a block at a time (tab-separated, no quoting)
and factorised into int32 codes block by block, so memory holds the code arrays and one
id dictionary, never the lines. Any problem Arrow reports (a line without three columns,
bytes that are not UTF-8) or an empty column sends the file through a line-by-line
re-scan that names the first bad line and field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv

from skbsearch.core.errors import InputError
from skbsearch.core.lines import MAX_LINE_BYTES, iter_lines
from skbsearch.kb.schema import INVERSE_SUFFIX

_COLUMNS = ("head", "relation", "tail")
BLOCK_SIZE = 1 << 25


class Codes:
    """An id -> dense int code dictionary that grows as blocks are read."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def encode(self, column: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """Codes of every value of ``column`` (new values get the next codes)."""
        enc = pc.dictionary_encode(column)
        if isinstance(enc, pa.ChunkedArray):
            enc = enc.combine_chunks()
        index = self.index
        mapping = np.fromiter(
            (index.setdefault(v, len(index)) for v in enc.dictionary.to_pylist()),
            dtype=np.int64, count=len(enc.dictionary),
        )
        return mapping[enc.indices.to_numpy(zero_copy_only=False)].astype(np.int32)

    def ids(self) -> list[str]:
        """The ids in code order."""
        return list(self.index)


def _rescan(path: Path) -> None:
    """Raise the first problem of a triples file with its line and field."""
    file = str(path)
    for ln, line in _lines(path):
        if not line:
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise InputError(
                f"expected 3 tab-separated columns (head, relation, tail), found {len(parts)}",
                file=file, line=ln, field=_COLUMNS[len(parts)] if len(parts) < 3 else "tail",
            )
        for col, val in zip(_COLUMNS, parts, strict=True):
            if not val.strip():
                raise InputError(f"empty {col}", file=file, line=ln, field=col)
        if parts[1].endswith(INVERSE_SUFFIX):
            raise InputError("'^-1' is reserved for walking a relation backwards",
                             file=file, line=ln, field="relation")


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, text without the line break)`` of a UTF-8 file, lazily; a line that
    is not UTF-8 raises :class:`InputError` naming it."""
    for ln, raw in iter_lines(path):
        try:
            yield ln, raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 text ({e.reason})", file=str(path), line=ln) from None


def _blocks(path: Path) -> Iterator[pa.RecordBatch]:
    opts = csv.ReadOptions(column_names=list(_COLUMNS), block_size=BLOCK_SIZE, use_threads=False)
    parse = csv.ParseOptions(delimiter="\t", quote_char=False, escape_char=False)
    conv = csv.ConvertOptions(column_types={c: pa.string() for c in _COLUMNS},
                              strings_can_be_null=False, quoted_strings_can_be_null=False)
    reader = csv.open_csv(path, read_options=opts, parse_options=parse, convert_options=conv)
    yield from reader


def _bad(batch: pa.RecordBatch) -> bool:
    """Whether a block has an empty or all-whitespace column, a reserved relation name, or
    may hold a line over :data:`MAX_LINE_BYTES` (Arrow's blocks are larger)."""
    longest = 0
    for col in batch.columns:
        if pc.min(pc.utf8_length(col)).as_py() == 0 or pc.any(pc.utf8_is_space(col)).as_py():
            return True
        longest += pc.max(pc.binary_length(col)).as_py() or 0
    if longest + 3 > MAX_LINE_BYTES:
        return True
    return bool(pc.any(pc.ends_with(batch.column(1), INVERSE_SUFFIX)).as_py())


def read_triples(paths: list[Path], entities: Codes, relations: Codes,
                 progress=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``(head, relation, tail)`` int32 code arrays of every triple in ``paths``, and the
    number of lines read; ``entities`` and ``relations`` grow with the ids met."""
    hs: list[np.ndarray] = []
    rs: list[np.ndarray] = []
    ts: list[np.ndarray] = []
    for path in paths:
        if path.stat().st_size == 0:
            continue
        try:
            for batch in _blocks(path):
                if _bad(batch):
                    _rescan(path)
                hs.append(entities.encode(batch.column(0)))
                ts.append(entities.encode(batch.column(2)))
                rs.append(relations.encode(batch.column(1)))
                if progress is not None:
                    progress(len(batch))
        except (pa.ArrowInvalid, UnicodeDecodeError) as e:
            _rescan(path)
            raise InputError(f"unreadable triples ({str(e)[:160]})", file=path) from None
    if not hs:
        z = np.zeros(0, np.int32)
        return z, z, z.copy(), 0
    h, r, t = np.concatenate(hs), np.concatenate(rs), np.concatenate(ts)
    return h, r, t, int(len(h))


def read_columns(path: Path, min_columns: int = 2) -> Iterator[tuple[int, list[str]]]:
    """``(line, columns)`` of a tab-separated by-id file (blank lines skipped)."""
    file = str(path)
    for ln, line in _lines(path):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) < min_columns:
            raise InputError(f"expected at least {min_columns} tab-separated columns (id, text), "
                             f"found {len(parts)}", file=file, line=ln, field="text")
        if not parts[0].strip():
            raise InputError("empty id", file=file, line=ln, field="id")
        yield ln, parts


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """``json`` object hook: an object giving one key twice is an error (JSON parsers keep
    the last silently), so a by-id file cannot give one id two texts."""
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def read_json(path: str | Path) -> object:
    """A JSON file's value; unreadable or malformed files, and objects giving one key twice,
    raise :class:`InputError` naming the file (and the line of a syntax error)."""
    file = str(path)
    try:
        return json.loads(Path(path).read_bytes().decode("utf-8"), object_pairs_hook=_unique_keys)
    except _DuplicateKey as e:
        raise InputError(f"the key {e.key!r} is given twice in one object; give each id once",
                         file=file, field=e.key) from None
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON ({e.msg})", file=file, line=e.lineno) from None
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", file=file) from None
    except (ValueError, RecursionError) as e:  # a number too long, nesting too deep
        raise InputError(f"unreadable JSON ({str(e)[:80] or type(e).__name__})", file=file) from None


def read_json_values(path: Path) -> dict[str, list[str]]:
    """CoDEx-style ``{id: [value, …]}`` (``entity2types.json``)."""
    raw = read_json(path)
    if not isinstance(raw, dict) or not all(isinstance(v, list) for v in raw.values()):
        raise InputError('expected a JSON object {"id": ["type id", ...]}', file=path)
    return {str(k): [str(x) for x in v] for k, v in raw.items()}


def read_json_texts(path: Path) -> dict[str, dict[str, str]]:
    """CoDEx-style ``{id: {"label": …, "description": …}}`` (values may also be strings)."""
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise InputError('expected a JSON object {"id": {"label": ..., "description": ...}}', file=path)
    out: dict[str, dict[str, str]] = {}
    for k, v in raw.items():
        if isinstance(v, str):
            out[str(k)] = {"label": v}
        elif isinstance(v, dict):
            out[str(k)] = {f: str(v[f]) for f in ("label", "description") if isinstance(v.get(f), str)}
        else:
            raise InputError(f"expected an object or a string, got {type(v).__name__}", file=path, field=str(k))
    return out

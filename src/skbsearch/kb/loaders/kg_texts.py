"""Entity names, descriptions and aliases by id, joined onto the KG's entities with Arrow.

Each by-id file is read as lines by Arrow's CSV reader, split at tabs and joined to the
entity ids by one hash look-up (``index_in``), so Wikidata5M's 4.8M-line files cost seconds
and no Python object per line. Where Arrow reports a problem, or a line lacks its text
column, the file goes through :func:`kg_read.read_columns`, which names the line.
An id given on two lines of one file is an error naming both lines; where the names file
and the descriptions file both give a text, the names file's wins.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv

from skbsearch.core.errors import InputError
from skbsearch.core.lines import MAX_LINE_BYTES, iter_lines
from skbsearch.kb.loaders.kg_files import KGFiles
from skbsearch.kb.loaders.kg_read import read_columns, read_json_texts
from skbsearch.kb.store import arrow_numpy


def _lines(path: Path) -> pa.ListArray:
    """The file's non-blank lines split at tabs (checked: an id and a text on each)."""
    opts = csv.ReadOptions(column_names=["line"], block_size=1 << 25, use_threads=False)
    parse = csv.ParseOptions(delimiter="\x1e", quote_char=False, escape_char=False)
    conv = csv.ConvertOptions(column_types={"line": pa.string()}, strings_can_be_null=False)
    if path.stat().st_size < 4096 and not path.read_bytes().strip():
        return pc.split_pattern(pa.array([], pa.string()), "\t")
    try:
        lines = csv.read_csv(path, read_options=opts, parse_options=parse, convert_options=conv)
    except (pa.ArrowInvalid, UnicodeDecodeError) as e:
        for _ in read_columns(path):  # raises with the line
            pass
        raise InputError(f"unreadable text file ({str(e)[:160]})", file=path) from None
    col = lines.column("line").combine_chunks() if lines.num_rows else pa.array([], pa.string())
    col = pc.utf8_rtrim(col, characters="\r")
    if len(col) and (pc.max(pc.binary_length(col)).as_py() or 0) >= MAX_LINE_BYTES:
        for _ in read_columns(path):  # raises with the line (Arrow's blocks are larger)
            pass
    col = pc.filter(col, pc.invert(pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(col)), 0)))
    parts = pc.split_pattern(col, "\t")
    ok = pc.greater_equal(pc.list_value_length(parts), 2)
    first = pc.utf8_length(pc.utf8_trim_whitespace(pc.list_element(parts, 0))) if len(col) else ok
    if len(col) and not pc.all(pc.and_(ok, pc.greater(first, 0))).as_py():
        _refuse_bad_line(path)
    if len(col) and pc.count_distinct(pc.list_element(parts, 0)).as_py() < len(col):
        _refuse_duplicate(path)
    return parts


def _refuse_bad_line(path: Path) -> None:
    """Raise for the first line without an id and a text (:func:`kg_read.read_columns` names
    it). Arrow also ends a line at a lone carriage return, the line reader does not: such a
    line is named here rather than read as two."""
    for _ in read_columns(path):
        pass
    for ln, raw in iter_lines(path):
        if b"\r" in raw.rstrip(b"\r\n"):
            raise InputError("a carriage return (\\r) inside the line; lines end with \\n or "
                             "\\r\\n", file=path, line=ln)
    raise InputError("a line lacks its id or text", file=path)


def _refuse_duplicate(path: Path) -> None:
    """Raise for the first id given on a second line of a by-id text file."""
    seen: dict[str, int] = {}
    for ln, parts in read_columns(path):
        first = seen.setdefault(parts[0], ln)
        if first != ln:
            raise InputError(f"entity id {parts[0]!r} is given again (first at line {first}); "
                             "give each entity one line", file=path, line=ln, field="id")


def _clean(values: pa.Array) -> pa.Array:
    return pc.utf8_trim_whitespace(pc.replace_substring_regex(values, r"\s+", " "))


def _scatter(pos: np.ndarray, values: pa.Array, n: int) -> pa.Array:
    """A length-``n`` column: ``values[k]`` at entity ``pos[k]`` (first wins; nulls elsewhere)."""
    keep = (pos >= 0) & arrow_numpy(pc.fill_null(pc.greater(pc.utf8_length(values), 0), False))
    rows = np.flatnonzero(keep)
    ent, first = np.unique(pos[rows], return_index=True)
    take = np.full(n, -1, np.int64)
    take[ent] = rows[first]
    return values.take(pa.array(take, mask=take < 0))


class _Join:
    """Columns of text per entity, filled from several files, first value winning."""

    def __init__(self, ids: pa.Array) -> None:
        self.ids = ids
        self.n = len(ids)
        self.cols: dict[str, pa.Array] = {}
        self.unused: set[str] = set()

    def positions(self, keys: pa.Array) -> np.ndarray:
        found = pc.index_in(keys, value_set=self.ids)
        missing = pc.filter(keys, pc.is_null(found))
        if len(missing):
            self.unused.update(pc.unique(missing).to_pylist())
        return arrow_numpy(pc.fill_null(found, -1)).astype(np.int64)

    def put(self, col: str, pos: np.ndarray, values: pa.Array) -> None:
        new = _scatter(pos, _clean(values), self.n)
        self.cols[col] = pc.coalesce(self.cols[col], new) if col in self.cols else new


def entity_columns(files: KGFiles, ids: list[str]) -> tuple[dict[str, pa.Array], int]:
    """``({"name": ..., "description": ..., "aliases": ...}, ids named but in no triple)``."""
    join = _Join(pa.array(ids, pa.string()))
    if files.names is not None and files.names.suffix.lower() == ".json":
        texts = read_json_texts(files.names)
        keys = pa.array(list(texts), pa.string())
        pos = join.positions(keys)
        for col, field in (("name", "label"), ("description", "description")):
            join.put(col, pos, pa.array([v.get(field) for v in texts.values()], pa.string()))
    elif files.names is not None:
        parts = _lines(files.names)
        pos = join.positions(pc.list_element(parts, 0))
        join.put("name", pos, pc.list_element(parts, 1))
        rest = pc.list_slice(parts, 2)
        if pc.max(pc.list_value_length(rest)).as_py() or 0:
            aliases = files.names.name.lower().endswith("_entity.txt")
            join.put("aliases" if aliases else "description", pos,
                     pc.binary_join(rest, "; " if aliases else " "))
    if files.descriptions is not None:
        parts = _lines(files.descriptions)
        pos = join.positions(pc.list_element(parts, 0))
        join.put("description", pos, pc.binary_join(pc.list_slice(parts, 1), " "))
    return join.cols, len(join.unused)

"""JSONL node records (and the record convention shared with the CSV loader).

The loaders themselves (any node format with any edge format) are in
:mod:`skbsearch.kb.loaders.files`.

The record convention (shared with the CSV loader):

Node record (one JSON object a line in ``nodes.jsonl``)
    ``id``
        required; a string or an integer (integers become their decimal string).
        Anything else (``true``, ``1.5``, a list) is an error.
    ``type``
        required, unless a ``default_type`` is given.
    ``name``
        optional display name (default: empty; documents then show the id).
    ``fields``
        optional object of text fields, ``{"title": "...", "plot": "..."}``.
    ``attributes``
        optional object of scalar attributes, ``{"year": 1999, "price": 9.5}``.
    any other key
        a string is a text field, unless the key is listed in ``attributes=`` (CLI:
        ``--attributes``), when it is a string attribute; a number or a bool is an
        attribute; a list of scalars is a text field joined with ``"; "``; ``null`` means
        absent. Objects are refused: put them under ``fields`` or ``attributes``.

    A column is either text or an attribute of one kind (number, bool or string)
    across all nodes; a record that breaks this fails with its file, line and field.

Edge record (one JSON object a line in ``edges.jsonl``)
    ``{"source": ..., "relation": ..., "target": ...}``; ``src``/``dst``,
    ``head``/``tail`` and ``rel``/``predicate`` are accepted too. Other keys are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import check_json_text
from skbsearch.core.lines import iter_lines, require_file
from skbsearch.kb.builder import SKBBuilder

SOURCE_KEYS = ("source", "src", "head")
RELATION_KEYS = ("relation", "rel", "predicate")
TARGET_KEYS = ("target", "dst", "tail")
NODE_KEYS = ("id", "type", "name", "fields", "attributes")


class ColumnKinds:
    """Checks that each node column keeps one kind (text, or an attribute kind)."""

    def __init__(self) -> None:
        self._kinds: dict[str, tuple[str, str | None, int | None]] = {}

    def check(self, column: str, kind: str, file: str | None, line: int | None) -> None:
        """Record ``column`` as ``kind`` (``text``, ``number``, ``bool``, ``string``)."""
        seen = self._kinds.get(column)
        if seen is None:
            self._kinds[column] = (kind, file, line)
            return
        if seen[0] != kind:
            first = f"{seen[1]}:{seen[2]}" if seen[1] else f"record {seen[2]}"
            raise InputError(
                f"'{column}' is {_describe(kind)} here but {_describe(seen[0])} at {first}; "
                "give the column one kind in every record",
                file=file,
                line=line,
                field=column,
            )


def _describe(kind: str) -> str:
    return "a text field" if kind == "text" else f"a {kind} attribute"


def attribute_kind(value: Any) -> str:
    """``bool``, ``number`` or ``string`` for a scalar attribute value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "string"


def split_record(
    rec: Mapping[str, Any],
    *,
    attributes: Iterable[str] = (),
    kinds: ColumnKinds,
    file: str | None,
    line: int | None,
) -> tuple[dict[str, str], dict[str, Any]]:
    """Split one node record into ``(text fields, attributes)`` by the module convention."""
    attr_names = set(attributes)
    fields: dict[str, str] = {}
    attrs: dict[str, Any] = {}
    for key in ("fields", "attributes"):
        val = rec.get(key)
        if val is not None and not isinstance(val, Mapping):
            raise InputError(
                f"'{key}' must be an object, got {type(val).__name__}", file=file, line=line, field=key
            )
    for k, v in (rec.get("fields") or {}).items():
        if v is None:
            continue
        if isinstance(v, (list, tuple)):
            v = "; ".join(str(x) for x in v if x is not None)
        elif isinstance(v, Mapping):
            raise InputError("text fields must be strings, got an object", file=file, line=line, field=k)
        fields[k] = str(v)
    for k, v in (rec.get("attributes") or {}).items():
        if v is None:
            continue
        if not isinstance(v, (str, int, float, bool)):
            raise InputError(
                f"attributes must be scalars (number, string, bool), got {type(v).__name__}",
                file=file,
                line=line,
                field=k,
            )
        attrs[k] = v
    for k, v in rec.items():
        if k in NODE_KEYS or v is None:
            continue
        if isinstance(v, bool) or isinstance(v, (int, float)):
            attrs[k] = v
        elif isinstance(v, str):
            (attrs if k in attr_names else fields)[k] = v
        elif isinstance(v, (list, tuple)) and all(not isinstance(x, (list, dict)) for x in v):
            fields[k] = "; ".join(str(x) for x in v if x is not None)
        else:
            raise InputError(
                f"value of type {type(v).__name__} is not a text field or a scalar attribute; "
                "put nested data under 'fields' (as text) or 'attributes' (as scalars)",
                file=file,
                line=line,
                field=k,
            )
    for k in fields:
        if k in attrs:
            raise InputError(
                "the same key is given both as a text field and as an attribute",
                file=file,
                line=line,
                field=k,
            )
        kinds.check(k, "text", file, line)
    for k, v in attrs.items():
        kinds.check(k, attribute_kind(v), file, line)
    return fields, attrs


def is_id(value: Any) -> bool:
    """Whether ``value`` can be a node id: a non-blank string or an integer (not a bool)."""
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, int) and not isinstance(value, bool)


def pick(rec: Mapping[str, Any], keys: tuple[str, ...], *, file: str, line: int) -> Any:
    """The value of the first of ``keys`` present in ``rec``; a clear error if none is."""
    for k in keys:
        if k in rec and rec[k] is not None:
            if keys is not RELATION_KEYS and not is_id(rec[k]):
                raise InputError(f"a node id must be a string or an integer, got {json.dumps(rec[k])[:60]}",
                                 file=file, line=line, field=k)
            return rec[k]
    alt = "/".join(f"'{k}'" for k in keys)
    raise InputError(f"edge has no {keys[0]} (expected one of {alt})", file=file, line=line, field=keys[0])


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each non-blank line; errors name the line."""
    file = str(path)
    for ln, raw in iter_lines(path):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", file=file, line=ln) from None
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(
                f"malformed JSON ({e.msg} at column {e.colno}); each line must be one JSON object",
                file=file,
                line=ln,
            ) from None
        except (ValueError, RecursionError) as e:  # a number too long, nesting too deep
            raise InputError(f"unreadable JSON ({str(e)[:80] or type(e).__name__})", file=file, line=ln) from None
        if not isinstance(obj, dict):
            raise InputError(
                f"expected a JSON object, got {type(obj).__name__}", file=file, line=ln
            )
        check_json_text(text, obj, file=file, line=ln)
        yield ln, obj


def resolve_pair(
    source: str | Path | None,
    nodes: str | Path | None,
    edges: str | Path | None,
    ext: str,
) -> tuple[Path, Path | None]:
    """Find the nodes and edges files: explicit paths win, else ``SOURCE/nodes.EXT`` etc."""
    if nodes is None:
        if source is None:
            raise InputError(f"give a directory holding nodes.{ext} (and edges.{ext}) or a nodes file")
        src = Path(source)
        if src.exists() and not src.is_dir():
            nodes = src
        else:
            nodes = src / f"nodes.{ext}"
            if edges is None and (src / f"edges.{ext}").is_file():
                edges = src / f"edges.{ext}"
    nodes = require_file(nodes, "nodes file", f" (expected nodes.{ext} in the directory or --nodes FILE)")
    return nodes, None if edges is None else require_file(edges, "edges file")


def add_jsonl_nodes(
    b: SKBBuilder,
    nodes_path: Path,
    attributes: Iterable[str] = (),
    default_type: str | None = None,
) -> None:
    """Add every node record of a JSONL nodes file to ``b`` (see the module docstring).

    Raises:
        InputError: naming file, line and field for malformed JSON, a missing id or type,
            a duplicate id, or a column that changes kind.
    """
    attrs = tuple(attributes)
    kinds = ColumnKinds()
    nfile = str(nodes_path)
    for ln, rec in iter_jsonl(nodes_path):
        if "id" not in rec or rec["id"] is None or rec["id"] == "":
            raise InputError("node record has no 'id'", file=nfile, line=ln, field="id")
        if not is_id(rec["id"]):
            raise InputError(f"'id' must be a string or an integer, got {json.dumps(rec['id'])[:60]}",
                             file=nfile, line=ln, field="id")
        ntype = rec.get("type", default_type)
        if not isinstance(ntype, str) or not ntype:
            hint = "" if default_type else " (or pass a default type)"
            raise InputError(f"node record has no 'type'{hint}", file=nfile, line=ln, field="type")
        name = rec.get("name")
        if name is not None and (not isinstance(name, (str, int, float)) or isinstance(name, bool)):
            raise InputError("'name' must be a string", file=nfile, line=ln, field="name")
        fields, at = split_record(rec, attributes=attrs, kinds=kinds, file=nfile, line=ln)
        b.add_node(rec["id"], ntype, name, fields, at, file=nfile, line=ln)


def pick_end(rec: Mapping[str, Any], keys: tuple[str, ...], file: str, line: int) -> Any:
    """:func:`pick` with the file and line given by position (an :data:`EndPicker`)."""
    return pick(rec, keys, file=file, line=line)


#: ``pick_end(record, keys, file, line)``: the value of an edge record's end (source,
#: relation or target) found under one of ``keys``, or an :class:`InputError`.
EndPicker = Callable[[Mapping[str, Any], tuple[str, ...], str, int], Any]


def edge_triples(
    records: Iterable[tuple[int, Mapping[str, Any]]], file: str, pick_end: EndPicker
) -> Iterator[tuple[int, Any, Any, Any]]:
    """``(line, source, relation, target)`` per edge record, each end found by ``pick_end``."""
    for ln, rec in records:
        s = pick_end(rec, SOURCE_KEYS, file, ln)
        r = pick_end(rec, RELATION_KEYS, file, ln)
        t = pick_end(rec, TARGET_KEYS, file, ln)
        yield ln, s, r, t


def source_meta(fmt: str, nodes_path: Path, edges_path: Path | None) -> dict[str, Any]:
    """The SKB meta a file loader records: ``{"source": {"format", "nodes"[, "edges"]}}``."""
    source = {"format": fmt, "nodes": str(nodes_path)}
    if edges_path is not None:
        source["edges"] = str(edges_path)
    return {"source": source}

"""Node and edge files -> SKB: any supported node format with any supported edge format.

A nodes file is JSONL (:mod:`~skbsearch.kb.loaders.jsonl`'s record convention) or CSV/TSV
with a header (:mod:`~skbsearch.kb.loaders.tabular`); an edges file is JSONL, CSV or TSV,
told by its own suffix (``.jsonl``/``.ndjson``, ``.csv``, ``.tsv``), whatever the nodes
file is: ``skb kb build out.skb --nodes nodes.jsonl --edges edges.csv`` works, and so does
a directory holding ``nodes.jsonl`` beside ``edges.csv``. :func:`read_edge_file` is the one
reader of edges files (``skb kb update`` reads its edges through it too).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.kb.builder import SKBBuilder
from skbsearch.kb.loaders.jsonl import (
    add_jsonl_nodes,
    edge_triples,
    iter_jsonl,
    pick_end,
    resolve_pair,
    source_meta,
)
from skbsearch.kb.loaders.tabular import add_csv_nodes, first_column, iter_csv
from skbsearch.kb.store import SKB

#: Edges file suffix -> its format.
EDGE_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "csv"}


def find_files(source: str | Path | None, nodes: str | Path | None, edges: str | Path | None,
               ext: str) -> tuple[Path, Path | None]:
    """The nodes and edges files (:func:`~skbsearch.kb.loaders.jsonl.resolve_pair`), and in
    a ``source`` directory also ``nodes.tsv`` for ``csv`` and an edges file in any edge
    format (``edges.EXT`` first, then :data:`EDGE_FORMATS`' order)."""
    src = Path(source) if source is not None and nodes is None else None
    if src is not None and src.is_dir():
        if ext == "csv" and not (src / "nodes.csv").is_file() and (src / "nodes.tsv").is_file():
            nodes = src / "nodes.tsv"
        if edges is None:
            edges = next((p for sfx in (f".{ext}", *EDGE_FORMATS)
                          if (p := src / f"edges{sfx}").is_file()), None)
        if nodes is None:
            nodes = src / f"nodes.{ext}"
    return resolve_pair(None if nodes is not None else source, nodes, edges, ext)


def edge_format(path: str | Path) -> str:
    """``jsonl`` or ``csv`` (CSV or TSV) by the edges file's suffix.

    Raises:
        InputError: another suffix (naming the file and the suffixes read).
    """
    fmt = EDGE_FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise InputError("cannot tell the edge format from the name; use "
                         f"{', '.join(EDGE_FORMATS)}", file=path, field="edges")
    return fmt


def read_edge_file(path: str | Path, delimiter: str | None = None) -> Iterator[tuple[int, Any, str, Any]]:
    """``(line, source, relation, target)`` per edge record of a JSONL, CSV or TSV edges
    file (``delimiter``: a CSV file's separator, default by suffix).

    Raises:
        InputError: naming file, line and field for a record without an end, an end that
            is no node id, or a relation that is not a string.
    """
    path = Path(path)
    file = str(path)
    if edge_format(path) == "jsonl":
        triples = edge_triples(iter_jsonl(path), file, pick_end)
    else:
        triples = edge_triples(iter_csv(path, delimiter), file, first_column)
    for ln, s, r, t in triples:
        if not isinstance(r, str):
            raise InputError("relation must be a string", file=file, line=ln, field="relation")
        yield ln, s, r, t


def add_edges(b: SKBBuilder, path: Path, delimiter: str | None = None) -> None:
    """Add every edge of an edges file (any edge format) to ``b``."""
    file = str(path)
    for ln, s, r, t in read_edge_file(path, delimiter):
        b.add_edge(s, r, t, file=file, line=ln)


def load_jsonl(
    source: str | Path | None = None,
    *,
    nodes: str | Path | None = None,
    edges: str | Path | None = None,
    attributes: Iterable[str] = (),
    default_type: str | None = None,
    on_duplicate: str = "error",
) -> SKB:
    """Load ``nodes.jsonl`` (+ an edges file in any edge format) into an SKB.

    Args:
        source: a directory with ``nodes.jsonl`` and optionally ``edges.jsonl`` (or
            ``edges.csv``/``edges.tsv``), or a nodes file.
        nodes: an explicit nodes file (overrides ``source``).
        edges: an explicit edges file, JSONL, CSV or TSV (overrides ``source``).
        attributes: top-level string keys to keep as attributes instead of text fields.
        default_type: type for node records without ``type``.
        on_duplicate: ``"error"`` or ``"first"`` (keep the first record of an id).

    Raises:
        InputError: naming file, line and field for malformed JSON, a missing id or type,
            a duplicate id, or an edge to an unknown node.
    """
    nodes_path, edges_path = find_files(source, nodes, edges, "jsonl")
    b = SKBBuilder(on_duplicate=on_duplicate)
    add_jsonl_nodes(b, nodes_path, attributes, default_type)
    if edges_path is not None:
        add_edges(b, edges_path)
    return b.build(meta=source_meta("jsonl", nodes_path, edges_path))


def load_csv(
    source: str | Path | None = None,
    *,
    nodes: str | Path | None = None,
    edges: str | Path | None = None,
    attributes: Iterable[str] = (),
    default_type: str | None = None,
    delimiter: str | None = None,
    on_duplicate: str = "error",
) -> SKB:
    """Load ``nodes.csv`` (or ``nodes.tsv``; + an edges file in any edge format) into an SKB.

    Args:
        source: a directory with ``nodes.csv`` and optionally ``edges.csv`` (or
            ``edges.jsonl``), or a nodes file.
        nodes: an explicit nodes file (overrides ``source``).
        edges: an explicit edges file, CSV, TSV or JSONL (overrides ``source``).
        attributes: columns whose cells are parsed as scalars (attributes).
        default_type: type for rows with no (or an empty) ``type``.
        delimiter: field separator of the CSV files (default ``,``; tab for ``.tsv`` files).
        on_duplicate: ``"error"`` or ``"first"``.

    Raises:
        InputError: naming file, line and column for ragged rows, a missing id or type,
            a duplicate id, or an edge to an unknown node.
    """
    nodes_path, edges_path = find_files(source, nodes, edges, "csv")
    b = SKBBuilder(on_duplicate=on_duplicate)
    add_csv_nodes(b, nodes_path, delimiter, set(attributes), default_type)
    if edges_path is not None:
        add_edges(b, edges_path, delimiter)
    return b.build(meta=source_meta("csv", nodes_path, edges_path))

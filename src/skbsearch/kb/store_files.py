"""An SKB directory on disk: writing it, and opening a plain directory or a generation.

The files (see :mod:`skbsearch.kb.store`): ``nodes.parquet`` (canonical, hashed),
``nodes.arrow`` (the same table uncompressed, memory-mapped on load), ``edges.parquet``,
``meta.json`` and the CSR ``graph/``. Every function here checks what it reads and refuses a
damaged file with an :class:`~skbsearch.core.errors.ArtefactError` naming it and the command
that rebuilds it.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from skbsearch.core.atomic import atomic_dir, recover_parent
from skbsearch.core.errors import ArtefactError
from skbsearch.kb.generations import SEGMENTS_DIR, Generation
from skbsearch.kb.graph import Graph
from skbsearch.kb.graph_merge import merged_graph
from skbsearch.kb.live import merge
from skbsearch.kb.schema import Schema
from skbsearch.kb.segments import read_segment

#: ``(source row, relation code, target row)`` of every edge
Edges = tuple[np.ndarray, np.ndarray, np.ndarray]

FORMAT_VERSION = 1

#: Files whose bytes make an SKB's ``content_hash``.
CONTENT_FILES = ("nodes.parquet", "edges.parquet")

#: Keys of ``meta`` that describe the generation an SKB was opened at (never saved).
GENERATION_KEYS = ("generation", "lineage", "segments", "base_hash")

#: The node table as an uncompressed Arrow IPC file, memory-mapped on load.
NODES_ARROW = "nodes.arrow"


def content_hash(directory: str | Path) -> str:
    """A digest (BLAKE2b, 128 bit, hex) of an SKB directory's node and edge files."""
    h = hashlib.blake2b(digest_size=16)
    for name in CONTENT_FILES:
        with open(Path(directory) / name, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


#: Rows of one record batch of ``nodes.arrow`` (each written as one chunk).
ARROW_BATCH_ROWS = 1 << 20


def _write_arrow(table: pa.Table, file: Path) -> None:
    """Write ``table`` as an uncompressed Arrow IPC file (memory-mappable, zero-copy), in
    batches of :data:`ARROW_BATCH_ROWS` rows each in one chunk: a generation's table, held in
    hundreds of slices (``kb.live``), is not saved (compacted) as hundreds of batches that
    every kernel over a column would then run once each."""
    with pa.OSFile(str(file), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        for start in range(0, max(table.num_rows, 1), ARROW_BATCH_ROWS):
            writer.write_table(table.slice(start, ARROW_BATCH_ROWS).combine_chunks())


def _read_nodes(path: Path, meta: dict[str, Any], mmap: bool, rebuild: str) -> pa.Table:
    """The node table: ``nodes.arrow`` memory-mapped when it is there and consistent with
    ``nodes.parquet`` (row count and columns), else ``nodes.parquet`` read into memory."""
    pfile = path / "nodes.parquet"
    if not pfile.is_file():
        raise ArtefactError(f"{pfile} is missing; {rebuild}")
    afile = path / NODES_ARROW
    if mmap and afile.is_file():
        try:
            table = pa.ipc.open_file(pa.memory_map(str(afile), "r")).read_all()
            table.validate()
            expected = pq.read_schema(pfile)
            if table.num_rows == meta.get("num_nodes") and table.schema.names == expected.names:
                return table
        except (OSError, ValueError, pa.ArrowException):
            pass  # damaged or foreign: the Parquet copy is the canonical one
    try:
        return pq.read_table(pfile, memory_map=mmap)
    except (OSError, ValueError, pa.ArrowException) as e:  # truncated, not parquet
        raise ArtefactError(f"{pfile}: corrupt or truncated parquet ({str(e)[:200]}); {rebuild}") from None


def _read_edges(file: Path, schema: Schema, n: int, mmap: bool,
                rebuild: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(src, relation code, dst)`` arrays of ``edges.parquet``, checked against ``n`` nodes."""
    try:
        edges = pq.read_table(file, columns=["relation", "src_idx", "dst_idx"], memory_map=mmap)
        rel = edges.column("relation").combine_chunks()
        if isinstance(rel, pa.DictionaryArray) and len(rel):
            # Re-map dictionary codes onto the schema's relation order.
            order = {name: i for i, name in enumerate(schema.relations)}
            remap = np.array([order[x] for x in rel.dictionary.to_pylist()], dtype=np.int16)
            rel_codes = remap[rel.indices.to_numpy(zero_copy_only=False)]
        else:
            rel_codes = np.zeros(0, np.int16)
        src = edges.column("src_idx").to_numpy()
        dst = edges.column("dst_idx").to_numpy()
    except (OSError, KeyError, IndexError, ValueError, TypeError, pa.ArrowException) as e:
        raise ArtefactError(f"{file}: corrupt edges ({type(e).__name__}: {str(e)[:200]}); "
                          f"{rebuild}") from None
    for what, arr in (("src_idx", src), ("dst_idx", dst)):
        if len(arr) and (arr.dtype.kind not in "iu" or int(arr.min()) < 0 or int(arr.max()) >= n):
            raise ArtefactError(f"{file}: column {what} points outside the {n} nodes; {rebuild}")
    if len(rel_codes) != len(src):
        raise ArtefactError(f"{file}: {len(src)} edges but {len(rel_codes)} relation codes; {rebuild}")
    return (np.asarray(src, dtype=np.int32), np.asarray(rel_codes, dtype=np.int16),
            np.asarray(dst, dtype=np.int32))




@dataclass
class Opened:
    """An SKB directory as read: ``edges`` now, or ``edges_loader`` to read them later; a
    generation with segments is ``merged`` (its CSR graph merged from the base's by
    ``graph_factory``, ``new_of_base`` the row of each base row), else ``graph_dir`` holds
    its saved graph (``None``: the directory's own ``graph/``). ``changed_rows``: for a
    generation opened from the previous one with no row moved, the rows its new segments
    upserted (no other row's values changed; ``kb.live_next``)."""

    nodes: pa.Table
    schema: Schema
    meta: dict[str, Any]
    edges: Edges | None
    edges_loader: Callable[[], Edges] | None
    graph_dir: Path | None = None
    merged: bool = False
    new_of_base: np.ndarray | None = None
    graph_factory: Callable[[], Graph] | None = None
    changed_rows: np.ndarray | None = None


def write_dir(path: Path, nodes: pa.Table, ids: np.ndarray, edges: Edges, schema: Schema,
              meta: dict[str, Any], *, save_graph: Callable[[Path], None] | None,
              overwrite: bool, inputs: Iterable[str | Path | None]) -> dict[str, Any]:
    """Write an SKB's files to the directory ``path`` atomically (see
    :meth:`skbsearch.kb.store.SKB.save`): ``meta`` completed by the counts, the content hash
    and the schema, returned as written; ``save_graph(dir)`` writes the CSR graph."""
    with atomic_dir(path, overwrite=overwrite, kind="skb", inputs=inputs,
                    keep=("indexes",)) as tmp:
        pq.write_table(nodes, tmp / "nodes.parquet")
        _write_arrow(nodes, tmp / NODES_ARROW)
        src, rel, dst = edges
        rel_names = np.array(schema.relations, dtype=object)
        edges = pa.table(
            {
                "src": pa.array(ids[src], type=pa.string()),
                "relation": pa.DictionaryArray.from_arrays(
                    pa.array(rel.astype(np.int32)),
                    pa.array(list(rel_names), type=pa.string()),
                ),
                "dst": pa.array(ids[dst], type=pa.string()),
                "src_idx": pa.array(src),
                "dst_idx": pa.array(dst),
            }
        )
        pq.write_table(edges, tmp / "edges.parquet")
        out = {"artefact": "skb", **{k: v for k, v in meta.items() if k not in GENERATION_KEYS}}
        out.update(format_version=FORMAT_VERSION, num_nodes=nodes.num_rows, num_edges=len(src),
                   content_hash=content_hash(tmp), schema=schema.to_dict())
        (tmp / "meta.json").write_text(json.dumps(out, indent=2), encoding="utf-8")
        if save_graph is not None:
            save_graph(tmp / "graph")
    return out


def read_plain(path: Path, *, mmap: bool = True) -> Opened:
    """What the SKB saved in the directory ``path`` (no generations) is made of, checked as it
    is read: the node table, the schema, the meta, and the edges or a loader of them."""
    meta_file = path / "meta.json"
    # a build killed while swapping directories (or any dead writer's litter beside it)
    recover_parent(path.absolute().parent)
    if not meta_file.is_file():
        raise ArtefactError(
            f"{path} is not an SKB directory (no meta.json); build one with 'skb kb build'"
        )
    rebuild = "rebuild it with 'skb kb build'"
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ArtefactError(f"{meta_file}:{e.lineno}: corrupt meta.json ({e.msg})") from None
    except (UnicodeDecodeError, RecursionError, ValueError) as e:
        raise ArtefactError(f"{meta_file}: corrupt meta.json ({type(e).__name__}); {rebuild}") from None
    if not isinstance(meta, dict):
        raise ArtefactError(f"{meta_file}: corrupt meta.json (not a JSON object); {rebuild}")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ArtefactError(
            f"{path}: SKB format version {meta.get('format_version')} is not supported "
            f"(expected {FORMAT_VERSION}); rebuild it with 'skb kb build'"
        )
    try:
        schema = Schema.from_dict(meta.pop("schema"))
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ArtefactError(f"{meta_file}: missing or corrupt 'schema' ({e}); {rebuild}") from None
    nodes = _read_nodes(path, meta, mmap, rebuild)
    missing = [c for c in ("id", "type", "name") if c not in nodes.column_names]
    if missing:
        raise ArtefactError(f"{path / 'nodes.parquet'}: no column(s) {missing}; {rebuild}")
    efile = path / "edges.parquet"
    if not efile.is_file():
        raise ArtefactError(f"{efile} is missing; {rebuild}")
    n = nodes.num_rows
    if isinstance(meta.get("num_edges"), int):
        try:  # the footer only: a truncated or foreign file fails here, at load
            rows = pq.read_metadata(efile).num_rows
        except (OSError, ValueError, pa.ArrowException) as e:
            raise ArtefactError(f"{efile}: corrupt or truncated parquet ({str(e)[:200]}); "
                              f"{rebuild}") from None
        if rows != meta["num_edges"]:
            raise ArtefactError(f"{efile}: {rows} edges but meta.json says {meta['num_edges']}; "
                              f"{rebuild}")
        return Opened(nodes, schema, meta, None, lambda: _read_edges(efile, schema, n, mmap, rebuild))
    return Opened(nodes, schema, meta, _read_edges(efile, schema, n, mmap, rebuild), None)


def _once(opened: Opened) -> Callable[[], Edges]:
    """``opened``'s edge arrays, read on the first call only."""
    if opened.edges_loader is not None:
        return functools.cache(opened.edges_loader)
    edges = opened.edges
    assert edges is not None
    return lambda: edges


def read_generation(path: Path, gen: Generation, *, mmap: bool) -> Opened:
    """Generation ``gen`` of the directory ``path``: its base with the delta segments merged in."""
    base_dir = path if gen.base == "." else path / gen.base
    base = read_plain(base_dir, mmap=mmap)
    base_edges = _once(base)
    meta = dict(base.meta)
    meta.update(generation=gen.number, content_hash=gen.content_hash, base_hash=gen.base_hash,
                lineage=list(gen.lineage), segments=[s["name"] for s in gen.segments])
    gdir = base_dir / "graph"
    if not gen.segments:
        return Opened(base.nodes, base.schema, meta, None, base_edges, graph_dir=gdir)
    segs = [read_segment(path / SEGMENTS_DIR / s["name"], s["content_hash"])
            for s in gen.segments]
    saved = (gdir / "graph.json").is_file()
    try:
        base_graph = Graph.load(gdir) if saved else None
    except ArtefactError:  # refused when the graph is used, as before; counted from the edges now
        base_graph = None
    table, edges, schema, delta, n_edges = merge(base.nodes, base_edges, base.schema, segs, base_graph)
    meta.update(num_nodes=table.num_rows, num_edges=n_edges)
    factory = (lambda: merged_graph(base_graph or Graph.load(gdir), delta)) if saved else None
    # relations, roles and counts known (edges callable): the edge arrays built on first use
    return Opened(table, schema, meta, None if callable(edges) else edges,
                  edges if callable(edges) else None, merged=True,
                  new_of_base=delta.new_of_base, graph_factory=factory)

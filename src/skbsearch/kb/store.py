"""The SKB store: ``nodes.parquet``, ``edges.parquet``, ``meta.json`` and a CSR graph.

Node ids are strings at the API and dense int32 row numbers inside. Edges are kept as
three parallel arrays (source index, relation index, target index). A directory is
written atomically (temp dir + rename): a failed save keeps the previous SKB.

Beside the Parquet files (the canonical, compressed copy that the content hash covers) a
save writes ``nodes.arrow``: the same node table as an uncompressed Arrow IPC file. Loading
memory-maps it, so opening a 1M-node SKB reads no text at all and the text columns cost
memory only for the pages a query touches (a search that returns ids never reads the
descriptions). The edge arrays are read from ``edges.parquet`` on first use: serving goes
through the memory-mapped CSR graph instead.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, overload

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from skbsearch.core.atomic import atomic_dir, recover_dir, recover_parent
from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.kb.arrays import arrow_numpy, numeric_column, positions  # noqa: F401 - re-exported
from skbsearch.kb.generations import (
    GENERATIONS_DIR,
    SEGMENTS_DIR,
    Generation,
    collect_garbage,
    current,
)
from skbsearch.kb.graph import Graph
from skbsearch.kb.graph_merge import merged_graph
from skbsearch.kb.live import merge
from skbsearch.kb.predicate import select_mask
from skbsearch.kb.schema import RESERVED_COLUMNS, Node, Schema
from skbsearch.kb.segments import read_segment

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


def _write_arrow(table: pa.Table, file: Path) -> None:
    """Write ``table`` as an uncompressed Arrow IPC file (memory-mappable, zero-copy)."""
    with pa.OSFile(str(file), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)


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


#: edges per piece when the relation roles are read off the edge arrays
_ROLE_CHUNK = 1 << 18


class SKB:
    """A semi-structured knowledge base held in memory (Arrow table + numpy edge arrays).

    Build one with :class:`skbsearch.kb.SKBBuilder`, :meth:`from_columns`, a loader from
    :mod:`skbsearch.kb.loaders`, or :meth:`load` a saved directory.
    """

    def __init__(
        self,
        nodes: pa.Table,
        edge_src: np.ndarray | None,
        edge_rel: np.ndarray | None,
        edge_dst: np.ndarray | None,
        schema: Schema,
        meta: dict[str, Any] | None = None,
        path: Path | None = None,
        *,
        edges_loader: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
    ) -> None:
        """Wrap a node table and edge arrays; with ``edges_loader`` (and ``None`` arrays)
        the edges are read on first access of :attr:`edge_src` / ``edge_rel`` / ``edge_dst``."""
        self.nodes = nodes
        self._edges: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._edges_loader = edges_loader
        if edge_src is not None and edge_rel is not None and edge_dst is not None:
            self._edges = (np.asarray(edge_src, dtype=np.int32), np.asarray(edge_rel, dtype=np.int16),
                           np.asarray(edge_dst, dtype=np.int32))
        elif edges_loader is None:
            raise ValueError("SKB needs the edge arrays or an edges_loader")
        self.schema = schema
        self.meta = dict(meta or {})
        self.path = path
        #: where the saved CSR graph lives (``None``: build it from the edges on first use)
        self.graph_dir: Path | None = Path(path) / "graph" if path is not None else None
        self._graph: Graph | None = None
        self._graph_factory: Callable[[], Graph] | None = None
        #: a generation with segments: the row of each base node in this one (-1: deleted)
        self.new_of_base: np.ndarray | None = None

    def _edge_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self._edges is None:
            assert self._edges_loader is not None
            self._edges = self._edges_loader()
            self._edges_loader = None
        return self._edges

    @property
    def edge_src(self) -> np.ndarray:
        """Source node index of every edge (int32; read from ``edges.parquet`` on first use)."""
        return self._edge_arrays()[0]

    @property
    def edge_rel(self) -> np.ndarray:
        """Relation code of every edge (int16, into ``schema.relations``)."""
        return self._edge_arrays()[1]

    @property
    def edge_dst(self) -> np.ndarray:
        """Target node index of every edge (int32)."""
        return self._edge_arrays()[2]

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_columns(
        cls,
        ids: Sequence[str],
        types: Sequence[str],
        names: Sequence[str],
        *,
        fields: Mapping[str, Sequence[str | None]] | None = None,
        attributes: Mapping[str, Sequence[Any]] | None = None,
        edges: tuple[np.ndarray, Sequence[str] | np.ndarray, np.ndarray] | None = None,
        relations: Sequence[str] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> SKB:
        """Build an SKB from columns (fast path for generators and bulk loaders).

        Args:
            ids: one entry per node.
            types: one entry per node.
            names: one entry per node.
            fields: text columns, ``None`` where a node lacks the field.
            attributes: scalar columns.
            edges: ``(src_index, relation, dst_index)``; ``relation`` is either relation
                names per edge, or int codes into ``relations``.
            relations: relation names when ``edges`` carries int codes.
        """
        fields = dict(fields or {})
        attributes = dict(attributes or {})
        for col in list(fields) + list(attributes):
            if col in RESERVED_COLUMNS:
                raise InputError(f"'{col}' is reserved for the node {col}; rename the column", field=col)
        n = len(ids)
        cols: dict[str, pa.Array] = {
            "id": pa.array(list(ids), type=pa.string()),
            "type": pa.array(list(types), type=pa.string()).dictionary_encode(),
            "name": pa.array(list(names), type=pa.string()),
        }
        for name, values in fields.items():
            cols[name] = (values if isinstance(values, pa.Array)
                          else pa.array(list(values), type=pa.string()))
        for name, values in attributes.items():
            cols[name] = pa.array(list(values)) if not isinstance(values, pa.Array) else values
        for name, arr in cols.items():
            if len(arr) != n:
                raise InputError(f"column has {len(arr)} values for {n} nodes", field=name)
        table = pa.table(cols)
        type_names = sorted(set(table.column("type").combine_chunks().dictionary.to_pylist()))
        if edges is None:
            src = np.zeros(0, np.int32)
            rel = np.zeros(0, np.int16)
            dst = np.zeros(0, np.int32)
            rel_names = list(relations or [])
        else:
            src, r, dst = edges
            src = np.asarray(src, dtype=np.int32)
            dst = np.asarray(dst, dtype=np.int32)
            r = np.asarray(r)
            if r.dtype.kind in "iu":
                rel_names = list(relations or [])
                rel = r.astype(np.int16)
            else:
                uniq, inv = np.unique(r.astype(str), return_inverse=True)
                rel_names = [str(x) for x in uniq]
                rel = inv.astype(np.int16)
            if len(src) and (src.min() < 0 or src.max() >= n or dst.min() < 0 or dst.max() >= n):
                raise InputError("edge endpoint index out of range of the node list")
        schema = Schema(
            node_types=type_names,
            relations=rel_names,
            text_fields=list(fields),
            attributes={k: str(table.schema.field(k).type) for k in attributes},
        )
        skb = cls(table, src, rel, dst, schema, meta)
        skb.schema.relation_roles = skb._relation_roles()
        return skb

    def _relation_roles(self) -> dict[str, list[str | None]]:
        """Per relation, its one source type and one target type (None where several):
        one pass over the edges (a mask per relation would scan them once per relation)."""
        names = self.type_names
        n_types = max(len(names), 1)
        n_rel = max(len(self.schema.relations), 1)
        key_type: type[np.signedinteger[Any]] = np.int16 if n_rel * n_types < 2**15 else np.int64  # small keys: cache-resident
        types = self.node_type_codes.astype(key_type)
        sides = []
        for ends in (self.edge_src, self.edge_dst):
            seen = np.zeros(n_rel * n_types, bool)
            for a in range(0, len(ends), _ROLE_CHUNK):  # cache-sized pieces: no edge-long temporaries
                b = a + _ROLE_CHUNK
                seen[self.edge_rel[a:b].astype(key_type, copy=False) * key_type(n_types) + types[ends[a:b]]] = True
            pairs = np.flatnonzero(seen)
            r, t = pairs // n_types, pairs % n_types
            count = np.bincount(r, minlength=len(self.schema.relations))
            only = np.full(len(self.schema.relations), -1, np.int64)
            only[r[count[r] == 1]] = t[count[r] == 1]
            sides.append(only)
        return {rel_name: [names[sides[0][k]] if sides[0][k] >= 0 else None,
                           names[sides[1][k]] if sides[1][k] >= 0 else None]
                for k, rel_name in enumerate(self.schema.relations)}

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | Path, *, overwrite: bool = True, build_graph: bool = True,
             inputs: Iterable[str | Path | None] = ()) -> Path:
        """Write the SKB directory atomically (and its CSR graph unless told not to).

        An existing ``path`` is replaced only when it is an SKB directory (or empty) holding
        nothing but an SKB's own files, and never when it is or contains one of ``inputs``
        (the source files): see :func:`skbsearch.core.atomic.check_replaceable`. Its ``indexes/``
        are carried over (an index of other content is refused on use, naming the command
        that rebuilds it). ``meta.json`` records
        ``content_hash``, a digest of ``nodes.parquet`` and ``edges.parquet`` that indexes
        copy into their manifests to detect that the SKB was rebuilt since.
        """
        path = Path(path)
        with atomic_dir(path, overwrite=overwrite, kind="skb", inputs=inputs,
                        keep=("indexes",)) as tmp:
            pq.write_table(self.nodes, tmp / "nodes.parquet")
            _write_arrow(self.nodes, tmp / NODES_ARROW)
            rel_names = np.array(self.schema.relations, dtype=object)
            ids = self.ids_array
            edges = pa.table(
                {
                    "src": pa.array(ids[self.edge_src], type=pa.string()),
                    "relation": pa.DictionaryArray.from_arrays(
                        pa.array(self.edge_rel.astype(np.int32)),
                        pa.array(list(rel_names), type=pa.string()),
                    ),
                    "dst": pa.array(ids[self.edge_dst], type=pa.string()),
                    "src_idx": pa.array(self.edge_src),
                    "dst_idx": pa.array(self.edge_dst),
                }
            )
            pq.write_table(edges, tmp / "edges.parquet")
            meta = {"artefact": "skb", **{k: v for k, v in self.meta.items() if k not in GENERATION_KEYS}}
            meta.update(
                format_version=FORMAT_VERSION,
                num_nodes=self.num_nodes,
                num_edges=self.num_edges,
                content_hash=content_hash(tmp),
                schema=self.schema.to_dict(),
            )
            (tmp / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
            if build_graph:
                self.graph.save(tmp / "graph")
        self.meta["content_hash"] = meta["content_hash"]
        self.path = path
        self.graph_dir = path / "graph"
        return path

    @classmethod
    def load(cls, path: str | Path, *, mmap: bool = True) -> SKB:
        """Open a saved SKB directory at its newest committed generation.

        The node table is memory-mapped from ``nodes.arrow`` when the directory has it (every
        save writes it; older directories fall back to ``nodes.parquet``, read whole), the
        edge arrays are read on first use and the CSR graph is memory-mapped on first use.
        ``mmap=False`` reads everything from the Parquet files into memory. A directory
        changed by ``skb kb update`` opens the generation its newest manifest names (see
        :mod:`skbsearch.kb.generations`): the base with its delta segments merged in, whole.
        """
        path = Path(path)
        if not path.exists():
            recover_dir(path)  # a build killed while swapping directories
        gen = current(path) if (path / GENERATIONS_DIR).is_dir() else None
        collect_garbage(path)  # litter of a killed update; unreferenced parts
        if gen is None:
            return cls._load_plain(path, mmap=mmap)
        return cls._load_generation(path, gen, mmap=mmap)

    @classmethod
    def _load_generation(cls, path: Path, gen: Generation, *, mmap: bool) -> SKB:
        base_dir = path if gen.base == "." else path / gen.base
        base = cls._load_plain(base_dir, mmap=mmap)
        meta = dict(base.meta)
        meta.update(generation=gen.number, content_hash=gen.content_hash, base_hash=gen.base_hash,
                    lineage=list(gen.lineage), segments=[s["name"] for s in gen.segments])
        if not gen.segments:
            skb = cls(base.nodes, None, None, None, base.schema, meta, path,
                      edges_loader=base._edge_arrays)
            skb.graph_dir = base_dir / "graph"
            return skb
        segs = [read_segment(path / SEGMENTS_DIR / s["name"], s["content_hash"])
                for s in gen.segments]
        gdir = base_dir / "graph"
        saved = (gdir / "graph.json").is_file()
        try:
            base_graph = Graph.load(gdir) if saved else None
        except ArtefactError:  # refused when the graph is used, as before; counted from the edges now
            base_graph = None
        table, edges, schema, delta, n_edges = merge(base.nodes, base._edge_arrays, base.schema, segs, base_graph)
        meta.update(num_nodes=table.num_rows, num_edges=n_edges)
        if callable(edges):  # relations, roles and counts known: the edge arrays built on first use
            skb = cls(table, None, None, None, schema, meta, path, edges_loader=edges)
        else:
            skb = cls(table, *edges, schema, meta, path)
            skb.schema.relation_roles = skb._relation_roles()
        skb.graph_dir = None
        skb.new_of_base = delta.new_of_base
        if saved:  # merge the saved CSR instead of sorting every edge
            skb._graph_factory = lambda: merged_graph(base_graph or Graph.load(gdir), delta)
        return skb

    def base_rows(self) -> np.ndarray | None:
        """Per row, the row of the same node in this generation's base (-1: a node added by
        a segment), or ``None`` for an SKB opened without segments. A node replaced by a
        segment keeps its base row."""
        if self.new_of_base is None:
            return None
        out = np.full(self.num_nodes, -1, np.int64)
        alive = np.flatnonzero(self.new_of_base >= 0)
        out[self.new_of_base[alive]] = alive
        return out

    @classmethod
    def _load_plain(cls, path: Path, *, mmap: bool = True) -> SKB:
        path = Path(path)
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
            return cls(nodes, None, None, None, schema, meta, path,
                       edges_loader=lambda: _read_edges(efile, schema, n, mmap, rebuild))
        src, rel_codes, dst = _read_edges(efile, schema, n, mmap, rebuild)
        return cls(nodes, src, rel_codes, dst, schema, meta, path)

    # ------------------------------------------------------------------ accessors
    @property
    def identity(self) -> dict[str, Any]:
        """What indexes record to recognise this SKB: node count and content hash (if saved)."""
        return {"num_nodes": self.num_nodes, "skb_hash": self.meta.get("content_hash")}

    @property
    def num_nodes(self) -> int:
        """Number of nodes."""
        return self.nodes.num_rows

    @property
    def num_edges(self) -> int:
        """Number of edges."""
        if self._edges is None and isinstance(self.meta.get("num_edges"), int):
            return int(self.meta["num_edges"])
        return int(len(self.edge_src))

    @cached_property
    def ids(self) -> list[str]:
        """Node ids in index order."""
        return self.nodes.column("id").to_pylist()

    @cached_property
    def ids_array(self) -> np.ndarray:
        """Node ids as a numpy object array (for fancy indexing)."""
        return np.array(self.ids, dtype=object)

    @cached_property
    def _index(self) -> dict[str, int]:
        return {nid: i for i, nid in enumerate(self.ids)}

    @cached_property
    def type_names(self) -> list[str]:
        """Node type names; ``node_type_codes`` index into this list."""
        return list(self.schema.node_types)

    @cached_property
    def node_type_codes(self) -> np.ndarray:
        """Per-node int16 code into :attr:`type_names`."""
        col = self.nodes.column("type").combine_chunks()
        if isinstance(col, pa.DictionaryArray):
            local = [self.schema.node_types.index(t) for t in col.dictionary.to_pylist()]
            return np.array(local, dtype=np.int16)[arrow_numpy(col.indices)]
        lookup = {t: i for i, t in enumerate(self.schema.node_types)}
        return np.array([lookup[t] for t in col.to_pylist()], dtype=np.int16)

    def has_node(self, node_id: str) -> bool:
        """Whether ``node_id`` exists."""
        return node_id in self._index

    def index_of(self, node_ids: str | Iterable[str]) -> int | np.ndarray:
        """Internal int index of one id, or an int32 array for many; unknown ids raise."""
        if isinstance(node_ids, str):
            try:
                return self._index[node_ids]
            except KeyError:
                raise InputError(f"unknown node id {node_ids!r}", field="id") from None
        out = []
        for nid in node_ids:
            try:
                out.append(self._index[nid])
            except KeyError:
                raise InputError(f"unknown node id {nid!r}", field="id") from None
        return np.array(out, dtype=np.int32)

    @overload
    def id_of(self, indices: int | np.integer) -> str: ...
    @overload
    def id_of(self, indices: Iterable[int] | np.ndarray) -> list[str]: ...
    def id_of(self, indices: int | np.integer | Iterable[int] | np.ndarray) -> str | list[str]:
        """String id(s) for internal index(es)."""
        if isinstance(indices, (int, np.integer)):
            return self.ids[int(indices)]
        return [self.ids[int(i)] for i in indices]

    def column(self, name: str) -> list[Any]:
        """All values of a node column (cached)."""
        cache = self.__dict__.setdefault("_columns", {})
        if name not in cache:
            if name not in self.nodes.column_names:
                raise InputError(
                    f"no node column '{name}'; columns are {self.nodes.column_names}", field=name
                )
            cache[name] = self.nodes.column(name).to_pylist()
        return cache[name]

    def cell(self, name: str, row: int) -> Any:
        """One value of a node column (no whole-column list is made: for a few look-ups on a
        big SKB; :meth:`column` for many)."""
        cache = self.__dict__.get("_columns", {})
        if name in cache:
            return cache[name][row]
        if name not in self.nodes.column_names:
            raise InputError(f"no node column '{name}'; columns are {self.nodes.column_names}", field=name)
        return self.nodes.column(name)[int(row)].as_py()

    def node(self, node_id: str | int) -> Node:
        """One node by string id or internal index."""
        i = node_id if isinstance(node_id, (int, np.integer)) else self.index_of(node_id)
        i = int(i)
        if not 0 <= i < self.num_nodes:
            raise InputError(f"node index {i} out of range", field="id")
        fields = {}
        for f in self.schema.text_fields:
            v = self.column(f)[i]
            if v is not None:
                fields[f] = v
        attrs = {}
        for a in self.schema.attributes:
            v = self.column(a)[i]
            if v is not None:
                attrs[a] = v
        return Node(
            id=self.ids[i],
            type=self.type_names[int(self.node_type_codes[i])],
            name=self.column("name")[i] or "",
            fields=fields,
            attributes=attrs,
        )

    def nodes_of_type(self, *types: str) -> np.ndarray:
        """Internal indices of nodes whose type is one of ``types``."""
        codes = []
        for t in types:
            if t not in self.type_names:
                raise InputError(f"unknown node type {t!r}; types are {self.type_names}", field="type")
            codes.append(self.type_names.index(t))
        return np.flatnonzero(np.isin(self.node_type_codes, codes)).astype(np.int32)

    # ------------------------------------------------------------------ graph and SQL
    @property
    def graph(self) -> Graph:
        """The CSR adjacency (loaded memory-mapped from ``graph/`` if saved, else built)."""
        if self._graph is None and self._graph_factory is not None:
            self._graph = self._graph_factory()
        if self._graph is None:
            gdir = self.graph_dir
            if gdir is not None and (gdir / "graph.json").is_file():
                self._graph = Graph.load(gdir)
            else:
                self._graph = Graph.build(
                    self.num_nodes, self.edge_src, self.edge_rel, self.edge_dst, self.schema.relations
                )
        return self._graph

    def edges_table(self) -> pa.Table:
        """Edges as an Arrow table: ``src``, ``relation``, ``dst`` (string ids) and int indices."""
        ids = self.ids_array
        rels = np.array(self.schema.relations, dtype=object)
        return pa.table(
            {
                "src": pa.array(ids[self.edge_src] if self.num_edges else [], type=pa.string()),
                "relation": pa.array(rels[self.edge_rel] if self.num_edges else [],
                                     type=pa.string()),
                "dst": pa.array(ids[self.edge_dst] if self.num_edges else [], type=pa.string()),
                "src_idx": pa.array(self.edge_src),
                "dst_idx": pa.array(self.edge_dst),
            }
        )

    def sql(self, query: str, *, allow_files: bool = False) -> pa.Table:
        """Run the user's own SQL (DuckDB) over tables ``nodes`` and ``edges``.

        The connection sees the in-memory tables only: with ``allow_files=False`` (the
        default) DuckDB's external access is disabled and its configuration locked, so the
        query can neither read nor write files (``read_text``, ``COPY … TO``, ``ATTACH``…).
        This is for a user's own queries on their own machine (``skb kb sql``); text from
        other people goes through :meth:`select`, which never reaches SQL.
        """
        import duckdb

        nodes = self.nodes
        edges = self.edges_table()
        config: dict[str, str | bool | int | float | list[str]] = (
            {} if allow_files else {"enable_external_access": False, "lock_configuration": True})
        con = duckdb.connect(config=config)
        try:
            con.register("nodes", nodes)
            con.register("edges", edges)
            try:
                rel = con.sql(query)
                if rel is None:  # a statement without a result set
                    return pa.table({})
                fetch = getattr(rel, "to_arrow_table", None) or rel.arrow
                return fetch()
            except duckdb.Error as e:
                raise InputError(f"SQL error: {e}", field="query") from None
        finally:
            con.close()

    def select(self, predicate: str | None, types: Sequence[str] | None = None) -> np.ndarray:
        """Internal indices of nodes matching an attribute predicate (and node types).

        ``predicate`` uses the small language of :mod:`skbsearch.kb.predicate` (columns,
        literals, comparisons, ``AND/OR/NOT``, ``IN``, ``BETWEEN``, ``LIKE``,
        ``IS [NOT] NULL``); it is parsed, checked against the node columns and evaluated
        with Arrow kernels — never handed to an SQL engine.

        Raises:
            InputError: (field ``where``) a predicate outside the language or an unknown
                column/type.
        """
        if types:
            rows = self.nodes_of_type(*types)
        else:
            rows = np.arange(self.num_nodes, dtype=np.int32)
        if predicate is None or not str(predicate).strip():
            return rows
        mask = select_mask(predicate, self.nodes)
        keep = np.zeros(self.num_nodes, dtype=bool)
        keep[rows] = True
        return np.flatnonzero(mask & keep).astype(np.int32)

    def __repr__(self) -> str:
        return (
            f"SKB({self.num_nodes} nodes, {self.num_edges} edges, "
            f"types={self.type_names}, relations={self.schema.relations})"
        )

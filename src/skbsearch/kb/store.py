"""The SKB store: ``nodes.parquet``, ``edges.parquet``, ``meta.json`` and a CSR graph.

Node ids are strings at the API and dense int32 row numbers inside; edges are three parallel
arrays (source, relation, target). Saves are atomic (temp dir + rename). Beside the Parquet
files (the canonical copy the content hash covers) a save writes ``nodes.arrow``, memory-mapped
on load, so opening a 1M-node SKB reads no text; the edge arrays are read on first use.
The files are read and written in :mod:`skbsearch.kb.store_files`; the tables are made from
columns in :mod:`skbsearch.kb.store_columns`; user SQL runs in :mod:`skbsearch.kb.store_sql`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, overload

import numpy as np
import pyarrow as pa

from skbsearch.core.atomic import recover_dir
from skbsearch.core.errors import InputError
from skbsearch.kb.arrays import arrow_numpy, numeric_column, positions  # noqa: F401 - re-exported
from skbsearch.kb.generations import (
    GENERATIONS_DIR,
    collect_garbage,
    current,
)
from skbsearch.kb.graph import Graph
from skbsearch.kb.live_next import carried_caches, read_newest
from skbsearch.kb.predicate import select_mask
from skbsearch.kb.schema import Node, Schema
from skbsearch.kb.store_columns import edge_codes, node_table, relation_roles
from skbsearch.kb.store_files import (  # noqa: F401 - the file constants re-exported
    CONTENT_FILES,
    FORMAT_VERSION,
    GENERATION_KEYS,
    NODES_ARROW,
    Opened,
    content_hash,
    write_dir,
)
from skbsearch.kb.store_sql import edges_table, run_sql


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
        cls, ids: Sequence[str], types: Sequence[str], names: Sequence[str], *,
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
        table = node_table(ids, types, names, fields or {}, attributes or {})
        src, rel, dst, rel_names = edge_codes(edges, relations, len(ids))
        type_names = sorted(set(table.column("type").combine_chunks().dictionary.to_pylist()))
        schema = Schema(
            node_types=type_names,
            relations=rel_names,
            text_fields=list(fields or {}),
            attributes={k: str(table.schema.field(k).type) for k in attributes or {}},
        )
        skb = cls(table, src, rel, dst, schema, meta)
        skb.schema.relation_roles = skb._relation_roles()
        return skb

    def _relation_roles(self) -> dict[str, list[str | None]]:
        return relation_roles(self.type_names, self.node_type_codes, self.schema.relations,
                              self.edge_src, self.edge_rel, self.edge_dst)

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | Path, *, overwrite: bool = True, build_graph: bool = True,
             inputs: Iterable[str | Path | None] = ()) -> Path:
        """Write the SKB directory atomically (and its CSR graph unless told not to).

        An existing ``path`` is replaced only when it is an SKB directory (or empty) holding
        nothing but an SKB's own files, and never when it is or contains one of ``inputs``
        (the source files): see :func:`skbsearch.core.atomic.check_replaceable`. Its ``indexes/``
        are carried over (an index of other content is refused on use, naming the command
        that rebuilds it). ``meta.json`` records ``content_hash``, a digest of the node and
        edge files that indexes copy to detect that the SKB was rebuilt since.
        """
        meta = write_dir(Path(path), self.nodes, self.ids_array, self._edge_arrays(), self.schema,
                         self.meta, save_graph=self.graph.save if build_graph else None,
                         overwrite=overwrite, inputs=inputs)
        self.meta["content_hash"] = meta["content_hash"]
        self.path = Path(path)
        self.graph_dir = self.path / "graph"
        return self.path

    @classmethod
    def load(cls, path: str | Path, *, mmap: bool = True, previous: SKB | None = None) -> SKB:
        """Open a saved SKB directory at its newest committed generation.

        The node table is memory-mapped from ``nodes.arrow`` (older directories: ``nodes.parquet``,
        read whole; ``mmap=False`` reads all into memory); edges and the CSR graph are read on
        first use. A directory changed by ``skb kb update`` opens its newest generation
        (:mod:`skbsearch.kb.generations`): the base with its segments merged, or ``previous`` (its
        predecessor, in memory) with only the newer ones applied, keeping its unchanged look-ups.
        """
        path = Path(path)
        if not path.exists():
            recover_dir(path)  # a build killed while swapping directories
        gen = current(path) if (path / GENERATIONS_DIR).is_dir() else None
        collect_garbage(path)  # litter of a killed update; unreferenced parts
        skb = cls._opened(got := read_newest(path, gen, mmap=mmap, previous=previous), path)
        if previous is not None:  # rows that did not move keep the served generation's look-ups
            skb.__dict__.update(carried_caches(previous.__dict__, previous.nodes, skb.nodes, got.changed_rows))
        return skb

    @classmethod
    def _opened(cls, got: Opened, path: Path) -> SKB:
        """The SKB of a directory as :mod:`skbsearch.kb.store_files` read it."""
        src, rel, dst = got.edges if got.edges is not None else (None, None, None)
        skb = cls(got.nodes, src, rel, dst, got.schema, got.meta, path, edges_loader=got.edges_loader)
        if got.merged:  # a generation with segments: no saved graph of its own
            skb.graph_dir, skb.new_of_base = None, got.new_of_base
            skb._graph_factory = got.graph_factory
            if got.edges is not None:
                skb.schema.relation_roles = skb._relation_roles()
        elif got.graph_dir is not None:
            skb.graph_dir = got.graph_dir
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
        return edges_table(self.ids_array, self.schema.relations, self.edge_src, self.edge_rel,
                           self.edge_dst)

    def sql(self, query: str, *, allow_files: bool = False) -> pa.Table:
        """Run the user's own SQL (DuckDB) over tables ``nodes`` and ``edges``.

        The connection sees the in-memory tables only: with ``allow_files=False`` (the
        default) DuckDB's external access is disabled and its configuration locked, so the
        query can neither read nor write files (``read_text``, ``COPY … TO``, ``ATTACH``…).
        This is for a user's own queries on their own machine (``skb kb sql``); text from
        other people goes through :meth:`select`, which never reaches SQL.
        """
        return run_sql(self.nodes, self.edges_table(), query, allow_files=allow_files)

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

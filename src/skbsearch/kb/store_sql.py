"""A user's own SQL (DuckDB) over an SKB's node and edge tables, shut off from files, and
the edge table it sees.

:meth:`skbsearch.kb.store.SKB.sql` is the public door. Text from other people never comes
here: it goes through :meth:`~skbsearch.kb.store.SKB.select` (:mod:`skbsearch.kb.predicate`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from skbsearch.core.errors import InputError


def run_sql(nodes: pa.Table, edges: pa.Table, query: str, *, allow_files: bool = False) -> pa.Table:
    """``query`` over the tables ``nodes`` and ``edges`` in a fresh in-memory DuckDB; with
    ``allow_files=False`` external access is disabled and the configuration locked."""
    import duckdb

    config: dict[str, str | bool | int | float | list[str]] = {} if allow_files else {"enable_external_access": False,
                                     "lock_configuration": True}
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


def edges_table(ids: np.ndarray, relations: Sequence[str], edge_src: np.ndarray,
                edge_rel: np.ndarray, edge_dst: np.ndarray) -> pa.Table:
    """Edges as an Arrow table: ``src``, ``relation``, ``dst`` (string ids; ``ids`` an object
    array of node ids) and the int indices ``src_idx``, ``dst_idx``."""
    rels = np.array(relations, dtype=object)
    some = len(edge_src) > 0
    return pa.table(
        {
            "src": pa.array(ids[edge_src] if some else [], type=pa.string()),
            "relation": pa.array(rels[edge_rel] if some else [], type=pa.string()),
            "dst": pa.array(ids[edge_dst] if some else [], type=pa.string()),
            "src_idx": pa.array(edge_src),
            "dst_idx": pa.array(edge_dst),
        }
    )

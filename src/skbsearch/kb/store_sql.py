"""A user's own SQL (DuckDB) over an SKB's node and edge tables, shut off from files.

:meth:`skbsearch.kb.store.SKB.sql` is the public door. Text from other people never comes
here: it goes through :meth:`~skbsearch.kb.store.SKB.select` (:mod:`skbsearch.kb.predicate`).
"""

from __future__ import annotations

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

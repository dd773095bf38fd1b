"""A user's own SQL over an SKB's tables (``kb.store_sql``): answers from the node and edge
tables, files out of reach (read, write, or a configuration change to reach them) unless
allowed, errors named as the query's; the edge table by string ids and row indices."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.store_sql import edges_table, run_sql

IDS = np.array(["m1", "m2", "a1"], dtype=object)


def _tables() -> tuple[pa.Table, pa.Table]:
    nodes = pa.table({"id": list(IDS), "type": ["movie", "movie", "person"], "year": [1995, 1998, 1943]})
    edges = edges_table(IDS, ["directed_by", "starred_in"], np.array([2, 2], np.int32),
                        np.array([1, 1], np.int16), np.array([0, 1], np.int32))
    return nodes, edges


def test_edges_table_by_ids_and_rows() -> None:
    _, edges = _tables()
    assert edges.to_pydict() == {"src": ["a1", "a1"], "relation": ["starred_in", "starred_in"],
                                 "dst": ["m1", "m2"], "src_idx": [2, 2], "dst_idx": [0, 1]}
    empty = edges_table(IDS, ["r"], np.zeros(0, np.int32), np.zeros(0, np.int16), np.zeros(0, np.int32))
    assert empty.num_rows == 0 and empty.schema.field("src").type == pa.string()


def test_queries_join_nodes_and_edges() -> None:
    nodes, edges = _tables()
    got = run_sql(nodes, edges, "SELECT n.id, n.year FROM edges e JOIN nodes n ON n.id = e.dst "
                                "WHERE e.relation = 'starred_in' ORDER BY n.year DESC")
    assert got.to_pydict() == {"id": ["m2", "m1"], "year": [1998, 1995]}


@pytest.mark.parametrize("query", ["SELECT * FROM read_csv('{f}')", "COPY nodes TO '{d}/out.csv'",
                                   "SET enable_external_access = true"])
def test_files_are_out_of_reach(tmp_path: Path, query: str) -> None:
    f = tmp_path / "secret.csv"
    f.write_text("q\n1\n", encoding="utf-8")
    with pytest.raises(InputError, match="SQL error") as e:
        run_sql(*_tables(), query.format(f=f, d=tmp_path))
    assert e.value.field == "query"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret.csv"]  # nothing written


def test_files_when_allowed_and_errors_named(tmp_path: Path) -> None:
    f = tmp_path / "extra.csv"
    f.write_text("q\n1\n", encoding="utf-8")
    assert run_sql(*_tables(), f"SELECT q FROM read_csv('{f}')", allow_files=True).to_pydict() == {"q": [1]}
    with pytest.raises(InputError, match="SQL error.*nope") as e:
        run_sql(*_tables(), "SELECT nope FROM nodes")
    assert e.value.field == "query"

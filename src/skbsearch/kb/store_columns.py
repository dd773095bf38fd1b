"""An SKB's tables from columns: the node table, the edge arrays and each relation's roles.

:meth:`skbsearch.kb.store.SKB.from_columns` is the public door; these are its parts, and
:func:`relation_roles` is also what a generation with new edges recounts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from skbsearch.core.errors import InputError
from skbsearch.kb.schema import RESERVED_COLUMNS

#: edges per piece when the relation roles are read off the edge arrays
_ROLE_CHUNK = 1 << 18


def node_table(ids: Sequence[str], types: Sequence[str], names: Sequence[str],
               fields: Mapping[str, Sequence[str | None]],
               attributes: Mapping[str, Sequence[Any]]) -> pa.Table:
    """The node table (``id``, dictionary-encoded ``type``, ``name``, text fields, attributes);
    a reserved column name or a column of the wrong length is an :class:`InputError`."""
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
    return pa.table(cols)


def edge_codes(edges: tuple[np.ndarray, Sequence[str] | np.ndarray, np.ndarray] | None,
               relations: Sequence[str] | None, n: int) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray, list[str]]:
    """``(src int32, relation code int16, dst int32, relation names)`` of ``edges`` (relation
    names per edge, or int codes into ``relations``), endpoints checked against ``n`` nodes."""
    if edges is None:
        return (np.zeros(0, np.int32), np.zeros(0, np.int16), np.zeros(0, np.int32),
                list(relations or []))
    src_in, r_in, dst_in = edges
    src = np.asarray(src_in, dtype=np.int32)
    dst = np.asarray(dst_in, dtype=np.int32)
    r = np.asarray(r_in)
    if r.dtype.kind in "iu":
        rel_names = list(relations or [])
        rel = r.astype(np.int16)
    else:
        uniq, inv = np.unique(r.astype(str), return_inverse=True)
        rel_names = [str(x) for x in uniq]
        rel = inv.astype(np.int16)
    if len(src) and (src.min() < 0 or src.max() >= n or dst.min() < 0 or dst.max() >= n):
        raise InputError("edge endpoint index out of range of the node list")
    return src, rel, dst, rel_names


def relation_roles(names: Sequence[str], type_codes: np.ndarray, relations: Sequence[str],
                   edge_src: np.ndarray, edge_rel: np.ndarray,
                   edge_dst: np.ndarray) -> dict[str, list[str | None]]:
    """Per relation, its one source type and one target type (None where several):
    one pass over the edges (a mask per relation would scan them once per relation).
    ``type_codes`` index ``names`` per node; ``edge_rel`` indexes ``relations``."""
    n_types = max(len(names), 1)
    n_rel = max(len(relations), 1)
    key_type = np.int16 if n_rel * n_types < 2**15 else np.int64  # small keys: cache-resident
    types = type_codes.astype(key_type)
    sides = []
    for ends in (edge_src, edge_dst):
        seen = np.zeros(n_rel * n_types, bool)
        for a in range(0, len(ends), _ROLE_CHUNK):  # cache-sized pieces: no edge-long temporaries
            b = a + _ROLE_CHUNK
            codes = np.asarray(edge_rel[a:b], dtype=key_type)  # int16 * a Python int stays int16
            seen[codes * n_types + types[ends[a:b]]] = True
        pairs = np.flatnonzero(seen)
        r, t = pairs // n_types, pairs % n_types
        count = np.bincount(r, minlength=len(relations))
        only = np.full(len(relations), -1, np.int64)
        only[r[count[r] == 1]] = t[count[r] == 1]
        sides.append(only)
    return {rel_name: [names[sides[0][k]] if sides[0][k] >= 0 else None,
                       names[sides[1][k]] if sides[1][k] >= 0 else None]
            for k, rel_name in enumerate(relations)}

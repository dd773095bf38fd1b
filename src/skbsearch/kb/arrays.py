"""Arrow <-> numpy helpers shared by the store and the generation merge: zero-copy views of
fixed-width columns, numeric columns with NaN for nulls, and id look-ups by hash join."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

__all__ = ["arrow_numpy", "numeric_column", "positions"]


def arrow_numpy(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A numpy view of a null-free fixed-width Arrow array (ints, floats; booleans unpacked),
    zero-copy from its buffer; anything else through ``to_numpy``. (pyarrow's first ``to_numpy`` call in a process
    costs ~0.5 s of lazy set-up: a fresh process that only reads ints does not pay it.)"""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if arr.null_count == 0 and pa.types.is_boolean(t):
        buf = arr.buffers()[1]
        if buf is None:
            return np.zeros(0, bool)
        bits = np.unpackbits(np.frombuffer(buf, dtype=np.uint8), bitorder="little")
        return bits[arr.offset:arr.offset + len(arr)].astype(bool)
    if arr.null_count == 0 and (pa.types.is_integer(t) or pa.types.is_floating(t)):
        dtype = np.dtype(t.to_pandas_dtype())
        buf = arr.buffers()[1]
        if buf is None:
            return np.zeros(0, dtype)
        return np.frombuffer(buf, dtype=dtype)[arr.offset:arr.offset + len(arr)]
    return arr.to_numpy(zero_copy_only=False)


def numeric_column(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A numeric Arrow column as float64 with NaN for nulls, read through its buffers
    (``to_numpy`` and ``pyarrow.compute.fill_null`` import pandas: ~0.25 s of a fresh
    process's first query)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not (pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type)):
        return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=np.float64)
    raw = pa.Array.from_buffers(arr.type, len(arr), [None, arr.buffers()[1]], offset=arr.offset)
    values = arrow_numpy(raw).astype(np.float64)  # (pyarrow's cast would import pandas too)
    validity = arr.buffers()[0]
    if arr.null_count and validity is not None:
        bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
        values[~bits[arr.offset:arr.offset + len(arr)].astype(bool)] = np.nan
    return values


def positions(values: pa.Array | pa.ChunkedArray | Sequence[str],
              within: pa.Array | Sequence[str]) -> np.ndarray:
    """For each of ``values``, its position in ``within`` (the first, if repeated), or -1:
    one Arrow hash join (a 1M-id map in ~0.1 s instead of ~1 s of Python dict look-ups).
    A few values in a long ``within`` (the ids an update names among an SKB's) hash only the
    few and scan ``within`` once: ~15 ms for 3K ids among 1M instead of ~0.25 s."""
    vals = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(list(values), pa.string())
    ref = within if isinstance(within, pa.Array) else pa.array(list(within), pa.string())
    if isinstance(vals, pa.ChunkedArray):
        vals = vals.combine_chunks()
    if vals.type != ref.type:
        vals = vals.cast(ref.type)
    import pyarrow.compute as pc

    if len(ref) >= _FEW_AMONG * max(len(vals), 1) and len(ref) > 4096 and not (vals.null_count or ref.null_count):
        return _few_positions(vals, ref)
    found = pc.index_in(vals, value_set=ref)
    return arrow_numpy(pc.fill_null(found, -1)).astype(np.int64)


#: :func:`positions` hashes the values instead of ``within`` when it is this many times longer
_FEW_AMONG = 16


def _few_positions(vals: pa.Array, ref: pa.Array) -> np.ndarray:
    """:func:`positions` by a scan of ``ref`` against the distinct ``vals``."""
    import pyarrow.compute as pc

    enc = vals.dictionary_encode()
    distinct = enc.dictionary
    cand = np.flatnonzero(arrow_numpy(pc.fill_null(pc.is_in(ref, value_set=distinct), False)))
    which = arrow_numpy(pc.fill_null(pc.index_in(ref.take(pa.array(cand)), value_set=distinct), -1))
    first = np.full(len(distinct), -1, np.int64)
    hit = which >= 0
    w, c = which[hit].astype(np.int64), cand[hit]
    u, at = np.unique(w, return_index=True)  # candidates ascend: the first is the first row
    first[u] = c[at]
    return first[arrow_numpy(enc.indices).astype(np.int64)]


def take_rows(column: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array | pa.ChunkedArray:
    """``column.take(rows)`` without concatenating a column of many chunks first (what Arrow
    does, copying the whole column: an SKB generation's text columns are slices of the base
    around each changed row, one chunk per slice). Rows are taken chunk by chunk."""
    rows = np.asarray(rows, np.int64)
    if isinstance(column, pa.Array) or column.num_chunks <= 8 or not len(rows):
        return column.take(rows)
    starts = np.zeros(column.num_chunks + 1, np.int64)
    np.cumsum([len(c) for c in column.chunks], out=starts[1:])
    which = np.searchsorted(starts, rows, side="right") - 1
    order = np.argsort(which, kind="stable")
    bounds = np.flatnonzero(np.diff(which[order])) + 1
    pieces = [column.chunk(int(which[g[0]])).take(rows[g] - starts[which[g[0]]])
              for g in np.split(order, bounds)]
    taken = pa.concat_arrays(pieces)
    inverse = np.empty(len(rows), np.int64)
    inverse[order] = np.arange(len(rows))
    return taken.take(inverse)

"""Arrow helpers of kb.arrays: ``take_rows`` on a column of many chunks (an SKB generation's
text columns) equals Arrow's own ``take``, in any row order, repeated rows included."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from skbsearch.kb.arrays import positions, take_rows


@pytest.mark.parametrize("seed", range(4))
def test_take_rows_equals_arrow_take(seed: int) -> None:
    rng = np.random.default_rng(seed)
    col = pa.chunked_array([pa.array([f"s{i}_{j}" if j % 7 else None for j in range(rng.integers(1, 40))], pa.string())
                            for i in range(60)])
    for n in (0, 1, 5, 300):
        rows = rng.integers(0, len(col), n)
        assert take_rows(col, rows).to_pylist() == col.take(rows).to_pylist()
    few = pa.chunked_array([pa.array(["a", "b"]), pa.array(["c"])])
    assert take_rows(few, np.array([2, 0])).to_pylist() == ["c", "a"]


def test_positions_finds_first_or_minus_one() -> None:
    assert positions(["b", "z", "a"], ["a", "b", "b"]).tolist() == [1, -1, 0]

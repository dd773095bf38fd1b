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


@pytest.mark.parametrize("seed", range(3))
def test_positions_of_few_among_many_equal_the_hash_join(seed: int) -> None:
    """A few values in a long ``within`` take the scan path (the distinct values hashed, not
    ``within``): the same positions as Arrow's join over ``within``, repeats on both sides."""
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    within = pa.array([f"id{int(i)}" for i in rng.integers(0, 40_000, 20_000)], pa.string())
    for n in (0, 1, 7, 300):
        vals = [f"id{int(i)}" for i in rng.integers(0, 40_000, n)] + ["absent"] * (n % 2)
        vals += vals[: n // 3]  # repeated values
        join = pc.fill_null(pc.index_in(pa.array(vals, pa.string()), value_set=within), -1)
        assert positions(vals, within).tolist() == join.to_pylist()

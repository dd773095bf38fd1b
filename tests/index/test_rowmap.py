"""The append-only matrix of a dense index that followed an update (issue 25): the base
rows stay in place, new vectors are appended, and every read equals the folded matrix's."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from skbsearch.index.dense import DenseIndex, exact_topk, normalize
from skbsearch.index.rowmap import RowMappedMatrix


def _case() -> tuple[RowMappedMatrix, np.ndarray]:
    rng = np.random.default_rng(0)
    base = normalize(rng.normal(size=(50, 8)).astype(np.float32))
    appended = normalize(rng.normal(size=(5, 8)).astype(np.float32))
    # rows 3 and 7 deleted, row 10 replaced (its new vector appended), four new rows at the end
    live = [i for i in range(50) if i not in (3, 7)]
    pos = np.array(live + [50 + 1, 50 + 2, 50 + 3, 50 + 4])
    pos[live.index(10)] = 50
    folded = np.concatenate([base, appended])[pos]
    return RowMappedMatrix(base, appended, pos), folded


def test_reads_equal_the_folded_matrix() -> None:
    m, folded = _case()
    assert m.shape == folded.shape and len(m) == len(folded)
    rows = np.array([0, 8, 47, 51, 9])
    assert np.array_equal(m[rows], folded[rows]) and np.array_equal(m[49], folded[49])
    assert np.array_equal(np.asarray(m), folded)
    q = normalize(np.random.default_rng(1).normal(size=(3, 8)).astype(np.float32))
    assert np.allclose(m.inner(q), q @ folded.T, atol=1e-6)
    for (r1, s1), (r2, s2) in zip(exact_topk(m, q, 10), exact_topk(folded, q, 10), strict=True):
        assert np.array_equal(r1, r2) and np.allclose(s1, s2, atol=1e-6)


def test_dense_index_over_it_searches_and_saves_a_plain_matrix(tmp_path: Path) -> None:
    m, folded = _case()
    ids = [f"d{i}" for i in range(len(folded))]
    live, plain = (DenseIndex(ids, x, normalized=True) for x in (m, folded))
    q = folded[[5, 40]]
    for (r1, s1), (r2, s2) in zip(live.search(q, 5), plain.search(q, 5), strict=True):
        assert np.array_equal(r1, r2) and np.allclose(s1, s2, atol=1e-6)
    allowed = np.array([1, 2, 50, 51])
    assert [r.tolist() for r, _ in live.search(q, 2, allowed)] == [r.tolist() for r, _ in plain.search(q, 2, allowed)]
    live.save(tmp_path / "dense")
    again = DenseIndex.load(tmp_path / "dense")
    assert isinstance(again.embeddings, np.ndarray) and np.array_equal(np.asarray(again.embeddings), folded)

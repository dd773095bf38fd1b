"""Checks of compressed sparse arrays read from disk: a sound matrix passes, each broken
invariant is an ArtefactError naming where and what."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from skbsearch.core.csr import check_compressed
from skbsearch.core.errors import ArtefactError


def _csr() -> sp.csr_matrix:
    return sp.csr_matrix(np.array([[0, 1, 0], [2, 0, 3], [0, 0, 0], [4, 0, 0]], dtype=np.float32))


def test_a_sound_matrix_passes_rows_and_columns() -> None:
    m = _csr()
    check_compressed(m.indptr, m.indices, 4, 3, where="g", data=m.data)
    c = m.tocsc()
    check_compressed(c.indptr, c.indices, 3, 4, where="g", data=c.data)
    empty = np.zeros(1, dtype=np.int64)
    check_compressed(empty, np.zeros(0, dtype=np.int32), 0, 0, where="g")


@pytest.mark.parametrize(("change", "problem"), [
    (lambda p, i, d: (p.astype(np.float64), i, d), "indptr is not a 1-D integer array"),
    (lambda p, i, d: (p, i.reshape(2, 2), d), "indices is not a 1-D integer array"),
    (lambda p, i, d: (p[:-1], i, d), "indptr has 4 entries, expected 5"),
    (lambda p, i, d: (p + 1, i, d), "indptr starts at 1, not 0"),
    (lambda p, i, d: (p, i[:-1], d[:-1]), "indptr ends at 4 but there are 3 indices"),
    (lambda p, i, d: (p, i, d[:-1]), "3 values for 4 indices"),
    (lambda p, i, d: (np.array([0, 3, 1, 1, 4], dtype=p.dtype), i, d), "indptr decreases"),
    (lambda p, i, d: (p, np.array([1, 0, 3, 0], dtype=i.dtype), d),
     r"indices range over \[0, 3\], outside \[0, 3\)"),
    (lambda p, i, d: (p, np.array([1, -1, 2, 0], dtype=i.dtype), d), r"indices range over \[-1, 2\]"),
])
def test_each_broken_invariant_is_named(change, problem: str) -> None:
    m = _csr()
    indptr, indices, data = change(m.indptr, m.indices, m.data)
    with pytest.raises(ArtefactError, match=rf"^kb/graph/rel0: corrupt sparse matrix \({problem}"):
        check_compressed(indptr, indices, 4, 3, where="kb/graph/rel0", data=data,
                         hint="run skb kb build again")


def test_the_hint_ends_the_message() -> None:
    m = _csr()
    with pytest.raises(ArtefactError, match=r"\(indptr starts at 1, not 0\); run skb kb build again$"):
        check_compressed(m.indptr + 1, m.indices, 4, 3, where="x", hint="run skb kb build again")

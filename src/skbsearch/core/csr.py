"""Checks of compressed sparse (CSR/CSC) arrays read from disk.

A damaged ``indptr`` or ``indices`` array does not always fail loudly: an out-of-range
index raises deep inside traversal or scoring, and a non-monotone ``indptr`` silently
gives wrong neighbours or scores. :func:`check_compressed` validates the invariants
once, at load time, in a few vectorised passes (no copies beyond a ``diff``).
"""

from __future__ import annotations

import numpy as np

from skbsearch.core.errors import ArtefactError


def check_compressed(
    indptr: np.ndarray,
    indices: np.ndarray,
    n_major: int,
    n_minor: int,
    *,
    where: str,
    data: np.ndarray | None = None,
    hint: str = "rebuild it",
    check_indices: bool = True,
) -> None:
    """Validate one compressed sparse matrix (CSR rows, or CSC columns).

    Checks: 1-D integer arrays; ``len(indptr) == n_major + 1``; ``indptr[0] == 0``;
    ``indptr`` non-decreasing; ``indptr[-1] == len(indices)`` (and ``== len(data)``);
    every index in ``[0, n_minor)``.

    Args:
        indptr, indices: the arrays (may be memory-mapped).
        n_major: number of rows (CSR) or columns (CSC).
        n_minor: the other dimension: indices must be below it.
        where: what to name in the error (a file or directory and the matrix).
        data: the values array, if any (its length is checked).
        hint: what the user should do, appended to the message.
        check_indices: also check that every index is in range (a pass over ``indices``;
            ``False``: only the pointers and the lengths are read, for a caller that checks
            each major's indices when it first reads them).

    Raises:
        ArtefactError: naming ``where`` and the broken invariant.
    """

    def fail(problem: str) -> None:
        raise ArtefactError(f"{where}: corrupt sparse matrix ({problem}); {hint}")

    for name, arr in (("indptr", indptr), ("indices", indices)):
        if arr.ndim != 1 or arr.dtype.kind not in "iu":
            fail(f"{name} is not a 1-D integer array (shape {arr.shape}, dtype {arr.dtype})")
    if len(indptr) != n_major + 1:
        fail(f"indptr has {len(indptr)} entries, expected {n_major + 1}")
    if int(indptr[0]) != 0:
        fail(f"indptr starts at {int(indptr[0])}, not 0")
    if int(indptr[-1]) != len(indices):
        fail(f"indptr ends at {int(indptr[-1])} but there are {len(indices)} indices")
    if data is not None and len(data) != len(indices):
        fail(f"{len(data)} values for {len(indices)} indices")
    if n_major and not bool((np.diff(indptr) >= 0).all()):
        fail("indptr decreases")
    if check_indices and len(indices):
        lo, hi = int(indices.min()), int(indices.max())
        if lo < 0 or hi >= n_minor:
            fail(f"indices range over [{lo}, {hi}], outside [0, {n_minor})")

"""Exact inner-product top-k with torch (the dense index's ``torch`` backend): a GPU's pace.

The document matrix is copied to the device once (at the device's precision: fp16 on a
GPU, halving its size) and each block of queries is one matrix product plus
``torch.topk``. When the matrix does not fit (or ``chunk_rows`` is given) it is searched in
chunks of rows: each chunk's top-k joins the running top-k, so the answer is the same as
one pass over all rows. On the CPU device (fp32) the ranking equals the numpy backend's;
ties are ordered by row, as there; fp16 rounding on a GPU can swap near-ties.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from skbsearch.core.devices import DeviceSpec

Hits = tuple[np.ndarray, np.ndarray]
#: Fraction of the free GPU memory the resident matrix may take.
_RESIDENT_SHARE = 0.6


class TorchSearcher:
    """Exact top-``k`` search of ``matrix`` rows on a torch device.

    Args:
        matrix: ``(n, dim)`` float32 unit rows (a memory map is read chunk by chunk).
        spec: the device and precision (:func:`skbsearch.core.devices.resolve`).
        chunk_rows: search in chunks of this many rows, copied to the device per search
            (default: the whole matrix, kept resident, when it fits in the device's memory).
        query_block: queries per matrix product.
    """

    def __init__(self, matrix: np.ndarray, spec: DeviceSpec, *, chunk_rows: int | None = None,
                 query_block: int = 1024) -> None:
        import torch

        self.torch = torch
        self.matrix = matrix
        self.spec = spec
        self.query_block = max(1, int(query_block))
        n = int(matrix.shape[0])
        if chunk_rows is None and not self._fits(matrix):
            chunk_rows = self._rows_that_fit(matrix)
        self.chunk_rows = max(1, int(chunk_rows)) if chunk_rows is not None else None
        self.resident: Any = None
        if self.chunk_rows is None or self.chunk_rows >= n:
            self.chunk_rows = None
            self.resident = self._to_device(matrix)

    def _fits(self, matrix: np.ndarray) -> bool:
        if not self.spec.is_cuda:
            return True
        free, _ = self.torch.cuda.mem_get_info(self.spec.device)
        itemsize = 2 if self.spec.precision != "fp32" else 4
        return matrix.shape[0] * matrix.shape[1] * itemsize < _RESIDENT_SHARE * free

    def _rows_that_fit(self, matrix: np.ndarray) -> int:
        free, _ = self.torch.cuda.mem_get_info(self.spec.device)
        return max(1, int(0.25 * free / (matrix.shape[1] * 4)))

    def _to_device(self, block: np.ndarray) -> Any:
        with warnings.catch_warnings():  # a read-only memory map: torch only reads it
            warnings.simplefilter("ignore", UserWarning)
            t = self.torch.from_numpy(np.ascontiguousarray(block, dtype=np.float32))
        if self.spec.is_cuda:  # pinning costs more than it saves on small blocks (queries)
            t = t.pin_memory() if t.nbytes >= 1 << 20 else t
            t = t.to(self.spec.device, non_blocking=True)
        return t.to(self.spec.dtype)

    def search(self, queries: np.ndarray, k: int) -> list[Hits]:
        """Top-``k`` ``(rows, scores)`` per query row, best first (ties: lower row first)."""
        n = int(self.matrix.shape[0])
        k = max(0, min(int(k), n))
        out: list[Hits] = []
        with self.torch.inference_mode():
            for s in range(0, len(queries), self.query_block):
                q = self._to_device(queries[s : s + self.query_block])
                scores, rows = self._block_topk(q, k)
                out.extend(_order(r, sc) for r, sc in zip(rows, scores, strict=True))
        return out

    def _block_topk(self, q: Any, k: int) -> tuple[np.ndarray, np.ndarray]:
        torch = self.torch
        if self.resident is not None:
            best_s, best_i = torch.topk(q @ self.resident.T, k, dim=1)
            return best_s.float().cpu().numpy(), best_i.cpu().numpy()
        best_s = best_i = None
        n, step = int(self.matrix.shape[0]), int(self.chunk_rows or 1)
        for start in range(0, n, step):
            chunk = self._to_device(self.matrix[start : start + step])
            s, i = torch.topk(q @ chunk.T, min(k, chunk.shape[0]), dim=1)
            i = i + start
            if best_s is not None:
                both = torch.cat([best_s, s], dim=1)
                s, j = torch.topk(both, min(k, both.shape[1]), dim=1)
                i = torch.gather(torch.cat([best_i, i], dim=1), 1, j)
            best_s, best_i = s, i
        return best_s.float().cpu().numpy(), best_i.cpu().numpy()


def _order(rows: np.ndarray, scores: np.ndarray) -> Hits:
    """Best first, ties by row (as the numpy backend)."""
    order = np.lexsort((rows, -scores))
    return rows[order].astype(np.int64), scores[order].astype(np.float32)

"""Checks of a saved BM25 index that read no posting at open.

Opening an index checks what the open reads anyway: the term pointers (``indptr``, one entry
a term), the lengths of the arrays, the tokenizer's ids and the per-term constants of
bm25l/bm25+ (:func:`check_open`). A term's postings are checked the first time a query reads
them (:class:`PostingChecks`): its document ids inside the index and in ascending order (the
kernels binary-search them), its scores finite (a NaN score never ranks: a damaged index would
answer "no results" silently). So an open touches no page of the memory-mapped postings (at
1M documents, validating all of them read 360 MB and took ~0.9 s), and a damaged term is
refused, naming the file and what is wrong, by the first query that uses it; the other terms
keep answering.
"""

from __future__ import annotations

import threading
from pathlib import Path

import bm25s
import numpy as np
from bm25s.tokenization import Tokenizer

from skbsearch.core.csr import check_compressed
from skbsearch.core.errors import ArtefactError


class PostingChecks:
    """Which terms' postings are still to be checked, and the check (see the module's doc).

    Args:
        path: the index directory (named in the errors).
        hint: how to rebuild, appended to the errors.
        n_terms, num_docs: the score matrix's terms and documents.
    """

    def __init__(self, path: Path, hint: str, n_terms: int, num_docs: int) -> None:
        self.path, self.hint, self.num_docs = path, hint, int(num_docs)
        self._todo = np.ones(n_terms, dtype=bool)
        self._left = int(n_terms)
        self._lock = threading.Lock()

    def require(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, terms: np.ndarray) -> None:
        """Check the postings of ``terms`` (term ids of the matrix) that no query has read
        yet; once all are checked, one vectorised look-up (nothing at all once every term of
        the index is). Raises :class:`ArtefactError` for a damaged term."""
        if not self._left or not len(terms):
            return
        todo = terms[self._todo[terms]]
        if not len(todo):
            return
        for t in np.unique(todo).tolist():
            self._check(indptr, indices, data, t)
            with self._lock:
                if self._todo[t]:
                    self._todo[t] = False
                    self._left -= 1

    def _check(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, t: int) -> None:
        a, b = int(indptr[t]), int(indptr[t + 1])
        if a == b:
            return
        rows = indices[a:b]
        lo, hi = int(rows.min()), int(rows.max())
        where = f"{self.path} (BM25 scores)"
        if lo < 0 or hi >= self.num_docs:
            raise ArtefactError(f"{where}: corrupt sparse matrix (indices of term {t} range over [{lo}, {hi}], "
                                f"outside [0, {self.num_docs})); {self.hint}")
        if b - a > 1 and not bool((rows[1:] >= rows[:-1]).all()):
            raise ArtefactError(f"{where}: corrupt sparse matrix (indices of term {t} are not in ascending "
                                f"order); {self.hint}")
        vals = data[a:b]
        # min and max propagate NaN: two vectorised passes, no temporary
        if not (np.isfinite(vals.max()) and np.isfinite(vals.min())):
            raise ArtefactError(f"{self.path}/data.csc.index.npy: damaged bm25 index (scores of term {t} that "
                                f"are NaN or infinite); {self.hint}")


def check_open(path: Path, bm: bm25s.BM25, tokenizer: Tokenizer, num_docs: int, hint: str) -> PostingChecks:
    """Validate what an open reads of a loaded CSC score matrix (terms x documents): the
    pointers and lengths, the token ids against it, the per-term constants; returns the
    checks of the postings, made per term on first use. ``hint``: how to rebuild, for the
    error."""
    sc = bm.scores
    indptr, indices, data = (np.asarray(sc[k]) for k in ("indptr", "indices", "data"))
    if indptr.ndim != 1 or len(indptr) < 1:
        raise ArtefactError(f"{path}/indptr.csc.index.npy: corrupt sparse matrix (empty indptr); {hint}")
    n_terms = len(indptr) - 1
    check_compressed(indptr, indices, n_terms, num_docs, where=f"{path} (BM25 scores)", data=data, hint=hint,
                     check_indices=False)
    if data.ndim != 1:
        raise ArtefactError(f"{path}/data.csc.index.npy: corrupt sparse matrix (scores of shape {data.shape}); "
                            f"{hint}")
    ids = [*tokenizer.word_to_id.values(), *tokenizer.stem_to_sid.values()]
    if not all(type(i) is int and 0 <= i < n_terms for i in ids):
        raise ArtefactError(f"{path}/vocab.tokenizer.json: token ids outside the {n_terms} terms of the "
                            f"score matrix; {hint}")
    nonocc = bm.nonoccurrence_array
    if nonocc is not None:
        if len(nonocc) != n_terms:
            raise ArtefactError(f"{path}: {len(nonocc)} non-occurrence scores for {n_terms} terms; {hint}")
        if len(nonocc) and not (np.isfinite(nonocc.max()) and np.isfinite(nonocc.min())):
            raise ArtefactError(f"{path}/nonoccurrence_array.index.npy: damaged bm25 index (scores that are "
                                f"NaN or infinite); {hint}")
    return PostingChecks(path, hint, n_terms, num_docs)

"""Term-major term frequencies of a BM25 index, and the compiled merge that lets it follow
SKB updates in time proportional to the index, not to Python.

:class:`Postings` holds, per term, its postings (CSC: ``indptr`` over terms, ``rows`` sorted
within a term) and, aligned posting for posting, the term frequency in every field
(``tf[f]``, 0 where the term is not in that field of that document), plus every document's
length per field (``lengths[f]``). One structure for all fields, so that:

- :class:`Merge` folds a delta into a base in one pass per term: base rows renumbered to the
  live rows (deleted rows dropped, rows re-tokenised in a field lose that field's counts) and
  the delta's postings interleaved in row order;
- :meth:`Merge.first_occurrences` finds each term's first (field, document) in the merged
  postings before merging, so that :meth:`Merge.run` writes the terms straight in a
  rebuild's vocabulary order;
- :mod:`skbsearch.index.bm25_scoring` scores every posting straight into the term x
  document CSC arrays the query kernels read.

The kernels are numba-compiled (``cache=True``) when numba is installed; without it they
run as plain Python (correct, slow on large indexes). :func:`save` and :func:`load` keep the
postings in an index's ``live/`` folder.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from skbsearch.core.errors import ArtefactError
from skbsearch.index.kernels import njit, prange

#: file layout version of ``live/`` (1: per-field document-major matrices, no longer read)
FORMAT = 2


@dataclass
class Postings:
    """Per-field term frequencies of every (term, document) posting, term-major."""

    fields: list[str]
    indptr: np.ndarray  #: int64, ``n_terms + 1``
    rows: np.ndarray  #: int32, one per posting, ascending within a term
    tf: np.ndarray  #: int32, ``(n_fields, nnz)``
    lengths: np.ndarray  #: int32, ``(n_fields, n_docs)``

    @property
    def n_terms(self) -> int:
        """Number of terms (columns of the score matrix)."""
        return len(self.indptr) - 1

    @property
    def n_docs(self) -> int:
        """Number of documents."""
        return int(self.lengths.shape[1])

    def equals(self, other: Postings) -> bool:
        """Same fields, postings, counts and lengths."""
        return (self.fields == other.fields and all(
            np.array_equal(np.asarray(a), np.asarray(b)) for a, b in (
                (self.indptr, other.indptr), (self.rows, other.rows), (self.tf, other.tf),
                (self.lengths, other.lengths))))

    @classmethod
    def from_tokens(cls, tokens: Mapping[str, Sequence[Sequence[int]]], n_vocab: int,
                    rows: Mapping[str, np.ndarray] | None = None, n_docs: int | None = None) -> Postings:
        """The postings of tokenised documents, ``{field: token ids per document}``; with
        ``rows``, field ``f``'s documents are rows ``rows[f]`` (ascending) of ``n_docs``."""
        fields = list(tokens)
        nf = len(fields)
        n = n_docs if n_docs is not None else (len(next(iter(tokens.values()))) if tokens else 0)
        out = cls(fields, np.zeros(n_vocab + 1, np.int64), np.zeros(0, np.int32),
                  np.zeros((nf, 0), np.int32), np.zeros((nf, n), np.int32))
        for fi, f in enumerate(fields):
            csc, lengths = _field_csc(tokens[f], n_vocab)
            at = np.asarray(rows[f], np.int64) if rows is not None else np.arange(len(tokens[f]))
            out.lengths[fi, at] = lengths
            tf = np.zeros((nf, csc.nnz), np.int32)
            tf[fi] = csc.data
            one = cls(fields, csc.indptr.astype(np.int64), at[csc.indices].astype(np.int32), tf, out.lengths)
            out = merge(out, one, np.arange(n, dtype=np.int64), None) if out.rows.size else one
        return out


def _field_csc(token_ids: Sequence[Sequence[int]], n_vocab: int) -> tuple[sp.csc_matrix, np.ndarray]:
    """Terms x documents term counts (sorted CSC, int32) and per-document lengths, as bm25s
    counts them."""
    lengths = np.fromiter((len(t) for t in token_ids), dtype=np.int64, count=len(token_ids))
    flat = np.fromiter(itertools.chain.from_iterable(token_ids), dtype=np.int32, count=int(lengths.sum()))
    docs = np.repeat(np.arange(len(token_ids), dtype=np.int32), lengths)
    m = sp.csr_matrix((np.ones(len(flat), np.int32), (docs, flat)), shape=(len(token_ids), n_vocab))
    m.sum_duplicates()
    m = m.tocsc()
    m.sort_indices()
    return m, lengths.astype(np.int32)


# ---------------------------------------------------------------------- merging
#: work blocks per parallel pass (terms grouped into blocks of about equal postings: a few
#: terms hold most postings, so an even split of the terms would leave a thread idle)
_BLOCKS = 64


def work_blocks(work: np.ndarray) -> np.ndarray:
    """Boundaries (``len + 1``) splitting items of these sizes into up to :data:`_BLOCKS`
    consecutive blocks of about equal total size."""
    cum = np.concatenate([[0], np.cumsum(np.asarray(work, np.int64))])
    cuts = np.searchsorted(cum, np.linspace(0, cum[-1], _BLOCKS + 1), side="left")
    cuts[0], cuts[-1] = 0, len(work)
    return np.unique(cuts)


@njit(cache=True, nogil=True)
def _merge_term(i, t, ip_a, rows_a, tf_a, row_map, plain, keep, ip_b, rows_b, tf_b, write, n,
                out_rows, out_tf, df):  # pragma: no cover - compiled
    """Merge term ``t``'s postings into output term ``i`` from position ``n`` (only counted
    unless ``write``); returns the position after them."""
    nf = tf_b.shape[0]
    na_terms = len(ip_a) - 1
    pa = ip_a[t] if t < na_terms else 0
    ea = ip_a[t + 1] if t < na_terms else 0
    pb = ip_b[t]
    eb = ip_b[t + 1]
    while pa < ea or pb < eb:
        nxt = rows_b[pb] if pb < eb else np.int32(2147483647)
        p0 = pa
        while pa < ea:  # fast path: base postings of rows kept whole, before the next delta row
            r = plain[rows_a[pa]]
            if r < 0 or r >= nxt:
                break
            if write:
                out_rows[n + pa - p0] = r
            pa += 1
        if write:  # their counts: one straight copy per field
            for f in range(nf):
                c = 0
                for j in range(pa - p0):
                    v = tf_a[f, p0 + j]
                    out_tf[f, n + j] = v
                    if v != 0:
                        c += 1
                df[f, i] += c
        n += pa - p0
        if pa >= ea and pb >= eb:
            break
        ra = -1
        src = 0
        if pa < ea:
            src = rows_a[pa]
            ra = row_map[src]
            if ra < 0:
                pa += 1
                continue
        rb = rows_b[pb] if pb < eb else -1
        from_a = ra >= 0 and (rb < 0 or ra <= rb)
        both = from_a and ra == rb
        nonzero = False
        for step in range(2):  # 0: is anything left? 1: write it
            if step == 1 and not (write and nonzero):
                break
            for f in range(nf):
                v = (tf_a[f, pa] if keep[f, src] else 0) if from_a else 0
                if both or not from_a:
                    v += tf_b[f, pb]
                if step == 0:
                    nonzero = nonzero or v != 0
                else:
                    out_tf[f, n] = v
                    if v != 0:
                        df[f, i] += 1
        if write and nonzero:
            out_rows[n] = ra if from_a else rb
        if from_a:
            pa += 1
        if both or not from_a:
            pb += 1
        if nonzero:
            n += 1
    return n


@njit(cache=True, nogil=True, parallel=True)
def _merge_kernel(ip_a, rows_a, tf_a, row_map, plain, keep, ip_b, rows_b, tf_b, order,
                  blocks):  # pragma: no cover - compiled
    nf = tf_b.shape[0]
    m = len(order)
    counts = np.zeros(m, np.int64)
    no_rows = np.empty(0, np.int32)
    no_tf = np.empty((nf, 0), np.int32)
    no_df = np.empty((nf, 0), np.int64)
    for k in prange(len(blocks) - 1):  # pass 1: how many postings each term keeps
        for i in range(blocks[k], blocks[k + 1]):
            counts[i] = _merge_term(i, order[i], ip_a, rows_a, tf_a, row_map, plain, keep, ip_b, rows_b,
                                    tf_b, False, 0, no_rows, no_tf, no_df)
    out_ip = np.zeros(m + 1, np.int64)
    out_ip[1:] = np.cumsum(counts)
    out_rows = np.empty(out_ip[m], np.int32)
    out_tf = np.empty((nf, out_ip[m]), np.int32)
    df = np.zeros((nf, m), np.int64)
    for k in prange(len(blocks) - 1):  # pass 2: write them at their places
        for i in range(blocks[k], blocks[k + 1]):
            _merge_term(i, order[i], ip_a, rows_a, tf_a, row_map, plain, keep, ip_b, rows_b, tf_b, True,
                        out_ip[i], out_rows, out_tf, df)
    return out_ip, out_rows, out_tf, df


@njit(cache=True, nogil=True)
def _first_kernel(ip_a, rows_a, tf_a, row_map, keep, ip_b, rows_b, tf_b):  # pragma: no cover - compiled
    nf = tf_b.shape[0]
    n_terms = len(ip_b) - 1
    na_terms = len(ip_a) - 1
    first_f = np.full(n_terms, nf, np.int64)
    first_r = np.zeros(n_terms, np.int64)
    for t in range(n_terms):
        for f in range(nf):
            best = -1
            if t < na_terms:
                for p in range(ip_a[t], ip_a[t + 1]):
                    src = rows_a[p]
                    if row_map[src] >= 0 and keep[f, src] and tf_a[f, p] != 0:
                        best = row_map[src]
                        break
            for p in range(ip_b[t], ip_b[t + 1]):
                if tf_b[f, p] != 0:
                    if best < 0 or rows_b[p] < best:
                        best = rows_b[p]
                    break
            if best >= 0:
                first_f[t] = f
                first_r[t] = best
                break
    return first_f, first_r


class Merge:
    """``base`` with its rows renumbered by ``row_map`` (``-1``: dropped; kept rows in
    ascending order, else :class:`ValueError`), field ``f`` of base row ``r`` kept only where
    ``keep[f, r]`` (``None``: all), and ``delta``'s postings added (their rows already final;
    where both have a row, the counts add up). Terms and lengths are ``delta``'s."""

    def __init__(self, base: Postings, delta: Postings, row_map: np.ndarray, keep: np.ndarray | None) -> None:
        row_map = np.asarray(row_map, np.int64)
        kept = row_map[row_map >= 0]
        if len(kept) > 1 and not bool(np.all(np.diff(kept) > 0)):
            raise ValueError("merge: row_map must keep base rows in ascending order")
        if keep is None:
            keep = np.ones((len(base.fields), len(row_map)), np.bool_)
        self.base, self.delta = base, delta
        keep = np.asarray(keep, np.bool_)
        # the final row of each base row kept whole (-1: dropped, or re-tokenised in a field)
        self.plain = np.where((row_map >= 0) & keep.all(axis=0), row_map, -1).astype(np.int32)
        self.args = (np.asarray(base.indptr, np.int64), np.asarray(base.rows, np.int32),
                     np.asarray(base.tf, np.int32), row_map, keep,
                     np.asarray(delta.indptr, np.int64), np.asarray(delta.rows, np.int32),
                     np.asarray(delta.tf, np.int32))

    def first_occurrences(self) -> tuple[np.ndarray, np.ndarray]:
        """Per term of the result: the first field holding it and its first row there
        (``field == n_fields`` for a term no row holds), without merging."""
        return _first_kernel(*self.args)

    def run(self, order: np.ndarray | None = None) -> tuple[Postings, np.ndarray]:
        """The merged postings, terms ``order`` (default: all, in place) renumbered
        ``0, 1, ...``, and their document frequencies per field (``(n_fields, n_terms)``)."""
        order = np.arange(self.delta.n_terms, dtype=np.int64) if order is None else np.asarray(order, np.int64)
        ip_a, rows_a, tf_a, row_map, keep, ip_b, rows_b, tf_b = self.args
        ip, rows, tf, df = _merge_kernel(ip_a, rows_a, tf_a, row_map, self.plain, keep, ip_b, rows_b, tf_b,
                                         order, self.blocks(order))
        return Postings(list(self.delta.fields), ip, rows, tf, self.delta.lengths), df

    def blocks(self, order: np.ndarray) -> np.ndarray:
        """Work blocks of about equal postings over the output terms ``order`` (see :func:`work_blocks`)."""
        ip_a, ip_b = self.args[0], self.args[5]
        na = len(ip_a) - 1
        size = np.where(order < na, ip_a[np.minimum(order, na - 1) + 1] - ip_a[np.minimum(order, na - 1)], 0) \
            if na else np.zeros(len(order), np.int64)
        return work_blocks(size + ip_b[order + 1] - ip_b[order])


def merge(base: Postings, delta: Postings, row_map: np.ndarray, keep: np.ndarray | None) -> Postings:
    """:class:`Merge` of ``base`` and ``delta``, every term kept in place."""
    return Merge(base, delta, row_map, keep).run()[0]


# ---------------------------------------------------------------------- persistence
def save(directory: Path, post: Postings) -> None:
    """Write ``post`` into ``directory`` (a new folder: ``.npy`` arrays and ``postings.json``)."""
    out = Path(directory)
    out.mkdir()
    for name in ("indptr", "rows", "tf", "lengths"):
        np.save(out / f"{name}.npy", np.ascontiguousarray(getattr(post, name)))
    (out / "postings.json").write_text(json.dumps({"format": FORMAT, "fields": post.fields}), encoding="utf-8")


def load(directory: Path, hint: str) -> Postings | None:
    """The postings saved in ``directory`` (memory-mapped), or ``None`` if there are none;
    ``hint``: how to rebuild, for the error a damaged or old layout raises."""
    d = Path(directory)
    if (d / "fields.json").is_file():
        raise ArtefactError(f"{d}: term statistics in an older layout (before format {FORMAT}); {hint}")
    if not (d / "postings.json").is_file():
        return None
    try:
        meta = json.loads((d / "postings.json").read_text(encoding="utf-8"))
        a = {p: np.load(d / f"{p}.npy", mmap_mode="r", allow_pickle=False)
             for p in ("indptr", "rows", "tf", "lengths")}
        post = Postings([str(f) for f in meta["fields"]], a["indptr"], a["rows"], a["tf"], a["lengths"])
        ok = (int(meta.get("format", 0)) == FORMAT and post.tf.shape == (len(post.fields), len(post.rows))
              and post.lengths.shape[0] == len(post.fields) and int(post.indptr[-1]) == len(post.rows))
    except (OSError, ValueError, KeyError, TypeError, EOFError, IndexError) as e:
        raise ArtefactError(f"{d}: damaged term statistics ({type(e).__name__}); {hint}") from None
    if not ok:
        raise ArtefactError(f"{d}: damaged term statistics (inconsistent shapes); {hint}")
    return post

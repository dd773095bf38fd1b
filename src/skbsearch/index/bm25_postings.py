"""Term-major term frequencies of a BM25 index, and the compiled passes that let it follow
SKB updates in time proportional to the index, not to Python.

:class:`Postings` holds, per term, its postings (CSC: ``indptr`` over terms, ``rows`` sorted
within a term) and, aligned posting for posting, the term frequency in every field
(``tf[f]``, 0 where the term is not in that field of that document), plus every document's
length per field (``lengths[f]``). One structure for all fields, so that:

- :class:`Merge` folds a delta into a base in one pass per term: base rows renumbered to the
  live rows (deleted rows dropped, rows re-tokenised in a field lose that field's counts) and
  the delta's postings interleaved in row order;
- :func:`score` computes every posting's weighted multi-field BM25 score with bm25s's own
  float32/float64 steps (the same values as :func:`skbsearch.index.bm25_build.score_fields`
  followed by :func:`~skbsearch.index.bm25_build.combine_fields` over the same documents),
  straight into the term x document CSC arrays the query kernels read;
- :meth:`Merge.first_occurrences` finds each term's first (field, document) in the merged
  postings before merging, so that :meth:`Merge.run` writes the terms straight in a
  rebuild's vocabulary order.

The kernels are numba-compiled (``cache=True``) when numba is installed; without it they
run as plain Python (correct, slow on large indexes).
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from skbsearch.core.errors import ArtefactError
from skbsearch.index.kernels import AVAILABLE, njit, prange

#: file layout version of ``live/`` (1: per-field document-major matrices, no longer read)
FORMAT = 2
#: BM25 variants by the form of their term-frequency component (see :func:`_tfc_one`)
_METHOD_CODE = {"robertson": 0, "lucene": 0, "atire": 1, "bm25l": 2, "bm25+": 3}
#: the most (term frequency, document length) cells tabulated per field by :func:`score`
TABLE_MAX = 4_000_000
#: the term frequencies tabulated per field (1 .. TABLE_TF - 1; higher ones are rare)
TABLE_TF = 64


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


def _blocks(work: np.ndarray) -> np.ndarray:
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
        """Work blocks of about equal postings over the output terms ``order`` (see :func:`_blocks`)."""
        ip_a, ip_b = self.args[0], self.args[5]
        na = len(ip_a) - 1
        size = np.where(order < na, ip_a[np.minimum(order, na - 1) + 1] - ip_a[np.minimum(order, na - 1)], 0) \
            if na else np.zeros(len(order), np.int64)
        return _blocks(size + ip_b[order + 1] - ip_b[order])


def merge(base: Postings, delta: Postings, row_map: np.ndarray, keep: np.ndarray | None) -> Postings:
    """:class:`Merge` of ``base`` and ``delta``, every term kept in place."""
    return Merge(base, delta, row_map, keep).run()[0]


# ---------------------------------------------------------------------- statistics and scores
@njit(cache=True, nogil=True)
def _df_kernel(indptr, tf):  # pragma: no cover - compiled
    nf = tf.shape[0]
    n_terms = len(indptr) - 1
    df = np.zeros((nf, n_terms), np.int64)
    for t in range(n_terms):
        for p in range(indptr[t], indptr[t + 1]):
            for f in range(nf):
                if tf[f, p] != 0:
                    df[f, t] += 1
    return df


def document_frequencies(post: Postings) -> np.ndarray:
    """``(n_fields, n_terms)``: per field, the documents holding each term."""
    return _df_kernel(np.asarray(post.indptr, np.int64), np.asarray(post.tf, np.int32))


def idf(method: str, df: np.ndarray, n: int, dtype: Any = np.float32) -> np.ndarray:
    """bm25s's idf per term (``math.log`` on float64; 0 where df is 0), stored as ``dtype``
    (float32 for the scores; bm25s's non-occurrence scores use the float64 values)."""
    out = np.zeros(len(df), dtype)
    nz = np.flatnonzero(df)
    d = df[nz].astype(np.float64)
    if method == "robertson":
        inner = np.maximum((n - d + 0.5) / (d + 0.5), 1.0)
    elif method == "lucene":
        inner = 1 + (n - d + 0.5) / (d + 0.5)
    elif method == "atire":
        inner = n / d
    elif method == "bm25l":
        inner = (n + 1) / (d + 0.5)
    else:  # bm25+
        inner = (n + 1) / d
    out[nz] = np.array([math.log(x) for x in inner.tolist()], dtype=np.float64)
    return out


@njit(cache=True, nogil=True)
def _tfc_one(code, tf, l_d, l_avg, k1, b, delta):  # pragma: no cover - compiled
    """bm25s's term-frequency component of one posting, operation for operation: float64,
    except that atire's and bm25+'s numerator ``(k1 + 1) * tf`` is a float32 product there
    (a Python float times bm25s's float32 counts)."""
    norm = (1 - b) + b * l_d / l_avg
    if code == 0:
        return tf / (k1 * norm + tf)
    num = np.float64(np.float32(tf) * np.float32(k1 + 1))
    if code == 1:
        return num / (tf + k1 * norm)
    if code == 2:
        c = tf / norm
        return ((k1 + 1) * (c + delta)) / (k1 + c + delta)
    return num / (k1 * norm + tf) + delta


@njit(cache=True, nogil=True)
def _tfc_table(code, cells, width, l_avg, k1, b, delta):  # pragma: no cover - compiled
    """:func:`_tfc_one` of every (term frequency, length) cell, ``tf * width + length``."""
    out = np.empty(cells, np.float64)
    for i in range(cells):
        out[i] = _tfc_one(code, np.float64(np.float32(i // width)), np.float64(i % width), l_avg, k1, b, delta)
    return out


@njit(cache=True, nogil=True)
def _score_term(t, p0, p1, rows, tf, lengths, idf_f, nonocc_f, table, table_at, cap, width, weights,
                active, code, l_avg, k1, b, delta, out):  # pragma: no cover - compiled
    """The weighted multi-field score of postings ``p0 .. p1`` of term ``t`` into ``out[p]``
    (cell ``(tf, length)`` of field ``f`` read off ``table`` where ``tf < cap[f]``, else
    computed: the same value); returns how many scored 0."""
    nf = tf.shape[0]
    idf_t, nonocc_t = np.empty(nf, np.float64), np.empty(nf, np.float64)
    for f in range(nf):  # the term's constants, out of the loop
        idf_t[f] = np.float64(idf_f[f, t])
        nonocc_t[f] = np.float64(nonocc_f[f, t])
    zeros = 0
    for p in range(p0, p1):
        r = rows[p]
        acc = np.float32(0.0)
        seen = False
        for f in range(nf):
            v = tf[f, p]
            if v == 0 or not active[f]:
                continue
            ln = lengths[f, r]
            if v < cap[f]:
                c = table[table_at[f] + v * width[f] + ln]
            else:
                c = _tfc_one(code, np.float64(np.float32(v)), np.float64(ln), l_avg[f], k1, b[f], delta)
            s = np.float32(idf_t[f] * c - nonocc_t[f])
            if weights[f] != np.float32(1.0):
                s = np.float32(weights[f] * s)
            acc = np.float32(acc + s) if seen else s
            seen = True
        out[p] = acc
        if acc == 0:
            zeros += 1
    return zeros


@njit(cache=True, nogil=True, parallel=True)
def _score_kernel(indptr, rows, tf, lengths, idf_f, nonocc_f, table, table_at, cap, width, weights,
                  active, code, l_avg, k1, b, delta, blocks):  # pragma: no cover - compiled
    """Every posting's weighted multi-field score (``out[p]``), blocks of terms in parallel,
    and how many scored 0."""
    out = np.zeros(len(rows), np.float32)
    zeros = np.zeros(len(blocks), np.int64)
    for k in prange(len(blocks) - 1):
        for t in range(blocks[k], blocks[k + 1]):
            zeros[k] += _score_term(t, indptr[t], indptr[t + 1], rows, tf, lengths, idf_f, nonocc_f, table, table_at,
                        cap, width, weights, active, code, l_avg, k1, b, delta, out)
    return out, zeros.sum()


def _cell_tables(lengths: np.ndarray, active: np.ndarray, code: int, k1: float, b: np.ndarray,
                 delta: float) -> tuple[np.ndarray, ...]:
    """Per active field: its average length and a table of the term-frequency component of
    every (term frequency, length) cell with a frequency below ``cap[f]`` (at most
    :data:`TABLE_TF`, and :data:`TABLE_MAX` cells), so that each is computed once; a posting
    with a higher frequency is computed where it is scored, the same value (no pass over
    every posting for the largest frequency). Returns ``(l_avg, table, table_at, cap, width)``."""
    nf = len(active)
    l_avg, width = np.zeros(nf, np.float64), np.zeros(nf, np.int64)
    cap, table_at = np.zeros(nf, np.int64), np.zeros(nf, np.int64)
    tables, at = [], 0
    for i in np.flatnonzero(active):
        lens = np.asarray(lengths[i], np.int64)
        l_avg[i] = float(lens.mean()) if len(lens) else 0.0
        width[i] = int(lens.max(initial=0)) + 1
        rows = min(TABLE_TF, TABLE_MAX // int(width[i]))
        if rows > 0:
            tables.append(_tfc_table(code, rows * int(width[i]), int(width[i]), l_avg[i], k1, float(b[i]), delta))
            cap[i], table_at[i] = rows, at
            at += rows * int(width[i])
    table = np.concatenate(tables) if tables else np.zeros(1, np.float64)
    return l_avg, table, table_at, cap, width


def _drop_zeros(ip: np.ndarray, rows: np.ndarray, data: np.ndarray, n_zero: int,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The CSC without its ``n_zero`` postings that score 0 (an idf of 0, a field weighted 0),
    as a build leaves them out."""
    if n_zero:
        zero = data == 0
        kept = np.concatenate([[0], np.cumsum(~zero)])
        ip, rows, data = kept[ip], rows[~zero], data[~zero]
    return ip, rows, data


@njit(cache=True, nogil=True, parallel=True)
def _bm25f_kernel(indptr, rows, tf, lengths, idf_t, weights, active, b_f, l_avg, code, k1, delta,
                  blocks):  # pragma: no cover - compiled
    """Every posting's BM25F score: the weighted, length-normalised term frequencies of the
    fields summed, saturated once (the variant's own form with a unit norm), times the term's
    idf; and how many scored 0."""
    nf = tf.shape[0]
    out = np.zeros(len(rows), np.float32)
    zeros = np.zeros(len(blocks), np.int64)
    for k in prange(len(blocks) - 1):
        for t in range(blocks[k], blocks[k + 1]):
            for p in range(indptr[t], indptr[t + 1]):
                r = rows[p]
                acc = 0.0
                for f in range(nf):
                    v = tf[f, p]
                    if v == 0 or not active[f]:
                        continue
                    acc += weights[f] * v / ((1 - b_f[f]) + b_f[f] * lengths[f, r] / l_avg[f])
                if acc > 0:
                    out[p] = np.float32(idf_t[t] * _tfc_one(code, acc, 1.0, 1.0, k1, 0.0, delta))
                if out[p] == 0:
                    zeros[k] += 1
    return out, zeros.sum()


def _field_b(post: Postings, params: Mapping[str, Any]) -> np.ndarray:
    """Each field's ``b``: its ``field_b`` entry, else the index's ``b``."""
    field_b = params.get("field_b") or {}
    return np.array([float(field_b.get(f, params["b"])) for f in post.fields], np.float64)


def _score_bm25f(post: Postings, params: Mapping[str, Any]) -> tuple[np.ndarray, int]:
    """:func:`_bm25f_kernel` over ``post`` with ``params``: the scores and how many are 0."""
    method, k1 = params["method"], float(params["k1"])
    weights = params["field_weights"]
    n = post.n_docs
    w = np.array([weights[f] for f in post.fields], np.float64)
    tf = np.asarray(post.tf, np.int32)
    lens = np.asarray(post.lengths, np.int32)
    l_avg = np.array([max(float(np.asarray(lens[i], np.int64).mean()), 1e-9) if n else 1.0
                      for i in range(len(post.fields))], np.float64)
    active = (w > 0) & (l_avg > 1e-9)
    ip = np.asarray(post.indptr, np.int64)
    # documents holding the term in any weighted field: every posting when all fields count
    if active.all():
        df = np.diff(ip)
    else:
        held = (tf[active] != 0).any(axis=0)
        cum = np.concatenate([[0], np.cumsum(held, dtype=np.int64)])
        df = cum[ip[1:]] - cum[ip[:-1]]
    data, n_zero = _bm25f_kernel(ip, np.asarray(post.rows, np.int32), tf, lens, idf(method, df, n, np.float64),
                                 w, active, _field_b(post, params), l_avg, _METHOD_CODE[method], k1,
                                 float(params.get("delta", 0.5)), _blocks(np.diff(ip)))
    return data, int(n_zero)


def score(post: Postings, params: Mapping[str, Any], df: np.ndarray | None = None,
          ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], np.ndarray | None]:
    """``((indptr, indices, data), nonoccurrence)``: the weighted sum of every field's BM25
    scores (terms x documents CSC, zeros dropped) with each field's own statistics, and the
    weighted non-occurrence scores (bm25l / bm25+ only), as a build over these documents.
    ``df``: the document frequencies if known (:meth:`Merge.run` counts them). Postings are
    scored in parallel over terms; the CSC shares ``post``'s arrays unless a score is 0.
    With ``params["combine"] == "bm25f"``, BM25F scores instead (:func:`_bm25f_kernel`)."""
    if params.get("combine", "sum") == "bm25f":
        data, n_zero = _score_bm25f(post, params)
        return _drop_zeros(np.asarray(post.indptr, np.int64), np.asarray(post.rows, np.int32), data, n_zero), None
    method, k1, delta = params["method"], float(params["k1"]), float(params.get("delta", 0.5))
    code = _METHOD_CODE[method]
    weights, b_f = params["field_weights"], _field_b(post, params)
    nf, n = len(post.fields), post.n_docs
    df = document_frequencies(post) if df is None else df
    active = np.array([weights[f] != 0 and bool(df[i].any()) for i, f in enumerate(post.fields)], np.bool_)
    l_avg, table, table_at, cap, width = _cell_tables(post.lengths, active, code, k1, b_f, delta)
    idf_f = np.zeros((nf, post.n_terms), np.float32)
    nonocc_f = np.zeros((nf, post.n_terms), np.float32)
    nonocc = np.zeros(post.n_terms, np.float32) if method in ("bm25l", "bm25+") else None
    for i, f in enumerate(post.fields):
        if not active[i]:
            continue
        idf_f[i] = idf(method, df[i], n)
        if nonocc is not None:
            zero = _tfc_one(code, 0.0, l_avg[i], l_avg[i], k1, b_f[i], delta)
            nonocc_f[i] = np.where(df[i] > 0, idf(method, df[i], n, np.float64) * zero, 0).astype(np.float32)
            nonocc += np.float32(weights[f]) * nonocc_f[i]
    w = np.array([weights[f] for f in post.fields], np.float32)
    ip, rows = np.asarray(post.indptr, np.int64), np.asarray(post.rows, np.int32)
    data, n_zero = _score_kernel(ip, rows, np.asarray(post.tf, np.int32), np.asarray(post.lengths, np.int32), idf_f,
                         nonocc_f, table, table_at, cap, width, w, active, code, l_avg, k1, b_f, delta,
                         _blocks(np.diff(ip)))
    return _drop_zeros(ip, rows, data, int(n_zero)), nonocc


def _frozen(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


@functools.cache
def warm() -> None:
    """Once per process: compile the passes for the array types a catch-up hands them (stored postings are
    memory-mapped, read-only), or load them from numba's disk cache (seconds the first time
    on a machine, milliseconds after), so that no update pays for it. A no-op without numba."""
    if not AVAILABLE:
        return
    tiny = Postings.from_tokens({"a": [[0, 1]], "b": [[1]]}, 2)
    stored = Postings(tiny.fields, *(_frozen(np.asarray(getattr(tiny, k))) for k in ("indptr", "rows", "tf", "lengths")))
    m = Merge(stored, tiny, np.zeros(1, np.int64), None)
    m.first_occurrences()
    out, df = m.run()
    for combine in ("sum", "bm25f"):
        score(out, {"method": "lucene", "k1": 1.5, "b": 0.75, "field_weights": {"a": 1.0, "b": 2.0},
                    "combine": combine}, df)


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

"""Every posting's BM25 score from the term frequencies of :class:`~skbsearch.index.bm25_postings.Postings`:
the weighted multi-field sum with bm25s's own float32/float64 steps (the same values as
:func:`skbsearch.index.bm25_build.score_fields` followed by
:func:`~skbsearch.index.bm25_build.combine_fields` over the same documents), or BM25F,
straight into the term x document CSC arrays the query kernels read; what a build and a
catch-up both run. Compiled with numba (``cache=True``) when installed.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from skbsearch.index.bm25_postings import Merge, Postings, work_blocks
from skbsearch.index.kernels import AVAILABLE, njit, prange

#: BM25 variants by the form of their term-frequency component (see :func:`_tfc_one`)
_METHOD_CODE = {"robertson": 0, "lucene": 0, "atire": 1, "bm25l": 2, "bm25+": 3}
#: the most (term frequency, document length) cells tabulated per field by :func:`score`
TABLE_MAX = 4_000_000
#: the term frequencies tabulated per field (1 .. TABLE_TF - 1; higher ones are rare)
TABLE_TF = 64


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
                                 float(params.get("delta", 0.5)), work_blocks(np.diff(ip)))
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
                         work_blocks(np.diff(ip)))
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

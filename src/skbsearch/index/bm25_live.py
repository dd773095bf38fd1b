"""BM25 that follows a changing SKB: term statistics kept per field, scores recomputed with the
statistics of the live data, so that results equal a full rebuild's.

A BM25 score depends on corpus-wide statistics (the number of documents, each term's document
frequency, the average document length), so one new document changes every stored score.
An index therefore also keeps, per field, the term frequencies of every document (a CSR
matrix, documents x terms) and the document lengths (``live/`` in its directory). To catch up
with a newer generation of its SKB, :func:`catch_up` takes the documents the pending segments
did not touch from those matrices, tokenises only the new and changed documents (the
vocabulary grows as in a build), recomputes document frequencies and average lengths over the
result and rescores every posting with bm25s's own formulas (same float32/float64 steps:
:func:`field_scores`), in the SKB's row order. Nothing is re-read or re-tokenised for the
untouched documents; the result is an ordinary :class:`~skbsearch.index.sparse.BM25Index`.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from skbsearch.core.errors import ArtefactError
from skbsearch.index.bm25_docs import source_texts
from skbsearch.kb.arrays import positions
from skbsearch.kb.generations import SEGMENTS_DIR, read_generation
from skbsearch.kb.segments import read_segment

LIVE_DIR = "live"
#: per field: (documents x terms term-frequency CSR matrix, document lengths)
TermStats = dict[str, tuple[sp.csr_matrix, np.ndarray]]


def term_frequencies(token_ids: Sequence[Sequence[int]], n_vocab: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """Documents x terms term counts and per-document lengths (as bm25s counts them)."""
    lengths = np.fromiter((len(t) for t in token_ids), dtype=np.int64, count=len(token_ids))
    flat = np.fromiter(itertools.chain.from_iterable(token_ids), dtype=np.int32, count=int(lengths.sum()))
    rows = np.repeat(np.arange(len(token_ids), dtype=np.int32), lengths)
    m = sp.csr_matrix((np.ones(len(flat), np.int32), (rows, flat)), shape=(len(token_ids), n_vocab))
    m.sum_duplicates()
    m.sort_indices()
    return m, lengths.astype(np.int32)


def save_term_stats(directory: Path, stats: TermStats) -> None:
    """Write ``stats`` under ``directory/live`` (``.npy`` files and ``fields.json``)."""
    out = Path(directory) / LIVE_DIR
    out.mkdir()
    files = {}
    for k, (f, (m, lengths)) in enumerate(stats.items()):
        for part, arr in (("indptr", m.indptr), ("indices", m.indices), ("data", m.data), ("len", lengths)):
            np.save(out / f"f{k}.{part}.npy", np.asarray(arr))
        files[f] = {"stem": f"f{k}", "shape": list(m.shape)}
    (out / "fields.json").write_text(json.dumps(files), encoding="utf-8")


def load_term_stats(directory: Path) -> TermStats | None:
    """The term statistics saved with an index (memory-mapped), or ``None`` if it has none."""
    d = Path(directory) / LIVE_DIR
    if not (d / "fields.json").is_file():
        return None
    try:
        files = json.loads((d / "fields.json").read_text(encoding="utf-8"))
        out: TermStats = {}
        for f, info in files.items():
            a = {p: np.load(d / f"{info['stem']}.{p}.npy", mmap_mode="r", allow_pickle=False)
                 for p in ("indptr", "indices", "data", "len")}
            m = sp.csr_matrix((a["data"], a["indices"], a["indptr"]), shape=tuple(info["shape"]))
            out[str(f)] = (m, np.asarray(a["len"]))
    except (OSError, ValueError, KeyError, TypeError, EOFError) as e:
        raise ArtefactError(f"{d}: damaged term statistics ({type(e).__name__}); rebuild the index "
                          "with 'skb index SKB_DIR --kind bm25 --force'") from None
    return out


# ---------------------------------------------------------------------- bm25s's formulas
def _idf(method: str, df: np.ndarray, n: int) -> np.ndarray:
    """bm25s's idf per term (``math.log`` on float64, stored float32; 0 where df is 0)."""
    out = np.zeros(len(df), np.float32)
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


def _tfc(method: str, tf: np.ndarray, l_d: np.ndarray, l_avg: float, k1: float, b: float,
         delta: float) -> np.ndarray:
    """bm25s's term-frequency component in float64, operation for operation."""
    norm = (1 - b) + b * l_d / l_avg
    if method in ("robertson", "lucene"):
        return tf / (k1 * norm + tf)
    if method == "atire":
        return (tf * (k1 + 1)) / (tf + k1 * norm)
    if method == "bm25l":
        c = tf / norm
        return ((k1 + 1) * (c + delta)) / (k1 + c + delta)
    return ((k1 + 1) * tf) / (k1 * norm + tf) + delta  # bm25+


#: the most (term frequency, document length) pairs tabulated by :func:`_posting_tfc`
_TABLE_MAX = 4_000_000


def _posting_tfc(tf: sp.csr_matrix, lengths: np.ndarray, p: tuple[str, float, float, float, float]) -> np.ndarray:
    """bm25s's term-frequency component of every posting (float64). It depends only on the
    pair (term frequency, document length), of which there are few: computed once per pair
    of a table and gathered (the same float64 values as computing it per posting)."""
    method, l_avg, k1, b, delta = p
    if not tf.nnz:
        return np.zeros(0, np.float64)
    lens = np.repeat(np.asarray(lengths, np.int64), np.diff(tf.indptr))
    data = np.asarray(tf.data)
    width = int(lens.max(initial=0)) + 1
    cells = (int(data.max(initial=0)) + 1) * width
    if cells > _TABLE_MAX:
        return _tfc(method, data.astype(np.float32).astype(np.float64), lens.astype(np.float64), l_avg, k1, b, delta)
    grid_tf, grid_len = np.divmod(np.arange(cells, dtype=np.int64), width)
    table = _tfc(method, grid_tf.astype(np.float32).astype(np.float64), grid_len.astype(np.float64),
                 l_avg, k1, b, delta)
    lens += data.astype(np.int64) * width
    return table[lens]


def field_scores(tf: sp.csr_matrix, lengths: np.ndarray, params: dict[str, Any],
                 n_vocab: int) -> tuple[sp.csr_matrix, np.ndarray | None]:
    """One field's BM25 score matrix (documents x terms, CSR) and non-occurrence scores, as
    bm25s's ``build_index_from_ids`` computes them over these documents."""
    method, k1, b, delta = params["method"], params["k1"], params["b"], params.get("delta", 0.5)
    n = tf.shape[0]
    l_avg = float(np.asarray(lengths, np.int64).mean()) if n else 0.0
    df = np.bincount(np.asarray(tf.indices), minlength=n_vocab)[:n_vocab]
    idf = _idf(method, df, n)
    scores = idf[tf.indices].astype(np.float64) * _posting_tfc(tf, lengths, (method, l_avg, k1, b, delta))
    nonocc = None
    if method in ("bm25l", "bm25+"):
        zero = _tfc(method, np.zeros(1), np.array([l_avg]), l_avg, k1, b, delta)[0]
        nonocc = np.where(df > 0, idf.astype(np.float64) * zero, 0).astype(np.float32)
        scores = scores - nonocc[tf.indices]
    m = sp.csr_matrix((scores.astype(np.float32), np.asarray(tf.indices), np.asarray(tf.indptr)),
                      shape=(n, n_vocab))
    return m, nonocc  # CSR: the fields are summed first, then converted to CSC once


# ---------------------------------------------------------------------- catching up
def pending_segments(skb: Any, index_hash: str | None, root: Path | None = None) -> list[Any] | None:
    """The segments applied since the generation ``index_hash``, in order (``None``: that
    generation is not an ancestor of ``skb``'s). ``root``: the SKB directory (default
    ``skb.path``; a server's snapshot is detached from it)."""
    lineage = list(skb.meta.get("lineage") or [])
    root = Path(root) if root is not None else (Path(skb.path) if skb.path is not None else None)
    if not index_hash or index_hash not in lineage or root is None:
        return None
    gen = read_generation(root, int(skb.meta["generation"]))
    return [read_segment(root / SEGMENTS_DIR / s["name"], s["content_hash"])
            for s in gen.segments[lineage.index(index_hash):]]


def pending_changes(skb: Any, index_hash: str | None, root: Path | None = None) -> set[str] | None:
    """Ids upserted or deleted by the segments applied since the generation ``index_hash``
    (``None``: that generation is not an ancestor of ``skb``'s; see :func:`pending_segments`)."""
    segs = pending_segments(skb, index_hash, root)
    return None if segs is None else upserted_or_deleted(segs)


def upserted_or_deleted(segments: Sequence[Any]) -> set[str]:
    """Ids the segments upserted or deleted."""
    changed: set[str] = set()
    for seg in segments:
        changed.update(seg.nodes.column("id").to_pylist())
        changed.update(seg.deleted_nodes)
    return changed


def pending_affected(segments: Sequence[Any]) -> set[str] | None:
    """Ids whose relation lines the segments changed (``None`` when one of them predates
    that record: see :attr:`skbsearch.kb.segments.Segment.affected`)."""
    out: set[str] = set()
    for seg in segments:
        if seg.affected is None:
            return None
        out.update(seg.affected)
    return out


def _first_positions(stats: TermStats, tok: Any, n_vocab: int, skb: Any, source: dict[str, Any],
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per term: the field, row and token position of its first occurrence in the live
    documents (``field == len(stats)`` for terms no live document has). Only documents that
    are the first occurrence of two or more terms are tokenised again (for the positions)."""
    nf = len(stats)
    first_f = np.full(n_vocab, nf, np.int64)
    first_r = np.zeros(n_vocab, np.int64)
    for fi, (m, _) in enumerate(stats.values()):
        idx = np.asarray(m.indices)
        at = np.full(n_vocab, -1, np.int64)
        at[idx[::-1]] = np.arange(len(idx) - 1, -1, -1, dtype=np.int64)  # the last write, the earliest posting, wins
        first = np.full(n_vocab, -1, np.int64)
        seen = np.flatnonzero(at >= 0)
        first[seen] = np.searchsorted(np.asarray(m.indptr), at[seen], side="right") - 1  # its row
        has = np.flatnonzero((first >= 0) & (first_f == nf))
        first_f[has] = fi
        first_r[has] = first[has]
    pos = np.zeros(n_vocab, np.int64)
    used = np.flatnonzero(first_f < nf)
    key = first_f[used] * (int(first_r.max(initial=0)) + 1) + first_r[used]
    k = np.sort(key)  # (not np.unique: numpy >= 2.3 hashes large int arrays, far slower)
    shared = set(k[1:][k[1:] == k[:-1]].tolist())
    fields = list(stats)
    for fi in range(nf):
        rows = sorted({int(first_r[t]) for t, k in zip(used, key, strict=True)
                       if k in shared and first_f[t] == fi})
        if not rows:
            continue
        texts = source_texts(skb, np.asarray(rows), source, fields, only=fields[fi])
        for r, ids in zip(rows, tok.streaming_tokenize((t or "" for t in texts), update_vocab=False,
                                                       allow_empty=False), strict=True):
            for p_, t in enumerate(ids):
                if first_f[t] == fi and first_r[t] == r and pos[t] == 0:
                    pos[t] = p_ + 1
    return first_f, first_r, pos


def _canonical_vocabulary(stats: TermStats, tok: Any, n_vocab: int, skb: Any,
                          source: dict[str, Any]) -> TermStats:
    """Renumber the vocabulary as a rebuild over the live documents would: terms in order of
    first occurrence (field, document, position), terms no live document has dropped (they
    must not count as known words, e.g. for typo correction; and stages that break ties by
    term id then agree with a rebuild)."""
    first_f, first_r, pos = _first_positions(stats, tok, n_vocab, skb, source)
    used = first_f < len(stats)
    order = np.lexsort((pos, first_r, first_f))[: int(used.sum())]
    remap = np.full(n_vocab, -1, np.int64)
    remap[order] = np.arange(len(order))
    for name in ("stem_to_sid", "word_to_id"):
        d = getattr(tok, name)
        items = [(w, int(remap[i])) for w, i in d.items() if i < n_vocab and remap[i] >= 0]
        setattr(tok, name, dict(sorted(items, key=lambda x: x[1])))
    keep = max(len(order), 1)
    out: TermStats = {}
    for f, (m, lengths) in stats.items():
        new = sp.csr_matrix((m.data, remap[m.indices].astype(np.int32), m.indptr), shape=(m.shape[0], keep))
        new.sort_indices()
        out[f] = (new, lengths)
    return out


def gather_rows(base: sp.csr_matrix, add: sp.csr_matrix, take: np.ndarray, n_cols: int) -> sp.csr_matrix:
    """Rows ``take`` of ``vstack([base, add])`` (``n_cols`` columns) in one copy: runs of
    consecutive source rows (almost all of a large index after an update) are copied as
    whole slices of the memory-mapped arrays, without stacking first."""
    nb = base.shape[0]
    ips = (np.asarray(base.indptr, np.int64), np.asarray(add.indptr, np.int64))
    arrays = ((np.asarray(base.indices), np.asarray(base.data)), (np.asarray(add.indices), np.asarray(add.data)))
    take = np.asarray(take, np.int64)
    in_add = take >= nb
    local = np.where(in_add, take - nb, take)
    start = np.where(in_add, ips[1][np.minimum(local, len(ips[1]) - 1)], ips[0][np.minimum(local, nb)])
    end = np.where(in_add, ips[1][np.minimum(local + 1, len(ips[1]) - 1)], ips[0][np.minimum(local + 1, nb)])
    indptr = np.zeros(len(take) + 1, np.int64)
    np.cumsum(end - start, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), np.int32)
    data = np.empty(int(indptr[-1]), np.asarray(base.data).dtype)
    breaks = np.flatnonzero((np.diff(take) != 1) | (in_add[1:] != in_add[:-1])) + 1
    for a, b in zip([0, *breaks.tolist()], [*breaks.tolist(), len(take)], strict=True):
        if a == b:
            continue
        src = arrays[int(in_add[a])]
        lo, hi = int(start[a]), int(end[b - 1])
        indices[indptr[a]:indptr[b]] = src[0][lo:hi]
        data[indptr[a]:indptr[b]] = src[1][lo:hi]
    return sp.csr_matrix((data, indices, indptr), shape=(len(take), n_cols))


def rows_only(skb: Any, rows: np.ndarray) -> Any:
    """An edgeless SKB of just ``rows`` (same schema): rendering a few documents without
    materialising every column of a large SKB."""
    small = type(skb)(skb.nodes.take(np.asarray(rows, dtype=np.int64)), np.zeros(0, np.int32),
                      np.zeros(0, np.int16), np.zeros(0, np.int32), skb.schema, dict(skb.meta))
    return small


def reindex(index: Any, skb: Any) -> Any:
    """``index`` built anew over ``skb`` with the settings its manifest records (what follows
    an update for indexes whose documents include the neighbours' names: ``add_rel``)."""
    src, p = dict(index.source or {}), dict(index.params)
    split = src.get("rel_weight") is not None
    weights = None if split else {f: w for f, w in p["field_weights"].items() if w != 1.0} or None
    stop = p.get("stopwords")
    return type(index).from_skb(
        skb, fields=src.get("fields"), add_rel=True, rel_weight=src.get("rel_weight"),
        max_per_relation=int(src.get("max_per_relation", 10)), field_weights=weights,
        k1=p["k1"], b=p["b"], method=p["method"], delta=p.get("delta", 0.5),
        stemmer=p.get("stemmer"), stopwords=tuple(stop) if isinstance(stop, list) else stop)


def catch_up(index: Any, skb: Any, root: Path | None = None) -> Any:
    """``index`` (built at an earlier generation of ``skb``) brought to ``skb``'s generation,
    or ``index`` itself when it is current or not an ancestor (the caller then refuses it).

    Tokenised again: the new and upserted nodes' documents, and for an index with relation
    lines (``add_rel``: a node's document lists its neighbours' names) the relation field of
    every node whose neighbourhood the segments changed (:func:`pending_affected`)."""
    src = dict(index.source or {})
    now = (skb.meta or {}).get("content_hash")
    if src.get("kind") != "skb" or not now or src.get("skb_hash") == now:
        return index
    segs = pending_segments(skb, src.get("skb_hash"), root)
    if segs is None:
        return index
    affected = pending_affected(segs) if src.get("add_rel") else set()
    if affected is None:  # a segment from before affected ids were recorded
        return reindex(index, skb)
    stats = index.term_stats
    if stats is None:
        raise ArtefactError(f"{index.path}: this bm25 index predates live updates (no term statistics); "
                          "rebuild it once with 'skb index SKB_DIR --kind bm25 --force'")
    ids = skb.nodes.column("id").combine_chunks()
    pos = positions(ids, index.doc_ids)
    fresh = {f: pos < 0 for f in stats}
    for f, touched in ((f, upserted_or_deleted(segs)) for f in stats):
        if f == "relations" or (f == "document" and src.get("rel_weight") is None and src.get("add_rel")
                                and src.get("fields") is None):
            touched = touched | affected  # the field that holds the relation lines
        rows = positions(sorted(touched), ids) if touched else np.zeros(0, np.int64)
        fresh[f][rows[rows >= 0]] = True
    return _rebuilt(index, skb, stats, pos, {f: np.flatnonzero(m) for f, m in fresh.items()}, src, now)


def _rebuilt(index: Any, skb: Any, stats: TermStats, pos: np.ndarray, new_rows: dict[str, np.ndarray],
             src: dict[str, Any], now: str) -> Any:
    """The index over ``skb``: per field, rows ``new_rows[field]`` tokenised anew, the others'
    term counts taken from row ``pos`` of ``stats``; every posting rescored with the live
    statistics."""
    tok = copy.copy(index.tokenizer)
    tok.word_to_id, tok.word_to_stem, tok.stem_to_sid = (
        dict(tok.word_to_id), dict(tok.word_to_stem), dict(tok.stem_to_sid))
    new_tokens = {}
    for f in stats:
        texts = source_texts(skb, new_rows[f], src, list(stats), only=f)
        new_tokens[f] = list(tok.streaming_tokenize((t or "" for t in texts), update_vocab=True, allow_empty=False))
    n_vocab = max(len(tok.get_vocab_dict()), 1)
    live: TermStats = {}
    for f, (m, lengths) in stats.items():
        take = np.where(pos < 0, 0, pos)
        take[new_rows[f]] = index.num_docs + np.arange(len(new_rows[f]))
        add, add_len = term_frequencies(new_tokens[f], n_vocab)
        live[f] = (gather_rows(m, add, take, n_vocab), np.concatenate([np.asarray(lengths), add_len])[take])
    live = _canonical_vocabulary(live, tok, n_vocab, skb, src)
    source = {**src, "skb_hash": now, "num_nodes": skb.num_nodes, "generation": skb.meta.get("generation"),
              "node_order": True}
    return type(index).from_term_stats(live, tok, skb.ids, index.params, source)

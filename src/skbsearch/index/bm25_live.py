"""BM25 that follows a changing SKB: term statistics kept per field, scores recomputed with the
statistics of the live data, so that results equal a full rebuild's.

A BM25 score depends on corpus-wide statistics (the number of documents, each term's document
frequency, the average document length), so one new document changes every stored score.
An index therefore also keeps the term frequencies of every posting, per field, term-major,
and the document lengths (:class:`~skbsearch.index.bm25_postings.Postings`, ``live/`` in its
directory). To catch up with a newer generation of its SKB, :func:`catch_up` tokenises only
the new and changed documents (the vocabulary grows as in a build), merges them into the kept
postings in one compiled pass per term (deleted and re-tokenised rows dropped, rows
renumbered to the SKB's row order), and scores every posting with the live statistics using
bm25s's own formulas (same float32/float64 steps) straight into the arrays queries read.
Nothing is re-read or re-tokenised for the untouched documents; the result is an ordinary
:class:`~skbsearch.index.sparse.BM25Index`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from skbsearch.core.errors import ArtefactError
from skbsearch.index.bm25_docs import source_texts
from skbsearch.index.bm25_postings import Merge, Postings
from skbsearch.kb.arrays import positions
from skbsearch.kb.generations import SEGMENTS_DIR, read_generation
from skbsearch.kb.segments import read_segment

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB

LIVE_DIR = "live"
#: what an index keeps to follow updates: per-field term frequencies, term-major
TermStats = Postings


# ---------------------------------------------------------------------- catching up
def pending_segments(skb: SKB, index_hash: str | None, root: Path | None = None) -> list[Any] | None:
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


def pending_changes(skb: SKB, index_hash: str | None, root: Path | None = None) -> set[str] | None:
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


def _token_positions(first_f: np.ndarray, first_r: np.ndarray, fields: list[str], tok: Any, skb: SKB,
                     source: dict[str, Any]) -> np.ndarray:
    """Per term: its token position in the document of its first occurrence (``first_f``,
    ``first_r``; 0 unless needed). Only documents that are the first occurrence of two or
    more terms are tokenised again, to order those terms."""
    nf = len(fields)
    pos = np.zeros(len(first_f), np.int64)
    used = np.flatnonzero(first_f < nf)
    key = first_f[used] * (int(first_r.max(initial=0)) + 1) + first_r[used]
    k = np.sort(key)  # (not np.unique: numpy >= 2.3 hashes large int arrays, far slower)
    shared = set(k[1:][k[1:] == k[:-1]].tolist())
    for fi, f in enumerate(fields):
        rows = sorted({int(first_r[t]) for t, k in zip(used, key, strict=True)
                       if k in shared and first_f[t] == fi})
        if not rows:
            continue
        texts = source_texts(skb, np.asarray(rows), source, fields, only=f)
        for r, ids in zip(rows, tok.streaming_tokenize((t or "" for t in texts), update_vocab=False,
                                                       allow_empty=False), strict=True):
            for p_, t in enumerate(ids):
                if first_f[t] == fi and first_r[t] == r and pos[t] == 0:
                    pos[t] = p_ + 1
    return pos


def _canonical_order(m: Merge, fields: list[str], tok: Any, skb: SKB, source: dict[str, Any]) -> np.ndarray:
    """The terms of the merged postings in the order a rebuild over the live documents numbers
    them (first occurrence: field, document, position); terms no live document has left out
    (they must not count as known words, e.g. for typo correction; and stages that break ties
    by term id then agree with a rebuild). The tokenizer ``tok`` is renumbered to match."""
    first_f, first_r = m.first_occurrences()
    pos = _token_positions(first_f, first_r, fields, tok, skb, source)
    n_terms = len(first_f)
    order = np.lexsort((pos, first_r, first_f))[: int((first_f < len(fields)).sum())]
    remap = np.full(n_terms, -1, np.int64)
    remap[order] = np.arange(len(order))
    for name in ("stem_to_sid", "word_to_id"):
        d = getattr(tok, name)
        items = [(w, int(remap[i])) for w, i in d.items() if i < n_terms and remap[i] >= 0]
        setattr(tok, name, dict(sorted(items, key=lambda x: x[1])))
    return order if len(order) else np.zeros(1, np.int64)  # no word at all: one empty term, as a build


def rows_only(skb: SKB, rows: np.ndarray) -> Any:
    """An edgeless SKB of just ``rows`` (same schema): rendering a few documents without
    materialising every column of a large SKB."""
    small = type(skb)(skb.nodes.take(np.asarray(rows, dtype=np.int64)), np.zeros(0, np.int32),
                      np.zeros(0, np.int16), np.zeros(0, np.int32), skb.schema, dict(skb.meta))
    return small


def reindex(index: Any, skb: SKB) -> Any:
    """``index`` built anew over ``skb`` with the settings its manifest records (when the
    update's segments predate the record of affected ids, or the live rows do not keep the
    index's row order)."""
    src, p = dict(index.source or {}), dict(index.params)
    split = src.get("rel_weight") is not None
    weights = None if split else {f: w for f, w in p["field_weights"].items() if w != 1.0} or None
    stop = p.get("stopwords")
    return type(index).from_skb(
        skb, fields=src.get("fields"), add_rel=bool(src.get("add_rel")), rel_weight=src.get("rel_weight"),
        max_per_relation=int(src.get("max_per_relation", 10)), field_weights=weights,
        k1=p["k1"], b=p["b"], method=p["method"], delta=p.get("delta", 0.5),
        stemmer=p.get("stemmer"), stopwords=tuple(stop) if isinstance(stop, list) else stop,
        combine=p.get("combine", "sum"), field_b=p.get("field_b"))


def index_rows(index: Any, skb: SKB) -> np.ndarray:
    """Per row of ``skb``, the row of the same node in ``index`` (-1: none). An index of every
    node built at ``skb``'s base generation is in the base's row order: the generation's own
    map (no id look-up); otherwise the ids are matched."""
    lineage = list((skb.meta or {}).get("lineage") or [])
    base = skb.base_rows() if hasattr(skb, "base_rows") else None
    src = index.source or {}
    if (base is not None and lineage and src.get("skb_hash") == lineage[0] and src.get("node_order")
            and int(src.get("num_nodes", -1)) == index.num_docs):
        return base
    return positions(skb.nodes.column("id").combine_chunks(), index.doc_ids)


def why_stale(kind: str, source: dict[str, Any], directory: Path) -> str | None:
    """Why a bm25 index saved in ``directory`` cannot follow updates (``None``: it can)."""
    if (directory / LIVE_DIR / "fields.json").is_file():
        return f"this {kind} index keeps its term statistics in an older layout"
    if not (directory / LIVE_DIR / "postings.json").is_file() and source.get("engine") == "ray":
        return f"this {kind} index was built with --engine ray, which keeps no term statistics"
    if not (directory / LIVE_DIR / "postings.json").is_file():
        return f"this {kind} index predates live updates (no term statistics)"
    return None


def catch_up(index: Any, skb: SKB, root: Path | None = None) -> Any:
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
    pos = index_rows(index, skb)
    fresh = {f: pos < 0 for f in stats.fields}
    changed = upserted_or_deleted(segs)
    named = sorted(changed | affected)
    row_of = dict(zip(named, positions(named, ids).tolist(), strict=True)) if named else {}
    for f in stats.fields:
        touched = changed
        if f == "relations" or (f == "document" and src.get("rel_weight") is None and src.get("add_rel")
                                and src.get("fields") is None):
            touched = touched | affected  # the field that holds the relation lines
        rows = np.array([row_of[i] for i in touched], np.int64)
        fresh[f][rows[rows >= 0]] = True
    return _rebuilt(index, skb, stats, pos, {f: np.flatnonzero(m) for f, m in fresh.items()}, src, now)


def _rebuilt(index: Any, skb: SKB, post: Postings, pos: np.ndarray, new_rows: dict[str, np.ndarray],
             src: dict[str, Any], now: str) -> Any:
    """The index over ``skb``: per field, rows ``new_rows[field]`` tokenised anew, the others'
    term counts taken from base row ``pos`` of ``post`` (one merge pass per term); every
    posting scored with the live statistics (:func:`skbsearch.index.bm25_scoring.score`)."""
    tok = copy.copy(index.tokenizer)
    tok.word_to_id, tok.word_to_stem, tok.stem_to_sid = (
        dict(tok.word_to_id), dict(tok.word_to_stem), dict(tok.stem_to_sid))
    new_tokens = {}
    for f in post.fields:
        texts = source_texts(skb, new_rows[f], src, post.fields, only=f)
        new_tokens[f] = list(tok.streaming_tokenize((t or "" for t in texts), update_vocab=True, allow_empty=False))
    n_vocab = max(len(tok.get_vocab_dict()), 1)
    n, nf = len(pos), len(post.fields)
    delta = Postings.from_tokens(new_tokens, n_vocab, rows=new_rows, n_docs=n)
    whole = np.ones(n, np.bool_)  # rows re-tokenised in every field keep nothing of the base
    for f in post.fields:
        fresh = np.zeros(n, np.bool_)
        fresh[new_rows[f]] = True
        whole &= fresh
    whole |= pos < 0
    kept = np.flatnonzero(~whole)
    row_map = np.full(post.n_docs, -1, np.int64)
    row_map[pos[kept]] = kept
    keep = np.ones((nf, post.n_docs), np.bool_)
    lengths = np.zeros((nf, n), np.int32)
    lengths[:, kept] = np.asarray(post.lengths)[:, pos[kept]]
    for i, f in enumerate(post.fields):
        old = pos[new_rows[f]]
        keep[i, old[old >= 0]] = False
        lengths[i, new_rows[f]] = delta.lengths[i, new_rows[f]]
    delta.lengths = lengths
    try:
        m = Merge(post, delta, row_map, keep)
    except ValueError:  # the live rows do not keep the index's order: build anew
        return reindex(index, skb)
    live, df = m.run(_canonical_order(m, post.fields, tok, skb, src))
    source = {**src, "skb_hash": now, "num_nodes": skb.num_nodes, "generation": skb.meta.get("generation"),
              "node_order": True}
    return type(index).from_postings(live, tok, skb.ids, index.params, source, df=df)

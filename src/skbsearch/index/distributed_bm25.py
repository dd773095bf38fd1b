"""BM25 index builds on Ray Data (``skb index SKB --kind bm25 --engine ray``; extra
``[distributed]``).

The work is split by node rows; the result is the index :meth:`BM25Index.from_skb` writes
(same vocabulary and term ids, bit-identical scores), saved atomically the same way.

1. **Shards.** The SKB's node rows (row number, id) are written as Parquet shards
   (``shard_rows`` rows each) and read with ``ray.data.read_parquet``.
2. **Render (+ enrich), tokenise** (``map_batches``, an actor pool: each worker memory-maps
   the SKB once). Each contiguous run of rows in a batch (a *piece*) is rendered exactly as
   the single-process builder renders it (optionally followed by enrichers' derived tokens)
   and tokenised by a fresh bm25s tokenizer, so a piece carries its own vocabulary in
   first-occurrence order, its token ids, document lengths and document frequencies.
3. **Global statistics** (driver). The pieces' vocabularies are merged in document order,
   which reproduces the term ids of one sequential pass; document frequencies are summed
   and the total length gives the average document length. Only vocabularies and counts
   travel to the driver, not tokens.
4. **Scoring** (``map_batches``; the global vocabulary and idf are broadcast with
   ``ray.put``). Each piece scores its own documents with bm25s's per-document kernel and
   the global statistics, so every (document, term) score is bit-identical to the
   single-process build; the driver assembles the matrix as :meth:`BM25Index.build` does.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bm25s
import numpy as np
import scipy.sparse as sp
from bm25s import scoring

from skbsearch.core.errors import InputError
from skbsearch.index.base import ProgressFn, no_progress
from skbsearch.index.bm25_build import (
    NONOCC_METHODS,
    bm25_over,
    bm25_params,
    bm25_settings,
    check_field_weights,
    combine_fields,
    make_tokenizer,
)
from skbsearch.index.bm25_docs import skb_source
from skbsearch.index.distributed import (
    DocumentTexts,
    actor_pool,
    consecutive_runs,
    ensure_ray,
    read_shards,
    write_node_shards,
)
from skbsearch.index.sparse import BM25Index

if TYPE_CHECKING:
    from skbsearch.kb.store import SKB


class _Tokenize:
    """Ray actor: render (+ enrich) and tokenise node rows into pieces with local vocabularies."""

    def __init__(self, skb_dir: str, fields: list[str] | None, add_rel: bool,
                 max_per_relation: int, enrich: list[str], stemmer: str | None,
                 stopwords: Any, rel_weight: float | None = None) -> None:
        from skbsearch.kb.store import SKB

        self.texts = DocumentTexts(SKB.load(skb_dir), fields, add_rel, max_per_relation, enrich,
                                   rel_weight)
        self.stemmer, self.stopwords = stemmer, stopwords

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        out: dict[str, list[Any]] = {k: [] for k in ("field", "start", "count", "vocab", "tokens",
                                                      "lengths", "df", "total")}
        for run in consecutive_runs(batch["row"]):
            for f, texts in self.texts(run).items():
                tok = make_tokenizer(self.stemmer, self.stopwords)
                docs = list(tok.streaming_tokenize((t or "" for t in texts), update_vocab=True,
                                                   allow_empty=False))
                terms = list(tok.get_vocab_dict())
                lengths = np.fromiter((len(d) for d in docs), dtype=np.int32, count=len(docs))
                flat = np.fromiter((t for d in docs for t in d), dtype=np.int32,
                                   count=int(lengths.sum()))
                uniq = np.concatenate([np.unique(np.asarray(d, dtype=np.int32)) for d in docs]
                                      + [np.zeros(0, np.int32)])
                df = np.bincount(uniq, minlength=len(terms)).astype(np.int32)
                vocab = {"terms": terms, "words": list(tok.word_to_id.items()),
                         "stems": list(tok.word_to_stem.items())}
                for k, v in (("field", f), ("start", int(run[0])), ("count", len(run)),
                             ("vocab", json.dumps(vocab, ensure_ascii=False)),
                             ("tokens", flat.tobytes()), ("lengths", lengths.tobytes()),
                             ("df", df.tobytes()), ("total", int(lengths.sum()))):
                    out[k].append(v)
        return {k: np.array(v, dtype=object) for k, v in out.items()}


class _Score:
    """Ray actor: BM25 entries ``(score, doc row, term id)`` of pieces from global statistics."""

    def __init__(self, stats: Any) -> None:
        import ray

        self.stats = ray.get(stats) if isinstance(stats, ray.ObjectRef) else stats

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        st = self.stats
        out: dict[str, list[Any]] = {"field": [], "data": [], "doc": [], "voc": []}
        for f, start, vocab, tokens, lengths, df in zip(
                batch["field"], batch["start"], batch["vocab"], batch["tokens"], batch["lengths"],
                batch["df"], strict=True):
            g = st["term_ids"]
            gmap = np.fromiter((g[t] for t in json.loads(vocab)["terms"]), dtype=np.int64)
            flat = gmap[np.frombuffer(tokens, dtype=np.int32)]
            cuts = np.cumsum(np.frombuffer(lengths, dtype=np.int32))[:-1]
            docs = [d.tolist() for d in np.split(flat, cuts)]
            fs = st["fields"][f]
            pairs = int(np.frombuffer(df, dtype=np.int32).sum())
            data, doc, voc = scoring._build_scores_and_indices_for_matrix(
                corpus_token_ids=docs, idf_array=fs["idf"], avg_doc_len=fs["avgdl"],
                doc_frequencies={0: pairs}, k1=st["k1"], b=st["b"], delta=st["delta"],
                nonoccurrence_array=fs["nonocc"], method=st["method"], dtype="float32",
                int_dtype="int32", show_progress=False)
            out["field"].append(f)
            out["data"].append(data.tobytes())
            out["doc"].append((doc.astype(np.int64) + int(start)).astype(np.int32).tobytes())
            out["voc"].append(voc.tobytes())
        return {k: np.array(v, dtype=object) for k, v in out.items()}


class _VocabMerger:
    """Merges piece vocabularies in document order into one bm25s tokenizer's dictionaries."""

    def __init__(self, tokenizer: Any) -> None:
        self.tok = tokenizer
        self.stemmed = tokenizer.stemmer is not None

    def add(self, vocab: dict[str, Any]) -> np.ndarray:
        """Add a piece's vocabulary; returns the global id of each of its local term ids."""
        tok = self.tok
        ids = tok.stem_to_sid if self.stemmed else tok.word_to_id
        gmap = np.empty(len(vocab["terms"]), dtype=np.int64)
        for lid, term in enumerate(vocab["terms"]):
            gid = ids.get(term)
            if gid is None:
                gid = ids[term] = len(ids)
            gmap[lid] = gid
        if self.stemmed:
            for word, stem in vocab["stems"]:
                tok.word_to_stem.setdefault(word, stem)
            for word, lid in vocab["words"]:
                tok.word_to_id.setdefault(word, int(gmap[lid]))
        return gmap


def _bm25_parts(method: str, k1: float, b: float, delta: float) -> Any:
    return bm25s.BM25(k1=k1, b=b, delta=delta, method=method)


def build_bm25_ray(
    skb: SKB,
    *,
    fields: Sequence[str] | None = None,
    field_weights: dict[str, float] | None = None,
    add_rel: bool = False,
    max_per_relation: int = 10,
    rel_weight: float | None = None,
    enrich: Sequence[str] = (),
    shard_rows: int = 50_000,
    workers: int | None = None,
    address: str | None = None,
    progress: ProgressFn = no_progress,
    **settings: Any,
) -> BM25Index:
    """:meth:`BM25Index.from_skb` on Ray Data: same vocabulary, same scores (see the module).

    Args:
        skb: a *saved* SKB (workers load it from its directory, memory-mapped).
        fields, field_weights, add_rel, max_per_relation, rel_weight: as for
            :meth:`BM25Index.from_skb` (``skb index --engine ray`` passes the options of
            :meth:`BM25Index.default_options`, as the single-process build does).
        enrich: enrichers whose derived tokens are appended to each text (``temporal``,
            ``arithmetic``).
        shard_rows: node rows per Parquet shard (and per batch).
        workers: actors per step (default: the cluster's CPUs, at most the shard count).
        address: a Ray cluster address (default: the connected one, or a local instance).
        settings: BM25 settings (``k1``, ``b``, ``method``, ``delta``, ``stemmer``,
            ``stopwords``), defaults as for :meth:`BM25Index.build`
            (:data:`~skbsearch.index.bm25_build.BM25_DEFAULTS`).
    """
    s = bm25_settings(settings)
    if s["combine"] != "sum" or s["field_b"]:
        raise InputError("the Ray build adds the fields' BM25 scores (combine='sum', one b); build a "
                         "'bm25f' index with engine local", field="combine")
    k1, b, method, delta, stemmer, stopwords = (s[k] for k in ("k1", "b", "method", "delta", "stemmer",
                                                                "stopwords"))
    if getattr(skb, "path", None) is None:
        raise InputError("a Ray build reads the SKB from its directory; save the SKB first",
                         field="skb")
    part = _bm25_parts(method, k1, b, delta)
    ray = ensure_ray(address)
    fields = [f.strip() for f in fields if f.strip()] if fields is not None else None
    if fields is not None and not fields:
        raise InputError("no fields given", field="fields")
    names = DocumentTexts(skb, fields, add_rel, max_per_relation, (), rel_weight).field_names
    if fields is None and add_rel and rel_weight is not None:  # from_skb's two-field layout
        field_weights = {"document": 1.0, "relations": float(rel_weight), **(field_weights or {})}
    weights = check_field_weights(names, field_weights)
    n = skb.num_nodes
    with tempfile.TemporaryDirectory(prefix="skb-ray-shards-") as tmp:
        shards = write_node_shards(skb, Path(tmp), shard_rows)
        pool, cpus = actor_pool(ray, workers, len(shards))
        progress("render + tokenize (ray)", 0, n)
        pieces = read_shards(ray, shards).map_batches(
            _Tokenize, batch_size=shard_rows, compute=ray.data.ActorPoolStrategy(size=pool),
            num_cpus=cpus,
            fn_constructor_kwargs={"skb_dir": str(skb.path), "fields": fields, "add_rel": add_rel,
                                   "max_per_relation": max_per_relation, "enrich": list(enrich),
                                   "stemmer": stemmer, "stopwords": stopwords,
                                   "rel_weight": rel_weight},
            batch_format="numpy").materialize()
        progress("render + tokenize (ray)", n, n)
        tokenizer = make_tokenizer(stemmer, stopwords)
        stats = _global_stats(pieces, names, tokenizer, part, n, progress)
        progress("score (ray)", 0, 1)
        entries = pieces.map_batches(
            _Score, compute=ray.data.ActorPoolStrategy(size=pool), num_cpus=cpus,
            batch_format="numpy",
            fn_constructor_kwargs={"stats": ray.put(stats)}).take_all()
        progress("score (ray)", 1, 1)
    matrices = _field_matrices(entries, names, n, len(stats["term_ids"]))
    source = skb_source(skb, fields=fields, add_rel=add_rel, rel_weight=rel_weight,
                        max_per_relation=max_per_relation)
    return _assemble(matrices, stats, weights, tokenizer, skb, part, source, enrich, stopwords, stemmer)


def _global_stats(pieces: Any, names: list[str], tokenizer: Any, part: Any, n: int,
                  progress: ProgressFn) -> dict[str, Any]:
    """Merge vocabularies in (field, row) order, sum document frequencies and lengths."""
    rows = pieces.select_columns(["field", "start", "vocab", "df", "total"]).take_all()
    rows.sort(key=lambda r: (names.index(r["field"]), int(r["start"])))
    merger = _VocabMerger(tokenizer)
    dfs: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {f: [] for f in names}
    totals = dict.fromkeys(names, 0)
    for i, r in enumerate(rows):
        gmap = merger.add(json.loads(r["vocab"]))
        dfs[r["field"]].append((gmap, np.frombuffer(r["df"], dtype=np.int32)))
        totals[r["field"]] += int(r["total"])
        progress("merge vocabularies", i + 1, len(rows))
    term_ids = dict(tokenizer.get_vocab_dict())
    n_vocab = max(len(term_ids), 1)
    idf_fn = scoring._select_idf_scorer(part.idf_method)
    fields: dict[str, dict[str, Any]] = {}
    for f in names:
        df = np.zeros(n_vocab, dtype=np.int64)
        for gmap, local in dfs[f]:
            np.add.at(df, gmap, local)
        doc_freqs = {t: int(c) for t, c in enumerate(df)}
        avgdl = np.float64(totals[f]) / np.float64(n) if n else np.float64("nan")
        nonocc = None
        if part.method in NONOCC_METHODS:
            nonocc = scoring._build_nonoccurrence_array(
                doc_frequencies=doc_freqs, n_docs=n, compute_idf_fn=idf_fn,
                calculate_tfc_fn=scoring._select_tfc_scorer(part.method), l_d=avgdl, l_avg=avgdl,
                k1=part.k1, b=part.b, delta=part.delta, dtype="float32")
        idf = scoring._build_idf_array(doc_frequencies=doc_freqs, n_docs=n,
                                       compute_idf_fn=idf_fn, dtype="float32")
        fields[f] = {"idf": idf, "avgdl": avgdl, "nonocc": nonocc, "total": totals[f]}
    return {"term_ids": term_ids, "fields": fields, "k1": part.k1, "b": part.b,
            "delta": part.delta, "method": part.method}


def _field_matrices(entries: list[dict[str, Any]], names: list[str], n: int,
                    n_terms: int) -> dict[str, sp.csc_matrix]:
    """One (documents x terms) CSC score matrix per field, as bm25s's scipy builder makes it."""
    out = {}
    for f in names:
        mine = [e for e in entries if e["field"] == f]
        cat = [np.concatenate([np.frombuffer(e[k], dtype=dt) for e in mine] + [np.zeros(0, dt)])
               for k, dt in (("data", np.float32), ("doc", np.int32), ("voc", np.int32))]
        out[f] = sp.csc_matrix((cat[0], (cat[1], cat[2])), shape=(n, max(n_terms, 1)),
                               dtype=np.float32)
    return out


def _assemble(matrices: dict[str, sp.csc_matrix], stats: dict[str, Any], weights: dict[str, float],
              tokenizer: Any, skb: SKB, part: Any, source: dict[str, Any], enrich: Sequence[str],
              stopwords: Any, stemmer: str | None) -> BM25Index:
    """Weighted sum of the field matrices and the index object, as :meth:`BM25Index.build`."""
    n = skb.num_nodes
    n_vocab = max(len(stats["term_ids"]), 1)
    per_field = {f: (m, stats["fields"][f]["nonocc"]) for f, m in matrices.items()
                 if weights[f] != 0 and stats["fields"][f]["total"] != 0}
    matrix, nonocc = combine_fields(per_field, weights, n, n_vocab, part.method)
    settings = {"k1": part.k1, "b": part.b, "delta": part.delta, "method": part.method}
    bm = bm25_over((matrix.indptr, matrix.indices, matrix.data), matrix.shape[0], nonocc, stats["term_ids"], settings)
    params = bm25_params(part.k1, part.b, part.method, part.delta, stemmer, stopwords, weights)
    source = {**source, "engine": "ray"}
    if enrich:
        source["enrich"] = list(enrich)
    return BM25Index(bm, tokenizer, list(skb.ids), params, source)

"""The steps of building a BM25 index shared by the single-process build
(:meth:`skbsearch.index.sparse.BM25Index.build`) and the Ray build
(:mod:`skbsearch.index.distributed_bm25`): the tokenizer, the checks of the BM25 settings and of the field weights, and the
``bm25s.BM25`` object over a score matrix; and bm25s's own per-field scoring with the
weighted sum of the field matrices (what the Ray build runs per shard, and the reference the
compiled scorer of :mod:`skbsearch.index.bm25_scoring` is tested against, bit for bit; see
:mod:`skbsearch.index.sparse` for the multi-field model)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import bm25s
import numpy as np
import scipy.sparse as sp
from bm25s.tokenization import Tokenizer

from skbsearch.core.errors import InputError
from skbsearch.core.progress import ProgressFn

#: the BM25 variants bm25s scores
METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")
#: BM25 variants that add a per-term constant to every document (kept aside as
#: ``nonoccurrence_array``)
NONOCC_METHODS = ("bm25l", "bm25+")


#: how the fields of a multi-field index make one score: ``sum`` adds every field's own BM25
#: score (each field saturates on its own; bm25s's values field by field); ``bm25f`` adds the
#: fields' weighted, length-normalised term frequencies and saturates once, with one idf over
#: the documents that hold the term in any weighted field (Robertson & Zaragoza's BM25F)
COMBINES = ("sum", "bm25f")


def check_bm25_settings(method: str, k1: float, b: float, combine: str = "sum",
                        field_b: Mapping[str, float] | None = None) -> None:
    """Refuse a BM25 variant not in :data:`METHODS`, ``k1 < 0``, a ``b`` (or a per-field
    ``field_b``) outside [0, 1], or a ``combine`` not in :data:`COMBINES` (``bm25f`` with a
    variant that adds a constant for absent terms, :data:`NONOCC_METHODS`, is refused too)."""
    if method not in METHODS:
        raise InputError(f"unknown BM25 method {method!r}; use one of {METHODS}", field="method")
    if not k1 >= 0 or not 0 <= b <= 1:
        raise InputError(f"need k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}", field="k1/b")
    if combine not in COMBINES:
        raise InputError(f"unknown field combination {combine!r}; use one of {COMBINES}", field="combine")
    if combine == "bm25f" and method in NONOCC_METHODS:
        raise InputError(f"combine='bm25f' needs a method without a non-occurrence constant, not {method!r}",
                         field="combine")
    for f, fb in (field_b or {}).items():
        if not 0 <= fb <= 1:
            raise InputError(f"need 0 <= b <= 1 for field {f!r}, got {fb}", field="field_b")


#: the BM25 settings and their defaults (:meth:`~skbsearch.index.sparse.BM25Index.build`'s)
BM25_DEFAULTS: dict[str, Any] = {"k1": 1.5, "b": 0.75, "method": "lucene", "delta": 0.5,
                                 "stemmer": "english", "stopwords": "en", "combine": "sum",
                                 "field_b": None}


def bm25_settings(given: Mapping[str, Any]) -> dict[str, Any]:
    """``given`` settings over :data:`BM25_DEFAULTS`, checked (an unknown name, variant or
    value out of range is an :class:`InputError`)."""
    unknown = sorted(set(given) - set(BM25_DEFAULTS))
    if unknown:
        raise InputError(f"unknown BM25 setting(s) {unknown}; use {list(BM25_DEFAULTS)}", field=unknown[0])
    out = {**BM25_DEFAULTS, **given}
    check_bm25_settings(out["method"], out["k1"], out["b"], out["combine"], out["field_b"])
    return out


def make_stemmer(name: str | None) -> Any:
    """A PyStemmer stemmer for ``name`` (``english``, ``french``...); ``None``/``none``: no stemming."""
    if name is None or str(name).lower() in ("", "none", "no", "off"):
        return None
    import Stemmer

    try:
        return Stemmer.Stemmer(str(name).lower())
    except KeyError:
        langs = ", ".join(Stemmer.algorithms())
        raise InputError(f"unknown stemmer language {name!r}; use one of: {langs}, or 'none'",
                         field="stemmer") from None


def make_tokenizer(stemmer: str | None, stopwords: str | Sequence[str] | None) -> Tokenizer:
    """A fresh bm25s tokenizer: lower-cased, ``stopwords`` (``"en"``, a list or ``None``)
    dropped, stemmed in the ``stemmer`` language (``None``: not stemmed)."""
    sw = list(stopwords) if stopwords is not None and not isinstance(stopwords, str) else stopwords
    return Tokenizer(lower=True, stopwords=sw, stemmer=make_stemmer(stemmer))


def check_field_weights(names: Sequence[str],
                        given: Mapping[str, float] | None) -> dict[str, float]:
    """The weight of every field in ``names``: 1.0 unless ``given`` (each >= 0, each
    naming one of ``names``)."""
    weights = {f: 1.0 for f in names}
    for f, w in (given or {}).items():
        if f not in weights:
            raise InputError(f"weight given for unknown field {f!r}; fields are {list(names)}",
                             field="field_weights")
        if not w >= 0:
            raise InputError(f"weight of {f!r} must be >= 0, got {w}", field="field_weights")
        weights[f] = float(w)
    return weights


def tokenize_fields(parts: Mapping[str, Sequence[str | None]], tokenizer: Tokenizer, n: int,
                    progress: ProgressFn) -> dict[str, list[list[int]]]:
    """Token ids of every text of every field (the vocabulary grows in field, then
    document order); a missing text (``None`` or ``""``) is an empty document."""
    tokens: dict[str, list[list[int]]] = {}
    for f, texts in parts.items():
        out: list[list[int]] = []
        stream = tokenizer.streaming_tokenize((t or "" for t in texts), update_vocab=True,
                                              allow_empty=False)
        for i, ids in enumerate(stream, start=1):
            out.append(ids)
            if i % 20000 == 0:
                progress(f"tokenize {f}", i, n)
        progress(f"tokenize {f}", n, n)
        tokens[f] = out
    return tokens


def score_fields(tokens: Mapping[str, list[list[int]]], weights: Mapping[str, float], n: int,
                 n_vocab: int, settings: Mapping[str, Any],
                 progress: ProgressFn) -> dict[str, tuple[sp.csc_matrix, np.ndarray | None]]:
    """Each field's own BM25 scores (documents x terms) and non-occurrence scores, with
    its own statistics; fields weighted 0 or with no token are left out. ``settings``:
    ``k1``, ``b``, ``delta``, ``method``."""
    per_field: dict[str, tuple[sp.csc_matrix, np.ndarray | None]] = {}
    for f, ids in tokens.items():
        progress(f"score {f}", 0, 1)
        if weights[f] == 0 or not any(ids):
            continue
        part = bm25s.BM25(k1=settings["k1"], b=settings["b"], delta=settings["delta"],
                          method=settings["method"], csc_backend="scipy")
        s = part.build_index_from_ids(list(range(n_vocab)), ids, show_progress=False)
        per_field[f] = (sp.csc_matrix((s["data"], s["indices"], s["indptr"]), shape=(n, n_vocab)),
                        part.nonoccurrence_array)
        progress(f"score {f}", 1, 1)
    return per_field


def combine_fields(per_field: Mapping[str, tuple[sp.spmatrix, np.ndarray | None]],
                   weights: Mapping[str, float], n: int, n_vocab: int,
                   method: str) -> tuple[sp.csc_matrix, np.ndarray | None]:
    """``sum_f w_f S_f`` in float32 (and the weighted non-occurrence scores), sorted CSC. The
    field matrices may be CSC or CSR (converted once, after the sum); a weight of 1 and a
    float32 matrix are taken as they are (no copy: the same values)."""
    matrix: Any = None
    nonocc = np.zeros(n_vocab, dtype=np.float32) if method in NONOCC_METHODS else None
    for f, (m, part_nonocc) in per_field.items():
        w = np.float32(weights[f])
        term = m if w == 1 and m.dtype == np.float32 else w * m.astype(np.float32)
        matrix = term if matrix is None else matrix + term
        if nonocc is not None and part_nonocc is not None:
            nonocc += w * part_nonocc
    matrix = sp.csc_matrix((n, n_vocab), dtype=np.float32) if matrix is None else matrix.tocsc()
    matrix = sp.csc_matrix(matrix, dtype=np.float32)
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    matrix.sort_indices()
    return matrix, nonocc


def bm25_over(csc: tuple[np.ndarray, np.ndarray, np.ndarray], n_docs: int, nonocc: np.ndarray | None,
              vocab: Mapping[Any, Any], settings: Mapping[str, Any]) -> bm25s.BM25:
    """A ``bm25s.BM25`` (numpy backend) whose scores are the documents x terms matrix given
    in CSC form, ``(indptr, indices, data)`` (arrays of the right dtype are not copied)."""
    indptr, indices, data = csc
    bm = bm25s.BM25(k1=settings["k1"], b=settings["b"], delta=settings.get("delta", 0.5),
                    method=settings["method"], backend="numpy")
    bm.scores = {
        "data": np.asarray(data).astype(np.float32, copy=False),
        "indices": np.asarray(indices).astype(np.int32, copy=False),
        # int64 like bm25s's own builder: numba's scoring loop is ~10% slower on int32
        "indptr": np.asarray(indptr).astype(np.int64, copy=False),
        "num_docs": int(n_docs),
    }
    bm.vocab_dict = {str(k): int(v) for k, v in vocab.items()}
    bm.unique_token_ids_set = set(bm.vocab_dict.values())
    bm.nonoccurrence_array = nonocc
    return bm


def bm25_params(k1: float, b: float, method: str, delta: float, stemmer: str | None,
                stopwords: str | Sequence[str] | None,
                weights: Mapping[str, float], combine: str = "sum",
                field_b: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The build settings a BM25 index records in its manifest (``combine`` and ``field_b``
    only when not the defaults: an index of the default settings records what it always did)."""
    out = {
        "k1": k1, "b": b, "method": method, "delta": delta, "stemmer": stemmer,
        "stopwords": stopwords if stopwords is None or isinstance(stopwords, str)
        else list(stopwords),
        "fields": list(weights), "field_weights": dict(weights),
    }
    if combine != "sum":
        out["combine"] = combine
    if field_b:
        out["field_b"] = {f: float(v) for f, v in field_b.items()}
    return out

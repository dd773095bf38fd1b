"""Every posting's BM25 score from its term frequencies (``index.bm25_scoring``): bit-identical
to bm25s's own build for every method, field weights and both term-frequency paths; BM25F
against a direct formula; idf and document frequencies; the compiled passes warmed once."""

from __future__ import annotations

import math

import numpy as np
import pytest

from skbsearch.index import bm25_scoring as bs
from skbsearch.index.base import no_progress
from skbsearch.index.bm25_build import combine_fields, make_tokenizer, score_fields, tokenize_fields
from skbsearch.index.bm25_postings import Postings
from skbsearch.index.bm25_scoring import document_frequencies, idf, score
from skbsearch.index.sparse import METHODS


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("table_max", "table_tf"), [(bs.TABLE_MAX, bs.TABLE_TF), (0, bs.TABLE_TF), (bs.TABLE_MAX, 2)])
def test_scores_bit_identical_to_bm25s(method: str, table_max: int, table_tf: int,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The peer: bm25s's own build per field (``score_fields``, what the Ray build runs) and
    the weighted sum of the fields; cells read off the table, computed where scored (no
    table), or both (frequencies of 2 and more computed)."""
    rng = np.random.default_rng(1)
    words = "red blue green boot mug cup steel leather trail winter".split()
    parts = {f: [" ".join(rng.choice(words, rng.integers(0, 9))) for _ in range(40)] for f in ("title", "body")}
    tok = make_tokenizer("english", "en")
    tokens = tokenize_fields(parts, tok, 40, no_progress)
    n_vocab = len(tok.get_vocab_dict())
    weights = {"title": 2.5, "body": 1.0}
    settings = {"k1": 1.2, "b": 0.7, "delta": 0.3, "method": method}
    matrix, ref_nonocc = combine_fields(score_fields(tokens, weights, 40, n_vocab, settings, no_progress),
                                        weights, 40, n_vocab, method)
    monkeypatch.setattr(bs, "TABLE_MAX", table_max)
    monkeypatch.setattr(bs, "TABLE_TF", table_tf)
    (ip, rows, data), nonocc = score(Postings.from_tokens(tokens, n_vocab), {**settings, "field_weights": weights})
    assert np.array_equal(ip, matrix.indptr) and np.array_equal(rows, matrix.indices)
    assert np.array_equal(data.view(np.int32), matrix.data.astype(np.float32).view(np.int32))
    assert (nonocc is None) == (ref_nonocc is None)
    assert nonocc is None or np.array_equal(nonocc, ref_nonocc)


def _reference(tokens: dict[str, list[list[int]]], n_vocab: int, weights: dict[str, float],
               bs: dict[str, float], k1: float) -> np.ndarray:
    """(terms, docs) BM25F (lucene form) computed term by term in plain Python."""
    fields = list(tokens)
    n = len(tokens[fields[0]])
    lens = {f: [len(d) for d in tokens[f]] for f in fields}
    avg = {f: sum(lens[f]) / n for f in fields}
    out = np.zeros((n_vocab, n))
    for t in range(n_vocab):
        held = [d for d in range(n) if any(weights[f] > 0 and t in tokens[f][d] for f in fields)]
        if not held:
            continue
        idf = math.log(1 + (n - len(held) + 0.5) / (len(held) + 0.5))
        for d in held:
            x = sum(weights[f] * tokens[f][d].count(t) / (1 - bs[f] + bs[f] * lens[f][d] / avg[f])
                    for f in fields if weights[f] > 0)
            out[t, d] = idf * x / (k1 + x)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_bm25f_scores_equal_the_formula(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, nv = 9, 6
    tokens = {f: [rng.integers(0, nv, rng.integers(1, 7)).tolist() for _ in range(n)] for f in ("a", "b", "c")}
    weights = {"a": 1.0, "b": 2.5, "c": 0.0 if seed % 2 else 0.5}
    bs = {"a": 0.75, "b": 0.3, "c": 0.75}
    post = Postings.from_tokens(tokens, nv)
    (ip, rows, data), nonocc = score(post, {"method": "lucene", "k1": 1.2, "b": 0.75, "field_weights": weights,
                                           "combine": "bm25f", "field_b": {"b": 0.3}})
    assert nonocc is None
    got = np.zeros((nv, n))
    for t in range(nv):
        got[t, rows[ip[t]:ip[t + 1]]] = data[ip[t]:ip[t + 1]]
    want = _reference(tokens, nv, weights, bs, 1.2)
    assert np.allclose(got, want, rtol=1e-6, atol=1e-7)
    assert np.count_nonzero(data == 0) == 0  # postings that score 0 are dropped

def _cells(ip: np.ndarray, rows: np.ndarray, data: np.ndarray, n_terms: int, n_docs: int) -> np.ndarray:
    out = np.zeros((n_terms, n_docs))
    for t in range(n_terms):
        out[t, rows[ip[t]:ip[t + 1]]] = data[ip[t]:ip[t + 1]]
    return out


def test_document_frequencies_count_each_field_apart() -> None:
    post = Postings.from_tokens({"a": [[0, 0, 1], [1], []], "b": [[2], [0, 2], [2]]}, 3)
    assert document_frequencies(post).tolist() == [[1, 2, 0], [1, 0, 3]]


@pytest.mark.parametrize(("method", "formula"), [
    ("robertson", lambda n, d: math.log(max((n - d + 0.5) / (d + 0.5), 1.0))),
    ("lucene", lambda n, d: math.log(1 + (n - d + 0.5) / (d + 0.5))),
    ("atire", lambda n, d: math.log(n / d)),
    ("bm25l", lambda n, d: math.log((n + 1) / (d + 0.5))),
    ("bm25+", lambda n, d: math.log((n + 1) / d))])
def test_idf_of_every_method_is_its_formula_and_zero_for_absent_terms(method: str, formula) -> None:
    df = np.array([0, 1, 3, 10])
    got = idf(method, df, 10, np.float64)
    assert got[0] == 0.0
    assert got[1:].tolist() == pytest.approx([formula(10, d) for d in (1, 3, 10)], rel=1e-12)
    assert idf(method, df, 10).dtype == np.float32
    if method == "robertson":  # a term in most documents is clamped at 0, not negative
        assert got[3] == 0.0


def test_known_document_frequencies_give_the_same_scores() -> None:
    post = Postings.from_tokens({"a": [[0, 1], [1, 1, 2], [2]], "b": [[2], [], [0]]}, 3)
    params = {"method": "lucene", "k1": 1.5, "b": 0.75, "field_weights": {"a": 1.0, "b": 2.0}}
    (ip, rows, data), _ = score(post, params)
    (ip2, rows2, data2), _ = score(post, params, document_frequencies(post))
    assert np.array_equal(ip, ip2) and np.array_equal(rows, rows2) and np.array_equal(data, data2)


def test_a_field_weighted_zero_adds_nothing_and_only_bm25l_and_plus_have_non_occurrence() -> None:
    tokens = {"a": [[0, 1], [1], [2]], "b": [[2, 2], [0], []]}
    post = Postings.from_tokens(tokens, 3)
    base = {"k1": 1.2, "b": 0.75}
    alone = score(Postings.from_tokens({"a": tokens["a"]}, 3),
                  {**base, "method": "lucene", "field_weights": {"a": 1.0}})
    muted = score(post, {**base, "method": "lucene", "field_weights": {"a": 1.0, "b": 0.0}})
    assert np.array_equal(_cells(*alone[0], 3, 3), _cells(*muted[0], 3, 3))
    assert muted[1] is None
    for method in ("bm25l", "bm25+"):
        _, nonocc = score(post, {**base, "method": method, "field_weights": {"a": 1.0, "b": 1.0}})
        assert nonocc is not None and nonocc.shape == (3,) and (nonocc > 0).all()


def test_warm_compiles_the_stored_variants() -> None:
    bs.warm()  # read-only (memory-mapped) base postings, writable delta: no error, idempotent
    bs.warm()

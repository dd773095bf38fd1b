"""The shared steps of a BM25 build (``index.bm25_build``): the settings checked once
(``check_bm25_settings``) for every build, the tokenizer and stemmer, field weights, per-field
scoring and their weighted sum, the ``bm25s.BM25`` over a score matrix, and the manifest's
record of the settings."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from skbsearch.core.errors import InputError
from skbsearch.index.base import no_progress
from skbsearch.index.bm25_build import (
    METHODS,
    bm25_over,
    bm25_params,
    check_bm25_settings,
    check_field_weights,
    combine_fields,
    make_stemmer,
    make_tokenizer,
    score_fields,
    tokenize_fields,
)
from skbsearch.index.sparse import BM25Index

SETTINGS = {"k1": 1.5, "b": 0.75, "delta": 0.5}


@pytest.mark.parametrize(("method", "k1", "b", "field"), [
    ("okapi", 1.5, 0.75, "method"), ("lucene", -0.1, 0.75, "k1/b"),
    ("lucene", 1.5, 1.5, "k1/b"), ("lucene", float("nan"), 0.75, "k1/b")])
def test_out_of_range_settings_are_refused(method: str, k1: float, b: float, field: str) -> None:
    with pytest.raises(InputError) as e:
        check_bm25_settings(method, k1, b)
    assert e.value.field == field
    with pytest.raises(InputError):  # the single-process build refuses them alike
        BM25Index.build(["a b", "b c"], ["d1", "d2"], method=method, k1=k1, b=b)


def test_every_method_with_edge_values_is_accepted() -> None:
    for method in METHODS:
        check_bm25_settings(method, 0.0, 0.0)
        check_bm25_settings(method, 2.0, 1.0)
    assert BM25Index.build(["a b", "b c"], ["d1", "d2"], method="bm25+", b=1.0).num_docs == 2


def test_settings_by_name_fill_the_build_defaults_and_refuse_unknown_names() -> None:
    import inspect

    from skbsearch.index.bm25_build import BM25_DEFAULTS, bm25_settings

    sig = inspect.signature(BM25Index.build).parameters
    assert {k: sig[k].default for k in BM25_DEFAULTS} == BM25_DEFAULTS  # one set of defaults
    assert bm25_settings({"k1": 0.9})["k1"] == 0.9 and bm25_settings({})["method"] == "lucene"
    with pytest.raises(InputError, match="unknown BM25 setting"):
        bm25_settings({"k_1": 1.2})
    with pytest.raises(InputError):
        bm25_settings({"method": "okapi"})


@pytest.mark.parametrize(("kw", "match"), [({"combine": "bm25x"}, "unknown field combination"),
                                           ({"combine": "bm25f", "method": "bm25+"}, "non-occurrence"),
                                           ({"field_b": {"relations": 1.5}}, "field 'relations'")])
def test_combination_and_per_field_b_are_checked(kw: dict, match: str) -> None:
    args = {"method": "lucene", "combine": "sum", "field_b": None, **kw}
    with pytest.raises(InputError, match=match):
        check_bm25_settings(args["method"], 1.2, 0.75, args["combine"], args["field_b"])
    check_bm25_settings("lucene", 1.2, 0.75, "bm25f", {"relations": 0.3})


def test_stemmer_by_language_none_or_a_clear_error() -> None:
    assert make_stemmer("English").stemWord("running") == "run"
    assert all(make_stemmer(n) is None for n in (None, "", "none", "Off"))
    with pytest.raises(InputError, match="unknown stemmer language 'klingon'.*english") as e:
        make_stemmer("klingon")
    assert e.value.field == "stemmer"


def test_tokenizer_lowercases_drops_stopwords_and_stems() -> None:
    def vocab(stemmer, stopwords) -> list[str]:
        tok = make_tokenizer(stemmer, stopwords)
        list(tok.streaming_tokenize(["The Runners are running"], update_vocab=True, allow_empty=False))
        return list(tok.get_vocab_dict())

    assert vocab("english", "en") == ["runner", "run"]
    assert vocab(None, "en") == ["runners", "running"]
    assert vocab(None, None) == ["the", "runners", "are", "running"]
    assert vocab(None, ["are", "the"]) == ["runners", "running"]  # a list of stopwords


def test_field_weights_default_to_one_and_refuse_unknown_or_negative() -> None:
    assert check_field_weights(["title", "body"], None) == {"title": 1.0, "body": 1.0}
    assert check_field_weights(["title", "body"], {"title": 3}) == {"title": 3.0, "body": 1.0}
    with pytest.raises(InputError, match="unknown field 'name'") as e:
        check_field_weights(["title"], {"name": 2.0})
    assert e.value.field == "field_weights"
    with pytest.raises(InputError, match="must be >= 0"):
        check_field_weights(["title"], {"title": -1.0})


def test_tokenize_fields_shares_one_vocabulary_and_keeps_missing_texts_empty() -> None:
    tok = make_tokenizer(None, None)
    seen: list[tuple[str, int, int]] = []
    got = tokenize_fields({"title": ["red shoe", None, ""], "body": ["shoe shoe", "blue", ""]}, tok, 3,
                          lambda what, i, n: seen.append((what, i, n)))
    assert got == {"title": [[0, 1], [], []], "body": [[1, 1], [2], []]}
    assert tok.get_vocab_dict() == {"red": 0, "shoe": 1, "blue": 2}  # field, then document order
    assert ("tokenize title", 3, 3) in seen and ("tokenize body", 3, 3) in seen


def _fields(method: str = "lucene") -> tuple[dict, dict, int]:
    tok = make_tokenizer(None, None)
    tokens = tokenize_fields({"title": ["red shoe", "blue hat", "red red red"],
                              "body": ["shoe for running", "", "hat"]}, tok, 3, no_progress)
    return tokens, {**SETTINGS, "method": method}, len(tok.get_vocab_dict())


def test_combined_scores_are_the_weighted_sum_of_each_fields_bm25() -> None:
    tokens, settings, nv = _fields()
    weights = {"title": 2.0, "body": 0.5}
    per_field = score_fields(tokens, weights, 3, nv, settings, no_progress)
    assert set(per_field) == {"title", "body"}
    matrix, nonocc = combine_fields(per_field, weights, 3, nv, "lucene")
    want = 2.0 * per_field["title"][0].toarray() + 0.5 * per_field["body"][0].toarray()
    np.testing.assert_allclose(matrix.toarray(), want, rtol=1e-6)
    assert nonocc is None and matrix.dtype == np.float32 and matrix.has_sorted_indices
    assert matrix.nnz == np.count_nonzero(want)  # explicit zeros dropped
    # CSR field matrices give the same CSC sum
    as_csr = {f: (m.tocsr(), n) for f, (m, n) in per_field.items()}
    csr_sum, _ = combine_fields(as_csr, weights, 3, nv, "lucene")
    assert isinstance(csr_sum, sp.csc_matrix)
    np.testing.assert_array_equal(csr_sum.toarray(), matrix.toarray())


def test_a_field_weighted_zero_or_without_tokens_is_left_out() -> None:
    tokens, settings, nv = _fields()
    assert set(score_fields(tokens, {"title": 1.0, "body": 0.0}, 3, nv, settings, no_progress)) == {"title"}
    tokens["body"] = [[], [], []]
    assert set(score_fields(tokens, {"title": 1.0, "body": 1.0}, 3, nv, settings, no_progress)) == {"title"}
    empty, nonocc = combine_fields({}, {}, 3, nv, "lucene")
    assert empty.shape == (3, nv) and empty.nnz == 0 and nonocc is None


def test_non_occurrence_scores_are_weighted_too() -> None:
    tokens, settings, nv = _fields("bm25+")
    weights = {"title": 2.0, "body": 1.0}
    per_field = score_fields(tokens, weights, 3, nv, settings, no_progress)
    _, nonocc = combine_fields(per_field, weights, 3, nv, "bm25+")
    want = 2.0 * per_field["title"][1] + per_field["body"][1]
    assert nonocc is not None and nonocc.shape == (nv,)
    np.testing.assert_allclose(nonocc, want, rtol=1e-6)


def test_bm25_over_a_score_matrix_retrieves_by_it() -> None:
    tokens, settings, nv = _fields()
    weights = {"title": 1.0, "body": 1.0}
    matrix, nonocc = combine_fields(score_fields(tokens, weights, 3, nv, settings, no_progress),
                                    weights, 3, nv, "lucene")
    vocab = {"red": 0, "shoe": 1, "blue": 2, "hat": 3, "for": 4, "running": 5}
    bm = bm25_over((matrix.indptr, matrix.indices, matrix.data), 3, nonocc, vocab, settings)
    assert bm.scores["indptr"].dtype == np.int64 and bm.scores["num_docs"] == 3
    assert bm.vocab_dict == vocab and bm.unique_token_ids_set == set(range(6))
    docs, scores = bm.retrieve([[vocab["red"]]], k=2, show_progress=False)
    assert docs.tolist() == [[2, 0]]  # "red red red" before "red shoe"
    np.testing.assert_allclose(scores[0], matrix.toarray()[[2, 0], 0], rtol=1e-6)


def test_manifest_params_record_non_default_combination_only() -> None:
    p = bm25_params(1.2, 0.7, "lucene", 0.5, "english", ("the", "a"), {"document": 1.0, "relations": 0.5})
    assert p == {"k1": 1.2, "b": 0.7, "method": "lucene", "delta": 0.5, "stemmer": "english",
                 "stopwords": ["the", "a"], "fields": ["document", "relations"],
                 "field_weights": {"document": 1.0, "relations": 0.5}}
    f = bm25_params(1.2, 0.7, "lucene", 0.5, None, "en", {"document": 1.0}, combine="bm25f",
                    field_b={"document": 1})
    assert f["stopwords"] == "en" and f["combine"] == "bm25f" and f["field_b"] == {"document": 1.0}

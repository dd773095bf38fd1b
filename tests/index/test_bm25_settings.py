"""The BM25 settings are checked once (`bm25_build.check_bm25_settings`) for every build."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.index.bm25_build import METHODS, check_bm25_settings
from skbsearch.index.sparse import BM25Index


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

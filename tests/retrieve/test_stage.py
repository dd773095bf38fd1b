"""What the index-backed retriever stages share (retrieve/stage.py), through ``bm25``: an
index given directly or named by spec (and of the kind the stage reads), the filter as parameters, k, search and evidence."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.types import Query
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.dense import DenseRetriever
from skbsearch.retrieve.filters import NodeFilter
from skbsearch.retrieve.sparse import BM25Retriever
from skbsearch.retrieve.stage import RetrieverParams, loaded_index

TEXTS = [("p1", "warm wool jacket"), ("p2", "rain jacket"), ("p3", "jacket jacket hood"),
         ("b1", "tent poles")]


@pytest.fixture(scope="module")
def index() -> BM25Index:
    return BM25Index.from_texts(TEXTS)


def test_an_index_given_directly_is_ready_and_prints_as_its_spec(index: BM25Index) -> None:
    r = BM25Retriever(index, k=2)
    assert r.index is index and r.k == 2 and r.filter is None
    out = r([Query("q", "jacket"), Query("none", "zebra")])
    assert len(out["q"]) == 2 and set(out["q"]) <= {"p1", "p2", "p3"} and out["none"] == {}
    assert repr(r) == "bm25(k=2)"
    assert r.evidence() == ()  # no context's index read


def test_a_filter_becomes_the_types_and_where_parameters(index: BM25Index) -> None:
    r = BM25Retriever(index, k=3, filter=NodeFilter(types=("product",), where="price < 5"))
    assert repr(r) == "bm25(k=3, types=['product'], where='price < 5')"
    assert r.filter == NodeFilter(("product",), "price < 5")
    assert BM25Retriever(index, filter=NodeFilter()).filter is None  # an empty filter: none


def test_search_is_the_single_query_helper(index: BM25Index) -> None:
    r = BM25Retriever(index, k=10)
    top = r.search("jacket", k=2)
    assert [d for d, _ in top] == [d for d, _ in r([Query("q0", "jacket")]).ranked("q0")[:2]]
    assert all(isinstance(s, float) for _, s in top)


def test_an_index_and_an_index_directory_together_are_refused(index: BM25Index) -> None:
    with pytest.raises(InputError, match="give an index object or the index parameter"):
        BM25Retriever(index, index="some/dir")


def test_k_must_not_be_negative() -> None:
    with pytest.raises(InputError, match="k must be >= 0"):
        RetrieverParams(k=-1).check()
    RetrieverParams(k=0).check()


def test_loaded_index_keeps_an_index_of_its_kind_and_loads_a_directory(tmp_path) -> None:
    index = BM25Index.from_texts(TEXTS, stemmer=None)
    assert loaded_index(index, BM25Index, "bm25") is index
    index.save(tmp_path / "bm25")
    again = loaded_index(tmp_path / "bm25", BM25Index, "bm25")
    assert again is not index and again.doc_ids == ["p1", "p2", "p3", "b1"]
    assert loaded_index(str(tmp_path / "bm25"), BM25Index, "bm25").doc_ids == again.doc_ids


def test_a_stage_given_an_index_of_another_kind_names_both_kinds(index: BM25Index) -> None:
    with pytest.raises(InputError, match="reads a dense index, not a bm25 one"):
        DenseRetriever(index)

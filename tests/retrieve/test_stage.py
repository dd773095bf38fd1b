"""The retriever stages' shared part (``retrieve/stage.py``): which index a stage reads."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.dense import DenseRetriever
from skbsearch.retrieve.sparse import BM25Retriever
from skbsearch.retrieve.stage import loaded_index

DOCS = [("a", "red waterproof jacket"), ("b", "blue hiking boots"), ("c", "green tent")]


def test_loaded_index_keeps_an_index_of_its_kind_and_loads_a_directory(tmp_path) -> None:
    index = BM25Index.from_texts(DOCS, stemmer=None)
    assert loaded_index(index, BM25Index, "bm25") is index
    index.save(tmp_path / "bm25")
    again = loaded_index(tmp_path / "bm25", BM25Index, "bm25")
    assert again is not index and again.doc_ids == ["a", "b", "c"]
    assert loaded_index(str(tmp_path / "bm25"), BM25Index, "bm25").doc_ids == ["a", "b", "c"]


def test_a_stage_given_an_index_of_another_kind_names_both_kinds() -> None:
    index = BM25Index.from_texts(DOCS, stemmer=None)
    with pytest.raises(InputError, match="reads a dense index, not a bm25 one"):
        DenseRetriever(index)
    assert BM25Retriever(index, k=2).search("waterproof jacket")[0][0] == "a"

"""A saved BM25 index is opened without reading its postings, and a damaged term is refused by
the first query that reads it, in every path that reads postings (index.bm25_checks)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from skbsearch.core.errors import ArtefactError
from skbsearch.core.types import Query
from skbsearch.index import kernels
from skbsearch.index.sparse import BM25Index
from skbsearch.retrieve.feedback import TermFeedback
from skbsearch.retrieve.sparse import BM25Retriever

DOCS = ["red wool jacket", "blue rain jacket", "green wool hat", "red hat", "steel pot",
        "blue steel kettle", "rain boots", "wool socks"]


@pytest.fixture()
def saved(tmp_path: Path) -> Path:
    BM25Index.build(DOCS, [f"d{i}" for i in range(len(DOCS))]).save(tmp_path / "ix")
    return tmp_path / "ix"


def _term(ix: Path, word: str) -> tuple[int, slice]:
    """``word``'s term id and the positions of its postings in the CSC arrays."""
    vocab = json.loads((ix / "vocab.tokenizer.json").read_text())
    sid = vocab["stem_to_sid"][vocab["word_to_stem"][word]]
    indptr = np.load(ix / "indptr.csc.index.npy")
    return sid, slice(int(indptr[sid]), int(indptr[sid + 1]))


def _edit(file: Path, edit) -> None:
    a = np.load(file)
    edit(a)
    np.save(file, a)


def _paths(index: BM25Index):
    """Every way a query reads postings, for the text ``wool``."""
    toks = index.tokenize(["wool"])
    yield "one query", lambda: index.top_rows(toks[0], 3)
    yield "one query with a mask", lambda: index.top_rows(toks[0], 3, np.ones(index.num_docs, bool))
    yield "a batch", lambda: index.top_rows_many([toks[0], toks[0]], 3, n_threads=2)
    yield "a batch on one thread", lambda: index.top_rows_many([toks[0]], 3, n_threads=1)
    yield "scores of given rows", lambda: index.score_docs(toks[0], np.arange(3))
    yield "bm25s's numpy retrieval", lambda: BM25Retriever(index, k=3, backend="numpy")([Query("q", "wool")])
    yield "pseudo-relevance feedback", lambda: TermFeedback(index)


def test_open_reads_no_posting_and_each_path_refuses_a_damaged_term(saved, monkeypatch) -> None:
    """Every posting's document id out of range: the open succeeds (it used to read and check
    them all), a query of the damaged term is refused by each path with the file and what is
    wrong, and so is the next one (a failed term is not marked checked)."""
    sid, wool = _term(saved, "wool")
    _edit(saved / "indices.csc.index.npy", lambda a: a.__setitem__(wool, 10**6))
    index = BM25Index.load(saved)
    rows, _ = index.top_rows(index.tokenize(["pot"])[0], 3)  # other terms still answer
    assert index.doc_ids[int(rows[0])] == "d4"
    for what, run in _paths(index):
        for _ in range(2):
            with pytest.raises(ArtefactError, match=f"indices of term {sid} range over") as e:
                run()
            assert str(saved) in str(e.value) and "outside [0, 8)" in str(e.value), what
    if kernels.AVAILABLE:  # and bm25s's numpy path of top_rows
        monkeypatch.setattr(kernels, "AVAILABLE", False)
        with pytest.raises(ArtefactError, match="range over"):
            index.top_rows(index.tokenize(["wool"])[0], 3)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_scores_that_are_not_numbers_are_refused_on_first_use(saved, bad) -> None:
    _, jacket = _term(saved, "jacket")
    _edit(saved / "data.csc.index.npy", lambda a: a.__setitem__(jacket.stop - 1, bad))
    index = BM25Index.load(saved)
    assert len(index.top_rows(index.tokenize(["hat"])[0], 3)[0]) == 2
    with pytest.raises(ArtefactError, match="data.csc.index.npy: damaged bm25 index .*NaN or infinite"):
        index.top_rows_many(index.tokenize(["red", "red jacket"]), 3)


def test_postings_out_of_order_are_refused(saved) -> None:
    _, rain = _term(saved, "rain")
    assert rain.stop - rain.start == 2
    _edit(saved / "indices.csc.index.npy", lambda a: a.__setitem__(rain, a[rain][::-1].copy()))
    index = BM25Index.load(saved)
    with pytest.raises(ArtefactError, match="not in ascending order"):
        index.top_rows(index.tokenize(["rain"])[0], 3)


def test_checked_terms_are_checked_once(saved) -> None:
    """A term is checked by its first query only: damage written to its memory-mapped
    postings afterwards (an array edited in place) is no longer looked for, while an unread
    term still is."""
    index = BM25Index.load(saved, mmap=False)
    toks = index.tokenize(["wool", "steel"])
    index.top_rows(toks[0], 3)
    indices = index.bm25.scores["indices"]
    _, wool = _term(saved, "wool")
    _, steel = _term(saved, "steel")
    indices[wool.start] = indices[steel.start] = 10**6
    index.score_docs(toks[0], np.arange(2))  # checked already: not read again by the checks
    with pytest.raises(ArtefactError, match="range over"):
        index.top_rows(toks[1], 3)


def test_check_terms_before_reading_postings_elsewhere(saved) -> None:
    """``check_terms``: what a caller that reads postings itself runs first; ids outside the
    vocabulary are ignored; an index built in this process has nothing to check."""
    sid, wool = _term(saved, "wool")
    _edit(saved / "indices.csc.index.npy", lambda a: a.__setitem__(wool, -1))
    index = BM25Index.load(saved)
    index.check_terms([[10**9, -1], []])
    with pytest.raises(ArtefactError, match=f"indices of term {sid} range over \\[-1, -1\\]"):
        index.check_terms([[10**9], [sid]])
    BM25Index.build(DOCS, [f"d{i}" for i in range(len(DOCS))]).check_terms([[0, 1, 10**9, -1]])


def test_pointers_are_still_checked_at_open(saved) -> None:
    _edit(saved / "indptr.csc.index.npy", lambda a: a.__setitem__(1, a[-1] + 1))
    with pytest.raises(ArtefactError, match="indptr decreases"):
        BM25Index.load(saved)

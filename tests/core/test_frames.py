"""Queries, Runs and Qrels to and from DataFrames in PyTerrier's and ranx's column names;
bad rows named by row and column."""

from __future__ import annotations

import math

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.frames import is_frame, query_rows, run_to_frame, triples_from_frame
from skbsearch.core.types import Run

pd = pytest.importorskip("pandas")


def test_query_frames_in_pyterrier_or_plain_columns_with_the_rest_as_meta() -> None:
    topics = pd.DataFrame({"qid": [1, "q2"], "query": ["warm jacket", "tent"],
                           "split": ["dev", math.nan]})
    assert query_rows(topics) == [("1", "warm jacket", {"split": "dev"}), ("q2", "tent", {})]
    assert query_rows(pd.DataFrame({"id": ["a"], "text": ["x"]})) == [("a", "x", {})]


@pytest.mark.parametrize(("frame", "says"), [
    ({"qid": ["a", "a"], "query": ["x", "y"]}, r"record 2, field 'qid': query id 'a' appears twice"),
    ({"qid": ["a", None], "query": ["x", "y"]}, r"record 2, field 'qid': missing query id or text"),
    ({"qid": ["a", "b"], "query": ["x", "  "]}, r"record 2, field 'query': missing query id or text"),
    ({"q": ["a"], "words": ["x"]}, r"needs the columns qid/query or id/text .*; it has q, words"),
])
def test_bad_query_frames_name_the_row_and_column(frame: dict, says: str) -> None:
    with pytest.raises(InputError, match=says):
        query_rows(pd.DataFrame(frame))


def test_a_run_frame_is_ranked_from_zero_and_reads_back() -> None:
    run = Run({"q1": {"d1": 0.5, "d2": 2.0}, "q2": {"d9": 1.0}})
    frame = run_to_frame(run, run.ranked)
    assert frame.values.tolist() == [["q1", "d2", 0, 2.0], ["q1", "d1", 1, 0.5], ["q2", "d9", 0, 1.0]]
    assert triples_from_frame(frame, "run") == {"q1": {"d1": 0.5, "d2": 2.0}, "q2": {"d9": 1.0}}
    ranx = pd.DataFrame({"q_id": ["q"], "doc_id": ["d"], "score": [3.0]})
    assert triples_from_frame(ranx, "run") == {"q": {"d": 3.0}}


def test_qrels_frames_and_their_errors() -> None:
    pt = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "b"], "label": [2, 0]})
    assert triples_from_frame(pt, "qrels") == {"q": {"a": 2, "b": 0}}
    twice = pd.DataFrame({"qid": ["q", "q"], "docno": ["a", "a"], "label": [1, 1]})
    with pytest.raises(InputError, match=r"record 2, field 'docno': document 'a' appears twice"):
        triples_from_frame(twice, "qrels")
    gap = pd.DataFrame({"qid": ["q"], "docno": ["a"], "label": [math.nan]})
    with pytest.raises(InputError, match=r"record 1, field 'label': missing query, document or value"):
        triples_from_frame(gap, "qrels")
    with pytest.raises(InputError, match="a DataFrame of qrels needs the columns"):
        triples_from_frame(pt.rename(columns={"label": "rel"}), "qrels")


def test_only_frame_shaped_objects_are_frames() -> None:
    assert is_frame(pd.DataFrame({"a": [1]}))
    assert not is_frame({"qid": ["a"]}) and not is_frame([("a", "x")])

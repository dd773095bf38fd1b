"""Qrels from TREC, JSON or a query file with answers: the format told from the file, and
files that are missing or malformed named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from query_files import write

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels
from skbsearch.datasets import qrels_format, read_qrels


def test_read_qrels_formats(tmp_path: Path) -> None:
    qrels = Qrels({"q1": {"d1": 2}, "q2": {"d3": 1}})
    qrels.to_trec(tmp_path / "qrels.txt")
    (tmp_path / "qrels.json").write_text(json.dumps(qrels.to_dict()))
    assert qrels_format(tmp_path / "qrels.txt") == "trec"
    assert qrels_format(tmp_path / "qrels.json") == "json"
    assert read_qrels(tmp_path / "qrels.txt") == qrels
    assert read_qrels(tmp_path / "qrels.json") == qrels
    jl = write(tmp_path, "answers", '{"id": "q1", "text": "x", "answer_ids": ["d1"]}\n')
    assert qrels_format(jl) == "answers"
    assert read_qrels(jl) == {"q1": {"d1": 1}}
    tsv = write(tmp_path, "answers.tsv", "id\tanswer_ids\nq1\td1,d2\n")
    assert read_qrels(tsv) == {"q1": {"d1": 1, "d2": 1}}


def test_a_missing_file_and_json_that_is_not_qrels_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="qrels file not found"):
        read_qrels(tmp_path / "none.txt")
    bad = write(tmp_path, "q.json", json.dumps({"q1": {"d1": "relevant"}}))
    assert qrels_format(bad) == "json"
    with pytest.raises(InputError) as e:
        read_qrels(bad)
    assert e.value.file == str(bad)


def test_a_json_list_of_queries_is_an_answers_file(tmp_path: Path) -> None:
    f = write(tmp_path, "q.json", json.dumps({"id": "q1", "query": "x", "answer_ids": [4]}))
    assert qrels_format(f) == "answers"
    assert read_qrels(f) == Qrels({"q1": {"4": 1}})

"""Query and qrels readers: every format, detection, and errors that name file:line:field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from query_files import write

from skbsearch.core.errors import InputError
from skbsearch.core.types import Query
from skbsearch.datasets import (
    detect_format,
    read_qrels,
    read_qrels_from_answers,
    read_queries,
    read_queries_and_answers,
)

STARK_CSV = (
    "id,query,answer_ids\n"
    '0,"Looking for a blue kettle, cheap",[12]\n'
    '1,What pairs with the X100 camera?,"[3, 7]"\n'
    "2,a query without answers,[]\n"
)


def test_stark_csv_queries_and_answers(tmp_path: Path) -> None:
    p = write(tmp_path, "stark_qa.csv", STARK_CSV)
    assert detect_format(p) == "csv"
    queries = read_queries(p)
    assert [(q.id, q.text) for q in queries] == [
        ("0", "Looking for a blue kettle, cheap"),
        ("1", "What pairs with the X100 camera?"),
        ("2", "a query without answers"),
    ]
    qs, qrels = read_queries_and_answers(p)
    assert qs == queries
    assert qrels == {"0": {"12": 1}, "1": {"3": 1, "7": 1}}
    assert read_qrels_from_answers(p) == qrels
    assert read_qrels(p) == qrels


def test_jsonl_aliases_meta_and_synth_round_trip(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        "q.jsonl",
        json.dumps({"qid": 7, "query": "  red shoes ", "meta": {"template": "t1"}, "lang": "en"})
        + "\n\n"
        + json.dumps({"qid": "b", "query": "green hats", "answer_ids": ["d1", "d2"]})
        + "\n",
    )
    queries = read_queries(p)
    assert queries == [Query("7", "red shoes"), Query("b", "green hats")]
    assert queries[0].meta == {"template": "t1", "lang": "en"}
    _, qrels = read_queries_and_answers(p)
    assert qrels == {"b": {"d1": 1, "d2": 1}}
    # BEIR's queries.jsonl uses _id
    beir = write(tmp_path, "beir.jsonl", json.dumps({"_id": "x1", "text": "t", "metadata": {}}))
    assert read_queries(beir)[0].id == "x1"


def test_json_list_and_mapping(tmp_path: Path) -> None:
    lst = write(tmp_path, "l.json", json.dumps([{"id": "a", "text": "one"}, {"id": "b", "text": "two"}]))
    assert [q.id for q in read_queries(lst)] == ["a", "b"]
    mp = write(tmp_path, "m.json", json.dumps({"a": "one", "b": "two"}))
    assert [(q.id, q.text) for q in read_queries(mp)] == [("a", "one"), ("b", "two")]


def test_trec_topics_tsv_without_header(tmp_path: Path) -> None:
    p = write(tmp_path, "queries.dev.tsv", '1048585\twhat is "paula deen\'s" brother\n2\tsecond\n')
    assert detect_format(p) == "trec"
    assert [(q.id, q.text) for q in read_queries(p)] == [
        ("1048585", "what is \"paula deen's\" brother"),
        ("2", "second"),
    ]


def test_tsv_with_header_and_explicit_fields(tmp_path: Path) -> None:
    p = write(tmp_path, "q.tsv", "query_id\ttext\tanswers\nq1\tone\td1 d2\nq2\ttwo\td3\n")
    assert detect_format(p) == "tsv"
    qs, qrels = read_queries_and_answers(p)
    assert [q.id for q in qs] == ["q1", "q2"]
    assert qrels == {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    custom = write(tmp_path, "c.csv", "Num,Question,Other\n5,hello,x\n")
    qs = read_queries(custom, id_field="num", text_field="Question")
    assert qs == [Query("5", "hello")] and qs[0].meta == {"Other": "x"}


def test_plain_text_lines(tmp_path: Path) -> None:
    p = write(tmp_path, "q.txt", "first query\n\nthird line query\n")
    assert detect_format(p) == "text"
    assert [(q.id, q.text) for q in read_queries(p)] == [("1", "first query"), ("3", "third line query")]


@pytest.mark.parametrize(
    ("name", "text", "line", "field", "words"),
    [
        ("a.csv", "id,query\n1,ok\n1,again\n", 3, "id", "duplicate query id '1'"),
        ("b.csv", "id,query\n1,ok\n2,\n", 3, "query", "empty query text"),
        ("c.csv", "key,query\n1,ok\n", 2, "id", "no query id field"),
        ("d.csv", "id,body\n1,ok\n", 2, "text", "no query text field"),
        ("e.csv", "id,query\n1,ok,extra\n", 2, None, "more cells"),
        ("f.jsonl", '{"id": "a", "text": "x"}\n{"id": "b"}\n', 2, "text", "no query text field"),
        ("g.jsonl", '{"id": "a", "text": "x"}\n{"id": "b", "text": 3}\n', 2, "text", "must be a string"),
        ("h.jsonl", '{"id": "a", "text": "x"}\nnot json\n', 2, None, "malformed JSON"),
        ("i.jsonl", '{"id": [1], "text": "x"}\n', 1, "id", "string or an integer"),
        ("j.tsv", "1\tone\n2\n", 2, None, "no tab"),
    ],
)
def test_errors_name_file_line_field(
    tmp_path: Path, name: str, text: str, line: int, field: str | None, words: str
) -> None:
    p = write(tmp_path, name, text)
    with pytest.raises(InputError) as e:
        read_queries(p)
    assert e.value.file == str(p) and e.value.line == line and e.value.field == field
    assert words in str(e.value) and f"{p}:{line}" in str(e.value)


def test_answers_errors(tmp_path: Path) -> None:
    p = write(tmp_path, "q.csv", "id,query\n1,ok\n")
    with pytest.raises(InputError, match="no answers field") as e:
        read_queries_and_answers(p)
    assert e.value.field == "answer_ids"
    with pytest.raises(InputError, match="has no answers column"):
        read_queries_and_answers(write(tmp_path, "q.txt", "hello\n"))
    bad = write(tmp_path, "b.jsonl", '{"id": "a", "text": "x", "answer_ids": [[1]]}\n')
    with pytest.raises(InputError, match="list of answer ids") as e:
        read_queries_and_answers(bad)
    assert (e.value.line, e.value.field) == (1, "answer_ids")
    with pytest.raises(InputError, match="not found"):
        read_queries(tmp_path / "missing.csv")
    with pytest.raises(InputError, match="no queries"):
        read_queries(write(tmp_path, "empty.csv", "id,query\n"))
    with pytest.raises(InputError, match="unknown query format"):
        read_queries(p, fmt="xml")


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "q.csv"
    p.write_bytes(b"id,query\n1,caf\xe9\n")
    with pytest.raises(InputError, match="not UTF-8") as e:
        read_queries(p)
    assert e.value.file == str(p)

"""Run / Qrels / Query: TREC round trips, cut-offs, errors."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Query, Run, as_queries


def test_run_trec_round_trip(tmp_path):
    run = Run({"q1": {"d1": 3.5, "d2": 1.25, "d3": 2.0}, "q2": {"x": -1.0}}, name="bm25")
    path = tmp_path / "run.trec"
    run.to_trec(path)
    lines = path.read_text().splitlines()
    assert lines[0] == "q1 Q0 d1 1 3.5 bm25"
    assert lines[1].split()[:4] == ["q1", "Q0", "d3", "2"]
    back = Run.from_trec(path)
    assert back == run
    assert back.name == "run"


def test_run_scores_round_trip_exactly(tmp_path):
    run = Run({"q": {"a": 0.1 + 0.2, "b": 1e-17, "c": 123456789.123456789}})
    run.to_trec(tmp_path / "r")
    assert Run.from_trec(tmp_path / "r") == run


def test_qrels_trec_round_trip(tmp_path):
    qrels = Qrels({"q1": {"d1": 2, "d2": 0}, "q2": {"x": 1}})
    qrels.to_trec(tmp_path / "qrels")
    assert Qrels.from_trec(tmp_path / "qrels") == qrels
    assert qrels.relevant("q1") == {"d1"}
    assert qrels.relevant("q1", min_grade=0) == {"d1", "d2"}


def test_qrels_json_accepts_string_grades(tmp_path):
    (tmp_path / "q.json").write_text('{"19335": {"a": "0", "b": "3"}}')
    assert Qrels.from_json(tmp_path / "q.json") == {"19335": {"a": 0, "b": 3}}


def test_bad_trec_lines_name_file_line_field(tmp_path):
    p = tmp_path / "bad.run"
    p.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 high t\n")
    with pytest.raises(InputError) as e:
        Run.from_trec(p)
    assert f"{p}:2" in str(e.value) and "field 'score'" in str(e.value)
    p.write_text("q1 Q0 d1 1\n")
    with pytest.raises(InputError, match=r"bad.run:1.*6 columns"):
        Run.from_trec(p)
    q = tmp_path / "bad.qrels"
    q.write_text("q1 0 d1 1\nq1 0 d2 x\n")
    with pytest.raises(InputError, match=r"bad.qrels:2, field 'grade'"):
        Qrels.from_trec(q)
    j = tmp_path / "bad.json"
    j.write_text('{"q": {"a": 1},\n oops}')
    with pytest.raises(InputError, match=r"bad.json:2"):
        Qrels.from_json(j)


def test_top_and_ranked_ties_by_doc_id_descending_as_trec_eval():
    run = Run({"q": {"b": 1.0, "a": 1.0, "c": 2.0, "d": 0.5}})
    assert [d for d, _ in run.ranked("q")] == ["c", "b", "a", "d"]
    assert list(run.top(2)["q"]) == ["c", "b"]
    assert run.top(0) == {"q": {}}
    with pytest.raises(ValueError):
        run.top(-1)


def test_ranx_compatible_dicts():
    ranx = pytest.importorskip("ranx")
    run = Run({"q": {"a": 1.0, "b": 0.5}})
    qrels = Qrels({"q": {"a": 1}})
    assert ranx.evaluate(qrels.to_ranx(), run.to_ranx(), "mrr") == pytest.approx(1.0)


def test_as_queries_forms():
    assert as_queries("hello") == [Query("q0", "hello")]
    assert as_queries({"a": "x", "b": "y"}) == [Query("a", "x"), Query("b", "y")]
    qs = as_queries(["x", Query("z", "zz")])
    assert [q.id for q in qs] == ["q0", "z"]


def test_trec_files_that_are_missing_or_not_files_are_input_errors(tmp_path) -> None:
    with pytest.raises(InputError, match=r"missing.trec: TREC file not found"):
        Run.from_trec(tmp_path / "missing.trec")
    with pytest.raises(InputError, match="is a directory, not a TREC file"):
        Run.from_trec(tmp_path)  # was an IsADirectoryError traceback from `skb run`
    with pytest.raises(InputError, match="is a directory, not a TREC file"):
        Qrels.from_trec(tmp_path)

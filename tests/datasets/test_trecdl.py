"""The TREC DL reader: the BM25 top-100 file as queries, a run and passage texts; the qrels
beside it; missing and malformed files named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Query
from skbsearch.datasets.trecdl import load_trecdl, read_trecdl_candidates

TOP = [{"query": "how long do fleas live",
        "hits": [{"qid": 1, "docid": 7, "content": "fleas live a year", "score": 9.5, "rank": 1},
                 {"qid": 1, "docid": "d8", "content": "the market fell", "score": 3.0, "rank": 2}]},
       {"query": "no hits", "qid": 2, "hits": []}]


def _folder(d: Path, top: object = TOP, qrels: object = None) -> Path:
    (d / "dl19_bm25_top100.json").write_text(json.dumps(top))
    if qrels is not None:
        (d / "dl19_qrels.json").write_text(json.dumps(qrels))
    return d


def test_the_top100_file_gives_queries_run_and_texts(tmp_path: Path) -> None:
    queries, run, texts = read_trecdl_candidates(_folder(tmp_path))
    assert queries == [Query("1", "how long do fleas live"), Query("2", "no hits")]
    assert run == {"1": {"7": 9.5, "d8": 3.0}, "2": {}} and run.name == "bm25"
    assert texts == {"7": "fleas live a year", "d8": "the market fell"}


def test_a_year_with_qrels_loads_whole(tmp_path: Path) -> None:
    data = load_trecdl(_folder(tmp_path, qrels={"1": {"7": "3", "d8": "0"}}))
    assert data.year == "dl19" and data.path == tmp_path
    assert data.qrels == Qrels({"1": {"7": 3, "d8": 0}})
    assert data.doc_text["7"] == "fleas live a year" and len(data.queries) == 2


def test_missing_files_say_which_are_expected(tmp_path: Path) -> None:
    _folder(tmp_path)
    with pytest.raises(InputError, match="expected dl19_bm25_top100.json and dl19_qrels.json"):
        load_trecdl(tmp_path)  # the qrels are missing
    with pytest.raises(InputError, match="expected dl20_bm25_top100.json in"):
        read_trecdl_candidates(tmp_path, "dl20")


def test_malformed_files_name_the_record(tmp_path: Path) -> None:
    (tmp_path / "dl19_bm25_top100.json").write_text('[{"query": "q",\n "hits": [}]')
    with pytest.raises(InputError, match="malformed JSON") as e:
        read_trecdl_candidates(tmp_path)
    assert e.value.line == 2
    _folder(tmp_path, top=[TOP[0], {"query": "q", "hits": [{"qid": 3, "docid": "x"}]}])
    with pytest.raises(InputError, match="missing 'score'") as e:
        read_trecdl_candidates(tmp_path)
    assert e.value.line == 2

"""The IMPLIRET pool reader (skbsearch.datasets.impliret): pools present and missing, one
record a line with its errors by file, line and field, and a pool's queries and qrels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from impliret_pools import TEMPORAL, tiny_folder
from impliret_pools import write_pool as _write

from skbsearch.core.errors import InputError
from skbsearch.datasets.impliret import POOLS, discover_pools, load_pool, pool_queries


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return tiny_folder(tmp_path)


def test_missing_pools_and_bad_input(tmp_path: Path, tiny: Path) -> None:
    present, missing = discover_pools(tiny)
    assert list(present) == ["arithmetic_multispeaker", "temporal_multispeaker"]
    assert len(missing) == 4
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no IMPLIRET pool"):
        discover_pools(empty)
    bad = tmp_path / "bad"
    _write(bad, "wknow_unispeaker", [{"id": 1, "document": "x"}])
    with pytest.raises(InputError, match="question"):
        load_pool(bad / "wknow_unispeaker.jsonl")


def test_queries(tiny: Path) -> None:
    qs, qrels = pool_queries(load_pool(tiny / "temporal_multispeaker.jsonl"), limit=2)
    assert [q.id for q in qs] == ["0", "1"] and qrels == {"0": {"0": 1}, "1": {"1": 1}}


def _lines(tmp_path: Path, *lines: str) -> Path:
    p = tmp_path / "temporal_unispeaker.jsonl"
    p.write_text("".join(ln + "\n" for ln in lines), encoding="utf-8")
    return p


def test_a_record_keeps_its_other_fields_and_ids_default_to_the_row(tmp_path: Path) -> None:
    rows = [{"document": "a", "question": "q?", "main_speaker": "Ana"},
            {"document": "b", "question": "r?", "answer": 7, "tuple_set_id": 3}]
    first, second = load_pool(_lines(tmp_path, *(json.dumps(r) for r in rows)))
    assert (first.id, first.tuple_set_id, first.answer) == ("0", "", "")
    assert first.extra == {"main_speaker": "Ana"}
    assert (second.id, second.tuple_set_id, second.answer) == ("1", "3", "7")


@pytest.mark.parametrize(("lines", "line", "field", "match"), [
    (['{"id": 1, "document": "a", "question": "q"}', '{"id": 1, "document": "b", "question": "r"}'],
     2, "id", "duplicate id '1'"),
    (['{"id": 1, "document": "  ", "question": "q"}'], 1, "document", "missing or empty 'document'"),
    (['{"id": 1, "document": "a", "question": 5}'], 1, "question", "missing or empty 'question'"),
    (['{"id": 1, "document": "a", "question": "q"', ], 1, None, "malformed JSON"),
])
def test_bad_records_are_named_by_file_line_and_field(tmp_path: Path, lines: list[str], line: int,
                                                      field: str | None, match: str) -> None:
    p = _lines(tmp_path, *lines)
    with pytest.raises(InputError, match=match) as e:
        load_pool(p)
    assert e.value.line == line and e.value.field == field and str(p) in str(e.value)


def test_an_empty_pool_and_a_missing_folder_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="pool file has no records"):
        load_pool(_lines(tmp_path, "", "  "))
    with pytest.raises(InputError, match="IMPLIRET folder not found") as e:
        discover_pools(tmp_path / "nowhere")
    assert e.value.field == "data"


def test_every_pool_found_in_order_and_queries_carry_their_tuple_set(tmp_path: Path) -> None:
    for name in reversed(POOLS):
        _write(tmp_path / "all", name, TEMPORAL[:1])
    present, missing = discover_pools(tmp_path / "all")
    assert list(present) == list(POOLS) and missing == []
    qs, qrels = pool_queries(load_pool(present["temporal_multispeaker"]))
    assert [q.meta for q in qs] == [{"tuple_set_id": "0"}] and qrels == {"0": {"0": 1}}

"""The NQ-open oracle reader: gzip or plain JSONL, the gold passage as "title: text", a
seeded sample, and bad records named by file and line."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.datasets.nq import NQRecord, read_nq_open

ROWS = [{"question": "who wrote hamlet", "answers": ["Shakespeare"],
         "ctxs": [{"title": "Hamlet", "text": "Hamlet is a play."}, {"title": "x", "text": "y"}]},
        {"question": "capital of france", "answers": ["Paris", "PARIS"],
         "ctxs": [{"text": "Paris is the capital."}]}]


def _lines(rows: list) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_gzip_and_plain_files_read_the_same(tmp_path: Path) -> None:
    gz = tmp_path / "nq-open-oracle.jsonl.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as f:
        f.write(_lines(ROWS))
    plain = tmp_path / "nq.jsonl"
    plain.write_text(_lines(ROWS) + "\n")  # a blank line is skipped
    expected = [NQRecord("who wrote hamlet", ("shakespeare",), "Hamlet: Hamlet is a play."),
                NQRecord("capital of france", ("paris", "paris"), "Paris is the capital.")]
    assert read_nq_open(gz) == read_nq_open(plain) == expected


def test_limit_is_a_seeded_sample(tmp_path: Path) -> None:
    f = tmp_path / "nq.jsonl"
    f.write_text(_lines([{"question": f"q{i}", "answers": [], "ctxs": [{"text": f"t{i}"}]}
                         for i in range(20)]))
    a, b = read_nq_open(f, limit=5, seed=1), read_nq_open(f, limit=5, seed=1)
    assert a == b and len(a) == 5 and len({r.question for r in a}) == 5
    assert a != read_nq_open(f, limit=5, seed=2)
    assert len(read_nq_open(f, limit=50)) == 20


@pytest.mark.parametrize("bad", ['{"question": "q", "ctxs": []}', '{"ctxs": [{"text": "t"}]}',
                                 "not json", '{"question": "q", "ctxs": [{"title": "only"}]}'])
def test_a_bad_record_names_file_and_line(tmp_path: Path, bad: str) -> None:
    f = tmp_path / "nq.jsonl"
    f.write_text(_lines(ROWS[:1]) + bad + "\n")
    with pytest.raises(InputError, match="expected an NQ-open record with 'question' and 'ctxs'") as e:
        read_nq_open(f)
    assert (e.value.file, e.value.line) == (str(f), 2)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found") as e:
        read_nq_open(tmp_path / "none.jsonl.gz")
    assert e.value.field == "data"


def test_an_overlong_line_is_refused_by_file_and_line(tmp_path: Path) -> None:
    from skbsearch.core.lines import MAX_LINE_BYTES

    f = tmp_path / "nq.jsonl"
    f.write_text(_lines(ROWS[:1]) + '{"question": "' + "x" * MAX_LINE_BYTES + '"}\n')
    with pytest.raises(InputError, match="line longer than 16 MiB") as e:
        read_nq_open(f)  # (read up to the limit, not the whole line)
    assert e.value.line == 2 and str(f) in str(e.value.file)


def test_non_utf8_text_and_a_damaged_gzip_are_input_errors(tmp_path: Path) -> None:
    f = tmp_path / "nq.jsonl"
    f.write_bytes(_lines(ROWS[:1]).encode() + b'{"question": "caf\xe9"}\n')
    with pytest.raises(InputError, match="not UTF-8"):
        read_nq_open(f)
    g = tmp_path / "nq.jsonl.gz"
    g.write_bytes(gzip.compress(_lines(ROWS).encode())[:-12])  # truncated
    with pytest.raises(InputError, match="damaged gzip"):
        read_nq_open(g)
    h = tmp_path / "not.jsonl.gz"
    h.write_text(_lines(ROWS))  # not gzip at all
    with pytest.raises(InputError, match="damaged gzip"):
        read_nq_open(h)

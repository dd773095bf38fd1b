"""iter_jsonl: records with line numbers; located errors."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import iter_jsonl


def test_iter_jsonl_skips_blank_lines_and_numbers_lines(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text('{"a": 1}\n\n{"a": 2}\n')
    assert list(iter_jsonl(p)) == [(1, {"a": 1}), (3, {"a": 2})]


@pytest.mark.parametrize(("text", "match"), [
    ('{"a": 1}\n{oops}\n', r"a.jsonl:2: malformed JSON"),
    ('{"a": 1}\n[1, 2]\n', r"a.jsonl:2: expected one JSON object a line"),
])
def test_iter_jsonl_errors_name_file_and_line(tmp_path, text, match):
    p = tmp_path / "a.jsonl"
    p.write_text(text)
    with pytest.raises(InputError, match=match):
        list(iter_jsonl(p))


def test_iter_jsonl_missing_file(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        list(iter_jsonl(tmp_path / "missing.jsonl"))

"""Streaming readers of the public KG layout (``kb.loaders.kg_read``): triples factorised into
int32 codes across files and blocks, every bad line named by file, line and field; by-id
text files; JSON files whose objects give an id once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders import kg_read
from skbsearch.kb.loaders.kg_read import (
    Codes,
    read_columns,
    read_json,
    read_json_texts,
    read_json_values,
    read_triples,
)


def _write(path: Path, data: str | bytes) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_codes_grow_in_order_of_first_sight() -> None:
    c = Codes()
    assert c.encode(pa.array(["b", "a", "b"])).tolist() == [0, 1, 0]
    assert c.encode(pa.chunked_array([["c"], ["a", "d"]])).tolist() == [2, 1, 3]
    assert c.ids() == ["b", "a", "c", "d"]


@pytest.mark.parametrize("block_size", [kg_read.BLOCK_SIZE, 16])
def test_triples_of_several_files_share_the_codes(tmp_path: Path, block_size: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kg_read, "BLOCK_SIZE", block_size)  # many blocks: codes carry across them
    train = _write(tmp_path / "train.txt", "/m/a\tlikes\t/m/b\n/m/b\tlikes\t/m/c\n")
    empty = _write(tmp_path / "valid.txt", "")
    test = _write(tmp_path / "test.txt", "/m/c\thates\t/m/a\r\n")
    ent, rel = Codes(), Codes()
    seen: list[int] = []
    h, r, t, n = read_triples([train, empty, test], ent, rel, progress=seen.append)
    triples = [(ent.ids()[a], rel.ids()[b], ent.ids()[c]) for a, b, c in zip(h, r, t, strict=True)]
    assert triples == [("/m/a", "likes", "/m/b"), ("/m/b", "likes", "/m/c"), ("/m/c", "hates", "/m/a")]
    assert n == 3 == sum(seen) and h.dtype == r.dtype == t.dtype == np.int32
    assert read_triples([empty], Codes(), Codes())[3] == 0


@pytest.mark.parametrize(("data", "line", "field", "says"), [
    ("a\tr\tb\nc\tr\n", 2, "tail", "3 tab-separated columns"),
    ("a\tr\tb\na\tr\tb\textra\n", 2, "tail", "found 4"),
    ("a\tr\tb\n \tr\tb\n", 2, "head", "empty head"),
    ("a\tr^-1\tb\n", 1, "relation", "reserved"),
    (b"a\tr\tb\n\xff\tr\tb\n", 2, None, "not UTF-8")])
def test_a_bad_triple_line_is_named(tmp_path: Path, data: str | bytes, line: int, field: str | None,
                                    says: str) -> None:
    f = _write(tmp_path / "train.txt", data)
    with pytest.raises(InputError, match=says) as e:
        read_triples([f], Codes(), Codes())
    assert (e.value.file, e.value.line, e.value.field) == (str(f), line, field)


def test_by_id_columns(tmp_path: Path) -> None:
    f = _write(tmp_path / "entity2text.txt", "/m/a\tAlpha\n\n/m/b\tBeta\textra\n")
    assert list(read_columns(f)) == [(1, ["/m/a", "Alpha"]), (3, ["/m/b", "Beta", "extra"])]
    bad = _write(tmp_path / "bad.txt", "/m/a\tAlpha\nonly-an-id\n")
    with pytest.raises(InputError, match="at least 2") as e:
        list(read_columns(bad))
    assert (e.value.line, e.value.field) == (2, "text")
    no_id = _write(tmp_path / "no_id.txt", " \tAlpha\n")
    with pytest.raises(InputError, match="empty id"):
        list(read_columns(no_id))


def test_json_files(tmp_path: Path) -> None:
    assert read_json(_write(tmp_path / "a.json", '{"x": [1, 2]}')) == {"x": [1, 2]}
    with pytest.raises(InputError, match="'Q1' is given twice") as e:
        read_json(_write(tmp_path / "dup.json", '{"Q1": "a",\n "Q1": "b"}'))
    assert e.value.field == "Q1"
    with pytest.raises(InputError, match="malformed JSON") as e:
        read_json(_write(tmp_path / "bad.json", '{\n"x": }'))
    assert e.value.line == 2
    with pytest.raises(InputError, match="not UTF-8"):
        read_json(_write(tmp_path / "latin.json", b'{"x": "\xe9"}'))
    with pytest.raises(InputError, match="unreadable JSON"):
        read_json(_write(tmp_path / "deep.json", "[" * 100_000 + "]" * 100_000))


def test_typed_json_files(tmp_path: Path) -> None:
    types = _write(tmp_path / "entity2types.json", '{"Q1": ["T1", "T2"], "Q2": []}')
    assert read_json_values(types) == {"Q1": ["T1", "T2"], "Q2": []}
    with pytest.raises(InputError, match="type id"):
        read_json_values(_write(tmp_path / "t.json", '{"Q1": "T1"}'))
    texts = _write(tmp_path / "entities.json",
                   '{"Q1": {"label": "Alpha", "description": "first", "x": 1}, "Q2": "Beta", "Q3": {"label": 5}}')
    assert read_json_texts(texts) == {"Q1": {"label": "Alpha", "description": "first"}, "Q2": {"label": "Beta"},
                                      "Q3": {}}
    with pytest.raises(InputError, match="got list") as e:
        read_json_texts(_write(tmp_path / "e.json", '{"Q1": ["Alpha"]}'))
    assert e.value.field == "Q1"
    with pytest.raises(InputError, match="expected a JSON object"):
        read_json_texts(_write(tmp_path / "l.json", "[]"))

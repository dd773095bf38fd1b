"""Entity names, descriptions and aliases by id, joined onto a KG's entities: first text
wins, extra columns become a description (or aliases), ids in no triple are counted, and
bad lines are named, a carriage return inside a line included."""

from __future__ import annotations

from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders.kg_files import KGFiles
from skbsearch.kb.loaders.kg_texts import entity_columns

IDS = ["/m/01", "/m/02", "Q3"]


def _files(tmp_path: Path, names: bytes | None = None, descriptions: bytes | None = None,
           names_file: str = "entity2text.txt") -> KGFiles:
    files = KGFiles(tmp_path)
    if names is not None:
        files.names = tmp_path / names_file
        files.names.write_bytes(names)
    if descriptions is not None:
        files.descriptions = tmp_path / "entity2textlong.txt"
        files.descriptions.write_bytes(descriptions)
    return files


def test_names_and_descriptions_join_by_id_and_the_names_file_wins(tmp_path: Path) -> None:
    files = _files(tmp_path, b"/m/01\tAda  Lovelace\r\n\n/m/02\tBob\textra\twords\nQ9\tNobody\n",
                   b"/m/01\tA mathematician.\nQ3\tA   third one.\n")
    cols, unused = entity_columns(files, IDS)
    assert cols["name"].to_pylist() == ["Ada Lovelace", "Bob", None]  # spaces squeezed
    assert cols["description"].to_pylist() == ["A mathematician.", "extra words", "A third one."]
    assert unused == 1  # Q9 is in no triple


def test_extra_columns_of_an_entity_file_are_aliases(tmp_path: Path) -> None:
    files = _files(tmp_path, b"Q3\tThird\tthe third\t3rd\n", names_file="wikidata5m_entity.txt")
    cols, _ = entity_columns(files, IDS)
    assert cols["name"].to_pylist() == [None, None, "Third"]
    assert cols["aliases"].to_pylist() == [None, None, "the third; 3rd"]


@pytest.mark.parametrize(("data", "line", "says"), [
    (b"/m/01\tAda\n/m/02\n", 2, "expected at least 2 tab-separated columns"),
    (b"/m/01\tAda\n\tNo id\n", 2, "empty id"),
    (b"/m/01\tAda\n/m/01\tAgain\n", 2, "given again (first at line 1)"),
    (b"/m/02\tBob\n/\rm/01\tAda\n", 2, "a carriage return (\\r) inside the line"),  # was ArrowInvalid
])
def test_bad_lines_are_named(tmp_path: Path, data: bytes, line: int, says: str) -> None:
    files = _files(tmp_path, data)
    with pytest.raises(InputError) as e:
        entity_columns(files, IDS)
    assert says in str(e.value) and (e.value.file, e.value.line) == (str(files.names), line)


def test_no_text_files_no_columns(tmp_path: Path) -> None:
    assert entity_columns(_files(tmp_path), IDS) == ({}, 0)
    cols, unused = entity_columns(_files(tmp_path, b"\n  \n"), IDS)
    assert cols["name"].to_pylist() == [None, None, None] and unused == 0

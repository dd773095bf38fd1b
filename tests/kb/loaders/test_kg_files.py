"""Which files of a directory make a public-layout KG (``kb.loaders.kg_files``): split triple
files in train / valid / test order (with a prefix too), the name, description, relation
and type files by their usual names (case-insensitive), and a directory that is no KG."""

from __future__ import annotations

from pathlib import Path

from skbsearch.kb.loaders.kg_files import KGFiles, find_kg_files, looks_like_kg, split_files


def _touch(d: Path, *names: str) -> None:
    for n in names:
        (d / n).write_text("x\ty\tz\n", encoding="utf-8")


def test_splits_come_train_valid_test_whatever_their_prefix(tmp_path: Path) -> None:
    _touch(tmp_path, "test.txt", "wikidata5m_transductive_train.txt", "Dev.TSV", "notes.txt", "train.csv")
    (tmp_path / "valid.txt").mkdir()  # a directory is not a split
    assert [p.name for p in split_files(tmp_path)] == ["wikidata5m_transductive_train.txt", "Dev.TSV", "test.txt"]
    assert looks_like_kg(tmp_path)


def test_a_directory_without_splits_is_no_kg(tmp_path: Path) -> None:
    _touch(tmp_path, "entities.tsv", "nodes.jsonl")
    assert not looks_like_kg(tmp_path) and not looks_like_kg(tmp_path / "entities.tsv")
    assert not looks_like_kg(tmp_path / "missing")
    assert find_kg_files(tmp_path).splits == []


def test_text_files_by_role(tmp_path: Path) -> None:
    _touch(tmp_path, "train.txt", "Entity2Text.txt", "entity2textlong.txt", "relation2text.txt",
           "entity2types.json", "types.json", "readme.md")
    f = find_kg_files(tmp_path)
    assert isinstance(f, KGFiles) and f.directory == tmp_path
    assert f.names.name == "Entity2Text.txt" and f.descriptions.name == "entity2textlong.txt"
    assert f.relations.name == "relation2text.txt"
    assert f.entity_types.name == "entity2types.json" and f.type_labels.name == "types.json"
    assert [p.name for p in f.all()] == ["train.txt", "Entity2Text.txt", "entity2textlong.txt",
                                         "relation2text.txt", "entity2types.json", "types.json"]


def test_suffix_names_when_no_usual_name(tmp_path: Path) -> None:
    _touch(tmp_path, "wikidata5m_transductive_valid.txt", "wikidata5m_entity.txt", "wikidata5m_text.txt",
           "wikidata5m_relation.txt")
    f = find_kg_files(tmp_path)
    assert (f.names.name, f.descriptions.name, f.relations.name) == (
        "wikidata5m_entity.txt", "wikidata5m_text.txt", "wikidata5m_relation.txt")
    assert f.entity_types is None and f.type_labels is None
    _touch(tmp_path, "entities.tsv")  # a usual name wins over a suffix
    assert find_kg_files(tmp_path).names.name == "entities.tsv"

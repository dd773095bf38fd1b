"""Triples loader: type inference, the MetaQA mapping, errors, and the real kb.tsv."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.kb.loaders import METAQA_TYPES, load, load_triples

TRIPLES = """Kismet\tdirected_by\tWilliam Dieterle
Kismet\tstarred_actors\tRonald Colman
Kismet\trelease_year\t1944
Heat\tdirected_by\tMichael Mann
Heat\twritten_by\tMichael Mann
Heat\tstarred_actors\tAl Pacino
Heat\trelease_year\t1995
Thief\tdirected_by\tMichael Mann
Thief\twritten_by\tMichael Mann
Thief\trelease_year\t1981
Thief\tstarred_actors\tJames Caan
Heat\tdirected_by\tMichael Mann
"""


@pytest.fixture
def kb_file(tmp_path: Path) -> Path:
    f = tmp_path / "kb.tsv"
    f.write_text(TRIPLES, encoding="utf-8")
    return f


def types_of(skb) -> dict[str, str]:
    return {skb.ids[i]: skb.type_names[int(c)] for i, c in enumerate(skb.node_type_codes)}


def test_with_mapping(kb_file: Path) -> None:
    skb = load_triples(kb_file, types=METAQA_TYPES)
    assert skb.num_edges == 11 and skb.meta["duplicates_dropped"] == 1
    t = types_of(skb)
    assert t["Heat"] == "movie" and t["Michael Mann"] == "person" and t["1995"] == "year"
    assert skb.node("Heat").name == "Heat"
    assert skb.schema.relation_roles["directed_by"] == ["movie", "person"]
    assert skb.meta["unused_type_mappings"]  # has_tags etc. are absent from this file
    i = skb.index_of("Michael Mann")
    assert sorted(skb.id_of(skb.graph.neighbor_set([i], ["directed_by^-1"]))) == ["Heat", "Thief"]


def test_builtin_name_and_json_file(kb_file: Path, tmp_path: Path) -> None:
    assert types_of(load_triples(kb_file, types="metaqa"))["Ronald Colman"] == "person"
    f = tmp_path / "types.json"
    f.write_text(json.dumps({"directed_by": ["film", "director"]}), encoding="utf-8")
    skb = load_triples(kb_file, types=f)
    t = types_of(skb)
    assert t["Heat"] == "film" and t["William Dieterle"] == "director"
    # relations missing from the mapping fall back to the default naming
    assert t["1995"] == "release_year"
    assert "release_year" in skb.meta["untyped_relations"]


def test_default_types_without_mapping(kb_file: Path) -> None:
    t = types_of(load_triples(kb_file))
    # all head relations share the movies: one group, named after its biggest relation
    assert t["Heat"] == t["Kismet"] == t["Thief"] == "directed_by.head"
    assert t["1944"] == "release_year"
    assert t["Al Pacino"] == "starred_actors"
    # tail of directed_by and written_by (overlapping) -> one group, most triples wins
    assert t["Michael Mann"] == t["William Dieterle"] == "directed_by"


def test_heads_take_precedence(tmp_path: Path) -> None:
    f = tmp_path / "kb.tsv"
    # "1984" is a movie (a head) and also a year (a tail of two movies)
    f.write_text("1984\trelease_year\t1956\nA\trelease_year\t1984\nB\trelease_year\t1984\n", encoding="utf-8")
    skb = load_triples(f, types=METAQA_TYPES)
    assert types_of(skb)["1984"] == "movie" and skb.meta["type_conflicts"] == 1


def test_detected_as_triples(kb_file: Path) -> None:
    assert load(kb_file, types="metaqa").num_nodes == 11


def test_wrong_column_count(kb_file: Path) -> None:
    kb_file.write_text("a\tr\tb\nc\td\n", encoding="utf-8")
    with pytest.raises(InputError) as ei:
        load_triples(kb_file)
    e = ei.value
    assert (Path(e.file).name, e.line, e.field) == ("kb.tsv", 2, "tail") and "found 2" in str(e)


def test_extra_columns(kb_file: Path) -> None:
    kb_file.write_text("a\tr\tb\tx\n", encoding="utf-8")
    with pytest.raises(InputError, match="found 4") as ei:
        load_triples(kb_file)
    assert ei.value.line == 1


def test_empty_relation(kb_file: Path) -> None:
    kb_file.write_text("a\tr\tb\n\n c \t \td\n", encoding="utf-8")
    with pytest.raises(InputError) as ei:
        load_triples(kb_file)
    assert (ei.value.line, ei.value.field) == (3, "relation")


def test_bad_types_mapping(kb_file: Path, tmp_path: Path) -> None:
    f = tmp_path / "types.json"
    f.write_text(json.dumps({"directed_by": ["movie"]}), encoding="utf-8")
    with pytest.raises(InputError) as ei:
        load_triples(kb_file, types=f)
    assert ei.value.file == str(f) and ei.value.field == "directed_by"
    with pytest.raises(InputError, match="not found"):
        load_triples(kb_file, types="no-such-mapping")


@pytest.mark.data
def test_metaqa_kb(shared_data: Path) -> None:
    path = shared_data / "metaqa" / "kb.tsv"
    if not path.is_file():
        pytest.skip("metaqa/kb.tsv not in shared data")
    t0 = time.perf_counter()
    skb = load_triples(path, types="metaqa")
    elapsed = time.perf_counter() - t0
    assert elapsed < 10, f"loading kb.tsv took {elapsed:.1f} s"
    assert skb.num_edges == 129_411 and skb.meta["duplicates_dropped"] == 0
    assert skb.num_nodes == 42_796
    assert sorted(skb.type_names) == ["genre", "language", "movie", "person", "rating", "tag", "votes", "year"]
    counts = dict(zip(skb.type_names, np.bincount(skb.node_type_codes).tolist(), strict=True))
    assert counts["movie"] == 16_426 and counts["person"] == 21_310
    assert sorted(skb.schema.relations) == sorted(METAQA_TYPES)
    assert skb.schema.relation_roles["has_imdb_rating"] == ["movie", "rating"]

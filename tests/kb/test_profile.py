"""Which node types inform, and how much text nodes carry (``skbsearch.kb.profile``)."""

from __future__ import annotations

from pathlib import Path

from skbsearch.kb import SKBBuilder
from skbsearch.kb.loaders import load
from skbsearch.kb.profile import informative_types, profile, type_informs


def test_type_informs_rules():
    assert type_informs("film", 0.3) == (True, "")
    assert type_informs("thing with hypernym", 0.93)[0] is False  # nearly every node
    assert type_informs("person", 0.95)[0] is False  # a given type too, when it holds them all
    assert type_informs("thing with part", 0.02)[0] is False  # an importer's position phrase
    assert type_informs("thing with part", 0.02, inferred=False)[0] is True  # a name the data chose
    assert type_informs("similar to", 0.01)[0] is False  # ends in a function word


def _write(d: Path, name: str, lines: list[str]) -> None:
    (d / name).write_text("".join(x + "\n" for x in lines), encoding="utf-8")


def test_wordnet_shaped_kg_types_and_full_descriptions(tmp_path):
    d = tmp_path / "wn"
    d.mkdir()
    ids = [f"{i:05d}" for i in range(20)]
    _write(d, "train.txt", [f"{n}\t_hypernym\t{ids[0]}" for n in ids[1:]] + [f"{ids[1]}\t_has_part\t{ids[2]}"])
    _write(d, "entity2text.txt", [f"{n}\tword{i}, a gloss of word number {i}" for i, n in enumerate(ids)])
    skb = load(d)
    p = profile(skb)
    assert p.description_coverage == 1.0 and p.description_fields == ["description"]
    # the hypernym tails take the role noun "hypernym" (a noun: it informs); the rest are
    # position phrases, or nearly every node
    assert p.informative_types == {"hypernym"}
    assert p.names_split["split"] == 20
    assert "thing with hypernym" in p.as_dict()["types_not_informative"]


def test_typed_kb_keeps_its_types():
    b = SKBBuilder()
    for i in range(5):
        b.add_node(f"f{i}", "film", f"Film {i}")
        b.add_node(f"p{i}", "person", f"Person {i}")
    skb = b.build()
    assert informative_types(skb) == {"film", "person"}
    assert profile(skb).description_coverage == 0.0

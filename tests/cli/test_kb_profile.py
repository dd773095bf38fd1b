"""What ``skb kb build`` / ``info`` say the data showed (cli/kb_profile.py): the profile as the
JSON ``inferred`` record, and its lines for humans (names split, description coverage, the
types used to restrict answers and why others are not)."""

from __future__ import annotations

import pytest

from skbsearch.cli import kb_profile
from skbsearch.kb import SKBBuilder


def _films():  # noqa: ANN202
    b = SKBBuilder()
    for i in range(6):
        b.add_node(f"m{i}", "film", f"Film {i}", {"description": f"a film about {i}"} if i % 2 else {})
    b.add_node("d", "person", "Dee")
    for i in range(6):
        b.add_edge(f"m{i}", "directed_by", "d")
    return b.build()


def test_the_inferred_record_is_the_profile() -> None:
    from skbsearch.kb.profile import profile

    record = kb_profile.inferred(_films())
    assert record == profile(_films()).as_dict()
    assert set(record) == {"description_coverage", "description_fields", "names_split",
                           "types_informative", "types_not_informative"}
    assert 0 < record["description_coverage"] < 1 and "description" in record["description_fields"]


def test_the_lines_for_humans(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    console = Console(record=True, width=300)
    monkeypatch.setattr(kb_profile, "console", console)
    kb_profile.print_inferred({
        "names_split": {"split": 1200, "names": 1500, "separator": ", ",
                        "example": {"value": "Paris, capital of France", "name": "Paris"}},
        "description_coverage": 0.42, "description_fields": ["description", "abstract"],
        "types_informative": [f"type {i}" for i in range(10)],
        "types_not_informative": {"entity": "holds 90% of all nodes", "of": "its name is no noun phrase"},
    })
    text = console.export_text()
    assert "names: split 1,200 of 1,500 at ', ' into name + description" in text
    assert "'Paris, capital of France' -> name 'Paris'" in text and "'--split-names no'" in text
    assert "descriptions: 42% of nodes (description, abstract)" in text
    assert "types used to restrict answers: type 0, type 1" in text and "(+2)" in text
    assert "not used: 'entity' (holds 90% of all nodes)" in text
    console = Console(record=True, width=300)
    monkeypatch.setattr(kb_profile, "console", console)
    kb_profile.print_inferred({})
    text = console.export_text()
    assert "names:" not in text and "descriptions: 0% of nodes (none)" in text
    assert "types used to restrict answers: none" in text

"""Lexicons for IMPLIRET-style synthesis (``synth.impliret.lexicons``): the packaged files and
their licence, a user's folder replacing them file by file, every malformed file named (with
its line and field where it has one)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.synth.impliret import generate_impliret
from skbsearch.synth.impliret.lexicons import FILES, load_lexicons, packaged_lexicon_dir


def test_packaged_lexicons_and_licence() -> None:
    d = packaged_lexicon_dir()
    assert all((d / f).is_file() for f in FILES.values())
    assert "MIT" in (d / "LICENSE").read_text() and "Taghavi" in (d / "LICENSE").read_text()
    lex = load_lexicons()
    assert len(lex.people) > 300 and len(lex.shopping) == 20 and len(lex.travel_purposes) == 100
    assert len(lex.works_multi) == 200 and len(lex.works_once) == 50 and len(lex.events) == 50
    assert lex.people[1].role == "a dedicated park ranger"
    assert all(p.endswith(("busy", "with", "in")) for p in lex.gerund_occupations())


def test_user_lexicons_override_file_by_file(tmp_path) -> None:
    (tmp_path / "names.jsonl").write_text("".join(json.dumps({"name": f"Nm{i}", "persona": f"Nm{i} is a tester."}) + "\n"
                                                  for i in range(40)))
    lex = load_lexicons(tmp_path)
    assert [p.name for p in lex.people][:2] == ["Nm0", "Nm1"] and len(lex.shopping) == 20
    pool = generate_impliret("temporal", "multi", sets=1, tuples=10, seed=1, lexicons=tmp_path)
    assert all(re.match(r"^Nm\d+$", r["answer"]) for r in pool.records)
    (tmp_path / "events.txt").write_text("[not json")
    with pytest.raises(InputError, match="events.txt"):
        load_lexicons(tmp_path)
    with pytest.raises(InputError, match="not found"):
        load_lexicons(tmp_path / "missing")


def _write(d: Path, key: str, text: str) -> Path:
    (d / FILES[key]).write_text(text, encoding="utf-8")
    return d / FILES[key]


def test_people_once_each_and_a_person_without_a_name_named(tmp_path: Path) -> None:
    _write(tmp_path, "names", "".join(json.dumps(r) + "\n" for r in [
        {"name": "Ada", "persona": "Ada is an engineer."}, {"name": "Ada", "persona": "again"}, {"name": "Bo"}]))
    lex = load_lexicons(tmp_path)
    assert [(p.name, p.persona) for p in lex.people] == [("Ada", "Ada is an engineer."), ("Bo", "")]
    assert lex.sources["names"] == str(tmp_path / FILES["names"])
    assert lex.sources["events"] == str(packaged_lexicon_dir() / FILES["events"])
    _write(tmp_path, "names", '{"name": "Ada"}\n{"persona": "nameless"}\n')
    with pytest.raises(InputError, match="missing 'name'") as e:
        load_lexicons(tmp_path)
    assert (e.value.line, e.value.field) == (2, "name")


@pytest.mark.parametrize(("key", "text", "says", "field"), [
    ("shopping", '{"phones": {"items_to_buy": ["phone"]}}', "needs items_to_buy", "phones"),
    ("shopping", "[1, 2]", "expected {category", None),
    ("travel", '{"purposes": []}', "travel_purposes", "travel_purposes"),
    ("phrases", '{"chat_openers": []}', "missing or empty list 'chat_openers'", "chat_openers"),
    ("works_once", '["a", ""]', "non-empty strings", None),
    ("happening", "{oops", "invalid JSON|expected a JSON list", None)])
def test_a_malformed_file_is_named(tmp_path: Path, key: str, text: str, says: str, field: str | None) -> None:
    path = _write(tmp_path, key, text)
    with pytest.raises(InputError, match=says) as e:
        load_lexicons(tmp_path)
    assert e.value.file == str(path) and e.value.field == field


def test_gerund_occupations_fall_back_to_was_busy(tmp_path: Path) -> None:
    _write(tmp_path, "occupation", '["was working", "was engaged in"]')
    assert load_lexicons(tmp_path).gerund_occupations() == ["was engaged in"]
    _write(tmp_path, "occupation", '["was working"]')
    assert load_lexicons(tmp_path).gerund_occupations() == ["was busy"]

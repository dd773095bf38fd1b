"""Landmark-country pairs for world-knowledge tuple sets (``synth.impliret.places``): unique,
cue-free, specific landmarks kept by country; country names and demonyms found in text; only
the landmarks the gazetteer linker finds alone; a bad gazetteer line named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.enrich import GazetteerEnricher
from skbsearch.synth.impliret.places import CueDetector, eligible_landmarks, linkable

ROWS = [
    # kept: unique, specific, no cue
    ("Q1", "Vaskarin Gallery", "Norway", "Vestland"),
    ("Q2", "Ostrel Arena", "Norway", None),
    ("Q3", "Marzeni Abbey", "Italy", "Lazio"),
    # dropped: generic words only; a comma suffix; names its own region; a demonym; a name
    # given twice; a short single word
    ("Q4", "Central Library", "Norway", None), ("Q5", "Lunde Church, Bergen", "Norway", None),
    ("Q6", "Vestland Museum", "Norway", "Vestland"), ("Q7", "Italian Opera Hall", "Italy", None),
    ("Q8", "Tellmo Tower", "Italy", None), ("Q9", "Tellmo Tower", "Norway", None), ("Q10", "Brio", "Italy", None),
]


@pytest.fixture
def gazetteer(tmp_path: Path) -> Path:
    p = tmp_path / "landmarks.jsonl"
    p.write_text("".join(json.dumps({"itemQ": q, "itemLabel": name, "countryQ": f"C-{c}", "countryLabel": c,
                                     **({"adminEntityLabel": r} if r else {})}) + "\n"
                         for q, name, c, r in ROWS), encoding="utf-8")
    return p


def test_unique_cue_free_specific_landmarks_by_country(gazetteer: Path) -> None:
    by_country, cues = eligible_landmarks(gazetteer)
    assert {c: [lm.id for lm in v] for c, v in by_country.items()} == {"Italy": ["Q3"], "Norway": ["Q1", "Q2"]}
    assert by_country["Norway"][0].region == "Vestland" and by_country["Norway"][1].region is None
    assert isinstance(cues, CueDetector)


def test_country_names_and_demonyms_are_cues() -> None:
    cues = CueDetector(["Norway", "Italy", "United Kingdom", "France"])
    for text in ("a trip to norway", "Italian food", "the Italians", "in the United Kingdom",
                 "a British pub", "French bread"):
        assert cues.has_cue(text), text
    for text in ("a kingdom far away", "a united front", "a quiet fjord", "it was"):
        assert not cues.has_cue(text), text


def test_only_landmarks_the_linker_finds_alone(gazetteer: Path) -> None:
    by_country, _ = eligible_landmarks(gazetteer)
    kept = linkable(by_country, GazetteerEnricher.from_jsonl(gazetteer).gazetteer)
    assert {c: [lm.id for lm in v] for c, v in kept.items()} == {"Italy": ["Q3"], "Norway": ["Q1", "Q2"]}
    assert linkable({}, GazetteerEnricher.from_jsonl(gazetteer).gazetteer) == {}


def test_a_bad_gazetteer_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="gazetteer file not found") as e:
        eligible_landmarks(tmp_path / "missing.jsonl")
    assert e.value.field == "gazetteer"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"itemQ": "Q1", "itemLabel": "X Hall", "countryLabel": "Norway"}\n{"itemQ": "Q2", "itemLabel": ""}\n')
    with pytest.raises(InputError, match="missing 'itemLabel'") as e:
        eligible_landmarks(bad)
    assert (e.value.line, e.value.field) == (2, "itemLabel")

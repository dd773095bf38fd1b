"""Gazetteer SKB, multi-pattern landmark linking and disambiguation."""

import json
from pathlib import Path

import pytest

from skbsearch.core.errors import InputError
from skbsearch.enrich.gazetteer import Gazetteer, GazetteerEnricher, load_wikidata_landmarks

ROWS = [
    {"itemQ": "Q1", "itemLabel": "Church of St Michael the Archangel, Aldershot", "countryQ": "Q145",
     "countryLabel": "United Kingdom", "adminEntityQ": "Q10", "adminEntityLabel": "Rushmoor"},
    {"itemQ": "Q2", "itemLabel": "St. Mary's Church", "countryQ": "Q145", "countryLabel": "United Kingdom",
     "adminEntityQ": "Q11", "adminEntityLabel": "Devon"},
    {"itemQ": "Q3", "itemLabel": "St. Mary's Church", "countryQ": "Q30", "countryLabel": "United States",
     "adminEntityQ": "Q12", "adminEntityLabel": "Texas"},
    {"itemQ": "Q4", "itemLabel": "Soyu Stadium", "countryQ": "Q17", "countryLabel": "Japan",
     "adminEntityQ": "Q13", "adminEntityLabel": "Akita"},
    {"itemQ": "Q5", "itemLabel": "Hope", "countryQ": "Q17", "countryLabel": "Japan",
     "adminEntityQ": "Q13", "adminEntityLabel": "Akita"},
]  # fmt: skip


@pytest.fixture()
def gaz_path(tmp_path: Path) -> Path:
    p = tmp_path / "landmarks.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n", encoding="utf-8")
    return p


def test_loader_builds_graph(gaz_path: Path) -> None:
    skb = load_wikidata_landmarks(gaz_path)
    assert skb.num_nodes == 5 + 4 + 3
    i = skb.index_of("Q1")
    country = skb.graph.follow([i], ["located_in", "in_country"])
    assert skb.id_of(country) == ["Q145"]


def test_loader_errors_name_line_and_field(tmp_path: Path) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_text(json.dumps(ROWS[0]) + "\n" + json.dumps({"itemQ": "Q9"}) + "\n")
    with pytest.raises(InputError) as e:
        load_wikidata_landmarks(p)
    assert e.value.line == 2 and e.value.field == "itemLabel"


def test_link_saint_variant_and_suffix(gaz_path: Path) -> None:
    enr = GazetteerEnricher(Gazetteer(load_wikidata_landmarks(gaz_path)))
    res = enr.enrich("d", "The workshop was held behind the Church of Saint Michael the Archangel.")
    # The shortened name is unique, so it links even without "Aldershot" nearby.
    assert [(f.value, f.attrs["country"], f.attrs["region"]) for f in res.facts] == [
        ("Church of St Michael the Archangel, Aldershot", "United Kingdom", "Rushmoor")
    ]
    assert "United Kingdom" in res.tokens and "Rushmoor" in res.tokens


def test_disambiguation_by_context(gaz_path: Path) -> None:
    enr = GazetteerEnricher(Gazetteer(load_wikidata_landmarks(gaz_path)))
    res = enr.enrich("d", "Forum post: we sang at St Marys Church during our Texas road trip.")
    assert [f.attrs["country"] for f in res.facts] == ["United States"]
    res = enr.enrich("d", "Forum post: we sang at St. Mary’s Church.")
    assert {f.attrs["country"] for f in res.facts} == {"United States", "United Kingdom"}
    assert all(f.confidence == 0.5 for f in res.facts)


def test_no_links_for_lowercase_words_or_unknown_places(gaz_path: Path) -> None:
    enr = GazetteerEnricher(Gazetteer(load_wikidata_landmarks(gaz_path)))
    assert enr.enrich("d", "I hope the stadium in Madrid is open.").facts == []


def test_a_gazetteer_without_region_ids_links_to_countries(tmp_path: Path) -> None:
    """No record has ``adminEntityQ``: no ``located_in`` edge at all (the Gazetteer raised
    'unknown relation located_in'); each landmark's country is its direct one."""
    p = tmp_path / "flat.jsonl"
    p.write_text("".join(json.dumps({k: v for k, v in r.items() if not k.startswith("adminEntity")}) + "\n"
                         for r in ROWS), encoding="utf-8")
    facts = GazetteerEnricher.from_jsonl(p).enrich("d", "We met at Soyu Stadium.").facts
    assert [(f.value, f.attrs["country"], f.attrs["region"]) for f in facts] == [("Soyu Stadium", "Japan", None)]

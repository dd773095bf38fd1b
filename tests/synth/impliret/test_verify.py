"""Verification of IMPLIRET-style documents (``synth.impliret.verify``): the tuple must be read
back by the enrichers and stated only implicitly; the message bodies without their headers.
(``gazetteer``: the made-up one of conftest.py.)"""

from __future__ import annotations

import json
from datetime import date

from skbsearch.synth.impliret.bind import Scenario
from skbsearch.synth.impliret.lexicons import load_lexicons
from skbsearch.synth.impliret.tuples import PlaceTuple, PriceTuple, ScheduleTuple
from skbsearch.synth.impliret.verify import EnricherVerifier, bodies


def test_verifier_rejects_explicit_or_unreadable_documents(gazetteer) -> None:
    from skbsearch.enrich import GazetteerEnricher
    from skbsearch.synth.impliret.bind import Scenario
    from skbsearch.synth.impliret.places import eligible_landmarks
    from skbsearch.synth.impliret.tuples import DateTuple, PlaceTuple, PriceTuple

    _, cues = eligible_landmarks(gazetteer)
    v = EnricherVerifier(GazetteerEnricher.from_jsonl(gazetteer), cues)
    lex = load_lexicons()
    who = lex.people[0]

    def scen(cat: str, tup: object) -> Scenario:
        return Scenario(cat, "multi", 0, tup, who, None, "", "", "")  # type: ignore[arg-type]

    price = scen("arithmetic", PriceTuple(1000, 1.5, "Higher", 1500))
    head = f"2024-03-10 10:00, {who.name}: "
    assert v(price, head + "The old one costs $1,000, while the new one is 1.5 times more expensive.").ok
    assert not v(price, head + "The old one costs $1,000 and the new one costs $1,500.").ok  # explicit
    assert not v(price, head + "The old one costs $1,000 and the new one is a bit more.").ok  # unreadable
    from datetime import date

    day = scen("temporal", DateTuple(date(2024, 3, 10), 3, date(2024, 3, 7)))
    assert v(day, head + "I was hiking three days ago.").ok
    assert not v(day, head + "I was hiking two days ago.").ok
    assert not v(day, head + "I was hiking on March 7, 2024.").ok
    row = json.loads(gazetteer.read_text().splitlines()[0])
    place = scen("wknow", PlaceTuple(row["itemLabel"], row["countryLabel"], row["itemQ"]))
    assert v(place, head + f"I went to a fair right behind {row['itemLabel']}.").ok
    assert not v(place, head + f"I went to a fair in {row['countryLabel']}, behind {row['itemLabel']}.").ok
    assert not v(place, head + "I went to a fair downtown.").ok


def test_bodies_drop_the_message_headers() -> None:
    doc = "2024-03-10 09:00, Ann Lee: hi there\n2024-03-10 09:05, Bo: on 2024-03-11 then"
    assert bodies(doc) == "hi there\non 2024-03-11 then"
    assert bodies("no header: here") == "no header: here"


def test_hours_of_a_schedule_other_prices_and_empty_documents() -> None:
    who = load_lexicons().people[0]
    head = f"2024-03-10 09:00, {who.name}: "
    slot = ScheduleTuple("once", (date(2024, 3, 12),), 15, 17, (date(2024, 3, 12), 16), (date(2024, 3, 10), 9), (2,))
    s = Scenario("temporal", "uni", 0, slot, who, None, "", "", "")  # type: ignore[arg-type]
    v = EnricherVerifier()
    assert v(s, head + "I will be hiking in two days from 3 p.m. until 5 p.m.").ok
    wrong = v(s, head + "I will be hiking in two days from 3 p.m. until 6 p.m.")
    assert not wrong.ok and wrong.reason == "hours read ('15:00', '18:00'), expected ('15:00', '17:00')"
    assert v(s, "   ").reason == "empty document"
    price = Scenario("arithmetic", "multi", 0, PriceTuple(1000, 1.5, "Higher", 1500), who, None, "", "", "")  # type: ignore[arg-type]
    other = v(price, head + "The old one costs $1,000, the new one 1.5 times more, and the lamp $300.")
    assert not other.ok and "unexpected prices [300.0]" in other.reason


def test_world_knowledge_without_a_gazetteer_checks_only_the_cues(gazetteer) -> None:
    from skbsearch.synth.impliret.places import eligible_landmarks

    _, cues = eligible_landmarks(gazetteer)
    row = json.loads(gazetteer.read_text().splitlines()[0])
    who = load_lexicons().people[0]
    s = Scenario("wknow", "multi", 0, PlaceTuple(row["itemLabel"], row["countryLabel"], row["itemQ"]), who,
                 None, "", "", "")  # type: ignore[arg-type]
    head = f"2024-03-10 09:00, {who.name}: "
    assert EnricherVerifier(None, cues)(s, head + "I went to a fair downtown.").ok  # nothing to link against
    assert not EnricherVerifier(None, cues)(s, head + f"I went to {row['countryLabel']}.").ok

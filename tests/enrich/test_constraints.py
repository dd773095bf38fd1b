"""Query constraints and fact scoring."""

from skbsearch.enrich.base import Fact
from skbsearch.enrich.constraints import (
    combine_scores,
    constraint_score,
    parse_constraints,
    topic_text,
)


def _kv(q: str, **kw) -> list[tuple]:
    return [(c.kind, c.value, c.low, c.high) for c in parse_constraints(q, **kw)]


def test_parse_date_and_time() -> None:
    assert _kv("What was Dante doing at 16:00 on April 26, 2021?") == [
        ("date", "2021-04-26", None, None),
        ("time", "16:00", None, None),
    ]
    assert _kv("meetings between 3 and 5 pm on Nov 3, 2025") == [
        ("date", "2025-11-03", None, None),
        ("time", None, "15:00", "17:00"),
    ]
    assert _kv("tickets from March 3 to March 9, 2024") == [("date", None, "2024-03-03", "2024-03-09")]
    assert _kv("due 03/11/2025", order="DMY") == [("date", "2025-11-03", None, None)]


def test_parse_prices() -> None:
    assert _kv("What did Dante buy for $1,450?") == [("price", 1450.0, None, None)]
    assert _kv("laptops under $500") == [("price", None, None, 500.0)]
    assert _kv("between €20 and €30") == [("price", None, 20.0, 30.0)]
    assert _kv("who paid two thousand dollars") == [("price", 2000.0, None, None)]


def test_parse_places_needs_capitals_and_known_names() -> None:
    places = ["United Kingdom", "Reading", "Japan"]
    assert _kv("Who was in United Kingdom?", places=places) == [("place", "United Kingdom", None, None)]
    assert _kv("Who was reading in the UK?", places=places) == [("place", "United Kingdom", None, None)]
    assert _kv("Who was in France?", places=places) == []
    assert _kv("no constraint here") == []


def test_constraint_score_date_with_time_containment() -> None:
    cs = parse_constraints("at 16:00 on April 26, 2021")
    inside = Fact("date", "2021-04-26", {"time_start": "15:00", "time_end": "18:00"})
    outside = Fact("date", "2021-04-26", {"time_start": "08:00", "time_end": "10:00"})
    no_time = Fact("date", "2021-04-26", {})
    other = Fact("date", "2021-04-27", {"time_start": "15:00", "time_end": "18:00"})
    scores = [constraint_score(cs, [f]) for f in (inside, no_time, outside, other)]
    assert scores == [1.0, 0.5, 0.25, 0.0]


def test_constraint_score_price_and_place() -> None:
    price = Fact("price", 1450.0, {"currency": "USD"})
    assert constraint_score(parse_constraints("for $1,450"), [price]) == 1.0
    assert constraint_score(parse_constraints("for €1,450"), [price]) == 0.0
    assert constraint_score(parse_constraints("under $1,500"), [price]) == 1.0
    assert constraint_score(parse_constraints("for $1,460"), [price]) == 0.0
    place = Fact("place", "Soyu Stadium", {"country": "Japan", "region": "Akita"}, confidence=0.5)
    cs = parse_constraints("Who was in Japan?", places=["Japan"])
    assert constraint_score(cs, [place]) == 0.5
    assert constraint_score([], [place]) == 0.0


def test_combine_scores() -> None:
    got = combine_scores({"a": 10.0, "b": 5.0}, {"b": 1.0}, weight=2.0)
    assert got == {"a": 1.0, "b": 2.5}


def test_speaker_constraint_binds_facts_to_the_person_asked() -> None:
    cs = parse_constraints("What did Jin buy for $460?", speakers=["Hugo", "Jin", "Ana"])
    assert [(c.kind, c.value) for c in cs] == [("price", 460.0), ("speaker", "Jin")]
    mine = Fact("price", 460.0, {"currency": "USD", "speaker": "Jin"})
    theirs = Fact("price", 460.0, {"currency": "USD", "speaker": "Hugo"})
    nobody = Fact("price", 460.0, {"currency": "USD"})
    assert [constraint_score(cs, [f]) for f in (mine, theirs, nobody)] == [1.0, 0.5, 1.0]
    assert constraint_score(cs, [theirs], other_speaker=0.25) == 0.25
    assert constraint_score(parse_constraints("What did Jin buy?", speakers=["Jin"]), [mine]) == 0.0
    assert _kv("What did Jinny buy for $460?", speakers=["Jin"]) == [("price", 460.0, None, None)]


def test_place_that_is_the_questions_subject_is_not_a_place() -> None:
    places = ["Victoria", "Georgia"]
    assert _kv("What did Victoria buy for $450?", places=places) == [("price", 450.0, None, None)]
    assert _kv("Who was in Victoria?", places=places) == [("place", "Victoria", None, None)]
    assert _kv("What was Victoria doing on May 3, 2024?", places=places) == [("date", "2024-05-03", None, None)]
    assert _kv("Is Georgia cheaper than Victoria?", places=places) == [
        ("place", "Georgia", None, None), ("place", "Victoria", None, None)]


def test_topic_text_drops_question_words() -> None:
    assert topic_text("What did Jin buy for $460?").split() == ["Jin", "buy", "for", "$460?"]
    assert topic_text("Who was hiking on May 3?").split() == ["was", "hiking", "on", "May", "3?"]

"""The extractive reader on hand-written documents: rules over enriched facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from forum_docs import FORUM
from forum_docs import enriched_docs as _docs

from skbsearch.enrich import (
    GazetteerEnricher,
)
from skbsearch.read import ExtractiveReader, Reader


def test_who_is_the_speaker_of_the_matching_date() -> None:
    r = ExtractiveReader()
    docs = _docs(FORUM)
    assert r.answer("Who was reading a leisure book on February 27, 2024?", docs) == "Henry"
    assert r.answer("Who was reading a leisure book on February 22, 2024?", docs) == "Noor"
    assert r.answer("Who was journaling on February 28, 2024?", docs[::-1]) == "Omar"
    assert isinstance(r, Reader)


def test_item_attached_to_the_price() -> None:
    r = ExtractiveReader()
    docs = _docs([
        "2024-11-23 09:08, Dante: Tablet from Mark Levinson is 2900. Tablet from Mark Levinson is 2 times "
        "more expensive than Tablet from Insignia. I bought Tablet from Insignia.",
        "2024-12-15 09:01, Zoe: The Nothing model 2017 costs seven hundred and eighty dollars, while the "
        "newer model 2019 is two and a half times more expensive.",
    ])
    assert r.answer("What did Dante buy for $1,450?", docs) == "Insignia Tablet"
    got = r.answer("What is the brand and model of the smartphone that cost $1,950?", docs)
    assert got.startswith("Nothing") and "2019" in got and "Insignia" not in got
    # the explicit price of the other item
    assert "Mark Levinson" in r.answer("What did Dante look at for $2,900?", docs)


def test_activity_at_a_date_and_time() -> None:
    r = ExtractiveReader()
    docs = _docs([
        "2021-04-29 08:45, Dante: I had to attend daily stand-up meeting, Started 4 days ago, for 3 "
        "consecutive days, all from 3 p.m. until three hours after that.",
        "2021-04-29 08:50, Dante: I had to review project metrics 10 days ago from 9 a.m. until 11 a.m.",
    ])
    q = "What was Dante scheduled to be doing at 16:00 on April 26, 2021?"
    assert r.answer(q, docs) == "attend daily stand-up meeting"
    assert r.answer("What was Dante scheduled to be doing at 10:00 on April 19, 2021?", docs) == \
        "review project metrics"


@pytest.fixture
def gazetteer(tmp_path: Path) -> GazetteerEnricher:
    rows = [
        {"itemQ": "Q1", "itemLabel": "Saints Clemens and Pancratius Church", "countryQ": "Q183",
         "countryLabel": "Germany", "adminEntityQ": "Q1198", "adminEntityLabel": "North Rhine-Westphalia"},
        {"itemQ": "Q2", "itemLabel": "Red Stitch Actors Theatre", "countryQ": "Q408",
         "countryLabel": "Australia", "adminEntityQ": "Q36687", "adminEntityLabel": "Victoria"},
    ]
    f = tmp_path / "gaz.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return GazetteerEnricher.from_jsonl(f)


def test_reason_for_a_place_and_who_was_there(gazetteer: GazetteerEnricher) -> None:
    r = ExtractiveReader(places=gazetteer.gazetteer)
    docs = _docs([
        "2024-11-23 09:08, Dante: Things are good. Actually, I was recently at Saints Clemens and "
        "Pancratius Church for an artist-in-residence program. It was transformative.",
        "2024-10-06 09:05, Dante: I actually just got back from Red Stitch Actors Theatre, participating "
        "in a family reunion. It was quite an experience.",
    ], [gazetteer])
    assert r.answer("What was Dante's reason for visiting Germany?", docs) == "an artist-in-residence program"
    assert r.answer("What was Dante's reason for visiting Australia?", docs) == \
        "participating in a family reunion"
    forum = _docs(["2024-11-16 09:01, Kate: I joined a workshop held behind Red Stitch Actors Theatre."],
                  [gazetteer])
    assert r.answer("Who has participated in a community skills workshop in Australia?", forum) == "Kate"


def test_no_matching_fact_falls_back_to_best_sentence() -> None:
    r = ExtractiveReader()
    assert r.answer("Who went kayaking?", []) == ""
    docs = _docs(["2024-01-01 10:00, Ana: We went kayaking on the river. It rained."])
    assert r.answer("Who went kayaking?", docs) == "Ana"
    assert r.answer("What did they do on the river?", docs) == "We went kayaking on the river."

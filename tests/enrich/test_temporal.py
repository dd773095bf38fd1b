"""Temporal enricher: relative dates resolved per message, time ranges, echoed dates."""


import pytest

from skbsearch.enrich.temporal import TemporalEnricher, find_time_range


def _dates(text: str, **meta) -> dict[str, dict]:
    res = TemporalEnricher().enrich("d", text, meta or None)
    return {f.value: dict(f.attrs) for f in res.facts}


def test_chat_days_ago_with_speaker_and_tokens() -> None:
    res = TemporalEnricher().enrich("d", "2024-10-13 09:08, Dante: I read it seven days ago.")
    assert [f.value for f in res.facts] == ["2024-10-06"]
    assert res.facts[0].attrs["speaker"] == "Dante"
    for tok in ("2024-10-06", "october", "oct", "6", "06", "2024", "sunday"):
        assert tok in res.tokens


def test_consecutive_days_and_time_range() -> None:
    text = (
        "2021-04-29 08:45, Dante: I had to attend daily stand-up meeting, Started 4 days ago, "
        "for 3 consecutive days, all from 3 p.m. until three hours after that."
    )
    got = _dates(text)
    assert sorted(got) == ["2021-04-25", "2021-04-26", "2021-04-27"]
    assert got["2021-04-26"]["time_start"] == "15:00" and got["2021-04-26"]["time_end"] == "18:00"


def test_several_offsets_and_later_message_time() -> None:
    text = (
        "2023-11-20 09:22, Mo: I tracked expenses 6 days ago, 3 days ago, and yesterday.\n"
        "2023-11-20 09:30, Ann: Nice.\n"
        "2023-11-20 09:40, Mo: All from 8 in the morning for two hours."
    )
    got = _dates(text)
    assert sorted(got) == ["2023-11-14", "2023-11-17", "2023-11-19"]
    assert got["2023-11-19"]["time_start"] == "08:00" and got["2023-11-19"]["time_end"] == "10:00"


def test_email_date_header_and_weekdays() -> None:
    text = (
        "From: Ana Lopez <ana@example.com>\nDate: Mon, 3 Nov 2025 10:04:00 +0000\n"
        "Subject: outage\n\nThe server went down last Friday and we patch it the day after tomorrow."
    )
    got = _dates(text)
    assert "2025-10-31" in got and "2025-11-05" in got
    assert got["2025-10-31"]["speaker"] == "Ana Lopez"


def test_document_date_from_metadata_and_in_weeks() -> None:
    got = _dates("Ticket #4411: customer says the invoice arrives in two weeks.", date="Nov 3, 2025")
    assert list(got) == ["2025-11-17"]


def test_no_reference_time_means_no_facts() -> None:
    assert TemporalEnricher().enrich("d", "I went there three days ago.").facts == []


def test_no_temporal_expression_means_no_facts() -> None:
    assert TemporalEnricher().enrich("d", "2024-01-02 10:00, Bo: The soup was great, 3 stars.").facts == []


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("from 3 p.m. until three hours after that", ("15:00", "18:00")),
        ("from 9 in the morning for 2 hours", ("09:00", "11:00")),
        ("between 3 and 5 pm", ("15:00", "17:00")),
        ("from noon until 2 hours after that", ("12:00", "14:00")),
        ("at 9:30am", ("09:30", None)),
        ("we met 3 times", None),
    ],
)
def test_time_ranges(sentence: str, expected) -> None:
    from skbsearch.enrich.numbers import normalize_numbers

    assert find_time_range(normalize_numbers(sentence)) == expected


def test_message_date_written_out_is_an_echo() -> None:
    text = ("2024-08-25 09:49, Omar: I spent three days ago journaling, and it really helped me "
            "with 2024-08-25. I also planned 2024-08-20 well.")
    facts = {f.value: f for f in TemporalEnricher().enrich("d", text).facts}
    assert facts["2024-08-22"].confidence == 1.0
    assert facts["2024-08-25"].confidence == 0.5 and facts["2024-08-25"].attrs["echo"] is True
    assert facts["2024-08-20"].confidence == 1.0  # another date: an event date
    anchored = TemporalEnricher().enrich("d", "2024-08-25 09:49, Omar: The gallery opened on 2024-08-25.")
    assert [(f.value, f.confidence) for f in anchored.facts] == [("2024-08-25", 1.0)]
    assert TemporalEnricher(echo_confidence=1.0).enrich("d", text).facts[1].confidence == 1.0

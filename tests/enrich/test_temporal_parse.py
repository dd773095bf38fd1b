"""Date and message parsing for the temporal enricher: date formats in either day order,
"may" as a verb, chat messages with their times and speakers."""

from datetime import date

import pytest

from skbsearch.enrich.temporal_parse import find_dates, split_messages


@pytest.mark.parametrize(
    ("text", "order", "expected"),
    [
        ("Nov 3, 2025", "MDY", date(2025, 11, 3)),
        ("3 November 2025", "MDY", date(2025, 11, 3)),
        ("03/11/2025", "DMY", date(2025, 11, 3)),
        ("03/11/2025", "MDY", date(2025, 3, 11)),
        ("2025-11-03", "DMY", date(2025, 11, 3)),
        ("Monday, the 3rd of November, 2025", "MDY", date(2025, 11, 3)),
    ],
)
def test_parse_date_formats(text: str, order: str, expected: date) -> None:
    full = [d.value for d in find_dates(text, None, order) if d.has_year]
    assert full[:1] == [expected]


def test_may_as_a_verb_is_not_a_date() -> None:
    assert find_dates("we may 3 times try", date(2024, 1, 1)) == []


def test_split_messages_bracket_format() -> None:
    msgs = split_messages("[2024-01-05 10:00] Kim: hi\n[2024-01-06 11:30] Lee: yo")
    assert [(m.speaker, m.when.day) for m in msgs] == [("Kim", 5), ("Lee", 6)]

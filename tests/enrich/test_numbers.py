"""Numbers in words and digits."""

import pytest

from skbsearch.enrich.numbers import normalize_numbers, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("one thousand eight hundred and eighty", 1880.0),
        ("two and a half", 2.5),
        ("2.5", 2.5),
        ("1,950", 1950.0),
        ("3k", 3000.0),
        ("seventeen hundred", 1700.0),
        ("twenty-five", 25.0),
        ("a hundred", 100.0),
        ("nineteen ninety-nine", 1999.0),
        ("one million two hundred thousand", 1_200_000.0),
    ],
)
def test_parse_number(text: str, value: float) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", "hello", "many", "and"])
def test_parse_number_rejects_non_numbers(text: str) -> None:
    assert parse_number(text) is None


def test_normalize_numbers_rewrites_words_only() -> None:
    s = "The model costs seven hundred and eighty dollars and is two and a half times pricier."
    assert normalize_numbers(s) == "The model costs 780 dollars and is 2.5 times pricier."


def test_normalize_keeps_separate_numbers_apart() -> None:
    assert normalize_numbers("twenty-three and fourteen days ago") == "23 and 14 days ago"
    assert normalize_numbers("went on one four days ago") == "went on one 4 days ago"


def test_normalize_lone_one_and_articles() -> None:
    assert normalize_numbers("the one I chose") == "the one I chose"
    assert normalize_numbers("one day ago, a week later") == "1 day ago, 1 week later"
    assert normalize_numbers("$1,950 stays") == "$1,950 stays"

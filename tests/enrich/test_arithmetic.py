"""Arithmetic enricher: explicit and derived prices."""

from skbsearch.enrich.arithmetic import ArithmeticEnricher, price_tokens


def _prices(text: str) -> dict[float, dict]:
    return {f.value: dict(f.attrs) for f in ArithmeticEnricher().enrich("d", text).facts}


def test_times_more_expensive_in_words() -> None:
    got = _prices(
        "The Nothing model 2017 costs seven hundred and eighty dollars, while the newer model "
        "2019 is two and a half times more expensive."
    )
    assert got[780.0]["derived"] is False
    assert got[1950.0]["derived"] is True and "2019" in got[1950.0]["entity"]


def test_priced_subject_gives_object_price() -> None:
    got = _prices("Tablet from Mark Levinson is 2900. Tablet from Mark Levinson is 2 times more expensive than Tablet from Insignia.")
    assert 1450.0 in got and "Insignia" in got[1450.0]["entity"]


def test_percent_cheaper_in_euros_email() -> None:
    text = "Subject: quote\n\nThe Bosch drill was quoted at €250; the Makita one is 20% cheaper."
    got = _prices(text)
    assert got[250.0]["currency"] == "EUR"
    assert got[200.0]["currency"] == "EUR"


def test_pounds_half_the_price_and_twice() -> None:
    got = _prices("Support ticket: the premium plan costs £40 a month. The basic plan is half the price.")
    assert 20.0 in got and got[20.0]["currency"] == "GBP"
    got = _prices("A Lenovo laptop is $1,200, and the Dell one costs twice as much as the Lenovo.")
    assert 2400.0 in got


def test_two_times_less_than() -> None:
    got = _prices("The DrayTek model 2022 is priced at $2,500, while the DrayTek 2018 model costs two times less than the 2022 version.")
    assert 1250.0 in got


def test_no_prices_in_plain_text() -> None:
    assert ArithmeticEnricher().enrich("d", "We walked 3 miles in 2 hours with 4 friends.").facts == []
    assert ArithmeticEnricher().enrich("d", "The model 2019 came out in 2019 and it was great.").facts == []


def test_price_tokens() -> None:
    assert price_tokens(1950.0) == ["1950", "$1,950", "1,950", "dollars"]
    assert price_tokens(12.5, "EUR")[:2] == ["12.50", "€12.50"]

"""Property-based fuzzing of the query-constraint parser (:mod:`skbsearch.enrich.constraints`).

Queries are generated from fragments that look like dates, times, prices and places
(valid and invalid: "February 30", "25:61", "$1e999", "between $5 and"), number words
and arbitrary text. Parsing must return well-formed constraints or raise the library's
own :class:`~skbsearch.core.errors.SkbError`; scoring the constraints against facts must
give a number in [0, 1].
"""

from __future__ import annotations

import os
from datetime import date

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from skbsearch.core.errors import SkbError
from skbsearch.enrich.base import Fact
from skbsearch.enrich.constraints import Constraint, constraint_score, parse_constraints

# SKB_FUZZ_SCALE=10 fuzzes ten times longer (e.g. before a release).
FUZZ = settings(max_examples=1000 * int(os.environ.get("SKB_FUZZ_SCALE", "1")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

FRAGMENTS = st.sampled_from([
    "under", "below", "over", "about", "between", "and", "to", "from", "until", "at", "on", "in", "-", "–",
    "$", "$500", "$1,000", "$1,00", "$2k", "€3.50", "£1e5", "¥", "₹99", "500 dollars", "20 euros", "1.5k",
    "$99999999999999999999999999", "$" + "9" * 400, "$0", "$.5", "$5.", "USD", "bucks",
    "March 3", "March 3, 2024", "Feb 29, 2023", "February 30, 2024", "3/4/2024", "31/12/2024", "13/13/13",
    "2024-02-30", "2024-13-01", "0000-01-01", "9999-12-31", "10000-01-01", "1/1/1", "00/00/0000",
    "yesterday", "last Monday", "next week", "in 3 days", "3 days ago", "99999999 days ago",
    "9am", "9 am", "noon", "midnight", "25:61", "12:00", "23:59", "0:00", "24:00", "9pm to 5am", "from 9 to 17",
    "twenty five", "a hundred", "one million", "zero", "half", "a dozen",
    "United Kingdom", "UK", "U.S.", "usa", "America", "Reading", "reading", "Paris", "the",
    "?", ",", ".", "(", ")", "[/b]", "\x00", "\u2028", "٣", "½", "Ⅻ", "𝟗",
])
DATES = st.sampled_from(["March 3", "March 3, 2024", "Feb 29, 2023", "February 30, 2024", "3/4/2024",
                         "31/12/2024", "13/13/13", "2024-02-30", "2024-12-31", "0001-01-01", "9999-12-31",
                         "1/1/1", "Dec 31, 9999", "Jan 1, 0001", "yesterday", "last Monday", "3 days ago"])
TIMES = st.sampled_from(["9am", "noon", "midnight", "25:61", "12:00", "23:59", "24:00", "9pm", "5 am", "0:00"])
PRICES = st.sampled_from(["$500", "$1,000", "$2k", "€3.50", "$" + "9" * 400, "$0", "500 dollars", "1e309 euros"])
MODS = st.sampled_from(["", "on", "at", "under", "about", "between", "from", "after", "before", "in"])
JOINS = st.sampled_from([" and ", " to ", " - ", "–", " until ", " through ", ", ", " "])
STRUCTURED = st.tuples(MODS, DATES | TIMES | PRICES, JOINS, DATES | TIMES | PRICES, FRAGMENTS).map(
    lambda t: f"what happened {t[0]} {t[1]}{t[2]}{t[3]} {t[4]}?")
QUERY = st.one_of(
    STRUCTURED, STRUCTURED,
    st.lists(FRAGMENTS, max_size=10).map(" ".join),
    st.lists(FRAGMENTS, max_size=10).map("".join),
    st.text(max_size=40),
    st.lists(FRAGMENTS | st.text(max_size=4), max_size=8).map(" ".join),
)
PLACES = st.sampled_from([None, (), ("United Kingdom", "United States", "Reading", "Paris"), ("", " ", "?", "[/b]")])
REFERENCE = st.none() | st.dates(min_value=date(1, 1, 1), max_value=date(9999, 12, 31))
ATTRS = st.fixed_dictionaries({}, optional={"currency": st.sampled_from(["USD", "EUR"]),
                                            "time_start": st.sampled_from(["09:00", "23:59"]),
                                            "time_end": st.sampled_from(["10:00", "00:30"]),
                                            "country": st.sampled_from(["United Kingdom", None])})
FACT_VALUES = {"date": st.dates().map(date.isoformat), "price": st.floats(allow_nan=False, width=32),
               "place": st.sampled_from(["United Kingdom", "Paris", "x"])}
FACTS = st.lists(st.sampled_from(sorted(FACT_VALUES)).flatmap(
    lambda kind: st.builds(Fact, kind=st.just(kind), value=FACT_VALUES[kind], attrs=ATTRS,
                           confidence=st.floats(0, 1))), max_size=4)


def _check(c: Constraint) -> None:
    assert c.kind in {"date", "time", "price", "place"}
    assert c.value is not None or c.low is not None or c.high is not None
    if c.kind == "date":
        for v in (c.value, c.low, c.high):
            assert v is None or date.fromisoformat(v)
        assert c.low is None or c.high is None or c.low <= c.high
    elif c.kind == "time":
        for v in (c.value, c.low, c.high):
            if v is not None:
                h, m = v.split(":")
                assert 0 <= int(h) <= 24 and 0 <= int(m) < 60
    elif c.kind == "price":
        for v in (c.value, c.low, c.high):
            assert v is None or isinstance(v, float)
        assert c.low is None or c.high is None or c.low <= c.high
    else:
        assert isinstance(c.value, str) and c.value


@FUZZ
@given(query=QUERY, places=PLACES, order=st.sampled_from(["MDY", "DMY", "YMD"]), reference=REFERENCE,
       facts=FACTS)
def test_fuzz_parse_constraints(query: str, places: tuple[str, ...] | None, order: str,
                                reference: date | None, facts: list[Fact]) -> None:
    try:
        cons = parse_constraints(query, places=places, order=order, reference=reference)
    except SkbError as e:  # allowed, but none is expected for a valid order
        raise AssertionError(f"parse_constraints refused {query!r}: {e}") from None
    for c in cons:
        _check(c)
        event(c.kind)
    score = constraint_score(cons, facts)
    assert 0.0 <= score <= 1.0


def test_unknown_date_order_is_a_clean_error():
    try:
        parse_constraints("on 3/4/2024", order="XYZ")
    except SkbError as e:
        assert "order" in str(e)
    else:
        raise AssertionError("an unknown order was accepted")

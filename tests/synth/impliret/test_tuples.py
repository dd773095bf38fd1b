"""IMPLIRET tuple sets: every constraint Appendix A states, as properties (hypothesis)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date, timedelta
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skbsearch.core.errors import InputError
from skbsearch.synth.impliret.places import CueDetector, Landmark, eligible_landmarks
from skbsearch.synth.impliret.tuples import (
    PRICE_RANGES,
    arithmetic_tuple_set,
    period_plan,
    segment_first_day,
    temporal_multi_tuple_set,
    temporal_uni_tuple_set,
    wknow_tuple_set,
)

SETTINGS = settings(max_examples=40, deadline=None)


# ---------------------------------------------------------------- Algorithm 1 (arithmetic)
@SETTINGS
@given(m=st.integers(1, 60), style=st.sampled_from(["uni", "multi"]), seed=st.integers(0, 2**32 - 1))
def test_arithmetic_constraints(m: int, style: str, seed: int) -> None:
    ts = arithmetic_tuple_set(m, style, np.random.default_rng(seed))
    lo, hi = PRICE_RANGES[style]
    delta = (hi - lo) // m // 10 * 10
    assert len(ts) == m
    prices = [t.p1 for t in ts] + [t.p2 for t in ts]
    assert len(set(prices)) == 2 * m  # (i) all p1 and p2 distinct: one answer per query
    assert all(p % 10 == 0 and lo <= p <= hi for p in prices)  # (ii) realistic prices
    for i, t in enumerate(ts):  # (iii) p2 evenly spread: tuple i in its own bucket
        assert lo + i * delta <= t.p2 < lo + (i + 1) * delta
        ratio = Fraction(max(t.p1, t.p2), min(t.p1, t.p2))
        assert 1 < ratio < 3
        assert (ratio * 100).denominator == 1  # (iv) at most 2 decimals, exactly
        assert Fraction(t.r).limit_denominator(100) == ratio and round(t.r, 2) == t.r
        assert t.e == ("Lower" if t.p2 < t.p1 else "Higher")
        expected = Fraction(t.p1) * ratio if t.e == "Higher" else Fraction(t.p1) / ratio
        assert expected == t.p2


def test_arithmetic_ranges_follow_the_paper() -> None:
    assert PRICE_RANGES == {"multi": (50, 2050), "uni": (50, 3050)}
    with pytest.raises(InputError, match="cannot spread"):
        arithmetic_tuple_set(500, "multi", np.random.default_rng(0))


# ---------------------------------------------------------------- Algorithm 2 (temporal, multi)
@SETTINGS
@given(m=st.integers(1, 45), seed=st.integers(0, 2**32 - 1))
def test_temporal_multi_constraints(m: int, seed: int) -> None:
    start, end = date(2024, 1, 1), date(2024, 12, 31)
    ts = temporal_multi_tuple_set(m, np.random.default_rng(seed))
    work = [t.work_date for t in ts]
    assert len(set(work)) == m  # (i) each query date has one positive
    assert all(start <= d <= end for d in work)
    assert all(2 <= (b - a).days <= 7 for a, b in zip(work, work[1:], strict=False))  # spread, gaps 2..7
    assert (end - work[-1]).days >= 14
    for i, t in enumerate(ts):
        assert t.offset == (t.message_date - t.work_date).days
        assert 1 <= t.offset <= 7  # (iii) limited offsets
        if i + 1 < m:
            assert t.message_date == ts[i + 1].work_date  # message i is sent on work date i+1
    assert len({t.message_date for t in ts}) == m


# ---------------------------------------------------------------- Algorithm 3 (temporal, uni)
def _check_schedule(ts: list, first: date, m: int, periods: int = 2, period_days: int = 14) -> None:
    assert len(ts) == m
    busy: dict[tuple[date, int], int] = {}
    for k, t in enumerate(ts):
        assert 7 <= t.start_hour and t.end_hour <= 19 and 2 <= t.end_hour - t.start_hour <= 4
        offs = [(d - first).days for d in t.days]
        assert all(0 <= o < periods * period_days for o in offs)
        assert len({o // period_days for o in offs}) == 1  # inside one 14-day block
        if t.kind == "seq":
            assert all(b - a == 1 for a, b in zip(offs, offs[1:], strict=False))
        elif t.kind == "nonseq":
            assert len(offs) >= 2 and all(b - a > 1 for a, b in zip(offs, offs[1:], strict=False))
        else:
            assert len(offs) == 1
        for d in t.days:
            for h in range(t.start_hour, t.end_hour):
                assert (d, h) not in busy, "activities overlap"
                busy[(d, h)] = k
        q_day, q_hour = t.question_time
        assert q_day in t.days and t.start_hour < q_hour < t.end_hour  # not the start or end hour
        assert t.offsets == tuple((d - t.message_time[0]).days for d in t.days)
        assert all(abs(o) < periods * period_days for o in t.offsets)
    q = [t.question_time for t in ts]
    assert len(set(q)) == m
    assert all(busy[qt] == k for k, qt in enumerate(q))  # exactly one activity at each question time
    msgs = [t.message_time for t in ts]
    assert sorted(msgs) == sorted(q)  # message times are the question times ...
    assert all(t.message_time != t.question_time for t in ts)  # ... never an activity's own


def test_temporal_uni_paper_schedule() -> None:
    first = date(2022, 5, 2)
    ts = temporal_uni_tuple_set(30, np.random.default_rng(3), first)
    _check_schedule(ts, first, 30)
    for p in (0, 1):
        block = [t for t in ts if (t.days[0] - first).days // 14 == p]
        kinds = Counter((t.kind, len(t.days)) for t in block)
        assert kinds == Counter({("once", 1): 9, ("seq", 3): 2, ("seq", 4): 1, ("nonseq", 2): 2, ("nonseq", 3): 1})


@SETTINGS
@given(m=st.integers(2, 40), seed=st.integers(0, 2**32 - 1))
def test_temporal_uni_constraints(m: int, seed: int) -> None:
    first = date(2021, 1, 1) + timedelta(days=seed % 300)
    _check_schedule(temporal_uni_tuple_set(m, np.random.default_rng(seed), first), first, m)


def test_period_plan_and_segments() -> None:
    assert [len(p) for p in period_plan(30)] == [15, 15]
    assert [len(p) for p in period_plan(7)] == [4, 3]
    with pytest.raises(InputError):
        period_plan(1)
    rng = np.random.default_rng(0)
    firsts = [segment_first_day(k, 50, rng) for k in range(50)]
    assert firsts == sorted(firsts) and all((b - a).days >= 28 for a, b in zip(firsts, firsts[1:], strict=False))
    assert date(2020, 1, 1) <= firsts[0] and firsts[-1] + timedelta(days=27) <= date(2024, 12, 31)


# ---------------------------------------------------------------- A.2 (world knowledge)
BY_COUNTRY = {f"C{c:02d}": [Landmark(f"Q{c}{k}", f"Place {c}-{k}", f"C{c:02d}") for k in range(c % 4 + 1)]
              for c in range(40)}


@SETTINGS
@given(m=st.integers(1, 40), seed=st.integers(0, 2**32 - 1))
def test_wknow_distinct_countries(m: int, seed: int) -> None:
    ts = wknow_tuple_set(m, np.random.default_rng(seed), BY_COUNTRY)
    assert len({t.country for t in ts}) == m
    for t in ts:
        assert t.landmark in {x.name for x in BY_COUNTRY[t.country]}


def test_wknow_too_few_countries() -> None:
    with pytest.raises(InputError, match="41 countries"):
        wknow_tuple_set(41, np.random.default_rng(0), BY_COUNTRY)


def test_eligible_landmarks_filters(tmp_path) -> None:
    rows = [
        ("Q1", "Velmora Opera House", "Italy", "Lazio"),  # kept
        ("Q2", "Tokyo Dome", "Japan", "Tokyo"),  # names its own region
        ("Q3", "Italian Cultural Centre", "Canada", "Ontario"),  # another country's demonym
        ("Q4", "Grace Church", "United States", "Ohio"),  # shared name ...
        ("Q5", "Grace Church", "United Kingdom", "Kent"),  # ... with this one
        ("Q6", "Town Hall", "France", "Paris"),  # generic words only
        ("Q7", "Church of St Arno, Tellis", "France", "Brittany"),  # ", Town" suffix
        ("Q8", "Irish Pub Orvin", "Germany", "Bavaria"),  # a demonym without a shared stem
        ("Q9", "Kestrel Stadium", "France", "Normandy"),  # kept
        ("Q10", "Harbour Lights Arena", "Ireland", "Cork"),  # kept
    ]
    p = tmp_path / "g.jsonl"
    p.write_text("".join(json.dumps({"itemQ": q, "itemLabel": n, "countryQ": "X" + c, "countryLabel": c,
                                     "adminEntityQ": "R" + r, "adminEntityLabel": r}) + "\n"
                         for q, n, c, r in rows))
    by_country, cues = eligible_landmarks(p)
    assert {x.name for v in by_country.values() for x in v} == {"Velmora Opera House", "Kestrel Stadium",
                                                                       "Harbour Lights Arena"}
    assert isinstance(cues, CueDetector)
    assert cues.has_cue("a Japanese garden") and cues.has_cue("in the United Kingdom") and cues.has_cue("Irish")
    assert not cues.has_cue("children than malice") and not cues.has_cue("a quiet museum")

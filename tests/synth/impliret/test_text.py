"""The template realiser of IMPLIRET-style documents (``synth.impliret.text``): numbers in
words, counts, multipliers, prices, relative days and hours as the enrichers read them, a
forum post and a 10-utterance chat around the fact. (That every document states its fact
only implicitly and is read back: test_generate.py.)"""

from __future__ import annotations

import re
from datetime import date, datetime

import numpy as np
import pytest

from skbsearch.synth.impliret.bind import bind_set, pool_entities
from skbsearch.synth.impliret.lexicons import load_lexicons
from skbsearch.synth.impliret.text import (
    clock,
    count_text,
    hours_phrase,
    past_phrase,
    price_text,
    ratio_text,
    realise,
    relative_day,
    schedule_days,
    spell,
)
from skbsearch.synth.impliret.tuples import ScheduleTuple, arithmetic_tuple_set


def _all(fn, *args, n: int = 40) -> set[str]:  # noqa: ANN001
    """Every form ``fn`` gives over ``n`` draws."""
    rng = np.random.default_rng(0)
    return {fn(*args, rng) for _ in range(n)}


@pytest.mark.parametrize(("n", "words"), [
    (0, "zero"), (13, "thirteen"), (21, "twenty-one"), (100, "one hundred"), (101, "one hundred and one"),
    (1000, "one thousand"), (1005, "one thousand and five"), (1950, "one thousand nine hundred and fifty"),
    (250_000, "two hundred and fifty thousand")])
def test_spell(n: int, words: str) -> None:
    assert spell(n) == words


def test_counts_multipliers_and_prices() -> None:
    assert _all(count_text, 3) == {"3", "three"}
    assert _all(ratio_text, 2.5) == {"2.5", "two and a half"} and _all(ratio_text, 3.0) == {"3", "three"}
    assert _all(ratio_text, 1.5) == {"1.5"}  # words only from 2 on
    assert _all(price_text, 1950) == {"$1,950", "1,950 dollars", "one thousand nine hundred and fifty dollars"}


def test_relative_days() -> None:
    assert [relative_day(o, np.random.default_rng(0)) for o in (0, -1, 1)] == ["today", "yesterday", "tomorrow"]
    assert _all(relative_day, -3) == {"3 days ago", "three days ago"}
    assert _all(relative_day, -7) == {"7 days ago", "seven days ago", "a week ago"}
    assert _all(relative_day, 4) == {"in 4 days", "in four days"}
    sunday = datetime(2024, 3, 10, 9)
    assert _all(past_phrase, 2, sunday) == {"the day before yesterday", "last Friday", "2 days ago", "two days ago"}
    assert _all(past_phrase, 1, sunday) == {"yesterday"}


def test_schedules_and_hours() -> None:
    day = date(2024, 3, 10)
    seq = ScheduleTuple("seq", (day,) * 3, 15, 17, (day, 16), (day, 9), (2, 3, 4))
    assert _all(schedule_days, seq) == {f"starting in {a} days, for {b} consecutive days"
                                        for a in ("2", "two") for b in ("3", "three")}
    spread = ScheduleTuple("nonseq", (day,) * 3, 15, 17, (day, 16), (day, 9), (-1, 0, 1))
    assert _all(schedule_days, spread) == {"yesterday, today and tomorrow"}
    assert _all(clock, 12) == {"noon", "12 p.m.", "12:00"}
    assert _all(clock, 9) == {"9 a.m.", "9 in the morning", "09:00"}
    assert _all(clock, 19) == {"7 p.m.", "7 in the evening", "19:00"}
    forms = _all(hours_phrase, 15, 16, n=80)
    assert "from 3 p.m. until one hour after that" in forms and "from 15:00 for 1 hour" in forms
    assert all(re.fullmatch(r"from .+ (until (1|one) hour after that|for (1|one) hour)", f) for f in forms)


def test_a_forum_post_and_a_chat_around_the_fact() -> None:
    lex = load_lexicons()
    rng = np.random.default_rng(3)
    topic = pool_entities("arithmetic", "multi", 1, lex, rng)[0][0]
    post_s = bind_set("arithmetic", "multi", 0, arithmetic_tuple_set(2, "multi", rng), topic, None, lex, rng, ["Hi."])[0]
    post = realise(post_s, rng, lex)
    assert "\n" not in post and post.startswith(f"{post_s.when:%Y-%m-%d %H:%M}, {post_s.speaker.name}: Hi.")
    assert f"Ultimately, I purchased the {post_s.fields['brand']} model {post_s.fields['model_bought']}." in post
    main = lex.people[0]
    chat_s = bind_set("arithmetic", "uni", 0, arithmetic_tuple_set(2, "uni", rng), None, main, lex, rng, ["Hey!"])[0]
    lines = realise(chat_s, rng, lex).splitlines()
    speakers = [ln.split(", ", 1)[1].split(": ", 1)[0] for ln in lines]
    assert len(lines) == 10 and speakers == [main.name, chat_s.partner.name] * 5
    fact_at = [k for k, ln in enumerate(lines) if f"I bought the {chat_s.fields['item'].lower()} from" in ln]
    assert fact_at in ([2], [6])  # the main conversant's second or fourth utterance
    never = realise(chat_s, np.random.default_rng(3), lex, cues=lambda text: True)
    assert "Life as" not in never  # a role that gives a cue is left out

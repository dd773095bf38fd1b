"""Entity binding (IMPLIRET Appendix A.4, Table 6): people, items, brands, activities and
places for every tuple, the query in IMPLIRET's wording, and its answer.

Per pool (all tuple sets of one category x style): a multi-speaker set's forum topic and a
uni-speaker set's main conversant are never reused by another set. Per set: conversants,
items, brands, activities and purposes are not reused by another document of the set
(arithmetic multi-speaker brands repeat only when the topic's category has fewer brands
than the set has tuples; the (brand, model) answer stays unique). The two brands compared
in a uni-speaker arithmetic document share no word, so the comparison reads one way only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.synth.impliret.lexicons import Lexicons, Person, ShoppingCategory

CATEGORIES = ("arithmetic", "temporal", "wknow")
STYLES = ("multi", "uni")


@dataclass
class Scenario:
    """One tuple with its bound entities: everything a document and its query need."""

    category: str
    style: str
    set_id: int
    tuple: Any
    speaker: Person
    when: datetime
    opener: str
    question: str
    answer: str
    partner: Person | None = None
    topic: str | None = None
    forum_question: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)

    def record(self, rid: int) -> dict[str, Any]:
        """The IMPLIRET JSONL record (without ``document``)."""
        out: dict[str, Any] = {"id": rid, "tuple_set_id": self.set_id}
        out.update(question=self.question, answer=self.answer)
        if self.style == "multi":
            out["forum_question"] = self.forum_question
        else:
            out["main_speaker"] = self.speaker.name
        return out


def _pick(rng: np.random.Generator, items: Sequence[Any], k: int, what: str) -> list[Any]:
    """``k`` distinct items, uniformly (InputError naming the lexicon when too few)."""
    if k > len(items):
        raise InputError(f"need {k} distinct {what}, the lexicon has {len(items)}; pass --lexicons "
                         "with a longer list or fewer --tuples/--sets", field="lexicons")
    return [items[int(i)] for i in rng.choice(len(items), size=k, replace=False)]


def _time_on(d: date, rng: np.random.Generator, hour: int | None = None) -> datetime:
    h = int(rng.integers(8, 21)) if hour is None else hour
    return datetime(d.year, d.month, d.day, h, int(rng.integers(0, 60)))


def _day_in_2024(rng: np.random.Generator) -> date:
    return date(2024, 1, 1) + timedelta(days=int(rng.integers(366)))


def long_date(d: date) -> str:
    """IMPLIRET's query date: "February 07, 2024"."""
    return d.strftime("%B %d, %Y")


def money(v: float) -> str:
    """"$1,950"."""
    return f"${v:,.0f}"


def pool_entities(category: str, style: str, n_sets: int, lex: Lexicons,
                  rng: np.random.Generator) -> tuple[list[Any], list[Person]]:
    """Per-set topics (multi) or main conversants (uni), distinct across the pool."""
    if style == "uni":
        return [None] * n_sets, _pick(rng, lex.people, n_sets, "main conversants (names.jsonl)")
    if category == "arithmetic":
        items = [(c, it) for c in lex.shopping for it in c.items]
        return _pick(rng, items, n_sets, "forum topics (shopping items)"), []
    topics = lex.works_multi if category == "temporal" else lex.events
    what = "forum topics (works_Temp_Multi.txt)" if category == "temporal" else "forum topics (events.txt)"
    return _pick(rng, topics, n_sets, what), []


def _years(rng: np.random.Generator, taken: set[tuple[str, int]], brand: str) -> tuple[int, int]:
    for _ in range(200):
        a, b = sorted(int(x) for x in rng.choice(np.arange(2013, 2025), size=2, replace=False))
        if (brand, a) not in taken and (brand, b) not in taken:
            return a, b
    raise InputError(f"too few model years left for brand {brand!r}", field="tuples")


def _arith_multi(tuples: list[Any], topic: tuple[ShoppingCategory, str],
                 rng: np.random.Generator) -> list[dict[str, Any]]:
    cat, item = topic
    brands = list(cat.high) + list(cat.low)
    order = [brands[int(i)] for i in rng.permutation(len(brands))]
    taken: set[tuple[str, int]] = set()
    out = []
    for k, t in enumerate(tuples):
        brand = order[k % len(order)]
        low, high = _years(rng, taken, brand)
        bought, other = (high, low) if t.e == "Higher" else (low, high)
        taken |= {(brand, low), (brand, high)}
        out.append({"item": item.lower(), "shopping_type": cat.name, "brand": brand,
                    "model_bought": bought, "model_other": other,
                    "question": f"What is the brand and model of the {item.lower()} that cost {money(t.p2)}?",
                    "answer": f"{brand} {bought} model"})
    return out


def _words(name: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", name.lower()) if len(w) > 2}


def _arith_uni(tuples: list[Any], main: Person, lex: Lexicons, rng: np.random.Generator) -> list[dict[str, Any]]:
    pairs = [(c, it) for c in lex.shopping for it in c.items]
    chosen = _pick(rng, pairs, len(tuples), "shopping items (A_Uni_Base_JSON.json)")
    used: set[str] = set()
    out = []
    for t, (cat, item) in zip(tuples, chosen, strict=True):
        hi = [b for b in cat.high if b not in used] or list(cat.high)
        high = hi[int(rng.integers(len(hi)))]
        lo = [b for b in cat.low if b not in used] or list(cat.low)
        lo = [b for b in lo if not _words(b) & _words(high)] or lo  # "Xiaomi (Redmi)" vs "Xiaomi (Mi)"
        low = lo[int(rng.integers(len(lo)))]
        used |= {high, low}
        bought, other = (high, low) if t.e == "Higher" else (low, high)
        out.append({"item": item, "shopping_type": cat.name, "brand_bought": bought, "brand_other": other,
                    "question": f"What did {main.name} buy for {money(t.p2)}?",
                    "answer": f"{bought} {item.lower()}"})
    return out


def bind_set(category: str, style: str, set_id: int, tuples: list[Any], topic: Any, main: Person | None,
             lex: Lexicons, rng: np.random.Generator, openers: Sequence[str],
             exclude: frozenset[str] = frozenset()) -> list[Scenario]:
    """Scenarios for one tuple set (``exclude``: names reserved as other sets' main conversants)."""
    m = len(tuples)
    others = [p for p in lex.people if p.name not in exclude and (main is None or p.name != main.name)]
    people = _pick(rng, others, m, "conversant names (names.jsonl)")
    fq = None
    if style == "multi":
        shown = topic[1].lower() if category == "arithmetic" else topic
        templates = lex.forum_questions.get(category) or ["What do you think about {topic}?"]
        fq = templates[int(rng.integers(len(templates)))].format(topic=shown)
    if category == "arithmetic":
        per = _arith_multi(tuples, topic, rng) if style == "multi" else _arith_uni(tuples, main, lex, rng)
    elif category == "temporal" and style == "uni":
        once = _pick(rng, lex.works_once, sum(t.kind == "once" for t in tuples), "one-time activities")
        rep = _pick(rng, lex.works_repeat, sum(t.kind != "once" for t in tuples), "repeating activities")
        per = []
        for t in tuples:
            work = once.pop() if t.kind == "once" else rep.pop()
            q_day, q_hour = t.question_time
            per.append({"work": work, "answer": work,
                        "question": f"What was {main.name} scheduled to be doing at {q_hour:02d}:00 on {long_date(q_day)}?"})
    elif category == "temporal":
        per = [{"question": f"Who was {topic} on {long_date(t.work_date)}?"} for t in tuples]
    elif style == "multi":
        per = [{"question": f"Who has participated in {topic} in {t.country}?"} for t in tuples]
    else:
        purposes = _pick(rng, lex.travel_purposes, m, "travel purposes (S_Uni_Base_JSON.json)")
        per = [{"purpose": p, "answer": p, "question": f"What was {main.name}'s reason for visiting {t.country}?"}
               for t, p in zip(tuples, purposes, strict=True)]
    out = []
    for k, (t, f) in enumerate(zip(tuples, per, strict=True)):
        who = people[k] if style == "multi" or main is None else main
        if category == "temporal":
            when = _time_on(t.message_date, rng) if style == "multi" else _time_on(t.message_time[0], rng, t.message_time[1])
        else:
            when = _time_on(_day_in_2024(rng), rng)
        question, answer = f.pop("question"), f.pop("answer", who.name)
        out.append(Scenario(category, style, set_id, t, who, when, openers[k % len(openers)], question, answer,
                            partner=people[k] if style == "uni" else None,
                            topic=topic[1].lower() if category == "arithmetic" and style == "multi" else topic,
                            forum_question=fq, fields=f))
    return out

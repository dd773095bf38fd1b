"""Template realiser: IMPLIRET-style documents without an LLM.

Each document states its tuple's fact only implicitly, as the paper's prompts ask
(Appendix A.4): a relative price ("2.5 times more expensive than the $780 one", "20%
cheaper"), a relative date ("three days ago", "starting in 4 days, for 3 consecutive days",
"from 3 p.m. until two hours after that"), or a landmark instead of its country. Uni-speaker
documents are 10-utterance chats (``YYYY-MM-DD HH:MM, Name: ...`` lines, the fact in one
utterance of the main conversant); multi-speaker documents are one forum post. The choice
of template, number spelling and filler lines comes from ``rng``, so a failed verification
can be retried with another draw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from skbsearch.synth.impliret.bind import Scenario, money
from skbsearch.synth.impliret.lexicons import Lexicons, Person

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def spell(n: int) -> str:
    """An integer below a million in words: 1950 -> "one thousand nine hundred and fifty"."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + (" and " + spell(rest) if rest else "")
    rest = n % 1000
    head = spell(n // 1000) + " thousand"
    if not rest:
        return head
    return head + (" and " if rest < 100 else " ") + spell(rest)


def _choice(rng: np.random.Generator, options: Sequence[Any]) -> Any:
    return options[int(rng.integers(len(options)))]


def count_text(n: int, rng: np.random.Generator) -> str:
    """A small count as digits or words."""
    return spell(n) if rng.random() < 0.5 else str(n)


def ratio_text(r: float, rng: np.random.Generator) -> str:
    """A multiplier: "2.5" or "two and a half" (words only for whole and half values of 2+)."""
    if rng.random() < 0.5 and (2 * r).is_integer() and r >= 2:
        whole = spell(int(r))
        return whole if r.is_integer() else f"{whole} and a half"
    return f"{r:g}"


def price_text(v: int, rng: np.random.Generator) -> str:
    """A price: "$1,950", "1,950 dollars" or "one thousand nine hundred and fifty dollars"."""
    return _choice(rng, (money(v), f"{v:,} dollars", f"{spell(v)} dollars"))


def relative_day(offset: int, rng: np.random.Generator) -> str:
    """A day relative to the message: "3 days ago", "yesterday", "today", "in two days"."""
    if offset == 0:
        return "today"
    if offset == -1:
        return "yesterday"
    if offset == 1:
        return "tomorrow"
    if offset == -7 and rng.random() < 0.3:
        return "a week ago"
    n = count_text(abs(offset), rng)
    return f"{n} days ago" if offset < 0 else f"in {n} days"


def past_phrase(offset: int, when: datetime, rng: np.random.Generator) -> str:
    """``offset`` (>= 1) days before ``when``: "two days ago", "last Tuesday", "yesterday"."""
    if offset == 2 and rng.random() < 0.3:
        return "the day before yesterday"
    if offset > 1 and rng.random() < 0.25:
        return "last " + _WEEKDAYS[(when - timedelta(days=offset)).weekday()]
    return relative_day(-offset, rng)


def schedule_days(t: Any, rng: np.random.Generator) -> str:
    """When a scheduled activity happens, relative to the message (Algorithm 3's R_a)."""
    if t.kind == "seq":
        first = t.offsets[0]
        k = count_text(len(t.offsets), rng)
        start = {0: "starting today", -1: "starting yesterday", 1: "starting tomorrow"}.get(first)
        if start is None:
            n = count_text(abs(first), rng)
            start = f"starting {n} days ago" if first < 0 else f"starting in {n} days"
        return f"{start}, for {k} consecutive days"
    parts = [relative_day(o, rng) for o in t.offsets]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def clock(h: int, rng: np.random.Generator) -> str:
    """A start hour: "3 p.m.", "9 in the morning", "noon", "15:00"."""
    if h == 12:
        return _choice(rng, ("noon", "12 p.m.", "12:00"))
    if h < 12:
        return _choice(rng, (f"{h} a.m.", f"{h} in the morning", f"{h:02d}:00"))
    later = "in the afternoon" if h < 18 else "in the evening"
    return _choice(rng, (f"{h - 12} p.m.", f"{h - 12} {later}", f"{h}:00"))


def hours_phrase(start: int, end: int, rng: np.random.Generator) -> str:
    """The slot, with the end relative to the start: "from 3 p.m. until two hours after that"."""
    k = count_text(end - start, rng)
    unit = "hour" if end - start == 1 else "hours"
    return _choice(rng, (f"from {clock(start, rng)} until {k} {unit} after that",
                         f"from {clock(start, rng)} for {k} {unit}"))


def _role(person: Person | None, cues: Callable[[str], bool] | None) -> str | None:
    role = person.role if person is not None else None
    return None if role is None or (cues is not None and cues(role)) else role


def _compare(t: Any, bought: str, other: str, rng: np.random.Generator) -> str:
    """The relative-price clause: ``other`` costs ``t.p1``; ``bought`` costs ``t.p2``."""
    r, p1 = t.r, price_text(t.p1, rng)
    forms = []
    if t.e == "Higher":
        forms.append(f"{other} costs {p1}, while {bought} is {ratio_text(r, rng)} times more expensive")
        forms.append(f"{other} is {p1}, and {bought} costs {ratio_text(r, rng)} times as much as that")
        pct = round((r - 1) * 100, 6)
        if r <= 2 and pct.is_integer():
            forms.append(f"{other} costs {p1}, and {bought} is {int(pct)}% more expensive")
    else:
        forms.append(f"{other} is {p1}, and it is {ratio_text(r, rng)} times more expensive than {bought}")
        pct = round((t.p1 - t.p2) * 100 / t.p1, 6)
        if pct.is_integer():
            forms.append(f"{other} costs {p1}, while {bought} is {int(pct)}% cheaper")
        if r == 2:
            forms.append(f"{other} costs {p1}, and {bought} is half the price")
    return _choice(rng, forms)


def fact_text(s: Scenario, rng: np.random.Generator, lex: Lexicons) -> str:
    """The sentence(s) that carry the tuple, implicitly."""
    t, f = s.tuple, s.fields
    if s.category == "arithmetic" and s.style == "multi":
        brand = f["brand"]
        cmp = _compare(t, f"the model {f['model_bought']}", f"the {brand} {s.topic} model {f['model_other']}", rng)
        return (f"I compared two {brand} models: {cmp}. "
                f"Ultimately, I purchased the {brand} model {f['model_bought']}.")
    if s.category == "arithmetic":
        item = f["item"].lower()
        cmp = _compare(t, f"the one from {f['brand_bought']}", f"the {item} from {f['brand_other']}", rng)
        return (f"I went {f['shopping_type']} shopping and ended up with a new {item}. "
                f"Here's my little shopping report: {cmp}. I did not buy it from {f['brand_other']}; "
                f"I bought the {item} from {f['brand_bought']}.")
    if s.category == "temporal" and s.style == "multi":
        occ = _choice(rng, lex.gerund_occupations())
        return f"I {occ} {s.topic} {past_phrase(t.offset, s.when, rng)}."
    if s.category == "temporal":
        lead = "I had to" if max(t.offsets) < 0 else ("I have to" if min(t.offsets) >= 0 else "I'm scheduled to")
        return f"{lead} {f['work']} {schedule_days(t, rng)}, {hours_phrase(t.start_hour, t.end_hour, rng)}."
    if s.style == "multi":
        verb = _choice(rng, lex.happening)
        where = _choice(rng, ("right behind", "next to", "at", "just beside"))
        return f"I went to {s.topic} that {verb} {where} {t.landmark}."
    purpose = f["purpose"]
    return _choice(rng, (f"I just got back from {t.landmark}; the reason for the trip was {purpose}.",
                         f"My trip to {t.landmark} was all about {purpose}.",
                         f"I visited {t.landmark} recently, and the purpose of the visit was {purpose}."))


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M")


def forum_post(s: Scenario, rng: np.random.Generator, lex: Lexicons,
               cues: Callable[[str], bool] | None = None) -> str:
    """A multi-speaker document: one post answering the thread's question."""
    role = _role(s.speaker, cues)
    parts = [s.opener]
    if role is not None and rng.random() < 0.8:
        parts.append(f"As {role}, I have a bit of experience with this.")
    parts.append(fact_text(s, rng, lex))
    parts.append(_choice(rng, lex.phrases["chat_user1_followups"]))
    parts.append(_choice(rng, lex.phrases["forum_closers"]))
    return f"{_stamp(s.when)}, {s.speaker.name}: " + " ".join(parts)


def chat(s: Scenario, rng: np.random.Generator, lex: Lexicons,
         cues: Callable[[str], bool] | None = None, fact: str | None = None) -> str:
    """A uni-speaker document: 10 utterances, the fact in one of the main conversant's."""
    ph = lex.phrases
    a, b = s.speaker, s.partner
    assert b is not None
    fact = fact or fact_text(s, rng, lex)
    at = int(_choice(rng, (2, 4)))
    follow = [str(x) for x in rng.permutation(ph["chat_user1_followups"])[:3]]
    small = [str(x) for x in rng.permutation(ph["chat_user2_smalltalk"])[:3]]
    reply = _choice(rng, ph["chat_replies"])
    role = _role(b, cues)
    if role is not None and rng.random() < 0.5:
        reply = f"{reply} Life as {role} keeps me busy."
    u1 = [s.opener, fact if at == 2 else _choice(rng, ph["chat_user1_neutral"]),
          fact if at == 4 else follow.pop(), follow.pop(), _choice(rng, ph["chat_closers"])]
    u2 = [reply, small[0], small[1], small[2], _choice(rng, ("Talk soon!", "Take care!", "Bye for now!",
                                                                "Speak soon!", "See you around!"))]
    when = s.when
    lines = []
    for k in range(5):
        for who, text in ((a, u1[k]), (b, u2[k])):
            lines.append(f"{_stamp(when)}, {who.name}: {text}")
            when += timedelta(minutes=int(rng.integers(0, 6)))
    return "\n".join(lines)


def realise(s: Scenario, rng: np.random.Generator, lex: Lexicons,
            cues: Callable[[str], bool] | None = None) -> str:
    """A document for one scenario (chat or forum post by style)."""
    return forum_post(s, rng, lex, cues) if s.style == "multi" else chat(s, rng, lex, cues)

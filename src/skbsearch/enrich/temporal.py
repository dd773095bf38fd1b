"""Temporal enricher: relative dates and times resolved against each message's time.

"2024-10-13 09:08, Dante: I read it seven days ago" gives a ``date`` fact 2024-10-06 for
Dante with the sentence as evidence; "Starting 21 days ago, for 3 consecutive days, from
3 p.m. until three hours after that" gives three dated facts with ``time_start`` 15:00 and
``time_end`` 18:00. Index tokens spell each date out ("2024-10-06 october oct 6 06 2024
sunday") and list the hours of its time range ("15:00 16:00 ..."), so a lexical index
matches "on October 6, 2024 at 16:00".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from skbsearch.enrich.base import Enrichment, Fact
from skbsearch.enrich.numbers import normalize_numbers
from skbsearch.enrich.temporal_parse import (
    TIME_RE,
    WEEKDAYS,
    date_tokens,
    find_dates,
    split_messages,
    to_24h,
)

_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14}
_NUM = r"(?P<n>\d+(?:\.\d+)?|a|an|one)"
_UNIT = r"(?P<unit>day|week|fortnight|month|year)s?"
_NUMLIST = r"(?P<ns>\d+(?:\s*(?:,|,?\s*and|,?\s*or|&)\s*\d+)+)"

# (pattern, sign): sign -1 = past, +1 = future, 0 = fixed offsets in the pattern.
_RELATIVE = [
    (re.compile(_NUMLIST + r"\s+" + _UNIT + r"\s+(?P<dir>ago|earlier|before|later|from now|after)\b", re.I), None),
    (re.compile(r"\b" + _NUM + r"\s+" + _UNIT + r"\s+(?P<dir>ago|earlier|back|later|from now|from today|hence)\b", re.I), None),
    (re.compile(r"\b(?:in|within)\s+" + _NUM + r"\s+" + _UNIT + r"(?:'?\s*time)?\b", re.I), 1),
    (re.compile(r"\b(?:the\s+)?day\s+before\s+yesterday\b", re.I), -2),
    (re.compile(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", re.I), 2),
    (re.compile(r"\byesterday\b", re.I), -1),
    (re.compile(r"\btomorrow\b", re.I), 1),
    (re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", re.I), 0),
]
_WEEKDAY = re.compile(r"\b(?P<rel>last|next|this|this coming|coming|past)\s+(?P<wd>" + "|".join(WEEKDAYS) + r")\b", re.I)
_SPAN = re.compile(
    r"\bfor\s+(?:the\s+(?:next|following)\s+)?(?P<k>\d+)\s+(?:(?:consecutive|straight|successive)\s+days|days\s+(?:in a row|straight|running))\b",
    re.I,
)
_T = r"(?P<{n}>noon|midday|midnight|\d{{1,2}}(?::\d{{2}})?\s*(?:a\.?\s?m\.?|p\.?\s?m\.?|in the morning|in the afternoon|in the evening|at night|noon|o'?clock)?)"
_TIME_RANGE = [
    re.compile(r"\b(?:from|between)\s+" + _T.format(n="a") + r"\s*(?:until|till|til|to|and|-|–)\s+(?P<k>\d+(?:\.\d+)?)\s+hours?\s+(?:after that|later)", re.I),
    re.compile(r"\b(?:from|between)\s+" + _T.format(n="a") + r"\s*(?:until|till|til|to|and|-|–)\s*" + _T.format(n="b"), re.I),
    re.compile(r"\bfrom\s+" + _T.format(n="a") + r"\s*(?:,\s*)?for\s+(?P<k>\d+(?:\.\d+)?)\s+hours?", re.I),
    re.compile(r"\b(?:at|starting at|from)\s+" + _T.format(n="a") + r"(?=[\s,.;!?]|$)", re.I),
]
# A sentence without any of these cannot hold a date expression (a fast pre-filter).
_CUE = re.compile(
    r"\d|yesterday|today|tomorrow|tonight|this (?:morning|afternoon|evening)|"
    r"(?:last|next|this|coming|past) (?:mon|tue|wed|thu|fri|sat|sun)|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d",
    re.I,
)
# A date is the date of something when a preposition or "today" anchors it ("on 2024-08-25").
_ANCHORED = re.compile(r"\b(?:on|since|until|till|by|from|for|today|tonight|this morning|dated|as of)\s*,?\s*(?:the\s+)?$", re.I)
_SENT_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“‘(])|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences: a break after . ! ? before a capital or digit ("3 p.m. until" stays whole)."""
    return [s for s in _SENT_BREAK.split(text) if s.strip()]


def _time(s: str) -> tuple[int, int] | None:
    s = s.strip().lower()
    if s in ("noon", "midday", "midnight"):
        return (0, 0) if s == "midnight" else (12, 0)
    m = TIME_RE.fullmatch(s)
    if not m:
        return None
    return to_24h(int(m.group("th")), int(m.group("tm") or 0), m.group("tap"))


def _has_meridiem(s: str) -> bool:
    return bool(re.search(r"[ap]\.?\s?m|morning|afternoon|evening|night|noon|midday|o'?clock|:", s, re.I))


def find_time_range(sentence: str) -> tuple[str, str | None] | None:
    """The clock time range a sentence states, as ("HH:MM", "HH:MM" | None)."""
    for k, pat in enumerate(_TIME_RANGE):
        m = pat.search(sentence)
        if not m:
            continue
        a_txt = m.group("a")
        b_txt = m.groupdict().get("b")
        if k == 3 and not _has_meridiem(a_txt):
            continue  # "at 3" alone is too vague
        if b_txt and not _has_meridiem(a_txt) and _has_meridiem(b_txt):
            ap = re.search(r"[ap]\.?\s?m\.?", b_txt, re.I)
            a_txt = a_txt + (" " + ap.group(0) if ap else "")
        a = _time(a_txt)
        if a is None:
            continue
        start = datetime(2000, 1, 1, *a)
        if m.groupdict().get("k"):
            end = start + timedelta(hours=float(m.group("k")))
        elif b_txt:
            b = _time(b_txt)
            if b is None:
                continue
            end = datetime(2000, 1, 1, *b)
            if end <= start and not _has_meridiem(b_txt):
                end += timedelta(hours=12)
            if end <= start:
                end += timedelta(days=1)
        else:
            return start.strftime("%H:%M"), None
        return start.strftime("%H:%M"), "24:00" if end.day > 1 and end.hour == 0 else end.strftime("%H:%M")
    return None


def _shift(ref: date, n: float, unit: str, sign: int) -> date | None:
    unit = unit.lower().rstrip("s")
    if unit in _UNIT_DAYS:
        return ref + timedelta(days=sign * round(n * _UNIT_DAYS[unit]))
    months = round(n * (12 if unit == "year" else 1)) * sign
    y, m = divmod(ref.month - 1 + months, 12)
    day = min(ref.day, [31, 29 if (ref.year + y) % 4 == 0 else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m])
    try:
        return date(ref.year + y, m + 1, day)
    except ValueError:
        return None


def _num(s: str) -> float:
    return 1.0 if s.lower() in ("a", "an", "one") else float(s)


def _weekday(ref: date, rel: str, wd: str) -> date:
    target = WEEKDAYS.index(wd.lower())
    delta = target - ref.weekday()
    rel = rel.lower()
    if rel in ("last", "past"):
        return ref + timedelta(days=delta - 7 if delta >= 0 else delta)
    if rel == "this":
        return ref + timedelta(days=delta)
    return ref + timedelta(days=delta + 7 if delta <= 0 else delta)


@dataclass
class _Hit:
    start: int
    end: int
    dates: list[date]
    expression: str
    explicit: bool = False


def resolve_relative(sentence: str, ref: date) -> list[_Hit]:
    """Relative date expressions of one (number-normalised) sentence, resolved against ``ref``."""
    hits: list[_Hit] = []
    taken: list[tuple[int, int]] = []

    def free(s: int, e: int) -> bool:
        return not any(a < e and s < b for a, b in taken)

    for pat, sign in _RELATIVE:
        for m in pat.finditer(sentence):
            if not free(m.start(), m.end()):
                continue
            gd = m.groupdict()
            if sign is None:
                sgn = -1 if gd["dir"].lower() in ("ago", "earlier", "before", "back") else 1
            else:
                sgn = 1 if sign else 0
            if gd.get("ns"):
                ns = [float(x) for x in re.findall(r"\d+", gd["ns"])]
                ds = [_shift(ref, n, gd["unit"], sgn) for n in ns]
            elif gd.get("unit"):
                ds = [_shift(ref, _num(gd["n"]), gd["unit"], sgn)]
            else:
                ds = [ref + timedelta(days=sign or 0)]  # (a pattern without a sign has a unit)
            taken.append((m.start(), m.end()))
            hits.append(_Hit(m.start(), m.end(), [d for d in ds if d is not None], m.group(0)))
    for m in _WEEKDAY.finditer(sentence):
        if free(m.start(), m.end()):
            taken.append((m.start(), m.end()))
            hits.append(_Hit(m.start(), m.end(), [_weekday(ref, m.group("rel").split()[-1], m.group("wd"))], m.group(0)))
    for dm in find_dates(sentence, ref):
        if free(dm.start, dm.end):
            hits.append(_Hit(dm.start, dm.end, [dm.value], sentence[dm.start : dm.end], explicit=True))
    hits.sort(key=lambda h: h.start)
    # "starting 21 days ago, for 3 consecutive days": extend the anchor before the span.
    for m in _SPAN.finditer(sentence):
        before = [h for h in hits if h.end <= m.start()] or [h for h in hits if h.start >= m.end()]
        if before:
            h = before[-1] if before[-1].end <= m.start() else before[0]
            k = int(m.group("k"))
            if 1 < k <= 31 and len(h.dates) == 1:
                h.dates = [h.dates[0] + timedelta(days=i) for i in range(k)]
                h.expression = f"{h.expression} .. {m.group(0)}"
    return hits


@dataclass
class TemporalEnricher:
    """Resolve relative dates and times to absolute ones, per message and speaker.

    Attributes:
        order: how to read numeric dates ("MDY", "DMY", "YMD").
        hour_tokens: add one "HH:00" token per hour of a stated time range.
        time_lookahead: later messages of the same speaker searched for a time range.
        echo_confidence: confidence of a date written out in a message that is the
            message's own date without "on"/"today"/... before it (an echo of the header,
            not an event date).
        name: the enricher's name (``Fact.source``).
    """

    order: str = "MDY"
    hour_tokens: bool = True
    time_lookahead: int = 3
    echo_confidence: float = 0.5
    name: str = "temporal"

    def _add(self, out: Enrichment, seen: set[str], msg: Any, h: _Hit, d: date, tr: Any, sent: str) -> None:
        attrs: dict[str, Any] = {
            "speaker": msg.speaker,
            "reference": msg.when.isoformat(timespec="minutes"),
            "expression": h.expression,
        }
        if tr:
            attrs["time_start"], attrs["time_end"] = tr
        confidence = 1.0
        if h.explicit and d == msg.when.date() and not _ANCHORED.search(sent[: h.start]):
            # The message's own date written out again ("... helped me with 2024-08-25"):
            # an echo of the header more than the date of an event, so half as sure.
            attrs["echo"] = True
            confidence = self.echo_confidence
        out.facts.append(Fact("date", d.isoformat(), attrs, sent.strip(), self.name, confidence))
        toks = date_tokens(d)
        if tr and self.hour_tokens and tr[1]:
            h0, h1 = int(tr[0][:2]), int(tr[1][:2])
            toks += [f"{x:02d}:00" for x in range(h0, max(h0, h1) + 1)]
        for t in toks:
            key = f"{d}|{t}"
            if key not in seen:
                seen.add(key)
                out.tokens.append(t)

    def enrich(self, doc_id: str, text: str, meta: Mapping[str, Any] | None = None) -> Enrichment:
        """Date facts (one per resolved day) and their index tokens."""
        out = Enrichment()
        seen_tokens: set[str] = set()
        msgs = [m for m in split_messages(text, meta, self.order) if m.when is not None]
        bodies = [normalize_numbers(text[m.start : m.end]) for m in msgs]
        sents_of = [split_sentences(b) for b in bodies]
        ranges_of = [[find_time_range(s) for s in ss] for ss in sents_of]
        for j, msg in enumerate(msgs):
            if msg.when is None:  # (none: filtered above)
                continue
            ref = msg.when.date()
            sents, ranges = sents_of[j], ranges_of[j]
            # A time stated later by the same speaker ("I was doing those sessions from 2 p.m.").
            later = [
                r
                for k in range(j + 1, min(j + 1 + self.time_lookahead, len(msgs)))
                if msgs[k].speaker == msg.speaker
                for r in ranges_of[k]
                if r
            ]
            for i, sent in enumerate(sents):
                if not _CUE.search(sent):
                    continue
                hits = resolve_relative(sent, ref)
                if not hits:
                    continue
                tr = ranges[i] or next((r for r in ranges[i + 1 :] if r), None) or next(iter(later), None)
                for h in hits:
                    for d in h.dates:
                        self._add(out, seen_tokens, msg, h, d, tr, sent)
        return out

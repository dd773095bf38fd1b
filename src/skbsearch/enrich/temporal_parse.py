"""Dates, times and message headers: the parsing half of the temporal enricher.

Shared by the document side (:mod:`skbsearch.enrich.temporal`) and the query side
(:mod:`skbsearch.enrich.constraints`). Numeric dates like ``03/11/2025`` are ambiguous;
their order is explicit: ``order="MDY"`` (default), ``"DMY"`` or ``"YMD"``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from skbsearch.core.errors import InputError

MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
MONTH_NAMES = [
    "", "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
]  # fmt: skip
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
ORDERS = ("MDY", "DMY", "YMD")

_MON = r"(?P<mon>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_WD = r"(?:(?:" + "|".join(WEEKDAYS) + r"|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\.?,?\s+)?"

DATE_PATTERNS = [
    ("iso", re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\b")),
    ("mdy", re.compile(r"\b" + _WD + _MON + r"\s+" + _DAY + r"(?:,?\s+" + _YEAR + r")?\b", re.I)),
    ("dmy", re.compile(r"\b" + _WD + r"(?:the\s+)?" + _DAY + r"(?:\s+of)?\s+" + _MON + r"(?:,?\s+" + _YEAR + r")?\b", re.I)),
    ("num", re.compile(r"\b(?P<a>\d{1,4})[/.](?P<b>\d{1,2})[/.](?P<c>\d{2,4})\b")),
]  # fmt: skip

_MONTH_CUE = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)", re.I)
_HOUR = r"(?P<{n}h>\d{{1,2}})(?::(?P<{n}m>\d{{2}}))?\s*(?P<{n}ap>a\.?\s?m\.?|p\.?\s?m\.?|in the morning|in the afternoon|in the evening|at night|noon|o'?clock)?"
TIME_RE = re.compile(r"\b" + _HOUR.format(n="t") + r"(?!\d)", re.I)


@dataclass(frozen=True)
class DateMatch:
    """A date found in text: span, the date, and whether the year was given."""

    start: int
    end: int
    value: date
    has_year: bool


def _year(y: int) -> int:
    return y + 2000 if y < 70 else (y + 1900 if y < 100 else y)


def _mk(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def find_dates(text: str, reference: date | None = None, order: str = "MDY") -> list[DateMatch]:
    """Absolute dates in ``text``: ISO, "Nov 3, 2025", "3 November 2025", "03/11/2025".

    A date without a year takes the year of ``reference`` (and is skipped without one).
    ``order`` reads numeric dates: "MDY", "DMY" or "YMD".
    """
    if order not in ORDERS:
        raise InputError(f"date order {order!r} is not one of {ORDERS}", field="order")
    out: list[DateMatch] = []
    taken: list[tuple[int, int]] = []
    has_month = _MONTH_CUE.search(text) is not None
    for kind, pat in DATE_PATTERNS:
        if kind in ("mdy", "dmy") and not has_month:
            continue
        for m in pat.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            gd = m.groupdict()
            has_year = bool(gd.get("year"))
            if kind == "iso":
                d = _mk(int(gd["year"]), int(gd["month"]), int(gd["day"]))
            elif kind == "num":
                a, b, c = gd["a"], gd["b"], gd["c"]
                if len(a) == 4:
                    d = _mk(int(a), int(b), int(c))
                elif order == "DMY":
                    d = _mk(_year(int(c)), int(b), int(a))
                elif order == "YMD":
                    d = _mk(_year(int(a)), int(b), int(c))
                else:
                    d = _mk(_year(int(c)), int(a), int(b))
                has_year = True
            else:
                mon = MONTHS[gd["mon"].lower().rstrip(".")]
                if gd["mon"].lower() == "may" and kind == "mdy" and not has_year and not m.group(0)[0].isupper():
                    continue  # the verb "may"
                if has_year:
                    y = int(gd["year"])
                elif reference is not None:
                    y = reference.year
                else:
                    continue
                d = _mk(y, mon, int(gd["day"]))
            if d is None:
                continue
            taken.append((m.start(), m.end()))
            out.append(DateMatch(m.start(), m.end(), d, has_year))
    out.sort(key=lambda x: x.start)
    return out


def to_24h(hour: int, minute: int, ap: str | None) -> tuple[int, int] | None:
    """24-hour clock from an hour and a meridiem phrase ("p.m.", "in the morning", ...)."""
    if not 0 <= hour <= 24 or not 0 <= minute < 60:
        return None
    a = (ap or "").lower().replace(" ", "").replace(".", "")
    if a in ("pm", "intheafternoon", "intheevening", "atnight") and hour < 12:
        hour += 12
    elif a == "am" and hour == 12:
        hour = 0
    elif a == "noon":
        hour = 12
    return hour % 24 if hour == 24 else hour, minute


def date_tokens(d: date) -> list[str]:
    """Index tokens for a date: ISO, month name, day (with and without a zero), year, weekday."""
    name = MONTH_NAMES[d.month]
    return [
        d.isoformat(), name, name[:3], str(d.day), f"{d.day:02d}", str(d.year), WEEKDAYS[d.weekday()],
    ]


# --------------------------------------------------------------------- message headers
@dataclass
class Message:
    """One message of a chat, thread or e-mail: its text span, reference time and speaker."""

    start: int
    end: int
    when: datetime | None
    speaker: str | None


_CHAT_HEADER = re.compile(
    r"^[ \t]*\[?(?P<d>\d{4}-\d{1,2}-\d{1,2})[ T](?P<t>\d{1,2}:\d{2})(?::\d{2})?\]?,?[ \t]+"
    r"(?:(?P<who>[^:\n]{1,40}?):)?",
    re.M,
)
_MAIL_DATE = re.compile(r"^[ \t]*(?:Date|Sent):[ \t]*(?P<v>[^\n]+)$", re.M | re.I)
_MAIL_FROM = re.compile(r"^[ \t]*From:[ \t]*(?P<v>[^\n<]+?)\s*(?:<[^>\n]*>)?[ \t]*$", re.M | re.I)
_WROTE = re.compile(r"^[ \t>]*On (?P<v>[^\n]{6,60}?),? (?P<who>[^,\n]{1,60}) wrote:[ \t]*$", re.M)
META_KEYS = ("reference_time", "date", "timestamp", "created_at", "created", "time", "sent")


def parse_datetime(text: str, order: str = "MDY") -> datetime | None:
    """A date with an optional clock time from a header value ("Mon, 3 Nov 2025 10:04")."""
    ds = find_dates(text, None, order)
    full = [d for d in ds if d.has_year]
    if not full:
        return None
    d = full[0]
    tail = text[d.end :]
    tm = re.search(r"\b(\d{1,2}):(\d{2})(?::\d{2})?\s*(a\.?m\.?|p\.?m\.?)?", tail, re.I)
    h, mi = (0, 0)
    if tm:
        hm = to_24h(int(tm.group(1)), int(tm.group(2)), tm.group(3))
        if hm:
            h, mi = hm
    return datetime(d.value.year, d.value.month, d.value.day, h, mi)


def _meta_time(meta: Mapping[str, Any] | None, order: str) -> datetime | None:
    for k in META_KEYS:
        v = (meta or {}).get(k)
        if v is None:
            continue
        if isinstance(v, datetime):
            return v
        if isinstance(v, date):
            return datetime(v.year, v.month, v.day)
        got = parse_datetime(str(v), order)
        if got is not None:
            return got
    return None


def split_messages(text: str, meta: Mapping[str, Any] | None = None, order: str = "MDY") -> list[Message]:
    """Messages with their reference times and speakers.

    Recognises chat lines (``2024-11-23 09:08, Dante: ...``, ``[2024-11-23 09:08] Dante:``),
    e-mail headers (``Date:``/``Sent:`` and ``From:``) and quoted-reply lines (``On Nov 3,
    2025, Ana wrote:``). Text before the first header uses the document date from
    ``meta`` (keys such as ``date`` or ``timestamp``), if any.
    """
    heads: list[tuple[int, int, datetime | None, str | None]] = []
    for m in _CHAT_HEADER.finditer(text):
        y, mo, d = (int(x) for x in m.group("d").split("-"))
        h, mi = (int(x) for x in m.group("t").split(":"))
        try:
            at = datetime(y, mo, d, h, mi)
        except ValueError:
            continue
        who = (m.group("who") or "").strip() or None
        heads.append((m.start(), m.end(), at, who))
    for m in _MAIL_DATE.finditer(text):
        heads.append((m.start(), m.end(), parse_datetime(m.group("v"), order), None))
    for m in _WROTE.finditer(text):
        heads.append((m.start(), m.end(), parse_datetime(m.group("v"), order), m.group("who").strip()))
    heads.sort()
    senders = [(m.start(), m.group("v").strip().strip('"')) for m in _MAIL_FROM.finditer(text)]
    default = _meta_time(meta, order)
    msgs: list[Message] = []
    if not heads or heads[0][0] > 0:
        first_end = heads[0][0] if heads else len(text)
        msgs.append(Message(0, first_end, default, None))
    for k, (_s, e, when, who) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(text)
        if who is None:  # an e-mail: the nearest From: line above or inside the header block
            near = [v for p, v in senders if p <= e + 200 and p >= (heads[k - 1][1] if k else 0)]
            who = near[0] if near else None
        msgs.append(Message(e, end, when or default, who))
    return msgs

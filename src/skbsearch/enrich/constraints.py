"""Query-side constraints (a date, a time, a price, a place) and how well facts meet them.

``parse_constraints("Who was reading on February 27, 2024?")`` gives a ``date``
constraint 2024-02-27; ``"phones under $500"`` a ``price`` range; ``"... in United
Kingdom?"`` (with the gazetteer's place names) a ``place``. :func:`constraint_score`
scores a document's enriched facts against them (exact, range, containment), to be
combined with a text score (who/what words still matter), e.g. by :func:`combine_scores`.
No model at query time: rules only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from skbsearch.enrich.arithmetic import CURRENCY_SYMBOLS, CURRENCY_WORDS
from skbsearch.enrich.base import Fact
from skbsearch.enrich.gazetteer import Gazetteer, normalize_tokens, token_spans
from skbsearch.enrich.numbers import normalize_numbers
from skbsearch.enrich.temporal import find_time_range
from skbsearch.enrich.temporal_parse import find_dates

PLACE_ALIASES = {
    "uk": "United Kingdom", "u k": "United Kingdom", "britain": "United Kingdom",
    "great britain": "United Kingdom", "usa": "United States", "us": "United States",
    "u s": "United States", "u s a": "United States", "america": "United States",
    "united states of america": "United States", "uae": "United Arab Emirates",
}  # fmt: skip


@dataclass(frozen=True)
class Constraint:
    """One condition a query states.

    Attributes:
        kind: ``"date"`` (ISO strings), ``"time"`` ("HH:MM"), ``"price"`` (floats),
            ``"place"`` (a place name) or ``"speaker"`` (a person the facts must be
            about: "What did Jin buy ..."; refines the other constraints).
        value: the exact value, if one.
        low, high: an inclusive range, either end open (``None``).
        unit: the currency of a price ("USD", ...), if stated.
        tolerance: relative tolerance for "about $500" (0 = exact).
        text: the span of the query it was read from.
    """

    kind: str
    value: Any = None
    low: Any = None
    high: Any = None
    unit: str | None = None
    tolerance: float = 0.0
    text: str = ""


# ------------------------------------------------------------------ parsing
_MONEY = re.compile(
    r"(?P<mod>\b(?:under|below|less than|cheaper than|at most|up to|no more than|over|above|more than|"
    r"at least|from|around|about|roughly|approximately|between)\s+)?"
    r"(?:(?P<sym>[$€£¥₹])\s?(?P<a1>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<k1>\s*[kK]\b)?"
    r"|(?P<a2>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<cw>" + "|".join(CURRENCY_WORDS) + r")\b)",
    re.I,
)


def _money_value(m: re.Match[str]) -> tuple[float, str]:
    amt = float((m.group("a1") or m.group("a2")).replace(",", ""))
    if m.group("k1"):
        amt *= 1000
    cur = CURRENCY_SYMBOLS.get(m.group("sym") or "") or CURRENCY_WORDS.get((m.group("cw") or "").lower(), "USD")
    return amt, cur


def _parse_prices(q: str) -> list[Constraint]:
    out: list[Constraint] = []
    ms = list(_MONEY.finditer(q))
    skip = set()
    for k, m in enumerate(ms):
        if k in skip:
            continue
        v, cur = _money_value(m)
        mod = (m.group("mod") or "").strip().lower()
        if mod == "between" and k + 1 < len(ms) and re.fullmatch(r"\s*(?:and|to|-)\s*", q[m.end() : ms[k + 1].start()]):
            v2, _ = _money_value(ms[k + 1])
            skip.add(k + 1)
            out.append(Constraint("price", low=min(v, v2), high=max(v, v2), unit=cur, text=q[m.start() : ms[k + 1].end()]))
        elif mod in ("under", "below", "less than", "cheaper than", "at most", "up to", "no more than"):
            out.append(Constraint("price", high=v, unit=cur, text=m.group(0)))
        elif mod in ("over", "above", "more than", "at least", "from"):
            out.append(Constraint("price", low=v, unit=cur, text=m.group(0)))
        elif mod in ("around", "about", "roughly", "approximately"):
            out.append(Constraint("price", value=v, unit=cur, tolerance=0.1, text=m.group(0)))
        else:
            out.append(Constraint("price", value=v, unit=cur, text=m.group(0)))
    return out


def _parse_dates(q: str, reference: date | None, order: str) -> list[Constraint]:
    ds = [d for d in find_dates(q, reference, order) if d.has_year or reference is not None]
    out: list[Constraint] = []
    k = 0
    while k < len(ds):
        d = ds[k]
        if k + 1 < len(ds):
            nxt = ds[k + 1]
            before = q[max(0, d.start - 12) : d.start].lower()
            between = q[d.end : nxt.start].strip().lower()
            if re.search(r"\b(?:between|from)\s*$", before) and between in ("and", "to", "until", "-", "–", "through"):
                lo, hi = sorted((d.value, nxt.value))
                out.append(Constraint("date", low=lo.isoformat(), high=hi.isoformat(), text=q[d.start : nxt.end]))
                k += 2
                continue
        out.append(Constraint("date", value=d.value.isoformat(), text=q[d.start : d.end]))
        k += 1
    return out


def _place_index(places: Iterable[str] | Gazetteer | None) -> dict[tuple[str, ...], str]:
    """Normalised-token index of place names (built once per gazetteer or name list)."""
    if isinstance(places, Gazetteer):
        cached = getattr(places, "_constraint_place_index", None)
        if cached is None:
            cached = _build_place_index(tuple(places.place_names))
            places._constraint_place_index = cached  # type: ignore[attr-defined]  # cached on the gazetteer itself
        return cached
    return _build_place_index(tuple(places or ()))


@functools.lru_cache(maxsize=8)
def _build_place_index(names: tuple[str, ...]) -> dict[tuple[str, ...], str]:
    index = {tuple(normalize_tokens(n)): n for n in names if normalize_tokens(n)}
    known = set(index.values())
    for alias, canon in PLACE_ALIASES.items():
        if canon in known:
            index.setdefault(tuple(alias.split()), canon)
    return index


# "What did Victoria buy", "was Victoria doing", "has Georgia visited": a name between an
# auxiliary and its verb is the question's subject, not a place.
_SUBJECT = [
    (re.compile(r"\b(?:did|does|do|will|would|can|could|should)\s+$", re.I), re.compile(r"^\s+[a-z]")),
    (re.compile(r"\b(?:was|is|were|are)\s+$", re.I), re.compile(r"^\s+[a-z]+ing\b")),
    (re.compile(r"\b(?:has|have|had)\s+$", re.I), re.compile(r"^\s+[a-z]+(?:ed|en|wn)\b")),
]


def _parse_places(q: str, index: Mapping[tuple[str, ...], str]) -> list[Constraint]:
    """Place names in ``q``; a match must start with a capital ("in Reading", not "reading")
    and not be a question's subject ("What did Victoria buy ...")."""
    if not index:
        return []
    spans = token_spans(q)
    toks = [t for t, _, _ in spans]
    max_len = max(len(k) for k in index)
    out: list[Constraint] = []
    i = 0
    while i < len(toks):
        for n in range(min(max_len, len(toks) - i), 0, -1):
            name = index.get(tuple(toks[i : i + n]))
            start, end = spans[i][1], spans[i + n - 1][2]
            subject = any(b.search(q[:start]) and a.match(q[end:]) for b, a in _SUBJECT)
            if name is not None and q[start].isupper() and not subject:
                out.append(Constraint("place", value=name, text=q[spans[i][1] : spans[i + n - 1][2]]))
                i += n
                break
        else:
            i += 1
    return out


def _parse_speakers(q: str, speakers: Iterable[str]) -> list[Constraint]:
    """Known speakers named in ``q`` as whole words ("Jin", "Dante's")."""
    out = []
    for name in dict.fromkeys(speakers):
        if name and re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", q):
            out.append(Constraint("speaker", value=name, text=name))
    return out


#: a price in a query (removed before times are read: "$1,200" is no time)
_PRICE_TEXT = re.compile(r"[$€£¥₹]\s?\d[\d,.]*")


def parse_constraints(
    query: str,
    *,
    places: Iterable[str] | Gazetteer | None = None,
    order: str = "MDY",
    reference: date | None = None,
    speakers: Iterable[str] | None = None,
) -> list[Constraint]:
    """The date, time, price, place and speaker constraints a query states.

    Args:
        query: the query text.
        places: place names to recognise (e.g. a :class:`Gazetteer`'s regions, cities and
            countries); none: no place constraints.
        order: how to read numeric dates ("MDY", "DMY", "YMD").
        reference: the date that gives a year to "March 3" (none: such dates are skipped).
        speakers: names of the people facts can be about (the ``speaker`` attributes of
            a corpus's facts); a query naming one asks about that person's facts.
    """
    q = normalize_numbers(query)
    if reference is None:  # "from March 3 to March 9, 2024": the year of a full date
        reference = next((d.value for d in find_dates(q, None, order) if d.has_year), None)
    out = _parse_dates(q, reference, order)
    # Times and places: blank the dates first, so "on March 3, 2024" is neither 3 o'clock
    # nor a place called March.
    no_dates = q
    for d in find_dates(q, reference, order):
        no_dates = no_dates[: d.start] + " " * (d.end - d.start) + no_dates[d.end :]
    tr = find_time_range(_PRICE_TEXT.sub(" ", no_dates))
    if tr is not None:
        start, end = tr
        if end is None:
            out.append(Constraint("time", value=start, text=start))
        else:
            out.append(Constraint("time", low=start, high=end, text=f"{start}-{end}"))
    out += _parse_prices(q)
    out += _parse_places(no_dates, _place_index(places))
    out += _parse_speakers(query, speakers or ())
    return out


_QUESTION_WORDS = re.compile(
    r"\b(?:what|who|whom|whose|which|when|where|why|how|did|does|do|has|have|had)\b", re.I)


def topic_text(query: str) -> str:
    """A question without its question words ("What did Jin buy for $460?" -> " Jin buy
    for $460?"): they say what is asked, not what it is about, so a text score should
    not count them."""
    return _QUESTION_WORDS.sub(" ", query)


# ------------------------------------------------------------------ scoring
def _in_range(v: Any, c: Constraint) -> bool:
    return (c.low is None or v >= c.low) and (c.high is None or v <= c.high)


def _minutes(hhmm: str) -> int:
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def _time_fit(f: Fact, c: Constraint | None) -> float:
    """1 if a date fact's time range holds the asked time, 0.5 without a time, 0.25 if not."""
    if c is None:
        return 1.0
    s, e = f.attrs.get("time_start"), f.attrs.get("time_end")
    if not s:
        return 0.5
    fs, fe = _minutes(s), _minutes(e) if e else _minutes(s) + 60
    if c.value is not None:
        ok = fs <= _minutes(c.value) < fe or (fs == fe == _minutes(c.value))
    else:
        ok = fs < _minutes(c.high or "24:00") and _minutes(c.low or "00:00") < fe
    return 1.0 if ok else 0.25


def _norm(s: Any) -> str:
    return " ".join(normalize_tokens(str(s))) if s is not None else ""


def _fact_score(c: Constraint, f: Fact, time_c: Constraint | None) -> float:
    if c.kind == "date" and f.kind == "date":
        hit = f.value == c.value if c.value is not None else _in_range(f.value, c)
        return f.confidence * _time_fit(f, time_c) if hit else 0.0
    if c.kind == "time" and f.kind == "date":
        return f.confidence if _time_fit(f, c) == 1.0 else 0.0
    if c.kind == "price" and f.kind == "price":
        cur = f.attrs.get("currency")
        if c.unit and cur and c.unit != cur:
            return 0.0
        v = float(f.value)
        if c.value is not None:
            tol = max(abs(c.value) * max(c.tolerance, 0.001), 0.01)
            return f.confidence if abs(v - c.value) <= tol else 0.0
        return f.confidence if _in_range(v, c) else 0.0
    if c.kind == "place" and f.kind == "place":
        want = _norm(c.value)
        got = {_norm(f.value)} | {_norm(f.attrs.get(k)) for k in ("country", "region", "city", "location")}
        return f.confidence if want in got else 0.0
    return 0.0


def _speaker_fit(f: Fact, asked: set[str], other: float) -> float:
    """1 for a fact of an asked speaker (or of no speaker), ``other`` for anyone else's."""
    who = f.attrs.get("speaker")
    return 1.0 if not asked or not who or str(who) in asked else other


def constraint_score(
    constraints: Sequence[Constraint], facts: Sequence[Fact], *, other_speaker: float = 0.5
) -> float:
    """How well a document's facts meet the constraints, in [0, 1].

    The mean over constraints of the best-matching fact's score (its confidence when it
    matches: equal value, inside a range, or a place among the landmark's region, city
    and country). A time constraint refines date matches (containment in the fact's
    time range) rather than counting on its own when a date is also asked; a speaker
    constraint refines every match (a fact another speaker states scores
    ``other_speaker`` times its confidence) and never counts on its own. No
    constraints: 0.
    """
    if not constraints:
        return 0.0
    time_c = next((c for c in constraints if c.kind == "time"), None)
    has_date = any(c.kind == "date" for c in constraints)
    asked = {str(c.value) for c in constraints if c.kind == "speaker"}
    scored = [c for c in constraints if not (c.kind == "time" and has_date) and c.kind != "speaker"]
    if not scored:
        return 0.0
    total = 0.0
    for c in scored:
        total += max((_fact_score(c, f, time_c if has_date else None) * _speaker_fit(f, asked, other_speaker)
                      for f in facts), default=0.0)
    return total / len(scored)


def combine_scores(
    text_scores: Mapping[str, float],
    constraint_scores: Mapping[str, float],
    weight: float = 1.0,
) -> dict[str, float]:
    """Text scores scaled to [0, 1] by their maximum, plus ``weight`` times the constraint score."""
    top = max(text_scores.values(), default=0.0) or 1.0
    ids = set(text_scores) | set(constraint_scores)
    return {d: text_scores.get(d, 0.0) / top + weight * constraint_scores.get(d, 0.0) for d in ids}

"""Numbers written in words or digits: parsing and in-text normalisation.

``parse_number("one thousand eight hundred and eighty") == 1880.0``,
``parse_number("2.5") == 2.5``, ``parse_number("1,950") == 1950.0``,
``parse_number("3k") == 3000.0``; :func:`normalize_numbers` rewrites every number
written in words inside a text as digits ("two and a half times" -> "2.5 times") so that
the other enrichers only need digit patterns.
"""

from __future__ import annotations

import re

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
SUFFIX_SCALES = {"k": 1_000, "m": 1_000_000, "mn": 1_000_000, "bn": 1_000_000_000}
NUMBER_WORDS = set(UNITS) | set(TENS) | set(SCALES) | {"hundred"}

# Words after which a lone "one"/"a"/"an" is a quantity ("one day ago", "a week later").
UNIT_AFTER = re.compile(
    r"\s*(?:days?|weeks?|months?|years?|hours?|minutes?|dollars?|euros?|pounds?|"
    r"percent|per cent|times?|consecutive)\b",
    re.I,
)

_DIGITS = re.compile(r"^([+-]?\d{1,3}(?:,\d{3})+|[+-]?\d+)(?:\.(\d+))?\s*(k|m|mn|bn)?$", re.I)



def _words_value(words: list[str]) -> float | None:
    """Value of a run of number words (already lower-cased, without 'and')."""
    total, current = 0, 0
    prev = ""
    seen = False
    for w in words:
        if w in ("a", "an"):
            current = max(current, 1)
            continue
        if w in UNITS or w in TENS:
            v = UNITS.get(w, TENS.get(w, 0))
            # "nineteen ninety" / "twenty twenty": year style, a new group of hundreds.
            year_style = (prev in UNITS and UNITS[prev] >= 10) or (
                prev in TENS and (w in TENS or UNITS.get(w, 0) >= 10)
            )
            if seen and year_style:
                current = current * 100 + v
            else:
                current += v
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w in SCALES:
            total += max(current, 1) * SCALES[w]
            current = 0
        else:
            return None
        prev = w
        seen = True
    return float(total + current) if seen else None


def parse_number(text: str) -> float | None:
    """Parse one number in digits ("1,950", "2.5", "3k") or words ("two and a half").

    Returns ``None`` when ``text`` is not a number.
    """
    s = text.strip().lower().replace("\u2019", "'")
    if not s:
        return None
    m = _DIGITS.match(s.replace(" ", "") if re.fullmatch(r"[\d ,.]+[kmb]?n?", s) else s)
    if m:
        whole = float(m.group(1).replace(",", ""))
        if m.group(2):
            whole = float(f"{m.group(1).replace(',', '')}.{m.group(2)}")
        if m.group(3):
            whole *= SUFFIX_SCALES[m.group(3).lower()]
        return whole
    if s in ("half", "a half"):
        return 0.5
    half = 0.0
    for tail in (" and a half", " and one half"):
        if s.endswith(tail):
            s, half = s[: -len(tail)], 0.5
    words = [w for w in re.split(r"[\s-]+", s) if w and w != "and"]
    value = _words_value(words)
    return None if value is None else value + half


def _format(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


_TOKEN = re.compile(r"[A-Za-z]+")
_ANY_WORD = re.compile(r"\b(?:" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")\b", re.I)
_ARTICLE_CUE = re.compile(r"\b(?:ago|later|earlier|before|after|from now)\b", re.I)
_ARTICLE_UNIT = re.compile(
    r"\b(?:a|an)\s+(?=(?:day|week|month|year|hour)s?\s+(?:ago|later|earlier|before|after|from now)\b)", re.I
)
_KIND = {**{w: "u" if v < 10 else "t" for w, v in UNITS.items()}, **{w: "x" for w in TENS}}
_KIND.update({"hundred": "h", **{w: "s" for w in SCALES}})
# Allowed transitions inside one number: unit/teen/tens followed by ... (year style:
# "nineteen ninety", "twenty twenty"). Anything else starts a new number ("one four").
_NEXT = {
    "u": {"h", "s"},
    "t": {"h", "s", "x"},
    "x": {"u", "h", "s", "x", "t"},
    "h": {"u", "t", "x", "s"},
    "s": {"u", "t", "x", "h"},
    "a": {"h", "s"},
}


def _groups(text: str) -> list[tuple[int, int, list[str]]]:
    """Maximal valid runs of number words as (start, end, words)."""
    groups: list[tuple[int, int, list[str]]] = []
    cur: list[str] = []
    cur_s = cur_e = 0
    prev_kind = ""
    pending_and = False
    for m in _TOKEN.finditer(text):
        w = m.group(0).lower()
        gap = text[cur_e : m.start()] if cur else ""
        contiguous = bool(cur) and re.fullmatch(r"\s*-?\s*", gap) is not None
        if cur and w == "and" and prev_kind in ("h", "s") and re.fullmatch(r"\s*", gap):
            pending_and = True
            and_end = m.end()
            continue
        kind = _KIND.get(w) or ("a" if w in ("a", "an") else "")
        joinable = cur and kind and kind != "a" and (contiguous or (pending_and and re.fullmatch(r"\s*", text[and_end : m.start()])))
        if joinable and kind in _NEXT.get(prev_kind, set()):
            cur.append(w)
            cur_e = m.end()
            prev_kind = kind
            pending_and = False
            continue
        if cur and not (prev_kind == "a"):
            groups.append((cur_s, cur_e, cur))
        cur, pending_and = [], False
        if kind:
            cur, cur_s, cur_e, prev_kind = [w], m.start(), m.end(), kind
    if cur and prev_kind != "a":
        groups.append((cur_s, cur_e, cur))
    return groups


def normalize_numbers(text: str) -> str:
    """Rewrite numbers written in words as digits, leaving everything else unchanged.

    "two and a half times" -> "2.5 times", "one thousand and twenty" -> "1020",
    "twenty-three and fourteen days" -> "23 and 14 days". A lone "one" is only rewritten
    before a unit ("one day ago" -> "1 day ago"), so "the one I chose" stays as it is;
    "a"/"an" become 1 before a time unit and an ago/later word ("a week ago").
    """
    if not _ANY_WORD.search(text):
        return _ARTICLE_UNIT.sub("1 ", text) if _ARTICLE_CUE.search(text) else text
    out: list[str] = []
    last = 0
    for s, e, words in _groups(text):
        if words == ["one"] and not UNIT_AFTER.match(text, e):
            continue
        value = _words_value(words)
        if value is None:
            continue
        half = re.match(r"\s+and\s+a\s+half\b", text[e:], re.I)
        if half:
            value += 0.5
            e += half.end()
        out.append(text[last:s])
        out.append(_format(value))
        last = e
    out.append(text[last:])
    res = "".join(out)
    return _ARTICLE_UNIT.sub("1 ", res) if _ARTICLE_CUE.search(res) else res

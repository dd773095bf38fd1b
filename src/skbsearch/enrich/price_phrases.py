"""Relative-price statements and the item phrases around them (for :mod:`.arithmetic`).

Two kinds of knowledge, both over number-normalised sentences ("2.5 times", not "two and
a half times"):

- :func:`relative_statements`: every "A is r times / r% / a third / $d more or less than B"
  in a sentence as a :class:`Relation` ``A = B * mul + add``;
- clause helpers that name the item a price or a comparison side is about: the clause
  before a position (:func:`subject_before`), the noun phrase a price belongs to
  (:func:`price_entity`), the object after "than" (:func:`object_after`), and fuzzy token
  matching between item phrases (:func:`item_tokens`, :func:`names`), which tolerates
  glued words ("Leicais" for "Leica is").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
CURRENCY_WORDS = {
    "dollar": "USD", "dollars": "USD", "usd": "USD", "bucks": "USD", "euro": "EUR",
    "euros": "EUR", "eur": "EUR", "pound": "GBP", "pounds": "GBP", "gbp": "GBP", "yen": "JPY",
    "jpy": "JPY", "rupees": "INR", "inr": "INR", "francs": "CHF", "chf": "CHF",
}  # fmt: skip
_R = r"(?P<r>\d+(?:\.\d+)?)"
_MORE = r"(?:more expensive|pricier|costlier|more costly|dearer|higher|more|above|extra)"
_LESS = r"(?:less expensive|cheaper|less costly|lower|less|below|off|discount(?:ed)?)"
_AS = r"(?:as expensive|as much|as costly|as pricey|the price|the cost|the amount)"
_THAT = r"(?P<pron>that|its|this)\s+(?:price|cost|amount)"
_FRACTIONS = {"half": 0.5, "third": 1 / 3, "quarter": 0.25, "fifth": 0.2, "tenth": 0.1}
_FRAC = r"(?:(?:a|one|1)\s+)?(?P<frac>half|third|quarter|fifth|tenth)"
_DIFF = (r"(?:[$€£¥₹]\s?(?P<d1>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
         r"|(?P<d2>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?:" + "|".join(CURRENCY_WORDS) + r"))")


@dataclass(frozen=True)
class Relation:
    """A relative statement: the subject's price = the object's price * ``mul`` + ``add``."""

    start: int
    end: int
    mul: float
    add: float = 0.0
    pronoun_object: bool = False

    def forward(self, known: float) -> float:
        """The subject's price from the object's."""
        return known * self.mul + self.add

    def inverse(self, known: float) -> float:
        """The object's price from the subject's."""
        return (known - self.add) / self.mul


def _r(m: re.Match[str]) -> float:
    return float(m.group("r"))


def _frac(m: re.Match[str]) -> float:
    return _FRACTIONS[m.group("frac").lower()]


def _diff(m: re.Match[str]) -> float:
    return float((m.group("d1") or m.group("d2")).replace(",", ""))


# (pattern, mul, add): functions of the match.
_PATTERNS = [
    (_R + r"\s*(?:%|percent|per cent)\s+" + _MORE + r"\b", lambda m: 1 + _r(m) / 100, None),
    (_R + r"\s*(?:%|percent|per cent)\s+" + _LESS + r"\b", lambda m: 1 - _r(m) / 100, None),
    (_R + r"\s*(?:times|x)\s+(?:" + _AS + "|" + _THAT + "|" + _MORE + r")\b", _r, None),
    (_R + r"\s*(?:times|x)\s+" + _LESS + r"\b", lambda m: 1 / _r(m), None),
    (r"\b(?:twice|double)\s+(?:" + _AS + "|" + _THAT + r"|(?P<pron2>that|it))\b", lambda m: 2.0, None),
    (r"\bdouble\b(?=\s*(?:[,.;!?]|$|\s+(?:than|of|what)\b))", lambda m: 2.0, None),
    (r"\b(?:2|two)\s+thirds\s+(?:of|" + _AS + r")\b", lambda m: 2 / 3, None),
    (r"\bhalf\s+(?:" + _AS + "|" + _THAT + r"|(?P<pron2>that|it))\b", lambda m: 0.5, None),
    (r"\bhalf[- ]price\b", lambda m: 0.5, None),
    (r"\b" + _FRAC + r"\s+(?:of|" + _AS + r")\b", _frac, None),
    (r"\b" + _FRAC + r"\s+" + _LESS + r"\b", lambda m: 1 - _frac(m), None),
    (r"\b" + _FRAC + r"\s+(?:more expensive|pricier|costlier|more|higher)\b", lambda m: 1 + _frac(m), None),
    (_DIFF + r"\s+(?:more expensive|pricier|costlier|more|extra|higher)\b", lambda m: 1.0, _diff),
    (_DIFF + r"\s+(?:less expensive|cheaper|less|lower)\b", lambda m: 1.0, lambda m: -_diff(m)),
]
_COMPILED = [(re.compile(p, re.I), mul, add) for p, mul, add in _PATTERNS]


def relative_statements(sentence: str) -> list[Relation]:
    """The relative-price statements of one (number-normalised) sentence, left to right."""
    out: list[Relation] = []
    for pat, mul, add in _COMPILED:
        for m in pat.finditer(sentence):
            if any(r.start < m.end() and m.start() < r.end for r in out):
                continue
            k = mul(m)
            if k <= 0:
                continue
            gd = m.groupdict()
            pron = bool(gd.get("pron") or gd.get("pron2"))
            out.append(Relation(m.start(), m.end(), k, add(m) if add else 0.0, pron))
    return sorted(out, key=lambda r: r.start)


# ------------------------------------------------------------------ item phrases
_WORD = re.compile(r"[a-z0-9][a-z0-9&'.]*", re.I)
_MONEY = re.compile(r"[$€£¥₹]\s?\d[\d,.]*|\b\d[\d,.]*\s*(?:" + "|".join(CURRENCY_WORDS) + r")\b", re.I)
STOP = set(
    "a an the this that these those it its it's one ones is was were are be been being "
    "i i'm me my we our you your he she they them his her their from of for to in on at by "
    "with and or but so as than while whereas which who ultimately did not also same then "
    "newer older new old version model option costs cost costing priced listed price is ones "
    "they those these plus then just actually more less much times dollar dollars euro euros "
    "pound pounds bucks".split()
)
_BOUNDARY = re.compile(r"[,;:—–]|\s-\s|\b(?:while|whereas|but|and|so|which|although|though|whereas)\b", re.I)
_PRONOUN = re.compile(
    r"(?:^|\s)(?:it|it's|it’s|this|that|they|they're|they’re|these|those|which|latter|former)$"
    r"|(?:^|\s)(?:that|this|the|which)(?:\s+(?:first|second|other|same|latter|former|last))?\s+ones?$",
    re.I,
)
# Words that end a clause before a price or a comparison without naming anything.
_FILLER = re.compile(
    r"(?:\s+|^)(?:is|was|are|were|'s|’s|'re|’re|be|costs?|costing|priced|listed|comes?|came|coming|"
    r"ringing|rings|in|at|for|of|to|about|around|roughly|only|just|mere|nearly|almost|retails?|"
    r"retailed|retailing|sells?|sold|selling|goes|went|going|paid|pay|price|tag|point|being|"
    r"ended|ends|turned|turns|proved|proves|out|[a-z]+ly|then|now|still|even|also|with|by|up)$",
    re.I,
)
_COMPARE = re.compile(r"\b(?:than|as|compared (?:to|with)|versus|vs\.?)\s+", re.I)
_COMPLEMENT = re.compile(
    r"\b(?:[a-z]+ed|[a-z]+s|think|know|see|saw|found|find|feel|felt|say|said|seem|guess|mean|hear|"
    r"heard|thought|learn|learnt|realize|notice)\s+that\s",
)
_MAIN_VERB = re.compile(
    r"\b(?:is|was|are|were|costs?|costing|priced|offers?|offered|comes?|came|sells?|sold|retails?|"
    r"retailed|goes|went|has|had|provides?|provided)\b",
    re.I,
)
_FOR_ITEM = re.compile(
    r"^\s*(?:[a-z]+ly\s+)?for\s+(?:the|a|an|this|that|my|our|his|her|their)\s+(?P<x>[^,;.!?]+)", re.I
)


def item_tokens(text: str) -> set[str]:
    """The words of an item phrase that can tell items apart: its names and numbers (capitalised
    words, words with digits) when it has any ("Leica", "2019"), else its other non-stop words."""
    words = [(w, w.lower().strip(".'")) for w in _WORD.findall(_MONEY.sub(" ", text))]
    words = [(w, low) for w, low in words if low and low not in STOP]
    proper = {low for w, low in words if w[0].isupper() or any(c.isdigit() for c in w)}
    return proper or {low for _, low in words}


def same_word(a: str, b: str) -> bool:
    """Equal, or one a glued form of the other ("leicais" / "leica"; not for numbers)."""
    if a == b:
        return True
    if a.isdigit() or b.isdigit() or min(len(a), len(b)) < 4 or abs(len(a) - len(b)) > 2:
        return False
    return a.startswith(b) or b.startswith(a)


def names(side: set[str], item: set[str]) -> float:
    """Share of a side's words that the item phrase also has (fuzzy)."""
    if not side or not item:
        return 0.0
    return sum(1 for w in side if any(same_word(w, v) for v in item)) / len(side)


def distinct(a: set[str], b: set[str]) -> set[str]:
    """Words of ``a`` that ``b`` lacks (fuzzy): what tells side ``a`` from side ``b``."""
    return {w for w in a if not any(same_word(w, v) for v in b)}


def is_pronoun(text: str) -> bool:
    """A phrase that refers back rather than names ("it", "that one", "the latter")."""
    return bool(_PRONOUN.search(text.strip())) and not item_tokens(_PRONOUN.sub("", text.strip()))


def strip_filler(clause: str) -> str:
    """A clause without its trailing verbs, prepositions and adverbs ("... model 2020 is")."""
    prev = None
    out = clause.rstrip(" ,")
    while prev != out:
        prev = out
        out = _FILLER.sub("", out).rstrip(" ,")
    return out.strip()


def _last_clause(head: str) -> tuple[str, str]:
    """The clause ending ``head`` and the boundary word that opened it ("" at the start)."""
    cuts = list(_BOUNDARY.finditer(head))
    if not cuts:
        return head, ""
    last = cuts[-1]
    return head[last.end() :], last.group(0).strip().lower()


def _antecedent(head: str) -> str:
    """The noun phrase a relative "which/that/who" at the end of ``head`` refers to."""
    before = re.sub(r",?\s*(?:which|that|who)\s*$", "", head.rstrip(), flags=re.I)
    clause, _ = _last_clause(before)
    parts = _COMPARE.split(clause)
    # "it cost 1900 dollars, which is half ...": the priced "it", not the amount
    return strip_filler(_MONEY.sub(" ", parts[-1]))


def _widen(head: str, max_words: int = 12) -> str:
    """The nearest clause back from the end of ``head`` that names something: a name or a
    number ("the model 2022 ...") if one does, else any word that is not a stop word."""
    cuts = [0] + [m.end() for m in _BOUNDARY.finditer(head)]
    clauses = [strip_filler(head[c:]) for c in reversed(cuts)]
    for proper in (True, False):
        for clause in clauses:
            words = item_tokens(re.sub(r"\b(?:costs?|costing|priced|listed|coming|came|in|at|for)\b", " ", clause))
            if words and (not proper or any(w[0].isdigit() for w in words) or _has_name(clause)):
                return " ".join(clause.split()[-max_words:])
    return strip_filler(head)


def _has_name(text: str) -> bool:
    """Whether a phrase holds a capitalised word that is not a stop word ("Indesit")."""
    return any(w[0].isupper() and w.lower() not in STOP for w in _WORD.findall(text))


def sentence_subject(sentence: str) -> str:
    """The noun phrase before the sentence's first main verb ("The NEC model 2024 costs ...")."""
    m = _MAIN_VERB.search(sentence)
    if not m:
        return ""
    clause, _ = _last_clause(sentence[: m.start()])
    return strip_filler(clause)


_LAST_PRONOUN = re.compile(r"(?:^|\s)(?P<p>it|it's|it’s|that|that's|that’s|this|they|they're|they’re|these|those)$", re.I)
_HEAD_NOUN = re.compile(r"(?:^|\s)(?:\S*[A-Z0-9]\S*|one|ones|model|version|option|item|kind)$")
_EXTRAPOSED = re.compile(r"^\s*to\s+(?:buy|get|purchase|pick up|go with|order|own)\s+(?P<np>[^,;.!?]+)", re.I)


def subject_before(sentence: str, pos: int) -> tuple[str, bool]:
    """The subject of a comparison starting at ``pos``, and whether it is a pronoun."""
    head = sentence[:pos]
    clause, opener = _last_clause(head)
    subj = strip_filler(clause)
    if not subj and opener in ("which", "that", "who"):  # "the 2022 model, which was 25% more"
        ante = _antecedent(head[: len(head) - len(clause)])
        return (ante, is_pronoun(ante)) if item_tokens(ante) or is_pronoun(ante) else (opener, True)
    if not subj and opener in ("and", "but"):  # "X is 2100, and is 2 times more expensive ..."
        main = sentence_subject(sentence)
        if item_tokens(main) and not is_pronoun(main):
            return main, False
    cm = list(_COMPLEMENT.finditer(subj + " "))
    if cm:  # "I realized that the Leica Tablet is ..." / "I realized that was ..."
        rest = subj[cm[-1].end() :].strip()
        return (rest, is_pronoun(rest)) if rest else ("that", True)
    if is_pronoun(subj):  # "that one", "the latter"
        return subj, True
    last = _LAST_PRONOUN.search(subj)
    if last:
        before = subj[: last.start()].strip()
        if last.group("p").lower() == "that" and before and _HEAD_NOUN.search(before):
            return before, False  # "the Leica Tablet that is ...": a relative clause
        return (subj, True) if is_pronoun(subj) else (last.group("p"), True)  # "I discovered it was"
    if not re.search(r"\w", subj):
        subj = _widen(head)
        return subj, is_pronoun(subj)
    return re.sub(r",?\s*(?:which|who)$", "", subj).strip(), False


def extraposed_subject(sentence: str, end: int) -> str | None:
    """The real subject of "it is 25% more expensive to buy the X" (None without one)."""
    m = _EXTRAPOSED.match(sentence[end:])
    if not m:
        return None
    np = re.split(r"\b(?:and|but|so|while|which|whereas|than)\b", m.group("np"), maxsplit=1)[0].strip()
    return np if item_tokens(np) else None


def object_after(sentence: str, end: int) -> str | None:
    """The compared item after a comparison ("than the 2020 model" -> "the 2020 model")."""
    m = re.match(r"^\s*(?:than|as|of|compared (?:to|with)|versus|vs\.?|what)\s+(?P<obj>[^,;.!?—–]+)", sentence[end:], re.I)
    if not m:
        return None
    obj = re.split(r"\b(?:and|but|so|while|which|whereas|costs?|is|was)\b", m.group("obj"), maxsplit=1)[0]
    return re.sub(r"(?:'s|’s)\s+(?:price|cost)\b.*$", "", obj).strip() or None


def price_entity(sentence: str, start: int, end: int) -> str:
    """The item a stated price belongs to (see the module docstring)."""
    after = _FOR_ITEM.match(sentence[end:])
    if after:  # "$300 for the 2019 model"
        x = re.split(r"\b(?:and|but|while|which|whereas)\b", after.group("x"), maxsplit=1)[0].strip()
        if item_tokens(x):
            return x
    head = sentence[:start]
    clause, opener = _last_clause(head)
    ent = strip_filler(re.sub(r"(?:'s|’s)(?=\s+(?:price|cost)\b)", "", _COMPARE.split(clause)[-1]))
    if item_tokens(ent) and not is_pronoun(ent):
        return ent
    if opener in ("which", "who"):  # "the 2020 model, which retailed for 620"
        ante = _antecedent(head[: len(head) - len(clause)])
        if item_tokens(ante):
            return ante
    # After a comparison: "X costs 2 times as much as Y, coming in at 2300" is X's price,
    # "... than Y, priced at 1240" (a participle right after Y) is Y's, and "... for the
    # older version" is the side with the earlier year. Else "... found the model 2022 a
    # good fit, costing 1700": the nearest clause naming an item.
    rels = relative_statements(head)
    if rels:
        subj = subject_before(sentence, rels[-1].start)[0]
        obj = object_after(sentence, rels[-1].end) or ""
        relational = _relational_side(after.group("x") if after else "", subj, obj)
        if relational:
            return relational
        if _PARTICIPLE.match(clause) and item_tokens(obj) and not is_pronoun(obj):
            return obj
        if item_tokens(subj) and not is_pronoun(subj):
            return subj
    return _widen(head)


_PARTICIPLE = re.compile(r"^\s*(?:priced|listed|valued|tagged|marked|retailed|sold)\b", re.I)
_OLDER = re.compile(r"^\s*(?:older|earlier|previous|prior|original)\b", re.I)
_NEWER = re.compile(r"^\s*(?:newer|later|latest|newest|updated|recent|more recent)\b", re.I)


def _relational_side(phrase: str, subj: str, obj: str) -> str | None:
    """Which side "the older version" / "the newer one" is, by the years the sides name."""
    older, newer = _OLDER.match(phrase), _NEWER.match(phrase)
    if not (older or newer):
        return None
    years = [(int(m.group(0)), side) for side in (subj, obj)
             for m in [re.search(r"\b(?:19|20)\d\d\b", side)] if m]
    if len(years) != 2 or years[0][0] == years[1][0]:
        return None
    return (min if older else max)(years)[1]

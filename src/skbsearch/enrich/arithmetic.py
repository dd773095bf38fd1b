"""Arithmetic enricher: explicit prices and prices implied by relative statements.

"The Nothing model 2017 costs seven hundred and eighty dollars, while the newer model
2019 is two and a half times more expensive" gives ``price`` facts 780.0 (explicit, entity
"Nothing model 2017") and 1950.0 (derived, entity "newer model 2019"). Relative forms:
"N times more expensive/cheaper (than X)", "twice as much as", "half the price",
"25 percent more expensive", "20% cheaper/off", "two times less than". Which side of a
comparison is the already-priced item is decided by the words that tell the two sides
apart ("Mark Levinson" vs "Insignia", "2020" vs "2019"); a pronoun subject ("it was 2
times more expensive than ...") refers to the last priced item.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skbsearch.enrich.base import Enrichment, Fact
from skbsearch.enrich.numbers import normalize_numbers
from skbsearch.enrich.temporal import split_sentences
from skbsearch.enrich.temporal_parse import split_messages

CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
CURRENCY_WORDS = {
    "dollar": "USD", "dollars": "USD", "usd": "USD", "bucks": "USD", "euro": "EUR",
    "euros": "EUR", "eur": "EUR", "pound": "GBP", "pounds": "GBP", "gbp": "GBP", "yen": "JPY",
    "jpy": "JPY", "rupees": "INR", "inr": "INR", "francs": "CHF", "chf": "CHF",
}  # fmt: skip
_AMT = r"(?P<amt>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_SUF = r"(?:\s*(?P<suf>k|m|bn|thousand|million)\b)?"
_PRICE_PATTERNS = [
    re.compile(r"(?P<cur>[$€£¥₹])\s?" + _AMT + _SUF, re.I),
    re.compile(r"\b" + _AMT + _SUF + r"\s*(?P<cw>" + "|".join(CURRENCY_WORDS) + r")\b", re.I),
    re.compile(
        r"\b(?:costs?|costing|priced at|listed at|sells? for|sold for|selling for|is|was|were|are|at|for|"
        r"coming in at|came to|paid|pay|retails? for|went for|goes for)\s+"
        r"(?:about |around |roughly |only |just |a mere |nearly |almost )?" + _AMT + r"(?![.,]?\d)"
        r"(?!\s*(?:%|percent|per cent|times|x\b|days?|weeks?|months?|years?|hours?|minutes?|"
        r"a\.?m|p\.?m|o'?clock|in the|people|km|miles?|kg|:|-|/))",
        re.I,
    ),
]
_PRICE_CONTEXT = re.compile(
    r"pric|cost|expensive|cheap|paid|pay|bought|buy|purchas|shopping|spent|spend|afford|"
    r"budget|invoice|charge|fee|quote|[$€£¥₹]|dollar|euro|pound",
    re.I,
)
_CURRENCY_ANY = re.compile(r"[$€£¥₹]|\b(?:" + "|".join(CURRENCY_WORDS) + r")\b", re.I)
_R = r"(?P<r>\d+(?:\.\d+)?)"
_MORE = r"(?:more expensive|pricier|costlier|more costly|dearer|higher|more|above)"
_LESS = r"(?:less expensive|cheaper|less costly|lower|less|below|off|discount(?:ed)?)"
# (pattern, how to turn the match into a factor "unknown = known * factor" for subject)
_RELATIVE = [
    (re.compile(_R + r"\s*(?:%|percent|per cent)\s+" + _MORE + r"\b", re.I), lambda r: 1 + r / 100),
    (re.compile(_R + r"\s*(?:%|percent|per cent)\s+" + _LESS + r"\b", re.I), lambda r: 1 - r / 100),
    (re.compile(_R + r"\s*(?:times|x)\s+(?:as expensive|as much|as costly|as pricey|the price|the cost|" + _MORE + r")\b", re.I), lambda r: r),
    (re.compile(_R + r"\s*(?:times|x)\s+" + _LESS + r"\b", re.I), lambda r: 1 / r),
    (re.compile(r"\b(?:twice|double)\s+(?:as expensive|as much|as costly|as pricey|the price|the cost)\b", re.I), lambda r: 2.0),
    (re.compile(r"\bhalf\s+(?:as expensive|as much|as costly|the price|the cost|that price|its price|that)\b", re.I), lambda r: 0.5),
]  # fmt: skip
_OBJECT = re.compile(r"^\s*(?:than|as|of|compared (?:to|with))\s+(?P<obj>[^,;.!?]+)", re.I)
_BOUNDARY = re.compile(r"[,;:]|\b(?:while|whereas|but|and|so|which|although|though)\b", re.I)
_STOP = set(
    "a an the this that these those it its it's one ones is was were are be been being "
    "i i'm me my we our you your he she they them his her their from of for to in on at by "
    "with and or but so as than while whereas which who ultimately did not also same then "
    "newer older new old version model option costs cost costing priced listed price is ones "
    "they those these plus then just actually".split()
)
_PRONOUN = re.compile(
    r"(?:^|\s)(?:it|it's|it’s|this|that|they|they're|they’re|these|those|which|latter|former)$"
    r"|(?:^|\s)(?:that|this|the|which)(?:\s+(?:first|second|other|same|latter|former|last))?\s+ones?$",
    re.I,
)
_VERBS = re.compile(r"\b(?:costs?|costing|priced|listed|coming|came|in|at|for|is|was|which|were)\b", re.I)
_WORD = re.compile(r"[a-z0-9][a-z0-9&'.-]*", re.I)


def _tokens(text: str) -> set[str]:
    return {w.lower().strip(".'") for w in _WORD.findall(text)} - _STOP - {""}


def _clause_before(sent: str, pos: int, max_words: int = 12, need_content: bool = False) -> str:
    """The clause ending at ``pos`` (back to a comma, 'while', 'and', ...); with
    ``need_content``, earlier clauses are added until it holds a content word."""
    head = sent[:pos]
    cuts = [0] + [m.end() for m in _BOUNDARY.finditer(head)]
    k = len(cuts) - 1
    clause = head[cuts[k] :]
    while need_content and not _tokens(_VERBS.sub(" ", clause)) and k > 0:
        k -= 1
        clause = head[cuts[k] :]
    words = clause.split()
    return " ".join(words[-max_words:]).strip()


def _precision(a: set[str], b: set[str]) -> float:
    """Share of the words of a span ``a`` that the priced item ``b`` also has."""
    return len(a & b) / len(a) if a and b else 0.0


def _amount(m: re.Match[str]) -> float:
    v = float(m.group("amt").replace(",", ""))
    suf = (m.groupdict().get("suf") or "").lower()
    return v * {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9}.get(suf, 1.0)


@dataclass
class _Priced:
    entity: str
    tokens: set[str]
    value: float
    currency: str
    marked: bool = False


def price_tokens(value: float, currency: str = "USD") -> list[str]:
    """Index tokens for a price: "1950", "$1,950", "1,950", "1950 dollars"/currency code."""
    whole = float(value).is_integer()
    plain = str(int(value)) if whole else f"{value:.2f}"
    grouped = f"{value:,.0f}" if whole else f"{value:,.2f}"
    sym = {v: k for k, v in CURRENCY_SYMBOLS.items()}.get(currency, "")
    word = {"USD": "dollars", "EUR": "euros", "GBP": "pounds"}.get(currency, currency.lower())
    return [plain, f"{sym}{grouped}", grouped, word]


@dataclass
class ArithmeticEnricher:
    """Explicit and derived prices, attached to the item they describe.

    Attributes:
        default_currency: currency of bare amounts in a document that names none.
        name: the enricher's name (``Fact.source``).
    """

    default_currency: str = "USD"
    name: str = "arithmetic"

    def _explicit(self, sent: str, currency: str) -> list[tuple[int, int, _Priced]]:
        found: list[tuple[int, int, _Priced]] = []
        for k, pat in enumerate(_PRICE_PATTERNS):
            for m in pat.finditer(sent):
                if any(s < m.end() and m.start() < e for s, e, _ in found):
                    continue
                if k == 2 and re.search(r"\b(?:model|version|year|in|since|of)\s*$", sent[: m.start("amt")], re.I):
                    continue
                if k == 2 and re.search(r"\d{4}", m.group("amt")) and re.match(r"\s*(?:model|version)", sent[m.end() :], re.I):
                    continue
                cur = CURRENCY_SYMBOLS.get(m.groupdict().get("cur") or "") or CURRENCY_WORDS.get(
                    (m.groupdict().get("cw") or "").lower(), currency
                )
                ent = _clause_before(sent, m.start(), need_content=True)
                singular = k == 1 and m.group("cw").lower() in ("dollar", "euro", "pound")
                if singular and re.match(r"\s+(?!and\b|but\b|for\b)[a-z0-9]", sent[m.end() :], re.I):
                    ent = re.split(r"[,;.!?]|\b(?:but|and|while)\b", sent[m.end() :])[0]  # "a 2280 dollar model"
                ent = re.sub(r"\b(?:costs?|costing|priced at|listed at|is|was|at|for|coming in)\s*$", "", ent, flags=re.I)
                found.append((m.start(), m.end(), _Priced(ent.strip(), _tokens(ent), _amount(m), cur, k < 2)))
        return sorted(found, key=lambda x: x[0])

    def enrich(self, doc_id: str, text: str, meta: Mapping[str, Any] | None = None) -> Enrichment:
        """Price facts (explicit and derived) and their index tokens."""
        out = Enrichment()
        if not _PRICE_CONTEXT.search(text):
            return out
        cur_m = _CURRENCY_ANY.search(text)
        currency = self.default_currency
        if cur_m:
            c = cur_m.group(0)
            currency = CURRENCY_SYMBOLS.get(c) or CURRENCY_WORDS.get(c.lower(), currency)
        priced: list[_Priced] = []
        seen: set[tuple[float, str]] = set()

        def emit(
            value: float, cur: str, entity: str, sent: str, speaker: str | None,
            confidence: float = 1.0, **extra: Any,
        ) -> None:
            value = round(value, 2)
            attrs = {"currency": cur, "entity": entity, "speaker": speaker, **extra}
            out.facts.append(Fact("price", value, attrs, sent.strip(), self.name, confidence))
            if (value, cur) not in seen:
                seen.add((value, cur))
                out.tokens.extend(price_tokens(value, cur))

        for msg in split_messages(text, meta):
            body = normalize_numbers(text[msg.start : msg.end])
            if not re.search(r"\d", body):
                continue
            for sent in split_sentences(body):
                explicit = self._explicit(sent, currency)
                for _s, _e, p in explicit:
                    emit(p.value, p.currency, p.entity, sent, msg.speaker, derived=False)
                    priced.append(p)
                for pat, fn in _RELATIVE:
                    for m in pat.finditer(sent):
                        r = float(m.group("r")) if "r" in m.groupdict() and m.group("r") else 0.0
                        factor = fn(r)
                        if factor <= 0:
                            continue
                        self._resolve(sent, m, factor, explicit, priced, emit, msg.speaker)
        return out

    def _resolve(self, sent: str, m: re.Match[str], factor: float, explicit: list, priced: list[_Priced], emit: Any, speaker: str | None) -> None:
        """Which side of "A is r times more expensive than B" is already priced; price the other."""
        verb = r"\b(?:is|was|are|were|'re|'s|costs?|costing|comes? in at|priced at|at)\s*$"
        subj = re.sub(verb, "", _clause_before(sent, m.start(), need_content=True), flags=re.I).strip()
        # "..., the 2022 model, which was 25% more": the relative pronoun's antecedent.
        bare = re.sub(r",?\s*(?:which|that|who)$", "", subj).strip()
        if bare != subj and _tokens(bare):
            subj = bare
        om = _OBJECT.match(sent[m.end() :])
        obj = None
        if om:
            obj = re.split(r"\b(?:and|but|so|while|which|whereas)\b", om.group("obj"), maxsplit=1)[0].strip()
        # Known prices: the ones before this statement, and ones later in the same sentence.
        later = [p for s, _e, p in explicit if s >= m.end()]
        cands = list(reversed(priced)) + later
        if not cands:
            return
        st, ot = _tokens(subj), _tokens(obj or "")
        sd, od = st - ot, ot - st
        subj_pron = bool(_PRONOUN.search(subj)) and bool(priced)
        obj_pron = obj is not None and bool(_PRONOUN.search(obj) or not ot) and bool(priced)
        best = None
        for rank, p in enumerate(cands):
            # A pronoun refers to the last priced item, unless the other side names it.
            s_sub = _precision(sd, p.tokens) + (0.5 if subj_pron and rank == 0 else 0.0)
            s_obj = _precision(od, p.tokens) + (0.5 if obj_pron and rank == 0 else 0.0)
            if obj is None and not subj_pron:
                # "the newer model 2019 is 2.5 times more expensive": a subject that names
                # anything the priced item lacks is the other item.
                s_sub = 1.0 if st and st <= p.tokens else 0.0
                s_obj = 0.0
            score = max(s_sub, s_obj)
            if best is None or score > best[0]:
                best = (score, p, s_sub, s_obj)
        assert best is not None
        _, p, s_sub, s_obj = best
        kw = {"derived": True, "base": p.value, "factor": round(factor, 4)}
        if s_sub > s_obj:  # the subject is the priced item: the other costs base / factor
            emit(p.value / factor, p.currency, obj or "", sent, speaker, **kw)
        elif s_obj > s_sub or obj is None:
            emit(p.value * factor, p.currency, subj, sent, speaker, **kw)
        else:  # no telling which side is priced: both readings, each half as sure
            emit(p.value * factor, p.currency, subj, sent, speaker, confidence=0.5, **kw)
            emit(p.value / factor, p.currency, obj, sent, speaker, confidence=0.5, **kw)

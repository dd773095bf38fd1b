"""Arithmetic enricher: explicit prices and prices implied by relative statements.

"The Nothing model 2017 costs seven hundred and eighty dollars, while the newer model
2019 is two and a half times more expensive" gives ``price`` facts 780.0 (explicit, entity
"Nothing model 2017") and 1950.0 (derived, entity "newer model 2019"). Relative forms
(:mod:`skbsearch.enrich.price_phrases`): "N times more expensive/cheaper (than X)",
"twice as much as", "double (the price of)", "half the price", "two thirds of",
"a third off", "a quarter cheaper", "25 percent more expensive", "20% cheaper/off",
"two times less than", "$200 more / $15 less than" (a difference: base + 200).

A stated price belongs to the item named just before it, to the noun phrase before
", which ..." ("the 2020 model, which retailed for $620"), to "the X" in "$300 for the X",
or, in an appositive after a comparison ("X costs twice as much as Y, coming in at $2,300"),
to the comparison's subject. Which side of a comparison is the already-priced item is
decided by the words that tell the two sides apart (names and numbers first: "Mark
Levinson" vs "Insignia", "2020" vs "2019"; words glued to "is", "Leicais", still match); a
pronoun ("it was 2 times more expensive than ...", "I realized that was ...") refers to
the last priced item unless the other side names it outright. Known prices are the ones
stated before the comparison, then later ones in the same message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from skbsearch.enrich.base import Enrichment, Fact
from skbsearch.enrich.numbers import normalize_numbers
from skbsearch.enrich.price_phrases import (
    CURRENCY_SYMBOLS,
    CURRENCY_WORDS,
    Relation,
    distinct,
    extraposed_subject,
    is_pronoun,
    item_tokens,
    names,
    object_after,
    price_entity,
    relative_statements,
    subject_before,
)
from skbsearch.enrich.temporal import split_sentences
from skbsearch.enrich.temporal_parse import split_messages

_AMT = r"(?P<amt>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_SUF = r"(?:\s*(?P<suf>k|m|bn|thousand|million)\b)?"
_PRICE_PATTERNS = [
    re.compile(r"(?P<cur>[$€£¥₹])\s?" + _AMT + _SUF, re.I),
    re.compile(r"\b" + _AMT + _SUF + r"\s*(?P<cw>" + "|".join(CURRENCY_WORDS) + r")\b", re.I),
    re.compile(
        r"\b(?:costs?|costing|priced at|listed at|sells? for|sold for|selling for|is|was|were|are|at|for|"
        r"coming in at|came to|paid|pay|retails? for|went for|goes for)\s+"
        r"(?:about |around |roughly |only |just |a mere |nearly |almost )?" + _AMT + r"(?![.,]?\d)"
        r"(?!\s*(?:%|percent|per cent|times|x\b|thirds?\b|quarters?\b|halves\b|fifths?\b|days?|weeks?|months?|years?|hours?|minutes?|"
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
        # "$200 more than ...": a difference, not a price.
        diffs = [(r.start, r.end) for r in relative_statements(sent) if r.add]
        for k, pat in enumerate(_PRICE_PATTERNS):
            for m in pat.finditer(sent):
                if any(s < m.end() and m.start() < e for s, e, _ in found) or any(
                    s < m.end() and m.start() < e for s, e in diffs
                ):
                    continue
                if k == 2 and re.search(r"\b(?:model|version|year|in|since|of)\s*$", sent[: m.start("amt")], re.I):
                    continue
                if k == 2 and re.search(r"\d{4}", m.group("amt")) and re.match(r"\s*(?:model|version)", sent[m.end() :], re.I):
                    continue
                cur = CURRENCY_SYMBOLS.get(m.groupdict().get("cur") or "") or CURRENCY_WORDS.get(
                    (m.groupdict().get("cw") or "").lower(), currency
                )
                ent = price_entity(sent, m.start(), m.end())
                singular = k == 1 and m.group("cw").lower() in ("dollar", "euro", "pound")
                if singular and re.match(r"\s+(?!and\b|but\b|for\b)[a-z0-9]", sent[m.end() :], re.I):
                    ent = re.split(r"[,;.!?]|\b(?:but|and|while)\b", sent[m.end() :])[0]  # "a 2280 dollar model"
                found.append((m.start(), m.end(), _Priced(ent.strip(), item_tokens(ent), _amount(m), cur, k < 2)))
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
        seen: set[tuple[float, str]] = set()
        priced: list[_Priced] = []  # the prices stated so far in the document

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
            sents = split_sentences(body)
            stated = [self._explicit(sent, currency) for sent in sents]
            for i, sent in enumerate(sents):
                for _s, _e, p in stated[i]:
                    emit(p.value, p.currency, p.entity, sent, msg.speaker, derived=False)
                later = [p for s, _e, p in stated[i]] + [p for st in stated[i + 1 :] for _s, _e, p in st]
                for rel in relative_statements(sent):
                    # Known prices: the ones before this statement, then later ones in the message.
                    before = priced + [p for s, _e, p in stated[i] if s < rel.start]
                    after = [p for p in later if all(p is not q for q in before)]
                    self._resolve(sent, rel, before, after, emit, msg.speaker)
                priced += [p for _s, _e, p in stated[i]]
        return out

    def _resolve(self, sent: str, rel: Relation, before: list[_Priced], after: list[_Priced], emit: Any,
                 speaker: str | None) -> None:
        """Which side of "A is r times more expensive than B" is already priced; price the other."""
        subj, subj_pron = subject_before(sent, rel.start)
        obj = "that" if rel.pronoun_object else object_after(sent, rel.end)
        if subj_pron and obj is None and extraposed_subject(sent, rel.end):
            subj, subj_pron = extraposed_subject(sent, rel.end) or subj, False
        cands = list(reversed(before)) + after
        if not cands:
            return
        st, ot = item_tokens(subj), item_tokens(obj or "")
        sd, od = distinct(st, ot), distinct(ot, st)
        subj_pron = subj_pron and bool(before)
        obj_pron = obj is not None and (is_pronoun(obj) or not ot) and bool(before)
        best = None
        for rank, p in enumerate(cands):
            # A pronoun refers to the last priced item; only a side that names it outright
            # (every distinctive word) outweighs that.
            s_sub = names(sd, p.tokens) + (0.75 if subj_pron and rank == 0 else 0.0)
            s_obj = names(od, p.tokens) + (0.75 if obj_pron and rank == 0 else 0.0)
            if obj is None and not subj_pron:
                # "the newer model 2019 is 2.5 times more expensive": a subject that names
                # anything the priced item lacks is the other item.
                s_sub = 1.0 if st and not distinct(st, p.tokens) else 0.0
                s_obj = 0.0
            score = max(s_sub, s_obj)
            if best is None or score > best[0]:
                best = (score, p, s_sub, s_obj)
        assert best is not None
        _, p, s_sub, s_obj = best
        kw: dict[str, Any] = {"derived": True, "base": p.value, "factor": round(rel.mul, 4)}
        if rel.add:
            kw["delta"] = rel.add
        if s_sub > s_obj:  # the subject is the priced item: the other is its inverse
            emit(rel.inverse(p.value), p.currency, obj or "", sent, speaker, **kw)
        elif s_obj > s_sub or obj is None:
            emit(rel.forward(p.value), p.currency, subj, sent, speaker, **kw)
        else:  # no telling which side is priced: both readings, each half as sure
            emit(rel.forward(p.value), p.currency, subj, sent, speaker, confidence=0.5, **kw)
            emit(rel.inverse(p.value), p.currency, obj or "", sent, speaker, confidence=0.5, **kw)

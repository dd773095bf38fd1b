"""Extractive reader: answer from the documents' derived facts, with rules (no model).

1. The question's constraints (date, time, price, place) are parsed with
   :func:`~skbsearch.enrich.parse_constraints`; every fact of every given document is
   scored against them (:func:`~skbsearch.enrich.constraint_score` of the fact's document,
   then of the fact alone; ties by the words the question shares with the document, e.g.
   the speaker it names, then with the fact's evidence).
2. The best fact answers, by what the question asks for:

   * a person ("Who ...", "Whose ...") -> the fact's ``speaker`` (for facts without one,
     the author of the message the fact's mention is in);
   * a thing, when the fact names one (``entity``, e.g. the item a price is attached to)
     -> that entity; if it names no brand (no capitalised word: "the 2019 version"), the
     capitalised words of the item it is compared with are put in front;
   * otherwise (an activity, a reason) -> the event span next to the fact's anchor in its
     evidence sentence: for a place, the words after the mention ("at X for <reason>"),
     for a date, the clause before the time expression ("I had to <activity> 4 days
     ago"), with "I had to" / "I was" openers removed.

No fact meets the constraints: the sentence sharing most words with the question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from skbsearch.enrich import (
    Constraint,
    EnrichedDocument,
    Fact,
    Gazetteer,
    constraint_score,
    parse_constraints,
)
from skbsearch.enrich.temporal import split_sentences
from skbsearch.enrich.temporal_parse import split_messages

_WORD = re.compile(r"[a-z0-9]+")
_STOP = set("a an the of to in on at for by with and or is was were be been did do does what who whom "
            "whose which when where why how that this it its i you he she they we my your".split())
_PERSON = re.compile(r"^\s*(?:who|whom|whose)\b", re.I)
_TIME_CUE = re.compile(
    r"\b(?:\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:days?|weeks?|months?|years?)"
    r"\s+(?:ago|later|earlier|before|after|from now|back)\b|\b(?:the day (?:before|after) )?(?:yesterday|tomorrow|today)\b"
    r"|\b(?:start(?:ed|ing)|beginning|from)\b|\b(?:last|next|this|coming|past)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|\bin\s+\d+\s+(?:days?|weeks?)\b",
    re.I,
)
_OPENER = re.compile(
    r"^.*?\b(?:i|we)(?:\s+(?:also|actually|just|really|then|still|even))?\s+(?:had|have|has|need|needed|will need|"
    r"was going|am going|got|was scheduled|am scheduled|was supposed|am supposed|'ll have|’ll have)\s+to\s+",
    re.I,
)
_SUBJECT = re.compile(r"^(?:i|we)(?:\s+(?:was|were|am|have been|had been|also|actually|just))*\s+", re.I)
_LEAD = re.compile(r"^[\s,;:–—-]*(?:(?:for|to|where|while|doing|as)\b[\s,]*)?", re.I)
_TRAIL = re.compile(r"[\s,;:–—-]*(?:\b(?:and|then|but|so|started|starting|from|on|for|all|which)\b[\s,]*)*$", re.I)
_CLAUSE_END = re.compile(r"[,;.!?–—]|\s-\s|\b(?:and it|which|but)\b", re.I)
_HEADER = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2},\s*[^:]{1,40}:\s*")
_DET = re.compile(r"^(?:the|a|an|this|that|my|our|his|her|their)\s+", re.I)


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower())) - _STOP


@dataclass
class _Choice:
    doc: EnrichedDocument
    fact: Fact | None
    score: tuple[float, float, int, int]


def _speaker_at(doc: EnrichedDocument, fact: Fact) -> str | None:
    """The author of the message holding the fact's mention (or evidence)."""
    if fact.attrs.get("speaker"):
        return str(fact.attrs["speaker"])
    anchor = str(fact.attrs.get("mention") or fact.evidence.strip()[:60])
    pos = doc.text.find(anchor) if anchor else -1
    msgs = split_messages(doc.text, doc.meta)
    for m in msgs:
        if m.start <= max(pos, 0) < m.end and m.speaker:
            return m.speaker
    return next((m.speaker for m in msgs if m.speaker), None)


def _sentence_with(text: str, anchor: str) -> str:
    for s in split_sentences(text):
        if anchor and anchor in s:
            return s
    return text


def _after(sentence: str, anchor: str) -> str:
    i = sentence.find(anchor)
    rest = sentence[i + len(anchor):] if i >= 0 else ""
    rest = _LEAD.sub("", rest, count=1)
    m = _CLAUSE_END.search(rest)
    return (rest[: m.start()] if m else rest).strip()


def _before_time(sentence: str) -> str:
    """The clause before the first time expression, opener ("I had to") removed."""
    m = _TIME_CUE.search(sentence)
    head = sentence[: m.start()] if m else sentence
    head = _TRAIL.sub("", head)
    opened = _OPENER.sub("", head, count=1)
    if opened != head:
        return opened.strip(" ,")
    parts = re.split(r"[,;:–—]|\s-\s", head)
    return _SUBJECT.sub("", parts[-1].strip()).strip(" ,")


_FROM = re.compile(r"\b(?P<item>[A-Za-z][\w-]*)\s+from\s+(?P<brand>[A-Z0-9][^,;.!?–—]*?)(?=\s+(?:is|was|which|that|it|and|but)\b|\s*[,;.!?–—]|$)")


def _brand(entity: str, evidence: str) -> str:
    """``entity`` as "<brand> <item>" ("Tablet from Insignia" -> "Insignia Tablet"); with
    the compared item's capitalised words in front if it names no brand."""
    m = _FROM.search(entity)
    if m and m.group("item").lower() not in _STOP | {"one", "ones", "those", "these", "set"}:
        return f"{m.group('brand').strip()} {m.group('item')}"
    ent = _DET.sub("", entity.strip())
    if any(w[:1].isupper() for w in ent.split()):
        return ent
    caps: list[str] = []
    for sent in split_sentences(evidence) or [evidence]:
        toks = sent.split()
        for k, w in enumerate(toks):
            clean = w.strip(",.;:()")
            if k > 0 and clean[:1].isupper() and clean.lower() not in _STOP:
                caps.append(clean)
            elif caps:
                break
        if caps:
            break
    return " ".join([*caps, ent]).strip()


class ExtractiveReader:
    """Answers from enriched facts (see the module docstring).

    Args:
        places: place names for query constraints (a :class:`Gazetteer` or names).
        order: how to read numeric dates in questions ("MDY", "DMY", "YMD").
    """

    def __init__(self, places: Gazetteer | Iterable[str] | None = None, order: str = "MDY") -> None:
        self.places = places
        self.order = order
        self.name = "extractive"

    def _choose(self, question: str, docs: Sequence[EnrichedDocument], cs: list[Constraint]) -> _Choice | None:
        qw = _words(question)
        best: _Choice | None = None
        for doc in docs:
            doc_score = constraint_score(cs, doc.facts) if cs else 0.0
            doc_overlap = len(qw & _words(doc.text))  # e.g. the speaker the question names
            facts: Sequence[Fact | None] = doc.facts or [None]
            for f in facts:
                fs = constraint_score(cs, [f]) if (cs and f is not None) else 0.0
                overlap = len(qw & _words(f.evidence if f is not None else doc.text))
                cand = _Choice(doc, f, (doc_score, fs, doc_overlap, overlap))
                if best is None or cand.score > best.score:
                    best = cand
        return best

    def _span(self, choice: _Choice, question: str) -> str:
        doc, f = choice.doc, choice.fact
        assert f is not None
        if f.kind == "place":
            mention = str(f.attrs.get("mention") or f.value)
            sent = _sentence_with(doc.text, mention)
            return _after(sent, mention) or _before_time(sent[: sent.find(mention)])
        sent = f.evidence or doc.text
        return _before_time(sent)

    def answer(self, question: str, docs: Sequence[EnrichedDocument]) -> str:
        """The answer to ``question`` from ``docs`` ("" when there are no documents)."""
        if not docs:
            return ""
        cs = parse_constraints(question, places=self.places, order=self.order)
        choice = self._choose(question, docs, cs)
        if choice is None or choice.fact is None or choice.score[1] <= 0:
            return self._fallback(question, docs)
        f = choice.fact
        if _PERSON.search(question):
            return _speaker_at(choice.doc, f) or ""
        entity = str(f.attrs.get("entity") or "").strip()
        if entity and _words(entity):
            return _brand(entity, f.evidence)
        return self._span(choice, question)

    def _fallback(self, question: str, docs: Sequence[EnrichedDocument]) -> str:
        qw = _words(question)
        best = ("", -1)
        for d in docs:
            for s in split_sentences(d.text):
                n = len(qw & _words(s))
                if n > best[1]:
                    best = (s.strip(), n)
        if _PERSON.search(question):
            msgs = [m for d in docs for m in split_messages(d.text, d.meta) if m.speaker]
            for d in docs:
                for m in split_messages(d.text, d.meta):
                    if m.speaker and best[0] and best[0] in d.text[m.start : m.end]:
                        return m.speaker
            return (msgs[0].speaker or "") if msgs else ""
        return _HEADER.sub("", best[0])

    def answer_many(self, items: Sequence[tuple[str, Sequence[EnrichedDocument]]]) -> list[str]:
        """One answer per ``(question, docs)`` pair."""
        return [self.answer(q, docs) for q, docs in items]

    def __repr__(self) -> str:
        return "ExtractiveReader()"


def explain(reader: ExtractiveReader, question: str, docs: Sequence[EnrichedDocument]) -> dict[str, Any]:
    """The fact an answer came from (for debugging readers)."""
    cs = parse_constraints(question, places=reader.places, order=reader.order)
    ch = reader._choose(question, docs, cs)
    return {"constraints": cs, "doc": ch.doc.id if ch else None,
            "fact": ch.fact.to_dict() if ch and ch.fact else None, "answer": reader.answer(question, docs)}

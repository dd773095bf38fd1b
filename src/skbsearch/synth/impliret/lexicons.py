"""Lexicons for IMPLIRET-style synthesis: names with personas, shopping items and brands,
activities, events, temporal phrasing, and our own openers, fillers and forum questions.

The IMPLIRET authors' lexicons (MIT; see ``data/impliret/LICENSE``) ship inside the package
(:func:`packaged_lexicon_dir`); a user's folder given to :func:`load_lexicons` replaces any
file it holds, file by file, so a partial folder (only ``names.jsonl``, say) is fine.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import iter_jsonl

#: file names (the IMPLIRET authors' spelling, "hapening" included) by lexicon key.
FILES = {
    "names": "names.jsonl",
    "shopping": "A_Uni_Base_JSON.json",
    "travel": "S_Uni_Base_JSON.json",
    "events": "events.txt",
    "happening": "hapening_phrases.txt",
    "occupation": "occupation_phrases.txt",
    "works_multi": "works_Temp_Multi.txt",
    "works_once": "works_Temp_Uni_Once.txt",
    "works_repeat": "works_Temp_Uni_Repeat.txt",
    "phrases": "skbsearch_phrases.json",
}
PHRASE_KEYS = (
    "chat_openers", "forum_openers", "chat_replies", "chat_user2_smalltalk", "chat_user1_neutral",
    "chat_user1_followups", "chat_closers", "forum_closers",
)  # fmt: skip


@dataclass(frozen=True)
class Person:
    """A first name and a one-line persona ("Aaron is a dedicated park ranger ...")."""

    name: str
    persona: str

    @property
    def role(self) -> str | None:
        """The persona's first noun phrase ("a dedicated park ranger"), or ``None``."""
        m = re.match(re.escape(self.name) + r" is (an? [^,.;()]+?)(?:\s+(?:who|working|based|from|in|at|"
                     r"living|with|known|for|on|specializing|and)\b|[,.;(]|$)", self.persona)
        return m.group(1).strip() if m else None


@dataclass(frozen=True)
class ShoppingCategory:
    """A product category: items to buy, high-priced and low-priced brands."""

    name: str
    items: tuple[str, ...]
    high: tuple[str, ...]
    low: tuple[str, ...]


@dataclass
class Lexicons:
    """Everything entity binding and the template realiser draw from."""

    people: list[Person]
    shopping: list[ShoppingCategory]
    travel_purposes: list[str]
    events: list[str]
    happening: list[str]
    occupation: list[str]
    works_multi: list[str]
    works_once: list[str]
    works_repeat: list[str]
    phrases: dict[str, list[str]]
    forum_questions: dict[str, list[str]]
    sources: dict[str, str] = field(default_factory=dict)

    def gerund_occupations(self) -> list[str]:
        """Occupation phrases that take a gerund ("was busy", "was engaged in")."""
        return [p for p in self.occupation if re.search(r"\b(?:busy|with|in)$", p.strip())] or ["was busy"]


def packaged_lexicon_dir() -> Path:
    """The folder of lexicons shipped with skbsearch."""
    return Path(str(resources.files("skbsearch.synth") / "data" / "impliret"))


def _read_list(path: Path) -> list[str]:
    """A JSON (or Python-literal style) list of strings, as the authors' ``.txt`` files hold."""
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"expected a JSON list of strings: {e.msg} at line {e.lineno}", file=path,
                         line=e.lineno) from None
    if not isinstance(data, list) or not all(isinstance(x, str) and x.strip() for x in data):
        raise InputError("expected a JSON list of non-empty strings", file=path)
    return [x.strip() for x in data]


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg}", file=path, line=e.lineno) from None


def _read_people(path: Path) -> list[Person]:
    people: list[Person] = []
    seen: set[str] = set()
    for n, rec in iter_jsonl(path):
        name, persona = rec.get("name"), rec.get("persona", "")
        if not isinstance(name, str) or not name.strip():
            raise InputError("missing 'name'", file=path, line=n, field="name")
        if name in seen:
            continue
        seen.add(name)
        people.append(Person(name.strip(), str(persona or "").strip()))
    return people


def _read_shopping(path: Path) -> list[ShoppingCategory]:
    data = _read_json(path)
    if not isinstance(data, dict):
        raise InputError("expected {category: {items_to_buy, high_priced, low_priced}}", file=path)
    out = []
    for cat, v in data.items():
        try:
            items, high, low = (tuple(str(x) for x in v[k]) for k in ("items_to_buy", "high_priced", "low_priced"))
        except (KeyError, TypeError):
            raise InputError(f"category {cat!r} needs items_to_buy, high_priced and low_priced lists",
                             file=path, field=str(cat)) from None
        if items and high and low:
            out.append(ShoppingCategory(str(cat), items, high, low))
    return out


def _read_phrases(path: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    data = _read_json(path)
    phrases = {}
    for k in PHRASE_KEYS:
        v = data.get(k) if isinstance(data, dict) else None
        if not isinstance(v, list) or not v:
            raise InputError(f"missing or empty list {k!r}", file=path, field=k)
        phrases[k] = [str(x) for x in v]
    fq = data.get("forum_questions", {})
    if not isinstance(fq, dict):
        raise InputError("'forum_questions' must map a category to templates", file=path, field="forum_questions")
    return phrases, {str(c): [str(t) for t in ts] for c, ts in fq.items()}


def load_lexicons(directory: str | Path | None = None) -> Lexicons:
    """The packaged lexicons, with every file present in ``directory`` used instead.

    Raises:
        InputError: ``directory`` does not exist, or a file in it is malformed (the
            message names the file and line).
    """
    base = packaged_lexicon_dir()
    user = Path(directory) if directory is not None else None
    if user is not None and not user.is_dir():
        raise InputError(f"lexicon folder not found: {user}", field="lexicons")
    paths = {}
    for key, name in FILES.items():
        p = user / name if user is not None and (user / name).is_file() else base / name
        if not p.is_file():
            raise InputError(f"lexicon file {name} not found in {user or base}", field="lexicons")
        paths[key] = p
    travel = _read_json(paths["travel"])
    purposes = travel.get("travel_purposes") if isinstance(travel, dict) else None
    if not isinstance(purposes, list) or not purposes:
        raise InputError("expected {\"travel_purposes\": [...]}", file=paths["travel"], field="travel_purposes")
    phrases, forum_questions = _read_phrases(paths["phrases"])
    return Lexicons(
        people=_read_people(paths["names"]),
        shopping=_read_shopping(paths["shopping"]),
        travel_purposes=[str(x).strip() for x in purposes],
        events=_read_list(paths["events"]),
        happening=_read_list(paths["happening"]),
        occupation=_read_list(paths["occupation"]),
        works_multi=_read_list(paths["works_multi"]),
        works_once=_read_list(paths["works_once"]),
        works_repeat=_read_list(paths["works_repeat"]),
        phrases=phrases,
        forum_questions=forum_questions,
        sources={k: str(p) for k, p in paths.items()},
    )

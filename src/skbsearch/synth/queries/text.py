"""Fusing a relational requirement and properties into a query without an LLM (step 3).

Several sentence templates per role (customer, researcher, doctor), picked with the
seeded generator, that name the anchor, say the relation in words and add one or two
properties: "Any suggestions for a jacket with brand Foxfield, featuring mesh vents?".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.synth.queries.properties import Property
from skbsearch.synth.queries.templates import article

_SLOT = re.compile(r"\{(a_subject|subjects|subject|rel|props)\}")
_THE_TARGET = re.compile(r"^the\s+\S+\s+", re.IGNORECASE)
ROLES = ("customer", "researcher", "doctor")

#: Per role: sentence templates over {a_subject} ("a jacket"), {subject}, {subjects},
#: {rel} (the relational requirement) and {props} (", featuring X and Y" or "").
SENTENCES: dict[str, tuple[str, ...]] = {
    "customer": (
        "Any suggestions for {a_subject} {rel}{props}?",
        "I'm looking for {a_subject} {rel}{props}.",
        "Can you recommend {a_subject} {rel}{props}?",
        "Help me find {a_subject} {rel}{props}.",
        "What {subject} {rel}{props} would you recommend?",
        "I want to buy {a_subject} {rel}{props}. Any ideas?",
    ),
    "researcher": (
        "Find {subjects} {rel}{props}.",
        "Show me {subjects} {rel}{props}.",
        "List {subjects} {rel}{props}.",
        "I am looking for {subjects} {rel}{props}.",
        "Search for {subjects} {rel}{props}.",
        "What are the {subjects} {rel}{props}?",
    ),
    "doctor": (
        "Which {subjects} {rel}{props} should I consider?",
        "What {subject} {rel}{props} is relevant for my patient?",
        "I need information on {subjects} {rel}{props}.",
        "Find {subjects} {rel}{props} for a clinical case.",
        "List {subjects} {rel}{props}.",
    ),
}
#: Ways to attach text properties ("{}" is the property phrase).
CONNECTORS = ("with {}", "featuring {}", "that mentions {}", "described as having {}")


_SHOP = frozenset({"product", "item", "brand"})
_BIO = frozenset({"disease", "drug", "gene/protein", "gene", "protein", "effect/phenotype"})


def auto_role(type_names: Sequence[str], counts: Sequence[int] | None = None, min_share: float = 0.25) -> str:
    """``customer`` for product catalogues, ``doctor`` for biomedical SKBs, else ``researcher``.

    With ``counts`` (nodes per type) the persona follows the SKB's dominant types: the
    shop or biomedical types must hold ``min_share`` of the nodes (39 diseases among 14,500
    films and people do not make a doctor)."""
    names = [t.lower() for t in type_names]
    if counts is None:
        if set(names) & _SHOP:
            return "customer"
        return "doctor" if set(names) & _BIO else "researcher"
    total = max(float(sum(counts)), 1.0)
    shop = sum(c for t, c in zip(names, counts, strict=True) if t in _SHOP) / total
    bio = sum(c for t, c in zip(names, counts, strict=True) if t in _BIO) / total
    if shop >= min_share and shop >= bio:
        return "customer"
    return "doctor" if bio >= min_share else "researcher"


def check_role(role: str, type_names: Sequence[str], counts: Sequence[int] | None = None) -> str:
    """The role to use (``auto`` resolved from the types and, given, their node counts);
    unknown roles raise :class:`InputError`."""
    if role == "auto":
        return auto_role(type_names, counts)
    if role not in ROLES:
        raise InputError(f"unknown role {role!r}; use one of {', '.join(ROLES)} or auto", field="role")
    return role


_PLURAL_VERBS = {"is": "are", "was": "were", "has": "have"}


def plural(noun: str) -> str:
    """A naive English plural of the last word: jacket -> jackets, city -> cities; of the
    noun before a clause, its verb agreeing (``thing that plays for`` -> ``things that play
    for``, ``thing that is located in`` -> ``things that are located in``)."""
    for sep in (" that ", " with ", " something "):
        if sep in noun:
            first, _, rest = noun.partition(sep)
            if sep == " that ":
                verb, _, tail = rest.partition(" ")
                verb = _PLURAL_VERBS.get(verb) or (verb[:-1] if verb.endswith("s") and not verb.endswith("ss")
                                                   else verb)
                rest = f"{verb} {tail}".strip()
            return plural(first) + sep + rest
    head, _, last = noun.rpartition(" ")
    if last.endswith("y") and last[-2:-1] not in tuple("aeiou"):
        last = last[:-1] + "ies"
    elif last.endswith(("s", "x", "z", "ch", "sh")):
        last = last + "es"
    else:
        last = last + "s"
    return f"{head} {last}" if head else last


def props_clause(props: Sequence[Property], rng: np.random.Generator) -> str:
    """", featuring mesh vents and recycled nylon" (relation properties as they are)."""
    parts = []
    for p in props:
        if p.kind == "text":
            parts.append(CONNECTORS[int(rng.integers(len(CONNECTORS)))].format(p.text))
        elif p.kind == "llm":  # "the product has mesh vents" -> "that has mesh vents"
            parts.append(_THE_TARGET.sub("that ", p.text.rstrip(". ")))
        else:
            parts.append(p.text)
    if not parts:
        return ""
    return ", " + " and ".join(parts)


def fuse(role: str, subject: str, rel: str, props: Sequence[Property], rng: np.random.Generator) -> str:
    """One query: a role's sentence template filled with subject, requirement and properties."""
    sentence = SENTENCES[role][int(rng.integers(len(SENTENCES[role])))]
    subject = subject.replace("_", " ")
    clause = props_clause([p for p in props if p.kind != "category"], rng)
    is_plural = subject.endswith("s") and not subject.endswith("ss")  # "headphones"
    values = {"a_subject": subject if is_plural else f"{article(subject)} {subject}",
              "subjects": subject if is_plural else plural(subject),
              "subject": subject, "rel": rel, "props": clause}
    # One pass: names and phrases that contain "{...}" are never substituted again.
    return _SLOT.sub(lambda m: values[m.group(1)], sentence)

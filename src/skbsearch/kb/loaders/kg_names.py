"""Readable names for the ids public knowledge graphs use.

Relations: a path id (``/film/film/directed_by``, Freebase's ``/domain/type/property``)
reads as its last property with the words it shares with its type dropped
(``/x/film_regional_release_date/film_release_region`` -> ``release region``, the last
hop of a compound ``a./b`` path); an id with a text of its own (Wikidata's ``P19`` with
``place of birth``) reads as the text; any other id is split at underscores and
camelCase (``_member_of_domain_usage`` -> ``member of domain usage``, ``isLocatedIn`` ->
``is located in``). Names that two relations would share are qualified by the type of
their heads, then by the raw id. The raw id is always kept beside the name.

Entities without a name in the files read as their id, with underscores as spaces when
the id is made of words (YAGO's ``Barack_Obama``), and as the bare id when it is an opaque
code (``/m/06rf7``, ``Q42``, ``00260881``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from skbsearch.kb.schema import INVERSE_SUFFIX

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPACES = re.compile(r"\s+")
_OPAQUE = re.compile(r"^/[a-z]/|^[A-Za-z]?\d+$")

#: Words that end a verb phrase: a relation text ending so names no kind of thing.
_PREPOSITIONS = frozenset("by in to at on from with for of into as about".split())
#: Leading words of a relation text that are not part of the noun it names.
_LEADING = frozenset("is was are were has have had the a an".split())


def words(token: str) -> list[str]:
    """Lower-case words of an id fragment (underscores, hyphens, dots, camelCase)."""
    token = _CAMEL.sub(" ", token)
    return [w for w in re.split(r"[\s_\-.]+", token.lower()) if w]


def is_path(rel_id: str) -> bool:
    """Whether a relation id is a ``/namespace/type/property`` path."""
    return rel_id.startswith("/") and rel_id.count("/") >= 2


def _hops(rel_id: str) -> list[list[str]]:
    """The segments of each hop of a path id (compound paths join hops with ``./``)."""
    return [[s for s in hop.split("/") if s] for hop in rel_id.split("./")]


def path_type(rel_id: str) -> str | None:
    """The head type a path id names: its first hop's second-to-last segment."""
    if not is_path(rel_id):
        return None
    first = _hops(rel_id)[0]
    return " ".join(words(first[-2])) if len(first) >= 2 else None


def _path_name(rel_id: str) -> str:
    last = _hops(rel_id)[-1]
    prop = words(last[-1])
    owner = set(words(last[-2])) if len(last) >= 2 else set()
    while len(prop) > 1 and len(prop[-1]) == 1:  # position_s -> position
        prop = prop[:-1]
    if len(prop) > 1 and prop[0] in owner and prop[1] not in _PREPOSITIONS:
        prop = prop[1:]
    return " ".join(prop)


def _hop_property(rel_id: str) -> str:
    """The first hop's property of a compound path (``release_date_s`` -> ``release date``)."""
    ws = words(_hops(rel_id)[0][-1])
    while len(ws) > 1 and len(ws[-1]) == 1:
        ws = ws[:-1]
    return " ".join(ws)


def _qualifiers(rel_id: str) -> list[str]:
    """Ever more precise qualifiers for a relation whose name another relation shares."""
    if not is_path(rel_id):
        return [rel_id]
    hops = _hops(rel_id)
    head = path_type(rel_id) or rel_id
    out = [head]
    if len(hops) > 1:
        out.append(_hop_property(rel_id))
        out.append(f"{head}, {_hop_property(rel_id)}")
        out.append(f"{head}, {type_label(hops[-1][-2])}" if len(hops[-1]) > 1 else rel_id)
    owner = " ".join(" ".join(words(seg)) for seg in hops[0][:-1])  # the whole owner path
    out.append(owner)
    if len(hops) > 1 and len(hops[-1]) > 1:
        out.append(f"{owner}, {type_label(hops[-1][-2])}")
    return [*out, rel_id]


def clean_text(text: str | None) -> str:
    """Whitespace-collapsed text ('' for None)."""
    return _SPACES.sub(" ", text or "").strip()


def base_relation_name(rel_id: str, text: str | None = None) -> str:
    """A readable name for one relation, before names shared by several are qualified."""
    if is_path(rel_id):
        name = _path_name(rel_id)
    elif clean_text(text):
        name = clean_text(text)
    else:
        name = " ".join(words(rel_id))
    name = name or rel_id
    while name.endswith(INVERSE_SUFFIX):
        name = name[: -len(INVERSE_SUFFIX)].rstrip() or "inverse"
    return name


def relation_names(rel_ids: Sequence[str], texts: Sequence[str | None]) -> list[str]:
    """Unique readable names for ``rel_ids`` (see the module docstring)."""
    names = [base_relation_name(r, t) for r, t in zip(rel_ids, texts, strict=True)]
    groups: dict[str, list[int]] = defaultdict(list)
    for i, n in enumerate(names):
        groups[n].append(i)
    out = list(names)
    taken = set(names)
    for name, members in groups.items():
        if len(members) < 2:
            continue
        options = [_qualifiers(rel_ids[i]) for i in members]
        qualified = []
        for k, opts in enumerate(options):
            for q in opts:  # the first qualifier no other member of the group shares
                if all(q not in o for j, o in enumerate(options) if j != k):
                    break
            qualified.append(f"{name} ({q})")
        if len(set(qualified)) < len(qualified) or taken.intersection(qualified):
            qualified = [f"{name} ({rel_ids[i]})" for i in members]
        for i, q in zip(members, qualified, strict=True):
            out[i] = q
        taken.update(qualified)
    return out


def noun_of(relation_name: str) -> str | None:
    """The kind of thing a relation's targets are, when its name says so.

    ``place of birth`` -> ``place``, ``has gender`` -> ``gender``, ``genre`` ->
    ``genre``; a verb phrase (``directed by``, ``is located in``, ``directed``) names none.
    """
    ws = words(relation_name)
    while ws and ws[0] in _LEADING:
        ws = ws[1:]
    if not ws or ws[-1] in _PREPOSITIONS or _participle(ws[-1]):
        return None
    if "of" in ws[1:]:
        return " ".join(ws[: ws.index("of")])
    return " ".join(ws)


#: copulas that open a relation text naming its heads (``is citizen of``)
_COPULAS = frozenset("is was are were".split())
#: irregular past participles (``was born in`` names no kind of thing)
_IRREGULAR = frozenset("born known made written given taken seen held built led won sold found shown "
                       "done gone kept paid run set told".split())
#: adjective endings (``is similar to``, ``is famous for`` name no kind of thing)
_ADJECTIVE = ("ous", "ive", "able", "ible", "ful", "less", "ilar")


def head_noun_of(relation_name: str) -> str | None:
    """The kind of thing a relation's *heads* are, when its name says so: a copula, a noun,
    a preposition (``is citizen of`` -> ``citizen``, ``is part of`` -> ``part``); a
    participle or adjective (``is located in``, ``was born in``, ``is similar to``) names none.
    """
    ws = words(relation_name.split(" (")[0])
    if len(ws) < 3 or ws[0] not in _COPULAS or ws[-1] not in _PREPOSITIONS:
        return None
    body = [w for w in ws[1:-1] if w not in ("a", "an", "the")]
    if not body or any(w in _PREPOSITIONS for w in body):
        return None
    last = body[-1]
    if _participle(last) or last in _IRREGULAR or last.endswith(_ADJECTIVE) or len(last) < 3:
        return None
    return " ".join(body)


def _participle(word: str) -> bool:
    """A past participle ending a relation name (``directed``, ``created``): a verb, no kind."""
    return len(word) > 4 and word.endswith("ed") and not word.endswith("eed")


def entity_name(entity_id: str) -> str:
    """A display name for an entity that has none: the id, as words when it is words."""
    if _OPAQUE.search(entity_id) or not re.search(r"[A-Za-z]{2}", entity_id):
        return entity_id
    return _SPACES.sub(" ", entity_id.replace("_", " ")).strip() or entity_id


def type_label(token: str) -> str:
    """A type name from an id fragment: ``award_nominee`` -> ``award nominee``."""
    return " ".join(words(token)) or token

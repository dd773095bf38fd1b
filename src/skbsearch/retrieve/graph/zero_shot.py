"""The graph stage's zero-shot plan: metapaths and answer types from the schema's names.

Without training, an anchor's metapaths are the ones whose relation and type names the
question says (:func:`zero_shot_paths`: "directed" says ``directed_by``, a plural says
what its singular does when it names nothing itself: "parts" says ``has_part``) and the
answer types are the types that carry text plus those the question names
(:func:`zero_shot_types`). Only types named as nouns name a path's end: an importer's
position phrase (``thing with part``, a type named after the relation it stands at) would
count its relation's words a second time. Nothing here names a particular KG's relations:
:data:`DERIVED` is general English.
"""

from __future__ import annotations

import functools
import heapq
import re
from collections import Counter
from collections.abc import Collection, Sequence

from skbsearch.kb.loaders.kg_type_names import is_position_phrase
from skbsearch.kb.profile import FUNCTION_WORDS
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.answer_types import singular
from skbsearch.retrieve.graph.metapaths import Metapath, TypeGraph, steps_of

#: English function words that never name a relation (``has_genre`` is about "genre").
_FUNCTION = frozenset("a an the of in on at to by for is are was has have with from and or".split())
_TOKEN = re.compile(r"[^0-9a-z]+")
#: English verbs and nouns a question uses for what a schema names otherwise ("born in" is
#: "place of birth"; "bordering" is "adjoins"): added to the query's words when matching
#: relation names. General English, no knowledge base's vocabulary.
DERIVED: dict[str, tuple[str, ...]] = {
    "born": ("birth",), "birthplace": ("birth",), "died": ("death",), "dead": ("death",), "die": ("death",),
    "buried": ("burial",), "married": ("marriage", "spouse"), "wife": ("spouse",), "husband": ("spouse",),
    "won": ("winner", "win", "award"), "win": ("winner", "award"), "winners": ("winner", "award"),
    "wrote": ("written", "writer"), "starred": ("actor", "cast", "performance"),
    "starring": ("actor", "cast", "performance"), "appeared": ("actor", "cast", "performance"),
    "scored": ("music",), "score": ("music",), "composed": ("music", "composer"),
    "directed": ("director",), "produced": ("producer",), "edited": ("editor", "edited"),
    "founded": ("founder", "founded"), "studied": ("student", "education"), "alumni": ("student", "graduate"),
    "graduated": ("graduate", "student"), "bordering": ("adjoin", "border"), "borders": ("adjoin",),
    "border": ("adjoin",), "neighbouring": ("adjoin",), "neighboring": ("adjoin",),
    "lived": ("lived", "residence"), "lives": ("lived", "residence"), "located": ("location", "contain"),
    "members": ("member", "membership", "group"), "member": ("membership", "group"),
    "played": ("player", "team", "roster"), "plays": ("player", "instrument"),
}
#: weight of the best zero-shot metapath when the query names none of its words
UNNAMED_PATH_WEIGHT = 0.5


def _names_word(word: str, query_words: set[str]) -> bool:
    """Whether a relation/type word is said by the query: a query word of 3+ letters that
    shares its first 5 letters with it (all of them if shorter): "directed" ~ "director",
    "act" ~ "actors"."""
    w = word.lower()
    if len(w) < 3 or w in _FUNCTION:
        return False
    return any(len(q) >= 3 and q not in _FUNCTION and q[:5] == w[: min(5, len(q))] for q in query_words)


def zero_shot_types(skb: SKB, query_words: set[str], text_types: Sequence[str],
                    nameable: Collection[str] | None = None) -> dict[str, float]:
    """Target types without training: the types that carry text (documents) and the types
    the query names ("which *genre*"; but "from the *brand* X" names a type it does not
    ask for, so named types never replace the document types); all types if neither.
    ``nameable``: the types a query may name (default all; the graph stage gives the ones
    that inform); a function word never names a type."""
    words = {w for w in query_words if w not in FUNCTION_WORDS}
    named = [t for t in skb.type_names if (nameable is None or t in nameable)
             and any(_names_word(p, words) for p in _TOKEN.split(t.lower()) if p and p not in FUNCTION_WORDS)]
    chosen = list(dict.fromkeys([*text_types, *named])) or list(skb.type_names)
    return {t: 1.0 / len(chosen) for t in chosen}


def zero_shot_paths(tg: TypeGraph, start: str, query_words: Collection[str], targets: Sequence[str] | None,
                    max_hops: int = 2, limit: int | None = None,
                    first: frozenset[str] | None = None) -> list[tuple[Metapath, float]]:
    """Metapaths from ``start`` scored by how much of their relation/type names the query says.

    ``score = (1 + 2 * named words) / hops^2`` over paths ending in a target type (any
    type if none fits), divided by the best score (the likeliest path weighs 1); ties keep
    the schema's walk order. A relation word the query says more than once names a chain
    that takes its step as many times ("part of a city that is part of France": ``has_part,
    has_part``): each repeat of the step counts as a named word and as no hop. With ``limit``, only the ``limit`` best are returned, and a
    branch whose best possible score cannot reach them is never walked (on a schema of
    hundreds of relations there are 10^5 two-hop paths, a handful of which the query names).
    ``first``: the steps the anchor node itself has (:meth:`TypeGraph.node_steps`); paths
    that leave it by another step reach nothing from it and are not proposed. A query word
    says the schema words :func:`_said_by` gives; an end type's name counts only when it
    is a noun phrase (:func:`nameable_types`).
    """
    times = Counter(v for w in query_words for v in _said_by(tg, w))
    spoken = frozenset(times)
    again = {v: n for v, n in times.items() if n > 1}

    ends = set(targets) if targets is not None else None
    found = _walk_paths(tg, start, max_hops, ends, spoken, limit, first, again)
    if not found and ends is not None:
        found = _walk_paths(tg, start, 1, None, spoken, limit, first, again)
    found.sort(key=lambda x: (-x[1], x[2]))
    if limit is not None:
        found = found[:limit]
    top = max((sc for _, sc, _ in found), default=1.0)
    # no path the query names: the best guess is only a guess
    scale = 1.0 if top > 1.0 else UNNAMED_PATH_WEIGHT
    return [(p, scale * sc / top) for p, sc, _ in found]


def _said_by(tg: TypeGraph, word: str) -> frozenset[str]:
    """The words of the schema's relation and type names one query word says
    (:func:`_names_word`, with the :data:`DERIVED` words it implies); a plural that says
    none of them says what its singular does ("parts": ``part``; "films" keeps naming
    ``films`` alone where a relation is so named). Cached on ``tg``."""
    cache = tg.__dict__.setdefault("_zero_shot_said_by", {})
    got = cache.get(word)
    if got is None:
        vocab = _step_vocab(tg)
        for form in dict.fromkeys((word, singular(word))):
            said = {form, *DERIVED.get(form, ())}
            got = frozenset(v for v in vocab if _names_word(v, said))
            if got:
                break
        if len(cache) < 100_000:
            cache[word] = got
    return got or frozenset()


def _walk_paths(tg: TypeGraph, start: str, max_hops: int, ends: set[str] | None,
                spoken: frozenset[str], limit: int | None, first: frozenset[str] | None = None,
                again: dict[str, int] | None = None) -> list[tuple[Metapath, float, int]]:
    """Depth-first over metapaths in the schema's order: ``(path, score, order)``, pruned
    by an upper bound on the named words a longer path can add (see :func:`zero_shot_paths`).

    A path's named words are the ``spoken`` words among its steps' and its end types' words,
    carried down the walk step by step (the query's few spoken words, not every path's words:
    a schema has 10^5 two-hop paths, so the first query would otherwise compute what no cache
    of them holds). ``again``: the spoken words the query says more than once, and how often:
    a step taken again that says one of them, up to that many times, is a repeat (a named
    word and no hop)."""
    out: list[tuple[Metapath, float, int]] = []
    best: list[float] = []  # a min-heap of the ``limit`` best scores so far
    # the most named words one step (with the types it leads to) can add
    step_max = max((len(w & spoken) for w in _step_word_sets(tg)), default=0)
    said_step: dict[str, frozenset[str]] = {}
    said_ends: dict[frozenset[str], frozenset[str]] = {}
    nouns = nameable_types(tg)

    def floor() -> float:
        return best[0] if limit is not None and len(best) >= limit else -1.0

    again = again or {}

    def bound(k: int, hops: int, reps: int) -> float:
        """The best score a longer path can reach (a repeat adds a word and no hop)."""
        if not again:
            return (1.0 + 2.0 * (k + step_max)) / (hops + 1) ** 2
        return (1.0 + 2.0 * (k + (max_hops - hops) * (step_max + 1))) / max(1, hops - reps) ** 2

    def walk(path: Metapath, cur: frozenset[str], said: frozenset[str], reps: int) -> None:
        for step, nxt in tg.next_steps(cur):
            if first is not None and len(path) == 1 and step not in first:
                continue
            new = (*path, step)
            hops = len(new) - 1
            sw = said_step.get(step)
            if sw is None:
                sw = said_step[step] = _step_words(step) & spoken
            now = said | sw if sw else said
            # the same step again, by a word the query says again ("part ... part")
            r = reps + bool(again and step in path[1:] and any(path.count(step) < again.get(w, 0) for w in sw))
            ew = said_ends.get(nxt)
            if ew is None:
                ew = said_ends[nxt] = _ends_words(nxt & nouns) & spoken
            k = (len(now | ew) if ew else len(now)) + r
            if ends is None or nxt & ends:
                sc = (1.0 + 2.0 * k) / (hops - r) ** 2
                out.append((new, sc, len(out)))
                if limit is not None:
                    (heapq.heappush if len(best) < limit else heapq.heappushpop)(best, sc)
            if hops < max_hops and bound(k, hops, r) >= floor():
                walk(new, nxt, now, r)  # noqa: F821 - (cleared below, after the walk)

    walk((start,), frozenset([start]), frozenset(), 0)
    del walk  # the closure refers to itself: a cycle (holding ``tg``, its SKB) until cleared
    return out


def nameable_types(tg: TypeGraph) -> frozenset[str]:
    """The types whose names may name a path's end: all but an importer's position phrases
    (``thing with part``: its words are its relation's, already counted by the step;
    :func:`~skbsearch.kb.loaders.kg_type_names.is_position_phrase`). Cached on ``tg``."""
    got = tg.__dict__.get("_zero_shot_nouns")
    if got is None:
        got = tg.__dict__["_zero_shot_nouns"] = frozenset(t for t in tg.types if not is_position_phrase(t))
    return got


def _step_word_sets(tg: TypeGraph) -> list[frozenset[str]]:
    """The distinct word sets of single steps with the types they lead to (cached on ``tg``)."""
    got = tg.__dict__.get("_zero_shot_step_words")
    if got is None:
        got = list({_path_words((t, step), dst) for t in tg.types for step, dst in tg.steps_from.get(t, ())})
        tg.__dict__["_zero_shot_step_words"] = got
    return got


def _step_vocab(tg: TypeGraph) -> frozenset[str]:
    """Every word of the schema's relation and type names (cached on ``tg``)."""
    got = tg.__dict__.get("_zero_shot_vocab")
    if got is None:
        got = frozenset().union(*_step_word_sets(tg), *(_path_words((t,), frozenset([t])) for t in tg.types))
        tg.__dict__["_zero_shot_vocab"] = got
    return got


def prepare_zero_shot(tg: TypeGraph) -> None:
    """Compute the words of the schema's relations and types, and the type sets two-hop
    walks reach, now (stage set-up): the first query's walk then reads them from caches
    like every later one instead of paying for them."""
    _step_vocab(tg)
    nameable_types(tg)
    for t in tg.types:
        for _, ends in tg.next_steps(frozenset([t])):
            _ends_words(ends)
            for _, further in tg.next_steps(ends):
                _ends_words(further)


@functools.lru_cache(maxsize=65536)
def _path_words(path: Metapath, ends: frozenset[str]) -> frozenset[str]:
    return frozenset().union(*map(_step_words, steps_of(path))) | _ends_words(ends)


@functools.lru_cache(maxsize=65536)
def _step_words(step: str) -> frozenset[str]:
    """The words of one relation step's name."""
    return frozenset(w for w in _TOKEN.split(step.removesuffix("^-1").lower()) if w)


@functools.lru_cache(maxsize=16384)
def _ends_words(ends: frozenset[str]) -> frozenset[str]:
    """The words of a set of types' names."""
    return frozenset(w for e in ends for w in _TOKEN.split(e.lower()) if w)
